/* SPDX-License-Identifier: MIT */
/*
 * libneuronprof: the output-directory policy.
 *
 * An inspect session writes into <base>/<instance_id>-<pid>/<session_init_ns>/.
 * The base defaults to "./output"; "/dev/null" and "./tmp" (the on-fail
 * salvage directory) are refused as bases. Directories are created without
 * following symbolic links planted by other users. Documentation/library.rst
 * states the whole policy.
 */
#ifndef NEURONPROF_OUTPUT_H
#define NEURONPROF_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <neuronprof/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default output base directory. */
#define NPROF_DEFAULT_OUTPUT_DIR	"./output"

/* Where on-fail salvage moves profiles; never accepted as a base. */
#define NPROF_OUTPUT_FAIL_DIR		"./tmp"

/* Longest instance id nprof_output_instance_id() produces, without the NUL. */
#define NPROF_INSTANCE_ID_MAX		255

/* Default probe paths of the instance id. */
#define NPROF_PROBE_BOARD_ASSET_TAG	"/sys/devices/virtual/dmi/id/board_asset_tag"
#define NPROF_PROBE_CLOUD_INSTANCE_ID	"/var/lib/cloud/data/instance-id"

/**
 * nprof_output_check_base() - may @base be used as an output base directory.
 * @base: the directory; NULL or "" means "./output" and is accepted.
 *
 * Refuses "/dev/null" and the salvage directory "./tmp" under any spelling
 * that names the same path lexically ("tmp", "./tmp/", ".//tmp/.",
 * "/dev//null", ...) and an absolute path equal to <cwd>/tmp. The message
 * names the directory as given.
 *
 * Return: 0, or -EINVAL (refused).
 */
NPROF_API int nprof_output_check_base(const char *base);

/*
 * struct nprof_instance_probe - where nprof_output_instance_id() looks.
 * @size: sizeof(struct nprof_instance_probe), for growth.
 * @board_asset_tag: DMI board asset tag file (an EC2 instance id "i-..." on
 *	Nitro instances); NULL skips it.
 * @cloud_instance_id: cloud-init's instance-id file; NULL skips it.
 * @hostname: used instead of gethostname() when no instance id is found;
 *	NULL means gethostname().
 */
struct nprof_instance_probe {
	size_t size;
	const char *board_asset_tag;
	const char *cloud_instance_id;
	const char *hostname;
};

/**
 * nprof_output_instance_id() - the id naming this machine in output paths.
 * @probe: where to look, or NULL for the defaults (NPROF_PROBE_* and
 *	gethostname()).
 * @buf: out, the NUL-terminated id.
 * @len: size of @buf; NPROF_INSTANCE_ID_MAX + 1 always suffices.
 *
 * The first of: the board asset tag if it is an EC2 instance id ("i-"
 * followed by 8 to 32 hex digits), the cloud-init instance id under the same
 * rule, else the host name with every character outside [A-Za-z0-9._-]
 * replaced by '_'.
 *
 * Return: the length of the id; -EINVAL for bad arguments; -ENAMETOOLONG if
 * @buf is too small; or the negative errno of gethostname().
 */
NPROF_API int nprof_output_instance_id(const struct nprof_instance_probe *probe,
				       char *buf, size_t len);

/**
 * nprof_output_session_dir() - format the session directory path.
 * @base: the base directory; NULL or "" means "./output". Checked with
 *	nprof_output_check_base().
 * @instance_id: from nprof_output_instance_id(); must not be empty, ".",
 *	".." or contain '/'.
 * @pid: process id written into the path.
 * @session_init_ns: the session's start time in nanoseconds.
 * @buf: out, "<base>/<instance_id>-<pid>/<session_init_ns>".
 * @len: size of @buf.
 *
 * Only formats; nothing is created.
 *
 * Return: the length of the path; -EINVAL for a refused base or bad
 * instance id; -ENAMETOOLONG if it does not fit in @len or PATH_MAX.
 */
NPROF_API int nprof_output_session_dir(const char *base, const char *instance_id, pid_t pid,
				       uint64_t session_init_ns, char *buf, size_t len);

/**
 * nprof_output_mkdir_p() - create a directory and its parents, safely.
 * @path: the directory (absolute or relative to the current directory).
 * @mode: mode of directories created (umask applies), e.g. 0755.
 *
 * Walks @path one component at a time with openat(O_DIRECTORY | O_NOFOLLOW)
 * and mkdirat(), so no component is resolved twice. A symbolic link is
 * followed only if it is owned by the effective uid or by root; its target is
 * walked under the same rule, so a chain cannot smuggle in a link of another
 * user. Any other symbolic link is refused with -EPERM and a message that
 * names the link and its owner. At most 40 links are followed (-ELOOP).
 *
 * Return: an O_DIRECTORY | O_CLOEXEC file descriptor of the directory (the
 * caller closes it; use it with nprof_ntff_writer_createat() so later steps
 * do not resolve the path again), or a negative errno: -EPERM (foreign
 * symlink), -ENOTDIR (a component is not a directory), -ELOOP, -EINVAL
 * (empty path), or that of the failing openat()/mkdirat().
 */
NPROF_API int nprof_output_mkdir_p(const char *path, mode_t mode);

/**
 * nprof_output_session_ntff_name() - "profile_nc_<nc>_session_<id>.ntff",
 * the file of one core of a SESSION capture.
 *
 * Return: the length; -EINVAL if @buf is NULL; -ENAMETOOLONG if it does not fit.
 */
NPROF_API int nprof_output_session_ntff_name(char *buf, size_t len, uint32_t nc,
					     uint64_t session_id);

/**
 * nprof_output_model_ntff_name() - "<model_name>_vnc_<vnc>.ntff", the file of
 * a MODEL capture (the library's own MODEL captures pass the model's
 * interned id as @vnc, as the runtime does). Characters of @model_name outside [A-Za-z0-9._+-] are
 * replaced by '_' and a leading '.' becomes '_', so the result is always a
 * plain file name.
 *
 * Return: the length; -EINVAL if an argument is NULL or @model_name is empty;
 * -ENAMETOOLONG if it does not fit in @len or NAME_MAX.
 */
NPROF_API int nprof_output_model_ntff_name(char *buf, size_t len, const char *model_name,
					   uint32_t vnc);

/**
 * nprof_output_continuous_ntff_name() - the file of a continuous-profile save:
 * "model_<id>_pid_<pid>_vnc_<vnc>_inst_<instance_id>_<%Y%m%d_%H%M%S>.ntff"
 * with the local time of @when (seconds since the epoch).
 *
 * Return: the length; -EINVAL for NULL arguments or a bad @instance_id;
 * -ENAMETOOLONG if it does not fit.
 */
NPROF_API int nprof_output_continuous_ntff_name(char *buf, size_t len, uint64_t model_id,
						pid_t pid, uint32_t vnc,
						const char *instance_id, int64_t when);

#ifdef __cplusplus
}
#endif

#endif /* NEURONPROF_OUTPUT_H */

// SPDX-License-Identifier: MIT
/*
 * Output-directory policy: base checks, instance id, the session directory
 * template, a mkdir -p that does not follow other users' symbolic links,
 * and the names of NTFF files.
 *
 * output/ is layer 2 of the library (lib/src/README): it may call util/
 * only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/output.h>

#include "util/internal.h"

/* Symbolic links followed in one walk, as the kernel's MAXSYMLINKS. */
#define MAX_LINKS	40

/*
 * Lexically normalise @in into @out: collapse "//" and "/./", resolve
 * "name/.." pairs and drop trailing '/'. Only used to recognise refused
 * directories, where refusing an extra spelling is harmless.
 */
static void normalize(const char *in, char *out, size_t outlen)
{
	size_t n = 0;
	bool abs = in[0] == '/';
	const char *p = in;

	if (abs)
		out[n++] = '/';
	out[n] = '\0';
	while (*p) {
		const char *end;
		size_t len;

		while (*p == '/')
			p++;
		end = strchr(p, '/');
		len = end ? (size_t)(end - p) : strlen(p);
		if (!len)
			break;
		if (len == 1 && p[0] == '.') {
			/* skip */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(out, '/');
			const char *last = slash ? slash + 1 : out;

			if (*last && strcmp(last, "..")) {
				/* drop the previous component */
				if (slash)
					n = (size_t)(slash - out) + (slash == out ? 1 : 0);
				else
					n = 0;
				out[n] = '\0';
			} else if (!abs || n > 1) {
				if (n && out[n - 1] != '/' && n + 1 < outlen)
					out[n++] = '/';
				if (n + 2 < outlen) {
					out[n++] = '.';
					out[n++] = '.';
				}
				out[n] = '\0';
			}
		} else {
			if (n && out[n - 1] != '/' && n + 1 < outlen)
				out[n++] = '/';
			if (n + len < outlen) {
				memcpy(out + n, p, len);
				n += len;
			}
			out[n] = '\0';
		}
		p += len;
	}
	if (!n) {
		out[n++] = '.';
		out[n] = '\0';
	}
}

NPROF_API int nprof_output_check_base(const char *base)
{
	char norm[PATH_MAX], cwd[PATH_MAX], abs_path[2 * PATH_MAX + 2], tmpdir[PATH_MAX + 8];
	char tmpnorm[PATH_MAX];

	if (!base || !*base)
		return 0;
	if (strlen(base) >= PATH_MAX)
		return nprof_err(ENAMETOOLONG, "output directory of %zu bytes is longer than PATH_MAX",
				 strlen(base));
	normalize(base, norm, sizeof(norm));
	if (!strcmp(norm, "/dev/null"))
		return nprof_err(EINVAL, "output directory '%s' is refused: it is /dev/null", base);
	if (!strcmp(norm, "tmp"))
		return nprof_err(EINVAL,
				 "output directory '%s' is refused: " NPROF_OUTPUT_FAIL_DIR
				 " is reserved for on-fail salvage", base);
	/* Spellings that only match once the current directory is known. */
	if (!getcwd(cwd, sizeof(cwd)))
		return 0;
	if (norm[0] == '/')
		snprintf(abs_path, sizeof(abs_path), "%s", norm);
	else
		snprintf(abs_path, sizeof(abs_path), "%s/%s", cwd, norm);
	normalize(abs_path, norm, sizeof(norm));
	snprintf(tmpdir, sizeof(tmpdir), "%s/tmp", cwd);
	normalize(tmpdir, tmpnorm, sizeof(tmpnorm));
	if (!strcmp(norm, "/dev/null"))
		return nprof_err(EINVAL, "output directory '%s' is refused: it is /dev/null", base);
	if (!strcmp(norm, tmpnorm))
		return nprof_err(EINVAL,
				 "output directory '%s' is refused: it is " NPROF_OUTPUT_FAIL_DIR
				 ", reserved for on-fail salvage", base);
	return 0;
}

/* ---- instance id ---------------------------------------------------------- */

/* Reads an EC2 instance id ("i-" and 8..32 lowercase hex digits) from @path. */
static bool read_ec2_id(const char *path, char *id, size_t idlen)
{
	char buf[128];
	ssize_t n;
	size_t i, len;
	int fd;

	if (!path)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	len = (size_t)n;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\r' ||
		       buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	if (len < 2 + 8 || len > 2 + 32 || strncmp(buf, "i-", 2))
		return false;
	for (i = 2; i < len; i++)
		if (!((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f')))
			return false;
	if (len >= idlen)
		return false;
	memcpy(id, buf, len + 1);
	return true;
}

NPROF_API int nprof_output_instance_id(const struct nprof_instance_probe *probe, char *buf,
				       size_t len)
{
	struct nprof_instance_probe p = {
		.size = sizeof(p),
		.board_asset_tag = NPROF_PROBE_BOARD_ASSET_TAG,
		.cloud_instance_id = NPROF_PROBE_CLOUD_INSTANCE_ID,
		.hostname = NULL,
	};
	char id[NPROF_INSTANCE_ID_MAX + 1];
	size_t n, i;

	if (!buf || !len)
		return nprof_err(EINVAL, "instance id buffer is NULL or empty");
	if (probe) {
		if (NPROF_SIZED_VALID(probe, nprof_instance_probe, NPROF_SIZED_IN))
			return -EINVAL;
		p.board_asset_tag = probe->board_asset_tag;
		p.cloud_instance_id = probe->cloud_instance_id;
		p.hostname = probe->hostname;
	}
	if (!read_ec2_id(p.board_asset_tag, id, sizeof(id)) &&
	    !read_ec2_id(p.cloud_instance_id, id, sizeof(id))) {
		if (p.hostname) {
			snprintf(id, sizeof(id), "%s", p.hostname);
		} else if (gethostname(id, sizeof(id))) {
			return nprof_err(errno, "cannot get the host name: %s", strerror(errno));
		}
		id[sizeof(id) - 1] = '\0';
		if (!id[0])
			snprintf(id, sizeof(id), "localhost");
		for (i = 0; id[i]; i++) {
			char c = id[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
				id[i] = '_';
		}
		/* "." and ".." would name a directory, not an instance. */
		if (!strcmp(id, ".") || !strcmp(id, ".."))
			id[0] = '_';
	}
	n = strlen(id);
	if (n >= len)
		return nprof_err(ENAMETOOLONG, "instance id '%s' needs %zu bytes, buffer has %zu",
				 id, n + 1, len);
	memcpy(buf, id, n + 1);
	return (int)n;
}

/* ---- templating -------------------------------------------------------- */

static int check_component(const char *what, const char *s)
{
	if (!s || !*s)
		return nprof_err(EINVAL, "%s is empty", what);
	if (strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
		return nprof_err(EINVAL, "%s '%s' is not a single path component", what, s);
	return 0;
}

NPROF_API int nprof_output_session_dir(const char *base, const char *instance_id, pid_t pid,
				       uint64_t session_init_ns, char *buf, size_t len)
{
	size_t blen;
	int ret, n;

	if (!buf)
		return nprof_err(EINVAL, "session directory buffer is NULL");
	if (!base || !*base)
		base = NPROF_DEFAULT_OUTPUT_DIR;
	ret = nprof_output_check_base(base);
	if (ret)
		return ret;
	ret = check_component("instance id", instance_id);
	if (ret)
		return ret;
	blen = strlen(base);
	/* "out/" and "out" give the same path; "/" stays "/". */
	while (blen > 1 && base[blen - 1] == '/')
		blen--;
	n = snprintf(buf, len, "%.*s%s%s-%ld/%llu", (int)blen, base, base[blen - 1] == '/' ? "" : "/",
		     instance_id, (long)pid, (unsigned long long)session_init_ns);
	if (n < 0 || (size_t)n >= len || n >= PATH_MAX)
		return nprof_err(ENAMETOOLONG, "session directory under '%s' does not fit in %zu bytes",
				 base, len < PATH_MAX ? len : PATH_MAX);
	return n;
}

/* ---- safe mkdir -p ------------------------------------------------------- */

struct walk {
	int dirfd;		/* O_PATH descriptor of the directory reached */
	char shown[PATH_MAX];	/* that directory as text, for messages */
	int links;		/* symbolic links followed */
};

static void shown_append(struct walk *w, const char *comp, size_t len)
{
	size_t n = strlen(w->shown);

	if (n && w->shown[n - 1] != '/' && n + 1 < sizeof(w->shown))
		w->shown[n++] = '/';
	if (n + len < sizeof(w->shown)) {
		memcpy(w->shown + n, comp, len);
		n += len;
	}
	w->shown[n] = '\0';
}

static int walk_reset(struct walk *w, bool absolute)
{
	int fd = open(absolute ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return nprof_err(errno, "cannot open %s: %s", absolute ? "/" : "the current directory",
				 strerror(errno));
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = fd;
	snprintf(w->shown, sizeof(w->shown), "%s", absolute ? "/" : "");
	return 0;
}

/*
 * Walk @path from w->dirfd, creating what is missing. Symbolic links are
 * expanded by splicing their target in front of the rest of the path,
 * so each link is checked before anything behind it is touched.
 */
static int walk_path(struct walk *w, const char *path, mode_t mode)
{
	char *rest, *p;
	int ret = 0;

	rest = malloc(2 * PATH_MAX);
	if (!rest)
		return nprof_err(ENOMEM, "cannot allocate a path buffer");
	snprintf(rest, 2 * PATH_MAX, "%s", path);
	p = rest;

	while (*p) {
		char comp[NAME_MAX + 1], shown_comp[PATH_MAX + NAME_MAX + 2];
		struct stat st;
		size_t len;
		int fd, tries;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (!len)
			break;
		if (len > NAME_MAX) {
			ret = nprof_err(ENAMETOOLONG, "path component '%.*s...' of '%s' is longer than NAME_MAX",
					32, p, path);
			goto out;
		}
		memcpy(comp, p, len);
		comp[len] = '\0';
		p += len;
		if (!strcmp(comp, "."))
			continue;
		snprintf(shown_comp, sizeof(shown_comp), "%s%s%s", w->shown,
			 (*w->shown && w->shown[strlen(w->shown) - 1] != '/') ? "/" : "", comp);

		for (tries = 0;; tries++) {
			if (!fstatat(w->dirfd, comp, &st, AT_SYMLINK_NOFOLLOW))
				break;
			if (errno != ENOENT || tries > 3) {
				ret = nprof_err(errno, "cannot stat %s: %s", shown_comp, strerror(errno));
				goto out;
			}
			if (mkdirat(w->dirfd, comp, mode) && errno != EEXIST) {
				ret = nprof_err(errno, "cannot create directory %s: %s", shown_comp,
						strerror(errno));
				goto out;
			}
		}

		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n;
			size_t tlen, rlen;

			if (st.st_uid != geteuid() && st.st_uid != 0) {
				ret = nprof_err(EPERM,
						"refusing to follow symbolic link %s owned by uid %u (only links owned by uid %u or root are followed)",
						shown_comp, (unsigned int)st.st_uid, (unsigned int)geteuid());
				goto out;
			}
			if (++w->links > MAX_LINKS) {
				ret = nprof_err(ELOOP, "too many symbolic links at %s", shown_comp);
				goto out;
			}
			n = readlinkat(w->dirfd, comp, target, sizeof(target) - 1);
			if (n < 0) {
				ret = nprof_err(errno, "cannot read symbolic link %s: %s", shown_comp,
						strerror(errno));
				goto out;
			}
			target[n] = '\0';
			tlen = (size_t)n;
			rlen = strlen(p);
			if (tlen + 1 + rlen + 1 > 2 * PATH_MAX) {
				ret = nprof_err(ENAMETOOLONG, "path through symbolic link %s is too long",
						shown_comp);
				goto out;
			}
			/* rest := target + "/" + remaining; p may alias rest. */
			memmove(rest + tlen + 1, p, rlen + 1);
			memcpy(rest, target, tlen);
			rest[tlen] = '/';
			p = rest;
			if (target[0] == '/') {
				ret = walk_reset(w, true);
				if (ret)
					goto out;
			}
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			ret = nprof_err(ENOTDIR, "%s exists and is not a directory", shown_comp);
			goto out;
		}
		/* O_NOFOLLOW: if it was swapped for a link since fstatat, fail. */
		fd = openat(w->dirfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			ret = nprof_err(errno, "cannot open directory %s: %s", shown_comp,
					strerror(errno));
			goto out;
		}
		close(w->dirfd);
		w->dirfd = fd;
		shown_append(w, comp, len);
	}
out:
	free(rest);
	return ret;
}

NPROF_API int nprof_output_mkdir_p(const char *path, mode_t mode)
{
	struct walk w = { .dirfd = -1 };
	int ret, fd;

	if (!path || !*path)
		return nprof_err(EINVAL, "directory path is empty");
	if (strlen(path) >= PATH_MAX)
		return nprof_err(ENAMETOOLONG, "directory path of %zu bytes is longer than PATH_MAX",
				 strlen(path));
	ret = walk_reset(&w, path[0] == '/');
	if (!ret)
		ret = walk_path(&w, path, mode);
	if (ret) {
		if (w.dirfd >= 0)
			close(w.dirfd);
		return ret;
	}
	/* An O_PATH descriptor cannot be fsync'ed; the caller needs a real one. */
	fd = openat(w.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(w.dirfd);
	if (fd < 0)
		return nprof_err(errno, "cannot open directory %s: %s", path, strerror(errno));
	return fd;
}

/* ---- file names ----------------------------------------------------------- */

NPROF_API int nprof_output_session_ntff_name(char *buf, size_t len, uint32_t nc,
					     uint64_t session_id)
{
	int n;

	if (!buf)
		return nprof_err(EINVAL, "file name buffer is NULL");
	n = snprintf(buf, len, "profile_nc_%u_session_%llu.ntff", nc,
		     (unsigned long long)session_id);
	if (n < 0 || (size_t)n >= len)
		return nprof_err(ENAMETOOLONG, "session file name does not fit in %zu bytes", len);
	return n;
}

NPROF_API int nprof_output_model_ntff_name(char *buf, size_t len, const char *model_name,
					   uint32_t vnc)
{
	char suffix[32];
	size_t mlen, slen, i;

	if (!buf || !model_name)
		return nprof_err(EINVAL, "file name buffer or model name is NULL");
	if (!*model_name)
		return nprof_err(EINVAL, "model name is empty");
	mlen = strlen(model_name);
	slen = (size_t)snprintf(suffix, sizeof(suffix), "_vnc_%u.ntff", vnc);
	if (mlen + slen > NAME_MAX || mlen + slen >= len)
		return nprof_err(ENAMETOOLONG, "file name of model '%s' does not fit in %zu bytes",
				 model_name, (len <= NAME_MAX ? len : NAME_MAX + 1));
	for (i = 0; i < mlen; i++) {
		char c = model_name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '+' || c == '-'))
			c = '_';
		buf[i] = c;
	}
	/* A leading dot would hide the file and "." / ".." prefixes confuse. */
	if (buf[0] == '.')
		buf[0] = '_';
	memcpy(buf + mlen, suffix, slen + 1);
	return (int)(mlen + slen);
}

NPROF_API int nprof_output_continuous_ntff_name(char *buf, size_t len, uint64_t model_id,
						pid_t pid, uint32_t vnc,
						const char *instance_id, int64_t when)
{
	char stamp[32];
	struct tm tm;
	time_t t = (time_t)when;
	int n, ret;

	if (!buf)
		return nprof_err(EINVAL, "file name buffer is NULL");
	ret = check_component("instance id", instance_id);
	if (ret)
		return ret;
	if (!localtime_r(&t, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm))
		return nprof_err(EINVAL, "time %lld cannot be formatted", (long long)when);
	n = snprintf(buf, len, "model_%llu_pid_%ld_vnc_%u_inst_%s_%s.ntff",
		     (unsigned long long)model_id, (long)pid, vnc, instance_id, stamp);
	if (n < 0 || (size_t)n >= len || n > NAME_MAX)
		return nprof_err(ENAMETOOLONG, "continuous file name does not fit in %zu bytes", len);
	return n;
}

// SPDX-License-Identifier: MIT
/* Host tests of the output-directory policy. */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static char tmproot[128];

/* A fresh private directory per test. */
static const char *fresh_dir(void)
{
	snprintf(tmproot, sizeof(tmproot), "/tmp/nprof-test-output-XXXXXX");
	if (!mkdtemp(tmproot))
		return NULL;
	return tmproot;
}

static int is_dir(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

/* Whether @d/@sub is a directory. */
static int is_dir_in(const char *d, const char *sub)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", d, sub);
	return is_dir(path);
}

/* nprof_output_mkdir_p() of @d/@sub (of @sub when @d is NULL) must succeed. */
static void mkdir_p_ok(const char *d, const char *sub)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s%s%s", d ? d : "", d ? "/" : "", sub);
	fd = nprof_output_mkdir_p(path, 0755);
	if (fd < 0)
		FAIL("nprof_output_mkdir_p(\"%s\") == %d: %s", path, fd, nprof_strerror_last());
	else
		close(fd);
}

TEST(output_check_base)
{
	static const char *const refused_tmp[] = { "./tmp", "tmp", "./tmp/", ".//tmp", "tmp/.", "x/../tmp" };
	static const char *const refused_null[] = { "/dev/null", "//dev//null", "/dev/./null", "/dev/null/" };
	static const char *const accepted[] = { "", "./output", "out", "/tmp", "./tmp2", "tmp/sub", "/var/tmp" };
	char cwd[PATH_MAX], abs_tmp[PATH_MAX + 8], msg[2 * PATH_MAX];
	size_t i;

	CHECK_INT(nprof_output_check_base(NULL), 0);
	for (i = 0; i < sizeof(refused_tmp) / sizeof(refused_tmp[0]); i++) {
		snprintf(msg, sizeof(msg),
			 "output directory '%s' is refused: ./tmp is reserved for on-fail salvage",
			 refused_tmp[i]);
		CHECK_ERR_MSG(nprof_output_check_base(refused_tmp[i]), EINVAL, msg);
	}
	for (i = 0; i < sizeof(refused_null) / sizeof(refused_null[0]); i++) {
		snprintf(msg, sizeof(msg), "output directory '%s' is refused: it is /dev/null",
			 refused_null[i]);
		CHECK_ERR_MSG(nprof_output_check_base(refused_null[i]), EINVAL, msg);
	}
	for (i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++)
		if (nprof_output_check_base(accepted[i]))
			FAIL("'%s' refused: %s", accepted[i], nprof_strerror_last());
	/* The absolute spelling of ./tmp is the same directory. */
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(abs_tmp, sizeof(abs_tmp), "%s/tmp/", cwd);
	snprintf(msg, sizeof(msg),
		 "output directory '%s' is refused: it is ./tmp, reserved for on-fail salvage", abs_tmp);
	CHECK_ERR_MSG(nprof_output_check_base(abs_tmp), EINVAL, msg);
}

TEST(output_relative_dev_null)
{
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)) || chdir("/dev")) {
		FAIL("cannot enter /dev");
		return;
	}
	CHECK_ERR_MSG(nprof_output_check_base("null"), EINVAL,
		      "output directory 'null' is refused: it is /dev/null");
	CHECK_ERR_MSG(nprof_output_check_base("../dev/null"), EINVAL,
		      "output directory '../dev/null' is refused: it is /dev/null");
	CHECK(!chdir(cwd));
}

TEST(output_session_dir_template)
{
	char buf[PATH_MAX];

	CHECK_INT(nprof_output_session_dir("out", "i-0123456789abcdef0", 4242, 1700000000123456789ULL,
					   buf, sizeof(buf)),
		  strlen("out/i-0123456789abcdef0-4242/1700000000123456789"));
	CHECK_STR(buf, "out/i-0123456789abcdef0-4242/1700000000123456789");
	CHECK(nprof_output_session_dir("", "host", 1, 2, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "./output/host-1/2");
	CHECK(nprof_output_session_dir(NULL, "host", 1, 2, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "./output/host-1/2");
	CHECK(nprof_output_session_dir("/data/", "host", 1, 2, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "/data/host-1/2");
	CHECK(nprof_output_session_dir("/", "host", 1, 2, buf, sizeof(buf)) > 0);
	CHECK_STR(buf, "/host-1/2");
	CHECK_ERR_MSG(nprof_output_session_dir("tmp", "host", 1, 2, buf, sizeof(buf)), EINVAL,
		      "output directory 'tmp' is refused: ./tmp is reserved for on-fail salvage");
	CHECK_ERR_MSG(nprof_output_session_dir("out", "a/b", 1, 2, buf, sizeof(buf)), EINVAL,
		      "instance id 'a/b' is not a single path component");
	CHECK_ERR_MSG(nprof_output_session_dir("out", "", 1, 2, buf, sizeof(buf)), EINVAL,
		      "instance id is empty");
	CHECK_ERR_MSG(nprof_output_session_dir("out", "host", 1, 2, buf, 10), ENAMETOOLONG,
		      "session directory under 'out' does not fit in 10 bytes");
}

TEST(output_instance_id)
{
	char tag[PATH_MAX], cloud[PATH_MAX], id[NPROF_INSTANCE_ID_MAX + 1], host[256];
	struct nprof_instance_probe p = { .size = sizeof(p) };
	const char *d = fresh_dir();

	if (!d) {
		FAIL("mkdtemp");
		return;
	}
	snprintf(tag, sizeof(tag), "%s/board_asset_tag", d);
	snprintf(cloud, sizeof(cloud), "%s/instance-id", d);
	p.board_asset_tag = tag;
	p.cloud_instance_id = cloud;
	p.hostname = "build host/7";

	write_text(tag, "i-0123456789abcdef0\n");
	write_text(cloud, "i-00000000\n");
	CHECK_INT(nprof_output_instance_id(&p, id, sizeof(id)), 19);
	CHECK_STR(id, "i-0123456789abcdef0");

	/* A non-EC2 asset tag falls through to cloud-init's id. */
	write_text(tag, "Not Specified\n");
	CHECK_INT(nprof_output_instance_id(&p, id, sizeof(id)), 10);
	CHECK_STR(id, "i-00000000");

	/* Neither: the host name, made safe for a path. */
	write_text(cloud, "i-XYZ\n");
	CHECK_INT(nprof_output_instance_id(&p, id, sizeof(id)), 12);
	CHECK_STR(id, "build_host_7");
	p.hostname = "..";
	CHECK_INT(nprof_output_instance_id(&p, id, sizeof(id)), 2);
	CHECK_STR(id, "_.");

	/* Missing files and no override: gethostname(). */
	unlink(tag);
	unlink(cloud);
	p.hostname = NULL;
	CHECK(nprof_output_instance_id(&p, id, sizeof(id)) > 0);
	CHECK(!gethostname(host, sizeof(host)));
	if (!strchr(host, '/'))
		CHECK_STR(id, host);
	CHECK_INT(nprof_output_instance_id(&p, id, 2), -ENAMETOOLONG);
	p.size = 4;
	CHECK_INT(nprof_output_instance_id(&p, id, sizeof(id)), -EINVAL);
	/* The default probe paths work on this machine, whatever they hold. */
	CHECK(nprof_output_instance_id(NULL, id, sizeof(id)) > 0);
	rm_rf(d);
}

TEST(output_mkdir_p_creates_nested)
{
	char path[PATH_MAX], cwd[PATH_MAX];
	const char *d = fresh_dir();
	struct stat st;
	int fd;

	if (!d) {
		FAIL("mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/a/b/./c//d/", d);
	fd = nprof_output_mkdir_p(path, 0755);
	CHECK(fd >= 0);
	if (fd >= 0) {
		/* The descriptor is the directory itself, usable with *at(). */
		CHECK(!fstat(fd, &st) && S_ISDIR(st.st_mode));
		CHECK(!mkdirat(fd, "inside", 0755));
		close(fd);
	}
	CHECK(is_dir_in(d, "a/b/c/d/inside"));
	/* Again: everything exists. */
	mkdir_p_ok(d, "a/b/c/d");
	/* "..", and a relative path. */
	mkdir_p_ok(d, "a/b/../e");
	CHECK(is_dir_in(d, "a/e"));
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK(!chdir(d));
	mkdir_p_ok(NULL, "rel/x");
	CHECK(is_dir("rel/x"));
	CHECK(!chdir(cwd));

	/* A file in the way. */
	snprintf(path, sizeof(path), "%s/file", d);
	write_text(path, "x");
	snprintf(path, sizeof(path), "%s/file/sub", d);
	fd = nprof_output_mkdir_p(path, 0755);
	CHECK_INT(fd, -ENOTDIR);
	snprintf(path, sizeof(path), "%s/file exists and is not a directory", d);
	CHECK_STR(nprof_strerror_last(), path);
	CHECK_INT(nprof_output_mkdir_p("", 0755), -EINVAL);
	rm_rf(d);
}

TEST(output_mkdir_p_own_symlinks_followed)
{
	char path[PATH_MAX], link[PATH_MAX], target[PATH_MAX];
	const char *d = fresh_dir();

	if (!d) {
		FAIL("mkdtemp");
		return;
	}
	/* Absolute and relative links of our own uid are followed. */
	snprintf(target, sizeof(target), "%s/real", d);
	CHECK(!mkdir(target, 0755));
	snprintf(link, sizeof(link), "%s/abs", d);
	CHECK(!symlink(target, link));
	snprintf(link, sizeof(link), "%s/rel", d);
	CHECK(!symlink("real", link));
	mkdir_p_ok(d, "abs/x/y");
	mkdir_p_ok(d, "rel/z");
	CHECK(is_dir_in(d, "real/x/y"));
	CHECK(is_dir_in(d, "real/z"));

	/* A loop of links ends with ELOOP instead of spinning. */
	snprintf(link, sizeof(link), "%s/loop1", d);
	CHECK(!symlink("loop2", link));
	snprintf(link, sizeof(link), "%s/loop2", d);
	CHECK(!symlink("loop1", link));
	snprintf(path, sizeof(path), "%s/loop1/x", d);
	CHECK_INT(nprof_output_mkdir_p(path, 0755), -ELOOP);
	CHECK_CONTAINS(nprof_strerror_last(), "too many symbolic links at");
	rm_rf(d);
}

#define OTHER_UID 4242

TEST(output_mkdir_p_foreign_symlink_refused)
{
	char path[PATH_MAX], link[PATH_MAX], target[PATH_MAX], msg[2 * PATH_MAX];
	const char *d;

	if (geteuid() != 0)
		SKIP("needs root to chown a symbolic link to another uid");
	d = fresh_dir();
	if (!d) {
		FAIL("mkdtemp");
		return;
	}
	CHECK(!chmod(d, 01777));	/* a shared sticky directory, like /tmp */
	snprintf(target, sizeof(target), "%s/victim", d);
	CHECK(!mkdir(target, 0755));
	snprintf(link, sizeof(link), "%s/planted", d);
	CHECK(!symlink(target, link));
	CHECK(!lchown(link, OTHER_UID, OTHER_UID));

	snprintf(path, sizeof(path), "%s/planted/out", d);
	snprintf(msg, sizeof(msg),
		 "refusing to follow symbolic link %s owned by uid %d (only links owned by uid 0 or root are followed)",
		 link, OTHER_UID);
	CHECK_ERR_MSG(nprof_output_mkdir_p(path, 0755), EPERM, msg);
	/* Nothing was created behind the link. */
	snprintf(path, sizeof(path), "%s/victim/out", d);
	CHECK(!is_dir(path));

	/* Our own link leading to a path through the foreign link: refused too. */
	snprintf(link, sizeof(link), "%s/mine", d);
	CHECK(!symlink("planted/deeper", link));
	snprintf(path, sizeof(path), "%s/mine/out", d);
	CHECK_INT(nprof_output_mkdir_p(path, 0755), -EPERM);
	CHECK_CONTAINS(nprof_strerror_last(), "/planted owned by uid 4242");
	snprintf(path, sizeof(path), "%s/victim/deeper", d);
	CHECK(!is_dir(path));

	/* The foreign link as the last component is refused as well. */
	snprintf(path, sizeof(path), "%s/planted", d);
	CHECK_INT(nprof_output_mkdir_p(path, 0755), -EPERM);
	rm_rf(d);
}

TEST(output_file_names)
{
	char buf[NAME_MAX + 1];
	char longname[300];

	CHECK_INT(nprof_output_session_ntff_name(buf, sizeof(buf), 3, 12), 28);
	CHECK_STR(buf, "profile_nc_3_session_12.ntff");
	CHECK(nprof_output_model_ntff_name(buf, sizeof(buf), "resnet50", 1) > 0);
	CHECK_STR(buf, "resnet50_vnc_1.ntff");
	CHECK(nprof_output_model_ntff_name(buf, sizeof(buf), "../evil/x y", 0) > 0);
	CHECK_STR(buf, "_._evil_x_y_vnc_0.ntff");
	CHECK_ERR_MSG(nprof_output_model_ntff_name(buf, sizeof(buf), "", 0), EINVAL, "model name is empty");
	memset(longname, 'm', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK_INT(nprof_output_model_ntff_name(buf, sizeof(buf), longname, 0), -ENAMETOOLONG);

	setenv("TZ", "UTC", 1);
	tzset();
	CHECK(nprof_output_continuous_ntff_name(buf, sizeof(buf), 5, 77, 2, "i-0123456789abcdef0",
						1700000000) > 0);
	CHECK_STR(buf, "model_5_pid_77_vnc_2_inst_i-0123456789abcdef0_20231114_221320.ntff");
	CHECK_INT(nprof_output_continuous_ntff_name(buf, sizeof(buf), 5, 77, 2, "..", 0), -EINVAL);
	CHECK_INT(nprof_output_session_ntff_name(buf, 8, 3, 12), -ENAMETOOLONG);
}

HARNESS_MAIN

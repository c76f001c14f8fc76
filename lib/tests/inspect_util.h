/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the session-layer host tests (test_inspect*.c): fake devices
 * (fake_device.h) that run synthetic programs, so MODEL, SESSION and
 * continuous captures work end to end without a kernel; scratch
 * directories; and questions about the files a session left.
 */
#ifndef NPROF_INSPECT_UTIL_H
#define NPROF_INSPECT_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <neuronprof/inspect.h>
#include <neuronprof/profile.h>
#include <neuronprof/runtime.h>
#include <neuronprof/sys_trace.h>

#include "harness.h"

#include "fake_device.h"
#include "capture/engines.h"
#include "session/session_internal.h"

struct fakex {
	struct fake_dev *fd[2];
	struct nprof_device *dev[2];
	int ndev;
};

/* @ndev fake trn2 devices (8 cores each) installed as the registry's devices. */
static inline int fakex_setup(struct fakex *x, int ndev)
{
	struct nprof_device_info info = fake_trn2_info();
	int i;

	memset(x, 0, sizeof(*x));
	info.caps |= NPROF_DEVICE_CAP_SIM_EXEC;
	for (i = 0; i < ndev; i++) {
		info.device_index = (uint32_t)i;
		x->fd[i] = fake_dev_new();
		if (!x->fd[i])
			return -1;
		x->dev[i] = nprof_device_create(&info, &fake_ops, x->fd[i]);
		if (!x->dev[i])
			return -1;
		x->ndev++;
	}
	return nprof_rt_set_test_devices(x->dev, (size_t)ndev);
}

/* The @at-th subscription (from 1) on fake device @i of @x fails with @err. */
static inline void fakex_fail_subscribe(struct fakex *x, int i, int at, int err)
{
	x->fd[i]->subscribe_fail_at = at;
	x->fd[i]->subscribe_err = err;
}

static inline int fakex_subscribed(const struct fakex *x)
{
	int i, n = 0;

	for (i = 0; i < x->ndev; i++)
		n += fake_subscribed(x->fd[i]);
	return n;
}

static inline void fakex_teardown(struct fakex *x)
{
	int i;

	nprof_rt_set_test_devices(NULL, 0);
	for (i = 0; i < x->ndev; i++) {
		nprof_device_close(x->dev[i]);
		fake_dev_free(x->fd[i]);
	}
	memset(x, 0, sizeof(*x));
}

/* A program of @iterations on any core (the model's core replaces it). */
static inline struct nprof_sim_program fakex_prog(uint32_t iterations, bool fail)
{
	struct nprof_sim_program p;

	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.iterations = iterations;
	p.instructions[0] = 1;
	p.flags = fail ? NPROF_SIM_EXEC_ERROR : 0;
	return p;
}

/* ---- scratch directories ------------------------------------------------------ */


/* A fresh scratch directory made the current one; the old one is saved. */
struct scratch {
	char dir[PATH_MAX];
	int oldcwd;
};

static inline int scratch_enter(struct scratch *s)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(s->dir, sizeof(s->dir), "%s/nprof-inspect-test.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir))
		return -1;
	s->oldcwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->oldcwd < 0 || chdir(s->dir))
		return -1;
	return 0;
}

static inline void scratch_leave(struct scratch *s)
{
	if (s->oldcwd >= 0) {
		if (fchdir(s->oldcwd))
			perror("fchdir");
		close(s->oldcwd);
	}
	rm_rf(s->dir);
}

static inline bool file_exists(const char *dir, const char *name)
{
	char path[2 * PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	return !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

static inline bool path_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* Entries of @dir whose name starts with '.' (temporary files); -1 on error. */
static inline int dir_hidden(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/*
 * Entries of @dir whose name starts with @prefix (NULL: every entry but "."
 * and ".."); the first one's name into @out unless it is NULL. -1 if @dir
 * cannot be read.
 */
static inline int dir_scan(const char *dir, const char *prefix, char *out, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (prefix ? strncmp(de->d_name, prefix, strlen(prefix)) :
			     !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!n++ && out)
			snprintf(out, len, "%s", de->d_name);
	}
	closedir(d);
	return n;
}

/* First entry of @dir whose name starts with @prefix, into @out. */
static inline bool dir_find(const char *dir, const char *prefix, char *out, size_t len)
{
	return dir_scan(dir, prefix, out, len) > 0;
}

/* First entry of @dir other than "." and "..", into @out. */
static inline bool dir_first(const char *dir, char *out, size_t len)
{
	return dir_scan(dir, NULL, out, len) > 0;
}

/*
 * Open @dir/@name verifying it, and read its description into @info: the
 * reader, or NULL (said on a "#" line) if the file does not open or has no
 * description.
 */
static inline struct nprof_ntff_reader *ntff_open_in(const char *dir, const char *name,
						     struct nprof_ntff_info *info)
{
	struct nprof_ntff_reader *r;
	char path[2 * PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return NULL;
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!r) {
		printf("#   %s: %s\n", path, nprof_strerror_last());
		return NULL;
	}
	info->size = sizeof(*info);
	if (nprof_ntff_reader_info(r, info)) {
		nprof_ntff_reader_close(r);
		return NULL;
	}
	return r;
}

/*
 * Open and validate an NTFF file; fills @info and returns the total entry
 * count over its queues, or -1 if it does not validate.
 */
static inline long ntff_check(const char *dir, const char *name, struct nprof_ntff_info *info)
{
	struct nprof_ntff_reader *r = ntff_open_in(dir, name, info);
	long total = 0;
	int n, i;

	if (!r)
		return -1;
	n = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < n; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };

		if (nprof_ntff_reader_queue(r, (size_t)i, &q)) {
			nprof_ntff_reader_close(r);
			return -1;
		}
		total += (long)q.entry_count;
	}
	/* The strings point into the reader: tests only compare them right away. */
	info->model_name = NULL;
	info->instance_id = NULL;
	info->hostname = NULL;
	info->device.provider = NULL;
	nprof_ntff_reader_close(r);
	return total;
}

/* @dir/@name validates and holds @entries entries, of executions @first to @last (0-0: none said). */
static inline void check_execs(const char *dir, const char *name, long entries, uint64_t first,
			       uint64_t last)
{
	struct nprof_ntff_info info;

	CHECK_INT(ntff_check(dir, name, &info), entries);
	CHECK_INT(info.exec_first, first);
	CHECK_INT(info.exec_last, last);
}

/* The model name stored in an NTFF file, into @out. */
static inline int ntff_model_name(const char *dir, const char *name, char *out, size_t len)
{
	struct nprof_ntff_info info;
	struct nprof_ntff_reader *r = ntff_open_in(dir, name, &info);

	if (!r)
		return -1;
	if (!info.model_name) {
		nprof_ntff_reader_close(r);
		return -1;
	}
	snprintf(out, len, "%s", info.model_name);
	nprof_ntff_reader_close(r);
	return 0;
}

/*
 * A control page (record --control's, as record makes it): a memfd the
 * library finds through NPROF_CONTROL_FD_ENV, mapped here with @enabled
 * set; *@fdp is its descriptor. NULL (the failure checked) if it cannot be
 * made.
 */
static inline struct nprof_control_page *control_page_new(int enabled, int *fdp)
{
	struct nprof_control_page *page;
	char fdstr[16];
	int fd;

	fd = memfd_create("nprof-control", 0);
	CHECK(fd >= 0);
	if (fd < 0)
		return NULL;
	CHECK_INT(ftruncate(fd, sizeof(*page)), 0);
	page = mmap(NULL, sizeof(*page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(page != MAP_FAILED);
	if (page == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	page->magic = NPROF_CONTROL_MAGIC;
	__atomic_store_n(&page->enabled, enabled, __ATOMIC_RELEASE);
	snprintf(fdstr, sizeof(fdstr), "%d", fd);
	/* The library maps the page at its first look, the next session's begin. */
	setenv(NPROF_CONTROL_FD_ENV, fdstr, 1);
	*fdp = fd;
	return page;
}

/* Undo control_page_new(): the variable unset, the page unmapped, @fd closed. */
static inline void control_page_free(struct nprof_control_page *page, int fd)
{
	unsetenv(NPROF_CONTROL_FD_ENV);
	munmap(page, sizeof(*page));
	close(fd);
}

/* A configuration writing into @base with @activities; inspect enabled. */
static inline struct nprof_inspect_config *cfg_new(const char *base, unsigned int activities,
						   enum nprof_device_profile_mode mode)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	uint32_t t;

	if (!cfg)
		return NULL;
	if (nprof_inspect_config_set_output_dir(cfg, base) ||
	    nprof_inspect_config_set_activity_mask(cfg, activities) ||
	    nprof_inspect_config_set_device_profile_mode(cfg, mode) ||
	    nprof_inspect_config_set_enable_inspect(cfg, true) ||
	    nprof_inspect_config_set_sys_trace_max_events_per_nc(cfg, 1024)) {
		nprof_inspect_config_free(cfg);
		return NULL;
	}
	/* Small rings: the fake device allocates them for real. */
	for (t = 0; t < NPROF_QUEUE_TYPES; t++)
		nprof_inspect_config_set_ring_size(cfg, t, 1ULL << 20);
	return cfg;
}

/* Capture on cores @first to @last of @cfg only. */
static inline void cfg_cores(struct nprof_inspect_config *cfg, uint32_t first, uint32_t last)
{
	uint32_t nc;

	for (nc = 0; nc < NPROF_MAX_CORES; nc++)
		nprof_inspect_config_set_capture_enabled_for_nc(cfg, nc, nc >= first && nc <= last);
}

/*
 * One execution of @m running @iterations, failing if @fail: 0, or the
 * execution's error, or -1000 if its status is not the one expected.
 */
static inline int fakex_run(struct nprof_model *m, uint32_t iterations, bool fail)
{
	struct nprof_sim_program p = fakex_prog(iterations, fail);
	struct nprof_sim_result res = { .size = sizeof(res) };
	int ret = nprof_model_sim_execute(m, &p, &res);

	if (!ret && res.status != (fail ? 1004u : 0u))
		return -1000;
	return ret;
}

/* ---- range settings of the configuration ------------------------------------- */

/*
 * One step of a test of a range setting (executions, iterations): parse
 * @value as the setting's variable into the configuration, or with @value
 * NULL set @first-@last; the step must return @ret, and when it succeeds
 * the getter must read @first-@last back.
 */
struct range_step {
	const char *value;
	uint64_t first, last;
	int ret;
};

typedef int (*cfg_range_set_fn)(struct nprof_inspect_config *cfg, uint64_t first, uint64_t last);
typedef int (*cfg_range_get_fn)(const struct nprof_inspect_config *cfg, uint64_t *first,
				uint64_t *last);

/* Run @st of a test of the setting of variable @var (set, get: check_range_setting()). */
static inline void range_step_run(struct nprof_inspect_config *cfg, const char *var,
				  cfg_range_set_fn set, cfg_range_get_fn get, size_t i,
				  const struct range_step *st)
{
	char env0[128];
	char *env[2] = { env0, NULL };
	uint64_t a = 7, b = 7;
	int ret;

	snprintf(env0, sizeof(env0), "%s=%s", var, st->value ? st->value : "");
	ret = st->value ? nprof_inspect_config_parse_envp(cfg, env) : set(cfg, st->first, st->last);
	if (ret != st->ret)
		FAIL("step %zu (%s %llu-%llu) returned %d, expected %d", i,
		     st->value ? env0 : "set", (unsigned long long)st->first,
		     (unsigned long long)st->last, ret, st->ret);
	if (ret || st->ret)
		return;
	CHECK_INT(get(cfg, &a, &b), 0);
	if (a != st->first || b != st->last)
		FAIL("step %zu (%s): read back %llu-%llu, expected %llu-%llu", i,
		     st->value ? env0 : "set", (unsigned long long)a, (unsigned long long)b,
		     (unsigned long long)st->first, (unsigned long long)st->last);
}

/*
 * The test of the range setting of variable @var: a new configuration has
 * none (0-0); the rules every capture range follows (counted from 1, not
 * empty, 0-0 for none; "A-B" or "A") and then the @n @steps of this one
 * run in order through @set and @get; neither takes a NULL configuration
 * or pointer, and the @other range setting stays 0-0 throughout.
 */
static inline void check_range_setting(const char *var, cfg_range_set_fn set, cfg_range_get_fn get,
				       cfg_range_get_fn other, const struct range_step *steps,
				       size_t n)
{
	static const struct range_step rules[] = {
		{ NULL, 2, 4, 0 },
		{ NULL, 0, 3, -EINVAL },
		{ NULL, 5, 4, -EINVAL },
		{ NULL, 0, 0, 0 },
		{ "3-9", 3, 9, 0 },
		{ "5", 5, 5, 0 },
		{ "9-3", 0, 0, -EINVAL },
		{ "0-3", 0, 0, -EINVAL },
		{ "3-", 0, 0, -EINVAL },
	};
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	uint64_t a = 7, b = 7;
	size_t i;

	CHECK(cfg != NULL);
	if (!cfg)
		return;
	CHECK_INT(get(cfg, &a, &b), 0);
	CHECK_INT(a, 0);
	CHECK_INT(b, 0);
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		range_step_run(cfg, var, set, get, i, &rules[i]);
	for (i = 0; i < n; i++)
		range_step_run(cfg, var, set, get, sizeof(rules) / sizeof(rules[0]) + i, &steps[i]);
	CHECK_INT(set(NULL, 1, 1), -EINVAL);
	CHECK_INT(get(cfg, NULL, &b), -EINVAL);
	CHECK_INT(get(cfg, &a, NULL), -EINVAL);
	a = b = 7;
	CHECK_INT(other(cfg, &a, &b), 0);
	CHECK_INT(a, 0);
	CHECK_INT(b, 0);
	nprof_inspect_config_free(cfg);
}

/* ---- one session on fake devices ------------------------------------------------ */

/*
 * The frame most session tests share: a scratch directory made the current
 * one, @ndev fake trn2 devices, and a configuration (cfg_new()) of
 * @activities and @mode writing into out/. fxs_open() makes them, the test
 * adjusts f->cfg, fxs_begin() begins the session and puts its directory
 * into f->dir (fxs_open_controlled() does all three with a control page);
 * fxs_close() closes the session (again, if the test did) and undoes the
 * rest.
 */
struct fx_session {
	struct scratch s;
	struct fakex x;
	struct nprof_inspect_config *cfg;
	char dir[PATH_MAX];
	struct nprof_control_page *page;
	int page_fd;
};

static inline void fxs_open(struct fx_session *f, int ndev, unsigned int activities,
			    enum nprof_device_profile_mode mode)
{
	memset(f->dir, 0, sizeof(f->dir));
	f->page = NULL;
	f->page_fd = -1;
	CHECK(!scratch_enter(&f->s));
	CHECK_INT(fakex_setup(&f->x, ndev), 0);
	f->cfg = cfg_new("out", activities, mode);
	CHECK(f->cfg != NULL);
}



static inline void fxs_begin(struct fx_session *f)
{
	CHECK_INT(nprof_inspect_begin_with_options(f->cfg), 0);
	CHECK(nprof_inspect_session_dir(f->dir, sizeof(f->dir)) > 0);
}

/*
 * Load model @name (@id) on @core, run it @executions times, execution e
 * of @iterations iterations (of e when @iterations is 0), after
 * @before(@f, e) if given; then stop the session. The model, or NULL (the
 * case failed) if it did not load.
 */
static inline struct nprof_model *fxs_run_model(struct fx_session *f, const char *name,
						uint32_t id, uint32_t core, uint32_t executions,
						uint32_t iterations,
						void (*before)(struct fx_session *f, uint32_t e))
{
	struct nprof_model *m = nprof_model_load(name, id, core);
	uint32_t e;

	CHECK(m != NULL);
	for (e = 1; m && e <= executions; e++) {
		if (before)
			before(f, e);
		CHECK_INT(fakex_run(m, iterations ? iterations : e, false), 0);
	}
	CHECK_INT(nprof_inspect_stop(), 0);
	return m;
}

static inline void fxs_close(struct fx_session *f)
{
	nprof_inspect_close();
	nprof_inspect_config_free(f->cfg);
	fakex_teardown(&f->x);
	scratch_leave(&f->s);
	if (f->page)
		control_page_free(f->page, f->page_fd);
}

/*
 * The frame of one fake device and device profiles in @mode, with a
 * control page of capture @enabled that the session maps at its begin,
 * the session begun; false (the case failed, the frame closed) if there is
 * no page.
 */
static inline bool fxs_open_controlled(struct fx_session *f, enum nprof_device_profile_mode mode,
				       int enabled)
{
	fxs_open(f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, mode);
	f->page = control_page_new(enabled, &f->page_fd);
	if (!f->page) {
		fxs_close(f);
		return false;
	}
	fxs_begin(f);
	return true;
}

/* The session directory out/<instance>-<pid>/<ns> that child @pid made. */
static inline bool child_session_dir(pid_t pid, char *out, size_t len)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1], parent[PATH_MAX], leaf[NAME_MAX + 1];

	if (nprof_output_instance_id(NULL, inst, sizeof(inst)) < 0)
		return false;
	snprintf(parent, sizeof(parent), "out/%s-%ld", inst, (long)pid);
	if (!dir_first(parent, leaf, sizeof(leaf)))
		return false;
	return snprintf(out, len, "%s/%s", parent, leaf) < (int)len;
}

#endif /* NPROF_INSPECT_UTIL_H */

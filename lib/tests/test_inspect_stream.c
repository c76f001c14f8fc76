// SPDX-License-Identifier: MIT
/*
 * Host tests of streaming in the capture modes built on the engine: a MODEL
 * capture and a continuous profile of one execution twenty rings long on
 * every queue of its core lose nothing and keep every entry in order, while
 * the same executions with streaming switched off (the configuration's
 * switch, NEURON_RT_INSPECT_STREAMING=0, or zero-copy engine options) lose
 * exactly what one ring cannot hold.
 *
 * A crash in the middle of a streaming SESSION capture: abort() leaves
 * complete files holding every entry, spooled or still in the rings, and
 * SIGKILL (no flush possible) leaves no file at all, not even a temporary.
 *
 * The fake device's rings are clamped to one page (64 entries); its
 * SIM_EXEC paces itself to a streaming consumer (fake_dev.pace), so nothing
 * here depends on timing.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "capture/capture_internal.h"
#include "harness.h"
#include "ntff_check.h"
#include "inspect_util.h"

#define RING		4096u
#define RING_ENTRIES	64u
#define TOTAL		(20u * RING_ENTRIES)	/* per queue and execution */

/* fakex_setup() with one-page rings, paced when @pace. */
static int setup(struct fakex *x, bool pace)
{
	if (fakex_setup(x, 1))
		return -1;
	x->dev[0]->info.max_ring_size = RING;
	x->fd[0]->pace = pace;
	return 0;
}

/* The queues of profile @name in @dir: @entries each from seq 0, @lost lost; their number. */
static int check_file(const char *dir, const char *name, uint64_t entries, uint64_t lost)
{
	char path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return ntff_check_queues(path, entries, 0, lost);
}

static void model_capture(bool streaming)
{
	struct nprof_inspect_config *cfg;
	struct nprof_model *m;
	char dir[PATH_MAX];
	struct scratch s;
	struct fakex x;

	CHECK(!scratch_enter(&s));
	CHECK_INT(setup(&x, streaming), 0);
	cfg = cfg_new("out", NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_MODEL);
	CHECK(cfg != NULL);
	CHECK_INT(nprof_inspect_config_set_streaming(cfg, streaming), 0);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK(nprof_inspect_session_dir(dir, sizeof(dir)) > 0);
	m = nprof_model_load("long", 7, 2);
	CHECK(m != NULL);
	CHECK_INT(fakex_run(m, TOTAL, false), 0);
	if (streaming)
		CHECK_INT(check_file(dir, "long_vnc_0.ntff", TOTAL, 0), 24);
	else
		CHECK_INT(check_file(dir, "long_vnc_0.ntff", RING_ENTRIES, TOTAL - RING_ENTRIES), 24);
	CHECK_INT(nprof_inspect_stop(), 0);
	/* The spools lived in the session directory, unnamed: only the profile is there. */
	CHECK_INT(dir_entries(dir), 1);
	CHECK_INT(dir_hidden(dir), 0);
	CHECK_INT(nprof_model_unload(m), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	nprof_inspect_config_free(cfg);
	fakex_teardown(&x);
	scratch_leave(&s);
}

TEST(model_capture_twenty_rings_long_loses_nothing)
{
	model_capture(true);
}

TEST(model_capture_without_streaming_loses_what_one_ring_cannot_hold)
{
	model_capture(false);
}

/* The environment's switch reaches the engine. */
TEST(environment_switches_streaming_off)
{
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	struct nprof_capture_opts opts = { .size = sizeof(opts) };

	CHECK(cfg != NULL);
	CHECK_INT(setenv("NEURON_RT_INSPECT_STREAMING", "0", 1), 0);
	CHECK_INT(nprof_inspect_config_parse_env(cfg, NULL, NULL), 0);
	CHECK_INT(nprof_inspect_config_get_streaming(cfg), 0);
	CHECK_INT(nprof_capture_opts_from_config(&opts, cfg), 0);
	CHECK_INT(opts.flags, NPROF_CAPTURE_ZERO_COPY);
	CHECK_INT(setenv("NEURON_RT_INSPECT_STREAMING", "yes please", 1), 0);
	CHECK_INT(nprof_inspect_config_parse_env(cfg, NULL, NULL), -EINVAL);
	unsetenv("NEURON_RT_INSPECT_STREAMING");
	nprof_inspect_config_free(cfg);
}

static void continuous(bool streaming)
{
	struct nprof_profile_continuous_options *o;
	char name[NAME_MAX + 1];
	struct nprof_model *m;
	struct scratch s;
	struct fakex x;

	CHECK(!scratch_enter(&s));
	CHECK_INT(setup(&x, streaming), 0);
	/* Outside an inspect session the environment switches streaming off. */
	if (!streaming)
		CHECK_INT(setenv("NEURON_RT_INSPECT_STREAMING", "0", 1), 0);
	o = nprof_profile_continuous_options_allocate();
	CHECK_INT(nprof_profile_continuous_options_set_output_dir(o, "cont"), 0);
	CHECK_INT(nprof_profile_continuous_start(o), 0);
	m = nprof_model_load("long", 9, 1);
	CHECK(m != NULL);
	CHECK_INT(fakex_run(m, TOTAL / 2, false), 0);
	CHECK_INT(fakex_run(m, TOTAL, false), 0);	/* the last execution is the one saved */
	CHECK_INT(nprof_profile_continuous_save(1, o), 0);
	CHECK(dir_find("cont", "model_", name, sizeof(name)));
	if (streaming)
		CHECK_INT(check_file("cont", name, TOTAL, 0), 24);
	else
		CHECK_INT(check_file("cont", name, RING_ENTRIES, TOTAL - RING_ENTRIES), 24);
	CHECK_INT(nprof_profile_continuous_stop(), 0);
	unsetenv("NEURON_RT_INSPECT_STREAMING");
	nprof_model_unload(m);
	nprof_profile_continuous_options_free(o);
	fakex_teardown(&x);
	scratch_leave(&s);
}

TEST(continuous_profile_twenty_rings_long_loses_nothing)
{
	continuous(true);
}

TEST(continuous_profile_without_streaming_loses_what_one_ring_cannot_hold)
{
	continuous(false);
}

/* ---- crashes ------------------------------------------------------------------ */

/*
 * The child: a streaming SESSION capture on core 0 twenty rings long (the
 * producer waiting for the drainer), then @extra entries per queue left in
 * the rings, then the signal @sig.
 */
static void crash_child(int sig, uint64_t extra)
{
	struct nprof_inspect_config *cfg;
	struct fakex x;
	int round, i;

	if (setup(&x, false))
		_exit(97);
	cfg = cfg_new("out", NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_SESSION);
	for (i = 1; i < NPROF_MAX_CORES; i++)
		nprof_inspect_config_set_capture_enabled_for_nc(cfg, (uint32_t)i, false);
	if (!cfg || nprof_inspect_begin_with_options(cfg))
		_exit(98);
	for (round = 0; round < 80; round++) {
		for (i = 0; i < FAKE_MAX_QUEUES; i++) {
			struct fake_queue *q = &x.fd[0]->q[i];

			if (!q->used)
				continue;
			fake_produce(x.fd[0], q, 16, 5);
			while (__atomic_load_n(&q->cons->consumer_pos, __ATOMIC_ACQUIRE) != q->prod)
				sched_yield();
		}
	}
	for (i = 0; i < FAKE_MAX_QUEUES; i++)
		if (x.fd[0]->q[i].used)
			fake_produce(x.fd[0], &x.fd[0]->q[i], extra, 5);
	raise(sig);
	_exit(96);
}

/*
 * Fork crash_child(@sig) in a scratch directory: it must die of @sig, and
 * its session directory (begin made it) hold the session's profile when
 * @saved, else nothing, not even a spool.
 */
static void crash_case(int sig, bool saved)
{
	char dir[PATH_MAX];
	struct scratch s;
	int status = 0;
	pid_t pid;

	CHECK(!scratch_enter(&s));
	pid = fork();
	if (pid == 0)
		crash_child(sig, 10);
	if (pid > 0)
		waitpid(pid, &status, 0);
	CHECK(pid > 0 && WIFSIGNALED(status) && WTERMSIG(status) == sig);
	CHECK(child_session_dir(pid, dir, sizeof(dir)));
	/* Twenty rings spooled and ten entries still in each ring: all there, in order. */
	if (saved)
		CHECK_INT(check_file(dir, "profile_nc_0_session_0.ntff", TOTAL + 10, 0), 24);
	CHECK_INT(dir_entries(dir), saved ? 1 : 0);
	CHECK_INT(dir_hidden(dir), 0);
	scratch_leave(&s);
}

TEST(abort_during_streaming_capture_leaves_complete_files)
{
	crash_case(SIGABRT, true);
}

TEST(sigkill_during_streaming_capture_leaves_no_file)
{
	crash_case(SIGKILL, false);
}

HARNESS_MAIN

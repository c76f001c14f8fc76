// SPDX-License-Identifier: MIT
/*
 * Host tests of per-execution capture on fake devices: the MODEL record map
 * (double stop), MODEL capture of the first execution per model per core,
 * on-fail capture with its discard and salvage into ./tmp and the cleanup
 * at close, a stop during an execution, the runtime hooks' misuse errors,
 * the direct nprof_profile_start/stop API and continuous profiling; and the
 * system-trace events of those captures (once each, with the model id).
 */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>

#include "harness.h"
#include "inspect_util.h"
#include "model/registry.h"
#include "ntrace_util.h"
#include "trace_util.h"

/* ---- the record map ------------------------------------------------------------ */

TEST(record_map_double_stop)
{
	struct nprof_record r, out;
	size_t done;

	nprof_records_clear();
	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "m_vnc_0.ntff");
	CHECK_INT(nprof_records_insert(&r), 0);
	CHECK_INT(nprof_records_insert(&r), -EEXIST);
	CHECK_INT(nprof_records_count(&done), 1);
	CHECK_INT(done, 0);
	CHECK_INT(nprof_records_complete("m_vnc_0.ntff", &out), 0);
	CHECK(out.complete && !out.abandoned);
	CHECK_ERR_MSG(nprof_records_complete("m_vnc_0.ntff", &out), EALREADY,
		      "Trying to stop already completed profile m_vnc_0.ntff");
	CHECK_STR(out.name, "m_vnc_0.ntff");
	CHECK_ERR_MSG(nprof_records_complete("other_vnc_1.ntff", &out), EALREADY,
		      "Trying to stop already completed profile other_vnc_1.ntff");
	CHECK_STR(out.name, "");
	/* A complete record keeps its model from being captured again. */
	CHECK_INT(nprof_records_insert(&r), -EEXIST);
	CHECK_INT(nprof_records_erase("m_vnc_0.ntff"), 0);
	CHECK_INT(nprof_records_erase("m_vnc_0.ntff"), -ENOENT);
	CHECK_INT(nprof_records_insert(&r), 0);

	/* Abandon completes armed incomplete records and reports them. */
	snprintf(r.name, sizeof(r.name), "n_vnc_1.ntff");
	r.armed = true;
	CHECK_INT(nprof_records_insert(&r), 0);
	CHECK_INT(nprof_records_complete("n_vnc_1.ntff", NULL), 0);
	snprintf(r.name, sizeof(r.name), "p_vnc_2.ntff");
	CHECK_INT(nprof_records_insert(&r), 0);
	CHECK_INT(nprof_records_abandon(&out, 1), 2);
	CHECK_INT(nprof_records_complete("p_vnc_2.ntff", &out), -EALREADY);
	CHECK(out.abandoned);
	CHECK_INT(nprof_records_count(&done), 3);
	CHECK_INT(done, 3);
	nprof_records_clear();
	CHECK_INT(nprof_records_count(NULL), 0);
}

/* ---- MODEL capture ------------------------------------------------------------------ */

/* Entries per queue of a capture of @it iterations on a fake trn2 core: 24 queues. */
#define ENTRIES(it)	(24L * (it))

/*
 * The trace of the test below: three captures (a2: core 2 model 11, b2:
 * core 2 model 12, a3: core 3 model 11), each with one profile_start, _stop
 * and _serialize carrying the model id and its 24 queues' nq_subscribe and
 * nq_drain; 3 model_load, 6 nrt_execute and sim_exec, 1 exec_error,
 * inspect_begin and _stop (the unloads come after the stop).
 */
static void check_model_trace(const char *dir)
{
	static const char *const profile[] = { "profile_start", "profile_stop", "profile_serialize" };
	Neuronprof__System__Ntrace *nt = ntrace_load(dir);
	int i;

	CHECK(nt != NULL);
	if (!nt)
		return;
	CHECK_INT(nt->n_events, 2 + 3 + 2 * 6 + 1 + 3 * (3 + 2 * 24));
	for (i = 0; i < 3; i++) {
		CHECK_INT(ntrace_count(nt, profile[i], NTRACE_ANY_CORE, NULL, 0), 3);
		CHECK_INT(ntrace_count_model(nt, profile[i], 2, 11), 1);
		CHECK_INT(ntrace_count_model(nt, profile[i], 2, 12), 1);
		CHECK_INT(ntrace_count_model(nt, profile[i], 3, 11), 1);
	}
	CHECK_INT(ntrace_count(nt, "nq_subscribe", 2, NULL, 0), 2 * 24);
	CHECK_INT(ntrace_count(nt, "nq_subscribe", 3, NULL, 0), 24);
	CHECK_INT(ntrace_count(nt, "nq_drain", 2, NULL, 0), 2 * 24);
	CHECK_INT(ntrace_count(nt, "nq_drain", 3, NULL, 0), 24);
	CHECK_INT(ntrace_count(nt, "nrt_execute", NTRACE_ANY_CORE, NULL, 0), 6);
	CHECK_INT(ntrace_count(nt, "exec_error", 2, NULL, 0), 1);
	ntrace_free(nt);
}

TEST(model_mode_captures_first_execution_per_model_per_core)
{
	struct fx_session f;
	struct nprof_model *a2, *b2, *a3;
	struct nprof_ntff_info info;
	char name[256];
	size_t done;

	fxs_open(&f, 1, NPROF_ACTIVITY_ALL, NPROF_DEVICE_PROFILE_MODEL);
	fxs_begin(&f);
	/* MODEL mode arms nothing at begin. */
	CHECK_INT(fakex_subscribed(&f.x), 0);
	a2 = nprof_model_load("resnet/a", 11, 2);
	b2 = nprof_model_load("bert", 12, 2);
	a3 = nprof_model_load("resnet/a", 11, 3);
	CHECK(a2 && b2 && a3);
	CHECK_INT(fakex_run(a2, 3, false), 0);
	CHECK_INT(fakex_run(a2, 5, false), 0);
	CHECK_INT(fakex_run(b2, 2, false), 0);
	CHECK_INT(fakex_run(a2, 7, true), 0);
	CHECK_INT(fakex_run(b2, 4, false), 0);
	CHECK_INT(fakex_run(a3, 6, false), 0);
	/* Nothing stays subscribed between executions. */
	CHECK_INT(fakex_subscribed(&f.x), 0);
	CHECK_INT(nprof_records_count(&done), 3);
	CHECK_INT(done, 3);

	/*
	 * "<model>_vnc_<interned id>.ntff": the three loaded models were
	 * interned 0, 1 and 2 in load order, whatever their cores. '/' is not
	 * a file name character: it becomes '_'.
	 */
	CHECK_INT(ntff_check(f.dir, "resnet_a_vnc_0.ntff", &info), ENTRIES(3));
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_MODEL);
	CHECK_INT(info.core, 2);
	CHECK_INT(info.model_id, 11);
	CHECK_INT(ntff_model_name(f.dir, "resnet_a_vnc_0.ntff", name, sizeof(name)), 0);
	CHECK_STR(name, "resnet/a");
	CHECK_INT(ntff_check(f.dir, "bert_vnc_1.ntff", &info), ENTRIES(2));
	CHECK_INT(info.model_id, 12);
	CHECK_INT(ntff_check(f.dir, "resnet_a_vnc_2.ntff", &info), ENTRIES(6));
	CHECK_INT(info.core, 3);
	CHECK_INT(nprof_inspect_stop(), 0);
	/* Three profiles and the system profile. */
	CHECK_INT(dir_entries(f.dir), 3 + 4);
	CHECK_INT(dir_hidden(f.dir), 0);
	check_model_trace(f.dir);
	CHECK_INT(nprof_model_unload(a2), 0);
	CHECK_INT(nprof_model_unload(b2), 0);
	CHECK_INT(nprof_model_unload(a3), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK_INT(nprof_records_count(NULL), 0);
	CHECK(!path_exists("tmp"));
	fxs_close(&f);
}

/* Per-core filter: a core that is not captured gets no MODEL profile. */
TEST(model_mode_respects_the_core_filter)
{
	struct fx_session f;
	struct nprof_model *m;

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_MODEL);
	nprof_inspect_config_set_capture_enabled_for_nc(f.cfg, 4, false);
	fxs_begin(&f);
	m = nprof_model_load("m", 1, 4);
	CHECK_INT(fakex_run(m, 2, false), 0);
	CHECK_INT(dir_entries(f.dir), 0);
	CHECK_INT(nprof_model_unload(m), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	fxs_close(&f);
}

/*
 * Inspect-on-fail alone: successful executions are captured and discarded
 * unwritten; the first failing one is written and moved into
 * ./tmp/<instance>-<pid>/; close removes only what this process put there.
 */
TEST(on_fail_salvages_into_tmp)
{
	struct fx_session f;
	char salv[PATH_MAX], name[256];
	struct nprof_ntff_info info;
	struct nprof_model *m, *other;
	int fd;

	fxs_open(&f, 1, NPROF_ACTIVITY_ALL, NPROF_DEVICE_PROFILE_MODEL);
	/* Someone else's file in ./tmp: it must survive our cleanup. */
	CHECK(!mkdir("tmp", 0755));
	fd = open("tmp/foreign.txt", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	close(fd);
	nprof_inspect_config_set_enable_inspect(f.cfg, false);
	nprof_inspect_config_set_enable_inspect_on_fail(f.cfg, true);
	fxs_begin(&f);
	/* Inspect off: no activity is armed, only on-fail capture. */
	CHECK_INT(nprof_sys_trace_is_active(), 0);
	CHECK(nprof_inspect_salvage_dir(salv, sizeof(salv)) > 0);
	m = nprof_model_load("failing", 21, 5);
	other = nprof_model_load("steady", 22, 6);
	CHECK_INT(fakex_run(m, 2, false), 0);
	CHECK_INT(fakex_run(other, 2, false), 0);
	CHECK_INT(nprof_records_count(NULL), 0);
	CHECK_INT(dir_entries(f.dir), 0);
	CHECK(!path_exists(salv));
	CHECK_INT(fakex_run(m, 3, true), 0);
	CHECK_INT(dir_entries(f.dir), 0);
	CHECK_INT(ntff_check(salv, "failing_vnc_0.ntff", &info), ENTRIES(3));
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_MODEL);
	CHECK_INT(ntff_model_name(salv, "failing_vnc_0.ntff", name, sizeof(name)), 0);
	CHECK_STR(name, "failing");
	/* The record is complete: later failures of it are not captured again. */
	CHECK_INT(fakex_run(m, 9, true), 0);
	CHECK_INT(ntff_check(salv, "failing_vnc_0.ntff", &info), ENTRIES(3));
	CHECK_INT(dir_entries(salv), 1);
	CHECK_INT(fakex_subscribed(&f.x), 0);
	CHECK_INT(nprof_model_unload(m), 0);
	CHECK_INT(nprof_model_unload(other), 0);
	CHECK_INT(nprof_inspect_stop(), 0);
	/* Stop leaves the salvage; close removes it. */
	CHECK(path_exists(salv));
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK(!path_exists(salv));
	CHECK(path_exists("tmp/foreign.txt"));
	unlink("tmp/foreign.txt");
	fxs_close(&f);
}

/* MODEL mode with on-fail: a wanted profile of a failed execution is salvaged too. */
TEST(model_and_on_fail)
{
	struct fx_session f;
	char salv[PATH_MAX];
	struct nprof_ntff_info info;
	struct nprof_model *ok, *bad;

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_MODEL);
	nprof_inspect_config_set_enable_inspect_on_fail(f.cfg, true);
	fxs_begin(&f);
	CHECK(nprof_inspect_salvage_dir(salv, sizeof(salv)) > 0);
	ok = nprof_model_load("ok", 1, 0);
	bad = nprof_model_load("bad", 2, 1);
	CHECK_INT(fakex_run(ok, 2, false), 0);
	CHECK_INT(fakex_run(bad, 3, true), 0);
	CHECK_INT(ntff_check(f.dir, "ok_vnc_0.ntff", &info), ENTRIES(2));
	CHECK(!file_exists(f.dir, "bad_vnc_1.ntff"));
	CHECK_INT(ntff_check(salv, "bad_vnc_1.ntff", &info), ENTRIES(3));
	CHECK(!file_exists(salv, "ok_vnc_0.ntff"));
	nprof_model_unload(ok);
	nprof_model_unload(bad);
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK(file_exists(f.dir, "ok_vnc_0.ntff"));
	CHECK(!path_exists("tmp"));
	fxs_close(&f);
}

/* A stop while an execution runs abandons its capture; the end is quiet. */
TEST(stop_during_execution_abandons)
{
	struct fx_session f;
	struct nprof_model *m;

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_MODEL);
	fxs_begin(&f);
	m = nprof_model_load("long", 3, 7);
	CHECK_INT(nprof_model_execute_begin(m), 0);
	CHECK_INT(fakex_subscribed(&f.x), 24);
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK_INT(fakex_subscribed(&f.x), 0);
	CHECK_INT(nprof_model_execute_end(m, 0), 0);
	CHECK_INT(dir_entries(f.dir), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	/* Same, with the records cleared by close before the execution ends. */
	CHECK_INT(nprof_inspect_begin_with_options(f.cfg), 0);
	CHECK_INT(nprof_model_execute_begin(m), 0);
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK_INT(nprof_model_execute_end(m, 0), 0);
	CHECK_INT(fakex_subscribed(&f.x), 0);
	/*
	 * Stopped, then a new session begun while the execution runs: its end
	 * leaves the new session alone, which captures the model afresh.
	 */
	CHECK_INT(nprof_inspect_begin_with_options(f.cfg), 0);
	CHECK_INT(nprof_model_execute_begin(m), 0);
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK_INT(nprof_inspect_begin_with_options(f.cfg), 0);
	CHECK(nprof_inspect_session_dir(f.dir, sizeof(f.dir)) > 0);
	CHECK_INT(nprof_records_count(NULL), 0);
	CHECK_INT(nprof_model_execute_end(m, 0), 0);
	CHECK_INT(nprof_records_count(NULL), 0);
	CHECK_INT(fakex_run(m, 2, false), 0);
	CHECK_INT(dir_entries(f.dir), 1);
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK_INT(fakex_subscribed(&f.x), 0);
	CHECK_INT(nprof_model_unload(m), 0);
	fxs_close(&f);
}

/*
 * The trace of an abandoned capture: armed (profile_start, 24 nq_subscribe),
 * then harvested by the stop (24 nq_drain, profile_stop) and dropped: no
 * profile_serialize, and no nrt_execute (the execution ends after the stop).
 */
TEST(abandoned_capture_is_traced_without_serialize)
{
	struct fx_session f;
	Neuronprof__System__Ntrace *nt;
	struct nprof_model *m;

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE | NPROF_ACTIVITY_SYSTEM_PROFILE,
		 NPROF_DEVICE_PROFILE_MODEL);
	fxs_begin(&f);
	m = nprof_model_load("long", 3, 7);
	CHECK_INT(nprof_model_execute_begin(m), 0);
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK_INT(nprof_model_execute_end(m, 0), 0);
	nt = ntrace_load(f.dir);
	CHECK(nt != NULL);
	CHECK_INT(nt ? nt->n_events : 0, 2 + 1 + 1 + 24 + 24 + 1);
	CHECK_INT(ntrace_count_model(nt, "profile_start", 7, 3), 1);
	CHECK_INT(ntrace_count_model(nt, "profile_stop", 7, 3), 1);
	CHECK_INT(ntrace_count(nt, "profile_serialize", NTRACE_ANY_CORE, NULL, 0), 0);
	CHECK_INT(ntrace_count(nt, "nq_subscribe", 7, NULL, 0), 24);
	CHECK_INT(ntrace_count(nt, "nq_drain", 7, NULL, 0), 24);
	CHECK_INT(ntrace_count(nt, "model_load", 7, NULL, 0), 1);
	ntrace_free(nt);
	CHECK_INT(nprof_inspect_close(), 0);
	CHECK_INT(nprof_model_unload(m), 0);
	fxs_close(&f);
}

TEST(hooks_refuse_misuse)
{
	struct nprof_sim_program p = fakex_prog(1, false);
	struct nprof_model *m;
	struct fakex x;

	CHECK_INT(fakex_setup(&x, 1), 0);
	CHECK(nprof_model_load(NULL, 1, 0) == NULL && errno == EINVAL);
	CHECK(nprof_model_load("", 1, 0) == NULL && errno == EINVAL);
	CHECK(nprof_model_load("m", 1, NPROF_MAX_CORES) == NULL && errno == EINVAL);
	CHECK_STR(nprof_strerror_last(), "NC 256 is out of range (0..255)");
	m = nprof_model_load("m", 1, 0);
	CHECK(m != NULL);
	CHECK_STR(nprof_model_name(m), "m");
	CHECK_INT(nprof_model_id(m), 1);
	CHECK_INT(nprof_model_vnc(m), 0);
	CHECK_ERR_MSG(nprof_model_execute_end(m, 0), EINVAL, "model m is not executing on NC 0");
	CHECK_INT(nprof_model_execute_begin(m), 0);
	CHECK_ERR_MSG(nprof_model_execute_begin(m), EBUSY,
		      "model m is already executing on NC 0 (executions of a model are synchronous)");
	CHECK_INT(nprof_model_sim_execute(m, &p, NULL), -EBUSY);
	CHECK_ERR_MSG(nprof_model_unload(m), EBUSY,
		      "model m on NC 0 is executing: it cannot be unloaded");
	CHECK_INT(nprof_model_execute_end(m, 0), 0);
	CHECK_INT(nprof_model_execute_end(m, 0), -EINVAL);
	CHECK_INT(nprof_model_unload(m), 0);
	/* A core no device holds. */
	m = nprof_model_load("far", 1, 200);
	CHECK_INT(nprof_model_sim_execute(m, &p, NULL), -ENODEV);
	CHECK_CONTAINS(nprof_strerror_last(), "no neuronprof device holds NC 200");
	CHECK_INT(nprof_model_unload(m), 0);
	CHECK_INT(nprof_model_unload(NULL), 0);
	fakex_teardown(&x);
}

/* ---- the model registry ----------------------------------------------------------------- */

/*
 * Interned ids: one per distinct (name, id, core) of the loaded models, the
 * smallest free one, the same for a second load of the same model on the
 * same core, free again when no loaded model holds it.
 */
TEST(model_registry_interns_ids)
{
	struct nprof_model *a, *b, *a_again, *a_elsewhere, *d;

	a = nprof_model_load("x", 7, 5);
	b = nprof_model_load("y", 8, 5);
	a_again = nprof_model_load("x", 7, 5);
	a_elsewhere = nprof_model_load("x", 7, 6);
	CHECK(a && b && a_again && a_elsewhere);
	CHECK_INT(nprof_model_info(a)->interned, 0);
	CHECK_INT(nprof_model_info(b)->interned, 1);
	CHECK_INT(nprof_model_info(a_again)->interned, 0);
	CHECK_INT(nprof_model_info(a_elsewhere)->interned, 2);
	CHECK_INT(nprof_model_unload(b), 0);
	d = nprof_model_load("z", 9, 0);
	CHECK_INT(nprof_model_info(d)->interned, 1);
	/* Still held by a_again after the first unload. */
	CHECK_INT(nprof_model_unload(a), 0);
	b = nprof_model_load("y", 8, 5);
	CHECK_INT(nprof_model_info(b)->interned, 3);
	CHECK_INT(nprof_model_unload(a_again), 0);
	a = nprof_model_load("w", 1, 1);
	CHECK_INT(nprof_model_info(a)->interned, 0);
	nprof_model_unload(a);
	nprof_model_unload(b);
	nprof_model_unload(d);
	nprof_model_unload(a_elsewhere);
}

/* ---- direct MODEL profiles ------------------------------------------------------------ */

TEST(direct_profile_start_stop)
{
	struct nprof_ntff_info info;
	struct nprof_model *m;
	struct scratch s;
	struct fakex x;

	CHECK(!scratch_enter(&s));
	CHECK_INT(fakex_setup(&x, 1), 0);
	CHECK(!mkdir("prof", 0755));
	m = nprof_model_load("direct", 31, 1);
	CHECK_INT(nprof_profile_start(m, "prof/direct.ntff"), 0);
	CHECK_ERR_MSG(nprof_profile_start(m, "prof/direct.ntff"), EBUSY,
		      "a profile is already being captured into prof/direct.ntff");
	/* The core is taken: another file on it cannot start. */
	CHECK_INT(nprof_profile_start(m, "prof/other.ntff"), -EBUSY);
	CHECK_INT(fakex_run(m, 2, false), 0);
	CHECK_INT(fakex_run(m, 3, false), 0);
	CHECK_INT(nprof_profile_stop("prof/direct.ntff"), 0);
	CHECK_INT(ntff_check("prof", "direct.ntff", &info), ENTRIES(5));
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_MODEL);
	CHECK_INT(info.model_id, 31);
	CHECK_ERR_MSG(nprof_profile_stop("prof/direct.ntff"), EALREADY,
		      "Trying to stop already completed profile prof/direct.ntff");
	CHECK_ERR_MSG(nprof_profile_stop("prof/never.ntff"), ENOENT,
		      "no profile was started for prof/never.ntff");
	/* A completed profile can be started again. */
	CHECK_INT(nprof_profile_start(m, "prof/direct.ntff"), 0);
	CHECK_INT(nprof_profile_stop("prof/direct.ntff"), 0);
	CHECK_INT(ntff_check("prof", "direct.ntff", &info), 0);
	/* A missing directory fails the write; the profile is complete anyway. */
	CHECK_INT(nprof_profile_start(m, "nodir/x.ntff"), 0);
	CHECK_INT(nprof_profile_stop("nodir/x.ntff"), -ENOENT);
	CHECK_CONTAINS(nprof_strerror_last(), "cannot open directory nodir");
	CHECK_INT(nprof_profile_stop("nodir/x.ntff"), -EALREADY);
	CHECK_INT(fakex_subscribed(&x), 0);
	CHECK_INT(nprof_model_unload(m), 0);
	fakex_teardown(&x);
	scratch_leave(&s);
}

/* ---- continuous profiling ------------------------------------------------------------- */

static struct trace_log tlog;

TEST(continuous_saves_last_execution)
{
	struct nprof_profile_continuous_options *o;
	struct nprof_ntff_info info;
	struct nprof_model *a, *b;
	char name[NAME_MAX + 1], inst[NPROF_INSTANCE_ID_MAX + 1], pattern[512];
	regex_t re;
	struct scratch s;
	struct fakex x;

	CHECK(!scratch_enter(&s));
	CHECK_INT(fakex_setup(&x, 1), 0);
	o = nprof_profile_continuous_options_allocate();
	CHECK_STR(nprof_profile_continuous_options_get_output_dir(o), "./output");
	CHECK_INT(nprof_profile_continuous_options_set_output_dir(o, ""), -EINVAL);
	CHECK_INT(nprof_profile_continuous_options_set_output_dir(o, "cont/out"), 0);
	CHECK_ERR_MSG(nprof_profile_continuous_save(0, o), EINVAL,
		      "To use nprof_profile_continuous_save() you must first call nprof_profile_continuous_start()");
	CHECK_INT(nprof_profile_continuous_start(o), 0);
	CHECK_INT(nprof_profile_continuous_is_enabled(), 1);
	if (trace_start_all())
		FAIL("cannot start the trace");
	a = nprof_model_load("a", 41, 1);
	b = nprof_model_load("b", 42, 1);
	CHECK_ERR_MSG(nprof_profile_continuous_save(1, o), ENOENT,
		      "no execution on NC 1 was captured since continuous profiling started or the last save");
	CHECK_INT(fakex_run(a, 2, false), 0);
	CHECK_INT(fakex_run(b, 4, false), 0);
	/* The last execution is kept, its rings stay subscribed. */
	CHECK_INT(fakex_subscribed(&x), 24);
	CHECK_INT(nprof_model_execute_begin(a), 0);
	CHECK_INT(nprof_profile_continuous_save(1, o), -EBUSY);
	CHECK_INT(nprof_model_execute_end(a, 0), 0);
	CHECK_INT(fakex_run(b, 3, false), 0);
	CHECK_INT(nprof_profile_continuous_save(1, NULL), -EINVAL);
	CHECK_INT(nprof_profile_continuous_save(1, o), 0);
	CHECK_INT(fakex_subscribed(&x), 0);
	CHECK_INT(dir_entries("cont/out"), 1);
	CHECK(dir_find("cont/out", "model_", name, sizeof(name)));
	CHECK(nprof_output_instance_id(NULL, inst, sizeof(inst)) > 0);
	snprintf(pattern, sizeof(pattern),
		 "^model_42_pid_%ld_vnc_1_inst_%s_[0-9]{8}_[0-9]{6}\\.ntff$", (long)getpid(), inst);
	CHECK(!regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB));
	CHECK(!regexec(&re, name, 0, NULL, 0));
	regfree(&re);
	CHECK_INT(ntff_check("cont/out", name, &info), ENTRIES(3));
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_CONTINUOUS);
	CHECK_INT(info.model_id, 42);
	CHECK_INT(info.core, 1);
	/* Saved once: a second save needs another execution. */
	CHECK_INT(nprof_profile_continuous_save(1, o), -ENOENT);
	CHECK_INT(nprof_profile_continuous_save(NPROF_MAX_CORES, o), -EINVAL);
	CHECK_INT(fakex_run(a, 1, true), 0);
	CHECK_INT(fakex_subscribed(&x), 24);
	CHECK_INT(nprof_profile_continuous_stop(), 0);
	CHECK_INT(fakex_subscribed(&x), 0);
	CHECK_INT(nprof_profile_continuous_is_enabled(), 0);
	CHECK_INT(nprof_profile_continuous_save(1, o), -EINVAL);
	/* Executions after the stop capture nothing. */
	CHECK_INT(fakex_run(a, 1, false), 0);
	CHECK_INT(fakex_subscribed(&x), 0);
	/*
	 * Every captured execution: a, b, a, b, a (models 41, 42) each with a
	 * profile_start and _stop about its model and its 24 queues'
	 * nq_subscribe and nq_drain (a new execution drops the stash, which
	 * gives the rings back); the one save a profile_serialize.
	 */
	trace_take(1, &tlog);
	CHECK_INT(trace_count_model(&tlog, NPROF_EV_PROFILE_START, 41), 3);
	CHECK_INT(trace_count_model(&tlog, NPROF_EV_PROFILE_START, 42), 2);
	CHECK_INT(trace_count_model(&tlog, NPROF_EV_PROFILE_STOP, 41), 3);
	CHECK_INT(trace_count_model(&tlog, NPROF_EV_PROFILE_STOP, 42), 2);
	CHECK_INT(trace_count(&tlog, NPROF_EV_PROFILE_SERIALIZE), 1);
	CHECK_INT(trace_count_model(&tlog, NPROF_EV_PROFILE_SERIALIZE, 42), 1);
	CHECK_INT(trace_count(&tlog, NPROF_EV_NQ_SUBSCRIBE), 5 * 24);
	CHECK_INT(trace_count(&tlog, NPROF_EV_NQ_DRAIN), 5 * 24);
	CHECK_INT(trace_count(&tlog, NPROF_EV_NRT_EXECUTE), 6);
	trace_end_all();
	nprof_model_unload(a);
	nprof_model_unload(b);
	nprof_profile_continuous_options_free(o);
	fakex_teardown(&x);
	scratch_leave(&s);
}

/* Continuous stopped while an execution runs: its end releases the capture. */
TEST(continuous_stop_during_execution)
{
	struct nprof_model *m;
	struct fakex x;

	CHECK_INT(fakex_setup(&x, 1), 0);
	CHECK_INT(nprof_profile_continuous_start(NULL), 0);
	m = nprof_model_load("m", 1, 2);
	CHECK_INT(nprof_model_execute_begin(m), 0);
	CHECK_INT(fakex_subscribed(&x), 24);
	CHECK_INT(nprof_profile_continuous_stop(), 0);
	CHECK_INT(fakex_subscribed(&x), 24);
	CHECK_INT(nprof_model_execute_end(m, 0), 0);
	CHECK_INT(fakex_subscribed(&x), 0);
	nprof_model_unload(m);
	fakex_teardown(&x);
}

HARNESS_MAIN

// SPDX-License-Identifier: MIT
/*
 * Host tests of capture ranges and capture windows on fake devices: the
 * configuration's capture range and its variable, a SESSION capture of
 * executions 100-110 of a 200-execution run holding exactly those (each
 * execution runs a different number of iterations, so every execution's
 * share of the entries is told apart), the range in the file's description,
 * and a control page enabling and disabling capture twice in one run.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <neuronprof/capture.h>

#include "harness.h"
#include "inspect_util.h"

/* Entries per queue of a capture of @it iterations on a fake trn2 core: 24 queues. */
#define ENTRIES(it)	(24L * (it))

/* Sum of a..b: the iterations of executions a to b when execution x runs x. */
static long span(long a, long b)
{
	return (a + b) * (b - a + 1) / 2;
}

TEST(config_capture_range)
{
	/* Executions have no bound. */
	static const struct range_step steps[] = {
		{ NULL, 100, 110, 0 },
		{ "12", 12, 12, 0 },
		{ "1-18446744073709551615", 1, UINT64_MAX, 0 },
	};

	check_range_setting("NEURON_RT_INSPECT_CAPTURE_EXECUTIONS",
			    nprof_inspect_config_set_capture_executions,
			    nprof_inspect_config_get_capture_executions,
			    nprof_inspect_config_get_capture_iterations, steps,
			    sizeof(steps) / sizeof(steps[0]));
}

TEST(session_range_holds_exactly_its_executions)
{
	struct fx_session f;
	struct nprof_ntff_info info;
	struct nprof_model *m, *other;

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_SESSION);
	cfg_cores(f.cfg, 2, 2);
	CHECK_INT(nprof_inspect_config_set_capture_executions(f.cfg, 100, 110), 0);
	fxs_begin(&f);
	/* A range arms nothing at begin. */
	CHECK_INT(fakex_subscribed(&f.x), 0);
	m = nprof_model_load("ranged", 5, 2);
	other = nprof_model_load("elsewhere", 6, 3);
	CHECK(m && other);
	for (uint32_t e = 1; m && other && e <= 200; e++) {
		/* Execution e runs e iterations: each execution's entries differ in number. */
		CHECK_INT(fakex_run(m, e, false), 0);
		/* Executions on another core are not counted on core 2, nor captured. */
		CHECK_INT(fakex_run(other, 1, false), 0);
		if (e == 99)
			CHECK_INT(fakex_subscribed(&f.x), 0);
		if (e == 100)
			CHECK_INT(fakex_subscribed(&f.x), 24);
		if (e == 110)
			CHECK_INT(fakex_subscribed(&f.x), 0);
	}
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK_INT(dir_scan(f.dir, "profile_nc_", NULL, 0), 1);
	CHECK_INT(ntff_check(f.dir, "profile_nc_2_session_0.ntff", &info), ENTRIES(span(100, 110)));
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_SESSION);
	CHECK_INT(info.core, 2);
	CHECK_INT(info.exec_first, 100);
	CHECK_INT(info.exec_last, 110);
	nprof_model_unload(m);
	nprof_model_unload(other);
	fxs_close(&f);
}

/* A range that the run does not reach the end of: the file says where it stopped. */
TEST(session_range_cut_by_stop)
{
	struct fx_session f;
	struct nprof_model *m;

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_SESSION);
	CHECK_INT(nprof_inspect_config_set_capture_executions(f.cfg, 3, 50), 0);
	fxs_begin(&f);
	m = fxs_run_model(&f, "short", 1, 0, 6, 0, NULL);
	CHECK_INT(dir_scan(f.dir, "profile_nc_", NULL, 0), 1);
	check_execs(f.dir, "profile_nc_0_session_0.ntff", ENTRIES(span(3, 6)), 3, 6);
	nprof_model_unload(m);
	fxs_close(&f);
}

/* Without a range or control the file says nothing of executions. */
TEST(session_without_range_says_none)
{
	struct fx_session f;
	struct nprof_model *m;

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_SESSION);
	cfg_cores(f.cfg, 0, 0);
	fxs_begin(&f);
	m = fxs_run_model(&f, "whole", 1, 0, 3, 0, NULL);
	check_execs(f.dir, "profile_nc_0_session_0.ntff", ENTRIES(span(1, 3)), 0, 0);
	nprof_model_unload(m);
	fxs_close(&f);
}

/*
 * The control page, as neuronprof record --control drives it: capture off
 * at first, enabled for executions 4-6, disabled, enabled for 10-11,
 * disabled again: two files holding exactly those executions.
 */
static void flip_windows(struct fx_session *f, uint32_t e)
{
	static const struct { uint32_t exec; uint64_t enabled; } flips[] = {
		{ 4, 1 }, { 7, 0 }, { 10, 1 }, { 12, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(flips) / sizeof(flips[0]); i++)
		if (flips[i].exec == e)
			__atomic_store_n(&f->page->enabled, flips[i].enabled, __ATOMIC_RELEASE);
}

TEST(control_page_two_windows)
{
	struct fx_session f;
	struct nprof_model *m;

	if (!fxs_open_controlled(&f, NPROF_DEVICE_PROFILE_SESSION, 0))
		return;
	CHECK_INT(fakex_subscribed(&f.x), 0);
	m = fxs_run_model(&f, "windowed", 1, 1, 14, 0, flip_windows);
	CHECK_INT(dir_scan(f.dir, "profile_nc_", NULL, 0), 2);
	check_execs(f.dir, "profile_nc_1_session_0.ntff", ENTRIES(span(4, 6)), 4, 6);
	check_execs(f.dir, "profile_nc_1_session_1.ntff", ENTRIES(span(10, 11)), 10, 11);
	nprof_model_unload(m);
	fxs_close(&f);
}

/*
 * MODEL mode: executions 3-5 of each model on its core into the model's
 * one file; a second model whose run ends inside its range is written at
 * the stop with what it holds.
 */
TEST(model_range)
{
	struct fx_session f;
	struct nprof_ntff_info info;
	struct nprof_model *m, *cut;
	char name[NAME_MAX + 1];

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_MODEL);
	CHECK_INT(nprof_inspect_config_set_capture_executions(f.cfg, 3, 5), 0);
	fxs_begin(&f);
	m = nprof_model_load("ranged", 9, 4);
	cut = nprof_model_load("cut", 8, 5);
	CHECK(m && cut);
	for (uint32_t e = 1; m && cut && e <= 7; e++) {
		CHECK_INT(fakex_run(m, e, false), 0);
		if (e <= 4)
			CHECK_INT(fakex_run(cut, e, false), 0);
		if (e == 2)
			CHECK_INT(fakex_subscribed(&f.x), 0);
	}
	CHECK_INT(nprof_inspect_stop(), 0);
	CHECK(dir_find(f.dir, "ranged_vnc_", name, sizeof(name)));
	CHECK_INT(ntff_check(f.dir, name, &info), ENTRIES(span(3, 5)));
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_MODEL);
	CHECK_INT(info.core, 4);
	CHECK_INT(info.exec_first, 3);
	CHECK_INT(info.exec_last, 5);
	CHECK(dir_find(f.dir, "cut_vnc_", name, sizeof(name)));
	CHECK_INT(ntff_check(f.dir, name, &info), ENTRIES(span(3, 4)));
	CHECK_INT(info.core, 5);
	CHECK_INT(info.exec_first, 3);
	CHECK_INT(info.exec_last, 4);
	CHECK_INT(fakex_subscribed(&f.x), 0);
	nprof_model_unload(m);
	nprof_model_unload(cut);
	fxs_close(&f);
}

/* MODEL mode: the first execution of the model that begins while capture is enabled. */
static void enable_from_third(struct fx_session *f, uint32_t e)
{
	__atomic_store_n(&f->page->enabled, e >= 3, __ATOMIC_RELEASE);
}

TEST(control_page_model_mode)
{
	struct fx_session f;
	struct nprof_ntff_info info;
	struct nprof_model *m;
	char name[NAME_MAX + 1];

	if (!fxs_open_controlled(&f, NPROF_DEVICE_PROFILE_MODEL, 0))
		return;
	m = fxs_run_model(&f, "gated", 4, 0, 4, 0, enable_from_third);
	CHECK(dir_find(f.dir, "gated_vnc_", name, sizeof(name)));
	CHECK_INT(ntff_check(f.dir, name, &info), ENTRIES(3));
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_MODEL);
	nprof_model_unload(m);
	fxs_close(&f);
}

HARNESS_MAIN

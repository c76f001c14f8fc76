// SPDX-License-Identifier: MIT
/*
 * Host tests of the control page's switch_size (record --switch-output
 * SIZE), on a fake device: the library itself ends a SESSION capture's
 * window at the first execution that begins once the window holds SIZE
 * bytes of entries, so every file but the last holds at least SIZE bytes
 * of entries and at most SIZE plus its last execution's, each file holds
 * whole executions, one after the other, and the entries summed over the
 * files are those the device produced (nothing lost or written twice
 * across a switch). Executions of different sizes make the boundary fall
 * at different places; the expected files are worked out from the rule,
 * and the same run without a size writes one file.
 */
#include <sys/mman.h>

#include "harness.h"
#include "inspect_util.h"

#define EXECUTIONS	9u
/* Entries of an execution of @it iterations on a fake trn2 core: 24 queues. */
#define ENTRIES(it)	(24L * (it))

/* Execution e (from 1) runs this many iterations: sizes that do not line up with SIZE. */
static uint32_t exec_iterations(uint32_t e)
{
	static const uint32_t it[EXECUTIONS] = { 1, 2, 3, 4, 5, 6, 1, 7, 2 };

	return it[e - 1];
}

/*
 * Run EXECUTIONS executions on core 1 under a control page whose
 * switch_size is @limit, and check the files against the rule.
 */
static void run(uint64_t limit)
{
	struct nprof_control_page *page;
	struct nprof_inspect_config *cfg;
	struct nprof_ntff_info info;
	struct nprof_model *m;
	char dir[PATH_MAX], name[64];
	uint64_t esz, window = 0, produced = 0, found = 0;
	uint32_t file = 0, first = 1;
	struct scratch s;
	struct fakex x;
	int fd;

	page = control_page_new(1, &fd);
	if (!page)
		return;
	__atomic_store_n(&page->switch_size, limit, __ATOMIC_RELEASE);
	CHECK(!scratch_enter(&s));
	CHECK_INT(fakex_setup(&x, 1), 0);
	esz = x.dev[0]->info.entry_size;
	cfg = cfg_new("out", NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_SESSION);
	CHECK_INT(nprof_inspect_begin_with_options(cfg), 0);
	CHECK(nprof_inspect_session_dir(dir, sizeof(dir)) > 0);
	m = nprof_model_load("sized", 1, 1);
	CHECK(m != NULL);
	for (uint32_t e = 1; m && e <= EXECUTIONS; e++) {
		struct nprof_sim_program p = fakex_prog(exec_iterations(e), false);
		struct nprof_sim_result res = { .size = sizeof(res) };

		CHECK_INT(nprof_model_sim_execute(m, &p, &res), 0);
		produced += ENTRIES(exec_iterations(e));
	}
	CHECK_INT(nprof_inspect_stop(), 0);

	/* The files as the rule makes them: a new one at each boundary at or after SIZE. */
	for (uint32_t e = 1; e <= EXECUTIONS + 1; e++) {
		uint64_t bytes = (uint64_t)ENTRIES(exec_iterations(e > EXECUTIONS ? 1 : e)) * esz;
		long got;

		if (e <= EXECUTIONS && (!limit || window < limit || e == first)) {
			window += bytes;
			continue;
		}
		/* Executions first .. e - 1 make file number @file. */
		snprintf(name, sizeof(name), "profile_nc_1_session_%u.ntff", file);
		got = ntff_check(dir, name, &info);
		printf("#   %s: executions %llu-%llu, %ld entries (%llu bytes; limit %llu)\n", name,
		       (unsigned long long)info.exec_first, (unsigned long long)info.exec_last, got,
		       (unsigned long long)(got * (long)esz), (unsigned long long)limit);
		CHECK_INT(got * (long)esz, (long)window);
		CHECK_INT(info.exec_first, first);
		CHECK_INT(info.exec_last, e - 1);
		if (limit) {
			uint64_t last = (uint64_t)ENTRIES(exec_iterations(e - 1)) * esz;

			/* The bound: SIZE plus the last execution's entries. */
			CHECK((uint64_t)got * esz < limit + last);
			/* Tight: only the last file is under SIZE. */
			CHECK(e > EXECUTIONS || (uint64_t)got * esz >= limit);
		}
		found += got > 0 ? (uint64_t)got : 0;
		file++;
		first = e;
		window = bytes;
	}
	/* Nothing after the last file, nothing lost or twice across the switches. */
	snprintf(name, sizeof(name), "profile_nc_1_session_%u.ntff", file);
	CHECK(!file_exists(dir, name));
	CHECK_INT(found, produced);
	nprof_model_unload(m);
	nprof_inspect_close();
	nprof_inspect_config_free(cfg);
	fakex_teardown(&x);
	scratch_leave(&s);
	unsetenv(NPROF_CONTROL_FD_ENV);
	munmap(page, sizeof(*page));
	close(fd);
}

/* 7 iterations' worth: switches inside the runs of small and of large executions. */
TEST(switch_size_switches_at_the_first_boundary_at_or_after_it)
{
	run((uint64_t)ENTRIES(7) * 64);
}

/* Smaller than every execution: one file per execution. */
TEST(switch_size_below_one_execution_gives_a_file_each)
{
	run(1);
}

/* 0: no size, the window stays open; the whole session is one file. */
TEST(switch_size_zero_keeps_one_file)
{
	run(0);
}

HARNESS_MAIN

// SPDX-License-Identifier: MIT
/*
 * Host tests of how the library names NeuronCores in its messages: by the
 * global number of its file names (NC 11) with the device and the device's
 * own core in parentheses (device 1 core 3), and lists of cores in
 * ascending runs (NC 8-10). Two fake trn2 devices of 8 cores: a SESSION
 * capture of NC 8-11 whose NC 11 cannot start rolls back NC 8-10, says so
 * in one line in that order, and its error names the failing core both
 * ways.
 */
#include <errno.h>
#include <stdlib.h>

#include "harness.h"
#include "inspect_util.h"

static char infos[4096];
static int rollback_lines;

static void keep_log(enum nprof_log_level level, const char *msg, void *ctx)
{
	(void)ctx;
	printf("#   log: %s\n", msg);
	if (level == NPROF_LOG_INFO && strstr(msg, "stopped and dropped")) {
		rollback_lines++;
		snprintf(infos, sizeof(infos), "%s", msg);
	}
}

TEST(rollback_names_cores_both_ways)
{
	struct fx_session f;

	fxs_open(&f, 2, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_SESSION);
	cfg_cores(f.cfg, 8, 11);
	/* Device 1's cores 0..2 (NC 8-10) subscribe 24 queues each; core 3 fails at its 5th. */
	fakex_fail_subscribe(&f.x, 1, 3 * 24 + 5, ENOSPC);
	nprof_log_set_handler(keep_log, NULL, NPROF_LOG_INFO);
	CHECK_INT(nprof_inspect_begin_with_options(f.cfg), -ENOSPC);
	nprof_log_set_handler(NULL, NULL, NPROF_LOG_WARN);
	CHECK_CONTAINS(nprof_strerror_last(),
		       "cannot start the device profile session on NC 11 (device 1 core 3): ");
	CHECK_CONTAINS(nprof_strerror_last(),
		       "(the sessions already started on NC 8-10 were stopped and dropped)");
	CHECK_INT(rollback_lines, 1);
	CHECK_CONTAINS(infos, "stopped and dropped the profile sessions of NC 8-10 after the "
			      "failure to start on NC 11 (device 1 core 3)");
	CHECK_INT(fake_subscribed(f.x.fd[1]), 0);
	fxs_close(&f);
}

HARNESS_MAIN

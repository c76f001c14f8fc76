/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included once by every test program: the kselftest harness plus the
 * fixture plumbing the programs share.
 */
#ifndef NPROF_TEST_H
#define NPROF_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nprof_util.h"
#include "kselftest_harness.h"

/*
 * The 6.1 harness runs the test body even when FIXTURE_SETUP skipped, so a
 * skipping setup leaves the way a failed ASSERT does: through the jump buffer
 * the harness set before calling it (no teardown, test reported as skipped).
 */
#define SETUP_SKIP(fmt, ...) \
	SKIP(longjmp(_metadata->env, 1), fmt, ##__VA_ARGS__)

/*
 * Simulated device ids for tests that need a device of their own: each
 * program has its own range so that nothing one leaves behind (a test killed
 * by its timeout) collides with another.
 */
#define NPROF_TEST_ID(prog, n)	(1000u + (prog) * 100u + (n))

/*
 * Waits that must end because of a wakeup use WAIT_TIMEOUT_MS, and are
 * asserted to have ended before WAIT_WOKEN_MS: a missing wakeup would let
 * them end at their timeout anyway, with the state they waited for.
 */
#define WAIT_TIMEOUT_MS		15000
#define WAIT_WOKEN_MS		10000

/* Entries of a ring of @bytes. */
#define RING_ENTRIES(dev, bytes) ((bytes) / (dev)->info.entry_size)

/* Skip unless root: the sim controls and the render nodes need it. */
#define REQUIRE_ROOT() do {						\
	if (geteuid() != 0)						\
		SETUP_SKIP("the neuronprof selftests must run as root");	\
} while (0)

/*
 * Create simulated device @id of @arch (NULL: the module's default) and
 * open it into @dev; skip when the simulator is not loaded.
 */
#define SETUP_SIM_DEV(dev, id, arch) do {				\
	int __ret;							\
	REQUIRE_ROOT();							\
	if (!nprof_sim_loaded())					\
		SETUP_SKIP("neuronprof_sim is not loaded (no %s)",	\
			   NPROF_SIM_DRIVER_DIR "/new_device");		\
	__ret = nprof_sim_new_device((id), (arch), (dev));		\
	ASSERT_EQ(0, __ret)						\
		TH_LOG("cannot create simulated device %u (%s): %s",	\
		       (id), (arch) ? (arch) : "default arch",		\
		       strerror(-__ret));				\
} while (0)

/* Close @dev and remove simulated device @id, which must still exist. */
#define TEARDOWN_SIM_DEV(dev, id) do {					\
	int __ret;							\
	nprof_dev_close(dev);						\
	__ret = nprof_sim_del_device(id);				\
	EXPECT_EQ(0, __ret)						\
		TH_LOG("del_device %u: %s", (id), strerror(-__ret));	\
} while (0)

/* Skip unless @dev can run programs (SIM_EXEC). */
#define REQUIRE_SIM_EXEC(dev) do {					\
	if (!((dev)->info.caps & NEURONPROF_CAP_SIM_EXEC))		\
		SETUP_SKIP("%s cannot run programs (no NEURONPROF_CAP_SIM_EXEC)", \
			   (dev)->node);				\
} while (0)

/* Assert that @expr (an int call) fails with @err. */
#define ASSERT_ERRNO(err, expr) do {					\
	int __ret = (expr);						\
	int __err = errno;						\
	ASSERT_EQ(-1, __ret)						\
		TH_LOG("%s succeeded, expected %s", #expr, strerror(err)); \
	ASSERT_EQ((err), __err)						\
		TH_LOG("%s: %s, expected %s", #expr, strerror(__err),	\
		       strerror(err));					\
} while (0)

/* Assert that a helper returning 0 or -errno returned -@err. */
#define ASSERT_NEG_ERRNO(err, expr) do {				\
	int __ret = (expr);						\
	ASSERT_EQ(-(err), __ret)					\
		TH_LOG("%s: %s, expected %s", #expr,			\
		       __ret < 0 ? strerror(-__ret) : "success",	\
		       strerror(err));					\
} while (0)

/* Assert that a helper returning >= 0 or -errno succeeded. */
#define ASSERT_OK(expr) do {						\
	int __ret = (expr);						\
	ASSERT_LE(0, __ret)						\
		TH_LOG("%s: %s", #expr, strerror(-__ret));		\
} while (0)

/* Assert that the reference consumer found nothing wrong in @r. */
#define ASSERT_RING_OK(r, expr) do {					\
	long __ret = (expr);						\
	ASSERT_LE(0, __ret) TH_LOG("%s", (r)->err);			\
} while (0)

#endif /* NPROF_TEST_H */

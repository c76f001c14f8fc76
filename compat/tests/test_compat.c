// SPDX-License-Identifier: MIT
/*
 * Host test of libnrtprof: the errno to NRT_STATUS table, the statuses the
 * runtime API returns for its error cases, and one environment-driven run
 * (nrt_init ... nrt_close) on fake devices that leaves the expected files.
 */
#include <errno.h>
#include <stdlib.h>

#include <nrt/nrt_profile.h>
#include <nrt/nrt_sim.h>
#include <nrt/nrt_sys_trace.h>

#include "../src/nrtprof.h"
#include "harness.h"
#include "inspect_util.h"

TEST(errno_to_status)
{
	CHECK_INT(nrtprof_errno_status(0), NRT_SUCCESS);
	CHECK_INT(nrtprof_errno_status(EINVAL), NRT_INVALID);
	CHECK_INT(nrtprof_errno_status(ENOENT), NRT_INVALID);
	CHECK_INT(nrtprof_errno_status(EBADF), NRT_INVALID_HANDLE);
	CHECK_INT(nrtprof_errno_status(ENOMEM), NRT_RESOURCE);
	CHECK_INT(nrtprof_errno_status(ENOSPC), NRT_RESOURCE);
	CHECK_INT(nrtprof_errno_status(ETIMEDOUT), NRT_TIMEOUT);
	CHECK_INT(nrtprof_errno_status(ENODEV), NRT_HW_ERROR);
	CHECK_INT(nrtprof_errno_status(ESHUTDOWN), NRT_CLOSED);
	CHECK_INT(nrtprof_errno_status(EBUSY), NRT_FAILURE);
	CHECK_INT(nrtprof_errno_status(EALREADY), NRT_FAILURE);
	CHECK_INT(nrtprof_status("test", 5), NRT_SUCCESS);
}

TEST(error_statuses)
{
	nrt_profile_continuous_options_t *co = NULL;
	nrt_inspect_config_t *cfg = NULL;
	nrt_model_t *m = NULL;
	const char **names;
	size_t n;

	setenv("NEURON_RT_LOG_LEVEL", "OFF", 1);
	CHECK_INT(nrt_inspect_config_allocate(NULL), NRT_INVALID);
	CHECK_INT(nrt_inspect_config_allocate(&cfg), NRT_SUCCESS);
	CHECK_INT(nrt_inspect_config_set_output_dir(cfg, "./tmp"), NRT_INVALID);
	CHECK_INT(nrt_inspect_config_set_output_dir(cfg, "/dev/null"), NRT_INVALID);
	CHECK_INT(nrt_inspect_config_set_capture_enabled_for_nc(cfg, 256, true), NRT_INVALID);
	CHECK_INT(nrt_inspect_config_set_activity(cfg, "nope", true), NRT_INVALID);
	CHECK_INT(nrt_inspect_config_set_capture_enabled_for_event_type_string(cfg, "nope", true),
		  NRT_INVALID);
	CHECK_INT(nrt_inspect_config_get_all_activity_types(&names, &n), NRT_SUCCESS);
	CHECK_INT(n, 4);
	nrt_inspect_config_free_activity_types(names, n);
	CHECK_INT(nrt_inspect_config_free(cfg), NRT_SUCCESS);
	CHECK_INT(nrt_inspect_begin_with_options(NULL), NRT_INVALID);
	CHECK_INT(nrt_inspect_stop(), NRT_SUCCESS);
	CHECK_INT(nrt_profile_stop("never.ntff"), NRT_INVALID);
	CHECK_INT(nrt_profile_start(NULL, "x.ntff"), NRT_INVALID_HANDLE);
	CHECK_INT(nrt_profile_continuous_options_allocate(&co), NRT_SUCCESS);
	CHECK_INT(nrt_profile_continuous_save(0, co), NRT_INVALID);
	CHECK_INT(nrt_profile_continuous_stop(), NRT_FAILURE);
	CHECK_INT(nrt_profile_continuous_options_free(co), NRT_SUCCESS);
	CHECK_INT(nrtsim_load("m", 1, 0, &m), NRT_UNINITIALIZED);
	CHECK_INT(nrt_init(NRT_FRAMEWORK_TYPE_INVALID, NULL, NULL), NRT_INVALID);
	CHECK_INT(nrt_sys_trace_stop(), NRT_FAILURE);
	CHECK_INT(nrt_unload(NULL), NRT_INVALID_HANDLE);
	unsetenv("NEURON_RT_LOG_LEVEL");
}

/* nrt_init begins the session the environment asks for; nrt_close ends it. */
TEST(environment_run_on_fake_devices)
{
	char inst[NPROF_INSTANCE_ID_MAX + 1], parent[PATH_MAX], leaf[NAME_MAX + 1];
	char dir[2 * PATH_MAX], salv[PATH_MAX];
	struct nprof_ntff_info info;
	nrt_model_t *a = NULL, *b = NULL;
	struct scratch s;
	struct fakex x;

	CHECK(!scratch_enter(&s));
	CHECK_INT(fakex_setup(&x, 1), 0);
	setenv("NEURON_RT_INSPECT_ENABLE", "1", 1);
	setenv("NEURON_RT_INSPECT_OUTPUT_DIR", "out", 1);
	setenv("NEURON_RT_INSPECT_DEVICE_PROFILE", "model", 1);
	setenv("NEURON_RT_INSPECT_ON_FAIL", "1", 1);
	setenv("NEURON_RT_PROFILE_BUF_TRACE_MB", "1", 1);
	setenv("NEURON_RT_PROFILE_BUF_EVENT_MB", "1", 1);
	setenv("NEURON_RT_PROFILE_BUF_DMA_MB", "1", 1);
	CHECK_INT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1", "1"), NRT_SUCCESS);
	CHECK_INT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1", "1"), NRT_FAILURE);
	CHECK_INT(nrtsim_load("a", 1, 0, &a), NRT_SUCCESS);
	CHECK_INT(nrtsim_load("b", 2, 1, &b), NRT_SUCCESS);
	CHECK_INT(nrtsim_execute(a, 2, false), NRT_SUCCESS);
	CHECK_INT(nrtsim_execute(a, 2, false), NRT_SUCCESS);
	CHECK_INT(nrtsim_execute(b, 3, true), NRT_EXEC_COMPLETED_WITH_ERR);
	CHECK(nprof_inspect_salvage_dir(salv, sizeof(salv)) > 0);
	CHECK_INT(ntff_check(salv, "b_vnc_1.ntff", &info), 24 * 3);
	CHECK_INT(nrt_unload(a), NRT_SUCCESS);
	CHECK_INT(nrt_unload(b), NRT_SUCCESS);
	nrt_close();
	CHECK(!path_exists("tmp"));
	CHECK(nprof_output_instance_id(NULL, inst, sizeof(inst)) > 0);
	snprintf(parent, sizeof(parent), "out/%s-%ld", inst, (long)getpid());
	CHECK(dir_first(parent, leaf, sizeof(leaf)));
	snprintf(dir, sizeof(dir), "%s/%s", parent, leaf);
	CHECK_INT(ntff_check(dir, "a_vnc_0.ntff", &info), 24 * 2);
	CHECK(file_exists(dir, "ntrace.pb"));
	CHECK(file_exists(dir, "trace_info.pb"));
	CHECK(!file_exists(dir, "b_vnc_1.ntff"));
	unsetenv("NEURON_RT_INSPECT_ENABLE");
	unsetenv("NEURON_RT_INSPECT_OUTPUT_DIR");
	unsetenv("NEURON_RT_INSPECT_DEVICE_PROFILE");
	unsetenv("NEURON_RT_INSPECT_ON_FAIL");
	fakex_teardown(&x);
	scratch_leave(&s);
}

/* Messages through this API name the nrt_* functions the caller used. */
TEST(messages_name_nrt_functions)
{
	nrt_profile_continuous_options_t *co = NULL;
	char out[256];

	setenv("NEURON_RT_LOG_LEVEL", "OFF", 1);
	CHECK_INT(nrt_profile_continuous_options_allocate(&co), NRT_SUCCESS);
	CHECK_INT(nrt_profile_continuous_save(0, co), NRT_INVALID);
	CHECK_STR(nrtsim_last_error(),
		  "To use nrt_profile_continuous_save() you must first call nrt_profile_continuous_start()");
	CHECK_INT(nrt_profile_continuous_options_free(co), NRT_SUCCESS);
	CHECK_INT(nrt_inspect_begin_with_options(NULL), NRT_INVALID);
	CHECK_STR(nrtsim_last_error(), "nrt_inspect_begin_with_options() called with null options");
	/* Only names with an nrt_* counterpart change; the rest is copied as is. */
	nrtprof_nrt_names("nprof_device_open() and nprof_profile_stop() and nprof_profile_stop",
			  out, sizeof(out));
	CHECK_STR(out, "nprof_device_open() and nrt_profile_stop() and nprof_profile_stop");
	nrtprof_nrt_names("stop it (nprof_profile_continuous_stop())", out, 20);
	CHECK_STR(out, "stop it (nprof_prof");
	unsetenv("NEURON_RT_LOG_LEVEL");
}

/* The EVENT ring size each subscription asked for (0: none yet). */
static uint64_t event_ring_size;

static int spy_subscribe(struct nprof_device *dev, struct nprof_nq *nq)
{
	if (nq->params.queue_type == NEURONPROF_QT_EVENT)
		event_ring_size = nq->params.ring_size;
	return fake_subscribe(dev, nq);
}

static const struct nprof_device_ops spy_ops = {
	.subscribe = spy_subscribe,
	.drain = fake_drain,
	.unsubscribe = fake_unsubscribe,
	.sim_exec = fake_sim_exec,
};

/*
 * A session begun with options sizes its rings from
 * NEURON_RT_PROFILE_BUF_<TYPE>_MB, as the runtime does; without the
 * variable the default (64 MiB for EVENT) stays.
 */
TEST(begin_with_options_honours_the_ring_size_environment)
{
	struct nprof_device_info info = fake_trn2_info();
	struct nprof_device *dev;
	nrt_inspect_config_t *cfg = NULL;
	struct fake_dev *fd;
	nrt_model_t *m = NULL;
	struct scratch s;

	CHECK(!scratch_enter(&s));
	info.caps |= NPROF_DEVICE_CAP_SIM_EXEC;
	fd = fake_dev_new();
	dev = nprof_device_create(&info, &spy_ops, fd);
	CHECK(fd && dev);
	CHECK_INT(nprof_rt_set_test_devices(&dev, 1), 0);
	CHECK_INT(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "1", "1"), NRT_SUCCESS);
	CHECK_INT(nrt_inspect_config_allocate(&cfg), NRT_SUCCESS);
	CHECK_INT(nrt_inspect_config_set_output_dir(cfg, "out"), NRT_SUCCESS);
	CHECK_INT(nrt_inspect_config_set_enable_inspect(cfg, true), NRT_SUCCESS);
	CHECK_INT(nrtsim_load("m", 1, 0, &m), NRT_SUCCESS);

	setenv("NEURON_RT_PROFILE_BUF_EVENT_MB", "2", 1);
	CHECK_INT(nrt_inspect_begin_with_options(cfg), NRT_SUCCESS);
	CHECK_INT(nrtsim_execute(m, 1, false), NRT_SUCCESS);
	CHECK_INT(event_ring_size, 2ULL << 20);
	CHECK_INT(nrt_inspect_stop(), NRT_SUCCESS);

	unsetenv("NEURON_RT_PROFILE_BUF_EVENT_MB");
	event_ring_size = 0;
	CHECK_INT(nrt_inspect_begin_with_options(cfg), NRT_SUCCESS);
	CHECK_INT(nrtsim_execute(m, 1, false), NRT_SUCCESS);
	CHECK_INT(event_ring_size, 64ULL << 20);
	CHECK_INT(nrt_inspect_stop(), NRT_SUCCESS);

	/* A bad value fails the begin, as it fails nrt_inspect_begin(). */
	setenv("NEURON_RT_LOG_LEVEL", "OFF", 1);
	setenv("NEURON_RT_PROFILE_BUF_EVENT_MB", "lots", 1);
	CHECK_INT(nrt_inspect_begin_with_options(cfg), NRT_INVALID);
	CHECK_CONTAINS(nrtsim_last_error(), "NEURON_RT_PROFILE_BUF_EVENT_MB");
	unsetenv("NEURON_RT_PROFILE_BUF_EVENT_MB");
	unsetenv("NEURON_RT_LOG_LEVEL");

	CHECK_INT(nrt_unload(m), NRT_SUCCESS);
	nrt_close();
	CHECK_INT(nrt_inspect_config_free(cfg), NRT_SUCCESS);
	nprof_rt_set_test_devices(NULL, 0);
	nprof_device_close(dev);
	fake_dev_free(fd);
	scratch_leave(&s);
}

HARNESS_MAIN

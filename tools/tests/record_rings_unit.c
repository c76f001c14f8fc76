// SPDX-License-Identifier: MIT
/*
 * Unit tests of record -- CMD's ring memory check (neuronprof/record_rings.c),
 * run by tests/run.sh:
 *   record_rings_unit
 * On described devices (no device is opened) and given limits: the rings a
 * command's runtime would ask for, from the inspect variables it gets
 * (NEURON_RT_PROFILE_BUF_<TYPE>_MB, the library's defaults, --cores as
 * NEURON_RT_INSPECT_EVENT_FILTER_NC in the library's numbering over the
 * devices), are added up as the library subscribes them; a total above a
 * limit is refused naming the total and the limit, at the limit it
 * passes; a --ring-size above the device's max_ring_size is refused, a
 * default or variable above it is shrunk as the library does; without a device
 * profile nothing is asked for. The expected totals are computed here from
 * the device descriptions, not by the code under test.
 * Prints "ok N - name" or "not ok N - name" and exits 1 if anything failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/config.h>
#include <neuronprof/device.h>

#include "record.h"
#include "util/ringmem.h"
#include "../../lib/tests/harness.h"

#define MiB	(1ULL << 20)

/* A device of 8 cores: 4 engines with a TRACE queue each, an ERROR queue per core. */
static struct nprof_device_info dev(uint32_t index)
{
	struct nprof_device_info i;

	memset(&i, 0, sizeof(i));
	i.size = sizeof(i);
	i.device_index = index;
	i.num_cores = 8;
	i.engines_per_core = 4;
	i.core_queue_types = 1u << NEURONPROF_QT_TRACE | 1u << NEURONPROF_QT_ERROR;
	i.per_engine_queue_types = 1u << NEURONPROF_QT_TRACE;
	i.min_ring_size = 4096;
	i.max_ring_size = 64 * MiB;
	return i;
}

/* Bytes of @cores cores of dev(): 4 TRACE rings of @trace bytes, 1 ERROR of @error, 2 pages each. */
static uint64_t expect(uint64_t cores, uint64_t trace, uint64_t error)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	return cores * (4 * (trace + 2 * page) + error + 2 * page);
}

static struct ring_limits no_limits(void)
{
	struct ring_limits l = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX };

	return l;
}

/*
 * The check on @ndev devices with the variables @env (NULL-terminated) and
 * @lim: its return; @why gets the reason.
 */
static int check(char *const env[], uint64_t asked, size_t ndev, const struct ring_limits *lim,
		 char *why, size_t len)
{
	struct nprof_device_info infos[2] = { dev(0), dev(1) };
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();
	int r;

	why[0] = '\0';
	if (!cfg || nprof_inspect_config_parse_envp(cfg, env)) {
		harness_diag("cannot parse the variables: %s", nprof_strerror_last());
		nprof_inspect_config_free(cfg);
		return -2;
	}
	r = record_command_rings(cfg, asked, infos, ndev, lim, why, len);
	nprof_inspect_config_free(cfg);
	return r;
}

/* The total in the refusal as ring_bytes_str() writes it. */
static bool names(const char *why, uint64_t bytes)
{
	char s[32];

	return strstr(why, ring_bytes_str(bytes, s, sizeof(s))) != NULL;
}

int main(void)
{
	char *two_cores[] = { "NEURON_RT_INSPECT_ENABLE=1", "NEURON_RT_INSPECT_DEVICE_PROFILE=session",
			      "NEURON_RT_INSPECT_EVENT_FILTER_NC=0-1",
			      "NEURON_RT_PROFILE_BUF_TRACE_MB=8", NULL };
	char *defaults[] = { "NEURON_RT_INSPECT_ENABLE=1", "NEURON_RT_INSPECT_DEVICE_PROFILE=session",
			     "NEURON_RT_INSPECT_EVENT_FILTER_NC=3", NULL };
	/* record --ring-size 128M: its variables for every queue type (one shown). */
	char *too_big[] = { "NEURON_RT_INSPECT_ENABLE=1", "NEURON_RT_INSPECT_DEVICE_PROFILE=session",
			    "NEURON_RT_INSPECT_EVENT_FILTER_NC=3", "NEURON_RT_PROFILE_BUF_TRACE_MB=128",
			    NULL };
	char *env_big[] = { "NEURON_RT_INSPECT_ENABLE=1", "NEURON_RT_INSPECT_DEVICE_PROFILE=session",
			    "NEURON_RT_INSPECT_EVENT_FILTER_NC=3", "NEURON_RT_PROFILE_BUF_TRACE_MB=256",
			    NULL };
	char *second[] = { "NEURON_RT_INSPECT_ENABLE=1", "NEURON_RT_INSPECT_DEVICE_PROFILE=session",
			   "NEURON_RT_INSPECT_EVENT_FILTER_NC=7-9", "NEURON_RT_PROFILE_BUF_TRACE_MB=2",
			   "NEURON_RT_PROFILE_BUF_ERROR_MB=1", NULL };
	char *no_profile[] = { "NEURON_RT_INSPECT_ENABLE=1", "NEURON_RT_INSPECT_DEVICE_PROFILE=0",
			       NULL };
	uint64_t total = expect(2, 8 * MiB, nprof_ring_size_default(NEURONPROF_QT_ERROR));
	struct ring_limits lim = no_limits();
	char why[512];
	int r;

	/* 2 cores of 4 TRACE rings of 8 MiB and an ERROR ring of the default size. */
	lim.avail = total;
	r = check(two_cores, 0, 1, &lim, why, sizeof(why));
	harness_result(r == 0, "2 cores of 8 MiB TRACE rings fit available memory of exactly their total");
	lim.avail = total - 1;
	r = check(two_cores, 0, 1, &lim, why, sizeof(why));
	harness_result(r == -1 && names(why, total) && strstr(why, "10 rings") &&
		       strstr(why, "available memory"),
		       "... one byte less is refused, naming the 10 rings and their total");
	harness_diag("%s", why);
	lim = no_limits();
	lim.memlock = total - 1;
	r = check(two_cores, 0, 1, &lim, why, sizeof(why));
	harness_result(r == -1 && names(why, total) && names(why, total - 1) &&
		       strstr(why, "RLIMIT_MEMLOCK"),
		       "... and so is a memlock limit below it, naming the limit");
	lim = no_limits();
	lim.cgroup = total / 2;
	r = check(two_cores, 0, 1, &lim, why, sizeof(why));
	harness_result(r == -1 && names(why, total) && strstr(why, "memory cgroup"),
		       "... and a memory cgroup with less room");

	/* The runtime's 128 MiB TRACE default is what the library shrinks to 64 MiB. */
	lim = no_limits();
	total = expect(1, 64 * MiB, nprof_ring_size_default(NEURONPROF_QT_ERROR));
	lim.avail = total;
	r = check(defaults, 0, 1, &lim, why, sizeof(why));
	harness_result(r == 0 && nprof_ring_size_default(NEURONPROF_QT_TRACE) > 64 * MiB,
		       "defaults: a TRACE default above the device's maximum counts as the maximum");
	lim.avail = total - 1;
	r = check(defaults, 0, 1, &lim, why, sizeof(why));
	harness_result(r == -1 && names(why, total), "... and the total of the defaults is checked");
	lim = no_limits();
	r = check(too_big, 128 * MiB, 1, &lim, why, sizeof(why));
	harness_result(r == -1 && strstr(why, "larger than the device takes") &&
		       strstr(why, "max_ring_size 64 MiB"),
		       "--ring-size 128M on a 64 MiB device is refused");
	harness_diag("%s", why);
	lim.avail = total;
	r = check(env_big, 0, 1, &lim, why, sizeof(why));
	harness_result(r == 0, "NEURON_RT_PROFILE_BUF_TRACE_MB=256 from the environment counts as "
		       "the 64 MiB the library shrinks it to");
	lim.avail = total - 1;
	r = check(env_big, 0, 1, &lim, why, sizeof(why));
	harness_result(r == -1 && names(why, total), "... and is refused one byte above the limit");
	lim = no_limits();

	/* Cores 7-9: core 7 of device 0, cores 0 and 1 of device 1. */
	total = expect(3, 2 * MiB, 1 * MiB);
	lim.avail = total;
	r = check(second, 0, 2, &lim, why, sizeof(why));
	harness_result(r == 0, "cores 7-9 over two devices: 3 cores");
	lim.avail = total - 1;
	r = check(second, 0, 2, &lim, why, sizeof(why));
	harness_result(r == -1 && names(why, total) && strstr(why, "15 rings"),
		       "... their 15 rings are refused one byte above the limit");
	lim.avail = expect(1, 2 * MiB, 1 * MiB);
	r = check(second, 0, 1, &lim, why, sizeof(why));
	harness_result(r == 0, "with device 1 absent, only core 7 counts");

	/* No device profile: nothing subscribed, nothing refused. */
	lim.avail = lim.memlock = lim.cgroup = 1;
	r = check(no_profile, 0, 2, &lim, why, sizeof(why));
	harness_result(r == 0, "NEURON_RT_INSPECT_DEVICE_PROFILE=0 asks for no ring");
	return harness_done();
}

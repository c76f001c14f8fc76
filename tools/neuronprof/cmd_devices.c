// SPDX-License-Identifier: MIT
/*
 * neuronprof devices: every neuronprof device the library finds through
 * libdrm, with what its GET_INFO reply says it offers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/device.h>

#include "util/json.h"
#include "util/options.h"
#include "tool.h"


struct dev_entry {
	struct nprof_device_node node;
	struct nprof_device_info info;
	char driver_version[64];
	char driver_date[32];
	bool have_info;
	char error[256];
};

static void queue_types(FILE *f, uint32_t mask)
{
	bool first = true;

	for (uint32_t t = 0; t < 32; t++) {
		if (!(mask & (1u << t)))
			continue;
		fprintf(f, "%s%s", first ? "" : " ", queue_name(t));
		first = false;
	}
	if (first)
		fputs("none", f);
}

static void queue_types_json(struct json *j, const char *key, uint32_t mask)
{
	jw_arr_begin(j, key);
	for (uint32_t t = 0; t < 32; t++)
		if (mask & (1u << t))
			jw_str(j, NULL, queue_name(t));
	jw_arr_end(j);
}

static void query(struct dev_entry *d)
{
	struct nprof_device *dev = nprof_device_open_path(d->node.path);
	drmVersionPtr v;

	if (!dev) {
		snprintf(d->error, sizeof(d->error), "%s", nprof_strerror_last());
		return;
	}
	d->info.size = sizeof(d->info);
	if (nprof_device_get_info(dev, &d->info)) {
		snprintf(d->error, sizeof(d->error), "%s", nprof_strerror_last());
		nprof_device_close(dev);
		return;
	}
	d->have_info = true;
	v = drmGetVersion(nprof_device_fd(dev));
	if (v) {
		snprintf(d->driver_version, sizeof(d->driver_version), "%d.%d.%d",
			 v->version_major, v->version_minor, v->version_patchlevel);
		snprintf(d->driver_date, sizeof(d->driver_date), "%.*s", v->date_len,
			 v->date ? v->date : "");
		drmFreeVersion(v);
	} else {
		snprintf(d->driver_version, sizeof(d->driver_version), "unknown");
	}
	nprof_device_close(dev);
}

static void print_text(const struct dev_entry *d, size_t n)
{
	if (!n) {
		printf("no neuronprof device found (run 'neuronprof doctor' to see why)\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct nprof_device_info *in = &d[i].info;

		printf("%s: device %u, %s, provider %s\n", d[i].node.path, d[i].node.device_index,
		       arch_name(d[i].node.arch), d[i].node.provider);
		if (!d[i].have_info) {
			printf("  cannot query: %s\n", d[i].error);
			continue;
		}
		printf("  driver neuronprof %s (%s), uapi %u\n", d[i].driver_version,
		       d[i].driver_date, in->uapi_version);
		printf("  %u NeuronCores, %u TopSPs, %u engines per core:", in->num_cores,
		       in->num_topsps, in->engines_per_core);
		for (uint32_t e = 0; e < in->engines_per_core; e++) {
			const char *en = engine_name(e);

			if (en)
				printf(" %s", en);
			else
				printf(" engine%u", e);
		}
		printf("\n  NeuronCore queues: ");
		queue_types(stdout, in->core_queue_types);
		printf("\n  TopSP queues: ");
		queue_types(stdout, in->topsp_queue_types);
		printf("\n  one queue per engine: ");
		queue_types(stdout, in->per_engine_queue_types);
		printf("\n  entry size %u bytes, ring size %" PRIu64 " to %" PRIu64 " bytes\n",
		       in->entry_size, in->min_ring_size, in->max_ring_size);
		printf("  clock %s, capabilities:%s%s%s\n", clock_name(in->clock_id),
		       in->caps & NPROF_DEVICE_CAP_SIM_EXEC ? " SIM_EXEC" : "",
		       in->caps & NPROF_DEVICE_CAP_FLUSH ? " FLUSH" : "",
		       in->caps ? "" : " none");
	}
}

static void print_json(const struct dev_entry *d, size_t n)
{
	struct json j;

	jw_init(&j, stdout, true);
	jw_obj_begin(&j, NULL);
	jw_arr_begin(&j, "devices");
	for (size_t i = 0; i < n; i++) {
		const struct nprof_device_info *in = &d[i].info;

		jw_obj_begin(&j, NULL);
		jw_str(&j, "node", d[i].node.path);
		jw_u64(&j, "device_index", d[i].node.device_index);
		jw_str(&j, "arch", arch_name(d[i].node.arch));
		jw_str(&j, "provider", d[i].node.provider);
		if (!d[i].have_info) {
			jw_str(&j, "error", d[i].error);
			jw_obj_end(&j);
			continue;
		}
		jw_str(&j, "driver_version", d[i].driver_version);
		jw_str(&j, "driver_date", d[i].driver_date);
		jw_u64(&j, "uapi_version", in->uapi_version);
		jw_u64(&j, "num_cores", in->num_cores);
		jw_u64(&j, "num_topsps", in->num_topsps);
		jw_u64(&j, "engines_per_core", in->engines_per_core);
		jw_arr_begin(&j, "engines");
		for (uint32_t e = 0; e < in->engines_per_core; e++)
			jw_str(&j, NULL, engine_name(e));
		jw_arr_end(&j);
		queue_types_json(&j, "core_queue_types", in->core_queue_types);
		queue_types_json(&j, "topsp_queue_types", in->topsp_queue_types);
		queue_types_json(&j, "per_engine_queue_types", in->per_engine_queue_types);
		jw_u64(&j, "entry_size", in->entry_size);
		jw_u64(&j, "min_ring_size", in->min_ring_size);
		jw_u64(&j, "max_ring_size", in->max_ring_size);
		jw_u64(&j, "clock_id", in->clock_id);
		jw_str(&j, "clock", clock_name(in->clock_id));
		jw_arr_begin(&j, "caps");
		if (in->caps & NPROF_DEVICE_CAP_SIM_EXEC)
			jw_str(&j, NULL, "SIM_EXEC");
		if (in->caps & NPROF_DEVICE_CAP_FLUSH)
			jw_str(&j, NULL, "FLUSH");
		jw_arr_end(&j);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_finish(&j);
}

int cmd_devices(int argc, char **argv)
{
	struct dev_entry *d = NULL;
	bool json = false;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "machine-readable output"),
		OPT_END(),
	};
	int n, rc;

	if (opts_parse(argc, argv, opts, NULL, &rc))
		return rc;
	if (check_operands(argc, argv, 0, NULL))
		return EXIT_USAGE;

	n = nprof_device_list(NULL, 0);
	if (n < 0)
		return fail("cannot enumerate DRM devices: %s", nprof_strerror_last());
	if (n) {
		struct nprof_device_node *nodes = calloc((size_t)n, sizeof(*nodes));
		int got;

		d = calloc((size_t)n, sizeof(*d));
		if (!nodes || !d) {
			free(nodes);
			free(d);
			return fail("out of memory");
		}
		for (int i = 0; i < n; i++)
			nodes[i].size = sizeof(nodes[i]);
		got = nprof_device_list(nodes, (size_t)n);
		if (got < 0) {
			free(nodes);
			free(d);
			return fail("cannot enumerate DRM devices: %s", nprof_strerror_last());
		}
		/* A device may have come or gone between the two calls. */
		n = got < n ? got : n;
		for (int i = 0; i < n; i++) {
			d[i].node = nodes[i];
			query(&d[i]);
		}
		free(nodes);
	}
	if (json)
		print_json(d, (size_t)n);
	else
		print_text(d, (size_t)n);
	free(d);
	return flush_stdout();
}

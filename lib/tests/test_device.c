// SPDX-License-Identifier: MIT
/*
 * Host tests of the device layer that need no kernel: the ring consumer's
 * span arithmetic against a ring laid out in memory as a subscription maps
 * it, the queue plan of a session, the choice of the "no device" message
 * from the module state (injected through the hooks seam), and the
 * system-trace events of devices and queues.
 */
#include <fcntl.h>
#include <limits.h>

#include <neuronprof/device.h>

#include "capture/capture_internal.h"
#include "fake_device.h"
#include "harness.h"
#include "trace_util.h"

#define ES	64u

/* A 4-page ring (256 entries) whose queue has no device behind it. */
static struct fake_queue *ring_fixture(struct fake_dev *fd, uint64_t size)
{
	struct fake_queue *q = &fd->q[0];

	q->kind = NPROF_TARGET_CORE;
	q->type = NEURONPROF_QT_TRACE;
	if (fake_ring_alloc(q, size, ES))
		return NULL;
	q->used = true;
	return q;
}

static struct nprof_ring *attach(struct fake_queue *q)
{
	return nprof_ring_attach(q->hdr, (size_t)fake_page(), q->cons, (size_t)fake_page(), q->data,
				 (size_t)q->data_size);
}

/* A 64-entry ring on a fake queue and its consumer: the ring tests' fixture. */
struct ring_fx {
	struct fake_dev *fd;
	struct fake_queue *q;
	struct nprof_ring *r;
	struct nprof_ring_spans sp;
};

static void ring_open(struct ring_fx *f)
{
	f->fd = fake_dev_new();
	f->q = f->fd ? ring_fixture(f->fd, 4096) : NULL;
	f->r = f->q ? attach(f->q) : NULL;
	CHECK(f->r);
}

static void ring_close(struct ring_fx *f)
{
	nprof_ring_detach(f->r);
	fake_dev_free(f->fd);
}

/* @n entries produced, peeked and released: the consumer stands after them. */
static void ring_consume(struct ring_fx *f, uint64_t n)
{
	CHECK_INT(fake_produce(f->fd, f->q, n, 1), n);
	CHECK_INT(nprof_ring_peek(f->r, &f->sp), n);
	CHECK_INT(nprof_ring_release(f->r, f->sp.end), 0);
}

static uint64_t seq_at(const void *p)
{
	const struct neuronprof_notification *n = p;

	return n->seq;
}

TEST(ring_empty_peek)
{
	struct ring_fx f;

	ring_open(&f);
	CHECK_INT(nprof_ring_peek(f.r, &f.sp), 0);
	CHECK_INT(f.sp.len[0], 0);
	CHECK_INT(f.sp.len[1], 0);
	CHECK(f.sp.ptr[0] == NULL && f.sp.ptr[1] == NULL);
	CHECK_INT(f.sp.begin, 0);
	CHECK_INT(f.sp.end, 0);
	ring_close(&f);
}

TEST(ring_peek_without_wrap_then_release)
{
	struct ring_fx f;
	struct nprof_ring_state st = { .size = sizeof(st) };

	ring_open(&f);
	CHECK_INT(fake_produce(f.fd, f.q, 10, 1), 10);
	CHECK_INT(nprof_ring_peek(f.r, &f.sp), 10);
	CHECK(f.sp.ptr[0] == f.q->data);
	CHECK_INT(f.sp.len[0], 10 * ES);
	CHECK(f.sp.ptr[1] == NULL);
	CHECK_INT(f.sp.len[1], 0);
	CHECK_INT(seq_at(f.sp.ptr[0]), 0);
	CHECK_INT(seq_at((const char *)f.sp.ptr[0] + 9 * ES), 9);
	CHECK_INT(nprof_ring_release(f.r, f.sp.end), 0);
	CHECK_INT(f.q->cons->consumer_pos, 10 * ES);
	CHECK_INT(nprof_ring_peek(f.r, &f.sp), 0);
	CHECK_INT(nprof_ring_get_state(f.r, &st), 0);
	CHECK_INT(st.producer_pos, 10 * ES);
	CHECK_INT(st.consumer_pos, 10 * ES);
	CHECK_INT(st.ring_size, 4096);
	CHECK_INT(st.entry_size, ES);
	CHECK_INT(st.queue_type, NEURONPROF_QT_TRACE);
	ring_close(&f);
}

TEST(ring_peek_with_wrap_gives_two_spans_in_order)
{
	struct ring_fx f;
	const char *p;
	uint64_t i, want = 50;

	ring_open(&f);
	ring_consume(&f, 50);
	/* 30 more: 14 fit before the end of the data area, 16 wrap. */
	CHECK_INT(fake_produce(f.fd, f.q, 30, 1), 30);
	CHECK_INT(nprof_ring_peek(f.r, &f.sp), 30);
	CHECK(f.sp.ptr[0] == f.q->data + 50 * ES);
	CHECK_INT(f.sp.len[0], 14 * ES);
	CHECK(f.sp.ptr[1] == f.q->data);
	CHECK_INT(f.sp.len[1], 16 * ES);
	CHECK_INT(f.sp.begin, 50 * ES);
	CHECK_INT(f.sp.end, 80 * ES);
	for (p = f.sp.ptr[0], i = 0; i < 14; i++, p += ES)
		CHECK_INT(seq_at(p), want++);
	for (p = f.sp.ptr[1], i = 0; i < 16; i++, p += ES)
		CHECK_INT(seq_at(p), want++);
	ring_close(&f);
}

TEST(ring_peek_ending_exactly_at_the_end_has_one_span)
{
	struct ring_fx f;

	ring_open(&f);
	ring_consume(&f, 40);
	CHECK_INT(fake_produce(f.fd, f.q, 24, 1), 24);	/* 40..63: up to the end */
	CHECK_INT(nprof_ring_peek(f.r, &f.sp), 24);
	CHECK_INT(f.sp.len[0], 24 * ES);
	CHECK(f.sp.ptr[1] == NULL);
	CHECK_INT(f.sp.len[1], 0);
	nprof_ring_release(f.r, f.sp.end);
	CHECK_INT(fake_produce(f.fd, f.q, 1, 1), 1);	/* starts at offset 0 again */
	CHECK_INT(nprof_ring_peek(f.r, &f.sp), 1);
	CHECK(f.sp.ptr[0] == f.q->data);
	ring_close(&f);
}

TEST(ring_full_ring_and_loss)
{
	struct ring_fx f;
	struct nprof_ring_state st = { .size = sizeof(st) };

	ring_open(&f);
	ring_consume(&f, 10);
	/* 70 more into 64 slots: 64 delivered, 6 lost, wrapping at 54. */
	CHECK_INT(fake_produce(f.fd, f.q, 70, 1), 64);
	CHECK_INT(nprof_ring_peek(f.r, &f.sp), 64);
	CHECK_INT(f.sp.len[0], 54 * ES);
	CHECK_INT(f.sp.len[1], 10 * ES);
	CHECK_INT(seq_at(f.sp.ptr[0]), 10);
	CHECK_INT(seq_at((const char *)f.sp.ptr[1] + 9 * ES), 73);
	CHECK_INT(nprof_ring_get_state(f.r, &st), 0);
	CHECK_INT(st.lost, 6);
	CHECK(st.flags & NPROF_RING_OVERFLOWED);
	ring_close(&f);
}

TEST(ring_positions_wrapping_2_64)
{
	struct fake_dev *fd = fake_dev_new();
	struct fake_queue *q = ring_fixture(fd, 4096);
	struct nprof_ring_spans sp;
	struct nprof_ring *r;
	uint64_t start = UINT64_MAX - 10 * ES + 1;	/* 10 entries before 2^64 */

	/* Free-running counters near 2^64: distances must still be right. */
	q->prod = start;
	q->hdr->producer_pos = start;
	q->cons->consumer_pos = start;
	r = attach(q);
	CHECK_INT(fake_produce(fd, q, 20, 1), 20);
	CHECK_INT(nprof_ring_peek(r, &sp), 20);
	CHECK(sp.begin == start);
	CHECK(sp.end == start + 20 * ES);
	CHECK_INT(sp.len[0] + sp.len[1], 20 * ES);
	CHECK(sp.ptr[0] == q->data + (start & 4095));
	CHECK_INT(nprof_ring_window(r, start + 5 * ES, start + 15 * ES, &sp), 10);
	CHECK_INT(nprof_ring_release(r, start + 20 * ES), 0);
	CHECK_INT(q->cons->consumer_pos, start + 20 * ES);
	nprof_ring_detach(r);
	fake_dev_free(fd);
}

TEST(ring_window_and_release_are_validated)
{
	struct ring_fx f;

	ring_open(&f);
	fake_produce(f.fd, f.q, 20, 1);
	CHECK_INT(nprof_ring_window(f.r, 5 * ES, 12 * ES, &f.sp), 7);
	CHECK(f.sp.ptr[0] == f.q->data + 5 * ES);
	CHECK_INT(nprof_ring_window(f.r, 0, 0, &f.sp), 0);
	CHECK_INT(nprof_ring_window(f.r, 20 * ES, 20 * ES, &f.sp), 0);
	CHECK_ERR_MSG(nprof_ring_window(f.r, 5 * ES, 21 * ES, &f.sp), EINVAL,
		      "ring window [320, 1344) is outside the unreleased range [0, 1280)");
	CHECK_ERR_MSG(nprof_ring_window(f.r, 12 * ES, 5 * ES, &f.sp), EINVAL,
		      "ring window [768, 320) is outside the unreleased range [0, 1280)");
	CHECK_ERR_MSG(nprof_ring_window(f.r, 1, 2 * ES, &f.sp), EINVAL,
		      "ring window [1, 128) is not a whole number of 64-byte entries");
	CHECK_INT(nprof_ring_release(f.r, 8 * ES), 0);
	CHECK_ERR_MSG(nprof_ring_window(f.r, 4 * ES, 10 * ES, &f.sp), EINVAL,
		      "ring window [256, 640) is outside the unreleased range [512, 1280)");
	CHECK_ERR_MSG(nprof_ring_release(f.r, 4 * ES), EINVAL,
		      "cannot release ring to position 256: not a whole entry in [consumer 512, producer 1280]");
	CHECK_ERR_MSG(nprof_ring_release(f.r, 21 * ES), EINVAL,
		      "cannot release ring to position 1344: not a whole entry in [consumer 512, producer 1280]");
	CHECK_INT(nprof_ring_release(f.r, 20 * ES), 0);
	CHECK_INT(nprof_ring_peek(NULL, &f.sp), -EINVAL);
	CHECK_INT(nprof_ring_peek(f.r, NULL), -EINVAL);
	ring_close(&f);
}

TEST(ring_corrupt_positions_are_reported)
{
	struct ring_fx f;

	ring_open(&f);
	/* More unread than the ring holds. */
	f.q->hdr->producer_pos = 65 * ES;
	CHECK_ERR_MSG(nprof_ring_peek(f.r, &f.sp), EIO,
		      "ring of queue type 0 target 0/0 engine 0: consumer position 0 and producer position 4160 are inconsistent (ring size 4096, entry size 64)");
	/* Producer behind the consumer. */
	f.q->hdr->producer_pos = 0;
	f.q->cons->consumer_pos = ES;
	CHECK_INT(nprof_ring_peek(f.r, &f.sp), -EIO);
	/* Not a whole entry. */
	f.q->cons->consumer_pos = 0;
	f.q->hdr->producer_pos = 10;
	CHECK_INT(nprof_ring_peek(f.r, &f.sp), -EIO);
	CHECK_INT(nprof_ring_window(f.r, 0, 0, &f.sp), -EIO);
	CHECK_INT(nprof_ring_release(f.r, 0), -EIO);
	ring_close(&f);
}

TEST(ring_attach_refuses_bad_layouts)
{
	struct fake_dev *fd = fake_dev_new();
	struct fake_queue *q = ring_fixture(fd, 4096);
	size_t page = (size_t)fake_page();

	CHECK(!nprof_ring_attach(NULL, page, q->cons, page, q->data, 4096));
	CHECK_INT(errno, EINVAL);
	CHECK(!nprof_ring_attach(q->hdr, 16, q->cons, page, q->data, 4096));
	CHECK(!nprof_ring_attach(q->hdr, page, q->cons, page, q->data, 8192));
	CHECK_CONTAINS(nprof_strerror_last(), "ring header says 4096 data bytes, the data region has 8192");
	q->hdr->version = 0;
	CHECK(!nprof_ring_attach(q->hdr, page, q->cons, page, q->data, 4096));
	CHECK_STR(nprof_strerror_last(), "ring header version 0 is not supported (need 1 or later)");
	q->hdr->version = 1;
	q->hdr->entry_size = 48;
	CHECK(!nprof_ring_attach(q->hdr, page, q->cons, page, q->data, 4096));
	CHECK_STR(nprof_strerror_last(), "ring entry size 48 is not a power of two of at least 16 bytes");
	q->hdr->entry_size = 64;
	q->hdr->ring_size = 3000;
	CHECK(!nprof_ring_attach(q->hdr, page, q->cons, page, q->data, 3000));
	CHECK_STR(nprof_strerror_last(), "ring size 3000 is not a power of two of at least one entry");
	fake_dev_free(fd);
}

/* ---- queue plan -------------------------------------------------------------- */

static char logged[4096];

static void log_capture(enum nprof_log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
	strcat(logged, "\n");
}

TEST(plan_trn2_core_and_its_topsps)
{
	struct nprof_device_info info = fake_trn2_info();
	struct nprof_capture_qid ids[64];
	size_t n, i, per_type[NEURONPROF_QT_COUNT] = { 0 };

	n = nprof_capture_plan(&info, 3, ids, 64);
	/* 3 per-engine types x 5 engines + 3 core types + 2 TopSPs x 3 types. */
	CHECK_INT(n, 24);
	for (i = 0; i < n && i < 64; i++) {
		per_type[ids[i].queue_type]++;
		if (ids[i].target_kind == NPROF_TARGET_CORE) {
			CHECK_INT(ids[i].target_index, 3);
		} else {
			CHECK(ids[i].target_index == 6 || ids[i].target_index == 7);
			CHECK_INT(ids[i].engine, 0);
		}
	}
	CHECK_INT(per_type[NEURONPROF_QT_TRACE], 5);
	CHECK_INT(per_type[NEURONPROF_QT_EVENT], 5);
	CHECK_INT(per_type[NEURONPROF_QT_DMA], 5);
	CHECK_INT(per_type[NEURONPROF_QT_ERROR], 1);
	CHECK_INT(per_type[NEURONPROF_QT_TOPSP_TRACE], 2);
	CHECK_INT(ids[0].queue_type, NEURONPROF_QT_TRACE);
	CHECK_INT(ids[4].engine, 4);
	CHECK_INT(nprof_capture_plan(&info, 3, NULL, 0), 24);
}

TEST(plan_trn1_topsps_serve_three_per_core)
{
	struct nprof_device_info info = fake_trn2_info();
	struct nprof_capture_qid ids[64];
	size_t n, i, topsps = 0;

	info.num_cores = 2;
	info.num_topsps = 6;
	info.engines_per_core = 4;
	n = nprof_capture_plan(&info, 1, ids, 64);
	CHECK_INT(n, 3 * 4 + 3 + 3 * 3);
	for (i = 0; i < n; i++)
		if (ids[i].target_kind == NPROF_TARGET_TOPSP) {
			CHECK(ids[i].target_index >= 3 && ids[i].target_index <= 5);
			topsps++;
		}
	CHECK_INT(topsps, 9);
}

TEST(plan_drops_unknown_queue_types_with_a_debug_message)
{
	struct nprof_device_info info = fake_trn2_info();
	struct nprof_capture_qid ids[64];
	size_t n, i;

	info.core_queue_types |= 1u << 12;
	info.topsp_queue_types |= 1u << 30;
	logged[0] = '\0';
	nprof_log_set_handler(log_capture, NULL, NPROF_LOG_DEBUG);
	n = nprof_capture_plan(&info, 0, ids, 64);
	nprof_log_set_handler(NULL, NULL, NPROF_LOG_WARN);
	CHECK_INT(n, 24);
	for (i = 0; i < n; i++)
		CHECK(ids[i].queue_type < NEURONPROF_QT_COUNT);
	CHECK_CONTAINS(logged, "NC 0: dropping queue type 12 of core 0: not a queue type this library knows");
	CHECK_CONTAINS(logged, "NC 0: dropping queue type 30 of TopSP 1: not a queue type this library knows");
}

/* ---- "no device": which message ------------------------------------------------ */

static struct nprof_mod_report hook_state;
static char loaded[64];
static int load_calls, list_calls;
static int load_result;
static const char *list_after_load;	/* a node to report once something was loaded */

static int hook_query(struct nprof_mod_report *r)
{
	char denied[NPROF_DEVICE_PATH_MAX];
	int err = r->denied_errno;

	memcpy(denied, r->denied_node, sizeof(denied));
	*r = hook_state;
	if (denied[0]) {
		memcpy(r->denied_node, denied, sizeof(denied));
		r->denied_errno = err;
	}
	return 0;
}

static int hook_load(const char *module)
{
	load_calls++;
	snprintf(loaded, sizeof(loaded), "%s", module);
	return load_result;
}

static int hook_list(struct nprof_device_node *nodes, size_t max, struct nprof_mod_report *r)
{
	list_calls++;
	if (hook_state.denied_node[0] && r) {
		memcpy(r->denied_node, hook_state.denied_node, sizeof(r->denied_node));
		r->denied_errno = hook_state.denied_errno;
	}
	if (load_calls && list_after_load) {
		if (max) {
			memset(&nodes[0], 0, sizeof(nodes[0]));
			nodes[0].size = sizeof(nodes[0]);
			snprintf(nodes[0].path, sizeof(nodes[0].path), "%s", list_after_load);
		}
		return 1;
	}
	return 0;
}

static void hooks_reset(enum nprof_mod_state core, enum nprof_mod_state sim)
{
	static const struct nprof_device_hooks h = { hook_query, hook_load, hook_list };

	memset(&hook_state, 0, sizeof(hook_state));
	hook_state.core = core;
	hook_state.sim = sim;
	snprintf(hook_state.release, sizeof(hook_state.release), "6.1.0-test");
	load_calls = list_calls = load_result = 0;
	loaded[0] = '\0';
	list_after_load = NULL;
	nprof_device_set_hooks(&h);
}

/* A module state and the message (with @err) it must give. */
struct missing_case {
	struct nprof_mod_report r;
	int err;
	const char *msg;
};

static void check_missing(const struct missing_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		CHECK_ERR_MSG(nprof_device_missing_error(&c[i].r), c[i].err, c[i].msg);
}

TEST(missing_message_not_installed)
{
	static const struct missing_case c[] = {
		{ { .core = NPROF_MOD_NOT_INSTALLED, .sim = NPROF_MOD_NOT_INSTALLED,
		    .release = "6.1.0-57-amd64" }, ENODEV,
		  "no neuronprof device: the kernel module neuronprof is not installed for kernel 6.1.0-57-amd64 (build and install it for the running kernel with 'make install KVER=$(uname -r)')" },
		/* Without the running kernel's headers there is nothing to build with. */
		{ { .core = NPROF_MOD_NOT_INSTALLED, .sim = NPROF_MOD_NOT_INSTALLED,
		    .release = "6.1.0-57-amd64", .no_headers = true }, ENODEV,
		  "no neuronprof device: the kernel module neuronprof is not installed for kernel 6.1.0-57-amd64, and that kernel has no headers to build it with (install linux-headers-6.1.0-57-amd64, then 'make install KVER=$(uname -r)'; or try neuronprof on simulated devices in a VM with 'make demo')" },
	};

	check_missing(c, sizeof(c) / sizeof(c[0]));
}

TEST(missing_message_installed_not_loaded)
{
	static const struct missing_case c[] = {
		{ { .core = NPROF_MOD_NOT_LOADED, .sim = NPROF_MOD_NOT_LOADED }, ENODEV,
		  "no neuronprof device: the kernel module neuronprof is installed but not loaded (load it with 'modprobe neuronprof_sim' for simulated devices, or let the library load it with NPROF_DEVICE_LOAD_SIM or NPROF_DEVICE_LOAD_MODULE)" },
	};

	check_missing(c, sizeof(c) / sizeof(c[0]));
}

/* What the message adds for each state of neuronprof_sim. */
TEST(missing_message_loaded_without_devices)
{
	static const struct missing_case c[] = {
		{ { .core = NPROF_MOD_LOADED, .sim = NPROF_MOD_LOADED }, ENODEV,
		  "no neuronprof device: the kernel module neuronprof is loaded but no device is registered; neuronprof_sim is loaded without devices: create one by writing an id to /sys/bus/platform/drivers/neuronprof_sim/new_device" },
		{ { .core = NPROF_MOD_LOADED, .sim = NPROF_MOD_NOT_LOADED }, ENODEV,
		  "no neuronprof device: the kernel module neuronprof is loaded but no device is registered; no Neuron hardware was found and neuronprof_sim is not loaded ('modprobe neuronprof_sim' adds simulated devices)" },
		{ { .core = NPROF_MOD_LOADED, .sim = NPROF_MOD_NOT_INSTALLED }, ENODEV,
		  "no neuronprof device: the kernel module neuronprof is loaded but no device is registered; no Neuron hardware was found and neuronprof_sim is not installed" },
	};

	check_missing(c, sizeof(c) / sizeof(c[0]));
}

TEST(missing_message_unknown_and_denied)
{
	static const struct missing_case c[] = {
		{ { .core = NPROF_MOD_UNKNOWN,
		    .why_unknown = "libkmod cannot look up neuronprof: Out of memory" }, ENODEV,
		  "no neuronprof device, and the state of the kernel module neuronprof is unknown: libkmod cannot look up neuronprof: Out of memory" },
		{ { .core = NPROF_MOD_LOADED,
		    .why_unknown = "libkmod cannot look up neuronprof: Out of memory",
		    .denied_node = "/dev/dri/renderD129", .denied_errno = EACCES }, EACCES,
		  "no neuronprof device could be opened: /dev/dri/renderD129: Permission denied (check the permissions of the render node)" },
	};

	check_missing(c, sizeof(c) / sizeof(c[0]));
}

static void drm_node(struct nprof_drm_node *n, const char *path, unsigned int maj,
		     unsigned int min, size_t seq)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->path, sizeof(n->path), "%s", path);
	n->major = maj;
	n->minor = min;
	n->seq = seq;
}

/*
 * What the enumeration gathers with two simulated devices: libdrm's folded
 * entry (one render node, here the second) first, then the directory's
 * nodes and a link to one of them. Every device number stays once, in
 * minor order, under the path found first.
 */
TEST(enumeration_keeps_each_render_node_once_in_minor_order)
{
	struct nprof_drm_node n[6];

	drm_node(&n[0], "/dev/dri/renderD129", 226, 129, 0);
	drm_node(&n[1], "/dev/dri/renderD130", 226, 130, 1);
	drm_node(&n[2], "/dev/dri/renderD128", 226, 128, 2);
	drm_node(&n[3], "/dev/dri/by-link/x", 226, 130, 3);
	drm_node(&n[4], "/dev/dri/renderD129", 226, 129, 4);
	drm_node(&n[5], "/dev/other/renderD128", 227, 128, 5);
	CHECK_INT(nprof_drm_nodes_unique(n, 6), 4);
	CHECK_STR(n[0].path, "/dev/dri/renderD128");
	CHECK_STR(n[1].path, "/dev/dri/renderD129");
	CHECK_INT(n[1].seq, 0);
	CHECK_STR(n[2].path, "/dev/dri/renderD130");
	CHECK_INT(n[2].seq, 1);
	CHECK_STR(n[3].path, "/dev/other/renderD128");
	CHECK_INT(n[3].major, 227);

	/* Found in the opposite order: the same set, the other paths. */
	drm_node(&n[0], "/dev/dri/by-link/x", 226, 130, 0);
	drm_node(&n[1], "/dev/dri/renderD130", 226, 130, 1);
	CHECK_INT(nprof_drm_nodes_unique(n, 2), 1);
	CHECK_STR(n[0].path, "/dev/dri/by-link/x");
	CHECK_INT(nprof_drm_nodes_unique(n, 0), 0);
}

TEST(open_without_load_flag_never_loads)
{
	hooks_reset(NPROF_MOD_NOT_LOADED, NPROF_MOD_NOT_LOADED);
	CHECK(!nprof_device_open(NPROF_DEVICE_ANY, 0));
	CHECK_INT(errno, ENODEV);
	CHECK_CONTAINS(nprof_strerror_last(), "is installed but not loaded");
	CHECK_INT(load_calls, 0);
	CHECK_INT(list_calls, 1);
	nprof_device_set_hooks(NULL);
}

TEST(open_does_not_load_what_is_not_installed_or_already_loaded)
{
	hooks_reset(NPROF_MOD_NOT_INSTALLED, NPROF_MOD_NOT_INSTALLED);
	CHECK(!nprof_device_open(NPROF_DEVICE_ANY, NPROF_DEVICE_LOAD_SIM));
	CHECK_CONTAINS(nprof_strerror_last(), "is not installed for kernel 6.1.0-test");
	CHECK_INT(load_calls, 0);

	hooks_reset(NPROF_MOD_LOADED, NPROF_MOD_LOADED);
	CHECK(!nprof_device_open(NPROF_DEVICE_ANY, NPROF_DEVICE_LOAD_SIM | NPROF_DEVICE_LOAD_MODULE));
	CHECK_CONTAINS(nprof_strerror_last(), "neuronprof_sim is loaded without devices");
	CHECK_INT(load_calls, 0);

	/* A node exists but may not be opened: say so, load nothing. */
	hooks_reset(NPROF_MOD_NOT_LOADED, NPROF_MOD_NOT_LOADED);
	snprintf(hook_state.denied_node, sizeof(hook_state.denied_node), "/dev/dri/renderD128");
	hook_state.denied_errno = EACCES;
	CHECK(!nprof_device_open(NPROF_DEVICE_ANY, NPROF_DEVICE_LOAD_SIM));
	CHECK_INT(errno, EACCES);
	CHECK_CONTAINS(nprof_strerror_last(), "/dev/dri/renderD128: Permission denied");
	CHECK_INT(load_calls, 0);
	nprof_device_set_hooks(NULL);
}

TEST(open_loads_the_requested_module_then_looks_again)
{
	/* The simulator wins when both are allowed; the new node is then opened. */
	hooks_reset(NPROF_MOD_NOT_LOADED, NPROF_MOD_NOT_LOADED);
	list_after_load = "/dev/null";
	CHECK(!nprof_device_open(NPROF_DEVICE_ANY, NPROF_DEVICE_LOAD_SIM | NPROF_DEVICE_LOAD_MODULE));
	CHECK_INT(load_calls, 1);
	CHECK_STR(loaded, "neuronprof_sim");
	CHECK_INT(list_calls, 2);
	/* /dev/null is opened as the found device and refused as not ours. */
	CHECK_CONTAINS(nprof_strerror_last(), "/dev/null is not a neuronprof device");

	hooks_reset(NPROF_MOD_NOT_LOADED, NPROF_MOD_NOT_INSTALLED);
	list_after_load = "/dev/null";
	CHECK(!nprof_device_open(NPROF_DEVICE_ANY, NPROF_DEVICE_LOAD_MODULE));
	CHECK_STR(loaded, "neuronprof");

	/* A failed load reports the loader's error. */
	hooks_reset(NPROF_MOD_NOT_LOADED, NPROF_MOD_NOT_LOADED);
	load_result = -EPERM;
	CHECK(!nprof_device_open(NPROF_DEVICE_ANY, NPROF_DEVICE_LOAD_SIM));
	CHECK_INT(errno, EPERM);
	CHECK_INT(list_calls, 1);
	nprof_device_set_hooks(NULL);
}

TEST(open_validates_arguments)
{
	CHECK(!nprof_device_open(NPROF_DEVICE_ANY, 0x80));
	CHECK_STR(nprof_strerror_last(), "unknown device open flags 0x80");
	CHECK(!nprof_device_open(-2, 0));
	CHECK_INT(errno, EINVAL);
	CHECK(!nprof_device_open_path("/dev/null"));
	CHECK_CONTAINS(nprof_strerror_last(), "/dev/null is not a neuronprof device");
	CHECK(!nprof_device_open_path("/nonexistent/renderD128"));
	CHECK_INT(errno, ENOENT);
	CHECK_STR(nprof_strerror_last(), "cannot open /nonexistent/renderD128: No such file or directory");
}

/* A fake trn2 device on @fd with @ops (NULL if @fd is). */
static struct nprof_device *trn2_on(struct fake_dev *fd, const struct nprof_device_ops *ops)
{
	struct nprof_device_info info = fake_trn2_info();

	return fd ? nprof_device_create(&info, ops, fd) : NULL;
}

/* The queue the subscription tests take: core 2's DMA queue of engine 3, a 5000-byte ring. */
static struct nprof_nq_params dma_params(void)
{
	struct nprof_nq_params p = {
		.size = sizeof(p), .target_kind = NPROF_TARGET_CORE, .target_index = 2,
		.queue_type = NEURONPROF_QT_DMA, .engine = 3, .ring_size = 5000,
	};

	return p;
}

TEST(device_ring_size_rounding_and_topsp_mapping)
{
	struct fake_dev *fd = fake_dev_new();
	struct nprof_device *dev = trn2_on(fd, &fake_ops);
	uint64_t page = (uint64_t)fake_page();

	CHECK(dev);
	CHECK_INT(nprof_device_ring_size(dev, 0), page);
	CHECK_INT(nprof_device_ring_size(dev, 1), page);
	CHECK_INT(nprof_device_ring_size(dev, 3 * page), 4 * page);
	CHECK_INT(nprof_device_ring_size(dev, 1 << 20), 1 << 20);
	CHECK_INT(nprof_device_ring_size(dev, (1 << 20) + 1), 2 << 20);
	CHECK_INT(nprof_device_ring_size(dev, 1ULL << 40), 64ULL << 20);
	CHECK_INT(nprof_device_topsp_core(dev, 0), 0);
	CHECK_INT(nprof_device_topsp_core(dev, 15), 7);
	CHECK_INT(nprof_device_topsp_core(dev, 9), 4);
	CHECK_ERR_MSG(nprof_device_topsp_core(dev, 16), EINVAL, "TopSP 16 does not exist (the device has 16)");
	nprof_device_close(dev);
	fake_dev_free(fd);
}

TEST(subscription_through_the_device_layer)
{
	struct fake_dev *fd = fake_dev_new();
	struct nprof_device *dev = trn2_on(fd, &fake_ops);
	struct nprof_nq_params p = dma_params();
	struct nprof_nq_drain_state st = { .size = sizeof(st) };
	struct nprof_ring_spans sp;
	struct nprof_nq *nq, *again;

	nq = nprof_nq_subscribe(dev, &p);
	CHECK(nq);
	CHECK_INT(nprof_nq_fd(nq) >= 0, 1);
	CHECK_INT(fd->q[0].data_size, 8192);	/* rounded to a power of two */
	again = nprof_nq_subscribe(dev, &p);
	CHECK(!again);
	CHECK_INT(errno, EBUSY);
	/* The message names who holds the queue and what to do. */
	CHECK_STR(nprof_strerror_last(),
		  "cannot subscribe core 2 DMA (type 4) engine 3 on (test device 0): the queue already has 1 subscriber, the most it takes: pid 4242 (neuronprof) with a 8192-byte ring; stop one of them (or its subscription) and retry");
	{
		/* A module before uapi 4 cannot say who: the message says how to find out. */
		struct nprof_device_ops old = fake_ops;
		struct nprof_device *dev_old;

		old.holders = NULL;
		dev_old = trn2_on(fd, &old);
		CHECK(dev_old);
		CHECK(!nprof_nq_subscribe(dev_old, &p));
		CHECK_INT(errno, EBUSY);
		CHECK_STR(nprof_strerror_last(),
			  "cannot subscribe core 2 DMA (type 4) engine 3 on (test device 0): the queue already has a subscriber (this neuronprof module takes one per queue; `fuser -v (test device 0)` names the processes that have the device open)");
		nprof_device_close(dev_old);
	}
	fake_produce(fd, &fd->q[0], 3, 7);
	CHECK_INT(nprof_nq_drain(nq, NPROF_NQ_DRAIN_FLUSH, &st), 0);
	CHECK_INT(st.producer_pos, 3 * ES);
	CHECK_INT(fd->flushes, 1);
	CHECK_INT(nprof_ring_peek(nprof_nq_ring(nq), &sp), 3);
	fd->flush_err = EIO;
	CHECK_ERR_MSG(nprof_nq_drain(nq, NPROF_NQ_DRAIN_FLUSH, &st), EIO,
		      "cannot drain core 2 DMA (type 4) engine 3 on (test device 0) with a flush: Input/output error");
	p.flags = 1;
	CHECK(!nprof_nq_subscribe(dev, &p));
	CHECK_INT(errno, EINVAL);
	nprof_nq_close(nq);
	CHECK_INT(fake_subscribed(fd), 0);
	nprof_device_close(dev);
	fake_dev_free(fd);
}

/* ---- system-trace events ---------------------------------------------------------- */

static struct trace_log tlog;

/* device_open and device_close: no core, the device and its node. */
TEST(device_events_on_the_no_core_ring)
{
	struct nprof_device_info info = fake_trn2_info();
	const struct nprof_sys_trace_record *r;
	struct fake_dev *fd = fake_dev_new();
	struct nprof_device *dev;

	info.device_index = 3;
	if (trace_start_all())
		FAIL("cannot start the trace");
	dev = nprof_device_create(&info, &fake_ops, fd);
	CHECK(dev != NULL);
	/* A refused description opens nothing and records nothing. */
	info.num_cores = 0;
	CHECK(!nprof_device_create(&info, &fake_ops, fd));
	CHECK_INT(trace_take(NPROF_SYS_TRACE_NO_CORE, &tlog), 1);
	r = trace_want(&tlog, NPROF_EV_DEVICE_OPEN, 0);
	if (r) {
		CHECK_INT(r->core, NPROF_SYS_TRACE_NO_CORE);
		CHECK_INT(r->source, NPROF_SYS_TRACE_SRC_NEURON_RT);
		CHECK_INT(r->flags, 0);
		CHECK_INT(rec_uint(r, "device"), 3);
		CHECK_STR(rec_str(r, "path"), "(test device 3)");
		CHECK_INT(rec_uint(r, "cores"), 8);
		CHECK_STR(rec_str(r, "provider"), "fake");
	}
	/* Opening a node that is not a device records nothing either. */
	CHECK(!nprof_device_open_path("/dev/null"));
	nprof_device_close(dev);
	CHECK_INT(trace_take(NPROF_SYS_TRACE_NO_CORE, &tlog), 1);
	r = trace_want(&tlog, NPROF_EV_DEVICE_CLOSE, 0);
	if (r) {
		CHECK_INT(r->core, NPROF_SYS_TRACE_NO_CORE);
		CHECK_INT(rec_uint(r, "device"), 3);
		CHECK_STR(rec_str(r, "path"), "(test device 3)");
		CHECK_INT(r->nattrs, 2);
	}
	/* Nothing went to any core's ring. */
	for (uint32_t c = 0; c < NPROF_MAX_CORES; c++)
		CHECK_INT(trace_take(c, &tlog), 0);
	trace_end_all();
	fake_dev_free(fd);
}

/*
 * nq_subscribe, nq_drain and nq_overflow on the queue's core (a TopSP's: the
 * core it serves), offset by the device's first virtual core; one overflow
 * per loss, counted from the previous drain; failures record nothing.
 */
TEST(queue_events_on_the_queue_core)
{
	struct fake_dev *fd = fake_dev_new();
	struct nprof_device *dev = trn2_on(fd, &fake_ops);
	struct nprof_nq_params p = dma_params();
	struct nprof_nq_params t = { .size = sizeof(p), .target_kind = NPROF_TARGET_TOPSP,
				     .target_index = 5, .queue_type = NEURONPROF_QT_TOPSP_EVENT,
				     .ring_size = 4096 };
	struct nprof_nq_drain_state st = { .size = sizeof(st) };
	const struct nprof_sys_trace_record *r;
	struct fake_queue *q;
	struct nprof_nq *nq, *tq;

	if (trace_start_all())
		FAIL("cannot start the trace");
	nq = nprof_nq_subscribe(dev, &p);
	/* TopSP 5 of 16 on 8 cores serves core 2. */
	tq = nprof_nq_subscribe(dev, &t);
	CHECK(nq && tq);
	CHECK(!nprof_nq_subscribe(dev, &p));	/* EBUSY */
	CHECK_INT(trace_take(2, &tlog), 2);
	CHECK_INT(trace_count(&tlog, NPROF_EV_NQ_SUBSCRIBE), 2);
	r = trace_want(&tlog, NPROF_EV_NQ_SUBSCRIBE, 0);
	if (r) {
		CHECK_INT(r->core, 2);
		CHECK_INT(r->nattrs, 4);
		CHECK_INT(rec_uint(r, "device"), 0);
		CHECK_STR(rec_str(r, "queue_type"), "DMA");
		CHECK_INT(rec_uint(r, "engine"), 3);
		CHECK_INT(rec_uint(r, "ring_size"), 8192);	/* as rounded */
	}
	r = trace_want(&tlog, NPROF_EV_NQ_SUBSCRIBE, 1);
	if (r) {
		CHECK_STR(rec_str(r, "queue_type"), "TOPSP_EVENT");
		CHECK_INT(rec_uint(r, "topsp"), 5);
		CHECK(!rec_attr(r, "engine"));
		CHECK_INT(rec_uint(r, "ring_size"), 4096);
	}
	q = fake_find(fd, NPROF_TARGET_CORE, 2, NEURONPROF_QT_DMA, 3);
	CHECK(q != NULL);
	if (!q)
		goto out;

	/* 3 entries, nothing lost: a drain, no overflow. */
	fake_produce(fd, q, 3, 7);
	CHECK_INT(nprof_nq_drain(nq, NPROF_NQ_DRAIN_FLUSH, &st), 0);
	CHECK_INT(trace_take(2, &tlog), 1);
	r = trace_want(&tlog, NPROF_EV_NQ_DRAIN, 0);
	if (r) {
		CHECK_STR(rec_str(r, "queue_type"), "DMA");
		CHECK_INT(rec_uint(r, "engine"), 3);
		CHECK_INT(rec_uint(r, "flush"), 1);
		CHECK_INT(rec_uint(r, "pending_entries"), 3);
	}
	/* The ring holds 128 entries: of 130 more, 5 are lost. */
	CHECK_INT(fake_produce(fd, q, 130, 7), 125);
	CHECK_INT(nprof_nq_drain(nq, 0, &st), 0);
	CHECK_INT(st.lost, 5);
	CHECK_INT(trace_take(2, &tlog), 2);
	r = trace_want(&tlog, NPROF_EV_NQ_DRAIN, 0);
	if (r) {
		CHECK_INT(rec_uint(r, "flush"), 0);
		CHECK_INT(rec_uint(r, "pending_entries"), 128);
	}
	r = trace_want(&tlog, NPROF_EV_NQ_OVERFLOW, 0);
	if (r) {
		CHECK_INT(r->core, 2);
		CHECK_INT(r->start_ns, r->end_ns);
		CHECK_STR(rec_str(r, "queue_type"), "DMA");
		CHECK_INT(rec_uint(r, "engine"), 3);
		CHECK_INT(rec_uint(r, "lost"), 5);
		CHECK_INT(rec_uint(r, "lost_total"), 5);
	}
	/* Reported once: the next drain finds nothing new. */
	CHECK_INT(nprof_nq_drain(nq, 0, &st), 0);
	CHECK_INT(trace_take(2, &tlog), 1);
	CHECK_INT(trace_count(&tlog, NPROF_EV_NQ_DRAIN), 1);
	/* Losses while the trace is off are the next drain's, recorded or not. */
	CHECK_INT(fake_produce(fd, q, 4, 7), 0);
	nprof_sys_trace_stop();
	CHECK_INT(nprof_nq_drain(nq, 0, &st), 0);
	CHECK_INT(fake_produce(fd, q, 10, 7), 0);
	if (trace_start_all())
		FAIL("cannot restart the trace");
	CHECK_INT(nprof_nq_drain(nq, 0, &st), 0);
	CHECK_INT(trace_take(2, &tlog), 2);
	r = trace_want(&tlog, NPROF_EV_NQ_OVERFLOW, 0);
	if (r) {
		CHECK_INT(rec_uint(r, "lost"), 10);
		CHECK_INT(rec_uint(r, "lost_total"), 19);
	}
	/* A failed drain records nothing and does not consume a loss. */
	CHECK_INT(fake_produce(fd, q, 1, 7), 0);
	fd->drain_err = EIO;
	CHECK_INT(nprof_nq_drain(nq, 0, &st), -EIO);
	fd->drain_err = 0;
	CHECK_INT(trace_take(2, &tlog), 0);
	CHECK_INT(nprof_nq_drain(nq, 0, &st), 0);
	CHECK_INT(trace_take(2, &tlog), 2);
	CHECK_INT(rec_uint(trace_nth(&tlog, NPROF_EV_NQ_OVERFLOW, 0), "lost"), 1);

	/* A device numbered from virtual core 8 by the registry puts core 2 on core 10. */
	nprof_nq_close(nq);
	dev->trace_core_base = 8;
	nq = nprof_nq_subscribe(dev, &p);
	CHECK(nq != NULL);
	CHECK_INT(trace_take(2, &tlog), 0);
	CHECK_INT(trace_take(10, &tlog), 1);
	CHECK_INT(trace_count(&tlog, NPROF_EV_NQ_SUBSCRIBE), 1);
	CHECK_INT(nprof_device_trace_core(dev, NPROF_TARGET_TOPSP, 15), 15);
	CHECK_INT(nprof_device_trace_core(dev, NPROF_TARGET_CORE, 8), NPROF_SYS_TRACE_NO_CORE);
	dev->trace_core_base = 250;
	CHECK_INT(nprof_device_trace_core(dev, NPROF_TARGET_CORE, 5), 255);
	CHECK_INT(nprof_device_trace_core(dev, NPROF_TARGET_CORE, 6), NPROF_SYS_TRACE_NO_CORE);
	dev->trace_core_base = 0;
out:
	nprof_nq_close(nq);
	nprof_nq_close(tq);
	trace_end_all();
	nprof_device_close(dev);
	fake_dev_free(fd);
}

HARNESS_MAIN

// SPDX-License-Identifier: MIT
/*
 * Host tests of the SESSION capture engine on the fake device of
 * fake_device.h: the state machine (stop without start, double stop,
 * double start, unknown ids), session ids, NTFF files written from the
 * rings (including a range that wraps and losses), reuse of subscriptions
 * held by a stashed session, drains that fail, close waiting for a call in
 * progress, and the system-trace events of captures.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <neuronprof/capture.h>

#include "capture_fixture.h"
#include "trace_util.h"

#define ES	64u

/* An engine on a fresh fake trn2 device (see setup_device()). */
static int setup_mode(struct fixture *f, uint64_t ring_size, uint32_t flags, const char *spool_dir)
{
	struct nprof_device_info info = fake_trn2_info();

	return setup_device(f, &info, ring_size, flags, spool_dir);
}

/* The zero-copy engine the tests of the seed's behaviour use. */
static int setup(struct fixture *f, uint64_t ring_size)
{
	return setup_mode(f, ring_size, NPROF_CAPTURE_ZERO_COPY, NULL);
}

static struct fake_queue *queue(struct fixture *f, uint32_t kind, uint32_t index, uint32_t type,
				uint32_t engine)
{
	return fake_find(f->fd, kind, index, type, engine);
}

/*
 * One session on core @nc while @n entries (seed @seed) are produced on its
 * queue @type/@engine, of which @fit fit; the file it serializes, open, or
 * NULL.
 */
static struct nprof_ntff_reader *capture_one(struct fixture *f, uint32_t nc, uint32_t type,
					     uint32_t engine, int n, int seed, int fit)
{
	uint64_t id;

	CHECK_INT(nprof_capture_session_start(f->cap, nc), 0);
	CHECK_INT(fake_produce(f->fd, queue(f, NPROF_TARGET_CORE, nc, type, engine), n, seed), fit);
	CHECK_INT(nprof_capture_session_stop(f->cap, nc, &id), 0);
	CHECK_INT(nprof_capture_session_serialize(f->cap, nc, id, f->dir), 0);
	return nprof_ntff_reader_open(file_of(f, nc, id), NPROF_NTFF_READ_VERIFY_AT_OPEN);
}

/* The record of one queue in a reader, or -1. */
static int find_record(struct nprof_ntff_reader *r, uint32_t kind, uint32_t index, uint32_t type,
		       uint32_t engine, struct nprof_ntff_queue *q)
{
	int i, n = nprof_ntff_reader_queue_count(r);

	for (i = 0; i < n; i++) {
		q->size = sizeof(*q);
		if (nprof_ntff_reader_queue(r, (size_t)i, q))
			return -1;
		if (q->target_kind == kind && q->target_index == index && q->queue_type == type &&
		    q->engine == engine)
			return i;
	}
	return -1;
}

/*
 * The file of session @id of core @nc, open, and its record of the core's
 * queue @type (engine 0) in @q; NULL (the case failed) if either is not
 * there.
 */
static struct nprof_ntff_reader *open_record(struct fixture *f, uint32_t nc, uint64_t id,
					     uint32_t type, struct nprof_ntff_queue *q)
{
	struct nprof_ntff_reader *r;

	r = nprof_ntff_reader_open(file_of(f, nc, id), NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (r && find_record(r, NPROF_TARGET_CORE, nc, type, 0, q) < 0) {
		FAIL("no record of core %u queue type %u in %s", nc, type, file_of(f, nc, id));
		nprof_ntff_reader_close(r);
		r = NULL;
	}
	return r;
}

TEST(state_machine_errors)
{
	struct fixture f;
	uint64_t id = 99;

	if (setup(&f, 0))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_ERR_MSG(nprof_capture_session_stop(f.cap, 0, &id), EINVAL,
		      "no active profile session for NC 0");
	CHECK_INT(id, 99);
	CHECK_ERR_MSG(nprof_capture_session_serialize(f.cap, 0, 7, f.dir), ENOENT,
		      "unable to find profile session id 7");
	CHECK_ERR_MSG(nprof_capture_session_drop(f.cap, 0, 7), ENOENT,
		      "unable to find profile session id 7");
	CHECK_ERR_MSG(nprof_capture_session_start(f.cap, 8), EINVAL,
		      "NC 8 does not exist (the device has 8 NeuronCores)");
	CHECK_INT(nprof_capture_session_start(NULL, 0), -EINVAL);
	CHECK_INT(nprof_capture_session_stop(f.cap, 0, NULL), -EINVAL);
	CHECK_INT(nprof_capture_session_active(f.cap, 0), 0);

	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(nprof_capture_session_active(f.cap, 0), 1);
	CHECK_INT(fake_subscribed(f.fd), 24);
	CHECK_ERR_MSG(nprof_capture_session_start(f.cap, 0), EBUSY,
		      "a profile session is already active on NC 0");
	CHECK_INT(nprof_capture_session_stop(f.cap, 0, &id), 0);
	CHECK_INT(id, 0);
	CHECK_INT(nprof_capture_session_active(f.cap, 0), 0);
	CHECK_ERR_MSG(nprof_capture_session_stop(f.cap, 0, &id), EINVAL,
		      "no active profile session for NC 0");
	CHECK_INT(id, 0);
	/* The stashed session keeps the rings subscribed until serialized. */
	CHECK_INT(fake_subscribed(f.fd), 24);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, 0, f.dir), 0);
	CHECK_INT(fake_subscribed(f.fd), 0);
	CHECK_ERR_MSG(nprof_capture_session_serialize(f.cap, 0, 0, f.dir), ENOENT,
		      "unable to find profile session id 0");
	teardown(&f);
}

TEST(session_ids_are_monotonic_per_core)
{
	struct fixture f;
	uint64_t id;
	int i;

	if (setup(&f, 0))
		FAIL("setup: %s", nprof_strerror_last());
	for (i = 0; i < 3; i++) {
		CHECK_INT(nprof_capture_session_start(f.cap, 2), 0);
		CHECK_INT(nprof_capture_session_stop(f.cap, 2, &id), 0);
		CHECK_INT(id, i);
		CHECK_INT(nprof_capture_session_drop(f.cap, 2, id), 0);
	}
	CHECK_INT(nprof_capture_session_start(f.cap, 5), 0);
	CHECK_INT(nprof_capture_session_stop(f.cap, 5, &id), 0);
	CHECK_INT(id, 0);
	/* Dropped ids are gone; the next one keeps counting. */
	CHECK_INT(nprof_capture_session_serialize(f.cap, 2, 1, f.dir), -ENOENT);
	CHECK_INT(nprof_capture_session_start(f.cap, 2), 0);
	CHECK_INT(nprof_capture_session_stop(f.cap, 2, &id), 0);
	CHECK_INT(id, 3);
	teardown(&f);
}

TEST(serialized_file_holds_every_queue_entry_for_entry)
{
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_capture_stats st = { .size = sizeof(st) };
	struct nprof_ntff_entry_iter it;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_queue q;
	struct fixture f;
	const struct neuronprof_notification *n;
	uint64_t id, seq;

	if (setup(&f, 0))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 3), 0);
	fake_produce(f.fd, queue(&f, NPROF_TARGET_CORE, 3, NEURONPROF_QT_TRACE, 2), 100, 42);
	fake_produce(f.fd, queue(&f, NPROF_TARGET_CORE, 3, NEURONPROF_QT_ERROR, 0), 1, 42);
	fake_produce(f.fd, queue(&f, NPROF_TARGET_TOPSP, 7, NEURONPROF_QT_TOPSP_EVENT, 0), 6, 42);
	CHECK_INT(nprof_capture_session_stop(f.cap, 3, &id), 0);
	CHECK_INT(f.fd->flushes, 24);	/* every queue flushed at stop */
	CHECK_INT(nprof_capture_session_stats(f.cap, 3, id, &st), 0);
	CHECK_INT(st.queues, 24);
	CHECK_INT(st.entries[NEURONPROF_QT_TRACE], 100);
	CHECK_INT(st.entries[NEURONPROF_QT_ERROR], 1);
	CHECK_INT(st.entries[NEURONPROF_QT_TOPSP_EVENT], 6);
	CHECK_INT(st.lost[NEURONPROF_QT_TRACE], 0);
	CHECK(st.stop_ns >= st.start_ns);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 3, id, f.dir), 0);

	r = nprof_ntff_reader_open(file_of(&f, 3, id), NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r);
	if (!r) {
		FAIL("%s", nprof_strerror_last());
		teardown(&f);
		return;
	}
	CHECK_INT(nprof_ntff_reader_queue_count(r), 24);
	CHECK_INT(nprof_ntff_reader_info(r, &info), 0);
	CHECK_INT(info.core, 3);
	CHECK_INT(info.session_id, id);
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_SESSION);
	CHECK_INT(info.clock_id, CLOCK_MONOTONIC);
	CHECK_INT(info.device.num_cores, 8);
	CHECK_INT(info.device.num_topsps, 16);
	CHECK_STR(info.device.provider, "fake");
	CHECK_INT(info.pid, getpid());

	CHECK(find_record(r, NPROF_TARGET_CORE, 3, NEURONPROF_QT_TRACE, 2, &q) >= 0);
	CHECK_INT(q.entry_count, 100);
	CHECK_INT(q.first_seq, 0);
	CHECK_INT(q.last_seq, 99);
	CHECK_INT(q.trace_type, NPROF_NTFF_TRACE_INSTRUCTION);
	CHECK_INT(q.block_type, NPROF_NTFF_BLOCK_ENGINE);
	seq = 0;
	nprof_ntff_entry_iter_init(&it, &q);
	while ((n = nprof_ntff_entry_iter_next(&it))) {
		CHECK_INT(n->seq, seq);
		CHECK_INT(n->engine, 2);
		CHECK_INT(n->model_id, 42);
		seq++;
	}
	CHECK_INT(seq, 100);
	CHECK(find_record(r, NPROF_TARGET_TOPSP, 7, NEURONPROF_QT_TOPSP_EVENT, 0, &q) >= 0);
	CHECK_INT(q.entry_count, 6);
	CHECK_INT(q.block_type, NPROF_NTFF_BLOCK_TOPSP);
	CHECK(find_record(r, NPROF_TARGET_CORE, 3, NEURONPROF_QT_DMA, 4, &q) >= 0);
	CHECK_INT(q.entry_count, 0);
	CHECK(find_record(r, NPROF_TARGET_TOPSP, 8, NEURONPROF_QT_TOPSP_EVENT, 0, &q) < 0);
	nprof_ntff_reader_close(r);
	teardown(&f);
}

TEST(losses_are_recorded_per_queue)
{
	struct nprof_ntff_reader *r;
	struct nprof_ntff_queue q;
	struct fixture f;

	if (setup(&f, 4096))	/* 64 entries per ring */
		FAIL("setup: %s", nprof_strerror_last());
	r = capture_one(&f, 1, NEURONPROF_QT_EVENT, 0, 100, 1, 64);
	CHECK(r && find_record(r, NPROF_TARGET_CORE, 1, NEURONPROF_QT_EVENT, 0, &q) >= 0);
	if (r) {
		CHECK_INT(q.entry_count, 64);
		CHECK_INT(q.lost_count, 36);
		CHECK_INT(q.last_seq, 63);
		CHECK(q.ring_flags & NPROF_RING_OVERFLOWED);
		nprof_ntff_reader_close(r);
	}
	teardown(&f);
}

/* A device of raw entries as neuronprof_neuron describes one. */
static struct nprof_device_info fake_raw_info(void)
{
	struct nprof_device_info info = fake_trn2_info();

	info.caps |= NPROF_DEVICE_CAP_RAW;
	info.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V3;
	info.raw_entry_size = 64;
	info.clock_domain = NEURONPROF_CLOCK_CAPTURED;
	return info;
}

/*
 * A raw device is captured like any other, and its file says the entries
 * are raw (format, device entry size, capture-time clock), with a major
 * version that readers of decoded entries only refuse.
 */
TEST(raw_device_capture_is_labelled_raw)
{
	struct nprof_device_info info = fake_raw_info();
	struct nprof_ntff_info ni = { .size = sizeof(ni) };
	struct nprof_ntff_reader *r;
	struct nprof_ntff_queue q;
	struct fixture f;

	if (setup_device(&f, &info, 4096, NPROF_CAPTURE_ZERO_COPY, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	r = capture_one(&f, 2, NEURONPROF_QT_DMA, 1, 10, 9, 10);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(nprof_ntff_reader_header(r)->version_major, NPROF_NTFF_VERSION_MAJOR_RAW);
		CHECK_INT(nprof_ntff_reader_info(r, &ni), 0);
		CHECK_INT(ni.device.raw_format, NEURONPROF_RAW_FORMAT_NEURON_V3);
		CHECK_INT(ni.device.raw_entry_size, 64);
		CHECK_INT(ni.device.clock_domain, NEURONPROF_CLOCK_CAPTURED);
		CHECK(find_record(r, NPROF_TARGET_CORE, 2, NEURONPROF_QT_DMA, 1, &q) >= 0);
		CHECK_INT(q.entry_count, 10);
		nprof_ntff_reader_close(r);
	}
	/* A caller of library 1.0.0 gets its struct filled, nothing past it. */
	memset(&info, 0xa5, sizeof(info));
	info.size = NPROF_DEVICE_INFO_SIZE_V1;
	CHECK_INT(nprof_device_get_info(f.dev, &info), 0);
	CHECK_INT(info.num_cores, 8);
	CHECK_INT(info.raw_format, 0xa5a5a5a5u);
	info.size = sizeof(info);
	CHECK_INT(nprof_device_get_info(f.dev, &info), 0);
	CHECK_INT(info.raw_format, NEURONPROF_RAW_FORMAT_NEURON_V3);
	teardown(&f);
}

/*
 * The device's names of its codes go into every file of its captures, as
 * the device gave them; a device without names gives files without them,
 * and a raw device cannot be given any.
 */
TEST(device_code_names_reach_the_file)
{
	static const struct neuronprof_code_name names[] = {
		{ NEURONPROF_QT_TRACE, 0x100, "matmult" },
		{ NEURONPROF_QT_TRACE, 0x201, "tensor_scalar" },
		{ NEURONPROF_QT_TOPSP_TRACE, 0x7f01, "collective" },
	};
	struct nprof_ntff_info ni = { .size = sizeof(ni) };
	struct nprof_device_info info;
	struct nprof_ntff_reader *r;
	struct fixture f;

	if (setup(&f, 4096))
		FAIL("setup: %s", nprof_strerror_last());
	/* No names yet: the file has none. */
	r = capture_one(&f, 1, NEURONPROF_QT_TRACE, 0, 4, 1, 4);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(nprof_ntff_reader_info(r, &ni), 0);
		CHECK_INT(ni.num_code_names, 0);
		nprof_ntff_reader_close(r);
	}
	CHECK_INT(nprof_device_set_code_names(f.dev, names, 3), 0);
	r = capture_one(&f, 1, NEURONPROF_QT_TRACE, 0, 4, 2, 4);
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(nprof_ntff_reader_info(r, &ni), 0);
		CHECK_INT(ni.num_code_names, 3);
		if (ni.num_code_names == 3) {
			CHECK_INT(ni.code_names[1].queue_type, NEURONPROF_QT_TRACE);
			CHECK_INT(ni.code_names[1].code, 0x201);
			CHECK_STR(ni.code_names[1].name, "tensor_scalar");
			CHECK_INT(ni.code_names[2].code, 0x7f01);
			CHECK_STR(ni.code_names[2].name, "collective");
		}
		nprof_ntff_reader_close(r);
	}
	teardown(&f);

	info = fake_raw_info();
	if (setup_device(&f, &info, 4096, NPROF_CAPTURE_ZERO_COPY, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_device_set_code_names(f.dev, names, 3), -EINVAL);
	CHECK_CONTAINS(nprof_strerror_last(), "raw device names nothing");
	teardown(&f);
}

/* A device that says raw without a format, or the reverse, is refused. */
TEST(raw_device_description_must_agree)
{
	struct nprof_device_info info = fake_raw_info();
	struct nprof_device *dev;

	info.raw_format = NEURONPROF_RAW_FORMAT_NONE;
	dev = nprof_device_create(&info, &fake_ops, NULL);
	CHECK(!dev && errno == EPROTO);
	CHECK_CONTAINS(nprof_strerror_last(), "raw capability 1 with raw format 0");
	info = fake_trn2_info();
	info.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2;
	info.raw_entry_size = 64;
	dev = nprof_device_create(&info, &fake_ops, NULL);
	CHECK(!dev && errno == EPROTO);
	info = fake_raw_info();
	info.raw_entry_size = 0;
	dev = nprof_device_create(&info, &fake_ops, NULL);
	CHECK(!dev && errno == EPROTO);
	info = fake_raw_info();
	info.clock_domain = 2;
	dev = nprof_device_create(&info, &fake_ops, NULL);
	CHECK(!dev && errno == EPROTO);
	CHECK_CONTAINS(nprof_strerror_last(), "clock domain 2");
}

/*
 * A stashed session keeps the rings; the next session reuses them from
 * where they are, so its range can wrap past the end of the data area and
 * is written as two spans. Serializing in either order works.
 */
TEST(reused_rings_wrap_and_sessions_serialize_out_of_order)
{
	struct nprof_ntff_entry_iter it;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_queue q;
	struct fixture f;
	const struct neuronprof_notification *n;
	struct fake_queue *fq;
	uint64_t id0, id1, seq;

	if (setup(&f, 4096))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	fq = queue(&f, NPROF_TARGET_CORE, 0, NEURONPROF_QT_INFER_STATUS, 0);
	CHECK_INT(fake_produce(f.fd, fq, 40, 1), 40);
	CHECK_INT(nprof_capture_session_stop(f.cap, 0, &id0), 0);
	/* Produced between sessions: in neither. */
	CHECK_INT(fake_produce(f.fd, fq, 5, 1), 5);
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	CHECK_INT(fake_subscribed(f.fd), 24);
	/* Session 0 still pins entries 0..44: only 19 of 30 fit. */
	CHECK_INT(fake_produce(f.fd, fq, 30, 2), 19);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id0, f.dir), 0);
	/* Now the ring is free up to entry 45 (session 1's begin). */
	CHECK_INT(fq->cons->consumer_pos, 45 * ES);
	CHECK_INT(fake_produce(f.fd, fq, 20, 3), 20);
	CHECK_INT(nprof_capture_session_stop(f.cap, 0, &id1), 0);
	CHECK_INT(id1, 1);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 0, id1, f.dir), 0);
	CHECK_INT(fake_subscribed(f.fd), 0);

	r = open_record(&f, 0, id0, NEURONPROF_QT_INFER_STATUS, &q);
	if (r) {
		CHECK_INT(q.entry_count, 40);
		CHECK_INT(q.last_seq, 39);
		CHECK_INT(q.lost_count, 0);
		nprof_ntff_reader_close(r);
	}
	r = open_record(&f, 0, id1, NEURONPROF_QT_INFER_STATUS, &q);
	if (r) {
		/* seq 45..63 delivered, 64..74 lost, 75..94 delivered. */
		CHECK_INT(q.entry_count, 39);
		CHECK_INT(q.lost_count, 11);
		CHECK_INT(q.first_seq, 45);
		CHECK_INT(q.last_seq, 94);
		seq = 45;
		nprof_ntff_entry_iter_init(&it, &q);
		while ((n = nprof_ntff_entry_iter_next(&it))) {
			if (seq == 64)
				seq = 75;
			CHECK_INT(n->seq, seq);
			CHECK_INT(n->model_id, seq < 64 ? 2 : 3);
			seq++;
		}
		CHECK_INT(seq, 95);
		nprof_ntff_reader_close(r);
	}
	teardown(&f);
}

TEST(failed_serialize_keeps_the_session)
{
	struct fixture f;
	char missing[sizeof(f.dir) + 16];
	uint64_t id;

	if (setup(&f, 0))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 4), 0);
	fake_produce(f.fd, queue(&f, NPROF_TARGET_CORE, 4, NEURONPROF_QT_TRACE, 0), 3, 1);
	CHECK_INT(nprof_capture_session_stop(f.cap, 4, &id), 0);
	snprintf(missing, sizeof(missing), "%s/missing", f.dir);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 4, id, missing), -ENOENT);
	CHECK_CONTAINS(nprof_strerror_last(), "cannot open directory");
	CHECK_INT(nprof_capture_session_serialize_at(f.cap, 4, id, -1), -EBADF);
	CHECK_CONTAINS(nprof_strerror_last(), "cannot serialize profile session id 0 of NC 4");
	CHECK_INT(nprof_capture_session_serialize(f.cap, 4, id, f.dir), 0);
	teardown(&f);
}

static struct trace_log tlog;

/*
 * profile_start, profile_stop and profile_serialize, once per capture on the
 * capture's core, with the harvest's numbers; the queue events of the same
 * capture around them; a capture about a model carries its id.
 */
TEST(capture_events_once_per_capture)
{
	const struct nprof_sys_trace_record *r;
	const uint64_t model = 77;
	struct fixture f;
	uint64_t id0, id1, id;

	if (setup(&f, 4096))	/* 64 entries per ring */
		FAIL("setup: %s", nprof_strerror_last());
	if (trace_start_all())
		FAIL("cannot start the trace");
	CHECK_INT(nprof_capture_session_stop(f.cap, 1, &id), -EINVAL);
	CHECK_INT(nprof_capture_session_start(f.cap, 1), 0);
	CHECK_INT(nprof_capture_session_start(f.cap, 1), -EBUSY);
	CHECK_INT(trace_take(1, &tlog), 24 + 1);
	CHECK_INT(trace_count(&tlog, NPROF_EV_NQ_SUBSCRIBE), 24);
	r = trace_want(&tlog, NPROF_EV_PROFILE_START, 0);
	if (r) {
		CHECK_INT(r->core, 1);
		CHECK_INT(r->flags, 0);
		CHECK_INT(rec_uint(r, "queues"), 24);
	}
	/* The harvest drains every queue once (with a flush) and finds one loss. */
	CHECK_INT(fake_produce(f.fd, queue(&f, NPROF_TARGET_CORE, 1, NEURONPROF_QT_EVENT, 0), 100, 1), 64);
	CHECK_INT(nprof_capture_session_stop(f.cap, 1, &id0), 0);
	CHECK_INT(trace_take(1, &tlog), 24 + 1 + 1);
	CHECK_INT(trace_count(&tlog, NPROF_EV_NQ_DRAIN), 24);
	CHECK_INT(rec_uint(trace_nth(&tlog, NPROF_EV_NQ_DRAIN, 5), "flush"), 1);
	r = trace_want(&tlog, NPROF_EV_NQ_OVERFLOW, 0);
	if (r) {
		CHECK_STR(rec_str(r, "queue_type"), "EVENT");
		CHECK_INT(rec_uint(r, "engine"), 0);
		CHECK_INT(rec_uint(r, "lost"), 36);
	}
	r = trace_want(&tlog, NPROF_EV_PROFILE_STOP, 0);
	if (r) {
		CHECK_INT(r->core, 1);
		CHECK_INT(rec_uint(r, "session_id"), id0);
		CHECK_INT(rec_uint(r, "entries"), 64);
		CHECK_INT(rec_uint(r, "lost"), 36);
	}
	/* A session on the rings the stashed one holds drains them to begin. */
	CHECK_INT(nprof_capture_session_start(f.cap, 1), 0);
	CHECK_INT(trace_take(1, &tlog), 24 + 1);
	CHECK_INT(trace_count(&tlog, NPROF_EV_NQ_DRAIN), 24);
	CHECK_INT(trace_count(&tlog, NPROF_EV_PROFILE_START), 1);
	CHECK_INT(nprof_capture_session_stop(f.cap, 1, &id1), 0);
	CHECK_INT(trace_take(1, &tlog), 24 + 1);
	CHECK_INT(rec_uint(trace_nth(&tlog, NPROF_EV_PROFILE_STOP, 0), "entries"), 0);
	/* Serialize: one event per write, failed ones with the error. */
	CHECK_INT(nprof_capture_session_serialize_at(f.cap, 1, id0, -1), -EBADF);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 1, 99, f.dir), -ENOENT);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 1, id0, f.dir), 0);
	CHECK_INT(nprof_capture_session_drop(f.cap, 1, id1), 0);
	CHECK_INT(trace_take(1, &tlog), 2);
	CHECK_INT(trace_count(&tlog, NPROF_EV_PROFILE_SERIALIZE), 2);
	r = trace_want(&tlog, NPROF_EV_PROFILE_SERIALIZE, 0);
	if (r) {
		CHECK_INT(rec_uint(r, "session_id"), id0);
		CHECK(rec_attr(r, "error") && rec_attr(r, "error")->v.i == EBADF);
	}
	r = trace_want(&tlog, NPROF_EV_PROFILE_SERIALIZE, 1);
	if (r) {
		CHECK_INT(r->nattrs, 1);
		CHECK_INT(rec_uint(r, "session_id"), id0);
	}

	/* About a model, on a device whose cores the registry numbers from 8. */
	f.dev->trace_core_base = 8;
	CHECK_INT(nprof_capture_session_start_for(f.cap, 2, &model), 0);
	id = stop_and_write(&f, 2);
	CHECK_INT(trace_take(2, &tlog), 0);
	CHECK_INT(trace_take(10, &tlog), 24 + 1 + 24 + 1 + 1);
	for (uint32_t type = NPROF_EV_PROFILE_START; type <= NPROF_EV_PROFILE_SERIALIZE; type++) {
		r = trace_nth(&tlog, type, 0);
		CHECK(r != NULL);
		if (!r)
			continue;
		CHECK_INT(trace_count(&tlog, type), 1);
		CHECK_INT(r->core, 10);
		CHECK_INT(r->flags, NPROF_SYS_TRACE_F_MODEL_ID);
		CHECK_INT(r->model_id, model);
	}
	f.dev->trace_core_base = 0;
	trace_end_all();
	teardown(&f);
}

/*
 * The @at-th subscription of NC 6's start fails with @err: the start fails
 * with @err and @msg and leaves nothing subscribed, nor a session; when
 * @retry, a start after it succeeds.
 */
static void start_failure_case(int at, int err, const char *msg, bool retry)
{
	struct fixture f;

	if (setup(&f, 0))
		FAIL("setup: %s", nprof_strerror_last());
	f.fd->subscribe_fail_at = at;
	f.fd->subscribe_err = err;
	CHECK_ERR_MSG(nprof_capture_session_start(f.cap, 6), err, msg);
	CHECK_INT(fake_subscribed(f.fd), 0);
	CHECK_INT(nprof_capture_session_active(f.cap, 6), 0);
	if (retry)
		CHECK_INT(nprof_capture_session_start(f.cap, 6), 0);
	teardown(&f);
}

TEST(start_failure_unsubscribes_what_it_subscribed)
{
	start_failure_case(10, ENOSPC,
			   "cannot start a profile session on NC 6: cannot subscribe core 6 EVENT (type 1) engine 4 on (test device 0) with a 1048576-byte ring: No space left on device",
			   true);
}

/* A queue the provider cannot read (neuron: device memory) says so. */
TEST(start_failure_names_an_unreadable_queue)
{
	start_failure_case(1, EOPNOTSUPP,
			   "cannot start a profile session on NC 6: cannot subscribe core 6 TRACE (type 0) engine 0 on (test device 0): the provider cannot read this queue where the runtime put it (neuron: such as device memory that the vendor's BAR4 mapping does not cover; the kernel log names the reason; Documentation/hardware.rst)",
			   false);
}

/*
 * A session of NC 7 in which @n THROTTLE entries are produced, then *@fail
 * set to @err before the stop: every entry is still harvested. The
 * session's id.
 */
static uint64_t harvest_despite(struct fixture *f, int *fail, int err, uint64_t n)
{
	struct nprof_capture_stats st = { .size = sizeof(st) };
	uint64_t id = 0;

	CHECK_INT(nprof_capture_session_start(f->cap, 7), 0);
	fake_produce(f->fd, queue(f, NPROF_TARGET_CORE, 7, NEURONPROF_QT_THROTTLE, 0), n, 1);
	*fail = err;
	CHECK_INT(nprof_capture_session_stop(f->cap, 7, &id), 0);
	CHECK_INT(nprof_capture_session_stats(f->cap, 7, id, &st), 0);
	CHECK_INT(st.entries[NEURONPROF_QT_THROTTLE], n);
	return id;
}

TEST(failed_drains_still_harvest_the_mapped_rings)
{
	struct fixture f;
	uint64_t id;

	if (setup(&f, 0))
		FAIL("setup: %s", nprof_strerror_last());
	nprof_log_set_handler(NULL, NULL, NPROF_LOG_ERROR);	/* the warnings are expected */
	/* The flush fails: drain without. */
	id = harvest_despite(&f, &f.fd->flush_err, ETIMEDOUT, 4);
	CHECK_INT(nprof_capture_session_drop(f.cap, 7, id), 0);
	f.fd->flush_err = 0;
	/* The device is gone: read the header. */
	id = harvest_despite(&f, &f.fd->drain_err, ENODEV, 5);
	CHECK_INT(nprof_capture_session_serialize(f.cap, 7, id, f.dir), 0);
	nprof_log_set_handler(NULL, NULL, NPROF_LOG_WARN);
	teardown(&f);
}

struct stopper {
	struct nprof_capture *cap;
	uint64_t id;
	int ret;
};

static void *stop_thread(void *arg)
{
	struct stopper *s = arg;

	s->ret = nprof_capture_session_stop(s->cap, 0, &s->id);
	return NULL;
}

static void *close_thread(void *arg)
{
	nprof_capture_close(arg);
	return NULL;
}

struct prober {
	struct nprof_capture *cap;
	int ret;
	char msg[128];
};

static void *probe_thread(void *arg)
{
	struct prober *p = arg;

	p->ret = nprof_capture_session_active(p->cap, 0);
	snprintf(p->msg, sizeof(p->msg), "%s", nprof_strerror_last());
	return NULL;
}

TEST(close_waits_for_a_stop_in_progress)
{
	struct timespec settle = { 0, 200 * 1000 * 1000 }, deadline;
	struct prober p = { 0 };
	struct fixture f;
	struct stopper s;
	pthread_t ts, tc, tp;
	int joined;

	if (setup(&f, 0))
		FAIL("setup: %s", nprof_strerror_last());
	CHECK_INT(nprof_capture_session_start(f.cap, 0), 0);
	fake_produce(f.fd, queue(&f, NPROF_TARGET_CORE, 0, NEURONPROF_QT_TRACE, 0), 8, 1);

	/* The stop blocks in its first drain. */
	pthread_mutex_lock(&f.fd->m);
	f.fd->block = true;
	pthread_mutex_unlock(&f.fd->m);
	s.cap = f.cap;
	s.ret = 1;
	pthread_create(&ts, NULL, stop_thread, &s);
	pthread_mutex_lock(&f.fd->m);
	while (!f.fd->blocked)
		pthread_cond_wait(&f.fd->cv, &f.fd->m);
	pthread_mutex_unlock(&f.fd->m);

	pthread_create(&tc, NULL, close_thread, f.cap);
	nanosleep(&settle, NULL);
	/*
	 * Close now waits for the stop; a new call on the core is refused. It
	 * runs in a thread so that, were it let in, it would only block on the
	 * core (and fail the check below) instead of hanging the test.
	 */
	p.cap = f.cap;
	p.ret = 1;
	pthread_create(&tp, NULL, probe_thread, &p);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	joined = !pthread_timedjoin_np(tp, NULL, &deadline);
	CHECK(joined);
	CHECK_INT(p.ret, -ESHUTDOWN);
	CHECK_STR(p.msg, "the capture engine is closing");
	CHECK_INT(s.ret, 1);	/* the stop is still in progress */

	pthread_mutex_lock(&f.fd->m);
	f.fd->block = false;
	pthread_cond_broadcast(&f.fd->cv);
	pthread_mutex_unlock(&f.fd->m);
	pthread_join(ts, NULL);
	pthread_join(tc, NULL);
	if (!joined)
		pthread_join(tp, NULL);
	CHECK_INT(s.ret, 0);
	CHECK_INT(s.id, 0);
	CHECK_INT(fake_subscribed(f.fd), 0);
	f.cap = NULL;	/* closed by the thread */
	teardown(&f);
}

struct core_worker {
	struct fixture *f;
	uint32_t nc;
	int failures;
};

static void *core_thread(void *arg)
{
	struct core_worker *w = arg;
	uint64_t id;
	int round;

	for (round = 0; round < 20; round++) {
		if (nprof_capture_session_start(w->f->cap, w->nc) ||
		    nprof_capture_session_stop(w->f->cap, w->nc, &id) || id != (uint64_t)round ||
		    (round % 2 ? nprof_capture_session_drop(w->f->cap, w->nc, id) :
				 nprof_capture_session_serialize(w->f->cap, w->nc, id, w->f->dir)))
			w->failures++;
	}
	return NULL;
}

/*
 * Eight threads each run twenty sessions on a core of their own, on an
 * engine of @flags (the fake backend is not thread-safe: each thread has
 * its own queues).
 */
static void parallel_case(uint32_t flags)
{
	struct core_worker w[8];
	pthread_t t[8];
	struct fixture f;
	uint32_t i;

	if (setup_mode(&f, 4096, flags, NULL))
		FAIL("setup: %s", nprof_strerror_last());
	for (i = 0; i < 8; i++) {
		w[i] = (struct core_worker){ &f, i, 0 };
		pthread_create(&t[i], NULL, core_thread, &w[i]);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(w[i].failures, 0);
	}
	CHECK_INT(access(file_of(&f, 5, 18), F_OK), 0);
	CHECK_INT(access(file_of(&f, 5, 19), F_OK), -1);
	teardown(&f);
}

TEST(cores_run_in_parallel)
{
	parallel_case(NPROF_CAPTURE_ZERO_COPY);
}

TEST(streaming_cores_run_in_parallel)
{
	parallel_case(0);
}

TEST(options_from_config)
{
	struct nprof_capture_opts opts = { .size = sizeof(opts) };
	struct nprof_inspect_config *cfg = nprof_inspect_config_allocate();

	CHECK(cfg);
	CHECK_INT(nprof_inspect_config_set_ring_size(cfg, NEURONPROF_QT_DMA, 2ULL << 20), 0);
	CHECK_INT(nprof_capture_opts_from_config(&opts, cfg), 0);
	CHECK_INT(opts.ring_size[NEURONPROF_QT_DMA], 2ULL << 20);
	CHECK_INT(opts.ring_size[NEURONPROF_QT_TRACE], nprof_ring_size_default(NEURONPROF_QT_TRACE));
	CHECK_INT(opts.flags, 0);	/* streaming by default */
	CHECK_INT(nprof_inspect_config_get_streaming(cfg), 1);
	CHECK_INT(nprof_inspect_config_set_streaming(cfg, false), 0);
	CHECK_INT(nprof_capture_opts_from_config(&opts, cfg), 0);
	CHECK_INT(opts.flags, NPROF_CAPTURE_ZERO_COPY);
	opts.size = 8;
	CHECK_INT(nprof_capture_opts_from_config(&opts, cfg), -EINVAL);
	nprof_inspect_config_free(cfg);
}

HARNESS_MAIN

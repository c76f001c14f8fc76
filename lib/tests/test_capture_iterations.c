// SPDX-License-Identifier: MIT
/*
 * Host tests of iteration ranges (NEURON_RT_INSPECT_CAPTURE_ITERATIONS) on
 * fake devices: the configuration and its variable; SESSION and MODEL
 * captures that write only the entries of iterations A to B of every
 * execution, each record saying how many sequence numbers were left out
 * just before it (so that none reads as lost) and the file saying the
 * range; a device of raw entries refusing the range; and the writer and
 * reader of the new NTFF 1.4 fields with callers of the older struct sizes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include <neuronprof/capture.h>
#include <neuronprof/ntff.h>

#include "harness.h"
#include "inspect_util.h"
#include "capture/capture_internal.h"

/* Queues of a session on a fake trn2 core. */
#define QUEUES		24

TEST(config_capture_iterations)
{
	/* Up to 2^32 iterations. */
	static const struct range_step steps[] = {
		{ NULL, 1, 1ULL << 32, 0 },
		{ NULL, 1, (1ULL << 32) + 1, -EINVAL },
		{ "1-4294967297", 0, 0, -EINVAL },
	};

	check_range_setting("NEURON_RT_INSPECT_CAPTURE_ITERATIONS",
			    nprof_inspect_config_set_capture_iterations,
			    nprof_inspect_config_get_capture_iterations,
			    nprof_inspect_config_get_capture_executions, steps,
			    sizeof(steps) / sizeof(steps[0]));
}

/* What one queue's records of a file say, in file order. */
struct queue_walk {
	uint32_t kind, index, type, engine;
	long entries, trimmed, records, bad_iter, unexplained;
	bool have_last;
	uint64_t last_seq;
};

/* The walk of @q's queue among the @n of @qw, a new one if none. */
static struct queue_walk *queue_of(struct queue_walk *qw, size_t *n, size_t max,
				   const struct nprof_ntff_queue *q)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (qw[i].kind == q->target_kind && qw[i].index == q->target_index &&
		    qw[i].type == q->queue_type && qw[i].engine == q->engine)
			return &qw[i];
	if (*n == max)
		return NULL;
	qw[*n] = (struct queue_walk){ .kind = q->target_kind, .index = q->target_index,
				      .type = q->queue_type, .engine = q->engine };
	return &qw[(*n)++];
}

/*
 * Walk every record of @dir/@name: entries outside iterations @first to
 * @last (counted from 1) are counted in bad_iter; a sequence gap between
 * a queue's records not equal to the later record's trimmed_count in
 * unexplained. Returns the file's totals; fills @info.
 */
static int walk_file(const char *dir, const char *name, uint64_t first, uint64_t last,
		     struct nprof_ntff_info *info, struct queue_walk *tot)
{
	struct queue_walk qw[64];
	size_t nq = 0;
	struct nprof_ntff_reader *r;
	char path[2 * PATH_MAX];
	int n, i;

	memset(tot, 0, sizeof(*tot));
	memset(qw, 0, sizeof(qw));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!r) {
		printf("#   %s: %s\n", path, nprof_strerror_last());
		return -1;
	}
	info->size = sizeof(*info);
	if (nprof_ntff_reader_info(r, info))
		goto fail;
	n = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < n; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };
		struct queue_walk *w;
		uint64_t k;

		if (nprof_ntff_reader_queue(r, (size_t)i, &q))
			goto fail;
		w = queue_of(qw, &nq, sizeof(qw) / sizeof(qw[0]), &q);
		if (!w)
			goto fail;
		w->records++;
		w->trimmed += (long)q.trimmed_count;
		tot->trimmed += (long)q.trimmed_count;
		tot->records++;
		if (!q.entry_count)
			continue;
		if (w->have_last && q.first_seq - w->last_seq - 1 != q.trimmed_count)
			tot->unexplained++;
		if (!w->have_last && q.first_seq != q.trimmed_count)
			tot->unexplained++;
		w->have_last = true;
		w->last_seq = q.last_seq;
		for (k = 0; k < q.entry_count; k++) {
			const struct neuronprof_notification *e =
				(const void *)((const char *)q.entries + k * q.entry_size);

			if ((uint64_t)e->iteration + 1 < first || (uint64_t)e->iteration + 1 > last)
				tot->bad_iter++;
		}
		tot->entries += (long)q.entry_count;
	}
	info->model_name = NULL;
	info->instance_id = NULL;
	info->hostname = NULL;
	info->device.provider = NULL;
	info->code_names = NULL;
	nprof_ntff_reader_close(r);
	return 0;
fail:
	nprof_ntff_reader_close(r);
	return -1;
}

/*
 * @dir/@name holds @entries entries, all of iterations @first to @last, and
 * @trimmed sequence numbers left out, each gap between a queue's records
 * explained by the later one's trimmed_count; its description, which names
 * the same iterations, into @info.
 */
static void check_walk(const char *dir, const char *name, uint64_t first, uint64_t last,
		       long entries, long trimmed, struct nprof_ntff_info *info)
{
	struct queue_walk tot;

	CHECK_INT(walk_file(dir, name, first, last, info, &tot), 0);
	CHECK_INT(tot.entries, entries);
	CHECK_INT(tot.trimmed, trimmed);
	CHECK_INT(tot.bad_iter, 0);
	CHECK_INT(tot.unexplained, 0);
	CHECK_INT(info->iter_first, first);
	CHECK_INT(info->iter_last, last);
}

/*
 * SESSION: ten executions of six iterations each, iterations 2-4 kept: three
 * entries per queue per execution, and of the six sequence numbers of each
 * execution three left out, every one of them accounted as trimmed.
 */
static void session_case(bool streaming)
{
	struct fx_session f;
	struct nprof_ntff_info info;
	struct nprof_model *m;

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_SESSION);
	cfg_cores(f.cfg, 2, 2);
	CHECK_INT(nprof_inspect_config_set_streaming(f.cfg, streaming), 0);
	CHECK_INT(nprof_inspect_config_set_capture_iterations(f.cfg, 2, 4), 0);
	fxs_begin(&f);
	m = fxs_run_model(&f, "iters", 5, 2, 10, 6, NULL);
	check_walk(f.dir, "profile_nc_2_session_0.ntff", 2, 4, QUEUES * 10 * 3, QUEUES * 10 * 3,
		   &info);
	CHECK_INT(info.exec_first, 0);
	nprof_model_unload(m);
	fxs_close(&f);
}

TEST(session_keeps_only_its_iterations)
{
	session_case(false);
}

TEST(session_keeps_only_its_iterations_streaming)
{
	session_case(true);
}

/* MODEL: executions 2-3 of the model, iterations 1-1 of each. */
TEST(model_range_and_iterations)
{
	struct fx_session f;
	struct nprof_ntff_info info;
	struct nprof_model *m;
	char name[NAME_MAX + 1];

	fxs_open(&f, 1, NPROF_ACTIVITY_DEVICE_PROFILE, NPROF_DEVICE_PROFILE_MODEL);
	CHECK_INT(nprof_inspect_config_set_capture_executions(f.cfg, 2, 3), 0);
	CHECK_INT(nprof_inspect_config_set_capture_iterations(f.cfg, 1, 1), 0);
	fxs_begin(&f);
	m = fxs_run_model(&f, "first_iter", 9, 4, 4, 5, NULL);
	CHECK(dir_find(f.dir, "first_iter_vnc_", name, sizeof(name)));
	check_walk(f.dir, name, 1, 1, QUEUES * 2, QUEUES * 2 * 4, &info);
	CHECK_INT(info.capture_kind, NPROF_NTFF_CAPTURE_MODEL);
	CHECK_INT(info.exec_first, 2);
	CHECK_INT(info.exec_last, 3);
	nprof_model_unload(m);
	fxs_close(&f);
}

/* Raw entries carry no iteration: the engine refuses the range, the writer too. */
TEST(raw_device_refuses_iterations)
{
	struct nprof_device_info di = fake_trn2_info();
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_ntff_writer *w;
	struct nprof_capture *cap;
	struct nprof_device *dev;
	struct fake_dev *fd;
	struct scratch s;

	CHECK(!scratch_enter(&s));
	di.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V3;
	di.raw_entry_size = 32;
	di.caps |= NPROF_DEVICE_CAP_RAW;
	fd = fake_dev_new();
	dev = fd ? nprof_device_create(&di, &fake_ops, fd) : NULL;
	CHECK(dev != NULL);
	cap = dev ? nprof_capture_create(dev, NULL) : NULL;
	CHECK(cap != NULL);
	if (cap) {
		CHECK_ERR_MSG(nprof_capture_set_iterations(cap, 1, 2), EOPNOTSUPP,
			      "device 0 gives raw entries, which carry no iteration: "
			      "it cannot keep only iterations 1-2");
		CHECK_INT(nprof_capture_set_iterations(cap, 0, 0), 0);
		nprof_capture_close(cap);
	}
	if (dev)
		nprof_device_close(dev);
	fake_dev_free(fd);

	w = nprof_ntff_writer_create(".", "raw.ntff", 0);
	CHECK(w != NULL);
	info.device.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V3;
	info.device.raw_entry_size = 32;
	info.iter_first = 1;
	info.iter_last = 1;
	CHECK_ERR_MSG(nprof_ntff_writer_set_info(w, &info), EINVAL,
		      "iteration range 1-1 with raw entries, which carry no iteration");
	info.device.raw_format = NEURONPROF_RAW_FORMAT_NONE;
	info.iter_first = 3;
	info.iter_last = 2;
	CHECK_INT(nprof_ntff_writer_set_info(w, &info), -EINVAL);
	nprof_ntff_writer_abort(w);
	scratch_leave(&s);
}

/*
 * The writer and reader of trimmed_count: an append with it starts a record
 * unless the queue's last has no entries; callers of the older struct sizes
 * append without it and read without it.
 */
TEST(ntff_trimmed_count_records)
{
	struct neuronprof_notification e[4];
	struct nprof_ntff_queue_desc d = { .size = sizeof(d) };
	struct nprof_ntff_info info = { .size = sizeof(info) }, got;
	struct nprof_ntff_queue q;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_writer *w;
	struct scratch s;
	int i;

	CHECK(!scratch_enter(&s));
	memset(e, 0, sizeof(e));
	for (i = 0; i < 4; i++)
		e[i].seq = (uint64_t)i * 3 + 2;	/* 2, 5, 8, 11 */
	w = nprof_ntff_writer_create(".", "t.ntff", 0);
	CHECK(w != NULL);
	info.iter_first = 2;
	info.iter_last = 3;
	CHECK_INT(nprof_ntff_writer_set_info(w, &info), 0);
	d.queue_type = NEURONPROF_QT_TRACE;
	d.entry_size = sizeof(e[0]);
	d.trimmed_count = 2;
	CHECK_INT(nprof_ntff_writer_append(w, &d, &e[0], sizeof(e[0]), NULL, 0), 0);
	/* Trims after entries: a new record. */
	d.trimmed_count = 2;
	CHECK_INT(nprof_ntff_writer_append(w, &d, &e[1], sizeof(e[1]), NULL, 0), 1);
	/* Trims at the end of a drain, then the next drain's entries: one record. */
	CHECK_INT(nprof_ntff_writer_append(w, &d, NULL, 0, NULL, 0), 2);
	d.trimmed_count = 0;
	CHECK_INT(nprof_ntff_writer_append(w, &d, &e[2], sizeof(e[2]), NULL, 0), 2);
	/* An older caller's descriptor has no trimmed_count: its append extends the record. */
	d.size = NPROF_NTFF_QUEUE_DESC_SIZE_V1;
	d.trimmed_count = 99;
	CHECK_INT(nprof_ntff_writer_append(w, &d, &e[3], sizeof(e[3]), NULL, 0), 2);
	CHECK_INT(nprof_ntff_writer_finalize(w), 0);

	r = nprof_ntff_reader_open("t.ntff", NPROF_NTFF_READ_VERIFY_AT_OPEN);
	CHECK(r != NULL);
	if (!r) {
		scratch_leave(&s);
		return;
	}
	got.size = sizeof(got);
	CHECK_INT(nprof_ntff_reader_info(r, &got), 0);
	CHECK_INT(got.iter_first, 2);
	CHECK_INT(got.iter_last, 3);
	CHECK_INT(nprof_ntff_reader_queue_count(r), 3);
	{
		static const uint64_t want_trim[3] = { 2, 2, 2 };
		static const uint64_t want_first[3] = { 2, 5, 8 };

		for (i = 0; i < 3; i++) {
			q = (struct nprof_ntff_queue){ .size = sizeof(q) };
			CHECK_INT(nprof_ntff_reader_queue(r, (size_t)i, &q), 0);
			CHECK_INT(q.trimmed_count, want_trim[i]);
			CHECK_INT(q.first_seq, want_first[i]);
		}
	}
	/* An older caller's struct: filled up to its size, trimmed_count untouched. */
	memset(&q, 0xab, sizeof(q));
	q.size = NPROF_NTFF_QUEUE_SIZE_V1;
	CHECK_INT(nprof_ntff_reader_queue(r, 0, &q), 0);
	CHECK_INT(q.first_seq, 2);
	CHECK(q.trimmed_count == 0xababababababababULL);
	/* An older caller's info: no room for the range, none written. */
	memset(&got, 0xcd, sizeof(got));
	got.size = offsetof(struct nprof_ntff_info, iter_first);
	CHECK_INT(nprof_ntff_reader_info(r, &got), 0);
	CHECK(got.iter_first == 0xcdcdcdcdcdcdcdcdULL);
	nprof_ntff_reader_close(r);
	scratch_leave(&s);
}

HARNESS_MAIN

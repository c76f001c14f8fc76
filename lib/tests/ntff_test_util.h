/* SPDX-License-Identifier: MIT */
/*
 * What the NTFF container tests (test_ntff_*.c) share: a scratch directory,
 * whole-file reads and writes, sample files written by the library's writer
 * and the edits that damage them.
 */
#ifndef NPROF_TEST_NTFF_TEST_UTIL_H
#define NPROF_TEST_NTFF_TEST_UTIL_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>

#include "harness.h"
#include "special_files.h"
#include "util/internal.h"
#include "ntff/ntff_internal.h"

#define ENTRY sizeof(struct neuronprof_notification)

static char dir[128];

static inline const char *fresh_dir(void)
{
	snprintf(dir, sizeof(dir), "/tmp/nprof-test-ntff-XXXXXX");
	return mkdtemp(dir);
}

/* A writer of @name in @d; NULL (the case failed) if it cannot be made. */
static inline struct nprof_ntff_writer *new_writer(const char *d, const char *name)
{
	struct nprof_ntff_writer *w = nprof_ntff_writer_create(d, name, 0);

	if (!w)
		FAIL("cannot create %s/%s: %s", d, name, nprof_strerror_last());
	return w;
}

/*
 * A writer of @name in a fresh scratch directory (dir): NULL (the case
 * failed, the directory gone) if either cannot be made.
 */
static inline struct nprof_ntff_writer *fresh_writer(const char *name)
{
	struct nprof_ntff_writer *w;

	if (!fresh_dir()) {
		FAIL("mkdtemp");
		return NULL;
	}
	w = new_writer(dir, name);
	if (!w)
		rm_rf(dir);
	return w;
}

static inline void *ntff_test_read_whole(const char *path, size_t *len)
{
	return read_whole(path, len);
}

static inline int write_whole(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, buf, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -1;
}

/* A ring of @n entries with seq = base + i, as the device would write them. */
static inline struct neuronprof_notification *make_ring(size_t n, uint16_t qt, uint64_t base)
{
	struct neuronprof_notification *r = calloc(n, ENTRY);
	size_t i;

	for (i = 0; r && i < n; i++) {
		r[i].timestamp_ns = 1000 + 10 * (base + i);
		r[i].seq = base + i;
		r[i].queue_type = qt;
		r[i].engine = 2;
		r[i].code = (uint32_t)(0xc0de0000u + i);
		r[i].model_id = 77;
		r[i].payload[3] = ~(uint64_t)i;
	}
	return r;
}

static const struct nprof_ntff_info sample_info = {
	.size = sizeof(struct nprof_ntff_info),
	.pid = 4242,
	.core = 1,
	.capture_kind = NPROF_NTFF_CAPTURE_MODEL,
	.clock_id = 1,
	.session_id = 3,
	.model_id = 77,
	.model_name = "resnet50",
	.instance_id = "i-0123456789abcdef0",
	.hostname = "trn1-host",
	.start_ns = 1000,
	.stop_ns = 99999,
	.device = {
		.arch = NEURONPROF_ARCH_TRN1,
		.uapi_version = NEURONPROF_UAPI_VERSION,
		.num_cores = 2,
		.num_topsps = 6,
		.engines_per_core = 4,
		.entry_size = 64,
		.device_index = 0,
		.provider = "sim",
	},
};

/*
 * sample_info as a capture of the neuron provider's raw entries says it:
 * NEURON_V2 entries of 64 bytes, clocks of capture, in packed records when
 * @packed.
 */
static inline struct nprof_ntff_info raw_sample_info(bool packed)
{
	struct nprof_ntff_info in = sample_info;

	in.device.provider = "neuron";
	in.device.clock_domain = NEURONPROF_CLOCK_CAPTURED;
	in.device.raw_format = NEURONPROF_RAW_FORMAT_NEURON_V2;
	in.device.raw_entry_size = 64;
	in.device.raw_packed = packed;
	return in;
}

/*
 * Write a file with: a TRACE queue whose ring wrapped (entries 40..63 then
 * 0..19 of the ring, seq 1000..1043), an empty ERROR queue with 5 lost, and
 * a TOPSP_EVENT queue in one span. Returns the path in @path.
 */
static inline int ntff_test_write_sample(const char *d, const char *name, char *path, size_t plen)
{
	struct neuronprof_notification *ring, *ev;
	struct nprof_ntff_queue_desc q = { .size = sizeof(q) };
	struct nprof_ntff_writer *w;
	size_t i;
	int ret;

	ring = make_ring(64, NEURONPROF_QT_TRACE, 0);
	ev = make_ring(10, NEURONPROF_QT_TOPSP_EVENT, 500);
	/* Ring positions 40..63 hold seq 1000..1023, 0..19 hold 1024..1043. */
	for (i = 0; i < 64; i++)
		ring[i].seq = i >= 40 ? 1000 + (i - 40) : 1024 + i;
	w = nprof_ntff_writer_create(d, name, 0);
	if (!w)
		return -errno;
	CHECK_INT(nprof_ntff_writer_set_info(w, &sample_info), 0);
	q.queue_type = NEURONPROF_QT_TRACE;
	q.target_kind = NEURONPROF_TARGET_CORE;
	q.target_index = 1;
	q.engine = 2;
	q.entry_size = ENTRY;
	q.lost_count = 0;
	CHECK_INT(nprof_ntff_writer_append(w, &q, &ring[40], 24 * ENTRY, &ring[0], 20 * ENTRY), 0);
	q.queue_type = NEURONPROF_QT_ERROR;
	q.engine = 0;
	q.lost_count = 5;
	q.ring_flags = NEURONPROF_RING_OVERFLOWED;
	CHECK_INT(nprof_ntff_writer_append(w, &q, NULL, 0, NULL, 0), 1);
	q.queue_type = NEURONPROF_QT_TOPSP_EVENT;
	q.target_kind = NEURONPROF_TARGET_TOPSP;
	q.target_index = 3;
	q.lost_count = 0;
	q.ring_flags = 0;
	CHECK_INT(nprof_ntff_writer_append(w, &q, NULL, 0, ev, 10 * ENTRY), 2);
	/* Nothing under the final name before finalize. */
	snprintf(path, plen, "%s/%s", d, name);
	CHECK(access(path, F_OK) && errno == ENOENT);
	ret = nprof_ntff_writer_finalize(w);
	free(ring);
	free(ev);
	return ret;
}

struct sample {
	unsigned char *buf;
	size_t len;
};

/* A function that writes a file @name in @d; its path into @path. */
typedef int (*ntff_test_write_fn)(const char *d, const char *name, char *path, size_t plen);

/* The bytes of the file @write makes under @name in a scratch directory, into @s. */
static inline int load_written(struct sample *s, ntff_test_write_fn write, const char *name)
{
	char path[PATH_MAX];

	s->buf = NULL;
	if (!fresh_dir())
		return -1;
	if (write(dir, name, path, sizeof(path))) {
		rm_rf(dir);
		return -1;
	}
	s->buf = ntff_test_read_whole(path, &s->len);
	rm_rf(dir);
	return s->buf ? 0 : -1;
}

/* The bytes of ntff_test_write_sample()'s file, into @s. */
static inline int load_sample(struct sample *s)
{
	return load_written(s, ntff_test_write_sample, "s.ntff");
}

/* A reader of the @len bytes at @buf, verified at open; NULL (the case failed) if none. */
static inline struct nprof_ntff_reader *open_buf(const void *buf, size_t len)
{
	struct nprof_ntff_reader *r = NULL;

	if (buf)
		r = nprof_ntff_reader_open_mem(buf, len, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!r)
		FAIL("the file does not open: %s", nprof_strerror_last());
	return r;
}

/* @load into @s: true when @s holds the file, else the case failed. */
static inline bool got_sample(int (*load)(struct sample *s), struct sample *s)
{
	if (load(s) || !s->buf) {
		FAIL("cannot make the sample file");
		return false;
	}
	return true;
}

/* Re-seal the header checksum after editing header fields. */
static inline void ntff_test_reseal(unsigned char *buf)
{
	uint32_t c = htole32(nprof_crc32c_update(0, buf, NTFF_HEADER_CSUM_SPAN));

	memcpy(buf + offsetof(struct nprof_ntff_header, header_csum), &c, 4);
}

static inline void put64(unsigned char *buf, size_t off, uint64_t v)
{
	v = htole64(v);
	memcpy(buf + off, &v, 8);
}

static inline void put16(unsigned char *buf, size_t off, uint16_t v)
{
	v = htole16(v);
	memcpy(buf + off, &v, 2);
}

/*
 * Open a copy of @len bytes of @buf with @flags; expect failure with @err
 * and @msg in the message.
 */
static inline void expect_reject_flags(const unsigned char *buf, size_t len, unsigned int flags, int err,
				       const char *msg)
{
	unsigned char *copy = malloc(len ? len : 1);
	struct nprof_ntff_reader *r;

	memcpy(copy, buf, len);
	r = nprof_ntff_reader_open_mem(copy, len, flags);
	if (r) {
		FAIL("accepted a file that should fail with \"%s\"", msg);
		nprof_ntff_reader_close(r);
	} else {
		if (errno != err)
			FAIL("errno %d, expected %d (%s)", errno, err, nprof_strerror_last());
		if (!strstr(nprof_strerror_last(), msg))
			FAIL("message \"%s\" lacks \"%s\"", nprof_strerror_last(), msg);
	}
	free(copy);
}

static inline void expect_reject(const unsigned char *buf, size_t len, int err, const char *msg)
{
	expect_reject_flags(buf, len, NPROF_NTFF_READ_VERIFY_AT_OPEN, err, msg);
}

/*
 * A copy of @len bytes of @buf with the header's 16-bit field at @off (8:
 * the major version, 10: the minor) set to @v, resealed, must be refused
 * with @err and @msg.
 */
static inline void expect_header16_rejected(const unsigned char *buf, size_t len, size_t off,
					    uint16_t v, int err, const char *msg)
{
	unsigned char *b = malloc(len);

	memcpy(b, buf, len);
	put16(b, off, v);
	ntff_test_reseal(b);
	expect_reject(b, len, err, msg);
	free(b);
}

/*
 * Re-encode the sample with its metadata edited by @edit, resealing every
 * checksum, so only the semantic check can catch it.
 */
static inline unsigned char *with_metadata(const struct sample *s, void (*edit)(Neuronprof__Ntff__NtffInfo *),
					   size_t *out_len)
{
	struct nprof_ntff_header h;
	Neuronprof__Ntff__NtffInfo *m;
	unsigned char *out;
	size_t mlen;

	nprof_ntff_header_decode(s->buf, &h);
	m = neuronprof__ntff__ntff_info__unpack(NULL, h.metadata_length, s->buf + h.metadata_offset);
	if (!m)
		return NULL;
	edit(m);
	mlen = neuronprof__ntff__ntff_info__get_packed_size(m);
	*out_len = h.metadata_offset + mlen;
	out = malloc(*out_len);
	memcpy(out, s->buf, h.metadata_offset);
	neuronprof__ntff__ntff_info__pack(m, out + h.metadata_offset);
	neuronprof__ntff__ntff_info__free_unpacked(m, NULL);
	h.metadata_length = mlen;
	h.metadata_csum = nprof_crc32c_update(0, out + h.metadata_offset, mlen);
	nprof_ntff_header_encode(&h, out);
	ntff_test_reseal(out);
	return out;
}

/* An edit of a sample's metadata (with_metadata()). */
typedef void (*ntff_test_edit_fn)(Neuronprof__Ntff__NtffInfo *m);

/*
 * The sample @s with its metadata edited by @edit and then, unless @off is
 * 0, the header's 16-bit field at @off (8: the major version, 10: the
 * minor) set to @v, resealed: a buffer of *@len bytes the caller frees, or
 * NULL (the case failed) if it cannot be made.
 */
static inline unsigned char *with_edit(const struct sample *s, ntff_test_edit_fn edit, size_t off,
				       uint16_t v, size_t *len)
{
	unsigned char *b = with_metadata(s, edit, len);

	CHECK(b != NULL);
	if (b && off) {
		put16(b, off, v);
		ntff_test_reseal(b);
	}
	return b;
}

/* The file with_edit() makes must be refused at open with @err and @msg. */
static inline void expect_edit_rejected(const struct sample *s, ntff_test_edit_fn edit, size_t off,
					uint16_t v, int err, const char *msg)
{
	size_t len;
	unsigned char *b = with_edit(s, edit, off, v, &len);

	if (b)
		expect_reject(b, len, err, msg);
	free(b);
}

/* A file with_edit() made, open: its bytes, its reader and the info it reads. */
struct edited {
	unsigned char *buf;
	struct nprof_ntff_reader *r;
	struct nprof_ntff_info info;
};

/*
 * The file with_edit() makes must open, verified, and read its info into
 * @e->info, all of whose fields are junk before (so that one the reader
 * leaves unset shows): true, or false (the case failed). edited_close()
 * after, either way.
 */
static inline bool open_edited(struct edited *e, const struct sample *s, ntff_test_edit_fn edit,
			       size_t off, uint16_t v)
{
	size_t len = 0;

	e->buf = with_edit(s, edit, off, v, &len);
	e->r = open_buf(e->buf, len);
	memset(&e->info, 0x5a, sizeof(e->info));
	e->info.size = sizeof(e->info);
	if (!e->r)
		return false;
	if (nprof_ntff_reader_info(e->r, &e->info)) {
		FAIL("the file's info does not read: %s", nprof_strerror_last());
		return false;
	}
	return true;
}

/* Undo open_edited(). */
static inline void edited_close(struct edited *e)
{
	nprof_ntff_reader_close(e->r);
	free(e->buf);
}

static inline int ntff_test_write_raw(const char *d, const char *name, const struct nprof_ntff_info *info,
			    const struct neuronprof_notification *ring, size_t n)
{
	struct nprof_ntff_queue_desc q = {
		.size = sizeof(q), .queue_type = NEURONPROF_QT_DMA,
		.target_kind = NEURONPROF_TARGET_CORE, .target_index = 1, .engine = 3,
		.entry_size = ENTRY,
	};
	struct nprof_ntff_writer *w = nprof_ntff_writer_create(d, name, 0);
	int ret;

	if (!w)
		return -errno;
	ret = nprof_ntff_writer_set_info(w, info);
	if (!ret)
		ret = nprof_ntff_writer_append(w, &q, ring, n * ENTRY, NULL, 0) < 0 ? -1 : 0;
	if (ret) {
		nprof_ntff_writer_abort(w);
		return ret;
	}
	return nprof_ntff_writer_finalize(w);
}

static const struct nprof_ntff_code_name sample_names[] = {
	{ NEURONPROF_QT_TRACE, 0x100, "matmult" },
	{ NEURONPROF_QT_TRACE, 0x101, "matmult" },
	{ NEURONPROF_QT_TRACE, 0x203, "tensor_tensor" },
	{ NEURONPROF_QT_DMA, 5, "dma_copy" },
	{ NEURONPROF_QT_TOPSP_TRACE, 0x7f01, "collective.v2" },
};

/* The sample file with sample_names, written as ntff_test_write_sample() does. */
static inline int load_named_sample(struct sample *s)
{
	struct nprof_ntff_info in = sample_info;
	struct neuronprof_notification *ring;
	char path[PATH_MAX];
	int ret;

	s->buf = NULL;
	in.code_names = sample_names;
	in.num_code_names = 5;
	ring = make_ring(8, NEURONPROF_QT_TRACE, 0);
	if (!ring || !fresh_dir()) {
		free(ring);
		return -ENOMEM;
	}
	ret = ntff_test_write_raw(dir, "named.ntff", &in, ring, 8);
	free(ring);
	snprintf(path, sizeof(path), "%s/named.ntff", dir);
	if (!ret) {
		s->buf = ntff_test_read_whole(path, &s->len);
		ret = s->buf ? 0 : -EIO;
	}
	rm_rf(dir);
	return ret;
}

#endif /* NPROF_TEST_NTFF_TEST_UTIL_H */

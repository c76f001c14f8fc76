// SPDX-License-Identifier: MIT
/*
 * NTFF writer. Layout written: header (128 bytes) | data region | block
 * table | metadata. The data region is written as queues are appended,
 * straight from the caller's memory with pwritev(), and each data block's
 * CRC32C is computed over that same memory as it passes; the block table,
 * the metadata and then the header are written at finalize, when their
 * contents are known. Heap use depends on the number of queue records and
 * on the block table (4 bytes per block of data), never on the entries.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff/ntff_writer_internal.h"

static int writer_fail(struct nprof_ntff_writer *w, int ret)
{
	w->error = ret;
	free(w->error_msg);
	w->error_msg = strdup(nprof_err_current());
	return ret;
}

static int check_name(const char *name)
{
	size_t len;

	if (!name || !*name)
		return nprof_err(EINVAL, "NTFF file name is empty");
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return nprof_err(EINVAL, "NTFF file name '%s' is not a plain file name", name);
	len = strlen(name);
	if (len + NPROF_TMP_EXTRA > NAME_MAX)
		return nprof_err(ENAMETOOLONG, "NTFF file name '%s' is longer than %d bytes", name,
				 NAME_MAX - NPROF_TMP_EXTRA);
	return 0;
}

/*
 * A writer of @name in @dirfd (which it owns from now on, also on failure):
 * into @fd if it is a descriptor (an unnamed file), else into a new hidden
 * temporary file of @dirfd.
 */
static struct nprof_ntff_writer *writer_open(int dirfd, const char *name, unsigned int flags,
					     int fd)
{
	struct nprof_ntff_writer *w;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w) {
		close(dirfd);
		if (fd >= 0)
			close(fd);
		return nprof_err_ptr(ENOMEM, "cannot allocate an NTFF writer");
	}
	w->dirfd = dirfd;
	w->fd = fd;
	w->flags = flags;
	w->name = strdup(name);
	w->tmpname = malloc(NAME_MAX + 1);
	if (!w->name || !w->tmpname) {
		nprof_ntff_writer_abort(w);
		return nprof_err_ptr(ENOMEM, "cannot allocate an NTFF writer");
	}
	w->tmpname[0] = '\0';
	if (w->fd < 0)
		w->fd = nprof_tmpfile_create(dirfd, name, w->tmpname, NAME_MAX + 1);
	if (w->fd < 0) {
		err = errno;
		nprof_ntff_writer_abort(w);
		return nprof_err_ptr(err, "cannot create a temporary file for '%s': %s", name,
				     strerror(err));
	}
	w->block_size = NPROF_NTFF_BLOCK_SIZE_DEFAULT;
	neuronprof__ntff__ntff_info__init(&w->info);
	neuronprof__ntff__device_info__init(&w->device);
	return w;
}

int nprof_ntff_writer_set_block_size(struct nprof_ntff_writer *w, uint32_t block_size)
{
	if (w->data_len || w->ntraces)
		return nprof_err(EINVAL, "NTFF block size must be set before the first append");
	if (block_size < NPROF_NTFF_BLOCK_SIZE_MIN || block_size > NPROF_NTFF_BLOCK_SIZE_MAX ||
	    (block_size & (block_size - 1)))
		return nprof_err(EINVAL, "NTFF block size %u is not a power of two in [%u, %u]",
				 block_size, NPROF_NTFF_BLOCK_SIZE_MIN, NPROF_NTFF_BLOCK_SIZE_MAX);
	w->block_size = block_size;
	w->block_size_set = true;
	return 0;
}

/* The arguments both create calls take: 0, or -errno with the message recorded. */
static int check_create(const char *name, unsigned int flags)
{
	int ret;

	ret = check_name(name);
	if (ret)
		return ret;
	if (flags & ~NPROF_NTFF_WRITE_NOREPLACE)
		return nprof_err(EINVAL, "unknown NTFF writer flags 0x%x",
				 flags & ~NPROF_NTFF_WRITE_NOREPLACE);
	return 0;
}

NPROF_API struct nprof_ntff_writer *nprof_ntff_writer_createat(int dirfd, const char *name,
							       unsigned int flags)
{
	int fd, ret;

	ret = check_create(name, flags);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return nprof_err_ptr(errno, "bad directory descriptor %d: %s", dirfd, strerror(errno));
	return writer_open(fd, name, flags, -1);
}

NPROF_API struct nprof_ntff_writer *nprof_ntff_writer_create(const char *dir, const char *name,
							     unsigned int flags)
{
	int fd, ret;

	if (!dir)
		return nprof_err_ptr(EINVAL, "NTFF directory is NULL");
	ret = check_create(name, flags);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	fd = nprof_dir_open(dir);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	return writer_open(fd, name, flags, -1);
}

/* pwritev() to @fd (the file @name) until everything is written; iov is consumed. */
static int write_fd(int fd, const char *name, struct iovec *iov, int iovcnt, uint64_t off)
{
	while (iovcnt) {
		ssize_t n = pwritev(fd, iov, iovcnt, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return nprof_err(errno, "cannot write %s: %s", name, strerror(errno));
		}
		if (n == 0)
			return nprof_err(EIO, "cannot write %s: no progress", name);
		off += (uint64_t)n;
		while (iovcnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int write_all(struct nprof_ntff_writer *w, struct iovec *iov, int iovcnt, uint64_t off)
{
	return write_fd(w->fd, w->name, iov, iovcnt, off);
}

/*
 * Room in the block table for every block that @more bytes of data complete,
 * plus the partial one finalize adds, so that checksumming cannot fail half
 * way through an append.
 */
static int reserve_blocks(struct nprof_ntff_writer *w, uint64_t more)
{
	return ntff_writer_grow_table(&w->blocks, sizeof(*w->blocks), &w->blocks_cap,
				      ntff_block_count(w->data_len + more, w->block_size));
}

/*
 * Fold @len bytes at @p, which go to data offset @pos, into the checksums of
 * the blocks they fall in, closing each block they complete.
 */
static void csum_span(struct nprof_ntff_writer *w, const unsigned char *p, size_t len, uint64_t pos)
{
	uint64_t mask = w->block_size - 1;

	while (len) {
		size_t room = (size_t)(w->block_size - (pos & mask));
		size_t n = len < room ? len : room;

		w->block_csum = nprof_crc32c_update(w->block_csum, p, n);
		p += n;
		len -= n;
		pos += n;
		if (!(pos & mask)) {
			w->blocks[w->nblocks++] = w->block_csum;
			w->block_csum = 0;
		}
	}
}

/*
 * Consecutive drains of one queue extend its last record instead of adding
 * one, so draining a queue many times costs no more metadata than once. The
 * sequence must move forward, or the record could not be checked.
 */
static bool same_queue_as_last(const struct nprof_ntff_writer *w,
			       const struct nprof_ntff_queue_desc *desc, bool has_entries,
			       uint64_t first_seq)
{
	const Neuronprof__Ntff__TraceInfo *t;

	if (!w->ntraces)
		return false;
	t = &w->traces[w->ntraces - 1];
	return t->queue_type == desc->queue_type && t->target_kind == desc->target_kind &&
	       t->target_index == desc->target_index && t->engine == desc->engine &&
	       t->entry_size == desc->entry_size &&
	       (!t->entry_count || !has_entries || first_seq > t->last_seq);
}

int nprof_ntff_writer_set_raw_packed(struct nprof_ntff_writer *w)
{
	if (w->ntraces)
		return nprof_err(EINVAL, "packed raw records declared after queues were appended");
	w->raw_packed = true;
	return 0;
}

uint64_t nprof_ntff_writer_page_cut(const struct nprof_ntff_writer *w, uint64_t len, uint32_t es)
{
	uint64_t past = (NPROF_NTFF_HEADER_SIZE + w->data_len + len) % NTFF_WRITE_ALIGN;

	/* A packed record is appended whole; a page boundary may fall inside one. */
	if (!es || w->raw_packed || past >= len || past % es)
		return 0;
	return len - past;
}

/*
 * Start the writeback of every NTFF_WRITEBACK_CHUNK (ntff_internal.h)
 * written, so that pages do not pile up dirty until the final fsync (which
 * then only waits for the tail), and the disk writes while the appends
 * checksum: a pending file is written for as long as its capture runs, and
 * a large drain is written and checksummed in one append.
 */

static void start_writeback(struct nprof_ntff_writer *w, uint64_t data_end)
{
	uint64_t from = w->writeback;

	if (data_end - from < NTFF_WRITEBACK_CHUNK)
		return;
	w->writeback = data_end;
	/* Only a hint: commit's fsync makes the file durable whatever happens here. */
	if (sync_file_range(w->fd, (off_t)(NPROF_NTFF_HEADER_SIZE + from), (off_t)(data_end - from),
			    SYNC_FILE_RANGE_WRITE))
		nprof_log(NPROF_LOG_DEBUG, "%s: no early writeback: %s", w->name, strerror(errno));
}

NPROF_API int nprof_ntff_writer_append(struct nprof_ntff_writer *w,
				       const struct nprof_ntff_queue_desc *desc,
				       const void *span0, size_t len0,
				       const void *span1, size_t len1)
{
	const unsigned char *first = NULL, *last = NULL;
	struct ntff_packed_span ps[2] = { 0 };
	uint64_t first_seq = 0, last_seq = 0, at, trimmed;
	Neuronprof__Ntff__TraceInfo *ti;
	const char *why;
	uint32_t trace_type, block_type, block_csum;
	struct iovec iov[2];
	int iovcnt = 0, ret;
	size_t nblocks;
	uint64_t total;
	size_t es;

	if (!w || !desc)
		return nprof_err(EINVAL, "NTFF writer or queue descriptor is NULL");
	if (w->error)
		return ntff_writer_replay(w);
	if (NPROF_SIZED_VALID_SINCE(desc, nprof_ntff_queue_desc, NPROF_NTFF_QUEUE_DESC_SIZE_V1,
				    NPROF_SIZED_IN))
		return -EINVAL;
	trimmed = desc->size > NPROF_NTFF_QUEUE_DESC_SIZE_V1 ? desc->trimmed_count : 0;
	if (trimmed && w->raw_packed)
		return nprof_err(EINVAL, "cannot trim entries of packed raw records");
	if (nprof_ntff_map_queue_type(desc->queue_type, &trace_type, &block_type))
		return nprof_err(EINVAL, "cannot append queue type %u: not a known queue type",
				 desc->queue_type);
	es = desc->entry_size;
	if (es < NTFF_MIN_ENTRY_SIZE || es % 8 || es > NTFF_MAX_ENTRY_SIZE)
		return nprof_err(EINVAL, "entry size %zu is not a multiple of 8 in [%d, %u]", es,
				 NTFF_MIN_ENTRY_SIZE, NTFF_MAX_ENTRY_SIZE);
	/*
	 * The default blocks hold the entries of every device there is (64
	 * bytes); the first data of larger entries gets blocks that fit them.
	 */
	if (es > w->block_size && !w->data_len && !w->block_size_set && (len0 || len1))
		while (w->block_size < es)
			w->block_size <<= 1;
	if (es > w->block_size)
		return nprof_err(EINVAL, "entry size %zu exceeds the file's block size %u", es,
				 w->block_size);
	if (len0 % es || len1 % es)
		return nprof_err(EINVAL, "span lengths %zu and %zu are not multiples of entry size %zu",
				 len0, len1, es);
	if ((len0 && !span0) || (len1 && !span1))
		return nprof_err(EINVAL, "span pointer is NULL with a non-zero length");
	total = (uint64_t)len0 + len1;
	if (total > NTFF_MAX_DATA - w->data_len)
		return nprof_err(EFBIG, "data region would exceed 2^62 bytes");

	if (len0) {
		iov[iovcnt].iov_base = (void *)span0;
		iov[iovcnt++].iov_len = len0;
		first = span0;
		last = (const unsigned char *)span0 + len0 - es;
	}
	if (len1) {
		iov[iovcnt].iov_base = (void *)span1;
		iov[iovcnt++].iov_len = len1;
		if (!first)
			first = span1;
		last = (const unsigned char *)span1 + len1 - es;
	}
	first_seq = first ? ntff_entry_seq(first) : 0;
	last_seq = last ? ntff_entry_seq(last) : 0;
	if (w->raw_packed) {
		/* Whole records, each span (a ring's wrap is between records); seqs of their parts. */
		if (es != sizeof(struct neuronprof_notification))
			return nprof_err(EINVAL, "packed raw records in entries of %zu bytes, not %zu",
					 es, sizeof(struct neuronprof_notification));
		why = ntff_packed_walk(span0, len0, &ps[0], &at);
		if (!why) {
			why = ntff_packed_walk(span1, len1, &ps[1], &at);
			at += len0;
		}
		if (!why && ps[0].any && ps[1].any && ps[1].first <= ps[0].last)
			why = "a packed record's seq goes back", at = len0;
		if (why)
			return nprof_err(EINVAL, "cannot append queue type %u: %s (byte %" PRIu64
					 " of the %" PRIu64 " appended)", desc->queue_type, why, at,
					 total);
		first = ps[0].any || ps[1].any ? (const unsigned char *)span0 : NULL;
		first_seq = ps[0].any ? ps[0].first : ps[1].first;
		last_seq = ps[1].any ? ps[1].last : ps[0].last;
	}
	if (w->ntraces == w->traces_cap) {
		size_t cap = w->traces_cap ? 2 * w->traces_cap : 16;
		void *p = realloc(w->traces, cap * sizeof(*w->traces));

		if (!p)
			return nprof_err(ENOMEM, "cannot grow the list of %zu queue records", cap);
		w->traces = p;
		w->traces_cap = cap;
	}
	if (w->zlevel) {
		/* Compressed blocks (ntff_writer_zstd.c): stored as they complete. */
		ret = ntff_wz_append(w, span0, len0, span1, len1);
		if (ret)
			return w->pending ? ret : writer_fail(w, ret);
		start_writeback(w, w->zstored);
		goto record;
	}
	ret = reserve_blocks(w, total);
	if (ret)
		return ret;

	/*
	 * Checksum the caller's memory itself: the bytes handed to the kernel
	 * are these (and the caller keeps them until this returns). A pending
	 * writer (streaming) checksums before writing, as it always did: its
	 * drains are at most a ring, small next to the writeback chunk, so
	 * there is no long pass to hide. Another writer (a capture being
	 * serialized, often one drain of a whole ring) writes first, starts
	 * the writeback, then checksums: the checksum's pass over memory runs
	 * while the disk writes instead of before. (Checksumming and writing in
	 * cache-sized pieces, so that memory is read once, measured slower:
	 * more, smaller writes.)
	 */
	nblocks = w->nblocks;
	block_csum = w->block_csum;
	if (w->pending) {
		csum_span(w, span0, len0, w->data_len);
		csum_span(w, span1, len1, w->data_len + len0);
	}
	ret = write_all(w, iov, iovcnt, NPROF_NTFF_HEADER_SIZE + w->data_len);
	if (ret && w->pending) {
		/* As if never called: the next append writes over what this left. */
		w->nblocks = nblocks;
		w->block_csum = block_csum;
		return ret;
	}
	if (ret)
		return writer_fail(w, ret);
	start_writeback(w, w->data_len + total);
	if (!w->pending) {
		csum_span(w, span0, len0, w->data_len);
		csum_span(w, span1, len1, w->data_len + len0);
	}

record:
	if (same_queue_as_last(w, desc, first != NULL, first_seq) &&
	    (!trimmed || !w->traces[w->ntraces - 1].entry_count)) {
		ti = &w->traces[w->ntraces - 1];
		if (trimmed)
			ti->has_trimmed_count = 1, ti->trimmed_count += trimmed;
		if (first) {
			/* A packed record without entries is a filler: no seqs yet. */
			if (!ti->entry_count || (w->raw_packed && !ti->first_seq && !ti->last_seq))
				ti->first_seq = first_seq;
			ti->last_seq = last_seq;
		}
		ti->entry_count += total / es;
		ti->data_length += total;
		ti->lost_count += desc->lost_count;
		ti->ring_flags |= desc->ring_flags;
		w->data_len += total;
		return (int)(w->ntraces - 1);
	}

	ti = &w->traces[w->ntraces];
	neuronprof__ntff__trace_info__init(ti);
	ti->has_trace_type = 1, ti->trace_type = (Neuronprof__Ntff__NotificationTraceType)trace_type;
	ti->has_block_type = 1, ti->block_type = (Neuronprof__Ntff__BlockType)block_type;
	ti->has_queue_type = 1, ti->queue_type = desc->queue_type;
	ti->has_target_kind = 1, ti->target_kind = desc->target_kind;
	ti->has_target_index = 1, ti->target_index = desc->target_index;
	ti->has_engine = 1, ti->engine = desc->engine;
	ti->has_entry_size = 1, ti->entry_size = desc->entry_size;
	ti->has_entry_count = 1, ti->entry_count = total / es;
	ti->has_lost_count = 1, ti->lost_count = desc->lost_count;
	ti->has_first_seq = 1, ti->first_seq = first ? first_seq : 0;
	ti->has_last_seq = 1, ti->last_seq = first ? last_seq : 0;
	ti->has_data_offset = 1, ti->data_offset = w->data_len;
	ti->has_data_length = 1, ti->data_length = total;
	ti->has_ring_flags = 1, ti->ring_flags = desc->ring_flags;
	ti->has_trimmed_count = trimmed != 0, ti->trimmed_count = trimmed;
	w->data_len += total;
	return (int)w->ntraces++;
}

static void writer_free(struct nprof_ntff_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->dirfd >= 0)
		close(w->dirfd);
	free(w->info.instance_id);
	free(w->info.hostname);
	free(w->info.model_name);
	free(w->device.provider);
	ntff_writer_free_names(w);
	free(w->traces);
	free(w->blocks);
	ntff_wz_free(w);
	free(w->name);
	free(w->tmpname);
	free(w->error_msg);
	free(w);
}

NPROF_API void nprof_ntff_writer_abort(struct nprof_ntff_writer *w)
{
	if (!w)
		return;
	if (w->tmpname && w->tmpname[0])
		unlinkat(w->dirfd, w->tmpname, 0);
	writer_free(w);
}

/*
 * Write the block table and the metadata after the data, then the header,
 * cut the file there and sync it. The writer's state is left as it was, so
 * a failure (a full disk) can be retried.
 */
static int write_trailer(struct nprof_ntff_writer *w)
{
	unsigned char hbuf[NPROF_NTFF_HEADER_SIZE];
	Neuronprof__Ntff__TraceInfo **ptrs = NULL;
	struct nprof_ntff_header h;
	uint32_t *table = w->blocks;
	unsigned char *ztable = NULL;
	const unsigned char *ztail = NULL;
	size_t ztail_len = 0;
	uint64_t stored;
	uint8_t *meta = NULL;
	struct iovec iov[3];
	struct timespec ts;
	size_t i, mlen, tlen, nblocks = w->nblocks, swapped = 0;
	char producer[32];
	int ret;

	ptrs = malloc((w->ntraces ? w->ntraces : 1) * sizeof(*ptrs));
	if (!ptrs) {
		ret = nprof_err(ENOMEM, "cannot allocate %zu queue records", w->ntraces);
		goto out;
	}
	for (i = 0; i < w->ntraces; i++)
		ptrs[i] = &w->traces[i];
	w->info.trace = ptrs;
	w->info.n_trace = w->ntraces;
	snprintf(producer, sizeof(producer), "libneuronprof %s", nprof_version_string());
	w->info.producer = producer;

	mlen = neuronprof__ntff__ntff_info__get_packed_size(&w->info);
	meta = malloc(mlen ? mlen : 1);
	if (!meta) {
		ret = nprof_err(ENOMEM, "cannot allocate %zu bytes of metadata", mlen);
		goto out;
	}
	neuronprof__ntff__ntff_info__pack(&w->info, meta);

	/*
	 * The table in file order, with the partial last block, is the
	 * writer's own table in little-endian order: reserve_blocks() keeps
	 * room for the partial block, so finalize needs no second copy. The
	 * slot past w->nblocks and the byte order are put back below, so a
	 * failed finalize can be retried.
	 */
	if (w->zlevel) {
		/* Compressed: the partial block's stored bytes, then the 16-byte entries. */
		ztable = ntff_wz_table(w, &ztail, &ztail_len, &tlen);
		if (!ztable) {
			ret = -errno;
			goto out;
		}
		stored = w->zstored;
		iov[0].iov_base = (void *)ztail;
		iov[0].iov_len = ztail_len;
		iov[1].iov_base = ztable;
		iov[1].iov_len = tlen;
		iov[2].iov_base = meta;
		iov[2].iov_len = mlen;
		ret = write_all(w, iov, 3, NPROF_NTFF_HEADER_SIZE + stored);
		stored += ztail_len;
	} else {
		if (w->data_len % w->block_size)
			table[nblocks++] = w->block_csum;
		for (i = 0; i < nblocks; i++)
			table[i] = htole32(table[i]);
		swapped = nblocks;
		tlen = nblocks * NTFF_BLOCK_CSUM_SIZE;
		stored = w->data_len;
		iov[0].iov_base = table;
		iov[0].iov_len = tlen;
		iov[1].iov_base = meta;
		iov[1].iov_len = mlen;
		ret = write_all(w, iov, 2, NPROF_NTFF_HEADER_SIZE + w->data_len);
	}
	if (ret)
		goto out;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, NPROF_NTFF_MAGIC, NPROF_NTFF_MAGIC_LEN);
	h.version_major = w->zlevel ? NPROF_NTFF_VERSION_MAJOR_ZSTD :
			  w->raw_packed ? NPROF_NTFF_VERSION_MAJOR_PACKED :
			  w->device.raw_format != NEURONPROF_RAW_FORMAT_NONE ?
				  NPROF_NTFF_VERSION_MAJOR_RAW : NPROF_NTFF_VERSION_MAJOR;
	h.version_minor = NPROF_NTFF_VERSION_MINOR;
	h.header_size = NPROF_NTFF_HEADER_SIZE;
	h.checksum_type = NPROF_NTFF_CSUM_CRC32C;
	h.data_offset = NPROF_NTFF_HEADER_SIZE;
	h.data_length = stored;
	if (w->zlevel) {
		uint64_t size = htole64(w->data_len);

		/* Major 4: the region's length once decompressed, in reserved bytes 0-7. */
		memcpy(h.reserved, &size, sizeof(size));
	}
	h.block_size = w->block_size;
	h.block_table_offset = NPROF_NTFF_HEADER_SIZE + stored;
	h.block_table_length = tlen;
	h.block_table_csum = nprof_crc32c_update(0, ztable ? (const void *)ztable : (const void *)table,
						 tlen);
	h.metadata_offset = h.block_table_offset + tlen;
	h.metadata_length = mlen;
	h.metadata_csum = nprof_crc32c_update(0, meta, mlen);
	clock_gettime(CLOCK_REALTIME, &ts);
	h.creation_time_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	h.producer_version = nprof_version();
	nprof_ntff_header_encode(&h, hbuf);
	h.header_csum = nprof_crc32c_update(0, hbuf, NTFF_HEADER_CSUM_SPAN);
	nprof_ntff_header_encode(&h, hbuf);
	iov[0].iov_base = hbuf;
	iov[0].iov_len = sizeof(hbuf);
	ret = write_all(w, iov, 1, 0);
	if (ret)
		goto out;

	/* A failed append of a pending writer may have left bytes past the end. */
	if (w->pending && ftruncate(w->fd, (off_t)(h.metadata_offset + mlen))) {
		ret = nprof_err(errno, "cannot truncate %s: %s", w->name, strerror(errno));
		goto out;
	}
	if (fsync(w->fd))
		ret = nprof_err(errno, "cannot sync %s: %s", w->name, strerror(errno));
out:
	w->info.trace = NULL;
	w->info.n_trace = 0;
	w->info.producer = NULL;
	for (i = 0; i < swapped; i++)
		table[i] = le32toh(table[i]);
	free(ztable);
	free(ptrs);
	free(meta);
	return ret;
}

static int finalize(struct nprof_ntff_writer *w)
{
	int ret;

	ret = write_trailer(w);
	if (ret)
		return ret;
	/* Renamed over a regular file, written into a device or FIFO, through a link. */
	return nprof_tmpfile_place(w->fd, w->dirfd, w->tmpname, w->dirfd, w->name,
				   w->flags & NPROF_NTFF_WRITE_NOREPLACE, w->name, NULL);
}

NPROF_API int nprof_ntff_writer_finalize(struct nprof_ntff_writer *w)
{
	int ret;

	if (!w)
		return nprof_err(EINVAL, "NTFF writer is NULL");
	ret = w->error ? ntff_writer_replay(w) : finalize(w);
	nprof_ntff_writer_abort(w);
	return ret;
}

/* ---- pending writers (the capture engine's streaming) ---------------------- */

struct nprof_ntff_writer *nprof_ntff_writer_create_pending(const char *dir)
{
	struct nprof_ntff_writer *w;
	int dfd, fd, err;
	char *label;

	dfd = nprof_dir_open(dir);
	if (dfd < 0) {
		errno = -dfd;
		return NULL;
	}
	fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	err = errno;
	if (fd < 0 && err != EOPNOTSUPP && err != EISDIR && err != EINVAL) {
		close(dfd);
		return nprof_err_ptr(err, "cannot create a file in %s: %s", dir, strerror(err));
	}
	/* Without O_TMPFILE on this file system (fd < 0): a hidden name until commit. */
	w = writer_open(dfd, "capture.ntff", 0, fd);
	if (!w)
		return NULL;
	w->pending = true;
	if (asprintf(&label, "the profile being captured in %s", dir) >= 0) {
		free(w->name);
		w->name = label;
	}
	return w;
}

int nprof_ntff_writer_commit(struct nprof_ntff_writer **wp, int dirfd, const char *name)
{
	struct nprof_ntff_writer *w = *wp;
	bool placed;
	char *dup;
	int ret;

	if (!w->pending)
		return nprof_err(EINVAL, "NTFF writer is not a pending one");
	ret = check_name(name);
	if (ret)
		return ret;
	dup = strdup(name);
	if (!dup)
		return nprof_err(ENOMEM, "cannot copy the file name %s", name);
	free(w->name);
	w->name = dup;
	ret = write_trailer(w);
	if (ret)
		return ret;
	/*
	 * The unnamed file is linked in, the hidden one renamed (each copied
	 * across file systems), or, for a device or FIFO, written into it.
	 */
	ret = nprof_tmpfile_place(w->fd, w->dirfd, w->tmpname, dirfd, name, false, name, &placed);
	/* In place: the writer is spent whatever the directory's sync says. */
	if (placed) {
		writer_free(w);
		*wp = NULL;
	}
	return ret;
}

void nprof_ntff_writer_forget(struct nprof_ntff_writer *w)
{
	if (w)
		writer_free(w);
}

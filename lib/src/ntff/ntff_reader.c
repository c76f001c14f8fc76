// SPDX-License-Identifier: MIT
/*
 * NTFF reader: maps a file (or takes a caller's buffer) and validates all of
 * it before handing anything out, so accessors and the entry iterator never
 * need to check bounds again (the checks are in ntff_reader_validate.c;
 * this file opens, hands out and iterates).
 *
 * The data region is covered by one CRC32C per block. By default (library
 * 1.3) open checks everything but the blocks, and the chunk iterator
 * verifies each block right before handing out its entries, while the block
 * is still in the CPU cache for the caller: one pass over memory. With
 * NPROF_NTFF_READ_VERIFY_AT_OPEN (what flags 0 meant up to library 1.2, and
 * still means to programs linked against those: see the compatibility
 * versions at the end) every block is verified at open, which reads the data
 * once before the caller iterates it a second time, and the entries
 * pointers are handed out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff/ntff_reader_internal.h"

/* The three modes; a caller names at most one (none: one pass). */
#define READ_FLAGS	(NPROF_NTFF_READ_NO_DATA_CSUM | NPROF_NTFF_READ_VERIFY_LAZY | \
			 NPROF_NTFF_READ_VERIFY_AT_OPEN)

/* Mappings this long or longer are advised MADV_HUGEPAGE (reader_open()). */
#define NTFF_HUGE_MAP_MIN	(2u << 20)

NPROF_API void nprof_ntff_reader_close(struct nprof_ntff_reader *r)
{
	if (!r)
		return;
	if (r->info)
		neuronprof__ntff__ntff_info__free_unpacked(r->info, NULL);
	free(r->names);
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->verified);
	ntff_zstd_close(r);
	free((char *)r->what);
	free(r);
}

static struct nprof_ntff_reader *reader_new(const char *what, unsigned int flags)
{
	struct nprof_ntff_reader *r;

	if (flags & ~READ_FLAGS)
		return nprof_err_ptr(EINVAL, "unknown NTFF reader flags 0x%x", flags & ~READ_FLAGS);
	if (flags & (flags - 1))
		return nprof_err_ptr(EINVAL,
				     "NTFF reader flags 0x%x name more than one of NPROF_NTFF_READ_NO_DATA_CSUM, NPROF_NTFF_READ_VERIFY_LAZY and NPROF_NTFF_READ_VERIFY_AT_OPEN",
				     flags);
	/* The default is the one-pass mode: from here on it is named. */
	if (!flags)
		flags = NPROF_NTFF_READ_VERIFY_LAZY;
	r = calloc(1, sizeof(*r));
	if (r)
		r->what = strdup(what);
	if (!r || !r->what) {
		free(r);
		return nprof_err_ptr(ENOMEM, "cannot allocate an NTFF reader");
	}
	r->flags = flags;
	return r;
}

static struct nprof_ntff_reader *reader_finish(struct nprof_ntff_reader *r)
{
	int ret = ntff_reader_validate(r);

	if (ret) {
		nprof_ntff_reader_close(r);
		errno = -ret;
		return NULL;
	}
	return r;
}

static struct nprof_ntff_reader *reader_open_mem(const void *buf, size_t len, unsigned int flags)
{
	struct nprof_ntff_reader *r;

	if (!buf && len)
		return nprof_err_ptr(EINVAL, "NTFF buffer is NULL");
	r = reader_new("buffer", flags);
	if (!r)
		return NULL;
	r->base = buf ? buf : (const void *)"";
	r->len = len;
	return reader_finish(r);
}

static struct nprof_ntff_reader *reader_open(const char *path, unsigned int flags)
{
	struct nprof_ntff_reader *r;
	struct stat st;
	int fd, err;

	if (!path)
		return nprof_err_ptr(EINVAL, "NTFF path is NULL");
	r = reader_new(path, flags);
	if (!r)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		nprof_ntff_reader_close(r);
		return nprof_err_ptr(err, "cannot open %s: %s", path, strerror(err));
	}
	if (fstat(fd, &st)) {
		err = errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		nprof_ntff_reader_close(r);
		return nprof_err_ptr(EINVAL, "%s is not a regular file", path);
	}
	r->len = (size_t)st.st_size;
	if (r->len) {
		/*
		 * Pages are faulted in as the block checksums reach them; no
		 * MAP_POPULATE or MADV_POPULATE_READ. With the page cache in
		 * 2 MiB folios (each fault maps 2 MiB) populating first was
		 * 2-4% faster on a 256 MiB file; with 4 KiB folios (each fault
		 * maps 16 pages) it was 6-9% slower, as faulting then overlaps
		 * the memory reads of the checksum. The second loss is the
		 * bigger one, in milliseconds, and which case a file is in
		 * depends on how memory was fragmented when it was cached.
		 */
		r->map = mmap(NULL, r->len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (r->map == MAP_FAILED) {
			r->map = NULL;
			err = errno;
			goto fail;
		}
		r->map_len = r->len;
		r->base = r->map;
		/*
		 * What the page cache does not hold yet is then read in 2 MiB
		 * folios, which the kernel maps whole (one fault, one entry
		 * each) for this reader and every later one. After dropping a
		 * 256 MiB file from the cache, a first reader mapping it
		 * found 216 MiB of it so mapped (535 faults) without this,
		 * all of it (128 faults) with it (AMD EPYC, kernel 6.18;
		 * Documentation/ntff.rst). A cached file keeps its folios,
		 * and a kernel without transparent huge pages refuses the
		 * advice, which changes nothing.
		 */
		if (r->len >= NTFF_HUGE_MAP_MIN)
			(void)madvise(r->map, r->len, MADV_HUGEPAGE);
	} else {
		r->base = (const void *)"";
	}
	close(fd);
	return reader_finish(r);
fail:
	close(fd);
	nprof_ntff_reader_close(r);
	return nprof_err_ptr(err, "cannot map %s: %s", path, strerror(err));
}

NPROF_API const struct nprof_ntff_header *nprof_ntff_reader_header(const struct nprof_ntff_reader *r)
{
	if (!r)
		return nprof_err_ptr(EINVAL, "NTFF reader is NULL");
	return &r->hdr;
}

NPROF_API int nprof_ntff_reader_info(const struct nprof_ntff_reader *r, struct nprof_ntff_info *info)
{
	const Neuronprof__Ntff__NtffInfo *m;
	const Neuronprof__Ntff__DeviceInfo *d;
	struct nprof_ntff_info out;
	size_t size;

	if (!r || !info)
		return nprof_err(EINVAL, "NTFF reader or info is NULL");
	if (NPROF_SIZED_VALID_SINCE(info, nprof_ntff_info, NPROF_NTFF_INFO_SIZE_V1, NPROF_SIZED_OUT))
		return -EINVAL;
	size = info->size;
	m = r->info;
	d = m->device;
	memset(&out, 0, sizeof(out));
	out.size = size;
	out.pid = m->pid;
	out.core = m->core;
	out.capture_kind = (uint32_t)m->capture_kind;
	out.clock_id = m->clock_id;
	out.session_id = m->session_id;
	out.model_id = m->model_id;
	out.model_name = m->model_name;
	out.instance_id = m->instance_id;
	out.hostname = m->hostname;
	out.start_ns = m->start_ns;
	out.stop_ns = m->stop_ns;
	if (d) {
		out.device.arch = d->arch;
		out.device.uapi_version = d->uapi_version;
		out.device.num_cores = d->num_cores;
		out.device.num_topsps = d->num_topsps;
		out.device.engines_per_core = d->engines_per_core;
		out.device.entry_size = d->entry_size;
		out.device.device_index = d->device_index;
		out.device.provider = d->provider;
		out.device.clock_domain = d->clock_domain;
		out.device.raw_format = d->raw_format;
		out.device.raw_entry_size = d->raw_entry_size;
		out.device.raw_packed = d->raw_packed;
	}
	out.code_names = r->names;
	out.num_code_names = r->nnames;
	if (m->has_first_execution && m->has_last_execution && m->first_execution &&
	    m->last_execution >= m->first_execution) {
		out.exec_first = m->first_execution;
		out.exec_last = m->last_execution;
	}
	if (m->has_first_iteration && m->has_last_iteration && m->first_iteration &&
	    m->last_iteration >= m->first_iteration) {
		out.iter_first = m->first_iteration;
		out.iter_last = m->last_iteration;
	}
	/* Older callers' structs end before the raw fields or the names. */
	memcpy(info, &out, size < sizeof(out) ? size : sizeof(out));
	return 0;
}

NPROF_API int nprof_ntff_reader_queue_count(const struct nprof_ntff_reader *r)
{
	if (!r)
		return nprof_err(EINVAL, "NTFF reader is NULL");
	return (int)r->info->n_trace;
}

NPROF_API int nprof_ntff_reader_queue(const struct nprof_ntff_reader *r, size_t idx,
				      struct nprof_ntff_queue *q)
{
	const Neuronprof__Ntff__TraceInfo *t;
	struct nprof_ntff_queue out;
	size_t size;

	if (!r || !q)
		return nprof_err(EINVAL, "NTFF reader or queue is NULL");
	if (NPROF_SIZED_VALID_SINCE(q, nprof_ntff_queue, NPROF_NTFF_QUEUE_SIZE_V1, NPROF_SIZED_OUT))
		return -EINVAL;
	size = q->size;
	if (idx >= r->info->n_trace)
		return nprof_err(ERANGE, "queue record %zu does not exist (the file has %zu)", idx,
				 r->info->n_trace);
	t = r->info->trace[idx];
	memset(&out, 0, sizeof(out));
	out.size = size;
	out.trace_type = (uint32_t)t->trace_type;
	out.block_type = (uint32_t)t->block_type;
	out.queue_type = t->queue_type;
	out.target_kind = t->target_kind;
	out.target_index = t->target_index;
	out.engine = t->engine;
	out.entry_size = t->entry_size;
	out.ring_flags = t->ring_flags;
	out.entry_count = t->entry_count;
	out.lost_count = t->lost_count;
	out.first_seq = t->first_seq;
	out.last_seq = t->last_seq;
	out.data_offset = t->data_offset;
	out.data_length = t->data_length;
	/* A one-pass reader has not verified them: only the chunk iterator may. */
	out.entries = r->flags & NPROF_NTFF_READ_VERIFY_LAZY ? NULL : r->data + t->data_offset;
	out.trimmed_count = t->has_trimmed_count ? t->trimmed_count : 0;
	/* An older caller's struct ends before trimmed_count. */
	memcpy(q, &out, size < sizeof(out) ? size : sizeof(out));
	return 0;
}

NPROF_API const void *nprof_ntff_reader_metadata(const struct nprof_ntff_reader *r, size_t *len)
{
	if (!r || !len)
		return nprof_err_ptr(EINVAL, "NTFF reader or length is NULL");
	*len = r->hdr.metadata_length;
	return r->base + r->hdr.metadata_offset;
}

NPROF_API int nprof_ntff_chunk_iter_init(struct nprof_ntff_chunk_iter *it,
					 struct nprof_ntff_reader *r, size_t idx)
{
	const Neuronprof__Ntff__TraceInfo *t;

	if (!it || !r)
		return nprof_err(EINVAL, "NTFF chunk iterator or reader is NULL");
	if (idx >= r->info->n_trace)
		return nprof_err(ERANGE, "queue record %zu does not exist (the file has %zu)", idx,
				 r->info->n_trace);
	t = r->info->trace[idx];
	memset(it, 0, sizeof(*it));
	it->reader = r;
	it->pos = t->data_offset;
	it->end = t->data_offset + t->data_length;
	it->entry_size = t->entry_size;
	it->queue = idx;
	return 0;
}

NPROF_API int nprof_ntff_chunk_iter_next(struct nprof_ntff_chunk_iter *it, const void **entries)
{
	struct nprof_ntff_reader *r;
	uint64_t pos, stop, n;
	uint32_t es;
	int ret;

	if (!it || !entries || !it->reader)
		return nprof_err(EINVAL, "NTFF chunk iterator, its reader or the entries pointer is NULL");
	r = it->reader;
	pos = it->pos;
	es = it->entry_size;
	/* The state is the caller's memory: never let it point outside the data. */
	if (it->end > r->data_size || pos > it->end || es < NTFF_MIN_ENTRY_SIZE ||
	    es > r->hdr.block_size || (it->end - pos) % es)
		return nprof_err(EINVAL, "NTFF chunk iterator state is inconsistent (position %llu, end %llu, entry size %u)",
				 (unsigned long long)pos, (unsigned long long)it->end, es);
	if (pos == it->end)
		return 0;
	/* The entries that end inside the block @pos is in... */
	stop = ((pos >> r->block_shift) + 1) << r->block_shift;
	if (stop > it->end)
		stop = it->end;
	n = (stop - pos) / es;
	/* ...or the one entry that crosses into the next block. */
	if (!n)
		n = 1;
	if (r->verified) {
		ret = ntff_reader_verify_range(r, pos, n * es, it->queue);
		if (ret)
			return ret;
	}
	*entries = r->data + pos;
	it->pos = pos + n * es;
	return (int)n;
}

/*
 * The exported open functions, by symbol version. Up to library 1.2
 * (NEURONPROF_1.0) flags 0 verified every data block at open and handed
 * out entries pointers; programs linked against those versions keep exactly
 * that. Programs built against 1.3 bind to the default versions
 * (NEURONPROF_1.3), whose flags 0 reads in one pass. Only the shared
 * library has symbol versions: a static link takes the default version, and
 * the archive makes the rest local (lib/Makefile).
 */
static unsigned int flags_v1_0(unsigned int flags)
{
	return flags ? flags : NPROF_NTFF_READ_VERIFY_AT_OPEN;
}

/* The .symver directive: gcc and clang both take it (clang has no symver attribute). */
#define SYMVER(impl, versioned) __asm__(".symver " #impl ", " versioned)

NPROF_API struct nprof_ntff_reader *nprof_symver_ntff_reader_open_1_0(const char *path,
								   unsigned int flags);
NPROF_API struct nprof_ntff_reader *nprof_symver_ntff_reader_open_1_3(const char *path,
								   unsigned int flags);
NPROF_API struct nprof_ntff_reader *nprof_symver_ntff_reader_open_mem_1_0(const void *buf,
								       size_t len,
								       unsigned int flags);
NPROF_API struct nprof_ntff_reader *nprof_symver_ntff_reader_open_mem_1_3(const void *buf,
								       size_t len,
								       unsigned int flags);
SYMVER(nprof_symver_ntff_reader_open_1_0, "nprof_ntff_reader_open@NEURONPROF_1.0");
SYMVER(nprof_symver_ntff_reader_open_1_3, "nprof_ntff_reader_open@@NEURONPROF_1.3");
SYMVER(nprof_symver_ntff_reader_open_mem_1_0, "nprof_ntff_reader_open_mem@NEURONPROF_1.0");
SYMVER(nprof_symver_ntff_reader_open_mem_1_3, "nprof_ntff_reader_open_mem@@NEURONPROF_1.3");

struct nprof_ntff_reader *nprof_symver_ntff_reader_open_1_0(const char *path, unsigned int flags)
{
	return reader_open(path, flags_v1_0(flags));
}

struct nprof_ntff_reader *nprof_symver_ntff_reader_open_1_3(const char *path, unsigned int flags)
{
	return reader_open(path, flags);
}

struct nprof_ntff_reader *nprof_symver_ntff_reader_open_mem_1_0(const void *buf, size_t len,
								unsigned int flags)
{
	return reader_open_mem(buf, len, flags_v1_0(flags));
}

struct nprof_ntff_reader *nprof_symver_ntff_reader_open_mem_1_3(const void *buf, size_t len,
								unsigned int flags)
{
	return reader_open_mem(buf, len, flags);
}

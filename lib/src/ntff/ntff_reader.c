// SPDX-License-Identifier: MIT
/*
 * NTFF reader: maps a file (or takes a caller's buffer) and validates all of
 * it before handing anything out, so accessors and the entry iterator never
 * need to check bounds again. Every refusal says which check failed and
 * with what values.
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

struct nprof_ntff_reader {
	const unsigned char *base;
	size_t len;
	void *map;			/* mmap()ed region, NULL for open_mem */
	size_t map_len;
	struct nprof_ntff_header hdr;	/* host byte order */
	bool packed;			/* major 3: packed raw records */
	Neuronprof__Ntff__NtffInfo *info;
	struct nprof_ntff_code_name *names;	/* info->device->code_names, checked */
	size_t nnames;
	const unsigned char *data;
	const unsigned char *table;	/* block table */
	uint64_t nblocks;
	unsigned int block_shift;	/* log2 of the block size */
	unsigned int flags;
	uint64_t *verified;		/* bit per block, one-pass mode only */
	const char *what;		/* file name or "buffer", for messages */
};

/* The three modes; a caller names at most one (none: one pass). */
#define READ_FLAGS	(NPROF_NTFF_READ_NO_DATA_CSUM | NPROF_NTFF_READ_VERIFY_LAZY | \
			 NPROF_NTFF_READ_VERIFY_AT_OPEN)

/* Mappings this long or longer are advised MADV_HUGEPAGE (reader_open()). */
#define NTFF_HUGE_MAP_MIN	(2u << 20)

#define BAD(r, fmt, ...) nprof_err(EBADMSG, "%s: " fmt, (r)->what, ##__VA_ARGS__)

/* [off, off + len) inside [0, size) without overflow. */
static bool in_bounds(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/*
 * Region @what of a valid header lies past the end of the file: a file cut
 * short says "truncated" (the header is whole and its region ends where the
 * file once ended); bounds no file can have (past 2^63 bytes) are damage.
 */
static int past_end(const struct nprof_ntff_reader *r, const char *what, uint64_t off,
		    uint64_t len)
{
	uint64_t end;

	if (!__builtin_add_overflow(off, len, &end) && end <= INT64_MAX)
		return BAD(r, "truncated: %s [offset %llu, length %llu] ends at byte %llu, past the end of the file (%zu bytes)",
			   what, (unsigned long long)off, (unsigned long long)len,
			   (unsigned long long)end, r->len);
	return BAD(r, "%s [offset %llu, length %llu] extends past the end of the file (%zu bytes)",
		   what, (unsigned long long)off, (unsigned long long)len, r->len);
}

/* Two non-empty ranges, both known to be in bounds, share a byte. */
static bool overlap(uint64_t a_off, uint64_t a_len, uint64_t b_off, uint64_t b_len)
{
	return a_len && b_len && a_off < b_off + b_len && b_off < a_off + a_len;
}

static int validate_blocks(struct nprof_ntff_reader *r)
{
	const struct nprof_ntff_header *h = &r->hdr;
	uint32_t bs = h->block_size;
	uint64_t want;

	if (bs < NPROF_NTFF_BLOCK_SIZE_MIN || bs > NPROF_NTFF_BLOCK_SIZE_MAX || (bs & (bs - 1)))
		return BAD(r, "block size %u is not a power of two in [%u, %u]", bs,
			   NPROF_NTFF_BLOCK_SIZE_MIN, NPROF_NTFF_BLOCK_SIZE_MAX);
	r->block_shift = (unsigned int)__builtin_ctz(bs);
	r->nblocks = ntff_block_count(h->data_length, bs);
	want = r->nblocks * NTFF_BLOCK_CSUM_SIZE;
	if (h->block_table_length != want)
		return BAD(r, "block table length %llu does not match the %llu-byte data region: %llu blocks of %u bytes need %llu",
			   (unsigned long long)h->block_table_length,
			   (unsigned long long)h->data_length, (unsigned long long)r->nblocks, bs,
			   (unsigned long long)want);
	r->table = r->base + h->block_table_offset;
	return 0;
}

static int validate_header(struct nprof_ntff_reader *r)
{
	struct nprof_ntff_header *h = &r->hdr;
	uint16_t major, minor;
	uint32_t csum;
	size_t i;

	if (r->len < NPROF_NTFF_MAGIC_LEN + 4) {
		/* Only the start of an NTFF file is a truncated one; a short text file is not. */
		size_t n = r->len < NPROF_NTFF_MAGIC_LEN ? r->len : NPROF_NTFF_MAGIC_LEN;

		if (memcmp(r->base, NPROF_NTFF_MAGIC, n))
			return BAD(r, "bad magic: not an NTFF file (%zu bytes, which do not start like one)",
				   r->len);
		return BAD(r, "truncated: %zu bytes, shorter than the %d-byte NTFF header", r->len,
			   NPROF_NTFF_HEADER_SIZE);
	}
	if (memcmp(r->base, NPROF_NTFF_MAGIC, NPROF_NTFF_MAGIC_LEN))
		return BAD(r, "bad magic %02x %02x %02x %02x %02x %02x %02x %02x: not an NTFF file",
			   r->base[0], r->base[1], r->base[2], r->base[3], r->base[4], r->base[5],
			   r->base[6], r->base[7]);
	memcpy(&major, r->base + 8, 2);
	memcpy(&minor, r->base + 10, 2);
	major = le16toh(major);
	minor = le16toh(minor);
	if (major != NPROF_NTFF_VERSION_MAJOR && major != NPROF_NTFF_VERSION_MAJOR_RAW &&
	    major != NPROF_NTFF_VERSION_MAJOR_PACKED)
		return nprof_err(EPROTONOSUPPORT,
				 "%s: NTFF version %u.%u is not supported: major version %u is unknown (this reader reads %d.x, %d.x and %d.x)",
				 r->what, major, minor, major, NPROF_NTFF_VERSION_MAJOR,
				 NPROF_NTFF_VERSION_MAJOR_RAW, NPROF_NTFF_VERSION_MAJOR_PACKED);
	if (r->len < NPROF_NTFF_HEADER_SIZE)
		return BAD(r, "truncated: %zu bytes, shorter than the %d-byte NTFF header", r->len,
			   NPROF_NTFF_HEADER_SIZE);
	nprof_ntff_header_decode(r->base, h);

	if (h->header_size < NPROF_NTFF_HEADER_SIZE || h->header_size > r->len)
		return BAD(r, "header size %u is outside [%d, file size %zu]", h->header_size,
			   NPROF_NTFF_HEADER_SIZE, r->len);
	if (h->checksum_type != NPROF_NTFF_CSUM_CRC32C)
		return BAD(r, "unknown checksum type %u", h->checksum_type);
	csum = nprof_crc32c_update(0, r->base, NTFF_HEADER_CSUM_SPAN);
	if (csum != h->header_csum)
		return BAD(r, "header checksum mismatch: stored 0x%08x, computed 0x%08x",
			   h->header_csum, csum);
	/* A newer minor may use reserved bytes; this one must not. */
	if (h->version_minor <= NPROF_NTFF_VERSION_MINOR)
		for (i = 0; i < sizeof(h->reserved); i++)
			if (h->reserved[i])
				return BAD(r, "reserved header byte at offset %zu is 0x%02x, not 0",
					   offsetof(struct nprof_ntff_header, reserved) + i,
					   h->reserved[i]);

	if (!in_bounds(h->metadata_offset, h->metadata_length, r->len))
		return past_end(r, "metadata", h->metadata_offset, h->metadata_length);
	if (!in_bounds(h->data_offset, h->data_length, r->len))
		return past_end(r, "data region", h->data_offset, h->data_length);
	if (!in_bounds(h->block_table_offset, h->block_table_length, r->len))
		return past_end(r, "block table", h->block_table_offset, h->block_table_length);
	if (h->metadata_offset < h->header_size || h->data_offset < h->header_size ||
	    h->block_table_offset < h->header_size)
		return BAD(r, "metadata offset %llu, data offset %llu or block table offset %llu overlaps the %u-byte header",
			   (unsigned long long)h->metadata_offset,
			   (unsigned long long)h->data_offset,
			   (unsigned long long)h->block_table_offset, h->header_size);
	if (overlap(h->metadata_offset, h->metadata_length, h->data_offset, h->data_length))
		return BAD(r, "metadata [%llu, +%llu] and data [%llu, +%llu] overlap",
			   (unsigned long long)h->metadata_offset,
			   (unsigned long long)h->metadata_length,
			   (unsigned long long)h->data_offset, (unsigned long long)h->data_length);
	if (overlap(h->block_table_offset, h->block_table_length, h->data_offset, h->data_length))
		return BAD(r, "block table [%llu, +%llu] and data [%llu, +%llu] overlap",
			   (unsigned long long)h->block_table_offset,
			   (unsigned long long)h->block_table_length,
			   (unsigned long long)h->data_offset, (unsigned long long)h->data_length);
	if (overlap(h->block_table_offset, h->block_table_length, h->metadata_offset,
		    h->metadata_length))
		return BAD(r, "block table [%llu, +%llu] and metadata [%llu, +%llu] overlap",
			   (unsigned long long)h->block_table_offset,
			   (unsigned long long)h->block_table_length,
			   (unsigned long long)h->metadata_offset,
			   (unsigned long long)h->metadata_length);
	if (h->data_offset % 8)
		return BAD(r, "data offset %llu is not a multiple of 8",
			   (unsigned long long)h->data_offset);
	r->data = r->base + h->data_offset;
	return validate_blocks(r);
}

static int validate_checksums(struct nprof_ntff_reader *r)
{
	const struct nprof_ntff_header *h = &r->hdr;
	uint32_t csum;

	csum = nprof_crc32c_update(0, r->base + h->metadata_offset, h->metadata_length);
	if (csum != h->metadata_csum)
		return BAD(r, "metadata checksum mismatch: stored 0x%08x, computed 0x%08x",
			   h->metadata_csum, csum);
	csum = nprof_crc32c_update(0, r->table, h->block_table_length);
	if (csum != h->block_table_csum)
		return BAD(r, "block table checksum mismatch: stored 0x%08x, computed 0x%08x",
			   h->block_table_csum, csum);
	return 0;
}

/* "queue record 2 (DMA core 0 engine 1)", for messages. */
static void describe_record(const struct nprof_ntff_reader *r, size_t idx, char *buf, size_t size)
{
	const Neuronprof__Ntff__TraceInfo *t = r->info->trace[idx];
	const char *qt = nprof_queue_type_name(t->queue_type);

	if (qt)
		snprintf(buf, size, "queue record %zu (%s %s %u engine %u)", idx, qt,
			 t->target_kind ? "topsp" : "core", t->target_index, t->engine);
	else
		snprintf(buf, size, "queue record %zu (queue type %u %s %u engine %u)", idx,
			 t->queue_type, t->target_kind ? "topsp" : "core", t->target_index,
			 t->engine);
}

/*
 * Check data block @blk against the block table. @rec is the record whose
 * entries are wanted, for the message; SIZE_MAX names the first record with
 * entries in the block, if any.
 */
static int check_block(const struct nprof_ntff_reader *r, uint64_t blk, size_t rec)
{
	uint64_t start = blk << r->block_shift, len = r->hdr.data_length - start;
	uint32_t stored, csum;
	char what[160];
	size_t i;

	if (len > (1ULL << r->block_shift))
		len = 1ULL << r->block_shift;
	memcpy(&stored, r->table + blk * NTFF_BLOCK_CSUM_SIZE, sizeof(stored));
	stored = le32toh(stored);
	csum = nprof_crc32c_update(0, r->data + start, (size_t)len);
	if (csum == stored)
		return 0;
	for (i = 0; rec == SIZE_MAX && r->info && i < r->info->n_trace; i++)
		if (overlap(r->info->trace[i]->data_offset, r->info->trace[i]->data_length, start, len))
			rec = i;
	if (rec == SIZE_MAX)
		snprintf(what, sizeof(what), "outside every queue record");
	else
		describe_record(r, rec, what, sizeof(what));
	return BAD(r, "data checksum mismatch: stored 0x%08x, computed 0x%08x in block %llu (bytes %llu..%llu of the data region, %s)",
		   stored, csum, (unsigned long long)blk, (unsigned long long)start,
		   (unsigned long long)(start + len - 1), what);
}

/* check_block() once per reader: a verified block is remembered. */
static int verify_block(struct nprof_ntff_reader *r, uint64_t blk, size_t rec)
{
	uint64_t bit = 1ULL << (blk % 64);
	int ret;

	if (r->verified[blk / 64] & bit)
		return 0;
	ret = check_block(r, blk, rec);
	if (!ret)
		r->verified[blk / 64] |= bit;
	return ret;
}

/* Verify the blocks holding data bytes [off, off + len), len > 0. */
static int verify_range(struct nprof_ntff_reader *r, uint64_t off, uint64_t len, size_t rec)
{
	uint64_t blk, last = (off + len - 1) >> r->block_shift;
	int ret;

	for (blk = off >> r->block_shift; blk <= last; blk++) {
		ret = r->verified ? verify_block(r, blk, rec) : check_block(r, blk, rec);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A queue record of packed raw records (major 3): whole records of 64-byte
 * entries, and its first/last seq those of the parts its records hold
 * (both 0 when none holds bytes). Every header is read, one per record.
 */
static int validate_packed(struct nprof_ntff_reader *r, size_t i,
			   const Neuronprof__Ntff__TraceInfo *t)
{
	struct ntff_packed_span s;
	const char *why;
	uint64_t at;
	int ret;

	if (t->entry_size != sizeof(struct neuronprof_notification))
		return BAD(r, "trace_info %zu: packed records in entries of %llu bytes, not %zu", i,
			   (unsigned long long)t->entry_size, sizeof(struct neuronprof_notification));
	why = ntff_packed_walk(r->data + t->data_offset, t->data_length, &s, &at);
	if (!why && (t->first_seq != s.first || t->last_seq != s.last))
		why = "first/last seq differ from its records'";
	if (!why)
		return 0;
	/* As for entries: a corrupt block is the better diagnosis. */
	if (t->data_length && !(r->flags & NPROF_NTFF_READ_NO_DATA_CSUM)) {
		ret = verify_range(r, t->data_offset, t->data_length, i);
		if (ret)
			return ret;
	}
	return BAD(r, "trace_info %zu: %s (byte %llu of its records; first/last seq %llu/%llu, its records' %llu/%llu)",
		   i, why, (unsigned long long)at, (unsigned long long)t->first_seq,
		   (unsigned long long)t->last_seq, (unsigned long long)s.first,
		   (unsigned long long)s.last);
}

static int validate_trace(struct nprof_ntff_reader *r, size_t i, const Neuronprof__Ntff__TraceInfo *t)
{
	uint32_t tt, bt;
	uint64_t es;

	if (!t->has_queue_type || !t->has_entry_size || !t->has_entry_count ||
	    !t->has_data_offset || !t->has_data_length)
		return BAD(r, "trace_info %zu lacks queue_type, entry_size, entry_count, data_offset or data_length",
			   i);
	if (nprof_ntff_map_queue_type(t->queue_type, &tt, &bt)) {
		/* A newer minor may add queue types; this minor knows them all. */
		if (r->hdr.version_minor <= NPROF_NTFF_VERSION_MINOR)
			return BAD(r, "trace_info %zu has unknown queue type %u", i, t->queue_type);
	} else if ((t->has_trace_type && (uint32_t)t->trace_type != tt) ||
		   (t->has_block_type && (uint32_t)t->block_type != bt)) {
		return BAD(r, "trace_info %zu: queue type %u maps to trace type %u / block type %u, file says %u / %u",
			   i, t->queue_type, tt, bt, (unsigned int)t->trace_type,
			   (unsigned int)t->block_type);
	}
	es = t->entry_size;
	if (es < NTFF_MIN_ENTRY_SIZE || es % 8 || es > NTFF_MAX_ENTRY_SIZE)
		return BAD(r, "trace_info %zu: entry size %llu is not a multiple of 8 in [%d, %u]", i,
			   (unsigned long long)es, NTFF_MIN_ENTRY_SIZE, NTFF_MAX_ENTRY_SIZE);
	/* So that an entry spans at most two blocks and a chunk fits in one. */
	if (es > r->hdr.block_size)
		return BAD(r, "trace_info %zu: entry size %llu exceeds the block size %u", i,
			   (unsigned long long)es, r->hdr.block_size);
	if (!in_bounds(t->data_offset, t->data_length, r->hdr.data_length))
		return BAD(r, "trace_info %zu: entries [offset %llu, length %llu] lie outside the %llu-byte data region",
			   i, (unsigned long long)t->data_offset, (unsigned long long)t->data_length,
			   (unsigned long long)r->hdr.data_length);
	if (t->data_offset % 8)
		return BAD(r, "trace_info %zu: data offset %llu is not a multiple of 8", i,
			   (unsigned long long)t->data_offset);
	if (t->data_length % es)
		return BAD(r, "trace_info %zu: data length %llu is not a multiple of entry size %llu", i,
			   (unsigned long long)t->data_length, (unsigned long long)es);
	if (t->data_length / es != t->entry_count)
		return BAD(r, "trace_info %zu: entry count %llu does not match %llu bytes of %llu-byte entries",
			   i, (unsigned long long)t->entry_count, (unsigned long long)t->data_length,
			   (unsigned long long)es);
	if (r->packed)
		return validate_packed(r, i, t);
	if (t->entry_count) {
		const unsigned char *first = r->data + t->data_offset;
		const unsigned char *last = first + t->data_length - es;
		uint64_t fs = ntff_entry_seq(first), ls = ntff_entry_seq(last);
		int ret;

		/*
		 * The entries' blocks are not verified yet (a one-pass reader never
		 * verifies them here): if the seqs disagree, a corrupt block is
		 * the better diagnosis.
		 */
		if ((t->first_seq != fs || t->last_seq != ls) &&
		    !(r->flags & NPROF_NTFF_READ_NO_DATA_CSUM)) {
			ret = verify_range(r, t->data_offset, es, i);
			if (!ret)
				ret = verify_range(r, t->data_offset + t->data_length - es, es, i);
			if (ret)
				return ret;
		}
		if (t->first_seq != fs || t->last_seq != ls)
			return BAD(r, "trace_info %zu: first/last seq %llu/%llu differ from its entries' %llu/%llu",
				   i, (unsigned long long)t->first_seq,
				   (unsigned long long)t->last_seq, (unsigned long long)fs,
				   (unsigned long long)ls);
		if (ls < fs || ls - fs > UINT64_MAX - 1 || ls - fs + 1 < t->entry_count)
			return BAD(r, "trace_info %zu: seq range %llu..%llu cannot hold %llu entries", i,
				   (unsigned long long)fs, (unsigned long long)ls,
				   (unsigned long long)t->entry_count);
	} else if (t->first_seq || t->last_seq) {
		return BAD(r, "trace_info %zu: no entries but first/last seq %llu/%llu", i,
			   (unsigned long long)t->first_seq, (unsigned long long)t->last_seq);
	}
	return 0;
}


/* The device's name table (NTFF 1.2), checked as the writer checks it. */
static int read_code_names(struct nprof_ntff_reader *r, uint32_t raw_format)
{
	const Neuronprof__Ntff__DeviceInfo *d = r->info->device;
	const char *why;
	size_t i, at;

	if (!d || !d->n_code_names)
		return 0;
	r->names = calloc(d->n_code_names, sizeof(*r->names));
	if (!r->names)
		return nprof_err(ENOMEM, "cannot allocate %zu code names of %s",
				 d->n_code_names, r->what);
	r->nnames = d->n_code_names;
	for (i = 0; i < r->nnames; i++) {
		const Neuronprof__Ntff__CodeName *c = d->code_names[i];

		if (!c->has_queue_type || !c->has_code || !c->name)
			return BAD(r, "code name %zu lacks its queue type, code or name", i);
		r->names[i].queue_type = c->queue_type;
		r->names[i].code = c->code;
		r->names[i].name = c->name;
	}
	why = nprof_ntff_code_names_problem(r->names, r->nnames, raw_format, &at);
	if (why)
		return BAD(r, "%s (code name %zu of %zu)", why, at, r->nnames);
	return 0;
}

static int validate(struct nprof_ntff_reader *r)
{
	const struct nprof_ntff_header *h;
	uint32_t raw_format, packed;
	uint64_t blk;
	size_t i;
	int ret;

	ret = validate_header(r);
	if (!ret)
		ret = validate_checksums(r);
	if (ret)
		return ret;
	if (r->flags & NPROF_NTFF_READ_VERIFY_LAZY) {
		r->verified = calloc(r->nblocks / 64 + 1, sizeof(*r->verified));
		if (!r->verified)
			return nprof_err(ENOMEM, "cannot allocate the block map of %s (%llu blocks)",
					 r->what, (unsigned long long)r->nblocks);
	}
	h = &r->hdr;
	r->info = neuronprof__ntff__ntff_info__unpack(NULL, h->metadata_length,
						      r->base + h->metadata_offset);
	if (!r->info)
		return BAD(r, "metadata (%llu bytes at offset %llu) is not a valid ntff_info message",
			   (unsigned long long)h->metadata_length,
			   (unsigned long long)h->metadata_offset);
	raw_format = r->info->device ? r->info->device->raw_format : NEURONPROF_RAW_FORMAT_NONE;
	packed = r->info->device ? r->info->device->raw_packed : 0;
	/*
	 * Raw entries only in files that readers of major 1 refuse, packed
	 * records only in files that readers of majors 1 and 2 refuse.
	 */
	if ((raw_format != NEURONPROF_RAW_FORMAT_NONE && !packed) !=
	    (h->version_major == NPROF_NTFF_VERSION_MAJOR_RAW) ||
	    (raw_format != NEURONPROF_RAW_FORMAT_NONE && packed == 1) !=
	    (h->version_major == NPROF_NTFF_VERSION_MAJOR_PACKED) ||
	    (raw_format == NEURONPROF_RAW_FORMAT_NONE && packed))
		return BAD(r, "major version %u with raw format %u (raw entries are major %d, others %d), packed %u (packed raw records are major %d)",
			   h->version_major, raw_format, NPROF_NTFF_VERSION_MAJOR_RAW,
			   NPROF_NTFF_VERSION_MAJOR, packed, NPROF_NTFF_VERSION_MAJOR_PACKED);
	r->packed = packed;
	ret = read_code_names(r, raw_format);
	if (ret)
		return ret;
	for (i = 0; i < r->info->n_trace; i++) {
		ret = validate_trace(r, i, r->info->trace[i]);
		if (ret)
			return ret;
	}
	if (r->flags & (NPROF_NTFF_READ_NO_DATA_CSUM | NPROF_NTFF_READ_VERIFY_LAZY))
		return 0;
	/* In file order, so that pages are faulted in sequentially. */
	for (blk = 0; blk < r->nblocks; blk++) {
		ret = check_block(r, blk, SIZE_MAX);
		if (ret)
			return ret;
	}
	return 0;
}

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
	int ret = validate(r);

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
	if (it->end > r->hdr.data_length || pos > it->end || es < NTFF_MIN_ENTRY_SIZE ||
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
		ret = verify_range(r, pos, n * es, it->queue);
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

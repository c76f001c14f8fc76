// SPDX-License-Identifier: MIT
/*
 * NTFF reader: the checks of a file at open. One job: everything
 * ntff_reader.c hands out is first checked here (header, block table,
 * metadata, queue records, packed raw records; the data blocks are
 * ntff_reader_verify.c's),
 * and every refusal says which check failed and with what values.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drm/neuronprof_drm.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff/ntff_reader_internal.h"

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

static int validate_blocks(struct nprof_ntff_reader *r)
{
	const struct nprof_ntff_header *h = &r->hdr;
	uint32_t bs = h->block_size;
	uint64_t want;

	if (bs < NPROF_NTFF_BLOCK_SIZE_MIN || bs > NPROF_NTFF_BLOCK_SIZE_MAX || (bs & (bs - 1)))
		return BAD(r, "block size %u is not a power of two in [%u, %u]", bs,
			   NPROF_NTFF_BLOCK_SIZE_MIN, NPROF_NTFF_BLOCK_SIZE_MAX);
	/* Compressed blocks are at most an entry's largest size (a writer's largest). */
	if (r->zstd && bs > NTFF_MAX_ENTRY_SIZE)
		return BAD(r, "block size %u of compressed blocks is over %u", bs, NTFF_MAX_ENTRY_SIZE);
	r->block_shift = (unsigned int)__builtin_ctz(bs);
	r->nblocks = ntff_block_count(r->data_size, bs);
	/* Major 4: 16 bytes per block (offset, stored length, checksum). */
	if (r->nblocks > UINT64_MAX / NPROF_NTFF_ZBLOCK_ENTRY_SIZE)
		return BAD(r, "data region of %llu bytes is too large",
			   (unsigned long long)r->data_size);
	want = r->nblocks * (r->zstd ? NPROF_NTFF_ZBLOCK_ENTRY_SIZE : NTFF_BLOCK_CSUM_SIZE);
	if (h->block_table_length != want)
		return BAD(r, "block table length %llu does not match the %llu-byte data region: %llu blocks of %u bytes need %llu",
			   (unsigned long long)h->block_table_length,
			   (unsigned long long)r->data_size, (unsigned long long)r->nblocks, bs,
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
	    major != NPROF_NTFF_VERSION_MAJOR_PACKED && major != NPROF_NTFF_VERSION_MAJOR_ZSTD)
		return nprof_err(EPROTONOSUPPORT,
				 "%s: NTFF version %u.%u is not supported: major version %u is unknown (this reader reads %d.x, %d.x, %d.x and %d.x)",
				 r->what, major, minor, major, NPROF_NTFF_VERSION_MAJOR,
				 NPROF_NTFF_VERSION_MAJOR_RAW, NPROF_NTFF_VERSION_MAJOR_PACKED,
				 NPROF_NTFF_VERSION_MAJOR_ZSTD);
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
	/* Major 4: reserved bytes 0-7 are the data region's decompressed length. */
	r->zstd = h->version_major == NPROF_NTFF_VERSION_MAJOR_ZSTD;
	r->data_size = h->data_length;
	if (r->zstd) {
		uint64_t size;

		memcpy(&size, h->reserved, sizeof(size));
		r->data_size = le64toh(size);
	}
	/* A newer minor may use reserved bytes; this one must not. */
	if (h->version_minor <= NPROF_NTFF_VERSION_MINOR)
		for (i = r->zstd ? sizeof(uint64_t) : 0; i < sizeof(h->reserved); i++)
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
	if (ntff_reader_overlap(h->metadata_offset, h->metadata_length, h->data_offset, h->data_length))
		return BAD(r, "metadata [%llu, +%llu] and data [%llu, +%llu] overlap",
			   (unsigned long long)h->metadata_offset,
			   (unsigned long long)h->metadata_length,
			   (unsigned long long)h->data_offset, (unsigned long long)h->data_length);
	if (ntff_reader_overlap(h->block_table_offset, h->block_table_length, h->data_offset, h->data_length))
		return BAD(r, "block table [%llu, +%llu] and data [%llu, +%llu] overlap",
			   (unsigned long long)h->block_table_offset,
			   (unsigned long long)h->block_table_length,
			   (unsigned long long)h->data_offset, (unsigned long long)h->data_length);
	if (ntff_reader_overlap(h->block_table_offset, h->block_table_length, h->metadata_offset,
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
	r->stored = r->data;
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
	/* Compressed, one pass: the record's blocks, decompressed to be walked. */
	if (r->zstd && r->verified && t->data_length) {
		ret = ntff_reader_verify_range(r, t->data_offset, t->data_length, i);
		if (ret)
			return ret;
	}
	why = ntff_packed_walk(r->data + t->data_offset, t->data_length, &s, &at);
	if (!why && (t->first_seq != s.first || t->last_seq != s.last))
		why = "first/last seq differ from its records'";
	if (!why)
		return 0;
	/* As for entries: a corrupt block is the better diagnosis. */
	if (t->data_length && !(r->flags & NPROF_NTFF_READ_NO_DATA_CSUM)) {
		ret = ntff_reader_verify_range(r, t->data_offset, t->data_length, i);
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
	if (!in_bounds(t->data_offset, t->data_length, r->data_size))
		return BAD(r, "trace_info %zu: entries [offset %llu, length %llu] lie outside the %llu-byte data region",
			   i, (unsigned long long)t->data_offset, (unsigned long long)t->data_length,
			   (unsigned long long)r->data_size);
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
		uint64_t fs, ls;
		int ret;

		/* Compressed, one pass: the blocks of the first and last entries, decompressed. */
		if (r->zstd && r->verified) {
			ret = ntff_reader_verify_range(r, t->data_offset, es, i);
			if (!ret)
				ret = ntff_reader_verify_range(r, t->data_offset + t->data_length - es, es, i);
			if (ret)
				return ret;
		}
		fs = ntff_entry_seq(first);
		ls = ntff_entry_seq(last);

		/*
		 * The entries' blocks are not verified yet (a one-pass reader never
		 * verifies them here): if the seqs disagree, a corrupt block is
		 * the better diagnosis.
		 */
		if ((t->first_seq != fs || t->last_seq != ls) &&
		    !(r->flags & NPROF_NTFF_READ_NO_DATA_CSUM)) {
			ret = ntff_reader_verify_range(r, t->data_offset, es, i);
			if (!ret)
				ret = ntff_reader_verify_range(r, t->data_offset + t->data_length - es, es, i);
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

int ntff_reader_validate(struct nprof_ntff_reader *r)
{
	const struct nprof_ntff_header *h;
	uint32_t raw_format, packed;
	uint64_t blk;
	size_t i;
	int ret;

	ret = validate_header(r);
	if (!ret)
		ret = validate_checksums(r);
	if (!ret && r->zstd)
		ret = ntff_zstd_open(r);
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
	/* Major 4 holds any of the three kinds: device_info alone says which. */
	if ((!r->zstd && ((raw_format != NEURONPROF_RAW_FORMAT_NONE && !packed) !=
			  (h->version_major == NPROF_NTFF_VERSION_MAJOR_RAW) ||
			  (raw_format != NEURONPROF_RAW_FORMAT_NONE && packed == 1) !=
			  (h->version_major == NPROF_NTFF_VERSION_MAJOR_PACKED))) ||
	    (r->zstd && packed > 1) ||
	    (raw_format == NEURONPROF_RAW_FORMAT_NONE && packed))
		return BAD(r, "major version %u with raw format %u (raw entries are major %d, others %d), packed %u (packed raw records are major %d)",
			   h->version_major, raw_format, NPROF_NTFF_VERSION_MAJOR_RAW,
			   NPROF_NTFF_VERSION_MAJOR, packed, NPROF_NTFF_VERSION_MAJOR_PACKED);
	r->packed = packed;
	ret = read_code_names(r, raw_format);
	if (ret)
		return ret;
	/*
	 * Compressed, the modes that give entries pointers: every block is
	 * decompressed now (verified too, but with NO_DATA_CSUM), in file order.
	 */
	if (r->zstd && !r->verified)
		for (blk = 0; blk < r->nblocks; blk++) {
			ret = ntff_zstd_block(r, blk, SIZE_MAX);
			if (ret)
				return ret;
		}
	for (i = 0; i < r->info->n_trace; i++) {
		ret = validate_trace(r, i, r->info->trace[i]);
		if (ret)
			return ret;
	}
	if (r->flags & (NPROF_NTFF_READ_NO_DATA_CSUM | NPROF_NTFF_READ_VERIFY_LAZY) || r->zstd)
		return 0;
	/* Every block, on up to two threads (ntff_reader_verify.c). */
	return ntff_reader_verify_all(r);
}

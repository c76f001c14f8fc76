// SPDX-License-Identifier: MIT
/*
 * NTFF tables: queue type -> (trace type, block type) and names, header
 * byte order, and the caller-sized struct rule.
 */
#include <errno.h>
#include <string.h>

#include <drm/neuronprof_drm.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"

static const struct {
	const char *name;
	uint32_t trace_type;
	uint32_t block_type;
} queue_types[] = {
	[NEURONPROF_QT_TRACE] = { "TRACE", NPROF_NTFF_TRACE_INSTRUCTION, NPROF_NTFF_BLOCK_ENGINE },
	[NEURONPROF_QT_EVENT] = { "EVENT", NPROF_NTFF_TRACE_EVENT, NPROF_NTFF_BLOCK_ENGINE },
	[NEURONPROF_QT_ERROR] = { "ERROR", NPROF_NTFF_TRACE_ERROR, NPROF_NTFF_BLOCK_CORE },
	[NEURONPROF_QT_INFER_STATUS] = { "INFER_STATUS", NPROF_NTFF_TRACE_INFER_STATUS,
					 NPROF_NTFF_BLOCK_CORE },
	[NEURONPROF_QT_DMA] = { "DMA", NPROF_NTFF_TRACE_DMA, NPROF_NTFF_BLOCK_ENGINE },
	[NEURONPROF_QT_THROTTLE] = { "THROTTLE", NPROF_NTFF_TRACE_THROTTLE, NPROF_NTFF_BLOCK_CORE },
	[NEURONPROF_QT_TOPSP_TRACE] = { "TOPSP_TRACE", NPROF_NTFF_TRACE_INSTRUCTION,
					NPROF_NTFF_BLOCK_TOPSP },
	[NEURONPROF_QT_TOPSP_EVENT] = { "TOPSP_EVENT", NPROF_NTFF_TRACE_EVENT, NPROF_NTFF_BLOCK_TOPSP },
	[NEURONPROF_QT_TOPSP_ERROR] = { "TOPSP_ERROR", NPROF_NTFF_TRACE_ERROR, NPROF_NTFF_BLOCK_TOPSP },
};

_Static_assert(ARRAY_SIZE(queue_types) == NEURONPROF_QT_COUNT, "a queue type is not mapped");
_Static_assert(NPROF_QUEUE_TYPES == NEURONPROF_QT_COUNT, "NPROF_QUEUE_TYPES is stale");
_Static_assert(NTFF_ENTRY_SEQ_OFFSET == offsetof(struct neuronprof_notification, seq),
	       "seq moved in struct neuronprof_notification");
/* The proto enums must equal the C enums. */
_Static_assert((int)NEURONPROF__NTFF__NOTIFICATION_TRACE_TYPE__NTT_THROTTLE == (int)NPROF_NTFF_TRACE_THROTTLE &&
	       (int)NEURONPROF__NTFF__NOTIFICATION_TRACE_TYPE__NTT_DMA == (int)NPROF_NTFF_TRACE_DMA &&
	       (int)NEURONPROF__NTFF__BLOCK_TYPE__BLOCK_TOPSP == (int)NPROF_NTFF_BLOCK_TOPSP &&
	       (int)NEURONPROF__NTFF__CAPTURE_KIND__CAPTURE_CONTINUOUS == (int)NPROF_NTFF_CAPTURE_CONTINUOUS,
	       "proto/ntff.proto and <neuronprof/ntff.h> disagree");

static const char *const trace_type_names[] = {
	"instruction", "event", "error", "infer_status", "dma", "throttle",
};

static const char *const block_type_names[] = { "engine", "core", "topsp" };

NPROF_API int nprof_ntff_map_queue_type(uint32_t queue_type, uint32_t *trace_type,
					uint32_t *block_type)
{
	if (queue_type >= ARRAY_SIZE(queue_types))
		return nprof_err(EINVAL, "unknown queue type %u", queue_type);
	if (trace_type)
		*trace_type = queue_types[queue_type].trace_type;
	if (block_type)
		*block_type = queue_types[queue_type].block_type;
	return 0;
}

NPROF_API const char *nprof_queue_type_name(uint32_t queue_type)
{
	if (queue_type >= ARRAY_SIZE(queue_types))
		return nprof_err_ptr(EINVAL, "unknown queue type %u", queue_type);
	return queue_types[queue_type].name;
}

NPROF_API int nprof_queue_type_from_name(const char *name)
{
	size_t i;

	if (!name)
		return nprof_err(EINVAL, "queue type name is NULL");
	for (i = 0; i < ARRAY_SIZE(queue_types); i++)
		if (!strcmp(name, queue_types[i].name))
			return (int)i;
	return nprof_err(EINVAL, "unknown queue type '%s'", name);
}

NPROF_API const char *nprof_ntff_trace_type_name(uint32_t trace_type)
{
	if (trace_type >= ARRAY_SIZE(trace_type_names))
		return nprof_err_ptr(EINVAL, "unknown NTFF trace type %u", trace_type);
	return trace_type_names[trace_type];
}

NPROF_API const char *nprof_ntff_block_type_name(uint32_t block_type)
{
	if (block_type >= ARRAY_SIZE(block_type_names))
		return nprof_err_ptr(EINVAL, "unknown NTFF block type %u", block_type);
	return block_type_names[block_type];
}

/* ---- header byte order --------------------------------------------------- */

#define PUT(off, bits, v) \
	do { \
		uint##bits##_t le_ = htole##bits(v); \
		memcpy(out + (off), &le_, sizeof(le_)); \
	} while (0)
#define GET(off, bits, dst) \
	do { \
		uint##bits##_t le_; \
		memcpy(&le_, in + (off), sizeof(le_)); \
		(dst) = le##bits##toh(le_); \
	} while (0)
#define OFF(m) offsetof(struct nprof_ntff_header, m)

void nprof_ntff_header_encode(const struct nprof_ntff_header *h,
			      unsigned char out[NPROF_NTFF_HEADER_SIZE])
{
	memset(out, 0, NPROF_NTFF_HEADER_SIZE);
	memcpy(out, h->magic, NPROF_NTFF_MAGIC_LEN);
	PUT(OFF(version_major), 16, h->version_major);
	PUT(OFF(version_minor), 16, h->version_minor);
	PUT(OFF(header_size), 32, h->header_size);
	PUT(OFF(flags), 32, h->flags);
	PUT(OFF(checksum_type), 32, h->checksum_type);
	PUT(OFF(metadata_offset), 64, h->metadata_offset);
	PUT(OFF(metadata_length), 64, h->metadata_length);
	PUT(OFF(data_offset), 64, h->data_offset);
	PUT(OFF(data_length), 64, h->data_length);
	PUT(OFF(metadata_csum), 32, h->metadata_csum);
	PUT(OFF(block_table_csum), 32, h->block_table_csum);
	PUT(OFF(creation_time_ns), 64, h->creation_time_ns);
	PUT(OFF(producer_version), 32, h->producer_version);
	PUT(OFF(block_size), 32, h->block_size);
	PUT(OFF(block_table_offset), 64, h->block_table_offset);
	PUT(OFF(block_table_length), 64, h->block_table_length);
	memcpy(out + OFF(reserved), h->reserved, sizeof(h->reserved));
	PUT(OFF(header_csum), 32, h->header_csum);
}

void nprof_ntff_header_decode(const unsigned char in[NPROF_NTFF_HEADER_SIZE],
			      struct nprof_ntff_header *h)
{
	memcpy(h->magic, in, NPROF_NTFF_MAGIC_LEN);
	GET(OFF(version_major), 16, h->version_major);
	GET(OFF(version_minor), 16, h->version_minor);
	GET(OFF(header_size), 32, h->header_size);
	GET(OFF(flags), 32, h->flags);
	GET(OFF(checksum_type), 32, h->checksum_type);
	GET(OFF(metadata_offset), 64, h->metadata_offset);
	GET(OFF(metadata_length), 64, h->metadata_length);
	GET(OFF(data_offset), 64, h->data_offset);
	GET(OFF(data_length), 64, h->data_length);
	GET(OFF(metadata_csum), 32, h->metadata_csum);
	GET(OFF(block_table_csum), 32, h->block_table_csum);
	GET(OFF(creation_time_ns), 64, h->creation_time_ns);
	GET(OFF(producer_version), 32, h->producer_version);
	GET(OFF(block_size), 32, h->block_size);
	GET(OFF(block_table_offset), 64, h->block_table_offset);
	GET(OFF(block_table_length), 64, h->block_table_length);
	memcpy(h->reserved, in + OFF(reserved), sizeof(h->reserved));
	GET(OFF(header_csum), 32, h->header_csum);
}

static bool code_name_ok(const char *name)
{
	size_t i;

	if (!name || !name[0])
		return false;
	for (i = 0; name[i]; i++) {
		char c = name[i];

		if (i == NPROF_NTFF_CODE_NAME_MAX ||
		    !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
			return false;
	}
	return true;
}

const char *nprof_ntff_code_names_problem(const struct nprof_ntff_code_name *names, size_t n,
					  uint32_t raw_format, size_t *at)
{
	size_t i;

	*at = 0;
	if (n && !names)
		return "a count of code names without the names";
	if (n && raw_format != NEURONPROF_RAW_FORMAT_NONE)
		return "code names with raw entries (a raw device names nothing)";
	for (i = 0; i < n; i++) {
		*at = i;
		if (i && (names[i].queue_type < names[i - 1].queue_type ||
			  (names[i].queue_type == names[i - 1].queue_type &&
			   names[i].code <= names[i - 1].code)))
			return "code names not sorted by (queue_type, code) or a pair twice";
		if (!code_name_ok(names[i].name))
			return "a code name that is not 1 to 23 characters of [a-z0-9_.]";
	}
	return NULL;
}

const char *ntff_packed_walk(const unsigned char *p, uint64_t len, struct ntff_packed_span *s,
			     uint64_t *at)
{
	const uint64_t es64 = sizeof(struct neuronprof_notification);
	uint64_t off = 0, seq, info, next = 0, slots;
	uint32_t code, bytes, es;

	*s = (struct ntff_packed_span){ 0 };
	if (len % es64) {
		*at = 0;
		return "packed records in a length that is not a multiple of 64";
	}
	while (off < len) {
		const unsigned char *h = p + off;

		*at = off;
		memcpy(&code, h + offsetof(struct neuronprof_notification, code), sizeof(code));
		memcpy(&info, h + offsetof(struct neuronprof_notification, payload[1]), sizeof(info));
		code = le32toh(code);
		info = le64toh(info);
		seq = ntff_entry_seq(h);
		bytes = NEURONPROF_RAW_PACKED_BYTES(info);
		es = NEURONPROF_RAW_PACKED_ENTRY_SIZE(info);
		if (code != NEURONPROF_RAW_PACKED)
			return "a packed record's header has another code";
		slots = NEURONPROF_RAW_PACKED_SLOTS(bytes);
		if (slots > (len - off) / es64)
			return "a packed record runs past the end of its queue record";
		off += slots * es64;
		if (!bytes)
			continue;	/* a filler */
		if (es < NEURONPROF_RAW_BYTES_PER_ENTRY || es > 256 || (es & (es - 1)) || bytes % es)
			return "a packed record's bytes are not whole device entries of a valid size";
		if (s->any && seq < next)
			return "a packed record's seq goes back";
		if (seq > UINT64_MAX - NEURONPROF_RAW_PACKED_SEQS(bytes))
			return "a packed record's seq overflows";
		if (!s->any)
			s->first = seq;
		s->any = true;
		next = seq + NEURONPROF_RAW_PACKED_SEQS(bytes);
		s->last = next - 1;
		s->parts += NEURONPROF_RAW_PACKED_SEQS(bytes);
	}
	return NULL;
}

// SPDX-License-Identifier: MIT
/*
 * neuronprof dump: one NTFF file as text or JSON: the header, the capture
 * description, every queue record and its entries.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/json.h"
#include "analysis/names.h"
#include "analysis/profile.h"
#include "analysis/raw.h"
#include "util/options.h"
#include "tool.h"
#include "util/progress.h"


struct dump_opts {
	bool json;
	uint64_t max_entries;
	enum progress_mode progress;
};

/*
 * A decoded entry: its op (the device's name of its code) and its model's
 * name where the file gives them, the code in its one spelling.
 */
static void entry_line(FILE *out, const struct prof_file *f, const struct entry *e)
{
	const char *op = file_code_name(f, e->queue_type, e->code);
	const char *model = files_model_name(&f, 1, e->model_id);
	char code[CODE_LEN];

	fprintf(out, "    seq %" PRIu64 " ts %" PRIu64 " engine %u", e->seq, e->ts, e->engine);
	if (op)
		fprintf(out, " op %s", op);
	fprintf(out, " code %s model %u", code_str(e->code, code), e->model_id);
	if (model)
		fprintf(out, " (%s)", model);
	fprintf(out, " iter %u payload 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 "\n",
		e->iteration, e->payload[0], e->payload[1], e->payload[2], e->payload[3]);
}

/*
 * Device entries of a raw record reassembled from consecutive parts; a part
 * that does not continue the entry in progress starts over (the rest of that
 * entry was lost).
 */
struct raw_asm {
	uint32_t index, next;
	size_t len;
	unsigned char bytes[255 * NEURONPROF_RAW_BYTES_PER_ENTRY];
};

/* Return true when @p completes a device entry of more than one part. */
static bool raw_asm_add(struct raw_asm *a, const struct raw_part *p)
{
	if (p->part == 0) {
		a->index = p->index;
		a->len = 0;
	} else if (p->index != a->index || p->part != a->next) {
		a->next = 0;
		return false;
	}
	memcpy(a->bytes + a->len, p->bytes, p->len);
	a->len += p->len;
	a->next = p->part + 1;
	return p->parts > 1 && a->next == p->parts;
}

static void raw_line(FILE *out, const struct entry *e, uint32_t format, struct raw_asm *a)
{
	char hex[2 * sizeof(a->bytes) + 1];
	struct raw_part p;

	raw_part_of(e, &p);
	fprintf(out, "    seq %" PRIu64 " ts %" PRIu64 " raw %s entry %u part %u/%u: %s\n", e->seq,
		e->ts, raw_format_name(format), p.index, p.part, p.parts,
		hex_bytes(hex, p.bytes, p.len));
	if (raw_asm_add(a, &p))
		fprintf(out, "      entry %u (%zu bytes): %s\n", a->index, a->len,
			hex_bytes(hex, a->bytes, a->len));
}

/* Opens an entry's JSON object with what every entry has, raw or not. */
static void entry_json_begin(struct json *j, const struct entry *e);
static void raw_json(struct json *j, const struct entry *e, uint32_t format);

/*
 * The raw parts of one queue record (raw.h: either raw record), from at
 * most @max of its ring entries: lines into stdout, or objects into @j.
 * Returns the ring entries read; *@done counts them for @pg.
 */
static uint64_t dump_raw(const struct prof_file *f, struct nprof_ntff_entry_iter *it,
			 uint64_t max, struct raw_asm *a, struct json *j, struct progress *pg,
			 uint64_t *done)
{
	uint64_t base = *done;
	struct raw_parts rp;
	struct raw_part part;
	struct entry e;

	raw_parts_init(&rp, f, raw_slot_record, it);
	while (rp.slots < max && raw_parts_next(&rp, &e, &part)) {
		if (j)
			raw_json(j, &e, f->info.device.raw_format);
		else
			raw_line(stdout, &e, f->info.device.raw_format, a);
		progress_update(pg, base + rp.slots);
	}
	*done = base + rp.slots;
	return rp.slots;
}

/* Opens an entry's JSON object with what every entry has, raw or not. */
static void entry_json_begin(struct json *j, const struct entry *e)
{
	jw_obj_begin(j, NULL);
	jw_u64(j, "seq", e->seq);
	jw_u64(j, "timestamp_ns", e->ts);
	jw_u64(j, "queue_type", e->queue_type);
	jw_u64(j, "engine", e->engine);
}

static void raw_json(struct json *j, const struct entry *e, uint32_t format)
{
	char hex[2 * NEURONPROF_RAW_BYTES_PER_ENTRY + 1];
	struct raw_part p;

	raw_part_of(e, &p);
	entry_json_begin(j, e);
	jw_obj_begin(j, "raw");
	jw_str(j, "format", raw_format_name(format));
	jw_u64(j, "entry", p.index);
	jw_u64(j, "part", p.part);
	jw_u64(j, "parts", p.parts);
	jw_str(j, "bytes", hex_bytes(hex, p.bytes, p.len));
	jw_obj_end(j);
	jw_obj_end(j);
}

static void entry_json(struct json *j, const struct prof_file *f, const struct entry *e)
{
	char code[CODE_LEN];

	entry_json_begin(j, e);
	jw_str(j, "op", file_code_name(f, e->queue_type, e->code));
	jw_str(j, "code", code_str(e->code, code));
	jw_str(j, "model", files_model_name(&f, 1, e->model_id));
	jw_u64(j, "model_id", e->model_id);
	jw_u64(j, "iteration", e->iteration);
	jw_arr_begin(j, "payload");
	for (int i = 0; i < 4; i++)
		jw_u64(j, NULL, e->payload[i]);
	jw_arr_end(j);
	jw_obj_end(j);
}

/*
 * What a queue's ring flags say, for the text dump: " (overflowed,
 * unreadable: ...)", or "" for none. A queue the provider could not read
 * (a neuron queue in device memory that BAR4 does not cover, say) holds no
 * entries for that reason, not because nothing happened.
 */
static const char *ring_flags_text(uint32_t f, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ NEURONPROF_RING_OVERFLOWED, "overflowed: entries were lost" },
		{ NEURONPROF_RING_DEAD, "dead: the device went away" },
		{ NEURONPROF_RING_BAD_CONSUMER, "bad consumer position" },
		{ NEURONPROF_RING_UNREADABLE, "unreadable: the provider could not read this queue "
					 "(neuron: such as device memory that BAR4 does not "
					 "cover; the kernel log names the reason), its entries "
					 "are not here" },
	};
	size_t n = 0, i;

	buf[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(f & names[i].bit))
			continue;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : " (",
				      names[i].name);
	}
	if (n && n + 1 < len)
		strcat(buf, ")");
	return buf;
}

static const char *target_kind_name(uint32_t kind)
{
	return kind == NEURONPROF_TARGET_CORE ? "core" : kind == NEURONPROF_TARGET_TOPSP ? "topsp" :
	       "unknown";
}

/* Major 4 (compressed blocks): the data region's length once decompressed, else 0. */
static uint64_t zstd_data_size(const struct nprof_ntff_header *h)
{
	uint64_t v;

	if (h->version_major != NPROF_NTFF_VERSION_MAJOR_ZSTD)
		return 0;
	memcpy(&v, h->reserved, sizeof(v));
	return le64toh(v);
}

static void dump_text(const struct prof_file *f, const struct dump_opts *o, struct progress *pg,
		      struct raw_asm *asm_)
{
	const struct nprof_ntff_header *h = nprof_ntff_reader_header(f->reader);
	const struct nprof_ntff_info *in = &f->info;
	const struct nprof_ntff_device *d = &in->device;
	uint64_t done = 0;

	printf("file: %s\n", f->path);
	printf("header:\n");
	printf("  version %u.%u, header size %u, flags 0x%x, checksum %s\n", h->version_major,
	       h->version_minor, h->header_size, h->flags,
	       h->checksum_type == NPROF_NTFF_CSUM_CRC32C ? "crc32c" : "unknown");
	printf("  data: offset %" PRIu64 ", length %" PRIu64 ", blocks of %u bytes\n",
	       h->data_offset, h->data_length, h->block_size);
	if (zstd_data_size(h))
		printf("  compressed: zstd, %" PRIu64 " bytes of entries stored in %" PRIu64
		       " (ratio %.2f)\n", zstd_data_size(h), h->data_length,
		       h->data_length ? (double)zstd_data_size(h) / (double)h->data_length : 0.0);
	printf("  block table: offset %" PRIu64 ", length %" PRIu64 ", checksum 0x%08x\n",
	       h->block_table_offset, h->block_table_length, h->block_table_csum);
	printf("  metadata: offset %" PRIu64 ", length %" PRIu64 ", checksum 0x%08x\n",
	       h->metadata_offset, h->metadata_length, h->metadata_csum);
	printf("  created %" PRIu64 " ns (CLOCK_REALTIME), producer %u.%u.%u\n",
	       h->creation_time_ns, h->producer_version >> 16, (h->producer_version >> 8) & 0xff,
	       h->producer_version & 0xff);
	printf("capture:\n");
	printf("  kind %s, pid %u, core %u", capture_kind_name(in->capture_kind), in->pid,
	       in->core);
	if (in->capture_kind == NPROF_NTFF_CAPTURE_SESSION)
		printf(", session %" PRIu64, in->session_id);
	else
		printf(", model %s (id %" PRIu64 ")", in->model_name ? in->model_name : "-",
		       in->model_id);
	printf("\n  instance %s, host %s\n", in->instance_id ? in->instance_id : "-",
	       in->hostname ? in->hostname : "-");
	printf("  clock %s (%u), start %" PRIu64 " ns, stop %" PRIu64 " ns\n",
	       clock_name(in->clock_id), in->clock_id, in->start_ns, in->stop_ns);
	printf("device:\n");
	printf("  index %u, arch %s (%u), provider %s, uapi %u\n", d->device_index,
	       arch_name(d->arch), d->arch, d->provider ? d->provider : "-", d->uapi_version);
	printf("  %u NeuronCores, %u TopSPs, %u engines per core, entry size %u\n",
	       d->num_cores, d->num_topsps, d->engines_per_core, d->entry_size);
	printf("  %zu code names%s\n", in->num_code_names,
	       in->num_code_names ? " (the device's)" : ": codes are shown as codes");
	if (file_is_raw(f))
		printf("  raw entries, not decoded: format %s (%u), device entries of %u bytes%s\n",
		       raw_format_name(d->raw_format), d->raw_format, d->raw_entry_size,
		       d->raw_packed ? ", in packed records" : "");
	if (d->clock_domain != NEURONPROF_CLOCK_PRODUCED)
		printf("  timestamps: %s (%u)%s\n", clock_domain_name(d->clock_domain),
		       d->clock_domain, d->clock_domain == NEURONPROF_CLOCK_CAPTURED ?
		       ", when the host captured each entry, not when the device produced it" : "");
	printf("queues: %zu records, %" PRIu64 " entries\n", f->nqueues, f->entries);
	for (size_t i = 0; i < f->nqueues; i++) {
		struct nprof_ntff_queue rec, *q = &rec;
		char flags[256];
		struct nprof_ntff_entry_iter it;
		const void *p;
		uint64_t n = 0;
		const char *en;

		file_record(f, i, q);
		en = engine_name(q->engine);

		printf("  [%zu] %s %s %u engine %u%s%s%s: %s/%s, %" PRIu64 " entries, lost %" PRIu64
		       ", seq %" PRIu64 "..%" PRIu64 ", entry size %u, data +%" PRIu64
		       " len %" PRIu64 ", ring flags 0x%x%s\n",
		       i, queue_name(q->queue_type), target_kind_name(q->target_kind),
		       q->target_index, q->engine, en && q->block_type == NPROF_NTFF_BLOCK_ENGINE ?
		       " (" : "", en && q->block_type == NPROF_NTFF_BLOCK_ENGINE ? en : "",
		       en && q->block_type == NPROF_NTFF_BLOCK_ENGINE ? ")" : "",
		       nprof_ntff_trace_type_name(q->trace_type),
		       nprof_ntff_block_type_name(q->block_type), q->entry_count, q->lost_count,
		       q->first_seq, q->last_seq, q->entry_size, q->data_offset, q->data_length,
		       q->ring_flags, ring_flags_text(q->ring_flags, flags, sizeof(flags)));
		/* Left out on purpose (an iteration range), not lost: only where there are some. */
		if (q->trimmed_count)
			printf("      trimmed %" PRIu64 " (sequence numbers left out just before "
			       "this record by an iteration range, not lost)\n", q->trimmed_count);
		nprof_ntff_entry_iter_init(&it, q);
		asm_->next = 0;
		if (file_is_raw(f))
			n = dump_raw(f, &it, o->max_entries, asm_, NULL, pg, &done);
		while (!file_is_raw(f) && n < o->max_entries && (p = nprof_ntff_entry_iter_next(&it))) {
			struct entry e;

			entry_decode(p, q->entry_size, &e);
			entry_line(stdout, f, &e);
			progress_update(pg, ++done);
			n++;
		}
		if (n < q->entry_count && o->max_entries)
			printf("    ... %" PRIu64 " more\n", q->entry_count - n);
	}
}

static void dump_json(const struct prof_file *f, const struct dump_opts *o, struct progress *pg)
{
	const struct nprof_ntff_header *h = nprof_ntff_reader_header(f->reader);
	const struct nprof_ntff_info *in = &f->info;
	const struct nprof_ntff_device *d = &in->device;
	uint64_t done = 0;
	struct json j;

	jw_init(&j, stdout, true);
	jw_obj_begin(&j, NULL);
	jw_str(&j, "file", f->path);
	jw_obj_begin(&j, "header");
	jw_u64(&j, "version_major", h->version_major);
	jw_u64(&j, "version_minor", h->version_minor);
	jw_u64(&j, "header_size", h->header_size);
	jw_u64(&j, "flags", h->flags);
	jw_str(&j, "checksum_type", h->checksum_type == NPROF_NTFF_CSUM_CRC32C ? "crc32c" :
		 "unknown");
	jw_u64(&j, "metadata_offset", h->metadata_offset);
	jw_u64(&j, "metadata_length", h->metadata_length);
	jw_hex(&j, "metadata_csum", h->metadata_csum);
	jw_u64(&j, "data_offset", h->data_offset);
	jw_u64(&j, "data_length", h->data_length);
	if (zstd_data_size(h))
		jw_u64(&j, "data_size", zstd_data_size(h));
	jw_u64(&j, "block_size", h->block_size);
	jw_u64(&j, "block_table_offset", h->block_table_offset);
	jw_u64(&j, "block_table_length", h->block_table_length);
	jw_hex(&j, "block_table_csum", h->block_table_csum);
	jw_u64(&j, "creation_time_ns", h->creation_time_ns);
	jw_u64(&j, "producer_version", h->producer_version);
	jw_obj_end(&j);
	jw_obj_begin(&j, "capture");
	jw_str(&j, "kind", capture_kind_name(in->capture_kind));
	jw_u64(&j, "pid", in->pid);
	jw_u64(&j, "core", in->core);
	jw_u64(&j, "session_id", in->session_id);
	jw_u64(&j, "model_id", in->model_id);
	jw_str(&j, "model_name", in->model_name);
	jw_str(&j, "instance_id", in->instance_id);
	jw_str(&j, "hostname", in->hostname);
	jw_u64(&j, "clock_id", in->clock_id);
	jw_str(&j, "clock", clock_name(in->clock_id));
	jw_u64(&j, "start_ns", in->start_ns);
	jw_u64(&j, "stop_ns", in->stop_ns);
	jw_obj_end(&j);
	jw_obj_begin(&j, "device");
	jw_u64(&j, "device_index", d->device_index);
	jw_u64(&j, "arch", d->arch);
	jw_str(&j, "arch_name", arch_name(d->arch));
	jw_str(&j, "provider", d->provider);
	jw_u64(&j, "uapi_version", d->uapi_version);
	jw_u64(&j, "num_cores", d->num_cores);
	jw_u64(&j, "num_topsps", d->num_topsps);
	jw_u64(&j, "engines_per_core", d->engines_per_core);
	jw_u64(&j, "entry_size", d->entry_size);
	jw_u64(&j, "clock_domain", d->clock_domain);
	jw_str(&j, "clock_domain_name", clock_domain_name(d->clock_domain));
	jw_u64(&j, "raw_format", d->raw_format);
	if (file_is_raw(f))
		jw_str(&j, "raw_format_name", raw_format_name(d->raw_format));
	jw_u64(&j, "raw_entry_size", d->raw_entry_size);
	if (d->raw_packed)
		jw_u64(&j, "raw_packed", d->raw_packed);
	jw_arr_begin(&j, "code_names");
	for (size_t i = 0; i < in->num_code_names; i++) {
		char code[CODE_LEN];

		jw_obj_begin(&j, NULL);
		jw_str(&j, "queue_type", queue_name(in->code_names[i].queue_type));
		jw_str(&j, "code", code_str(in->code_names[i].code, code));
		jw_str(&j, "name", in->code_names[i].name);
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_u64(&j, "entry_count", f->entries);
	jw_arr_begin(&j, "queues");
	for (size_t i = 0; i < f->nqueues; i++) {
		struct nprof_ntff_queue rec, *q = &rec;
		struct nprof_ntff_entry_iter it;
		const void *p;
		uint64_t n = 0;

		file_record(f, i, q);
		jw_obj_begin(&j, NULL);
		jw_str(&j, "queue_type", queue_name(q->queue_type));
		jw_str(&j, "trace_type", nprof_ntff_trace_type_name(q->trace_type));
		jw_str(&j, "block_type", nprof_ntff_block_type_name(q->block_type));
		jw_str(&j, "target_kind", target_kind_name(q->target_kind));
		jw_u64(&j, "target_index", q->target_index);
		jw_u64(&j, "engine", q->engine);
		jw_u64(&j, "entry_size", q->entry_size);
		jw_u64(&j, "entry_count", q->entry_count);
		jw_u64(&j, "lost_count", q->lost_count);
		/* As in the text: only where an iteration range left entries out. */
		if (q->trimmed_count)
			jw_u64(&j, "trimmed_count", q->trimmed_count);
		jw_u64(&j, "first_seq", q->first_seq);
		jw_u64(&j, "last_seq", q->last_seq);
		jw_u64(&j, "data_offset", q->data_offset);
		jw_u64(&j, "data_length", q->data_length);
		jw_u64(&j, "ring_flags", q->ring_flags);
		if (o->max_entries) {
			jw_arr_begin(&j, "entries");
			nprof_ntff_entry_iter_init(&it, q);
			if (file_is_raw(f))
				n = dump_raw(f, &it, o->max_entries, NULL, &j, pg, &done);
			while (!file_is_raw(f) && n < o->max_entries &&
			       (p = nprof_ntff_entry_iter_next(&it))) {
				struct entry e;

				entry_decode(p, q->entry_size, &e);
				entry_json(&j, f, &e);
				progress_update(pg, ++done);
				n++;
			}
			jw_arr_end(&j);
		}
		jw_obj_end(&j);
	}
	jw_arr_end(&j);
	jw_obj_end(&j);
	jw_finish(&j);
}

static int dump_no_entries(const struct opt *o, const char *arg, void *ctx)
{
	struct dump_opts *d = ctx;

	(void)o;
	(void)arg;
	d->max_entries = 0;
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	struct dump_opts o = { .max_entries = UINT64_MAX, .progress = PROGRESS_AUTO };
	struct raw_asm *asm_ = NULL;
	struct progress pg;
	struct profile prof;
	struct stat st;
	uint64_t total;
	int rc;
	const struct opt opts[] = {
		OPT_BOOL(0, "json", &o.json, "machine-readable output"),
		OPT_U64(0, "entries", &o.max_entries, "N", 0, UINT64_MAX,
			"at most N entries per queue record (default: all)"),
		OPT_CALLBACK(0, "no-entries", NULL, dump_no_entries, 0,
			     "no entries, only the header and metadata", .syn_join = SYN_OR),
		OPT_PROGRESS(&o.progress),
		OPT_END(),
	};

	if (opts_parse(argc, argv, opts, &o, &rc))
		return rc;
	if (check_operands(argc, argv, 1, "FILE"))
		return EXIT_USAGE;
	if (!stat(argv[optind], &st) && S_ISDIR(st.st_mode))
		return fail("%s is a directory; dump reads one NTFF file (summary and export "
			    "take directories)", argv[optind]);
	if (profile_load(argv[optind], &prof))
		return EXIT_FAIL;
	total = prof.files[0].entries;
	if (o.max_entries != UINT64_MAX) {
		total = 0;
		for (size_t i = 0; i < prof.files[0].nqueues; i++) {
			struct nprof_ntff_queue q;

			file_record(&prof.files[0], i, &q);
			total += q.entry_count < o.max_entries ? q.entry_count : o.max_entries;
		}
	}
	progress_start(&pg, o.progress, "dump", total);
	if (o.json)
		dump_json(&prof.files[0], &o, &pg);
	else if ((asm_ = malloc(sizeof(*asm_))))
		dump_text(&prof.files[0], &o, &pg, asm_);
	else
		fail("out of memory");
	free(asm_);
	progress_finish(&pg);
	profile_free(&prof);
	return flush_stdout();
}

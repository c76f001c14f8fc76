/* SPDX-License-Identifier: MIT */
/*
 * neuronprof(1): a profile as the read-only subcommands see it, one NTFF
 * file or every .ntff file under a directory, each opened and validated by
 * the library's reader; and the decoding of one queue entry.
 */
#ifndef NEURONPROF_TOOL_PROFILE_H
#define NEURONPROF_TOOL_PROFILE_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "system_profile.pb-c.h"

/*
 * struct prof_queue - one queue of a file: every record of the same
 * (queue_type, target_kind, target_index, engine), in file order. A queue
 * drained in runs interleaved with other queues' (a streamed file) has a
 * record per run; its entries, sequence numbers and start/stop pairs
 * continue from one record to the next, so the analyses walk a queue, not a
 * record (queue_iter below).
 *
 * @q: the records merged: identity, types, entry_size and data_offset of
 *	the first record; entry_count, lost_count and data_length summed;
 *	ring_flags OR-ed; first_seq of the first record with entries, last_seq
 *	of the last; entries NULL (the entries are not contiguous).
 * @first, @last: the indexes of its first and last records in the file.
 * @nrec: how many records it has (at least 1), all between @first and @last.
 *
 * Nothing is kept per record: the reader's record table (file_record())
 * says which records between @first and @last are the queue's.
 */
struct prof_queue {
	struct nprof_ntff_queue q;
	size_t first, last;
	size_t nrec;
};

struct prof_file {
	char *path;
	struct nprof_ntff_reader *reader;
	struct nprof_ntff_info info;
	size_t nqueues;			/* records, as the file holds them (file_record()) */
	size_t nlqueues;		/* queues, in the order of their first record */
	struct prof_queue *lqueues;
	uint64_t entries;	/* over all its queues */
	bool one_pass;		/* opened in the library's one-pass mode (profile_load_one_pass()) */
	bool damaged;		/* one_pass: a walk found a data block that fails its checksum */
};

/*
 * The system profile of an inspect session directory (proto/system_profile.proto,
 * Documentation/sys_trace.rst): each member is NULL when its file is absent.
 */
struct sysprof {
	char *dir;
	Neuronprof__System__Ntrace *ntrace;	/* ntrace.pb: host events */
	Neuronprof__System__CpuUtil *cpu;	/* cpu_util.pb */
	Neuronprof__System__HostMem *mem;	/* host_mem.pb */
	Neuronprof__System__TraceInfo *info;	/* trace_info.pb: the clock mapping */
};

struct profile {
	struct prof_file *files;	/* sorted by path */
	size_t nfiles;
	uint64_t entries;		/* over all files */
	struct sysprof *sys;		/* directories with system profile files, sorted */
	size_t nsys;
	uint64_t host_events;		/* over all ntrace.pb */
};

/*
 * profile_load() - open @path: an NTFF file, or a directory searched
 * recursively for regular files named *.ntff (symbolic links are not
 * followed, hidden temporary files of a writer are skipped) and for the
 * system profile files ntrace.pb, cpu_util.pb, host_mem.pb and trace_info.pb.
 * Every NTFF
 * file is fully validated (checksums included); system profile files must
 * decode as their messages.
 *
 * Return: 0, or -1 after printing an error naming the file and what is
 * wrong with it (missing, not NTFF, truncated, a directory without
 * profiles, ...).
 */
int profile_load(const char *path, struct profile *p);

/*
 * profile_load_opts() - profile_load(), and with @keep_going a file (or a
 * directory's system profile) that does not read is skipped after a warning
 * naming it and what is wrong, instead of failing the load; *@skipped (when
 * not NULL) counts them. A load that leaves nothing to read fails.
 */
int profile_load_opts(const char *path, struct profile *p, bool keep_going, size_t *skipped);

/*
 * profile_load_skipping() - profile_load_opts() where @why (not NULL) is
 * the reason a skipped file's warning gives ("--keep-going"); NULL fails
 * on the first bad file.
 */
int profile_load_skipping(const char *path, struct profile *p, const char *why,
			  size_t *skipped);

/*
 * profile_load_one_pass() - profile_load() with each NTFF file opened in
 * the library's default one-pass mode: the data blocks are not checksummed
 * at open but by the queue walks (queue_iter), each block once, just before
 * its entries are handed out, so that the file is read once, not twice. A
 * block that fails its checksum is reported (the library's message, as at
 * open: "PATH: data checksum mismatch ...") when a walk reaches it; that
 * walk, and every later one of the file, then ends there, and
 * profile_damaged() says so. For a caller that walks each queue once
 * (export) and checks profile_damaged() before it commits its output.
 */
int profile_load_one_pass(const char *path, struct profile *p);

/* True once a walk of a profile_load_one_pass() profile met a damaged block. */
bool profile_damaged(const struct profile *p);
void profile_free(struct profile *p);

/*
 * struct entry - one notification, decoded from the little-endian bytes of
 * the file. Members beyond the record's entry_size read as zero; the entry
 * size is at least 16, so timestamp and seq are always there.
 */
struct entry {
	uint64_t ts;
	uint64_t seq;
	uint16_t queue_type;
	uint16_t engine;
	uint32_t code;
	uint32_t model_id;
	uint32_t iteration;
	uint64_t payload[4];
};

/* The little-endian member of type @type at @member of the entry at @src. */
#define ENTRY_LD(src, type, member, conv) ({					\
	type v_;								\
	memcpy(&v_, (const unsigned char *)(src) +				\
	       offsetof(struct neuronprof_notification, member), sizeof(v_));	\
	conv(v_);								\
})

static inline void entry_decode(const void *src, uint32_t entry_size, struct entry *e)
{
	struct neuronprof_notification n;

	/*
	 * memcpy: entries of an in-memory image need not be aligned. A whole
	 * entry is read member by member: a copy of it to the stack read back
	 * in smaller pieces waits for the copy's stores to land.
	 */
	if (entry_size < sizeof(n)) {
		memset(&n, 0, sizeof(n));
		memcpy(&n, src, entry_size);
		src = &n;
	}
	e->ts = ENTRY_LD(src, uint64_t, timestamp_ns, le64toh);
	e->seq = ENTRY_LD(src, uint64_t, seq, le64toh);
	e->queue_type = ENTRY_LD(src, uint16_t, queue_type, le16toh);
	e->engine = ENTRY_LD(src, uint16_t, engine, le16toh);
	e->code = ENTRY_LD(src, uint32_t, code, le32toh);
	e->model_id = ENTRY_LD(src, uint32_t, model_id, le32toh);
	e->iteration = ENTRY_LD(src, uint32_t, iteration, le32toh);
	e->payload[0] = ENTRY_LD(src, uint64_t, payload[0], le64toh);
	e->payload[1] = ENTRY_LD(src, uint64_t, payload[1], le64toh);
	e->payload[2] = ENTRY_LD(src, uint64_t, payload[2], le64toh);
	e->payload[3] = ENTRY_LD(src, uint64_t, payload[3], le64toh);
}

/*
 * file_record() - record @i (< f->nqueues) of @f, as the file holds it, into
 * @q; its entries inside the reader's mapping (NULL for a file opened in one
 * pass, f->one_pass: walk it with queue_iter).
 */
void file_record(const struct prof_file *f, size_t i, struct nprof_ntff_queue *q);

/*
 * struct queue_iter - walks the entries of a queue across its records, in
 * file order, inside the reader's mapping (nothing is copied):
 *
 *	struct queue_iter it;
 *	const void *p;
 *
 *	queue_iter_init(&it, f, lq);
 *	while ((p = queue_iter_next(&it)))
 *		entry_decode(p, it.entry_size, &e);
 */
struct queue_iter {
	const struct prof_file *f;
	const struct prof_queue *lq;
	size_t next, left;			/* next record to look at; records still to walk */
	struct nprof_ntff_entry_iter it;	/* inside the current record (one_pass: chunk) */
	struct nprof_ntff_chunk_iter chunks;	/* one_pass: the current record's chunks */
	bool in_record;				/* one_pass: @chunks is walking a record */
	uint32_t entry_size;			/* of the current record */
	/*
	 * Sequence numbers the writer left out on purpose (--iterations A-B)
	 * just before the next entry: the trimmed_count of the records entered
	 * since the last entry handed out, which seq_skipped_iter() takes.
	 */
	uint64_t trimmed;
};

static inline void queue_iter_init(struct queue_iter *it, const struct prof_file *f,
				   const struct prof_queue *lq)
{
	it->f = f;
	it->lq = lq;
	it->next = lq->first;
	it->left = lq->nrec;
	it->it = (struct nprof_ntff_entry_iter){ 0 };
	it->in_record = false;
	it->entry_size = lq->q.entry_size;
	it->trimmed = 0;
}

/*
 * Moves @it to the queue's next record (one_pass: next verified chunk);
 * false after its last one, or at a damaged block (one_pass).
 */
bool queue_iter_record(struct queue_iter *it);

/* The queue's next entry, or NULL after its last record's last one. */
static inline const void *queue_iter_next(struct queue_iter *it)
{
	const void *p;

	while (!(p = nprof_ntff_entry_iter_next(&it->it)))
		if (!queue_iter_record(it))
			return NULL;
	return p;
}

/*
 * The sequence numbers of a queue's entries, in order (across its records):
 * each entry's number is one more than the one before it unless entries
 * were lost.
 */
struct seq_track {
	bool have_prev;
	uint64_t prev;
};

/* How many sequence numbers the queue skips before @seq (0 for its first). */
static inline uint64_t seq_skipped(struct seq_track *t, uint64_t seq)
{
	uint64_t skipped = t->have_prev && seq > t->prev + 1 ? seq - t->prev - 1 : 0;

	t->prev = seq;
	t->have_prev = true;
	return skipped;
}

/*
 * seq_skipped() of an entry @it just handed out, less the sequence numbers
 * the writer left out on purpose before it (NTFF 1.4 trimmed_count, a
 * capture of a range of iterations): only what is left is lost.
 */
static inline uint64_t seq_skipped_iter(struct seq_track *t, struct queue_iter *it, uint64_t seq)
{
	uint64_t skipped = seq_skipped(t, seq), trimmed = it->trimmed;

	it->trimmed = 0;
	return skipped > trimmed ? skipped - trimmed : 0;
}

/*
 * Raw entries (a file whose device has a raw format): the device's own
 * entries as bytes, whose layout is not known here, so nothing reads them
 * as opcodes, events or codes. Each ring entry carries @len bytes (part
 * @part of @parts) of device entry @index (its iteration member) in its
 * payload; timestamps are of the file's clock domain (capture times for
 * NEURONPROF_CLOCK_CAPTURED).
 */
static inline bool file_is_raw(const struct prof_file *f)
{
	return f->info.device.raw_format != NEURONPROF_RAW_FORMAT_NONE;
}

struct raw_part {
	uint32_t index, part, parts, len;
	unsigned char bytes[NEURONPROF_RAW_BYTES_PER_ENTRY];	/* the first @len count */
};

static inline void raw_part_of(const struct entry *e, struct raw_part *r)
{
	r->index = e->iteration;
	r->part = NEURONPROF_RAW_PART(e->code);
	r->parts = NEURONPROF_RAW_PARTS(e->code);
	r->len = NEURONPROF_RAW_LEN(e->code);
	if (r->len > sizeof(r->bytes))
		r->len = sizeof(r->bytes);
	/* The payload's bytes in the order the device wrote them. */
	for (int i = 0; i < 4; i++) {
		uint64_t le = htole64(e->payload[i]);

		memcpy(r->bytes + 8 * i, &le, sizeof(le));
	}
}

/*
 * The NeuronCore a queue belongs to: its own index for a core queue, the
 * core a TopSP serves (t / (num_topsps / num_cores)) for a TopSP queue, or
 * the file's core when the device description cannot say.
 */
uint32_t queue_core(const struct prof_file *f, const struct nprof_ntff_queue *q);

/* Sim convention, documented in Documentation/simulator.rst: EVENT codes. */
#define EVENT_CODE_START	1
#define EVENT_CODE_END		2

#endif /* NEURONPROF_TOOL_PROFILE_H */

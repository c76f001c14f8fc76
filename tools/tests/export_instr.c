// SPDX-License-Identifier: MIT
/*
 * The exporters' instruction path (xformat.instrs, which keeps what repeats
 * per track and opcode) against their slice path (xinstr_slice(): the
 * same instruction as slice() takes it, which export_fast checks against
 * plain references), for JSON and Perfetto: two exports of the same random
 * events, one giving the instructions in batches to instrs(), the other
 * one by one to slice(), must be the same bytes. The events: instructions
 * named by their opcode and by names of the profile (some needing JSON's
 * escaper, some longer than the slots), on three tracks of two processes,
 * more opcodes than the slots hold (evictions), timestamps, durations and
 * operands of every width, an instruction as the very first event, and
 * other slices and instants in between. The same for the DMA transfers
 * (xformat.dmas against xdma_instant(): the instants instant() takes):
 * names per slot of a batch, some needing JSON's escaper, numbers of every
 * width, a transfer as the very first event, instructions in between.
 *
 * Prints "ok" and exits 0, or names the format and the first differing
 * byte and exits 1.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"

#define RND_SEED 0x2545f4914f6cdd1dULL
#include "rnd.h"

#define FAIL(...)							\
	do {								\
		fprintf(stderr, "export_instr: " __VA_ARGS__);		\
		fputc('\n', stderr);					\
		exit(1);						\
	} while (0)

/* Names of the profile: by address, as the walk keys them. */
static const char *const names[] = {
	"MATMUL", "act.relu", "a \"quoted\" op", "back\\slash", "caf\xc3\xa9",
	"a_name_of_exactly_forty_seven_bytes_0123456789",
	"a_name_of_exactly_forty_eight_bytes_0123456789a",
	"a name longer than any slot of the JSON export keeps, which the export writes "
	"all the same, byte for byte, through its slow path: 0123456789abcdef0123456789",
	"tab\there",
};

#define NAMES		(sizeof(names) / sizeof(names[0]))
#define OPCODES		3000	/* more than the slots of either format */
#define EVENTS		200000

struct out {
	char *buf;
	size_t len;
	FILE *f;
	void *x;
};

static void open_out(struct out *o, bool perfetto)
{
	o->buf = NULL;
	o->len = 0;
	o->f = open_memstream(&o->buf, &o->len);
	if (!o->f)
		FAIL("open_memstream");
	o->x = perfetto ? (void *)perfetto_export_new(o->f) : (void *)json_export_new(o->f);
	if (!o->x)
		FAIL("out of memory");
}

static void close_out(struct out *o, bool perfetto)
{
	if (perfetto)
		perfetto_export_free(o->x);
	else
		json_export_free(o->x);
	fclose(o->f);
}

/*
 * Two exports of the same events in one format: @a takes them in batches,
 * @b one by one; the tracks they go to (three of two processes), the last
 * timestamp and how many events so far.
 */
struct run {
	const struct xformat *fmt;
	bool perfetto;
	struct xproc procs[2];
	struct xtrack tracks[3];
	struct out a, b;
	uint64_t ts;
	int ev;
};

/*
 * Begins @r's exports, with its processes' pids @pid and the tracks' tids
 * @tid and Perfetto uuids @uuid (the third track of the second process):
 * numbers of every width.
 */
static void run_begin(struct run *r, bool perfetto, const int32_t pid[2], const int32_t tid[3],
		      const uint64_t uuid[3])
{
	*r = (struct run){ .fmt = perfetto ? &perfetto_format : &json_format,
			   .perfetto = perfetto, .ts = 1000 };
	for (int i = 0; i < 2; i++)
		r->procs[i] = (struct xproc){ .pid = pid[i], .uuid = 1 + (uint64_t)i };
	for (int i = 0; i < 3; i++)
		r->tracks[i] = (struct xtrack){ .proc = &r->procs[i / 2], .tid = tid[i],
						.uuid = uuid[i],
						.kind = XT_QUEUE };
	open_out(&r->a, perfetto);
	open_out(&r->b, perfetto);
	r->fmt->begin(r->a.x, "src");
	r->fmt->begin(r->b.x, "src");
}

/* The next event's timestamp: of every width now and then, else close after the last. */
static uint64_t run_ts(struct run *r)
{
	r->ts = rnd() % 16 ? r->ts + rnd() % 3000 : rnd_width();
	return r->ts;
}

/*
 * A batch of @n instructions @in, or else of @n DMA transfers @d: to @a in
 * one call of instrs() or dmas(), to @b one by one through slice() or
 * instant().
 */
static void run_batch(struct run *r, const struct xtrack *t, const struct xinstr *in,
		      const struct xdma *d, size_t n)
{
	if (in ? r->fmt->instrs(r->a.x, t, in, n) : r->fmt->dmas(r->a.x, t, d, n))
		FAIL("%s() failed", in ? "instrs" : "dmas");
	for (size_t k = 0; k < n; k++)
		if (in ? xinstr_slice(r->fmt, r->b.x, t, &in[k]) :
			 xdma_instant(r->fmt, r->b.x, t, &d[k]))
			FAIL("%s() failed", in ? "slice" : "instant");
}

/* The same instant at the last timestamp to both exports; nonzero when one fails. */
static int run_instant(struct run *r, const struct xtrack *t, const char *cat, const char *name,
		       const struct xarg *args, size_t nargs)
{
	return r->fmt->instant(r->a.x, t, cat, name, r->ts, args, nargs) ||
	       r->fmt->instant(r->b.x, t, cat, name, r->ts, args, nargs);
}

/* Ends both exports and fails unless they are the same bytes; @what names the paths. */
static void run_end(struct run *r, const char *what)
{
	const char *name = r->perfetto ? "perfetto" : "json";
	struct out *a = &r->a, *b = &r->b;
	size_t k;

	r->fmt->end(a->x, &(struct export_stats){ 0 });
	r->fmt->end(b->x, &(struct export_stats){ 0 });
	close_out(a, r->perfetto);
	close_out(b, r->perfetto);
	for (k = 0; k < a->len && k < b->len && a->buf[k] == b->buf[k]; k++)
		;
	if (k < a->len || k < b->len)
		FAIL("%s: %s differ at byte %zu of %zu / %zu", name, what, k, a->len, b->len);
	if (a->len < (size_t)EVENTS * 20)
		FAIL("%s: only %zu bytes written", name, a->len);
	free(a->buf);
	free(b->buf);
}

static void check(bool perfetto)
{
	static struct xinstr batch[300];
	static char hex[300][16];
	struct run r;
	size_t k, n;

	run_begin(&r, perfetto, (int32_t[]){ 10000000, -5 }, (int32_t[]){ 100, 104, 4194304 },
		  (uint64_t[]){ 3, 300, 1ULL << 40 });
	while (r.ev < EVENTS) {
		const struct xtrack *t = &r.tracks[rnd() % 3];
		/* Mostly a few opcodes over and over, sometimes any of many. */
		uint32_t span = rnd() % 4 ? 40 : OPCODES;

		n = 1 + rnd() % 300;
		for (k = 0; k < n; k++) {
			struct xinstr *in = &batch[k];
			uint32_t code = (uint32_t)(rnd() % span);

			in->ts = run_ts(&r);
			in->end_ts = in->ts + (rnd() % 4 ? rnd() % 2000 : rnd_width() / 2);
			in->pc = rnd() % 2 ? rnd() % 0x10000 : rnd_width();
			in->op0 = rnd_width();
			in->op1 = rnd() % 2 ? rnd() % 0x100 : rnd_width();
			in->code = code;
			in->named = rnd() % 3 == 0;
			if (in->named) {
				in->name = names[code % NAMES];
				in->name_key = (uint64_t)(uintptr_t)in->name;
			} else {
				snprintf(hex[k], sizeof(hex[k]), "0x%06" PRIx32, code);
				in->name = hex[k];
				in->name_key = XNAME_KEY_CODE(code);
			}
		}
		run_batch(&r, t, batch, NULL, n);
		r.ev += (int)n;
		/* Other events in between, the same to both. */
		if (rnd() % 2) {
			struct xarg args[2] = {
				{ .key = "seq", .kind = XARG_U64, .u = rnd_width() },
				{ .key = "code", .kind = XARG_STR, .s = "0x000102" },
			};

			if (run_instant(&r, t, "dma", "dma queue 3", args, 2) ||
			    r.fmt->slice(r.a.x, t, XSLICE_BEGIN_END, "event", "vector iteration", 0,
					 r.ts, r.ts + 5, args, 1, 0, 0) ||
			    r.fmt->slice(r.b.x, t, XSLICE_BEGIN_END, "event", "vector iteration", 0,
					 r.ts, r.ts + 5, args, 1, 0, 0))
				FAIL("other events failed");
		}
	}
	run_end(&r, "instrs() and slice()");
}

/* Names of DMA transfers: as the walk spells them, and some that need the escaper. */
static const char *const dma_names[] = {
	"dma queue 0", "dma queue 17", "dma queue 4294967295", "qSyncIO queue 3",
	"a \"quoted\" queue 5", "caf\xc3\xa9 queue 6",
	"a_dma_name_of_sixty_three_bytes_0123456789abcdef0123 queue 1234",
	"a DMA name longer than sixty-four bytes, which JSON's batch leaves to instant()",
};

#define DMA_NAMES	(sizeof(dma_names) / sizeof(dma_names[0]))

static void check_dma(bool perfetto)
{
	static struct xdma batch[300];
	const char *slot_name[XDMA_SLOTS];
	struct run r;
	size_t k, n;

	run_begin(&r, perfetto, (int32_t[]){ 7, -2147483647 }, (int32_t[]){ 1, 2147483647, -1 },
		  (uint64_t[]){ 3, 4, 1ULL << 50 });
	while (r.ev < EVENTS) {
		const struct xtrack *t = &r.tracks[rnd() % 3];

		/* A batch's slot keeps its name for the batch, as the walk's does. */
		for (k = 0; k < XDMA_SLOTS; k++)
			slot_name[k] = dma_names[rnd() % (rnd() % 4 ? 2 : DMA_NAMES)];
		n = 1 + rnd() % 300;
		for (k = 0; k < n; k++) {
			struct xdma *d = &batch[k];

			d->ts = run_ts(&r);
			d->slot = (uint32_t)(rnd() % XDMA_SLOTS);
			d->name = slot_name[d->slot];
			d->model_id = rnd() % 2 ? rnd() % 8 : rnd_width();
			d->iteration = rnd() % 2 ? rnd() % 100000 : rnd_width();
			d->seq = rnd_width();
			d->bytes = rnd() % 2 ? rnd() % 0x100000 : rnd_width();
			d->src = rnd_width();
			d->dst = rnd() % 2 ? rnd() % 0x10000 : rnd_width();
		}
		run_batch(&r, t, NULL, batch, n);
		r.ev += (int)n;
		/* Other events in between, the same to both. */
		if (rnd() % 2) {
			struct xinstr in = { .name = "0x000102", .name_key = XNAME_KEY_CODE(0x102),
					     .ts = r.ts, .end_ts = r.ts + 7, .pc = rnd_width(),
					     .code = 0x102 };
			struct xarg arg = { .key = "seq", .kind = XARG_U64, .u = rnd_width() };

			run_batch(&r, t, &in, NULL, 1);
			if (run_instant(&r, t, "error", "error 3", &arg, 1))
				FAIL("other events failed");
		}
	}
	run_end(&r, "dmas() and instant()");
}

int main(void)
{
	check(false);
	check(true);
	check_dma(false);
	check_dma(true);
	puts("ok");
	return 0;
}

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

static void check(bool perfetto)
{
	const struct xformat *fmt = perfetto ? &perfetto_format : &json_format;
	struct xproc procs[2] = { { .pid = 10000000, .uuid = 1 }, { .pid = -5, .uuid = 2 } };
	struct xtrack tracks[3] = {
		{ .proc = &procs[0], .tid = 100, .uuid = 3, .kind = XT_QUEUE },
		{ .proc = &procs[0], .tid = 104, .uuid = 300, .kind = XT_QUEUE },
		{ .proc = &procs[1], .tid = 4194304, .uuid = 1ULL << 40, .kind = XT_QUEUE },
	};
	static struct xinstr batch[300];
	static char hex[300][16];
	struct out a, b;
	uint64_t ts = 1000;
	size_t k, n;
	int ev = 0;

	open_out(&a, perfetto);
	open_out(&b, perfetto);
	fmt->begin(a.x, "src");
	fmt->begin(b.x, "src");
	while (ev < EVENTS) {
		const struct xtrack *t = &tracks[rnd() % 3];
		/* Mostly a few opcodes over and over, sometimes any of many. */
		uint32_t span = rnd() % 4 ? 40 : OPCODES;

		n = 1 + rnd() % 300;
		for (k = 0; k < n; k++) {
			struct xinstr *in = &batch[k];
			uint32_t code = (uint32_t)(rnd() % span);

			/* Timestamps of every width now and then, else close together. */
			ts = rnd() % 16 ? ts + rnd() % 3000 : rnd_width();
			in->ts = ts;
			in->end_ts = ts + (rnd() % 4 ? rnd() % 2000 : rnd_width() / 2);
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
		if (fmt->instrs(a.x, t, batch, n))
			FAIL("instrs() failed");
		for (k = 0; k < n; k++)
			if (xinstr_slice(fmt, b.x, t, &batch[k]))
				FAIL("slice() failed");
		ev += (int)n;
		/* Other events in between, the same to both. */
		if (rnd() % 2) {
			struct xarg args[2] = {
				{ .key = "seq", .kind = XARG_U64, .u = rnd_width() },
				{ .key = "code", .kind = XARG_STR, .s = "0x000102" },
			};

			if (fmt->instant(a.x, t, "dma", "dma queue 3", ts, args, 2) ||
			    fmt->instant(b.x, t, "dma", "dma queue 3", ts, args, 2) ||
			    fmt->slice(a.x, t, XSLICE_BEGIN_END, "event", "vector iteration", 0, ts,
				       ts + 5, args, 1, 0, 0) ||
			    fmt->slice(b.x, t, XSLICE_BEGIN_END, "event", "vector iteration", 0, ts,
				       ts + 5, args, 1, 0, 0))
				FAIL("other events failed");
		}
	}
	fmt->end(a.x, &(struct export_stats){ 0 });
	fmt->end(b.x, &(struct export_stats){ 0 });
	close_out(&a, perfetto);
	close_out(&b, perfetto);
	for (k = 0; k < a.len && k < b.len && a.buf[k] == b.buf[k]; k++)
		;
	if (k < a.len || k < b.len)
		FAIL("%s: instrs() and slice() differ at byte %zu of %zu / %zu",
		     perfetto ? "perfetto" : "json", k, a.len, b.len);
	if (a.len < (size_t)EVENTS * 20)
		FAIL("%s: only %zu bytes written", perfetto ? "perfetto" : "json", a.len);
	free(a.buf);
	free(b.buf);
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
	const struct xformat *fmt = perfetto ? &perfetto_format : &json_format;
	struct xproc procs[2] = { { .pid = 7, .uuid = 1 }, { .pid = -2147483647, .uuid = 2 } };
	struct xtrack tracks[3] = {
		{ .proc = &procs[0], .tid = 1, .uuid = 3, .kind = XT_QUEUE },
		{ .proc = &procs[0], .tid = 2147483647, .uuid = 4, .kind = XT_QUEUE },
		{ .proc = &procs[1], .tid = -1, .uuid = 1ULL << 50, .kind = XT_QUEUE },
	};
	static struct xdma batch[300];
	const char *slot_name[XDMA_SLOTS];
	struct out a, b;
	uint64_t ts = 1000;
	size_t k, n;
	int ev = 0;

	open_out(&a, perfetto);
	open_out(&b, perfetto);
	fmt->begin(a.x, "src");
	fmt->begin(b.x, "src");
	while (ev < EVENTS) {
		const struct xtrack *t = &tracks[rnd() % 3];

		/* A batch's slot keeps its name for the batch, as the walk's does. */
		for (k = 0; k < XDMA_SLOTS; k++)
			slot_name[k] = dma_names[rnd() % (rnd() % 4 ? 2 : DMA_NAMES)];
		n = 1 + rnd() % 300;
		for (k = 0; k < n; k++) {
			struct xdma *d = &batch[k];

			ts = rnd() % 16 ? ts + rnd() % 3000 : rnd_width();
			d->ts = ts;
			d->slot = (uint32_t)(rnd() % XDMA_SLOTS);
			d->name = slot_name[d->slot];
			d->model_id = rnd() % 2 ? rnd() % 8 : rnd_width();
			d->iteration = rnd() % 2 ? rnd() % 100000 : rnd_width();
			d->seq = rnd_width();
			d->bytes = rnd() % 2 ? rnd() % 0x100000 : rnd_width();
			d->src = rnd_width();
			d->dst = rnd() % 2 ? rnd() % 0x10000 : rnd_width();
		}
		if (fmt->dmas(a.x, t, batch, n))
			FAIL("dmas() failed");
		for (k = 0; k < n; k++)
			if (xdma_instant(fmt, b.x, t, &batch[k]))
				FAIL("instant() failed");
		ev += (int)n;
		/* Other events in between, the same to both. */
		if (rnd() % 2) {
			struct xinstr in = { .name = "0x000102", .name_key = XNAME_KEY_CODE(0x102),
					     .ts = ts, .end_ts = ts + 7, .pc = rnd_width(),
					     .code = 0x102 };
			struct xarg arg = { .key = "seq", .kind = XARG_U64, .u = rnd_width() };

			if (fmt->instrs(a.x, t, &in, 1) || xinstr_slice(fmt, b.x, t, &in) ||
			    fmt->instant(a.x, t, "error", "error 3", ts, &arg, 1) ||
			    fmt->instant(b.x, t, "error", "error 3", ts, &arg, 1))
				FAIL("other events failed");
		}
	}
	fmt->end(a.x, &(struct export_stats){ 0 });
	fmt->end(b.x, &(struct export_stats){ 0 });
	close_out(&a, perfetto);
	close_out(&b, perfetto);
	for (k = 0; k < a.len && k < b.len && a.buf[k] == b.buf[k]; k++)
		;
	if (k < a.len || k < b.len)
		FAIL("%s: dmas() and instant() differ at byte %zu of %zu / %zu",
		     perfetto ? "perfetto" : "json", k, a.len, b.len);
	if (a.len < (size_t)EVENTS * 20)
		FAIL("%s: only %zu bytes written", perfetto ? "perfetto" : "json", a.len);
	free(a.buf);
	free(b.buf);
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

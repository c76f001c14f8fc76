// SPDX-License-Identifier: MIT
/*
 * neuronprof(1) export, one instruction or DMA transfer as a format's
 * slice() and instant() callbacks take it (xinstr_slice(), xdma_instant()):
 * what xformat.instrs and xformat.dmas stand for, the fallback the walk
 * (export_walk.c) and the formats' batch writers call. Below both, so that
 * neither calls up into the run (export.c).
 */
#include "export/export.h"
#include "util/fmt.h"
#include "analysis/names.h"

int xdma_instant(const struct xformat *fmt, void *ctx, const struct xtrack *t,
		 const struct xdma *d)
{
	const struct xarg a[6] = {
		{ .key = "model_id", .kind = XARG_U64, .u = d->model_id },
		{ .key = "iteration", .kind = XARG_U64, .u = d->iteration },
		{ .key = "seq", .kind = XARG_U64, .u = d->seq },
		{ .key = "bytes", .kind = XARG_U64, .u = d->bytes },
		{ .key = "src", .kind = XARG_HEX, .u = d->src },
		{ .key = "dst", .kind = XARG_HEX, .u = d->dst },
	};

	return fmt->instant(ctx, t, "dma", d->name, d->ts, a, 6);
}

int xinstr_slice(const struct xformat *fmt, void *ctx, const struct xtrack *t,
		 const struct xinstr *in)
{
	char hex[CODE_LEN];
	struct xarg a[4];
	int n = 0;

	if (in->named) {
		*fmt_hex(fmt_str(hex, "0x"), in->code, 6) = '\0';
		a[n++] = (struct xarg){ .key = "code", .kind = XARG_STR, .s = hex };
	}
	a[n++] = (struct xarg){ .key = "pc", .kind = XARG_HEX, .u = in->pc };
	a[n++] = (struct xarg){ .key = "operand0", .kind = XARG_HEX, .u = in->op0 };
	a[n++] = (struct xarg){ .key = "operand1", .kind = XARG_HEX, .u = in->op1 };
	return fmt->slice(ctx, t, XSLICE_COMPLETE, "instruction", in->name, in->name_key, in->ts,
			  in->end_ts, a, n, 0, 0);
}

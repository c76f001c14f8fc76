// SPDX-License-Identifier: MIT
/*
 * neuronprof export --format json, the instructions (xformat.instrs):
 * nearly every event of an export, written from what repeats per name and
 * opcode (a slot) and per track (once per batch), with the same bytes as
 * fast_event() in export_json.c writes for them.
 */
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/export_json_internal.h"

/*
 * The slot of the instructions named @name (@key) of opcode @code, filled
 * on first use; NULL when the name needs the escaper or is long
 * (fast_event() and the slow path then decide).
 */
static const struct instr_slot *instr_slot(struct json_export *x, const char *name,
					   uint64_t key, uint32_t code, bool named)
{
	struct instr_slot *s = &x->instrs[xinstr_set(key, code)];
	uint64_t tag = XINSTR_TAG(code, named);
	char *p, *end;

	if (s[0].key == key && s[0].tag == tag)
		return &s[0];
	if (s[1].key == key && s[1].tag == tag)
		return &s[1];
	if (strnlen(name, INSTR_NAME) >= INSTR_NAME)
		return NULL;
	if (s[0].key)
		s[1] = s[0];
	s->key = 0;
	end = copy_plain(s->name, name);
	if (!end)
		return NULL;
	s->name_len = (uint8_t)(end - s->name);
	p = PUT(s->args, ",\"args\":{");
	if (named) {
		p = PUT(p, "\"code\":\"0x");
		p = fmt_hex(p, code, 6);
		p = PUT(p, "\",");
	}
	p = PUT(p, "\"pc\":\"0x");
	s->args_len = (uint8_t)(p - s->args);
	s->key = key;
	s->tag = tag;
	return s;
}

/*
 * What follows an event's name up to its timestamp on track @t, made once
 * per batch into @buf: the category and phase in @head, then the track's
 * pid and tid. Returns its length.
 */
static size_t track_tail(char *buf, const char *head, const struct xtrack *t)
{
	char *p = xj_put(buf, head, strlen(head));

	p = fmt_i64(p, t->proc->pid);
	p = PUT(p, ",\"tid\":");
	p = fmt_i64(p, t->tid);
	p = PUT(p, ",\"ts\":");
	return (size_t)(p - buf);
}

/*
 * Instructions: the bytes fast_event() writes for each (the test
 * export_instr checks), the parts that repeat copied whole: the name and
 * the start of the arguments from its slot, what follows the name from
 * the track's (made once per batch).
 */
int json_instrs(const struct xformat *fmt, void *ctx, const struct xtrack *t,
		const struct xinstr *v, size_t n)
{
	struct json_export *x = ctx;
	char tail[128], *p;
	size_t tail_len;

	tail_len = track_tail(tail, "\",\"cat\":\"instruction\",\"ph\":\"X\",\"pid\":", t);
	for (size_t i = 0; i < n; i++) {
		const struct xinstr *in = &v[i];
		const struct instr_slot *s = instr_slot(x, in->name, in->name_key, in->code,
							in->named);

		/* The very first event has no separator: fast_event() writes it. */
		if (!s || x->first) {
			if (xinstr_slice(fmt, ctx, t, in))
				return -1;
			continue;
		}
		p = ob_reserve(&x->ob, FAST_ROOM);
		/* Whole slots: fixed-size copies; only their lengths count. */
		p = PUT(p, ",\n{\"name\":\"");
		memcpy(p, s->name, INSTR_NAME);
		p += s->name_len;
		p = put_slot(p, tail, tail_len, 64, sizeof(tail));
		p = put_ts(x, p, in->ts);
		p = PUT(p, ",\"dur\":");
		p = put_dur(x, p, in->end_ts - in->ts);
		if (in->named) {
			memcpy(p, s->args, INSTR_ARGS);
			p += s->args_len;
		} else {
			p = PUT(p, INSTR_ARGS_PLAIN);
		}
		p = put_hex(p, in->pc);
		p = PUT_HEX(p, "\",\"operand0\":\"0x", in->op0);
		p = PUT_HEX(p, "\",\"operand1\":\"0x", in->op1);
		p = PUT(p, "\"}}");
		ob_commit(&x->ob, p);
	}
	return 0;
}

/* Room for what repeats in a DMA transfer: the separator, the name and the track's tail. */
#define DMA_PRE		192

/*
 * DMA transfers: the bytes fast_event() writes for each instant (the test
 * export_instr checks), what repeats per name (a slot of the batch, struct
 * xdma) made once per batch on first use: the separator, the name and what
 * follows it up to the timestamp; then the numbers.
 */
int json_dmas(const struct xformat *fmt, void *ctx, const struct xtrack *t,
	      const struct xdma *v, size_t n)
{
	struct json_export *x = ctx;
	char pre[XDMA_SLOTS][DMA_PRE], tail[96], *p;
	/* A slot's length; 0: not made yet; 1: its name needs the slow path. */
	uint8_t len[XDMA_SLOTS] = { 0 };
	size_t tail_len;

	tail_len = track_tail(tail, "\",\"cat\":\"dma\",\"ph\":\"i\",\"pid\":", t);
	for (size_t i = 0; i < n; i++) {
		const struct xdma *d = &v[i];
		uint32_t k = d->slot % XDMA_SLOTS;

		if (!len[k]) {
			p = PUT(pre[k], ",\n{\"name\":\"");
			/* Names of the walk's DMA slots are shorter than 64 bytes. */
			if (strnlen(d->name, 64) < 64)
				p = copy_plain(p, d->name);
			else
				p = NULL;
			if (p) {
				p = xj_put(p, tail, tail_len);
				len[k] = (uint8_t)(p - pre[k]);
			} else {
				len[k] = 1;
			}
		}
		/* The very first event has no separator: fast_event() writes it. */
		if (len[k] == 1 || x->first) {
			if (xdma_instant(fmt, ctx, t, d))
				return -1;
			continue;
		}
		p = ob_reserve(&x->ob, FAST_ROOM);
		p = put_slot(p, pre[k], len[k], 96, DMA_PRE);
		p = put_ts(x, p, d->ts);
		p = PUT_U64(p, ",\"s\":\"t\",\"args\":{\"model_id\":", d->model_id);
		p = PUT_U64(p, ",\"iteration\":", d->iteration);
		p = PUT_U64(p, ",\"seq\":", d->seq);
		p = PUT_U64(p, ",\"bytes\":", d->bytes);
		p = PUT_HEX(p, ",\"src\":\"0x", d->src);
		p = PUT_HEX(p, "\",\"dst\":\"0x", d->dst);
		p = PUT(p, "\"}}");
		ob_commit(&x->ob, p);
	}
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * neuronprof export --format perfetto, the instructions (xformat.instrs):
 * nearly every event of an export, a begin and an end packet each, written
 * from what repeats per name and opcode (a slot), per track (once per
 * batch) and per export, with the same bytes as p_slice() in
 * export_perfetto.c writes for them.
 */
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/fmt.h"
#include "util/pbenc.h"

#include "export/export_perfetto_internal.h"

/*
 * After an instruction written through named_event(), from the iids it
 * interned: the export's parts (once), and the slot of its name and
 * opcode; left empty when one of them is not interned (a full table) or
 * does not fit.
 */
static void pf_instr_fill(struct perfetto_export *x, const char *name, uint64_t key,
			  uint32_t code, bool named)
{
	static const char *const keys[3] = { "pc", "operand0", "operand1" };
	struct pf_instr_slot *s = &x->instrs[xinstr_set(key, code)];
	uint64_t nm_iid, code_iid = 0;
	uint8_t tmp[INSTR_NAME + 32], *p, *at;
	char hex[16];

	if (!x->instr_ready) {
		x->instr_cat = perfetto_intern_lookup(&x->cats, "instruction");
		if (!x->instr_cat)
			return;
		for (int i = 0; i < 3; i++) {
			uint64_t iid = perfetto_intern_lookup(&x->keys, keys[i]);

			if (!iid || iid >= 1u << 21)
				return;
			/* As annotation() writes them, the length patched per event. */
			p = pbc_open(x->instr_pre[i], TE_DEBUG_ANNOTATIONS, &at);
			p = pbc_uint(p, DA_NAME_IID, iid);
			p = pb_varint_at(p, (uint64_t)DA_POINTER << 3 | PB_VARINT);
			x->instr_pre_len[i] = (uint8_t)(p - x->instr_pre[i]);
		}
		x->instr_ready = true;
	}
	nm_iid = perfetto_intern_lookup(&x->names, name);
	if (named)
		code_iid = perfetto_intern_lookup(&x->keys, "code");
	if (!nm_iid || (named && !code_iid))
		return;
	/* As named_event() writes them, after the category's iid. */
	p = pbc_uint(tmp, TE_NAME_IID, nm_iid);
	if (named) {
		*fmt_hex(fmt_str(hex, "0x"), code, 6) = '\0';
		p = pbc_open(p, TE_DEBUG_ANNOTATIONS, &at);
		p = pbc_uint(p, DA_NAME_IID, code_iid);
		p = pbc_bytes(p, DA_STRING, hex, strlen(hex));
		p = pbc_close(at, p);
	}
	if (p - tmp > INSTR_NAME)
		return;
	if (s[0].key)
		s[1] = s[0];
	memcpy(s->bytes, tmp, (size_t)(p - tmp));
	s->len = (uint8_t)(p - tmp);
	s->key = key;
	s->tag = XINSTR_TAG(code, named);
}

/*
 * The most an instruction's two packets take, with the copies of whole
 * templates: a begin of 2 + 4 + 11 bytes, a track event of 2 + 32 +
 * INSTR_NAME + 3 x (8 + 10) and packet lengths that may grow by 1 each;
 * an end of 2 + 2 + 11 + 32.
 */
#define PF_INSTR_MAX	256

/*
 * Instructions: the bytes p_slice() writes for each (the test export_instr
 * checks), a begin and an end packet, from the parts that repeat: the
 * track's (made per batch), the name's and opcode's (its slot), the
 * export's. The first of a slot goes through p_slice(), which defines what
 * it interns.
 */
int perfetto_instrs(const struct xformat *fmt, void *ctx, const struct xtrack *t,
		    const struct xinstr *v, size_t n)
{
	/* TRACE_PACKET, its length (patched), sequence id 1, the flags, the timestamp's tag. */
	static const uint8_t begin[8] = {
		TRACE_PACKET << 3 | PB_LEN, 0, PKT_SEQUENCE_ID << 3 | PB_VARINT, SEQUENCE_ID,
		PKT_SEQUENCE_FLAGS << 3 | PB_VARINT, SEQ_NEEDS_INCREMENTAL_STATE,
		PKT_TIMESTAMP << 3 | PB_VARINT, 0,
	};
	static const uint8_t end[8] = {
		TRACE_PACKET << 3 | PB_LEN, 0, PKT_SEQUENCE_ID << 3 | PB_VARINT, SEQUENCE_ID,
		PKT_TIMESTAMP << 3 | PB_VARINT, 0, 0, 0,
	};
	struct perfetto_export *x = ctx;
	/* The track's parts: the begin's track event up to the name, the end's track event. */
	uint8_t trk[32], trk_end[32], *p = NULL;
	size_t trk_len = 0, trk_end_len = 0;

	for (size_t i = 0; i < n; i++) {
		const struct xinstr *in = &v[i];
		const struct pf_instr_slot *s = &x->instrs[xinstr_set(in->name_key, in->code)];
		const uint64_t a[3] = { in->pc, in->op0, in->op1 };
		uint64_t tag = XINSTR_TAG(in->code, in->named);
		uint8_t *pkt, *te;

		if (s->key != in->name_key || s->tag != tag)
			s++;
		if (s->key != in->name_key || s->tag != tag || !x->instr_ready) {
			if (p)
				pb_commit(&x->e, p);
			p = NULL;
			if (xinstr_slice(fmt, ctx, t, in))
				return -1;
			pf_instr_fill(x, in->name, in->name_key, in->code, in->named);
			continue;
		}
		if (!trk_len) {
			uint8_t *q = pbc_uint(trk, TE_TYPE, TYPE_SLICE_BEGIN);

			q = pbc_uint(q, TE_TRACK_UUID, t->uuid);
			trk_len = (size_t)(pbc_uint(q, TE_CATEGORY_IIDS, x->instr_cat) - trk);
			/* As p_slice() writes it. */
			q = pbc_open(trk_end, PKT_TRACK_EVENT, &te);
			q = pbc_uint(q, TE_TYPE, TYPE_SLICE_END);
			q = pbc_uint(q, TE_TRACK_UUID, t->uuid);
			*te = (uint8_t)(q - te - 1);	/* at most 13 bytes */
			trk_end_len = (size_t)(q - trk_end);
		}
		/* Room for the rest of the batch, asked for once: PF_INSTR_MAX bytes each. */
		if (!p) {
			if (!packet_room(x, PF_INSTR_MAX * (n - i)))
				return -1;
			p = pb_cursor(&x->e);
		}
		memcpy(p, begin, sizeof(begin));
		pkt = p + 1;
		p = pb_varint_wide_at(p + 7, in->ts);
		*p = PKT_TRACK_EVENT << 3 | PB_LEN;
		te = p + 1;
		/* Whole parts: fixed-size copies; only their lengths count. */
		memcpy(p + 2, trk, sizeof(trk));
		p += 2 + trk_len;
		memcpy(p, s->bytes, INSTR_NAME);
		p += s->len;
#pragma GCC unroll 3
		for (int k = 0; k < 3; k++) {
			uint8_t *at = p + 1;

			memcpy(p, x->instr_pre[k], sizeof(x->instr_pre[k]));
			p = pb_varint_at(p + x->instr_pre_len[k], a[k]);
			*at = (uint8_t)(p - at - 1);
		}
		p = pbc_close(te, p);
		p = pbc_close(pkt, p);
		/* The end: as p_slice() writes it. */
		memcpy(p, end, sizeof(end));
		pkt = p + 1;
		p = pb_varint_wide_at(p + 5, in->end_ts);
		memcpy(p, trk_end, sizeof(trk_end));
		p = pbc_close(pkt, p + trk_end_len);
	}
	if (p)
		pb_commit(&x->e, p);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * neuronprof calibrate: the verdict per architecture: each fact with the
 * votes of the queues and how sure, "not enough data" naming what is
 * missing where the evidence does not decide, and the neuronprof_neuron
 * parameters to set when everything was decided.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "calibrate.h"

const char *const cal_unit_names[3] = { "entry index", "byte offset", "free-running counter" };

int cal_report(FILE *out, FILE *conf)
{
	unsigned int arch;
	int undecided = 0, any = 0;

	for (arch = 2; arch <= 3; arch++) {
		int votes[3][512] = { { 0 } };
		int nq = 0, u, e, bu = -1, be = -1, best = 0, total = 0, own, typed;
		uint32_t tes[6] = { 0 };
		int tconf[6] = { 0 }, lag = -1, lagq = 0, phase = -1, phaseq = 0, nophase = 0;
		int from_head = 0, from_reset = 0, reset_head = -1, head_differs = 0;
		int64_t reset_raw = -1;
		int reprog, hread;
		int bad = 0, read_eq = 0, read_ne = 0, fixed = 0, reads = 0, fh = 0, fr = 0, famb = 0;
		int64_t fixed_val = -1, s_pos = -1, s_raw = -1;
		const char *s_why = NULL;
		char seen_not[64] = "";
		size_t i;

		typed = cal_merge_typed(arch, &own);
		for (i = 0; i < cal_nqueues; i++) {
			unsigned int a = cal_queues[i].dev < 64 && cal_dev_arch[cal_queues[i].dev] ?
					 cal_dev_arch[cal_queues[i].dev] : 2;

			if (a == arch) {
				read_eq += cal_queues[i].read_eq;
				read_ne += cal_queues[i].read_ne;
			}
		}
		/*
		 * A read that returns one value whatever was written: every head
		 * register read (at programming in new memory, and of a queue
		 * handed out again) gave the same value, and a queue handed out
		 * again read other than its last head written. Not with heads
		 * written to other register sets (then the reads are of registers
		 * nobody writes).
		 */
		fixed = read_ne > 0 && !(typed && !own);
		for (i = 0; i < cal_nqueues && fixed; i++) {
			struct cq *q = &cal_queues[i];
			unsigned int a = q->dev < 64 && cal_dev_arch[q->dev] ? cal_dev_arch[q->dev] : 2;
			uint32_t r[2];
			int k, nr = 0;

			if (a != arch)
				continue;
			if (q->have_type && q->fresh)
				r[nr++] = q->head0;
			if (q->have_again)
				r[nr++] = q->again_head;
			for (k = 0; k < nr; k++, reads++) {
				if (fixed_val < 0)
					fixed_val = r[k];
				else if (fixed_val != r[k])
					fixed = 0;
			}
		}
		if (reads < 2)
			fixed = 0;
		/* The phase bit: first where it shows twice, then where it may show less. */
		for (i = 0, u = -1; i < cal_nqueues; i++) {
			struct cq *q = &cal_queues[i];
			unsigned int a = q->dev < 64 && cal_dev_arch[q->dev] ? cal_dev_arch[q->dev] : 2;

			if (a == arch && q->nheads >= MIN_HEADS && cal_find_phase(q, -1))
				u = q->phase_bit;
		}
		for (i = 0; i < cal_nqueues && u >= 0; i++) {
			unsigned int a = cal_queues[i].dev < 64 && cal_dev_arch[cal_queues[i].dev] ?
					 cal_dev_arch[cal_queues[i].dev] : 2;

			if (a == arch)
				cal_find_phase(&cal_queues[i], u);
		}
		for (i = 0; i < cal_nqueues; i++) {
			struct cq *q = &cal_queues[i];
			struct verdict v;
			unsigned int a = q->dev < 64 && cal_dev_arch[q->dev] ? cal_dev_arch[q->dev] : 2;

			if (a != arch || !q->have_size || (!q->nheads && !q->have_type))
				continue;
			nq++;
			cal_infer(q, &v);
			if (v.why) {
				fprintf(out, "  queue %s: %s%s%s\n", q->key,
					v.unit == U_UNKNOWN ? "" : cal_unit_names[v.unit],
					v.unit == U_UNKNOWN ? "" : "; ", v.why);
				continue;
			}
			fprintf(out, "  queue %s%s%s: %s, %u-byte entries (%s)%s\n", q->key,
				q->have_type ? " " : "", q->have_type && q->nq_type < 6 ?
				cal_type_names[q->nq_type] : "", cal_unit_names[v.unit], v.entry_size,
				v.detail, q->phase_bit >= 0 ? "; phase bit flips on each wrap" : "");
			votes[v.unit][v.entry_size / 32 < 512 ? v.entry_size / 32 : 511]++;
			total++;
			if (q->have_type && q->nq_type < 6) {
				if (tes[q->nq_type] && tes[q->nq_type] != v.entry_size)
					bad = 1;
				tes[q->nq_type] = v.entry_size;
				tconf[q->nq_type]++;
			}
		}
		if (!nq)
			continue;
		any = 1;
		for (u = 0; u < 3; u++)
			for (e = 0; e < 512; e++)
				if (votes[u][e] > best) {
					best = votes[u][e];
					bu = u;
					be = e;
				}
		if (!best) {
			fprintf(out, "v%u: not enough data: no queue decided (see above); run a workload that consumes at least two rings' worth of entries\n",
				arch);
			undecided = 1;
			continue;
		}
		/* One head unit for every queue; entry sizes may differ per type. */
		for (e = 0, u = 0; e < 512; e++)
			u += votes[bu][e];
		if (u != total || bad) {
			fprintf(out, "v%u: the queues disagree on the head unit, or queues of one type on the entry size (see above)\n",
				arch);
			undecided = 1;
			continue;
		}
		if (tes[0])
			be = (int)(tes[0] / 32);
		fprintf(out, "v%u: %s, %u-byte entries (TRACE's, else the most common), from %d queues that agree on the unit (confidence %s)\n",
			arch, cal_unit_names[bu], be * 32, total, total >= 2 ? "high" : "medium");
		for (i = 0; i < 6; i++)
			if (tes[i])
				fprintf(out, "v%u: %s entries %u bytes (%d queue%s)\n", arch, cal_type_names[i],
					tes[i], tconf[i], tconf[i] == 1 ? "" : "s");
			else
				snprintf(seen_not + strlen(seen_not), sizeof(seen_not) - strlen(seen_not),
					 "%s%s", seen_not[0] ? ", " : "", cal_type_names[i]);
		if (seen_not[0])
			fprintf(out, "v%u: not measured (no queue of the type): %s; they get entry_size_v%u\n",
				arch, seen_not, arch);

		/* The further facts, from the queues decided. */
		for (i = 0; i < cal_nqueues; i++) {
			struct cq *q = &cal_queues[i];
			unsigned int a = q->dev < 64 && cal_dev_arch[q->dev] ? cal_dev_arch[q->dev] : 2;
			uint32_t es = q->have_type && q->nq_type < 6 && tes[q->nq_type] ?
				      tes[q->nq_type] : (uint32_t)be * 32, n, h;
			int wraps = 0;
			size_t k;

			if (a != arch || !q->have_size || q->nheads < MIN_HEADS || !es)
				continue;
			n = q->size / es;
			for (k = 1; k < q->nheads; k++)
				wraps += (int32_t)(q->heads[k] - q->heads[k - 1]) < 0;
			if (q->phase_bit >= 0) {
				if (phase >= 0 && phase != q->phase_bit)
					phase = -2;
				else if (phase != -2)
					phase = q->phase_bit;
				phaseq++;
			} else if (wraps >= 2 && bu != U_COUNTER) {
				nophase++;
			}
			cal_infer_more(q, (enum unit)bu, es);
			if (q->lag_entries >= 0) {
				int l = q->lag_entries * (int)es;

				if (lag >= 0 && lag != l)
					lag = -2;
				else if (lag != -2)
					lag = l;
				lagq++;
			}
			if (q->start < 0 || fixed)
				continue;
			h = cal_pos_of((enum unit)bu, es, n, q->head0);
			/*
			 * Item 7: written from where its head register pointed,
			 * or not; those that were all had one register value
			 * (after a reset) or not.
			 */
			if (h == (uint32_t)q->start) {
				from_head++;
				if (reset_raw < 0)
					reset_raw = q->head0;
				else if (reset_raw != q->head0)
					head_differs = 1;
			} else {
				from_reset++;
			}
		}
		/*
		 * With a read that says nothing, where the device writes is read
		 * against the heads written: queues programmed with no head
		 * written to their set since the last reset start where the
		 * reset leaves the head (all at one position); one programmed
		 * again without a reset starts there ("from the reset") or where
		 * the last head written to its set points ("from the head").
		 */
		for (i = 0; i < cal_nqueues && fixed; i++) {
			struct cq *q = &cal_queues[i];
			unsigned int a = q->dev < 64 && cal_dev_arch[q->dev] ? cal_dev_arch[q->dev] : 2;
			uint32_t es = q->have_type && q->nq_type < 6 && tes[q->nq_type] ?
				      tes[q->nq_type] : (uint32_t)be * 32;

			if (a != arch || !q->have_size || !q->have_type || !q->fresh || q->start < 0 ||
			    q->have_prev)
				continue;
			if (s_pos < 0) {
				s_pos = q->start;
				s_raw = bu == U_BYTE ? (int64_t)q->start * es : q->start;
			} else if (s_pos != q->start) {
				s_why = "the queues programmed after a reset start at different places";
			}
		}
		if (fixed && bu == U_COUNTER)
			s_why = "a counter's value after a reset is not in the ring, and the register reads one value";
		for (i = 0; i < cal_nqueues && fixed && s_pos >= 0 && !s_why; i++) {
			struct cq *q = &cal_queues[i];
			unsigned int a = q->dev < 64 && cal_dev_arch[q->dev] ? cal_dev_arch[q->dev] : 2;
			uint32_t es = q->have_type && q->nq_type < 6 && tes[q->nq_type] ?
				      tes[q->nq_type] : (uint32_t)be * 32, p;

			if (a != arch || !q->have_size || !q->have_type || !q->fresh || q->start < 0 ||
			    !q->have_prev)
				continue;
			p = cal_pos_of((enum unit)bu, es, q->size / es,
				       phase > 0 ? q->prev & ~(1u << phase) : q->prev);
			if (p == (uint32_t)q->start && p != (uint32_t)s_pos)
				fh++;
			else if ((uint32_t)q->start == (uint32_t)s_pos && p != (uint32_t)s_pos)
				fr++;
			else
				famb++;
		}
		/* Written from the reset's start: each of those at the others' register value. */
		for (i = 0; i < cal_nqueues && from_reset && reset_raw >= 0; i++) {
			struct cq *q = &cal_queues[i];
			uint32_t es = q->have_type && q->nq_type < 6 && tes[q->nq_type] ?
				      tes[q->nq_type] : (uint32_t)be * 32;

			if (q->have_size && q->start >= 0 && cal_pos_of((enum unit)bu, es, q->size / es, q->head0) != (uint32_t)q->start &&
			    cal_pos_of((enum unit)bu, es, q->size / es, (uint32_t)reset_raw) != (uint32_t)q->start)
				head_differs = 1;
		}
		if (from_reset && !head_differs)
			reset_head = (int)reset_raw;
		if (phase == -2 || (phaseq && nophase)) {
			fprintf(out, "v%u: phase bit: the queues disagree (%d with one, %d wrapping twice without)\n",
				arch, phaseq, nophase);
			undecided = 1;
		} else if (phaseq) {
			fprintf(out, "v%u: phase bit %d flips on each wrap of the head (%d queues)\n", arch,
				phase, phaseq);
		} else if (nophase || bu == U_COUNTER) {
			phase = 0;
			fprintf(out, "v%u: no phase bit (%s)\n", arch, bu == U_COUNTER ?
				"a counter does not wrap" : "heads wrapped twice with no bit flipping");
		} else {
			fprintf(out, "v%u: phase bit: not enough data: no queue's head wrapped twice\n", arch);
			undecided = 1;
		}
		if (lag == -2) {
			fprintf(out, "v%u: head lag: the queues disagree\n", arch);
			undecided = 1;
		} else if (lag < 0) {
			fprintf(out, "v%u: head lag: not enough data: no head write to a queue in new host memory of at most 16 KiB before the device wrapped it (a device-memory ring may hold old entries)\n",
				arch);
			undecided = 1;
		} else {
			fprintf(out, "v%u: the head lags the consumed entries by %d bytes (%d queues; %s)\n",
				arch, lag, lagq, lag == 0 ? "it names the next entry to read" :
				lag == be * 32 ? "it names the last entry read" : "2.1.5 kept such a gap");
		}
		if (typed && !own) {
			fprintf(out, "v%u: heads are written to register set type * 16 + engine (%d sets no queue was programmed in)\n",
				arch, typed);
		} else if (own && !typed) {
			fprintf(out, "v%u: heads are written to the register set the driver programmed (%d queues other than TRACE and TRACE_DMA)\n",
				arch, own);
		} else {
			fprintf(out, "v%u: register sets of heads: %s\n", arch, own ?
				"the queues disagree" :
				"not enough data: no head write of a queue other than TRACE or TRACE_DMA");
			undecided = 1;
		}
		if (fixed) {
			reset_head = -1;
			if (s_why || s_pos < 0 || (!fh && !fr) || (fh && fr)) {
				fprintf(out, "v%u: where a queue programmed again without a reset is written: %s\n",
					arch, s_why ? s_why : s_pos < 0 ?
					"not enough data: no queue programmed after a reset to compare with" :
					fh && fr ? "the queues disagree" :
					"not enough data: no queue programmed again without a reset away from where a reset leaves the head (the register reads one value, so only the heads written tell)");
				undecided = 1;
			} else {
				reset_head = (int)s_raw;
				fprintf(out, "v%u: a queue programmed in new memory is written from %s (%d queues programmed again without a reset against the last head written; head %d after a reset, from where the device wrote)\n",
					arch, fh ? "where the last head written to its register set since a reset points" :
					"the reset's start", fh + fr, reset_head);
				from_head = fh;
				from_reset = fr;
			}
		} else if (from_reset && from_head && !head_differs) {
			fprintf(out, "v%u: a queue programmed in new memory is written from the reset's start (%d queues programmed again without a reset; head register %d after a reset)\n",
				arch, from_reset, reset_head);
		} else if (from_head && !from_reset && head_differs) {
			reset_head = -1;
			fprintf(out, "v%u: a queue programmed in new memory is written from where its head register points (%d queues)\n",
				arch, from_head);
		} else {
			fprintf(out, "v%u: where a queue programmed again without a reset is written: %s\n",
				arch, from_reset && !from_head ?
				"not enough data: no queue programmed after a reset to compare with" :
				from_reset ? "the queues disagree" :
				"not enough data: every queue was programmed with its head at one place (program one again without a reset)");
			undecided = 1;
		}
		/* A read of the head register: only where heads are written to it. */
		if (fixed) {
			read_eq = 2;
			fprintf(out, "v%u: a read of a head register returns %lld whatever was written (%d reads, %d of a queue handed out again after other heads): it says nothing, the heads written do\n",
				arch, (long long)fixed_val, reads, read_ne);
		} else if (typed && !own) {
			read_eq = 0;
			fprintf(out, "v%u: a read of a head register does not return the runtime's head (it writes other register sets)\n",
				arch);
		} else if (read_eq && !read_ne) {
			fprintf(out, "v%u: a read of a head register returns the last head written (%d queues handed out again)\n",
				arch, read_eq);
		} else if (read_ne) {
			read_eq = 0;
			fprintf(out, "v%u: a read of a head register does not return the last head written (%d of %d queues handed out again)\n",
				arch, read_ne, read_ne + read_eq);
		} else {
			fprintf(out, "v%u: what a read of a head register returns: not enough data: no queue was handed out again (NOTIFICATIONS_INIT without reallocation) after head writes\n",
				arch);
			undecided = 1;
		}
		if (undecided)
			continue;
		/* Written from the reset's start: reprogram 1 (with a fixed read, reset_head either way). */
		reprog = fixed ? (fr ? 1 : 0) : (reset_head >= 0 ? 1 : 0);
		hread = fixed ? 2 : read_eq ? 1 : 0;
		fprintf(out, "set: modprobe neuronprof_neuron entry_size_v%u=%u head_mode_v%u=%d type_entry_size_v%u=%u,%u,%u,%u,%u,%u head_lag_v%u=%d phase_bit_v%u=%d head_sets_v%u=%d reprogram_v%u=%d reset_head_v%u=%d head_read_v%u=%d\n",
			arch, be * 32, arch, bu, arch, tes[0], tes[1], tes[2], tes[3], tes[4], tes[5],
			arch, lag, arch, phase, arch, typed ? 1 : 0, arch, reprog,
			arch, reset_head >= 0 ? reset_head : 0, arch, hread);
		if (conf)
			fprintf(conf, "entry_size_v%u=%u head_mode_v%u=%d type_entry_size_v%u=%u,%u,%u,%u,%u,%u head_lag_v%u=%d phase_bit_v%u=%d head_sets_v%u=%d reprogram_v%u=%d reset_head_v%u=%d head_read_v%u=%d ",
				arch, be * 32, arch, bu, arch, tes[0], tes[1], tes[2], tes[3], tes[4],
				tes[5], arch, lag, arch, phase, arch, typed ? 1 : 0, arch,
				reprog, arch, reset_head >= 0 ? reset_head : 0, arch, hread);
	}
	if (!any) {
		fprintf(out, "not enough data: the log holds no queue (was a workload running?)\n");
		return 1;
	}
	return undecided;
}


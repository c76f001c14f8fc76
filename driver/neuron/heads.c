// SPDX-License-Identifier: GPL-2.0
/*
 * neuronprof_neuron: head values. One job: what a value the runtime writes
 * to a head register means, given the calibrated facts: the ring position
 * it stands for (nprof_nn_head_pos()) and the entries consumed since the
 * previous one (nprof_nn_consumed()).
 */

#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <kunit/visibility.h>

#include "neuron.h"

/*
 * The ring position a head value stands for: phase bit cleared, lag added.
 * Entry and ring sizes are powers of two (nprof_nn_entry_size_valid(), and
 * the provider captures no other ring): this runs on every head write, so
 * it shifts and masks where a division would cost more than the rest.
 */
u32 nprof_nn_head_pos(const struct nprof_nn_arch *arch, u32 es, u32 size, u32 head)
{
	const u32 shift = ilog2(es), n = size >> shift;

	if (arch->phase_bit)
		head &= ~BIT(arch->phase_bit);
	if (!arch->head_lag)
		return head;
	switch (arch->head_mode) {
	case NPROF_NN_HEAD_RING_BYTES:
		return head < size ? (head + arch->head_lag) & (size - 1) : head;
	case NPROF_NN_HEAD_RING_ENTRIES:
		return head < n ? (head + (arch->head_lag >> shift)) & (n - 1) : head;
	default:
		return head + (arch->head_lag >> shift);
	}
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_head_pos);

/**
 * nprof_nn_consumed() - entries the runtime consumed with one head write.
 * @arch: the architecture (its head_mode and entry_size).
 * @size: bytes of the ring.
 * @old_head: the previous head value (0 right after programming).
 * @new_head: the written one.
 * @first: out, ring index of the first consumed entry.
 *
 * A free-running counter that moves backwards cannot be told from a
 * re-program the hook did not see: that is NPROF_NN_RESYNC, never a count
 * of lost entries (a backwards step would otherwise look like nearly 2^32
 * of them).
 *
 * Return: consumed entries, more than the ring holds only with a counter
 * (the runtime skipped head writes; less than 2^31); NPROF_NN_RESYNC; or
 * NPROF_NN_BAD_HEAD for a head value that cannot be one in this mode (out
 * of the ring, misaligned).
 */
u64 nprof_nn_consumed(const struct nprof_nn_arch *arch, u32 size, u32 old_head,
		      u32 new_head, u32 *first)
{
	/* Powers of two, as in nprof_nn_head_pos(). */
	const u32 shift = ilog2(arch->entry_size), n = size >> shift;
	u32 d;

	switch (arch->head_mode) {
	case NPROF_NN_HEAD_RING_BYTES:
		if (new_head >= size || (new_head & (arch->entry_size - 1)))
			return NPROF_NN_BAD_HEAD;
		old_head >>= shift;
		new_head >>= shift;
		fallthrough;
	case NPROF_NN_HEAD_RING_ENTRIES:
		if (new_head >= n)
			return NPROF_NN_BAD_HEAD;
		*first = old_head & (n - 1);
		return (new_head - *first) & (n - 1);
	default:
		d = new_head - old_head;
		if ((s32)d < 0)
			return NPROF_NN_RESYNC;
		*first = old_head & (n - 1);
		return d;
	}
}
EXPORT_SYMBOL_IF_KUNIT(nprof_nn_consumed);

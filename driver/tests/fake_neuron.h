/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuronprof_fake_neuron: a test module that stands in for the patched
 * neuron.ko (see fake_neuron.c). Its calls, for the KUnit suite.
 */
#ifndef _NEURONPROF_FAKE_NEURON_H_
#define _NEURONPROF_FAKE_NEURON_H_

#include <linux/types.h>

#define NPROF_FAKE_MAX_DEVICES	4
#define NPROF_FAKE_MAX_QUEUES	64

/* First 8 bytes of a synthetic entry: magic, queue, low 32 bits of its number. */
#define NPROF_FAKE_MAGIC	0xFA4EULL
#define NPROF_FAKE_WORD0(q, seq) \
	(NPROF_FAKE_MAGIC << 48 | (u64)(q) << 32 | (u32)(seq))

int nprof_fake_add(u32 vendor_arch, u32 nc, u32 ts);
int nprof_fake_remove(int dev);
int nprof_fake_program(int dev, u32 target, u32 id, u32 nq_type, u32 instance, u32 size);
int nprof_fake_program_at(int dev, u32 target, u32 id, u32 nq_type, u32 instance, u32 size,
			  bool on_host);
int nprof_fake_rebase_head(int dev, int q, u32 delta);
int nprof_fake_restart(int dev, int q);
int nprof_fake_halt(int dev, int q);
int nprof_fake_mem_free(int dev, int q);
int nprof_fake_reset_core(int dev, u32 core);
long nprof_fake_produce(int dev, int q, u32 n);
long nprof_fake_consume(int dev, int q, u32 n, bool write_head);
u32 nprof_fake_head_reg(int dev, int q);
#if IS_ENABLED(CONFIG_KUNIT)
void nprof_fake_set_format(u32 size, u32 mode);
void nprof_fake_set_blind(bool blind);
void nprof_fake_set_devmem_io(bool io);
void nprof_fake_set_head_fixed(bool on, u32 read, u32 reset);
struct neuron_nq_hook_dev;
const struct neuron_nq_hook_dev *nprof_fake_hook_dev(int dev);
void *nprof_fake_ring(int dev, int q);
#endif

#endif /* _NEURONPROF_FAKE_NEURON_H_ */

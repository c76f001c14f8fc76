/* SPDX-License-Identifier: MIT */
/*
 * neuronprof calibrate's parts (cmd_calibrate.c parses its options and
 * runs them): the calibration log read into queues (calibrate_log.c), the
 * facts inferred from each queue's head writes and ring bytes
 * (calibrate_infer.c), and the verdict per architecture with the module
 * parameters to set (calibrate_report.c).
 */
#ifndef NEURONPROF_TOOL_CALIBRATE_H
#define NEURONPROF_TOOL_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CAL_PARAM "/sys/module/neuronprof_neuron/parameters/calibrate"
#define CAL_LOG "/sys/kernel/debug/neuronprof_neuron/calibration"
#define MIN_HEADS 8
#define MAX_QUEUES 512

enum unit { U_UNKNOWN = -1, U_INDEX = 0, U_BYTE = 1, U_COUNTER = 2 };
/* "entry index", "byte offset", "free-running counter" by enum unit. */
extern const char *const cal_unit_names[3];
/* The queue types' names by their number. */
extern const char *const cal_type_names[6];


struct cq {
	char key[64];		/* DEV TARGET ID SDMA INSTANCE REG */
	unsigned int dev, id, sdma, reg;
	char target[8];
	uint32_t size;
	int on_host, have_size;
	/* From the queue line (log 2): type, engine, head register, in new memory. */
	int have_type;
	unsigned int nq_type, engine, fresh;
	uint32_t head0;
	/* The last head written to the set before (since the log began and a reset). */
	int have_prev;
	uint32_t prev;
	/* Handed out again: the head register's value then. */
	int have_again;
	uint32_t again_head;
	uint32_t *heads, *first, *end;	/* end 0: no ring bytes at that write */
	size_t nheads, cap;
	uint8_t *ring;
	size_t ring_len;
	/* Inferred by cal_infer_more(). */
	int phase_bit;			/* -1 none, else the bit */
	int read_eq, read_ne;		/* handed out again: register = last head written, or not */
	int lag_entries;		/* -1 not measured */
	int start;			/* ring index of the device's first entry, -1 unknown */
};

struct verdict {
	enum unit unit;
	uint32_t entry_size;	/* 0: not determined */
	const char *why;	/* when not decided */
	char detail[160];
};
/* The queues of the log read so far, and each device's architecture (2 or 3). */
extern struct cq cal_queues[MAX_QUEUES];
extern size_t cal_nqueues;
extern unsigned int cal_dev_arch[64];

/* Parse one line of the log into the queues; 0, or -1 for a line that is not one. */
int cal_parse_line(const char *line);

/*
 * Read the log at @path ("-": standard input) into the queues and, whole,
 * into *@text (*@len bytes, allocated). 0, or -1 after a message.
 */
int cal_read_log(const char *path, char **text, size_t *len);

/* The head unit and entry size of @q, with how sure. */
void cal_infer(const struct cq *q, struct verdict *v);

/* The phase bit of @q's heads (@known: the one found elsewhere, or -1); 1 when found. */
int cal_find_phase(struct cq *q, int known);

/* The ring position of head value @h for unit @u, entry size @es, ring of @n entries. */
uint32_t cal_pos_of(enum unit u, uint32_t es, uint32_t n, uint32_t h);

/* The further facts of @q (lag, start, phase, read-back) given its unit and entry size. */
void cal_infer_more(struct cq *q, enum unit u, uint32_t es);

/*
 * Head writes to a register set no queue was programmed in, whose set
 * decodes (type set / 16, engine set % 16) to a queue that was: their heads
 * join that queue. Returns how many such sets; *@own counts queues other
 * than TRACE and TRACE_DMA with head writes in their own set.
 */
int cal_merge_typed(unsigned int arch, int *own);

/*
 * Infer and print the verdict to @out (and the configuration to @conf when
 * not NULL); 0 when every fact of every architecture seen was decided.
 */
int cal_report(FILE *out, FILE *conf);

#endif

// SPDX-License-Identifier: MIT
/*
 * neuronprof calibrate: neuronprof_neuron's calibration log (its lines:
 * Documentation/hardware.rst) read into one struct cq per queue.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool.h"
#include "calibrate.h"
#include "util/util.h"

struct cq cal_queues[MAX_QUEUES];
size_t cal_nqueues;
unsigned int cal_dev_arch[64];

static struct cq *cq_get(const char *key, unsigned int dev)
{
	size_t i;

	for (i = 0; i < cal_nqueues; i++)
		if (!strcmp(cal_queues[i].key, key))
			return &cal_queues[i];
	if (cal_nqueues == MAX_QUEUES)
		return NULL;
	memset(&cal_queues[cal_nqueues], 0, sizeof(cal_queues[0]));
	snprintf(cal_queues[cal_nqueues].key, sizeof(cal_queues[0].key), "%s", key);
	cal_queues[cal_nqueues].dev = dev;
	cal_queues[cal_nqueues].phase_bit = -1;
	cal_queues[cal_nqueues].lag_entries = -1;
	cal_queues[cal_nqueues].start = -1;
	return &cal_queues[cal_nqueues++];
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Parse one line of the log; 0, or -1 for a line that is not one. */
int cal_parse_line(const char *line)
{
	char t[8], key[64], rest[16], prev[16];
	unsigned int dev, id, sdma, inst, reg, ty, en, fr;
	unsigned long long a, b, c, d2;
	int n = 0;
	struct cq *q;

	if (line[0] == '#' || line[0] == '\n' || !line[0])
		return 0;
	if (sscanf(line, "device %u arch %llu", &dev, &a) == 2) {
		if (dev < 64)
			cal_dev_arch[dev] = (unsigned int)a;
		return 0;
	}
	if (sscanf(line, "%15s %u %7s %u %u %u %u %n", rest, &dev, t, &id, &sdma, &inst, &reg, &n) < 7 || !n)
		return -1;
	snprintf(key, sizeof(key), "%u %s %u %u %u %u", dev, t, id, sdma, inst, reg);
	q = cq_get(key, dev);
	if (!q)
		return -1;
	q->id = id;
	q->sdma = sdma;
	q->reg = reg;
	snprintf(q->target, sizeof(q->target), "%s", t);
	line += n;
	if (!strcmp(rest, "queue")) {
		int k = sscanf(line, "%llu %llu %u %u %llu %u %15s", &a, &b, &ty, &en, &c, &fr, prev);

		if (k != 2 && k != 6 && k != 7)
			return -1;
		/* PREV: the last head written to the set before, or "-" (older logs: none). */
		q->have_prev = k == 7 && strcmp(prev, "-");
		if (q->have_prev)
			q->prev = (uint32_t)strtoul(prev, NULL, 10);
		q->size = (uint32_t)a;
		q->on_host = (int)b;
		q->have_size = 1;
		q->have_type = k >= 6;
		if (k >= 6) {
			q->nq_type = ty;
			q->engine = en;
			q->head0 = (uint32_t)c;
			q->fresh = fr;
		}
		/* A queue programmed again starts its evidence again. */
		q->nheads = 0;
		q->ring_len = 0;
	} else if (!strcmp(rest, "head")) {
		int k = sscanf(line, "%llu %llu %llu %llu", &a, &b, &c, &d2);

		if (k < 1)
			return -1;
		if (q->nheads == q->cap) {
			q->cap = q->cap ? 2 * q->cap : 64;
			q->heads = xrealloc(q->heads, q->cap * sizeof(*q->heads));
			q->first = xrealloc(q->first, q->cap * sizeof(*q->first));
			q->end = xrealloc(q->end, q->cap * sizeof(*q->end));
		}
		q->first[q->nheads] = k == 4 ? (uint32_t)c : 0;
		q->end[q->nheads] = k == 4 ? (uint32_t)d2 : 0;
		q->heads[q->nheads++] = (uint32_t)a;
	} else if (!strcmp(rest, "again")) {
		/* Handed out again after N head writes: does a read give the last one? */
		if (sscanf(line, "%llu %llu", &a, &b) != 2)
			return -1;
		q->have_again = 1;
		q->again_head = (uint32_t)a;
		if (b && b <= q->nheads) {
			if ((uint32_t)a == q->heads[b - 1])
				q->read_eq++;
			else
				q->read_ne++;
		}
	} else if (!strcmp(rest, "ring")) {
		size_t len = strcspn(line, " \n"), i;

		free(q->ring);
		q->ring = xcalloc(len / 2 + 1, 1);
		for (i = 0; i + 1 < len; i += 2) {
			int hi = hexval(line[i]), lo = hexval(line[i + 1]);

			if (hi < 0 || lo < 0)
				return -1;
			q->ring[i / 2] = (uint8_t)(hi << 4 | lo);
		}
		q->ring_len = len / 2;
	} else {
		return -1;
	}
	return 0;
}

int cal_read_log(const char *path, char **text, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0, n = 0;
	ssize_t r;
	unsigned long lineno = 0;

	if (!f) {
		fprintf(stderr, "neuronprof calibrate: %s: %s\n", path, strerror(errno));
		return -1;
	}
	*text = NULL;
	*len = 0;
	while ((r = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (cal_parse_line(line)) {
			fprintf(stderr, "neuronprof calibrate: %s:%lu: not a calibration log line: %.60s\n",
				path, lineno, line);
			free(line);
			if (f != stdin)
				fclose(f);
			return -1;
		}
		*text = xrealloc(*text, n + (size_t)r + 1);
		memcpy(*text + n, line, (size_t)r + 1);
		n += (size_t)r;
	}
	*len = n;
	free(line);
	if (f != stdin)
		fclose(f);
	return 0;
}


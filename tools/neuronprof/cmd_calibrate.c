// SPDX-License-Identifier: MIT
/*
 * neuronprof calibrate: the first run on a Neuron instance measures the two
 * facts about notification queues that public information does not give
 * (Documentation/hardware.rst): the bytes of a queue entry and what a head
 * register holds. neuronprof_neuron's calibration mode logs every queue the
 * vendor driver programs (its size), every head write the runtime makes
 * (its value) and the ring's bytes at the last head write; from those this
 * command infers the head unit (entry index, byte offset or free-running
 * counter: from wrap points and strides) and the entry size (from the
 * stride and wrap point of the heads, and from the period of the ring's
 * bytes), prints the module parameters to set with how sure it is, and
 * writes a report file to attach to a bug. With too few head writes, or
 * evidence that does not decide, it says "not enough data" and names what
 * is missing rather than guessing.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/options.h"
#include "tool.h"

#define CAL_PARAM "/sys/module/neuronprof_neuron/parameters/calibrate"
#define CAL_LOG "/sys/kernel/debug/neuronprof_neuron/calibration"
#define MIN_HEADS 8
#define MAX_QUEUES 512


enum unit { U_UNKNOWN = -1, U_INDEX = 0, U_BYTE = 1, U_COUNTER = 2 };
static const char *const unit_names[] = { "entry index", "byte offset", "free-running counter" };

struct cq {
	char key[64];		/* DEV TARGET ID SDMA INSTANCE REG */
	unsigned int dev;
	uint32_t size;
	int on_host, have_size;
	uint32_t *heads;
	size_t nheads, cap;
	uint8_t *ring;
	size_t ring_len;
};

struct verdict {
	enum unit unit;
	uint32_t entry_size;	/* 0: not determined */
	const char *why;	/* when not decided */
	char detail[160];
};

static struct cq queues[MAX_QUEUES];
static size_t nqueues;
static unsigned int dev_arch[64];

static struct cq *cq_get(const char *key, unsigned int dev)
{
	size_t i;

	for (i = 0; i < nqueues; i++)
		if (!strcmp(queues[i].key, key))
			return &queues[i];
	if (nqueues == MAX_QUEUES)
		return NULL;
	memset(&queues[nqueues], 0, sizeof(queues[0]));
	snprintf(queues[nqueues].key, sizeof(queues[0].key), "%s", key);
	queues[nqueues].dev = dev;
	return &queues[nqueues++];
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Parse one line of the log; 0, or -1 for a line that is not one. */
static int parse_line(const char *line)
{
	char t[8], key[64], rest[16];
	unsigned int dev, id, sdma, inst, reg;
	unsigned long long a, b;
	int n = 0;
	struct cq *q;

	if (line[0] == '#' || line[0] == '\n' || !line[0])
		return 0;
	if (sscanf(line, "device %u arch %llu", &dev, &a) == 2) {
		if (dev < 64)
			dev_arch[dev] = (unsigned int)a;
		return 0;
	}
	if (sscanf(line, "%15s %u %7s %u %u %u %u %n", rest, &dev, t, &id, &sdma, &inst, &reg, &n) < 7 || !n)
		return -1;
	snprintf(key, sizeof(key), "%u %s %u %u %u %u", dev, t, id, sdma, inst, reg);
	q = cq_get(key, dev);
	if (!q)
		return -1;
	line += n;
	if (!strcmp(rest, "queue")) {
		if (sscanf(line, "%llu %llu", &a, &b) != 2)
			return -1;
		q->size = (uint32_t)a;
		q->on_host = (int)b;
		q->have_size = 1;
		/* A queue programmed again starts its evidence again. */
		q->nheads = 0;
		q->ring_len = 0;
	} else if (!strcmp(rest, "head")) {
		if (sscanf(line, "%llu", &a) != 1)
			return -1;
		if (q->nheads == q->cap) {
			q->cap = q->cap ? 2 * q->cap : 64;
			q->heads = xrealloc(q->heads, q->cap * sizeof(*q->heads));
		}
		q->heads[q->nheads++] = (uint32_t)a;
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

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * The smallest period P (32..256) at which some byte column of the ring's
 * written entries holds one value in at least 90% of them: entries start
 * with a field that does not change, as every entry format seen has. 0 if
 * none (the ring's bytes do not tell).
 */
static uint32_t ring_period(const struct cq *q)
{
	uint32_t p;

	for (p = 32; p <= 256; p *= 2) {
		size_t nent = q->ring_len / p, k, j;

		if (nent < 4)
			break;
		for (k = 0; k < p; k++) {
			unsigned int count[256] = { 0 }, best = 0, written = 0;

			for (j = 0; j < nent; j++) {
				const uint8_t *e = q->ring + j * p;
				size_t z;

				for (z = 0; z < p && !e[z]; z++)
					;
				if (z == p)
					continue;	/* never written */
				written++;
				if (++count[e[k]] > best)
					best = count[e[k]];
			}
			if (written >= 4 && best * 10 >= written * 9 && count[0] != best)
				return p;
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	return cmp_int(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* The most frequent value of @v[0..n) (sorts @v); 0 for none. */
static uint32_t mode_of(uint32_t *v, size_t n)
{
	uint32_t best = 0;
	size_t i, run = 0, bc = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 0; i < n; i++) {
		run = i && v[i] == v[i - 1] ? run + 1 : 1;
		if (run > bc) {
			bc = run;
			best = v[i];
		}
	}
	return best;
}

static void infer(const struct cq *q, struct verdict *v)
{
	uint32_t max = 0, pring = ring_period(q), *d, dmode, *nest;
	size_t i, nd = 0, nw = 0, wraps = 0;
	uint64_t g = 0;

	memset(v, 0, sizeof(*v));
	v->unit = U_UNKNOWN;
	if (!q->have_size) {
		v->why = "the queue's size was not logged (it was programmed before logging began)";
		return;
	}
	if (q->nheads < MIN_HEADS) {
		v->why = "fewer than 8 head writes";
		return;
	}
	d = xcalloc(q->nheads, sizeof(*d));
	nest = xcalloc(q->nheads, sizeof(*nest));
	for (i = 0; i < q->nheads; i++) {
		if (q->heads[i] > max)
			max = q->heads[i];
		g = gcd64(g, q->heads[i]);
		if (i && q->heads[i] > q->heads[i - 1])
			d[nd++] = q->heads[i] - q->heads[i - 1];
		else if (i && q->heads[i] < q->heads[i - 1])
			wraps++;
	}
	for (i = 0; i < nd; i++)
		g = gcd64(g, d[i]);
	dmode = mode_of(d, nd);
	/* At a wrap from h to h' after a step of dmode, the ring held h + dmode - h'. */
	for (i = 1; i < q->nheads && dmode; i++)
		if (q->heads[i] < q->heads[i - 1])
			nest[nw++] = q->heads[i - 1] + dmode - q->heads[i];

	if (!wraps) {
		if (max >= q->size || (max >= q->size / 32 && g < 32)) {
			/* Past any index or byte offset of the ring, and never back. */
			v->unit = U_COUNTER;
			v->entry_size = pring;
			snprintf(v->detail, sizeof(v->detail),
				 "%zu head writes up to %u without a wrap in a %u-byte ring; entry size from the ring's period",
				 q->nheads, max, q->size);
			if (!pring)
				v->why = "a counter's heads do not give the entry size, and the ring's bytes show no period";
		} else {
			v->why = "no head went back (no wrap seen) and none passed the ring: run longer";
		}
	} else if (max < q->size / 2 || g < 32) {
		uint32_t n = mode_of(nest, nw);

		v->unit = U_INDEX;
		if (n && is_pow2(n) && q->size % n == 0 && q->size / n >= 32)
			v->entry_size = q->size / n;
		if (pring && v->entry_size && pring != v->entry_size) {
			v->why = "the wrap point and the ring's period disagree";
			v->entry_size = 0;
		} else if (!v->entry_size) {
			v->entry_size = pring;
		}
		snprintf(v->detail, sizeof(v->detail),
			 "%zu head writes, %zu wraps at %u entries of a %u-byte ring%s", q->nheads,
			 wraps, n, q->size, pring ? ", ring period agrees" : "");
		if (!v->entry_size && !v->why)
			v->why = "neither the wrap point nor the ring's bytes give the entry size";
	} else {
		v->unit = U_BYTE;
		if (pring && g % pring == 0)
			v->entry_size = pring;
		else if (!pring && g == 32)
			v->entry_size = 32;	/* the smallest entry size there is */
		snprintf(v->detail, sizeof(v->detail),
			 "%zu head writes, %zu wraps, every head a multiple of %llu bytes below %u%s",
			 q->nheads, wraps, (unsigned long long)g, q->size,
			 pring ? ", ring period agrees" : "");
		if (!v->entry_size)
			v->why = pring ? "the heads' stride is no multiple of the ring's period" :
				 "the heads' stride is a multiple of the entry size, and the ring's bytes show no period to say which";
	}
	free(d);
	free(nest);
}

/* Infer and print; 0 when every architecture seen was decided. */
static int report(FILE *out)
{
	unsigned int arch;
	int undecided = 0, any = 0;

	for (arch = 2; arch <= 3; arch++) {
		int votes[3][512] = { { 0 } };
		int nq = 0, u, e, bu = -1, be = -1, best = 0, total = 0;
		size_t i;

		for (i = 0; i < nqueues; i++) {
			struct cq *q = &queues[i];
			struct verdict v;
			unsigned int a = q->dev < 64 && dev_arch[q->dev] ? dev_arch[q->dev] : 2;

			if (a != arch || (!q->nheads && !q->have_size))
				continue;
			nq++;
			infer(q, &v);
			if (v.why) {
				fprintf(out, "  queue %s: %s%s%s\n", q->key,
					v.unit == U_UNKNOWN ? "" : unit_names[v.unit],
					v.unit == U_UNKNOWN ? "" : "; ", v.why);
				continue;
			}
			fprintf(out, "  queue %s: %s, %u-byte entries (%s)\n", q->key,
				unit_names[v.unit], v.entry_size, v.detail);
			votes[v.unit][v.entry_size / 32 < 512 ? v.entry_size / 32 : 511]++;
			total++;
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
		fprintf(out, "v%u: %s, %u-byte entries, from %d of %d queues (confidence %s)\n",
			arch, unit_names[bu], be * 32, best, total,
			best == total && best >= 2 ? "high" : best == total ? "medium" : "low: queues disagree");
		fprintf(out, "set: modprobe neuronprof_neuron entry_size_v%u=%u head_mode_v%u=%d\n",
			arch, be * 32, arch, bu);
		if (best != total)
			undecided = 1;
	}
	if (!any) {
		fprintf(out, "not enough data: the log holds no queue (was a workload running?)\n");
		return 1;
	}
	return undecided;
}

static int read_log(const char *path, char **text, size_t *len)
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
		if (parse_line(line)) {
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

static int set_param(const char *v)
{
	FILE *f = fopen(CAL_PARAM, "w");

	if (!f || fputs(v, f) < 0 || fclose(f)) {
		fprintf(stderr, "neuronprof calibrate: %s: %s (is neuronprof_neuron loaded, and are you root?)\n",
			CAL_PARAM, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	const char *from = NULL, *outp = "neuronprof-calibration.txt";
	uint64_t duration_ns = 10000000000ULL;
	double duration;
	char *text = NULL;
	size_t len = 0;
	int rc;
	FILE *out;
	const struct opt opts[] = {
		OPT_SECONDS(0, "duration", &duration_ns, 1000000, 86400 * 1000000000ULL,
			    "log for SEC seconds (default 10), or until COMMAND ends"),
		OPT_STRING(0, "from", &from, "LOG", "infer from a calibration log saved earlier"),
		OPT_STRING('o', "output", &outp, "REPORT",
			   "write the report (verdict and log) to REPORT\n"
			   "(default neuronprof-calibration.txt; - for none)"),
		OPT_END(),
	};

	if (opts_parse(argc, argv, opts, NULL, &rc))
		return rc;
	duration = duration_ns / 1e9;
	if (from && optind < argc) {
		return usage_error("--from reads a log; it runs no command");
	}
	if (!from) {
		pid_t pid = 0;

		if (set_param("1\n"))
			return 1;
		if (optind < argc) {
			pid = fork();
			if (pid == 0) {
				execvp(argv[optind], argv + optind);
				fprintf(stderr, "neuronprof calibrate: %s: %s\n", argv[optind], strerror(errno));
				_exit(127);
			}
		}
		fprintf(stderr, "neuronprof calibrate: logging head writes for %s%gs...\n",
			pid > 0 ? "the command or " : "", duration);
		for (double t = 0; t < duration; t += 0.1) {
			struct timespec ts = { 0, 100000000 };

			if (pid > 0 && waitpid(pid, NULL, WNOHANG) == pid) {
				pid = 0;
				break;
			}
			nanosleep(&ts, NULL);
		}
		if (pid > 0) {
			kill(pid, SIGTERM);
			waitpid(pid, NULL, 0);
		}
		rc = read_log(CAL_LOG, &text, &len);
		set_param("0\n");
		if (rc)
			return 1;
	} else if (read_log(from, &text, &len)) {
		return 1;
	}

	rc = report(stdout);
	if (strcmp(outp, "-")) {
		out = fopen(outp, "w");
		if (!out) {
			fprintf(stderr, "neuronprof calibrate: %s: %s\n", outp, strerror(errno));
			free(text);
			return 1;
		}
		char *buf = NULL, *line, *save = NULL;
		size_t blen = 0;
		FILE *mem = open_memstream(&buf, &blen);

		/* The verdict as comments: the report is a log --from reads again. */
		if (mem) {
			report(mem);
			fclose(mem);
		}
		fprintf(out, "# neuronprof calibrate report\n");
		for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(out, "# %s\n", line);
		free(buf);
		if (len)
			fwrite(text, 1, len, out);
		if (fclose(out)) {
			fprintf(stderr, "neuronprof calibrate: %s: %s\n", outp, strerror(errno));
			rc = 1;
		} else {
			fprintf(stderr, "neuronprof calibrate: report written to %s\n", outp);
		}
	}
	free(text);
	for (size_t i = 0; i < nqueues; i++) {
		free(queues[i].heads);
		free(queues[i].ring);
	}
	return rc ? 1 : 0;
}

// SPDX-License-Identifier: MIT
/*
 * check_ntff OUTDIR PROTO_DIR: the host half of the end-to-end SESSION
 * capture test. Reads OUTDIR/manifest.txt (written by capture_vm inside the
 * VM) and every NTFF file it names, and checks them entry by entry:
 *
 *  - the file validates (checksums, bounds) and describes the right core,
 *    session, capture kind, clock and device (its index too: a session of
 *    the second simulated device lies in a subdirectory);
 *  - the queue records are exactly the queues of the core and its TopSPs
 *    (computed here from the device description, not by the library);
 *  - every entry carries its record's queue type and engine and a model id
 *    of the session's programs; timestamps strictly increase per queue and
 *    lie between the session's start and stop; sequence numbers strictly
 *    increase, and the numbers missing before, between and after the
 *    delivered entries add up to the record's lost count (a session that
 *    continued an earlier one's subscriptions starts where that one ended);
 *  - per queue, entries + lost equal what the simulator's documented
 *    formulas give for the programs run; per queue type, entries + lost
 *    equal what SIM_EXEC reported;
 *  - errors, throttling and losses appear where the programs asked for them;
 *  - the metadata decodes with protoc (an independent protobuf
 *    implementation) and agrees with what the library read.
 *
 * Output: "ok N - ..." / "not ok N - ..." lines, then "N passed, N failed".
 * Environment: PROTOC (default "protoc").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "../tests/harness.h"

#define QT		NEURONPROF_QT_COUNT
#define MAX_EXECS	96
#define MAX_SESSIONS	64
#define MAX_ENGINES	NEURONPROF_MAX_ENGINES
#define MAX_QUEUES	256
#define ERR_CODE	1004

struct exec {
	uint32_t model, iterations, flags, dma, status;
	uint32_t instr[MAX_ENGINES];
	uint64_t produced[QT];
};

/* Where the next sequence number of a queue stands after a session. */
struct queue_end {
	uint32_t kind, index, type, engine;
	uint64_t next_seq;
};

struct session {
	uint32_t device;	/* device index */
	uint32_t core;
	uint64_t id;
	char file[128];
	uint64_t ring_size;
	int64_t follows;	/* session whose subscriptions continued, or -1 */
	bool streamed;		/* "stream 1": small rings that lose nothing */
	struct exec execs[MAX_EXECS];
	int nexecs;
	struct queue_end ends[MAX_QUEUES];	/* filled by check_session() */
	int nends;
};

struct device {
	uint32_t arch, cores, topsps, engines, entry_size, clock;
};

/* One expected queue and what the checks found for it. */
struct equeue {
	uint32_t kind, index, type, engine;
	uint64_t expected;	/* produced by the programs, by the formulas */
	uint64_t base;		/* sequence number of its first notification */
	bool seen;
	int *recs;		/* its records, in file order (a streamed capture has several) */
	int nrecs;
};

static int problems;	/* diagnostics printed for the current check */

static void result(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	harness_vresult(ok, NULL, fmt, ap);
	va_end(ap);
	problems = 0;
}

/* A diagnostic of the check in progress; at most 10 per check. */
static bool problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool problem(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (problems++ < 10) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		harness_diag("  %s", msg);
	}
	return false;
}

/* ---- the manifest -------------------------------------------------------------- */

static int parse_list(const char *s, uint64_t *out, int max)
{
	int n = 0;
	char *end;

	while (*s && n < max) {
		out[n++] = strtoull(s, &end, 10);
		if (end == s)
			return -1;
		s = *end == ',' ? end + 1 : end;
		if (!*end)
			break;
	}
	return n;
}

static int read_manifest(const char *path, struct device *dev, struct session *ss, int *nss)
{
	char line[1024], instr[128], produced[512];
	FILE *f = fopen(path, "r");
	int got_dev = 0;

	*nss = 0;
	if (!f) {
		harness_diag("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct session *s;
		struct exec *x;
		uint64_t v[QT + 1];
		uint64_t id;
		uint32_t core;
		int i, n;

		if (sscanf(line, "device arch %u cores %u topsps %u engines %u entry_size %u clock %u",
			   &dev->arch, &dev->cores, &dev->topsps, &dev->engines, &dev->entry_size,
			   &dev->clock) == 6) {
			got_dev = 1;
		} else if (!strncmp(line, "session ", 8)) {
			if (*nss == MAX_SESSIONS)
				goto bad;
			s = &ss[(*nss)++];
			memset(s, 0, sizeof(*s));
			if (sscanf(line, "session core %u id %" SCNu64 " file %127s ring_size %" SCNu64
				   " follows %" SCNd64 " device %u", &s->core, &s->id, s->file,
				   &s->ring_size, &s->follows, &s->device) != 6)
				goto bad;
			s->streamed = strstr(line, " stream 1") != NULL;
		} else if (!strncmp(line, "exec ", 5)) {
			if (!*nss)
				goto bad;
			s = &ss[*nss - 1];
			if (s->nexecs == MAX_EXECS)
				goto bad;
			x = &s->execs[s->nexecs++];
			memset(x, 0, sizeof(*x));
			if (sscanf(line, "exec core %u id %" SCNu64 " model %u iterations %u flags %u dma %u instr %127s status %u produced %511s",
				   &core, &id, &x->model, &x->iterations, &x->flags, &x->dma, instr,
				   &x->status, produced) != 9 || core != s->core || id != s->id)
				goto bad;
			n = parse_list(instr, v, MAX_ENGINES);
			if (n < 1)
				goto bad;
			for (i = 0; i < n; i++)
				x->instr[i] = (uint32_t)v[i];
			if (parse_list(produced, v, QT) != QT)
				goto bad;
			for (i = 0; i < QT; i++)
				x->produced[i] = v[i];
		} else {
			goto bad;
		}
	}
	fclose(f);
	return got_dev ? 0 : -1;
bad:
	harness_diag("%s: cannot parse: %.*s", path, (int)strcspn(line, "\n"), line);
	fclose(f);
	return -1;
}

/* ---- what the simulator produces (Documentation/simulator.rst) ----------------- */

static uint32_t topsps_per_core(const struct device *d)
{
	return d->topsps / d->cores;
}

static uint64_t formula(const struct device *d, const struct exec *x, uint32_t kind,
			uint32_t index, uint32_t type, uint32_t engine, uint32_t core)
{
	uint64_t I = x->iterations;
	bool err = x->flags & NEURONPROF_SIM_EXEC_ERROR;

	if (kind == NEURONPROF_TARGET_TOPSP) {
		switch (type) {
		case NEURONPROF_QT_TOPSP_TRACE:
			return I;
		case NEURONPROF_QT_TOPSP_EVENT:
			return 2 * I;
		case NEURONPROF_QT_TOPSP_ERROR:
			return err && index == core * topsps_per_core(d);
		}
		return 0;
	}
	switch (type) {
	case NEURONPROF_QT_TRACE:
		return I * x->instr[engine];
	case NEURONPROF_QT_EVENT:
		return x->instr[engine] ? 2 * I : 0;
	case NEURONPROF_QT_ERROR:
		return err;
	case NEURONPROF_QT_INFER_STATUS:
		return 2 * I;
	case NEURONPROF_QT_DMA:
		return I * (x->dma / d->engines + (engine < x->dma % d->engines));
	case NEURONPROF_QT_THROTTLE:
		return x->flags & NEURONPROF_SIM_EXEC_THROTTLE ? I : 0;
	}
	return 0;
}

/* The queues a session on @core must have recorded, with their expected counts. */
static int expected_queues(const struct device *d, const struct session *s, struct equeue *q)
{
	static const uint32_t core_types[] = { 0, 1, 2, 3, 4, 5 };
	static const uint32_t topsp_types[] = { 6, 7, 8 };
	uint32_t per = topsps_per_core(d), t, e, i;
	int n = 0, k;

	for (i = 0; i < 6; i++) {
		bool per_engine;

		t = core_types[i];
		per_engine = t == NEURONPROF_QT_TRACE || t == NEURONPROF_QT_EVENT ||
			     t == NEURONPROF_QT_DMA;
		for (e = 0; e < (per_engine ? d->engines : 1); e++)
			q[n++] = (struct equeue){ .kind = NEURONPROF_TARGET_CORE, .index = s->core,
						  .type = t, .engine = e };
	}
	for (i = s->core * per; i < (s->core + 1) * per; i++)
		for (t = 0; t < 3; t++)
			q[n++] = (struct equeue){ .kind = NEURONPROF_TARGET_TOPSP, .index = i,
						  .type = topsp_types[t] };
	for (k = 0; k < n; k++)
		for (i = 0; i < (uint32_t)s->nexecs; i++)
			q[k].expected += formula(d, &s->execs[i], q[k].kind, q[k].index, q[k].type,
						 q[k].engine, s->core);
	return n;
}

/* Independent copy of the queue type -> (trace type, block type) map. */
static const uint32_t want_trace[QT] = { 0, 1, 2, 3, 4, 5, 0, 1, 2 };
static const uint32_t want_block[QT] = { 0, 0, 1, 1, 0, 1, 2, 2, 2 };

/* ---- protoc ------------------------------------------------------------------------ */

/* Decode @meta with protoc into a malloc'd NUL-terminated text, or NULL. */
static char *protoc_decode(const char *proto_dir, const void *meta, size_t len)
{
	const char *protoc = getenv("PROTOC") ? getenv("PROTOC") : "protoc";
	char tmpl[] = "/tmp/check_ntff.XXXXXX", arg_decode[] = "--decode=neuronprof.ntff.ntff_info";
	char arg_path[1024];
	size_t cap = 65536, used = 0;
	char *out = NULL;
	int fd, pipefd[2], status;
	pid_t pid;

	fd = mkstemp(tmpl);
	if (fd < 0)
		return NULL;
	unlink(tmpl);
	if (write(fd, meta, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) || pipe(pipefd)) {
		close(fd);
		return NULL;
	}
	snprintf(arg_path, sizeof(arg_path), "--proto_path=%s", proto_dir);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 0);
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		execlp(protoc, protoc, arg_decode, arg_path, "ntff.proto", (char *)NULL);
		_exit(127);
	}
	close(fd);
	close(pipefd[1]);
	out = malloc(cap);
	while (out && pid > 0) {
		ssize_t n = read(pipefd[0], out + used, cap - used - 1);

		if (n <= 0)
			break;
		used += (size_t)n;
		if (cap - used < 2) {
			char *p = realloc(out, cap * 2);

			if (!p) {
				free(out);
				out = NULL;
				break;
			}
			out = p;
			cap *= 2;
		}
	}
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		free(out);
		return NULL;
	}
	if (out)
		out[used] = '\0';
	return out;
}

/* Value of "key: N" on a line with exactly @indent leading spaces. */
static bool line_value(const char *line, int indent, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);
	int i;

	for (i = 0; i < indent; i++)
		if (line[i] != ' ')
			return false;
	if (line[indent] == ' ' || strncmp(line + indent, key, kl) || line[indent + kl] != ':')
		return false;
	*v = strtoull(line + indent + kl + 1, NULL, 10);
	return true;
}

static bool check_protoc(const char *proto_dir, struct nprof_ntff_reader *r, const struct session *s,
			 uint64_t total_entries, uint64_t total_lost)
{
	uint64_t v, traces = 0, devices = 0, entries = 0, lost = 0, core = ~0ULL, sid = ~0ULL;
	bool kind = false, ok = true;
	const void *meta;
	char *text, *line, *save = NULL;
	size_t len;

	meta = nprof_ntff_reader_metadata(r, &len);
	if (!meta)
		return problem("no metadata: %s", nprof_strerror_last());
	text = protoc_decode(proto_dir, meta, len);
	if (!text)
		return problem("protoc --decode=neuronprof.ntff.ntff_info failed on %zu bytes of metadata",
			       len);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(line, "trace {"))
			traces++;
		else if (!strcmp(line, "device {"))
			devices++;
		else if (!strcmp(line, "capture_kind: CAPTURE_SESSION"))
			kind = true;
		else if (line_value(line, 0, "core", &v))
			core = v;
		else if (line_value(line, 0, "session_id", &v))
			sid = v;
		else if (line_value(line, 2, "entry_count", &v))
			entries += v;
		else if (line_value(line, 2, "lost_count", &v))
			lost += v;
	}
	free(text);
	if (traces != (uint64_t)nprof_ntff_reader_queue_count(r))
		ok = problem("protoc sees %" PRIu64 " trace records, the reader %d", traces,
			     nprof_ntff_reader_queue_count(r));
	if (devices != 1)
		ok = problem("protoc sees %" PRIu64 " device descriptions, expected exactly 1", devices);
	if (!kind)
		ok = problem("protoc does not see capture_kind: CAPTURE_SESSION");
	if (core != s->core || sid != s->id)
		ok = problem("protoc sees core %" PRIu64 " session_id %" PRIu64, core, sid);
	if (entries != total_entries || lost != total_lost)
		ok = problem("protoc sums %" PRIu64 " entries and %" PRIu64 " lost, the reader %" PRIu64
			     " and %" PRIu64, entries, lost, total_entries, total_lost);
	return ok;
}

/* ---- one session ----------------------------------------------------------------------- */

static bool model_of_session(const struct session *s, uint32_t model)
{
	int i;

	for (i = 0; i < s->nexecs; i++)
		if (s->execs[i].model == model)
			return true;
	return false;
}

/* Small rings lose what does not fit, unless the session streamed. */
static bool lossy(const struct session *s)
{
	return s->ring_size < 65536 && !s->streamed;
}

/*
 * The records of one queue as one: entries, losses and flags summed,
 * first_seq of the first record with entries, last_seq of the last.
 */
static void merge_records(const struct nprof_ntff_queue *recs, int n, struct nprof_ntff_queue *q)
{
	int i;

	*q = recs[0];
	q->entry_count = q->lost_count = q->data_length = 0;
	q->ring_flags = 0;
	q->entries = NULL;
	for (i = 0; i < n; i++) {
		if (recs[i].entry_count && !q->entry_count)
			q->first_seq = recs[i].first_seq;
		if (recs[i].entry_count)
			q->last_seq = recs[i].last_seq;
		q->entry_count += recs[i].entry_count;
		q->lost_count += recs[i].lost_count;
		q->ring_flags |= recs[i].ring_flags;
	}
}

/*
 * Entry-by-entry checks of the @nrec records of one queue, in file order,
 * against its expected queue; counts error entries and INFER_STATUS entries
 * out of order on the way.
 */
static bool check_record(const struct nprof_ntff_queue *recs, int nrec,
			 const struct nprof_ntff_info *info, const struct session *s,
			 const struct equeue *eq, uint64_t *err_entries, uint64_t *infer_bad)
{
	const struct neuronprof_notification *n, *prev = NULL;
	struct nprof_ntff_entry_iter it;
	uint64_t missing, count = 0, k = 0;
	struct nprof_ntff_queue merged, *q = &merged;
	bool ok = true;
	char what[64];
	int r;

	merge_records(recs, nrec, q);
	for (r = 1; r < nrec; r++)
		if (recs[r].entry_size != recs[0].entry_size ||
		    recs[r].trace_type != recs[0].trace_type || recs[r].block_type != recs[0].block_type)
			ok = problem("queue type %u: record %d of %d describes it differently",
				     q->queue_type, r, nrec);

	snprintf(what, sizeof(what), "%s %u type %u engine %u",
		 q->target_kind ? "TopSP" : "core", q->target_index, q->queue_type, q->engine);
	if (q->trace_type != want_trace[q->queue_type] || q->block_type != want_block[q->queue_type])
		ok = problem("%s: trace type %u block type %u, expected %u and %u", what, q->trace_type,
			     q->block_type, want_trace[q->queue_type], want_block[q->queue_type]);
	if (q->entry_size != sizeof(*n))
		ok = problem("%s: entry size %u", what, q->entry_size);
	if (q->entry_count && q->first_seq < eq->base)
		ok = problem("%s: first seq %" PRIu64 " is before the session's first, %" PRIu64, what,
			     q->first_seq, eq->base);
	missing = q->entry_count ? q->first_seq - eq->base : 0;
	for (r = 0; r < nrec; r++) {
	nprof_ntff_entry_iter_init(&it, &recs[r]);
	while ((n = nprof_ntff_entry_iter_next(&it))) {
		count++;
		if (n->queue_type != q->queue_type || n->engine != q->engine)
			ok = problem("%s: entry %" PRIu64 " says queue type %u engine %u", what, k,
				     n->queue_type, n->engine);
		if (!model_of_session(s, n->model_id))
			ok = problem("%s: entry %" PRIu64 " has model id %u of no program of the session",
				     what, k, n->model_id);
		if (n->timestamp_ns < info->start_ns || n->timestamp_ns > info->stop_ns)
			ok = problem("%s: entry %" PRIu64 " timestamp %" PRIu64 " outside the session [%"
				     PRIu64 ", %" PRIu64 "]", what, k, (uint64_t)n->timestamp_ns,
				     info->start_ns, info->stop_ns);
		if (prev && n->timestamp_ns <= prev->timestamp_ns)
			ok = problem("%s: entry %" PRIu64 " timestamp %" PRIu64 " not after %" PRIu64, what,
				     k, (uint64_t)n->timestamp_ns, (uint64_t)prev->timestamp_ns);
		if (prev && n->seq <= prev->seq)
			ok = problem("%s: entry %" PRIu64 " seq %" PRIu64 " not after %" PRIu64, what, k,
				     (uint64_t)n->seq, (uint64_t)prev->seq);
		if (prev && n->seq > prev->seq)
			missing += n->seq - prev->seq - 1;
		if (q->queue_type == NEURONPROF_QT_ERROR || q->queue_type == NEURONPROF_QT_TOPSP_ERROR) {
			(*err_entries)++;
			if (n->code != ERR_CODE)
				ok = problem("%s: error entry with code %u, expected %d", what, n->code,
					     ERR_CODE);
		}
		/* Without losses INFER_STATUS alternates START and STOP. */
		if (q->queue_type == NEURONPROF_QT_INFER_STATUS && !q->lost_count &&
		    n->code != (k % 2 ? NEURONPROF_INFER_STOP : NEURONPROF_INFER_START))
			(*infer_bad)++;
		prev = n;
		k++;
	}
	}
	if (count != q->entry_count)
		ok = problem("%s: iterated %" PRIu64 " entries, the record says %" PRIu64, what, count,
			     q->entry_count);
	/* The session's sequence numbers run from base to base + expected - 1. */
	if (count && q->last_seq >= eq->base + eq->expected)
		ok = problem("%s: last seq %" PRIu64 " but only %" PRIu64 " from %" PRIu64
			     " were produced", what, q->last_seq, eq->expected, eq->base);
	else
		missing += count ? eq->base + eq->expected - 1 - q->last_seq : eq->expected;
	if (q->ring_flags & NEURONPROF_RING_BAD_CONSUMER)
		ok = problem("%s: the kernel flagged a bad consumer position", what);
	if (missing != q->lost_count)
		ok = problem("%s: %" PRIu64 " sequence numbers missing, the record says %" PRIu64 " lost",
			     what, missing, q->lost_count);
	if (q->entry_count + q->lost_count != eq->expected)
		ok = problem("%s: %" PRIu64 " entries + %" PRIu64 " lost, the programs produced %" PRIu64,
			     what, q->entry_count, q->lost_count, eq->expected);
	if (!lossy(s) && q->lost_count)
		ok = problem("%s: %" PRIu64 " lost in a 1 MiB ring", what, q->lost_count);
	if (q->lost_count && !(q->ring_flags & NEURONPROF_RING_OVERFLOWED))
		ok = problem("%s: lost entries without OVERFLOWED (flags 0x%x)", what, q->ring_flags);
	return ok;
}

/* The first sequence numbers of a session continuing @prev's subscriptions. */
static bool set_bases(const struct session *prev, struct equeue *eq, int neq)
{
	int k, j;

	for (k = 0; k < neq; k++) {
		for (j = 0; j < prev->nends; j++)
			if (prev->ends[j].kind == eq[k].kind && prev->ends[j].index == eq[k].index &&
			    prev->ends[j].type == eq[k].type && prev->ends[j].engine == eq[k].engine)
				break;
		if (j == prev->nends)
			return false;
		eq[k].base = prev->ends[j].next_seq;
	}
	return true;
}

static void check_session(const char *outdir, const char *proto_dir, const struct device *d,
			  struct session *s, const struct session *all, int nall)
{
	struct nprof_ntff_info info = { .size = sizeof(info) };
	uint64_t entries[QT] = { 0 }, lost[QT] = { 0 }, produced[QT] = { 0 };
	uint64_t total_entries = 0, total_lost = 0, err_entries = 0, infer_bad = 0, err_want = 0;
	struct equeue eq[MAX_QUEUES];
	struct nprof_ntff_reader *r;
	char path[1024], tag[64];
	int nq, neq, i, k, t;
	bool ok;

	if (s->device)
		snprintf(tag, sizeof(tag), "device %u core %u session %" PRIu64, s->device, s->core,
			 s->id);
	else
		snprintf(tag, sizeof(tag), "core %u session %" PRIu64, s->core, s->id);
	snprintf(path, sizeof(path), "%s/%s", outdir, s->file);
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	result(r != NULL, "%s: %s opens and validates%s%s", tag, s->file, r ? "" : ": ",
	       r ? "" : nprof_strerror_last());
	if (!r)
		return;

	ok = !nprof_ntff_reader_info(r, &info);
	if (info.core != s->core || info.session_id != s->id)
		ok = problem("core %u session %" PRIu64, info.core, info.session_id);
	if (info.capture_kind != NPROF_NTFF_CAPTURE_SESSION || info.clock_id != d->clock || !info.pid)
		ok = problem("capture kind %u clock %u pid %u", info.capture_kind, info.clock_id, info.pid);
	if (info.device.arch != d->arch || info.device.num_cores != d->cores ||
	    info.device.num_topsps != d->topsps || info.device.engines_per_core != d->engines ||
	    info.device.entry_size != d->entry_size || !info.device.provider ||
	    strcmp(info.device.provider, "sim") || info.device.device_index != s->device)
		ok = problem("device %u arch %u cores %u topsps %u engines %u entry size %u provider %s",
			     info.device.device_index, info.device.arch, info.device.num_cores,
			     info.device.num_topsps, info.device.engines_per_core,
			     info.device.entry_size,
			     info.device.provider ? info.device.provider : "(none)");
	if (!(info.start_ns < info.stop_ns))
		ok = problem("start %" PRIu64 " is not before stop %" PRIu64, info.start_ns, info.stop_ns);
	result(ok, "%s: capture description (core, session id, kind, clock, device)", tag);

	/* Queue set: exactly the queues of the core and of its TopSPs, once each. */
	neq = expected_queues(d, s, eq);
	s->nends = neq;
	if (s->follows >= 0) {
		const struct session *prev = NULL;

		for (i = 0; i < nall; i++)
			if (all[i].device == s->device && all[i].core == s->core &&
			    all[i].id == (uint64_t)s->follows)
				prev = &all[i];
		result(prev && set_bases(prev, eq, neq),
		       "%s: continues the subscriptions of session %" PRId64, tag, s->follows);
	}
	for (k = 0; k < neq; k++)
		s->ends[k] = (struct queue_end){ eq[k].kind, eq[k].index, eq[k].type, eq[k].engine,
						 eq[k].base + eq[k].expected };
	nq = nprof_ntff_reader_queue_count(r);
	ok = true;
	for (i = 0; i < nq; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };

		nprof_ntff_reader_queue(r, (size_t)i, &q);
		for (k = 0; k < neq; k++)
			if (eq[k].kind == q.target_kind && eq[k].index == q.target_index &&
			    eq[k].type == q.queue_type && eq[k].engine == q.engine)
				break;
		if (k == neq) {
			ok = problem("record %d: %s %u type %u engine %u is not a queue of core %u", i,
				     q.target_kind ? "TopSP" : "core", q.target_index, q.queue_type,
				     q.engine, s->core);
			continue;
		}
		/* A streamed capture writes a queue's entries as they come: several records. */
		eq[k].seen = true;
		eq[k].recs = realloc(eq[k].recs, (size_t)(eq[k].nrecs + 1) * sizeof(int));
		if (!eq[k].recs) {
			fprintf(stderr, "check_ntff: out of memory\n");
			exit(2);
		}
		eq[k].recs[eq[k].nrecs++] = i;
	}
	for (k = 0; k < neq; k++)
		if (!eq[k].seen)
			ok = problem("queue %u/%u/%u/%u has no record", eq[k].kind, eq[k].index,
				     eq[k].type, eq[k].engine);
	result(ok, "%s: %d records, of exactly the %d queues of the core and its TopSPs", tag, nq,
	       neq);

	/* Entry by entry, queue by queue. */
	ok = true;
	for (k = 0; k < neq; k++) {
		struct nprof_ntff_queue *recs, q;

		if (!eq[k].nrecs)
			continue;
		recs = calloc((size_t)eq[k].nrecs, sizeof(*recs));
		if (!recs) {
			fprintf(stderr, "check_ntff: out of memory\n");
			exit(2);
		}
		for (i = 0; i < eq[k].nrecs; i++) {
			recs[i].size = sizeof(recs[i]);
			nprof_ntff_reader_queue(r, (size_t)eq[k].recs[i], &recs[i]);
		}
		if (!check_record(recs, eq[k].nrecs, &info, s, &eq[k], &err_entries, &infer_bad))
			ok = false;
		merge_records(recs, eq[k].nrecs, &q);
		free(recs);
		free(eq[k].recs);
		eq[k].recs = NULL;
		eq[k].nrecs = 0;
		entries[q.queue_type] += q.entry_count;
		lost[q.queue_type] += q.lost_count;
		total_entries += q.entry_count;
		total_lost += q.lost_count;
	}
	result(ok, "%s: every entry: type, engine, model, timestamps, seq gaps == lost, per-queue formulas",
	       tag);

	/* Per queue type against what SIM_EXEC reported. */
	ok = true;
	for (i = 0; i < s->nexecs; i++)
		for (t = 0; t < QT; t++)
			produced[t] += s->execs[i].produced[t];
	for (t = 0; t < QT; t++)
		if (entries[t] + lost[t] != produced[t])
			ok = problem("queue type %d: %" PRIu64 " entries + %" PRIu64 " lost != %" PRIu64
				     " produced (SIM_EXEC)", t, entries[t], lost[t], produced[t]);
	result(ok, "%s: entries + lost == SIM_EXEC produced, for each of the %d queue types", tag, QT);

	/* SIM_EXEC itself agrees with the documented formulas. */
	ok = true;
	for (t = 0; t < QT; t++) {
		uint64_t f = 0;

		for (k = 0; k < neq; k++)
			if (eq[k].type == (uint32_t)t)
				f += eq[k].expected;
		if (f != produced[t])
			ok = problem("queue type %d: SIM_EXEC reported %" PRIu64 ", the formulas give %" PRIu64,
				     t, produced[t], f);
	}
	result(ok, "%s: SIM_EXEC counts match Documentation/simulator.rst", tag);

	/* What the programs asked for shows up. */
	ok = true;
	for (i = 0; i < s->nexecs; i++) {
		if (s->execs[i].flags & NEURONPROF_SIM_EXEC_ERROR) {
			err_want += 2;	/* one ERROR, one TOPSP_ERROR */
			if (s->execs[i].status != ERR_CODE)
				ok = problem("execution %d raised an error but reported status %u", i,
					     s->execs[i].status);
		} else if (s->execs[i].status) {
			ok = problem("execution %d reported status %u", i, s->execs[i].status);
		}
	}
	if (!lossy(s) && err_entries != err_want)
		ok = problem("%" PRIu64 " error entries, the programs raised %" PRIu64, err_entries, err_want);
	if (infer_bad)
		ok = problem("%" PRIu64 " INFER_STATUS entries out of START/STOP order", infer_bad);
	if (lossy(s) && !total_lost)
		ok = problem("one-page rings lost nothing: the loss path was not exercised");
	result(ok, "%s: errors (%" PRIu64 "), throttling and losses (%" PRIu64 ") as the programs asked",
	       tag, err_entries, total_lost);

	result(check_protoc(proto_dir, r, s, total_entries, total_lost),
	       "%s: metadata decodes with protoc and agrees with the reader", tag);
	nprof_ntff_reader_close(r);
}

/*
 * Count the files of @dir (@rel: its path under OUTDIR, "" for OUTDIR) and
 * flag any that is not the manifest or a file the manifest names;
 * subdirectories are listed the same way, one level deep.
 */
static int list_files(const char *dir, const char *rel, const struct session *ss, int nss,
		      bool *ok)
{
	char name[2 * sizeof(((struct dirent *)0)->d_name) + 2], sub[1024];
	struct dirent *de;
	int i, files = 0;
	DIR *d = opendir(dir);

	if (!d) {
		*ok = problem("%s cannot be listed: %s", dir, strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(name, sizeof(name), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		if (de->d_type == DT_DIR && !*rel) {
			snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
			files += list_files(sub, de->d_name, ss, nss, ok);
			continue;
		}
		files++;
		if (!*rel && !strcmp(de->d_name, "manifest.txt"))
			continue;
		for (i = 0; i < nss; i++)
			if (!strcmp(name, ss[i].file))
				break;
		if (i == nss)
			*ok = problem("unexpected %s %s", de->d_type == DT_DIR ? "directory" : "file",
				      name);
	}
	closedir(d);
	return files;
}

/* Every file under OUTDIR is the manifest or a file it names: no temporaries left. */
static void check_no_strays(const char *outdir, const struct session *ss, int nss)
{
	bool ok = true;
	int files = list_files(outdir, "", ss, nss, &ok);

	result(ok && files == nss + 1, "%s holds the manifest and the %d NTFF files, nothing else",
	       outdir, nss);
}

int main(int argc, char **argv)
{
	static struct session ss[MAX_SESSIONS];
	struct device dev;
	char path[1024];
	int nss, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s OUTDIR PROTO_DIR\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(path, sizeof(path), "%s/manifest.txt", argv[1]);
	memset(&dev, 0, sizeof(dev));
	i = read_manifest(path, &dev, ss, &nss);
	result(!i && nss > 0 && dev.cores && dev.topsps >= dev.cores && dev.engines &&
	       dev.engines <= MAX_ENGINES, "manifest %s: %d sessions", path, nss);
	if (!i && dev.cores && dev.topsps >= dev.cores && dev.engines <= MAX_ENGINES) {
		for (i = 0; i < nss; i++)
			check_session(argv[1], argv[2], &dev, &ss[i], ss, nss);
		check_no_strays(argv[1], ss, nss);
	}
	return harness_done();
}

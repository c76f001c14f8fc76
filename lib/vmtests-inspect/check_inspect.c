// SPDX-License-Identifier: MIT
/*
 * The host side of the session-layer VM test: reads what the guest brought
 * back and checks it against each scenario's expect.txt and the exit codes
 * in runs.txt. Every NTFF file is opened with the library's reader, which
 * validates the header, checksums, metadata and every record.
 *
 *   check_inspect OUTDIR
 *
 * runs.txt lines:  run NAME STATUS WANTED     (WANTED: a number, or "signal")
 * expect.txt lines (paths relative to the scenario directory):
 *   tree BASE NAME|*      BASE holds exactly one directory NAME (any name
 *                         for *), which holds exactly one directory whose
 *                         name is a number of nanoseconds: $S from then on
 *   ntff PATH k=v ...     a valid NTFF file; keys kind, core, model, entries
 *                         (a number, or + for at least one), device (the
 *                         device index of its device description)
 *   file PATH             a non-empty regular file
 *   absent PATH           nothing there
 *   count DIR N           DIR holds N entries
 *   nohidden DIR          no entry of DIR starts with '.' (no temporary file)
 *   match DIR REGEX N     N entries of DIR match REGEX; with N = 1, $M is it
 *   queues PATH LOST P0,P1,... [TYPE>=N ...]
 *                         every queue of the NTFF file, taken as all of its
 *                         records in file order: sequence numbers strictly
 *                         increasing from 0, with no more missing than the
 *                         queue lost; per queue type t, entries + lost ==
 *                         Pt (what SIM_EXEC reported producing); LOST "0":
 *                         nothing lost at all (so every entry is there, in
 *                         order), "+": something lost; TYPE>=N (a type
 *                         name): every queue of that type, and at least one,
 *                         saw N notifications or more (entries + lost)
 *   trace PATH NAME CORE N [KEY=VALUE ...]
 *                         the ntrace.pb at PATH holds N events named NAME on
 *                         core CORE (a number, "none" for the events without
 *                         a core, "*" for any) whose attribute KEY is VALUE
 *                         (a number: an unsigned attribute; else a string
 *                         attribute) for every pair; the key "model" is the
 *                         event's model id. NAME "*" is any event.
 *
 * Prints "ok N - ..." or "not ok N - ... (why)" per line (lib/tests/harness.h),
 * then "N passed, N failed".
 *
 *   check_inspect OUTDIR SCENARIO...
 *
 * checks only those scenarios' expect.txt, not runs.txt: guest.sh runs it
 * in the VM on the scenarios whose files are too large to bring back.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/config.h>
#include <neuronprof/ntff.h>

#include "system_profile.pb-c.h"
#include "../tests/harness.h"

/* One result: "SCENARIO: LINE", and why when it failed. */
static void result(int ok, const char *scenario, const char *line, const char *fmt, ...)
{
	char why[1024];
	va_list ap;

	if (ok || !fmt) {
		harness_result(ok, "%s: %s", scenario, line);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	harness_result(false, "%s: %s (%s)", scenario, line, why);
}

/* Entries of @dir other than . and ..; with @re, only matching ones. */
static int list(const char *dir, regex_t *re, char *first, size_t len, int *hidden)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (hidden)
		*hidden = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (hidden && de->d_name[0] == '.')
			(*hidden)++;
		if (re && regexec(re, de->d_name, 0, NULL, 0))
			continue;
		if (!n && first)
			snprintf(first, len, "%s", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static int check_ntff(const char *path, char *keys, char *why, size_t wlen)
{
	struct nprof_ntff_info info = { .size = sizeof(info) };
	struct nprof_ntff_reader *r;
	unsigned long long entries = 0;
	char *tok, *save = NULL;
	int i, n;

	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!r) {
		snprintf(why, wlen, "%s", nprof_strerror_last());
		return 0;
	}
	nprof_ntff_reader_info(r, &info);
	n = nprof_ntff_reader_queue_count(r);
	for (i = 0; i < n; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };

		if (!nprof_ntff_reader_queue(r, (size_t)i, &q))
			entries += q.entry_count;
	}
	nprof_ntff_reader_close(r);
	for (tok = strtok_r(keys, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		unsigned long long want, got;

		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(tok, "kind"))
			got = info.capture_kind;
		else if (!strcmp(tok, "core"))
			got = info.core;
		else if (!strcmp(tok, "model"))
			got = info.model_id;
		else if (!strcmp(tok, "entries"))
			got = entries;
		else if (!strcmp(tok, "device"))
			got = info.device.device_index;
		else {
			snprintf(why, wlen, "unknown key %s", tok);
			return 0;
		}
		if (!strcmp(eq + 1, "+")) {
			if (!got) {
				snprintf(why, wlen, "%s is 0", tok);
				return 0;
			}
			continue;
		}
		want = strtoull(eq + 1, NULL, 10);
		if (got != want) {
			snprintf(why, wlen, "%s is %llu, expected %llu", tok, got, want);
			return 0;
		}
	}
	return 1;
}

/* A queue of a file: all of its records. */
struct qsum {
	struct nprof_ntff_queue id;	/* its first record */
	uint64_t entries, lost, missing, next_seq;
	bool disorder;
};

/* The "queues" verb: @spec is "LOST P0,P1,... [TYPE>=N ...]". */
static int check_queues(const char *path, char *spec, char *why, size_t wlen)
{
	uint64_t produced[NPROF_QUEUE_TYPES] = { 0 }, entries[NPROF_QUEUE_TYPES] = { 0 };
	uint64_t lost[NPROF_QUEUE_TYPES] = { 0 }, least[NPROF_QUEUE_TYPES] = { 0 };
	uint64_t total_lost = 0;
	bool seen[NPROF_QUEUE_TYPES] = { false };
	char *tok, *save = NULL, *want_lost, *list, *p, *end;
	struct nprof_ntff_reader *r;
	struct qsum *qs = NULL;
	int i, k, n, nq = 0, ntypes = 0, ok = 0;

	want_lost = strtok_r(spec, " ", &save);
	list = strtok_r(NULL, " ", &save);
	if (!want_lost || !list || (strcmp(want_lost, "0") && strcmp(want_lost, "+"))) {
		snprintf(why, wlen, "malformed queues line");
		return 0;
	}
	for (p = list, end = list; *p && ntypes < NPROF_QUEUE_TYPES; p = *end ? end + 1 : end) {
		produced[ntypes++] = strtoull(p, &end, 10);
		if (end == p || (*end && *end != ','))
			break;
	}
	if (ntypes != NPROF_QUEUE_TYPES || *end) {
		snprintf(why, wlen, "not %d counts: %s", NPROF_QUEUE_TYPES, list);
		return 0;
	}
	while ((tok = strtok_r(NULL, " ", &save))) {
		char *ge = strstr(tok, ">=");
		int t;

		if (ge)
			*ge = '\0';
		t = ge ? nprof_queue_type_from_name(tok) : -1;
		if (t < 0 || t >= NPROF_QUEUE_TYPES) {
			snprintf(why, wlen, "%s: not TYPE>=N", tok);
			return 0;
		}
		least[t] = strtoull(ge + 2, NULL, 10);
	}
	r = nprof_ntff_reader_open(path, NPROF_NTFF_READ_VERIFY_AT_OPEN);
	if (!r) {
		snprintf(why, wlen, "%s", nprof_strerror_last());
		return 0;
	}
	n = nprof_ntff_reader_queue_count(r);
	qs = calloc((size_t)(n > 0 ? n : 1), sizeof(*qs));
	if (!qs) {
		snprintf(why, wlen, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct nprof_ntff_queue q = { .size = sizeof(q) };
		const struct neuronprof_notification *e;
		struct nprof_ntff_entry_iter it;
		struct qsum *s;

		if (nprof_ntff_reader_queue(r, (size_t)i, &q)) {
			snprintf(why, wlen, "record %d: %s", i, nprof_strerror_last());
			goto out;
		}
		if (q.queue_type >= NPROF_QUEUE_TYPES || q.entry_size < sizeof(*e)) {
			snprintf(why, wlen, "record %d: queue type %u, entry size %u", i, q.queue_type,
				 q.entry_size);
			goto out;
		}
		for (k = 0; k < nq; k++)
			if (qs[k].id.queue_type == q.queue_type && qs[k].id.target_kind == q.target_kind &&
			    qs[k].id.target_index == q.target_index && qs[k].id.engine == q.engine)
				break;
		s = &qs[k];
		if (k == nq)
			qs[nq++].id = q;
		s->entries += q.entry_count;
		s->lost += q.lost_count;
		nprof_ntff_entry_iter_init(&it, &q);
		while ((e = nprof_ntff_entry_iter_next(&it))) {
			if (e->seq < s->next_seq)
				s->disorder = true;
			else
				s->missing += e->seq - s->next_seq;
			s->next_seq = e->seq + 1;
		}
	}
	for (k = 0; k < nq; k++) {
		const struct qsum *s = &qs[k];
		uint32_t t = s->id.queue_type;

		if (s->disorder || s->missing > s->lost) {
			snprintf(why, wlen, "%s queue %u/%u engine %u: %s, %llu missing, %llu lost",
				 nprof_queue_type_name(t), s->id.target_kind, s->id.target_index,
				 s->id.engine, s->disorder ? "entries out of order" : "in order",
				 (unsigned long long)s->missing, (unsigned long long)s->lost);
			goto out;
		}
		if (least[t] && s->entries + s->lost < least[t]) {
			snprintf(why, wlen, "%s queue %u/%u engine %u saw %llu, fewer than %llu",
				 nprof_queue_type_name(t), s->id.target_kind, s->id.target_index,
				 s->id.engine, (unsigned long long)(s->entries + s->lost),
				 (unsigned long long)least[t]);
			goto out;
		}
		seen[t] = true;
		entries[t] += s->entries;
		lost[t] += s->lost;
		total_lost += s->lost;
	}
	for (k = 0; k < NPROF_QUEUE_TYPES; k++) {
		if (least[k] && !seen[k]) {
			snprintf(why, wlen, "no %s queue", nprof_queue_type_name((uint32_t)k));
			goto out;
		}
		if (entries[k] + lost[k] != produced[k]) {
			snprintf(why, wlen, "%s: %llu entries + %llu lost, %llu produced",
				 nprof_queue_type_name((uint32_t)k), (unsigned long long)entries[k],
				 (unsigned long long)lost[k], (unsigned long long)produced[k]);
			goto out;
		}
	}
	ok = !strcmp(want_lost, "0") ? !total_lost : total_lost > 0;
	if (!ok)
		snprintf(why, wlen, "%llu lost", (unsigned long long)total_lost);
out:
	free(qs);
	nprof_ntff_reader_close(r);
	return ok;
}

static Neuronprof__System__Ntrace *load_ntrace(const char *path)
{
	Neuronprof__System__Ntrace *nt = NULL;
	uint8_t *buf = NULL;
	struct stat st;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	if (!fstat(fileno(f), &st) && st.st_size > 0)
		buf = malloc((size_t)st.st_size);
	if (buf && fread(buf, 1, (size_t)st.st_size, f) == (size_t)st.st_size)
		nt = neuronprof__system__ntrace__unpack(NULL, (size_t)st.st_size, buf);
	free(buf);
	fclose(f);
	return nt;
}

/* Does @e satisfy KEY=VALUE? */
static bool event_has(const Neuronprof__System__NtraceEvent *e, const char *key, const char *value)
{
	char *end;
	unsigned long long v = strtoull(value, &end, 10);
	bool number = *value && !*end;
	size_t i;

	if (!strcmp(key, "model"))
		return number && e->has_model_id && e->model_id == v;
	for (i = 0; i < e->n_attributes; i++) {
		const Neuronprof__System__Attribute *a = e->attributes[i];

		if (strcmp(a->key, key))
			continue;
		if (number)
			return a->has_uint_value && a->uint_value == v;
		return a->string_value && !strcmp(a->string_value, value);
	}
	return false;
}

/* The "trace" verb: @spec is "CORE N [KEY=VALUE ...]". */
static int check_trace(const char *path, const char *name, char *spec, char *why, size_t wlen)
{
	char *tok, *save = NULL, *pairs[8], *core, *want;
	Neuronprof__System__Ntrace *nt;
	size_t i, n = 0, npairs = 0, k;

	core = strtok_r(spec, " ", &save);
	want = strtok_r(NULL, " ", &save);
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (!strchr(tok, '=') || npairs == 8) {
			snprintf(why, wlen, "%s: not KEY=VALUE, or more than 8 of them", tok);
			return 0;
		}
		pairs[npairs++] = tok;
	}
	if (!core || !want) {
		snprintf(why, wlen, "malformed trace line");
		return 0;
	}
	nt = load_ntrace(path);
	if (!nt) {
		snprintf(why, wlen, "cannot read or decode %.300s", path);
		return 0;
	}
	for (i = 0; i < nt->n_events; i++) {
		const Neuronprof__System__NtraceEvent *e = nt->events[i];
		bool ok = !strcmp(name, "*") || !strcmp(e->name, name);

		if (!strcmp(core, "none"))
			ok = ok && !e->has_core_index;
		else if (strcmp(core, "*"))
			ok = ok && e->has_core_index && e->core_index == strtoul(core, NULL, 10);
		for (k = 0; ok && k < npairs; k++) {
			char *eq = strchr(pairs[k], '=');

			*eq = '\0';
			ok = event_has(e, pairs[k], eq + 1);
			*eq = '=';
		}
		n += ok;
	}
	neuronprof__system__ntrace__free_unpacked(nt, NULL);
	if (n != strtoull(want, NULL, 10)) {
		snprintf(why, wlen, "%zu such events", n);
		return 0;
	}
	return 1;
}

/* snprintf that reports truncation instead of hiding it. */
static bool fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static bool fmt(char *buf, size_t len, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(buf, len, f, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

static void check_scenario(const char *out, const char *scenario)
{
	char base[PATH_MAX], path[PATH_MAX], line[1024], S[PATH_MAX], M[PATH_MAX];
	FILE *f;

	if (!fmt(base, sizeof(base), "%s/%s", out, scenario) ||
	    !fmt(path, sizeof(path), "%s/expect.txt", base)) {
		result(0, scenario, "expect.txt", "path too long");
		return;
	}
	f = fopen(path, "r");
	if (!f) {
		result(0, scenario, "expect.txt", "cannot open %s", path);
		return;
	}
	S[0] = M[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		char verb[16], a[1024], b[1024], rest[1024], shown[1024], why[512];
		char rel[PATH_MAX], p[PATH_MAX];
		int n, ok = 0, hidden;
		struct stat st;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		snprintf(shown, sizeof(shown), "%s", line);
		why[0] = '\0';
		a[0] = b[0] = rest[0] = '\0';
		n = sscanf(line, "%15s %1023s %1023s %1023[^\n]", verb, a, b, rest);
		if (n < 2) {
			result(0, scenario, shown, "malformed line");
			continue;
		}
		if (!strncmp(a, "$S", 2))
			ok = fmt(rel, sizeof(rel), "%s%s", S, a + 2);
		else if (!strncmp(a, "$M", 2))
			ok = fmt(rel, sizeof(rel), "%s%s", M, a + 2);
		else
			ok = fmt(rel, sizeof(rel), "%s", a);
		if (!ok || !fmt(p, sizeof(p), "%s/%s", base, rel)) {
			result(0, scenario, shown, "path too long");
			continue;
		}
		ok = 0;
		if (!strcmp(verb, "tree")) {
			char inst[NAME_MAX + 1], ns[NAME_MAX + 1], d[PATH_MAX];
			char *end;

			if (list(p, NULL, inst, sizeof(inst), NULL) != 1) {
				snprintf(why, sizeof(why), "%.300s does not hold exactly one entry", p);
			} else if (strcmp(b, "*") && strcmp(inst, b)) {
				snprintf(why, sizeof(why), "it holds %s", inst);
			} else if (!fmt(d, sizeof(d), "%s/%s", p, inst) ||
				   list(d, NULL, ns, sizeof(ns), NULL) != 1) {
				snprintf(why, sizeof(why), "%.300s does not hold exactly one entry", d);
			} else {
				strtoull(ns, &end, 10);
				if (*end || !ns[0] || !fmt(d, sizeof(d), "%s/%s/%s", p, inst, ns) || !is_dir(d))
					snprintf(why, sizeof(why), "%s is not a directory named by a time in ns", ns);
				else
					ok = fmt(S, sizeof(S), "%s/%s/%s", rel, inst, ns);
			}
		} else if (!strcmp(verb, "ntff")) {
			char keys[2100];

			snprintf(keys, sizeof(keys), "%s %s", b, rest);
			ok = check_ntff(p, keys, why, sizeof(why));
		} else if (!strcmp(verb, "file")) {
			ok = !stat(p, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
			if (!ok)
				snprintf(why, sizeof(why), "missing or empty");
		} else if (!strcmp(verb, "absent")) {
			ok = lstat(p, &st) && errno == ENOENT;
			if (!ok)
				snprintf(why, sizeof(why), "it exists");
		} else if (!strcmp(verb, "count")) {
			int got = list(p, NULL, NULL, 0, NULL);

			ok = got == atoi(b);
			if (!ok)
				snprintf(why, sizeof(why), "%d entries", got);
		} else if (!strcmp(verb, "nohidden")) {
			ok = is_dir(p) && list(p, NULL, NULL, 0, &hidden) >= 0 && !hidden;
			if (!ok)
				snprintf(why, sizeof(why), "temporary files are left");
		} else if (!strcmp(verb, "match")) {
			char first[NAME_MAX + 1] = "";
			regex_t re;
			int got;

			if (regcomp(&re, b, REG_EXTENDED | REG_NOSUB)) {
				snprintf(why, sizeof(why), "bad regex");
			} else {
				got = list(p, &re, first, sizeof(first), NULL);
				regfree(&re);
				ok = got == atoi(rest);
				if (!ok)
					snprintf(why, sizeof(why), "%d entries match", got);
				else if (got == 1)
					ok = fmt(M, sizeof(M), "%s/%s", rel, first);
			}
		} else if (!strcmp(verb, "queues")) {
			char spec[2100];

			snprintf(spec, sizeof(spec), "%s %s", b, rest);
			ok = check_queues(p, spec, why, sizeof(why));
		} else if (!strcmp(verb, "trace")) {
			ok = check_trace(p, b, rest, why, sizeof(why));
		} else {
			snprintf(why, sizeof(why), "unknown verb");
		}
		result(ok, scenario, shown, "%s", why);
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	char path[PATH_MAX + 16], line[512];
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OUTDIR [SCENARIO...]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(path, sizeof(path), "%s/runs.txt", argv[1]);
	f = argc > 2 ? NULL : fopen(path, "r");
	if (argc > 2) {
		int i;

		for (i = 2; i < argc; i++)
			check_scenario(argv[1], argv[i]);
	} else if (!f) {
		result(0, "runs", "runs.txt", "cannot open %s", path);
	} else {
		while (fgets(line, sizeof(line), f)) {
			char name[128], want[32];
			int status;

			line[strcspn(line, "\n")] = '\0';
			if (sscanf(line, "run %127s %d %31s", name, &status, want) != 3) {
				result(0, "runs", line, "malformed line");
				continue;
			}
			if (!strcmp(want, "signal"))
				result(status > 128, "runs", line, "expected death by a signal");
			else
				result(status == atoi(want), "runs", line, "exit status %d", status);
			/* A scenario directory comes with its expectations. */
			snprintf(path, sizeof(path), "%s/%s/expect.txt", argv[1], name);
			if (!access(path, R_OK))
				check_scenario(argv[1], name);
		}
		fclose(f);
	}
	return harness_done();
}

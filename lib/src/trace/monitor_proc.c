// SPDX-License-Identifier: MIT
/*
 * The system monitor's readings: /proc/stat (per-CPU tick counters),
 * /proc/meminfo and /proc/self/status (host and process memory), parsed
 * into struct nprof_monitor's scratch for monitor.c's samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/internal.h"
#include "util/parse.h"
#include "trace/monitor_internal.h"

/* Parse an unsigned decimal at *p, skipping blanks first; 0 or -1. */
static int next_field_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strspn(s, "0123456789");
	if (nprof_parse_u64(s, n, 10, v))
		return -1;
	s += n;
	if (*s && *s != ' ' && *s != '\t' && *s != '\n')
		return -1;
	*p = s;
	return 0;
}

static bool line_end(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return !*s || *s == '\n';
}

/*
 * One "cpu[N] user nice system idle [iowait irq softirq steal guest
 * guest_nice]" line after the "cpu[N]" word. At least four values; missing
 * trailing ones (old kernels) are zero; guest time is already in user and
 * nice, so it is not read.
 */
static int parse_cpu_values(const char *s, struct cpu_snap *c)
{
	uint64_t v[8] = { 0 };
	int i;

	for (i = 0; i < 8 && !line_end(s); i++)
		if (next_field_u64(&s, &v[i]))
			return -1;
	if (i < 4)
		return -1;
	c->user = v[0];
	c->nice = v[1];
	c->system = v[2];
	c->idle = v[3];
	c->iowait = v[4];
	c->irq = v[5];
	c->softirq = v[6];
	c->steal = v[7];
	c->online = true;
	return 0;
}

/*
 * Read /proc/stat into m->cur_agg and m->cur[]. With @grow (the first
 * reading), the CPU slots are sized from the file. Only the leading cpu
 * lines are read: the rest of the file (the long "intr" line) is skipped.
 */
int nprof_monitor_read_stat(struct nprof_monitor *m, bool grow)
{
	unsigned int lineno = 0;
	bool have_agg = false;
	FILE *f;
	ssize_t n;
	int ret = 0;

	f = fopen(m->path_stat, "re");
	if (!f)
		return nprof_err(errno, "cannot open %s: %s", m->path_stat, strerror(errno));
	memset(&m->cur_agg, 0, sizeof(m->cur_agg));
	if (m->cur)
		memset(m->cur, 0, m->ncpus * sizeof(*m->cur));
	while ((n = getline(&m->line, &m->line_cap, f)) > 0) {
		const char *s = m->line;
		struct cpu_snap c;
		uint64_t id;

		lineno++;
		if (strncmp(s, "cpu", 3))
			break;
		s += 3;
		if (*s == ' ' || *s == '\t') {
			if (parse_cpu_values(s, &c)) {
				ret = nprof_err(EPROTO, "%s: line %u: cannot parse the cpu line",
						m->path_stat, lineno);
				goto out;
			}
			m->cur_agg = c;
			have_agg = true;
			continue;
		}
		if (next_field_u64(&s, &id) || id >= MAX_CPUS || parse_cpu_values(s, &c)) {
			ret = nprof_err(EPROTO, "%s: line %u: cannot parse a per-CPU line",
					m->path_stat, lineno);
			goto out;
		}
		if (id >= m->ncpus) {
			struct cpu_snap *p;

			if (!grow)
				continue;	/* came online after start: no slot */
			p = realloc(m->cur, (id + 1) * sizeof(*p));
			if (!p) {
				ret = nprof_err(ENOMEM, "cannot allocate %" PRIu64 " CPU slots", id + 1);
				goto out;
			}
			memset(p + m->ncpus, 0, (id + 1 - m->ncpus) * sizeof(*p));
			m->cur = p;
			m->ncpus = (uint32_t)id + 1;
		}
		m->cur[id] = c;
	}
	if (ferror(f)) {
		ret = nprof_err(EIO, "cannot read %s: %s", m->path_stat, strerror(errno));
		goto out;
	}
	if (!have_agg)
		ret = nprof_err(EPROTO, "%s: no aggregate \"cpu\" line", m->path_stat);
out:
	fclose(f);
	return ret;
}

/* "Key:   123 kB" lines; @keys[i] gets the value in bytes, or stays 0. */
static int read_kv_file(struct nprof_monitor *m, const char *path, const char *const *keys,
			uint64_t *vals, bool *found, size_t nkeys)
{
	unsigned int lineno = 0;
	FILE *f;
	size_t i;
	int ret = 0;

	f = fopen(path, "re");
	if (!f)
		return nprof_err(errno, "cannot open %s: %s", path, strerror(errno));
	while (getline(&m->line, &m->line_cap, f) > 0) {
		const char *s;
		uint64_t v;

		lineno++;
		for (i = 0; i < nkeys; i++) {
			size_t kl = strlen(keys[i]);

			if (!strncmp(m->line, keys[i], kl) && m->line[kl] == ':')
				break;
		}
		if (i == nkeys)
			continue;
		s = m->line + strlen(keys[i]) + 1;
		if (next_field_u64(&s, &v)) {
			ret = nprof_err(EPROTO, "%s: line %u: bad value of %s", path, lineno, keys[i]);
			goto out;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (!strncmp(s, "kB", 2)) {
			if (v > UINT64_MAX / 1024) {
				ret = nprof_err(EPROTO, "%s: line %u: %s is too large", path, lineno,
						keys[i]);
				goto out;
			}
			v *= 1024;
			s += 2;
		}
		if (!line_end(s)) {
			ret = nprof_err(EPROTO, "%s: line %u: unexpected text after the value of %s",
					path, lineno, keys[i]);
			goto out;
		}
		vals[i] = v;
		found[i] = true;
	}
	if (ferror(f))
		ret = nprof_err(EIO, "cannot read %s: %s", path, strerror(errno));
out:
	fclose(f);
	return ret;
}

enum { MI_TOTAL, MI_FREE, MI_AVAIL, MI_BUFFERS, MI_CACHED, MI_SWAPTOTAL, MI_SWAPFREE, MI_N };

int nprof_monitor_read_mem(struct nprof_monitor *m, struct nprof_mem_usage *u)
{
	static const char *const mi_keys[MI_N] = {
		"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "SwapTotal", "SwapFree",
	};
	static const char *const st_keys[3] = { "VmRSS", "VmHWM", "VmSize" };
	uint64_t mi[MI_N] = { 0 }, st[3] = { 0 };
	bool mf[MI_N] = { false }, sf[3] = { false };
	uint64_t reclaimable;
	int ret;

	ret = read_kv_file(m, m->path_meminfo, mi_keys, mi, mf, MI_N);
	if (ret)
		return ret;
	if (!mf[MI_TOTAL] || !mf[MI_FREE])
		return nprof_err(EPROTO, "%s: no %s line", m->path_meminfo,
				 mf[MI_TOTAL] ? "MemFree" : "MemTotal");
	ret = read_kv_file(m, m->path_status, st_keys, st, sf, 3);
	if (ret)
		return ret;
	memset(u, 0, sizeof(*u));
	u->host_total = mi[MI_TOTAL];
	u->host_free = mi[MI_FREE];
	u->host_buffers = mi[MI_BUFFERS];
	u->host_cached = mi[MI_CACHED];
	u->swap_total = mi[MI_SWAPTOTAL];
	u->swap_free = mi[MI_SWAPFREE];
	if (mf[MI_AVAIL]) {
		u->host_available = mi[MI_AVAIL];
	} else {
		/* Kernels before 3.14: the classic estimate. */
		reclaimable = mi[MI_FREE] + mi[MI_BUFFERS] + mi[MI_CACHED];
		u->host_available = reclaimable < mi[MI_TOTAL] ? reclaimable : mi[MI_TOTAL];
	}
	u->host_used = u->host_available < u->host_total ? u->host_total - u->host_available : 0;
	u->process_rss = st[0];
	u->process_hwm = st[1];
	u->process_vm = st[2];
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): messages, number and list parsing, and the names the tool
 * prints for architectures, engines, queue types and clocks.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <drm/neuronprof_drm.h>
#include <neuronprof/ntff.h>

#include "util/util.h"
#include "src/util/parse.h"

const char *tool_cmd = NULL;

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fputs("neuronprof: ", stderr);
	if (tool_cmd)
		fprintf(stderr, "%s: ", tool_cmd);
	if (kind)
		fputs(kind, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}

static void out_of_memory(void)
{
	fail("out of memory");
	exit(EXIT_FAIL);
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		out_of_memory();
	return q;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory();
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		out_of_memory();
	return d;
}

void *xgrow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 8;
	return xrealloc(v, *cap * size);
}

void *xgrow1(void *v, size_t n, size_t size)
{
	void *p = xrealloc(v, (n + 1) * size);

	memset((char *)p + n * size, 0, size);
	return p;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(NULL, fmt, ap);
	va_end(ap);
	if (tool_cmd)
		fprintf(stderr, "Try 'neuronprof %s --help'.\n", tool_cmd);
	else
		fputs("Try 'neuronprof --help'.\n", stderr);
	return EXIT_USAGE;
}

void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

int option_error(int c, char **argv)
{
	/* getopt_long() has stepped past the option it did not accept. */
	if (c == ':')
		return usage_error("option '%s' needs a value", argv[optind - 1]);
	return usage_error("unknown option '%s'", argv[optind - 1]);
}

int check_operands(int argc, char **argv, int want, const char *name)
{
	int have = argc - optind;

	if (have == want)
		return 0;
	if (!want)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!have)
		return usage_error("missing %s", name);
	return usage_error("expected one %s, got %d", name, have);
}

int flush_stdout(void)
{
	if (fflush(stdout) || ferror(stdout))
		return fail("cannot write the output: %s", strerror(errno));
	return 0;
}

/* @v in decimal, or with the largest suffix that divides it when sizes take suffixes. */
static const char *size_str(uint64_t v, bool suffixes, char *buf, size_t len)
{
	static const char units[] = "KMG";
	int u = -1;

	while (suffixes && v && u < 2 && !(v & 1023)) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
	return buf;
}

/* @ns as seconds with no trailing zeros: "1.5", "0.001", "604800". */
static const char *seconds_str(uint64_t ns, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
			 (unsigned long long)(ns % 1000000000ULL));

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = 0;
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = 0;
	return buf;
}

int parse_seconds(const char *what, const char *s, uint64_t min_ns, uint64_t max_ns,
		  uint64_t *out_ns)
{
	uint64_t whole = 0, frac = 0, scale = 1000000000ULL;
	const char *p = s ? s : "";
	bool digits = false;

	for (; *p >= '0' && *p <= '9'; p++, digits = true) {
		if (whole > (UINT64_MAX / 1000000000ULL - 9) / 10) {
			usage_error("%s: '%s' is too large", what, s);
			return -1;
		}
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true) {
			if (scale == 1) {
				usage_error("%s: '%s' is finer than a nanosecond", what, s);
				return -1;
			}
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
		}
	if (!digits || *p) {
		usage_error("%s: '%s' is not a number of seconds (such as 2 or 1.5)", what,
			    s ? s : "");
		return -1;
	}
	*out_ns = whole * 1000000000ULL + frac;
	if (*out_ns < min_ns || *out_ns > max_ns) {
		usage_error("%s: %s is out of range [%s, %s] seconds", what, s,
			    seconds_str(min_ns, (char[32]){ 0 }, 32),
			    seconds_str(max_ns, (char[32]){ 0 }, 32));
		return -1;
	}
	return 0;
}

int parse_u64(const char *what, const char *s, uint64_t min, uint64_t max, bool suffixes,
	      uint64_t *out)
{
	uint64_t v, mult = 1;
	size_t len;
	int ret;

	/* A negative number is a number: say what the option takes instead. */
	if (s && *s == '-' && s[1] >= '0' && s[1] <= '9') {
		if (min == 1)
			usage_error("%s: %s is negative: it must be positive", what, s);
		else if (!min)
			usage_error("%s: %s is negative: it must be zero or more", what, s);
		else
			usage_error("%s: %s is negative: it must be at least %s", what, s,
				    size_str(min, suffixes, (char[32]){ 0 }, 32));
		return -1;
	}
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ' || *s == '\t') {
		usage_error("%s: '%s' is not a number", what, s ? s : "");
		return -1;
	}
	len = strlen(s);
	if (suffixes && len > 1) {
		switch (s[len - 1]) {
		case 'k': case 'K': mult = 1ULL << 10; len--; break;
		case 'm': case 'M': mult = 1ULL << 20; len--; break;
		case 'g': case 'G': mult = 1ULL << 30; len--; break;
		default: break;
		}
	}
	/* The library's parser: decimal, 0x hex or 0 octal, as strtoull(..., 0) reads them. */
	ret = nprof_parse_u64(s, len, 0, &v);
	if (ret == -ERANGE || (!ret && v > UINT64_MAX / mult)) {
		usage_error("%s: '%s' is too large", what, s);
		return -1;
	}
	if (ret) {
		usage_error("%s: '%s' is not a number%s", what, s,
			    suffixes && *s >= '0' && *s <= '9' ? " (suffixes K, M, G are allowed)" : "");
		return -1;
	}
	v *= mult;
	if (v < min || v > max) {
		usage_error("%s: %s is out of range [%s, %s]", what, s,
			    size_str(min, suffixes, (char[32]){ 0 }, 32),
			    size_str(max, suffixes, (char[32]){ 0 }, 32));
		return -1;
	}
	*out = v;
	return 0;
}

int parse_core_list(const char *what, const char *s, uint8_t *bitmap, unsigned int nbits)
{
	char why[4096];
	int ret;

	if (s && !strcmp(s, "all")) {
		memset(bitmap, 0, (nbits + 7) / 8);
		for (unsigned int i = 0; i < nbits; i++)
			bitmap[i / 8] |= (uint8_t)(1u << (i % 8));
		return 0;
	}
	/* The library's parser; the tool adds "all" and what a list looks like. */
	ret = nprof_parse_core_list(s ? s : "", bitmap, nbits, why, sizeof(why));
	if (ret) {
		usage_error("%s: %s%s", what, why,
			    ret == -ERANGE ? "" : " (expected a list like 0,2-3, or all)");
		return -1;
	}
	return 0;
}

const char *arch_name(uint32_t arch)
{
	switch (arch) {
	case 1: return "trn1";
	case 2: return "inf2";
	case 3: return "trn2";
	default: return "unknown";
	}
}

const char *engine_name(uint32_t engine)
{
	static const char *const names[] = { "tensor", "vector", "scalar", "gpsimd", "sync" };

	return engine < sizeof(names) / sizeof(names[0]) ? names[engine] : NULL;
}

const char *queue_name(uint32_t queue_type)
{
	const char *n = nprof_queue_type_name(queue_type);

	return n ? n : "UNKNOWN";
}

const char *clock_name(uint32_t clock_id)
{
	switch (clock_id) {
	case CLOCK_REALTIME: return "CLOCK_REALTIME";
	case CLOCK_MONOTONIC: return "CLOCK_MONOTONIC";
	case CLOCK_MONOTONIC_RAW: return "CLOCK_MONOTONIC_RAW";
	case CLOCK_BOOTTIME: return "CLOCK_BOOTTIME";
	case CLOCK_TAI: return "CLOCK_TAI";
	default: return "unknown clock";
	}
}

const char *raw_format_name(uint32_t format)
{
	switch (format) {
	case NEURONPROF_RAW_FORMAT_NEURON_V2: return "neuron-v2";
	case NEURONPROF_RAW_FORMAT_NEURON_V3: return "neuron-v3";
	default: return "unknown";
	}
}

const char *clock_domain_name(uint32_t domain)
{
	switch (domain) {
	case NEURONPROF_CLOCK_PRODUCED: return "produced";
	case NEURONPROF_CLOCK_CAPTURED: return "captured";
	default: return "unknown";
	}
}

const char *capture_kind_name(uint32_t kind)
{
	switch (kind) {
	case NPROF_NTFF_CAPTURE_SESSION: return "session";
	case NPROF_NTFF_CAPTURE_MODEL: return "model";
	case NPROF_NTFF_CAPTURE_CONTINUOUS: return "continuous";
	default: return "unspecified";
	}
}

char *hex_bytes(char *buf, const unsigned char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		buf[2 * i] = digits[p[i] >> 4];
		buf[2 * i + 1] = digits[p[i] & 15];
	}
	buf[2 * n] = '\0';
	return buf;
}

// SPDX-License-Identifier: MIT
/*
 * Unit tests of the exporter's exposition writer and textfile writer
 * (neuronprof/util/prom.c), run by tests/run.sh:
 *   prom_unit WORK_DIR
 * WORK_DIR is an empty directory the tests make their files in. Prints
 * "ok N - name" or "not ok N - name" with the reason on "# " lines, and
 * exits 1 if anything failed.
 *
 *  - label values are escaped (backslash, double quote, line feed) and HELP
 *    texts likewise, so a label value cannot end the string or the line;
 *  - HELP and TYPE come once per family, before all its series, however
 *    the series were made (interleaved across families);
 *  - a series asked for twice is one series; a label whose value is NULL
 *    is left out;
 *  - nanoseconds are written as exact decimal seconds;
 *  - counters never go down across rewrites of a file that the values
 *    only grow in (the rendering does not reset or reorder them);
 *  - textfile_check() and textfile_write() refuse a device node, a FIFO, a
 *    symbolic link (to a regular file, too) and a directory (the device node
 *    test needs mknod, so root; it is skipped otherwise), and a name not
 *    ending in .prom, leaving them as they were; they write a new name and
 *    replace a regular file, mode 0644, with no temporary file left behind.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "util/prom.h"
#include "util/util.h"
#include "../../lib/tests/harness.h"

static const struct prom_family fams[] = {
	{ "t_a_total", "A counter\\with a backslash\nand a line feed.", PROM_COUNTER, PROM_INT },
	{ "t_b_seconds_total", "Seconds.", PROM_COUNTER, PROM_NS_AS_SECONDS },
	{ "t_c_ratio", "A gauge.", PROM_GAUGE, PROM_REAL },
};

static int count_of(const char *hay, const char *needle)
{
	int k = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		k++;
	return k;
}

static void t_render(void)
{
	struct prom p;
	char *buf;
	size_t len, a1, b1, a2, a3, c1;

	prom_init(&p, fams, 3);
	a1 = prom_series(&p, 0, "core", "0", "engine", "x\"y\\z\nw", NULL);
	b1 = prom_series(&p, 1, "core", "0", NULL);
	a2 = prom_series(&p, 0, "core", "1", "engine", NULL, NULL);
	c1 = prom_series(&p, 2, NULL);
	a3 = prom_series(&p, 0, "core", "0", "engine", "x\"y\\z\nw", NULL);
	p.s[a1].u = 7;
	p.s[a2].u = 18446744073709551615ULL;
	p.s[b1].u = 1234567890123ULL;
	p.s[c1].d = 0.25;
	if (prom_render(&p, &buf, &len)) {
		harness_check(false, "render", "prom_render failed");
		return;
	}
	harness_check(a1 == a3 && p.n == 4, "a series asked for twice is one series",
		      "a1 %zu a3 %zu, %zu series", a1, a3, p.n);
	harness_check(strstr(buf, "t_a_total{core=\"0\",engine=\"x\\\"y\\\\z\\nw\"} 7\n") != NULL,
		      "label values: backslash, double quote and line feed escaped", "got:\n%s", buf);
	harness_check(strstr(buf, "t_a_total{core=\"1\"} 18446744073709551615\n") != NULL,
		      "a label whose value is NULL is left out", "got:\n%s", buf);
	harness_check(strstr(buf, "# HELP t_a_total A counter\\\\with a backslash\\nand a line "
			      "feed.\n") != NULL,
		      "HELP text escaped", "got:\n%s", buf);
	harness_check(count_of(buf, "# HELP t_a_total ") == 1 &&
		      count_of(buf, "# TYPE t_a_total counter\n") == 1 &&
		      count_of(buf, "# TYPE t_b_seconds_total counter\n") == 1 &&
		      count_of(buf, "# TYPE t_c_ratio gauge\n") == 1,
		      "HELP and TYPE once per family", "got:\n%s", buf);
	/* Every series of a family follows its TYPE line, before the next family's HELP. */
	{
		const char *ta = strstr(buf, "# TYPE t_a_total"), *hb = strstr(buf, "# HELP t_b_");
		const char *s1 = strstr(buf, "t_a_total{core=\"0\""), *s2 = strstr(buf, "t_a_total{core=\"1\"");

		harness_check(ta && hb && s1 && s2 && ta < s1 && ta < s2 && s1 < hb && s2 < hb,
			      "a family's series grouped under its HELP and TYPE", "got:\n%s", buf);
	}
	harness_check(strstr(buf, "t_b_seconds_total{core=\"0\"} 1234.567890123\n") != NULL,
		      "nanoseconds as exact decimal seconds", "got:\n%s", buf);
	harness_check(strstr(buf, "t_c_ratio 0.25\n") != NULL, "a gauge without labels", "got:\n%s", buf);
	free(buf);
	prom_free(&p);
}

/* The value of the line starting with @series in @buf, or -1. */
static double value_of(const char *buf, const char *series)
{
	const char *p = buf;
	size_t l = strlen(series);

	while (p && *p) {
		if (!strncmp(p, series, l) && p[l] == ' ')
			return strtod(p + l + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *b = NULL;
	size_t cap = 0;
	ssize_t r;

	if (!f)
		return NULL;
	r = getdelim(&b, &cap, '\0', f);
	fclose(f);
	if (r < 0) {
		free(b);
		return NULL;
	}
	return b;
}

static void t_monotonic(const char *dir)
{
	char path[4096], why[512];
	struct prom p;
	size_t a, b;
	double last_a = -1, last_b = -1;
	bool ok = true;
	char msg[640] = "";

	snprintf(path, sizeof(path), "%s/mono.prom", dir);
	prom_init(&p, fams, 3);
	for (int round = 0; round < 20 && ok; round++) {
		char *buf, *back;
		size_t len;
		double va, vb;

		/* New series appear between rewrites; the old ones only grow. */
		a = prom_series(&p, 0, "round", round % 2 ? "odd" : "even", NULL);
		b = prom_series(&p, 1, NULL);
		p.s[a].u += (uint64_t)round;
		p.s[b].u += 999999999ULL * (uint64_t)round;
		if (prom_render(&p, &buf, &len) || textfile_write(path, buf, len, why, sizeof(why))) {
			snprintf(msg, sizeof(msg), "round %d: %s", round, why);
			ok = false;
			break;
		}
		free(buf);
		back = slurp(path);
		va = back ? value_of(back, "t_a_total{round=\"even\"}") : -1;
		vb = back ? value_of(back, "t_b_seconds_total") : -1;
		free(back);
		if (va < last_a || vb < last_b) {
			snprintf(msg, sizeof(msg), "round %d: %g after %g, %g after %g", round, va,
				 last_a, vb, last_b);
			ok = false;
		}
		last_a = va;
		last_b = vb;
	}
	harness_check(ok && last_b > 0, "counters never go down across rewrites of the textfile",
		      "%s", msg);
	prom_free(&p);
}

static bool no_temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool ok = true;

	while (d && (e = readdir(d)))
		if (e->d_name[0] == '.' && strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			ok = false;
	if (d)
		closedir(d);
	return ok;
}

static void t_refuse(const char *name, const char *path, const char *want)
{
	char why[512] = "";
	struct stat before, after;
	bool had = !lstat(path, &before);
	int rc = textfile_write(path, "x 1\n", 4, why, sizeof(why));
	bool same = had ? !lstat(path, &after) && after.st_mode == before.st_mode &&
			  after.st_ino == before.st_ino : lstat(path, &after) != 0;
	char why2[512] = "";

	harness_check(rc == -1 && strstr(why, want) && same &&
		      textfile_check(path, why2, sizeof(why2)) == -1,
		      name, "rc %d, why '%s' (want '%s'), left as it was: %d", rc, why, want, same);
}

/* t_refuse() on @path that the call @call made, returning @rc: a test that fails if it did not. */
static void t_refuse_made(const char *name, int rc, const char *call, const char *path,
			  const char *want)
{
	if (rc)
		harness_check(false, name, "%s failed", call);
	else
		t_refuse(name, path, want);
}

static void t_textfile(const char *dir)
{
	char path[4096], link[4096], fifo[4096], sub[4096], bad[4096], dev[4096], why[512];
	char *back = NULL;
	struct stat st;

	snprintf(path, sizeof(path), "%s/new.prom", dir);
	harness_check(!textfile_write(path, "a 1\n", 4, why, sizeof(why)) && !stat(path, &st) &&
		      (st.st_mode & 07777) == 0644 && S_ISREG(st.st_mode),
		      "a new name: written, mode 0644", "%s", why);
	harness_check(!textfile_write(path, "a 2\n", 4, why, sizeof(why)) && (back = slurp(path)) &&
		      !strcmp(back, "a 2\n"), "a regular file: replaced", "%s", why);
	free(back);
	harness_check(no_temporaries(dir), "no temporary file left behind", "a dot file in %s", dir);

	/* A device node named .prom: made where root may, else /dev/null's own checks. */
	snprintf(dev, sizeof(dev), "%s/null.prom", dir);
	if (!mknod(dev, S_IFCHR | 0666, makedev(1, 3))) {
		t_refuse("a character device is refused", dev, "is a character device, not a regular file");
		unlink(dev);
	} else {
		harness_skip("mknod: not permitted here", "a character device is refused");
	}
	{
		char why2[512] = "";
		int rc = textfile_check("/dev/null", why2, sizeof(why2));

		harness_check(rc == -1 && strstr(why2, ".prom"), "a name not ending in .prom is refused",
			      "rc %d why '%s'", rc, why2);
	}
	snprintf(fifo, sizeof(fifo), "%s/fifo.prom", dir);
	t_refuse_made("a FIFO is refused", mkfifo(fifo, 0644), "mkfifo", fifo,
		      "is a FIFO, not a regular file");
	snprintf(link, sizeof(link), "%s/link.prom", dir);
	t_refuse_made("a symbolic link to a regular file is refused", symlink(path, link), "symlink",
		      link, "is a symbolic link, not a regular file");
	snprintf(sub, sizeof(sub), "%s/dir.prom", dir);
	t_refuse_made("a directory is refused", mkdir(sub, 0755), "mkdir", sub,
		      "is a directory, not a regular file");
	snprintf(bad, sizeof(bad), "%s/missing/x.prom", dir);
	t_refuse("a directory that does not exist is refused", bad, "missing");
	harness_check(no_temporaries(dir), "no temporary file left behind by a refusal",
		      "a dot file in %s", dir);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: prom_unit WORK_DIR\n");
		return 2;
	}
	tool_cmd = "prom_unit";
	t_render();
	t_monotonic(argv[1]);
	t_textfile(argv[1]);
	return harness_done();
}

// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): a progress bar on stderr for long dumps and exports.
 *
 * The bar is drawn only on a terminal (or when forced), so output captured
 * by scripts never contains it. Redrawing costs a clock read and a write, so
 * the hot path (progress_update(), inline) only compares a counter; the
 * clock is read every 1/1000 of the work at most and the bar redrawn at most
 * ten times a second.
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "util/progress.h"

#define BAR_WIDTH	40
#define REDRAW_NS	100000000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int parse_progress(const char *s, enum progress_mode *mode)
{
	if (!strcmp(s, "auto"))
		*mode = PROGRESS_AUTO;
	else if (!strcmp(s, "always"))
		*mode = PROGRESS_ALWAYS;
	else if (!strcmp(s, "never"))
		*mode = PROGRESS_NEVER;
	else {
		usage_error("--progress: '%s' is not one of auto, always, never", s);
		return -1;
	}
	return 0;
}

static void draw(struct progress *p, uint64_t done)
{
	int permille = p->total ? (int)(done * 1000 / p->total) : 1000;
	int fill = permille * BAR_WIDTH / 1000;
	char bar[BAR_WIDTH + 1];

	if (permille > 1000)
		permille = 1000;
	memset(bar, '#', (size_t)fill);
	memset(bar + fill, '.', (size_t)(BAR_WIDTH - fill));
	bar[BAR_WIDTH] = '\0';
	fprintf(stderr, "\r%s [%s] %3d.%d%% %llu/%llu entries", p->label, bar, permille / 10,
		permille % 10, (unsigned long long)done, (unsigned long long)p->total);
	fflush(stderr);
	p->last_permille = permille;
}

void progress_start(struct progress *p, enum progress_mode mode, const char *label,
		    uint64_t total)
{
	memset(p, 0, sizeof(*p));
	p->label = label;
	p->total = total;
	if (mode == PROGRESS_ALWAYS)
		p->on = true;
	else if (mode == PROGRESS_AUTO)
		p->on = isatty(STDERR_FILENO) && total >= PROGRESS_AUTO_MIN;
	if (!p->on)
		return;
	p->last_permille = -1;
	p->last_ns = now_ns();
	draw(p, 0);
	p->next_check = total / 1000 + 1;
}

void progress_slow(struct progress *p, uint64_t done)
{
	uint64_t t = now_ns();

	p->next_check = done + p->total / 1000 + 1;
	if (t - p->last_ns < REDRAW_NS)
		return;
	p->last_ns = t;
	draw(p, done);
}

void progress_finish(struct progress *p)
{
	if (!p->on)
		return;
	draw(p, p->total);
	fputc('\n', stderr);
	p->on = false;
}

// SPDX-License-Identifier: MIT
/*
 * neuronprof record: capture control, as perf record's --delay and
 * --control.
 *
 * The switch is the library's control page (<neuronprof/capture.h>,
 * NPROF_CONTROL_FD_ENV): a memfd this process creates and names in the
 * environment before the inspect session begins, so the library of this
 * process (synthetic mode) or of the recorded command (command mode, which
 * inherits the descriptor) reads it at every execution's begin. --delay SEC
 * keeps it at 0 until SEC seconds have passed (-1: until the control FIFO
 * enables it); --control fifo:CTL[,ACK] reads the commands "enable" and
 * "disable", one per line, from the FIFO CTL and answers each with "ack\n"
 * on the FIFO ACK. Both FIFOs are opened read-write and non-blocking, as
 * perf does, so neither open waits for the other side and a writer that
 * closes CTL is no end of file. Documentation/tool.rst, "record".
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <neuronprof/capture.h>

#include "record.h"
#include "record_control.h"
#include "tool.h"

int record_control_parse(struct record_control *rc, const char *spec)
{
	static char buf[2 * PATH_MAX];
	char *comma;

	if (strncmp(spec, "fifo:", 5) || !spec[5])
		return usage_error("--control %s: expected fifo:CTL[,ACK]", spec);
	snprintf(buf, sizeof(buf), "%s", spec + 5);
	comma = strchr(buf, ',');
	if (comma) {
		*comma = '\0';
		if (!comma[1] || !buf[0])
			return usage_error("--control %s: expected fifo:CTL[,ACK]", spec);
	}
	rc->ctl_path = buf;
	rc->ack_path = comma ? comma + 1 : NULL;
	return 0;
}

int record_control_parse_delay(struct record_control *rc, const char *arg)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	if (errno || end == arg || *end || !(s == -1 || (s >= 0 && s <= 7 * 86400)) || isnan(s))
		return usage_error("--delay %s: expected seconds (0 to 604800, decimals allowed), "
				   "or -1 (capture off until --control enables it)", arg);
	rc->delay_ms = s == -1 ? -1 : (int64_t)llround(s * 1000);
	rc->delay_given = true;
	return 0;
}

bool record_control_wanted(const struct record_control *rc)
{
	return rc->delay_given || rc->ctl_path || rc->rotate;
}

void record_control_switch(struct record_control *rc)
{
	if (rc->page)
		__atomic_add_fetch(&rc->page->switch_seq, 1, __ATOMIC_RELEASE);
}

void record_control_switch_size(struct record_control *rc, uint64_t bytes)
{
	if (rc->page)
		__atomic_store_n(&rc->page->switch_size, bytes, __ATOMIC_RELEASE);
}

static int open_fifo(const char *path, const char *what)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return fail("--control: cannot open the %s FIFO %s: %s", what, path,
			    strerror(errno)), -1;
	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode)) {
		close(fd);
		return fail("--control: %s is not a FIFO (mkfifo %s)", path, path), -1;
	}
	return fd;
}

static void set_enabled(struct record_control *rc, bool on)
{
	__atomic_store_n(&rc->page->enabled, on ? 1 : 0, __ATOMIC_RELEASE);
}

int record_control_start(struct record_control *rc)
{
	rc->fd = rc->ctl_fd = rc->ack_fd = -1;
	rc->page = NULL;
	if (rc->ctl_path) {
		rc->ctl_fd = open_fifo(rc->ctl_path, "control");
		if (rc->ctl_fd < 0)
			return EXIT_FAIL;
	}
	if (rc->ack_path) {
		rc->ack_fd = open_fifo(rc->ack_path, "ack");
		if (rc->ack_fd < 0)
			return EXIT_FAIL;
	}
	rc->page = record_page_share("neuronprof-control", sizeof(*rc->page), NPROF_CONTROL_FD_ENV,
				     "control", &rc->fd);
	if (!rc->page)
		return EXIT_FAIL;
	rc->page->magic = NPROF_CONTROL_MAGIC;
	set_enabled(rc, !rc->delay_given || rc->delay_ms == 0);
	if (rc->delay_given && rc->delay_ms > 0)
		rc->enable_at_ns = record_monotonic_ns() + (uint64_t)rc->delay_ms * 1000000ULL;
	return 0;
}

static void command(struct record_control *rc, const char *cmd)
{
	static const char ack[] = "ack\n";

	if (!strcmp(cmd, "enable")) {
		set_enabled(rc, true);
		rc->enable_at_ns = 0;	/* an explicit enable ends the delay */
		rc->enables++;
	} else if (!strcmp(cmd, "disable")) {
		set_enabled(rc, false);
		rc->enable_at_ns = 0;
		rc->disables++;
	} else {
		fprintf(stderr, "neuronprof: record: --control: unknown command '%s' "
			"(enable, disable)\n", cmd);
		return;
	}
	/* The command is in effect from the next execution that begins. */
	if (rc->ack_fd >= 0 && write(rc->ack_fd, ack, sizeof(ack) - 1) != (ssize_t)sizeof(ack) - 1)
		fprintf(stderr, "neuronprof: record: --control: cannot write the ack: %s\n",
			strerror(errno));
}

void record_control_poll(struct record_control *rc)
{
	char buf[256];
	ssize_t n;

	if (!rc->page)
		return;
	if (rc->enable_at_ns && record_monotonic_ns() >= rc->enable_at_ns) {
		set_enabled(rc, true);
		rc->enable_at_ns = 0;
	}
	if (rc->ctl_fd < 0)
		return;
	while ((n = read(rc->ctl_fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (rc->len < sizeof(rc->line) - 1)
					rc->line[rc->len++] = buf[i];
				continue;
			}
			rc->line[rc->len] = '\0';
			rc->len = 0;
			if (rc->line[0])
				command(rc, rc->line);
		}
	}
}

int record_control_timeout_ms(const struct record_control *rc)
{
	uint64_t now = record_monotonic_ns();

	if (!rc->enable_at_ns)
		return -1;
	if (now >= rc->enable_at_ns)
		return 0;
	return (int)((rc->enable_at_ns - now + 999999) / 1000000);
}

bool record_control_enabled(const struct record_control *rc)
{
	return !rc->page || __atomic_load_n(&rc->page->enabled, __ATOMIC_ACQUIRE);
}

void record_control_finish(struct record_control *rc)
{
	if (rc->page) {
		munmap(rc->page, sizeof(*rc->page));
		unsetenv(NPROF_CONTROL_FD_ENV);
	}
	rc->page = NULL;
	if (rc->fd >= 0)
		close(rc->fd);
	if (rc->ctl_fd >= 0)
		close(rc->ctl_fd);
	if (rc->ack_fd >= 0)
		close(rc->ack_fd);
	rc->fd = rc->ctl_fd = rc->ack_fd = -1;
}

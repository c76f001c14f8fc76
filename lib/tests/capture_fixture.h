/* SPDX-License-Identifier: MIT */
/*
 * The fixture of the capture engine's host tests (test_capture*.c): a
 * capture engine on a fresh fake device (fake_device.h), its spools and
 * files in a scratch directory of its own.
 */
#ifndef NPROF_CAPTURE_FIXTURE_H
#define NPROF_CAPTURE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <neuronprof/capture.h>

#include "capture/capture_internal.h"
#include "fake_device.h"
#include "harness.h"

struct fixture {
	struct fake_dev *fd;
	struct nprof_device *dev;
	struct nprof_capture *cap;
	char dir[256];
};

/*
 * An engine on a fresh fake device described by @info, rings of
 * @ring_size bytes, @flags (NPROF_CAPTURE_ZERO_COPY, or 0: streaming) and
 * its spools in @spool_dir (NULL: the fixture's scratch directory). 0, or
 * -1 if any part could not be made (teardown() undoes what was).
 */
static inline int setup_device(struct fixture *f, const struct nprof_device_info *info,
			       uint64_t ring_size, uint32_t flags, const char *spool_dir)
{
	struct nprof_capture_opts opts = { .size = sizeof(opts) };
	const char *tmp = getenv("TMPDIR");
	int t;

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "%s/nprof-capture-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	f->fd = fake_dev_new();
	f->dev = nprof_device_create(info, &fake_ops, f->fd);
	for (t = 0; t < NPROF_QUEUE_TYPES; t++)
		opts.ring_size[t] = ring_size;
	opts.flags = flags;
	opts.spool_dir = spool_dir ? spool_dir : f->dir;
	f->cap = nprof_capture_create(f->dev, &opts);
	return f->fd && f->dev && f->cap ? 0 : -1;
}

/* The engine closed (no queue left subscribed), the device and the directory gone. */
static inline void teardown(struct fixture *f)
{
	nprof_capture_close(f->cap);
	if (f->fd)
		CHECK_INT(fake_subscribed(f->fd), 0);
	nprof_device_close(f->dev);
	if (f->fd)
		fake_dev_free(f->fd);
	rm_rf(f->dir);
}

/* Stop core @nc's session and write its file into the fixture's directory; the session's id. */
static inline uint64_t stop_and_write(struct fixture *f, uint32_t nc)
{
	uint64_t id = UINT64_MAX;

	CHECK_INT(nprof_capture_session_stop(f->cap, nc, &id), 0);
	CHECK_INT(nprof_capture_session_serialize(f->cap, nc, id, f->dir), 0);
	return id;
}

/* The file of SESSION capture @id of core @nc. */
static inline char *file_of(struct fixture *f, uint32_t nc, uint64_t id)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/profile_nc_%u_session_%llu.ntff", f->dir, nc,
		 (unsigned long long)id);
	return path;
}

#endif /* NPROF_CAPTURE_FIXTURE_H */

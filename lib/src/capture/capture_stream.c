// SPDX-License-Identifier: MIT
/*
 * Streaming capture: the drainer thread that moves ring contents into the
 * NTFF files of the captures running (Documentation/capture.rst,
 * "Streaming"), and the progress page.
 *
 * Bytes go from the ring mapping to the file being captured, written once:
 * the NTFF writer checksums the mapped entries and pwritev()s them, so no
 * entry is ever copied into the heap, and the heap used does not grow with
 * the capture.
 *
 * The drainer sleeps in epoll_wait() on the subscriptions' descriptors,
 * edge-triggered: the kernel wakes a subscriber when the unread bytes cross
 * the watermark and after a flush. A pull drains until fewer than the
 * watermark are unread, so when the thread sleeps again the next crossing is
 * a new edge and cannot be missed. An eventfd carries kicks (sync) and stop.
 * What a drain sees it leaves unread below the watermark (a woken drain's
 * partial page, entries added while it ran) would wait for the next
 * crossing, so the drain asks for a tail pass NPROF_DRAIN_TAIL_MS later and
 * epoll_wait() sleeps no longer than that.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <neuronprof/capture.h>
#include <neuronprof/ntff.h>

#include "capture/capture_stream.h"
#include "util/internal.h"

/* Events taken from epoll per wakeup. */
#define DRAINER_EVENTS		64

/* The eventfd's epoll key; queue keys are (core << 32 | index). */
#define DRAINER_KEY_KICK	(UINT64_MAX - 1)

/* ---- ring to file ------------------------------------------------------------ */

/* Whether the entry at @p (of @es bytes) is of an iteration @keep keeps. */
static bool iter_kept(const unsigned char *p, size_t es, const struct nprof_iter_range *keep)
{
	uint32_t it = 0;

	/* Members beyond the entry size read as zero, as everywhere. */
	if (es >= offsetof(struct neuronprof_notification, iteration) + sizeof(it))
		memcpy(&it, p + offsetof(struct neuronprof_notification, iteration), sizeof(it));
	return (uint64_t)it + 1 >= keep->first && (uint64_t)it + 1 <= keep->last;
}

/*
 * The entries of @keep's iterations in the spans @s, each run of them one
 * append carrying the entries left out just before it. The first append
 * carries @desc's losses and flags. Entries left out at the end go into an
 * append without entries, which starts the queue's next record (the
 * writer extends a record without entries with the next append's): so
 * every record's trimmed_count is what was left out just before its first
 * entry, and the queue costs a record per run of kept entries, not per drain.
 */
static int append_kept(struct nprof_ntff_writer *w, const struct nprof_ntff_queue_desc *desc,
		       const struct nprof_ring_spans *s, size_t es,
		       const struct nprof_iter_range *keep)
{
	struct nprof_ntff_queue_desc d = *desc;
	uint64_t trimmed_n = 0, *trimmed = &trimmed_n;
	bool appended = false;
	size_t k, off, run;
	int ret;

	d.size = sizeof(d);
	for (k = 0; k < 2; k++) {
		const unsigned char *p = s->ptr[k];

		for (off = 0; off < s->len[k]; off += run) {
			if (!iter_kept(p + off, es, keep)) {
				++*trimmed;
				run = es;
				continue;
			}
			for (run = es; off + run < s->len[k] && iter_kept(p + off + run, es, keep);
			     run += es)
				;
			d.trimmed_count = *trimmed;
			ret = nprof_ntff_writer_append(w, &d, p + off, run, NULL, 0);
			if (ret < 0)
				return ret;
			*trimmed = 0;
			d.lost_count = 0;
			d.ring_flags = 0;
			appended = true;
		}
	}
	if (appended && !*trimmed)
		return 0;
	/* The queue's record without entries: its losses, or what was left out last. */
	d.trimmed_count = *trimmed;
	ret = nprof_ntff_writer_append(w, &d, NULL, 0, NULL, 0);
	return ret < 0 ? ret : 0;
}

int nprof_stream_append(struct nprof_ring *ring, struct nprof_ntff_writer *w,
			const struct nprof_ntff_queue_desc *desc, uint64_t begin, uint64_t end,
			const struct nprof_iter_range *keep)
{
	struct nprof_ring_spans s = { 0 };
	int ret;

	if (begin != end) {
		ret = nprof_ring_window(ring, begin, end, &s);
		if (ret < 0)
			return ret;
	}
	if (keep && keep->first)
		return append_kept(w, desc, &s, ring->entry_size, keep);
	ret = nprof_ntff_writer_append(w, desc, s.ptr[0], s.len[0], s.ptr[1], s.len[1]);
	return ret < 0 ? ret : 0;
}

/* ---- output limits ------------------------------------------------------------ */

/*
 * Room kept for what is written besides entries (record headers, block
 * tables, descriptions, the system profile): the limit and the free space
 * are compared with the entries' bytes plus this.
 */
#define OUTPUT_RESERVE		(512ULL << 10)

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int dirfd;			/* -1: not armed */
	char dir[PATH_MAX];
	uint64_t limit;			/* bytes of entries; 0: none */
	uint64_t bytes;			/* bytes of entries written */
	uint64_t dropped;		/* entries not written since the output stopped */
	int stop;			/* 0, or why the output stopped (below) */
	int zlevel;			/* zstd level of the files; 0: none */
} out = { .dirfd = -1 };

#define OUT_STOP_LIMIT		(-1)	/* out.stop: the limit; else the errno */

/* Say once why the output stopped. Called locked. */
static void output_stop(int why, uint64_t need)
{
	if (out.stop)
		return;
	out.stop = why;
	if (why == OUT_STOP_LIMIT)
		nprof_log(NPROF_LOG_WARN,
			  "capture output limit of %llu bytes reached (%llu bytes of entries written into %s, %llu more asked for): capture stops writing; from now on entries are counted as lost and the files stay complete",
			  (unsigned long long)out.limit, (unsigned long long)out.bytes, out.dir,
			  (unsigned long long)need);
	else
		nprof_log(NPROF_LOG_ERROR,
			  "%s: %s after %llu bytes of entries: capture stops writing; from now on entries are counted as lost",
			  out.dir, strerror(why), (unsigned long long)out.bytes);
}

void nprof_capture_output_begin(int dirfd, const char *dir, uint64_t limit)
{
	pthread_mutex_lock(&out_lock);
	out.dirfd = dirfd;
	snprintf(out.dir, sizeof(out.dir), "%s", dir ? dir : ".");
	out.limit = limit;
	out.bytes = 0;
	out.dropped = 0;
	out.stop = 0;
	pthread_mutex_unlock(&out_lock);
}

uint64_t nprof_capture_output_claim(uint64_t len, uint32_t entry_size)
{
	uint64_t room = UINT64_MAX;
	struct statvfs sv;

	pthread_mutex_lock(&out_lock);
	if (out.dirfd < 0)
		goto out;
	if (out.stop) {
		room = 0;
		goto out;
	}
	if (out.limit)
		room = out.limit > out.bytes + OUTPUT_RESERVE ? out.limit - out.bytes - OUTPUT_RESERVE : 0;
	if (room < len) {
		output_stop(OUT_STOP_LIMIT, len);
	} else if (!fstatvfs(out.dirfd, &sv) &&
		   (uint64_t)sv.f_bavail * sv.f_frsize < len + OUTPUT_RESERVE) {
		uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;

		room = avail > OUTPUT_RESERVE ? avail - OUTPUT_RESERVE : 0;
		output_stop(ENOSPC, len);
	}
	if (room >= len)
		room = len;
	else if (entry_size)
		room -= room % entry_size;
	out.bytes += room;
out:
	pthread_mutex_unlock(&out_lock);
	return room < len ? room : len;
}

void nprof_capture_output_drop(uint64_t entries)
{
	pthread_mutex_lock(&out_lock);
	out.dropped += entries;
	pthread_mutex_unlock(&out_lock);
	nprof_progress_add(0, 0, entries);
}

bool nprof_capture_output_failed(int err)
{
	bool armed;

	pthread_mutex_lock(&out_lock);
	armed = out.dirfd >= 0;
	if (armed)
		output_stop(err, 0);
	pthread_mutex_unlock(&out_lock);
	return armed;
}

bool nprof_capture_output_stopped(void)
{
	bool stopped;

	pthread_mutex_lock(&out_lock);
	stopped = out.stop != 0;
	pthread_mutex_unlock(&out_lock);
	return stopped;
}

void nprof_capture_output_end(void)
{
	pthread_mutex_lock(&out_lock);
	if (out.dirfd >= 0 && out.stop)
		nprof_log(NPROF_LOG_WARN,
			  "%s holds %llu bytes of entries: capture stopped writing (%s), and %llu entries after that are counted as lost",
			  out.dir, (unsigned long long)out.bytes,
			  out.stop == OUT_STOP_LIMIT ? "the output limit" : strerror(out.stop),
			  (unsigned long long)out.dropped);
	out.dirfd = -1;
	out.stop = 0;
	out.zlevel = 0;
	pthread_mutex_unlock(&out_lock);
}

void nprof_capture_output_compression(int level)
{
	pthread_mutex_lock(&out_lock);
	out.zlevel = level;
	pthread_mutex_unlock(&out_lock);
}

int nprof_capture_output_zlevel(void)
{
	int level;

	pthread_mutex_lock(&out_lock);
	level = out.zlevel;
	pthread_mutex_unlock(&out_lock);
	return level;
}

void nprof_capture_output_unclaim(uint64_t bytes)
{
	pthread_mutex_lock(&out_lock);
	if (out.dirfd >= 0)
		out.bytes -= bytes < out.bytes ? bytes : out.bytes;
	pthread_mutex_unlock(&out_lock);
}

/* ---- progress page ------------------------------------------------------------ */

static struct nprof_progress_page *progress_page;
static pthread_once_t progress_once = PTHREAD_ONCE_INIT;

static void progress_map(void)
{
	const char *v = getenv(NPROF_PROGRESS_FD_ENV);
	struct nprof_progress_page *p;
	char *end;
	long fd;

	if (!v || !*v)
		return;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || *end || fd < 0 || fd > INT_MAX) {
		nprof_log(NPROF_LOG_DEBUG, "%s=%s is not a descriptor: no progress page",
			  NPROF_PROGRESS_FD_ENV, v);
		return;
	}
	p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (p == MAP_FAILED) {
		nprof_log(NPROF_LOG_DEBUG, "%s=%s cannot be mapped: %s", NPROF_PROGRESS_FD_ENV, v,
			  strerror(errno));
		return;
	}
	if (__atomic_load_n(&p->magic, __ATOMIC_RELAXED) != NPROF_PROGRESS_MAGIC) {
		munmap(p, sizeof(*p));
		nprof_log(NPROF_LOG_DEBUG, "%s=%s is not a progress page", NPROF_PROGRESS_FD_ENV, v);
		return;
	}
	progress_page = p;
}

/* ---- control page ------------------------------------------------------------- */

/* Replaced only by nprof_capture_control_open(), when no execution hook runs. */
static struct nprof_control_page *control_page;

bool nprof_capture_control_open(void)
{
	const char *v = getenv(NPROF_CONTROL_FD_ENV);
	struct nprof_control_page *p;
	char *end;
	long fd;

	if (control_page)
		munmap(control_page, sizeof(*control_page));
	control_page = NULL;
	if (!v || !*v)
		return false;
	errno = 0;
	fd = strtol(v, &end, 10);
	if (errno || *end || fd < 0 || fd > INT_MAX) {
		nprof_log(NPROF_LOG_WARN, "%s=%s is not a descriptor: capture is not controlled",
			  NPROF_CONTROL_FD_ENV, v);
		return false;
	}
	p = mmap(NULL, sizeof(*p), PROT_READ, MAP_SHARED, (int)fd, 0);
	if (p == MAP_FAILED) {
		nprof_log(NPROF_LOG_WARN, "%s=%s cannot be mapped: %s: capture is not controlled",
			  NPROF_CONTROL_FD_ENV, v, strerror(errno));
		return false;
	}
	if (__atomic_load_n(&p->magic, __ATOMIC_RELAXED) != NPROF_CONTROL_MAGIC) {
		munmap(p, sizeof(*p));
		nprof_log(NPROF_LOG_WARN, "%s=%s is not a control page: capture is not controlled",
			  NPROF_CONTROL_FD_ENV, v);
		return false;
	}
	control_page = p;
	return true;
}

bool nprof_capture_control_present(void)
{
	return control_page != NULL;
}

bool nprof_capture_control_enabled(void)
{
	return !control_page || __atomic_load_n(&control_page->enabled, __ATOMIC_ACQUIRE) != 0;
}

uint64_t nprof_capture_control_switch(void)
{
	return control_page ? __atomic_load_n(&control_page->switch_seq, __ATOMIC_ACQUIRE) : 0;
}

uint64_t nprof_capture_control_switch_size(void)
{
	return control_page ? __atomic_load_n(&control_page->switch_size, __ATOMIC_ACQUIRE) : 0;
}

void nprof_progress_add(uint64_t entries, uint64_t bytes, uint64_t lost)
{
	pthread_once(&progress_once, progress_map);
	if (!progress_page)
		return;
	if (entries)
		__atomic_fetch_add(&progress_page->entries, entries, __ATOMIC_RELAXED);
	if (bytes)
		__atomic_fetch_add(&progress_page->bytes, bytes, __ATOMIC_RELAXED);
	if (lost)
		__atomic_fetch_add(&progress_page->lost, lost, __ATOMIC_RELAXED);
}

/* ---- drainer ----------------------------------------------------------------- */

struct nprof_drainer {
	pthread_t thread;
	int epfd;
	int evfd;
	uint64_t (*drain)(void *arg, uint64_t key);
	void *arg;
	/* Protects every member below. */
	pthread_mutex_t lock;
	pthread_cond_t done_cond;	/* signalled when a pass ends or the thread stops */
	uint64_t asked;			/* passes asked for by kicks */
	uint64_t done;			/* the last asked pass completed */
	bool stopping;
	bool stopped;
};

static void kick(struct nprof_drainer *d)
{
	uint64_t one = 1;

	while (write(d->evfd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

/* epoll_wait()'s timeout until @at (ms, rounded up), -1 for none. */
static int wait_ms(uint64_t at)
{
	uint64_t now, ms;

	if (!at)
		return -1;
	now = nprof_mono_ns();
	if (at <= now)
		return 0;
	ms = (at - now + 999999) / 1000000;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

static void *drainer_main(void *arg)
{
	struct nprof_drainer *d = arg;
	struct epoll_event ev[DRAINER_EVENTS];
	uint64_t tail_at = 0;		/* when a tail pass is due, 0 none */
	bool stop = false;
	sigset_t set;

	/* Asynchronous signals go to application threads (see the header). */
	sigfillset(&set);
	sigdelset(&set, SIGSEGV);
	sigdelset(&set, SIGBUS);
	sigdelset(&set, SIGFPE);
	sigdelset(&set, SIGILL);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	while (!stop) {
		uint64_t asked = 0, v;
		bool kicked = false;
		int n, i;

		n = epoll_wait(d->epfd, ev, DRAINER_EVENTS, wait_ms(tail_at));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			nprof_log(NPROF_LOG_ERROR, "capture drainer: epoll_wait: %s; streaming stops",
				  strerror(errno));
			break;
		}
		for (i = 0; i < n; i++) {
			if (ev[i].data.u64 == DRAINER_KEY_KICK) {
				kicked = true;
				continue;
			}
			tail_at = nprof_drain_sooner(tail_at, d->drain(d->arg, ev[i].data.u64));
		}
		if (kicked) {
			while (read(d->evfd, &v, sizeof(v)) < 0 && errno == EINTR)
				;
			pthread_mutex_lock(&d->lock);
			stop = d->stopping;
			asked = d->asked;
			pthread_mutex_unlock(&d->lock);
			if (stop)
				break;
			tail_at = nprof_drain_sooner(tail_at, d->drain(d->arg, NPROF_DRAIN_ALL));
			pthread_mutex_lock(&d->lock);
			d->done = asked;
			pthread_cond_broadcast(&d->done_cond);
			pthread_mutex_unlock(&d->lock);
		}
		/* Due, whether epoll_wait() timed out or queues kept it busy. */
		if (tail_at && nprof_mono_ns() >= tail_at)
			tail_at = d->drain(d->arg, NPROF_DRAIN_TAIL);
	}
	pthread_mutex_lock(&d->lock);
	d->stopped = true;
	pthread_cond_broadcast(&d->done_cond);
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static void drainer_free(struct nprof_drainer *d)
{
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->evfd >= 0)
		close(d->evfd);
	free(d);
}

struct nprof_drainer *nprof_drainer_start(uint64_t (*drain)(void *arg, uint64_t key), void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = DRAINER_KEY_KICK };
	struct nprof_drainer *d;
	int err;

	d = calloc(1, sizeof(*d));
	if (!d)
		return nprof_err_ptr(ENOMEM, "cannot allocate the capture drainer");
	d->drain = drain;
	d->arg = arg;
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->epfd < 0 || d->evfd < 0 || epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->evfd, &ev)) {
		err = errno;
		drainer_free(d);
		return nprof_err_ptr(err, "cannot set up the capture drainer: %s", strerror(err));
	}
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->done_cond, NULL);
	err = pthread_create(&d->thread, NULL, drainer_main, d);
	if (err) {
		pthread_cond_destroy(&d->done_cond);
		pthread_mutex_destroy(&d->lock);
		drainer_free(d);
		return nprof_err_ptr(err, "cannot start the capture drainer thread: %s", strerror(err));
	}
	return d;
}

int nprof_drainer_watch(struct nprof_drainer *d, int fd, uint64_t key)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.u64 = key };

	if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev))
		return nprof_err(errno, "cannot watch descriptor %d: %s", fd, strerror(errno));
	return 0;
}

void nprof_drainer_unwatch(struct nprof_drainer *d, int fd)
{
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, fd, NULL);
}

int nprof_drainer_sync(struct nprof_drainer *d)
{
	uint64_t mine;
	int ret;

	pthread_mutex_lock(&d->lock);
	mine = ++d->asked;
	kick(d);
	while (d->done < mine && !d->stopped)
		pthread_cond_wait(&d->done_cond, &d->lock);
	ret = d->done >= mine ? 0 : nprof_err(ESHUTDOWN, "the capture drainer has stopped");
	pthread_mutex_unlock(&d->lock);
	return ret;
}

void nprof_drainer_stop(struct nprof_drainer *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stopping = true;
	pthread_mutex_unlock(&d->lock);
	kick(d);
	pthread_join(d->thread, NULL);
	pthread_cond_destroy(&d->done_cond);
	pthread_mutex_destroy(&d->lock);
	drainer_free(d);
}

void nprof_drainer_forget(struct nprof_drainer *d)
{
	if (d)
		drainer_free(d);
}

// SPDX-License-Identifier: MIT
/*
 * Streaming capture: per-queue spools (unnamed temporary files that extend
 * a ring onto disk) and the drainer thread that fills them while a capture
 * runs (Documentation/capture.rst, "Streaming").
 *
 * Bytes go from the ring mapping to the spool with pwritev() and from the
 * spool to the NTFF file through a read-only mapping of the spool handed to
 * the NTFF writer, which checksums and writes that memory: no entry is ever
 * copied into the heap, and the heap used does not grow with the capture.
 *
 * The drainer sleeps in epoll_wait() on the subscriptions' descriptors,
 * edge-triggered: the kernel wakes a subscriber when the unread bytes cross
 * the watermark and after a flush. A pull drains until fewer than the
 * watermark are unread, so when the thread sleeps again the next crossing is
 * a new edge and cannot be missed. An eventfd carries kicks (sync) and stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <neuronprof/capture.h>
#include <neuronprof/ntff.h>

#include "capture/capture_stream.h"
#include "ntff/ntff_internal.h"
#include "util/internal.h"

/* Bytes of the spool mapped at a time while writing an NTFF file. */
#define SPOOL_MAP_CHUNK		(32ULL << 20)

/* Events taken from epoll per wakeup. */
#define DRAINER_EVENTS		64

/* The eventfd's epoll key; queue keys are (core << 32 | index). */
#define DRAINER_KEY_KICK	(UINT64_MAX - 1)

/* ---- spool ------------------------------------------------------------------ */

int nprof_spool_open(struct nprof_spool *sp, const char *dir, uint64_t base)
{
	char name[64];
	int dfd, fd, err;

	memset(sp, 0, sizeof(*sp));
	sp->fd = -1;
	sp->base = base;
	sp->spooled = base;
	sp->punched = base;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0) {
		sp->fd = fd;
		return 0;
	}
	err = errno;
	if (err != EOPNOTSUPP && err != EISDIR && err != EINVAL)
		goto fail;
	/* No O_TMPFILE here: a name that lives for one system call. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		err = errno;
		goto fail;
	}
	fd = nprof_tmpfile_create(dfd, "spool", name, sizeof(name));
	err = errno;
	if (fd >= 0) {
		unlinkat(dfd, name, 0);
		/* nprof_tmpfile_create() opens write-only; the NTFF writer maps it. */
		snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
		sp->fd = open(name, O_RDWR | O_CLOEXEC);
		err = errno;
		close(fd);
	}
	close(dfd);
	if (sp->fd >= 0)
		return 0;
fail:
	sp->err = -err;
	return nprof_err(err, "cannot create a spool file in %s: %s", dir, strerror(err));
}

void nprof_spool_close(struct nprof_spool *sp)
{
	if (sp->fd >= 0)
		close(sp->fd);
	sp->fd = -1;
}

static int spool_pwritev(struct nprof_spool *sp, struct iovec *iov, int iovcnt, uint64_t pos)
{
	uint64_t off = pos - sp->base;

	while (iovcnt) {
		ssize_t n = pwritev(sp->fd, iov, iovcnt, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return nprof_err(errno, "cannot write the spool at offset %llu: %s",
					 (unsigned long long)off, strerror(errno));
		}
		if (!n)
			return nprof_err(EIO, "cannot write the spool at offset %llu: no progress",
					 (unsigned long long)off);
		off += (uint64_t)n;
		while (iovcnt && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			iovcnt--;
		}
		if (iovcnt) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

int64_t nprof_spool_pull(struct nprof_spool *sp, struct nprof_ring *ring, const uint64_t *keep_from,
			 uint64_t watermark)
{
	int64_t written = 0;
	int ret;

	if (sp->err)
		return sp->err;
	if (watermark < ring->entry_size)
		watermark = ring->entry_size;
	for (;;) {
		struct nprof_ring_spans s;
		struct iovec iov[2];
		uint64_t from, len;
		int n, iovcnt = 0;

		n = nprof_ring_peek(ring, &s);
		if (n <= 0) {
			ret = n;
			break;
		}
		/* What no session needs is released unwritten (a hole in the spool). */
		if (!keep_from || (int64_t)(*keep_from - s.begin) >= (int64_t)(s.end - s.begin))
			from = s.end;
		else if ((int64_t)(*keep_from - s.begin) > 0)
			from = *keep_from;
		else
			from = s.begin;
		len = s.end - from;
		if (len) {
			ret = nprof_ring_window(ring, from, s.end, &s);
			if (ret < 0)
				break;
			iov[iovcnt].iov_base = (void *)s.ptr[0];
			iov[iovcnt++].iov_len = s.len[0];
			if (s.len[1]) {
				iov[iovcnt].iov_base = (void *)s.ptr[1];
				iov[iovcnt++].iov_len = s.len[1];
			}
			ret = spool_pwritev(sp, iov, iovcnt, from);
			if (ret)
				break;
		}
		ret = nprof_ring_release(ring, s.end);
		if (ret)
			break;
		sp->spooled = s.end;
		written += (int64_t)len;
		if (nprof_ring_load_producer(ring) - s.end < watermark)
			return written;
	}
	if (ret < 0) {
		sp->err = ret;
		return ret;
	}
	return written;
}

void nprof_spool_punch(struct nprof_spool *sp, uint64_t pos)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t start, end;

	if (sp->fd < 0)
		return;
	if (pos - sp->punched > sp->spooled - sp->punched)
		pos = sp->spooled;	/* never past what is written */
	start = (sp->punched - sp->base) & ~(page - 1);
	end = (pos - sp->base) & ~(page - 1);
	if (end <= start)
		return;
	if (fallocate(sp->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)start,
		      (off_t)(end - start)))
		nprof_log(NPROF_LOG_DEBUG, "cannot punch the spool: %s", strerror(errno));
	else
		sp->punched = sp->base + end;
}

/* Append spool bytes [begin, end) of the queue to @w in mapped pieces. */
static int spool_write_part(struct nprof_spool *sp, struct nprof_ntff_writer *w,
			    struct nprof_ntff_queue_desc *desc, uint64_t begin, uint64_t end)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	while (begin != end) {
		uint64_t off = begin - sp->base;
		uint64_t len = end - begin < SPOOL_MAP_CHUNK ? end - begin : SPOOL_MAP_CHUNK;
		uint64_t moff = off & ~(page - 1);
		size_t mlen = (size_t)(off - moff + len);
		void *map;
		int ret;

		/* Populated at once: one call instead of a fault per page. */
		map = mmap(NULL, mlen, PROT_READ, MAP_SHARED | MAP_POPULATE, sp->fd, (off_t)moff);
		if (map == MAP_FAILED)
			return nprof_err(errno, "cannot map %llu bytes of the spool: %s",
					 (unsigned long long)len, strerror(errno));
		madvise(map, mlen, MADV_SEQUENTIAL);
		ret = nprof_ntff_writer_append_file(w, desc, (char *)map + (off - moff), (size_t)len,
						    sp->fd, off);
		munmap(map, mlen);
		if (ret < 0)
			return ret;
		/* Later pieces extend the same record; the losses are counted once. */
		desc->lost_count = 0;
		begin += len;
	}
	return 0;
}

int nprof_spool_write(struct nprof_spool *sp, struct nprof_ring *ring,
		      struct nprof_ntff_writer *w, const struct nprof_ntff_queue_desc *qdesc,
		      uint64_t begin, uint64_t end)
{
	struct nprof_ntff_queue_desc desc = *qdesc;
	struct nprof_ring_spans s;
	uint64_t split;
	int ret;

	/* [begin, split) is in the spool, [split, end) still in the ring. */
	if (sp->fd < 0 || (int64_t)(sp->spooled - begin) <= 0)
		split = begin;
	else if (sp->spooled - begin >= end - begin)
		split = end;
	else
		split = sp->spooled;
	if (split != begin) {
		ret = spool_write_part(sp, w, &desc, begin, split);
		if (ret)
			return ret;
	}
	if (split == end) {
		if (begin != end)
			return 0;
		/* No entry: still a record, with its losses (the ring may be far past it). */
		ret = nprof_ntff_writer_append(w, &desc, NULL, 0, NULL, 0);
		return ret < 0 ? ret : 0;
	}
	ret = nprof_ring_window(ring, split, end, &s);
	if (ret < 0)
		return ret;
	ret = nprof_ntff_writer_append(w, &desc, s.ptr[0], s.len[0], s.ptr[1], s.len[1]);
	return ret < 0 ? ret : 0;
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
	void (*drain)(void *arg, uint64_t key);
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

static void *drainer_main(void *arg)
{
	struct nprof_drainer *d = arg;
	struct epoll_event ev[DRAINER_EVENTS];
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

		n = epoll_wait(d->epfd, ev, DRAINER_EVENTS, -1);
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
			d->drain(d->arg, ev[i].data.u64);
		}
		if (!kicked)
			continue;
		while (read(d->evfd, &v, sizeof(v)) < 0 && errno == EINTR)
			;
		pthread_mutex_lock(&d->lock);
		stop = d->stopping;
		asked = d->asked;
		pthread_mutex_unlock(&d->lock);
		if (stop)
			break;
		d->drain(d->arg, NPROF_DRAIN_ALL);
		pthread_mutex_lock(&d->lock);
		d->done = asked;
		pthread_cond_broadcast(&d->done_cond);
		pthread_mutex_unlock(&d->lock);
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

struct nprof_drainer *nprof_drainer_start(void (*drain)(void *arg, uint64_t key), void *arg)
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

// SPDX-License-Identifier: MIT
/*
 * NTFF writer: compressed blocks (NTFF major 4, Documentation/ntff.rst
 * "Compressed blocks"). Each complete data block is compressed on its own
 * as one zstd frame and stored so when that is shorter, else as is; the
 * stored blocks follow one another in the data region and the block table
 * gives each one's offset, stored length (with NPROF_NTFF_ZBLOCK_ZSTD) and
 * the CRC32C of its stored bytes.
 *
 * Unlike the plain writer, which writes from the caller's memory, this one
 * must see a whole block before it can compress it: the bytes of the
 * partial block wait in w->zpart (a block), complete blocks are compressed
 * from the caller's memory when they lie in one span, else from w->zpart,
 * and the stored blocks of an append go out in writes of up to
 * ZOUT_CAP bytes. Heap: three blocks, the output buffer, the zstd context
 * and 16 bytes of table per block.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "util/internal.h"
#include "ntff/ntff_internal.h"
#include "ntff/ntff_writer_internal.h"

/* Stored bytes gathered before a write (more if one block's bound is more). */
#define ZOUT_CAP	(1u << 20)

NPROF_API int nprof_ntff_writer_set_compression(struct nprof_ntff_writer *w, int level)
{
	ZSTD_CCtx *c;

	if (!w)
		return nprof_err(EINVAL, "NTFF writer is NULL");
	if (w->data_len || w->ntraces)
		return nprof_err(EINVAL, "NTFF compression must be set before the first append");
	if (level < 0 || level > NPROF_NTFF_ZSTD_LEVEL_MAX || level > ZSTD_maxCLevel())
		return nprof_err(EINVAL, "NTFF compression level %d is not in [0, %d] (0: none)",
				 level, NPROF_NTFF_ZSTD_LEVEL_MAX < ZSTD_maxCLevel() ?
				 NPROF_NTFF_ZSTD_LEVEL_MAX : ZSTD_maxCLevel());
	if (!level) {
		ntff_wz_free(w);
		w->zlevel = 0;
		return 0;
	}
	c = w->zcctx ? w->zcctx : ZSTD_createCCtx();
	if (!c)
		return nprof_err(ENOMEM, "cannot allocate a zstd compression context");
	w->zcctx = c;
	/*
	 * No zstd checksum: the block table's CRC32C covers the stored frame,
	 * and a frame must decompress to exactly its block's length.
	 */
	if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1)))
		return nprof_err(EINVAL, "zstd refuses compression level %d", level);
	w->zlevel = level;
	return 0;
}

void ntff_wz_free(struct nprof_ntff_writer *w)
{
	ZSTD_freeCCtx(w->zcctx);
	w->zcctx = NULL;
	free(w->zpart);
	free(w->zsave);
	free(w->zout);
	free(w->zblocks);
	w->zpart = w->zsave = w->zout = NULL;
	w->zblocks = NULL;
	w->zout_len = w->zout_cap = 0;
}

static int wz_write(struct nprof_ntff_writer *w, const unsigned char *p, size_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(w->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return nprof_err(errno, "cannot write %s: %s", w->name, strerror(errno));
		}
		if (n == 0)
			return nprof_err(EIO, "cannot write %s: no progress", w->name);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Write the stored blocks gathered in zout: they end at data offset zstored. */
static int wz_flush(struct nprof_ntff_writer *w)
{
	int ret;

	if (!w->zout_len)
		return 0;
	ret = wz_write(w, w->zout, w->zout_len,
		       NPROF_NTFF_HEADER_SIZE + w->zstored - w->zout_len);
	if (!ret)
		w->zout_len = 0;
	return ret;
}

/*
 * Store @n bytes at @src (a block) at the end of zout: a zstd frame when
 * shorter, else as is. Return: the table entry's length word.
 */
static uint32_t wz_store(struct nprof_ntff_writer *w, const unsigned char *src, size_t n,
			 uint32_t *csum)
{
	unsigned char *dst = w->zout + w->zout_len;
	size_t c;
	uint32_t word;

	c = ZSTD_compress2(w->zcctx, dst, w->zout_cap - w->zout_len, src, n);
	if (ZSTD_isError(c) || c >= n) {
		/* Incompressible (or zstd failed): the block as is. */
		memcpy(dst, src, n);
		c = n;
		word = (uint32_t)n;
	} else {
		word = (uint32_t)c | NPROF_NTFF_ZBLOCK_ZSTD;
	}
	*csum = nprof_crc32c_update(0, dst, c);
	w->zout_len += c;
	return word;
}

/* Store one complete block, writing zout first if the block may not fit. */
static int wz_block(struct nprof_ntff_writer *w, const unsigned char *src)
{
	struct ntff_zblock *b;
	uint32_t word, csum;
	int ret;

	if (w->zout_cap - w->zout_len < ZSTD_compressBound(w->block_size)) {
		ret = wz_flush(w);
		if (ret)
			return ret;
	}
	word = wz_store(w, src, w->block_size, &csum);
	b = &w->zblocks[w->nblocks++];
	b->off = w->zstored;
	b->len = word;
	b->csum = csum;
	w->zstored += word & ~NPROF_NTFF_ZBLOCK_ZSTD;
	return 0;
}

/* The buffers, once the block size is final (the first append may raise it). */
static int wz_alloc(struct nprof_ntff_writer *w, uint64_t more)
{
	uint64_t need = ntff_block_count(w->data_len + more, w->block_size);
	size_t bound = ZSTD_compressBound(w->block_size);

	if (!w->zpart) {
		w->zout_cap = bound > ZOUT_CAP ? bound : ZOUT_CAP;
		w->zpart = malloc(w->block_size);
		w->zsave = malloc(w->block_size);
		w->zout = malloc(w->zout_cap);
		if (!w->zpart || !w->zsave || !w->zout) {
			free(w->zpart);
			free(w->zsave);
			free(w->zout);
			w->zpart = w->zsave = w->zout = NULL;
			return nprof_err(ENOMEM, "cannot allocate the compression buffers (%u-byte blocks)",
					 w->block_size);
		}
	}
	return ntff_writer_grow_table(&w->zblocks, sizeof(*w->zblocks), &w->blocks_cap, need);
}

int ntff_wz_append(struct nprof_ntff_writer *w, const void *span0, size_t len0,
		   const void *span1, size_t len1)
{
	const unsigned char *sp[2] = { span0, span1 };
	size_t sl[2] = { len0, len1 };
	size_t bs, part, part0, nblocks0 = w->nblocks;
	uint64_t stored0 = w->zstored;
	int i, ret;

	ret = wz_alloc(w, (uint64_t)len0 + len1);
	if (ret)
		return ret;
	bs = w->block_size;
	part = part0 = (size_t)(w->data_len % bs);
	/* zpart is overwritten once a block completes: keep it to undo. */
	if (w->pending && part0 && (uint64_t)part0 + len0 + len1 >= bs)
		memcpy(w->zsave, w->zpart, part0);
	for (i = 0; i < 2; i++) {
		const unsigned char *p = sp[i];
		size_t len = sl[i];

		while (len) {
			if (!part && len >= bs) {
				/* A whole block in the caller's memory: no copy. */
				ret = wz_block(w, p);
				p += bs;
				len -= bs;
			} else {
				size_t n = bs - part < len ? bs - part : len;

				memcpy(w->zpart + part, p, n);
				part += n;
				p += n;
				len -= n;
				if (part == bs) {
					ret = wz_block(w, w->zpart);
					part = 0;
				}
			}
			if (ret)
				goto undo;
		}
	}
	ret = wz_flush(w);
	if (!ret)
		return 0;
undo:
	/* As if never called: the next append writes over what this left. */
	w->nblocks = nblocks0;
	w->zstored = stored0;
	w->zout_len = 0;
	if (w->pending && part0 && (uint64_t)part0 + len0 + len1 >= bs)
		memcpy(w->zpart, w->zsave, part0);
	return ret;
}

unsigned char *ntff_wz_table(struct nprof_ntff_writer *w, const unsigned char **tail,
			     size_t *tail_len, size_t *tlen)
{
	size_t part = (size_t)(w->data_len % w->block_size), n = w->nblocks, i;
	struct ntff_zblock last = { 0 };
	unsigned char *t, *e;

	*tail = NULL;
	*tail_len = 0;
	if (part) {
		/* The partial block goes to zout, written by the caller before the table. */
		if (!w->zout && wz_alloc(w, 0))
			return NULL;
		w->zout_len = 0;
		last.off = w->zstored;
		last.len = wz_store(w, w->zpart, part, &last.csum);
		*tail = w->zout;
		*tail_len = w->zout_len;
		w->zout_len = 0;
		n++;
	}
	*tlen = n * NPROF_NTFF_ZBLOCK_ENTRY_SIZE;
	t = malloc(*tlen ? *tlen : 1);
	if (!t)
		return nprof_err_ptr(ENOMEM, "cannot allocate a block table of %zu blocks", n);
	for (i = 0; i < n; i++) {
		const struct ntff_zblock *b = i < w->nblocks ? &w->zblocks[i] : &last;
		uint64_t off = htole64(b->off);
		uint32_t len = htole32(b->len), csum = htole32(b->csum);

		e = t + i * NPROF_NTFF_ZBLOCK_ENTRY_SIZE;
		memcpy(e, &off, 8);
		memcpy(e + 8, &len, 4);
		memcpy(e + 12, &csum, 4);
	}
	return t;
}

uint64_t nprof_ntff_writer_stored(const struct nprof_ntff_writer *w)
{
	if (!w)
		return 0;
	if (!w->zlevel)
		return w->data_len;
	return w->zstored + w->data_len % w->block_size;
}

bool nprof_ntff_writer_compressed(const struct nprof_ntff_writer *w)
{
	return w && w->zlevel;
}

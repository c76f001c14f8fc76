// SPDX-License-Identifier: MIT
/*
 * neuronprof(1): the buffer of the streaming protobuf encoder (pbenc.h).
 */
#include <stdlib.h>

#include "util/pbenc.h"

int pb_init(struct pbenc *e, FILE *f)
{
	memset(e, 0, sizeof(*e));
	e->f = f;
	e->cap = 2 * PBENC_FLUSH;
	e->buf = malloc(e->cap + PBENC_SLACK);
	return e->buf ? 0 : -1;
}

void pb_free(struct pbenc *e)
{
	free(e->buf);
	e->buf = NULL;
}

void pb_grow(struct pbenc *e, size_t n)
{
	size_t cap = e->cap;
	uint8_t *p;

	while (e->len + n > cap)
		cap *= 2;
	p = realloc(e->buf, cap + PBENC_SLACK);
	if (!p) {
		/* Keep writing into the old buffer from its start; the export fails at its end. */
		e->nomem = true;
		e->len = 0;
		return;
	}
	e->buf = p;
	e->cap = cap;
}

void pb_flush(struct pbenc *e)
{
	/* Write errors show in ferror() when the caller closes the stream. */
	if (e->len && !e->nomem)
		fwrite(e->buf, 1, e->len, e->f);
	e->len = 0;
}

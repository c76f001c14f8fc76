/* SPDX-License-Identifier: MIT */
#ifndef HEAD_WRITE_COPY_H
#define HEAD_WRITE_COPY_H

#include <stddef.h>
#include <stdint.h>

void hwc_ring_entries(void *dst, const void *src, size_t len, uint64_t now);
void hwc_words(void *dst, const void *src, size_t len);
void hwc_movsb(void *dst, const void *src, size_t len);
void hwc_packed(void *dst, const void *src, size_t len, uint64_t now);

#endif

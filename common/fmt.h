/* SPDX-License-Identifier: MIT */
/* Bounded text building and number parsing, without libc. */
#ifndef TSCTUI_COMMON_FMT_H
#define TSCTUI_COMMON_FMT_H

#include "tsc.h"

struct tsc_buf {
	char *p;
	size_t len;
	size_t cap;
	bool overflow;
};

void tsc_buf_init(struct tsc_buf *b, char *p, size_t cap);
void tsc_buf_putc(struct tsc_buf *b, char c);
void tsc_buf_puts(struct tsc_buf *b, const char *s);
void tsc_buf_u64(struct tsc_buf *b, uint64_t v);
void tsc_buf_i64(struct tsc_buf *b, int64_t v);
void tsc_buf_hex4(struct tsc_buf *b, uint32_t v); /* four upper-case digits */

/* Parses an optionally signed decimal; false on anything else or overflow. */
bool tsc_parse_i64(const char *s, size_t n, int64_t *out);
bool tsc_parse_u64(const char *s, size_t n, uint64_t *out);
/* 1 to 16 hexadecimal digits, either case, no prefix. */
bool tsc_parse_hex(const char *s, size_t n, uint64_t *out);

#endif

/* SPDX-License-Identifier: MIT */
#include "fmt.h"

void tsc_buf_init(struct tsc_buf *b, char *p, size_t cap)
{
	*b = (struct tsc_buf){ .p = p, .cap = cap };
	if (cap)
		p[0] = '\0';
}

void tsc_buf_putc(struct tsc_buf *b, char c)
{
	if (b->len + 1 >= b->cap) {
		b->overflow = true;
		return;
	}
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

void tsc_buf_puts(struct tsc_buf *b, const char *s)
{
	while (*s)
		tsc_buf_putc(b, *s++);
}

void tsc_buf_u64(struct tsc_buf *b, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		tsc_buf_putc(b, tmp[--n]);
}

void tsc_buf_i64(struct tsc_buf *b, int64_t v)
{
	if (v < 0) {
		tsc_buf_putc(b, '-');
		tsc_buf_u64(b, (uint64_t)0 - (uint64_t)v);
		return;
	}
	tsc_buf_u64(b, (uint64_t)v);
}

void tsc_buf_hex4(struct tsc_buf *b, uint32_t v)
{
	static const char digits[] = "0123456789ABCDEF";
	int i;

	for (i = 3; i >= 0; i--)
		tsc_buf_putc(b, digits[(v >> (4 * i)) & 0xf]);
}

bool tsc_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 20)
		return false;
	for (i = 0; i < n; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return false;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

bool tsc_parse_hex(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 16)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint64_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint64_t)(c - 'A' + 10);
		else
			return false;
	}
	*out = v;
	return true;
}

bool tsc_parse_i64(const char *s, size_t n, int64_t *out)
{
	bool neg = false;
	uint64_t v;

	if (n && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		s++;
		n--;
	}
	if (!tsc_parse_u64(s, n, &v))
		return false;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return false;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return false;
		*out = (int64_t)v;
	}
	return true;
}

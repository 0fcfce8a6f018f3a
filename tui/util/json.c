/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

static void indent(struct json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* The length of the valid UTF-8 character at s (at most n bytes), or 0
 * (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF);
 * *bad: when 0, the bytes to replace by one U+FFFD (the maximal part of
 * a character that is valid as far as it goes, Unicode 3.9). */
static size_t utf8_len(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len, i;

	*bad = 1;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	for (i = 1; i < len; i++) {
		if (i >= n || s[i] < (i == 1 ? lo : 0x80) ||
		    s[i] > (i == 1 ? hi : 0xBF)) {
			*bad = i;
			return 0;
		}
	}
	return len;
}

/* A JSON string of any bytes: valid UTF-8 passes, control characters
 * (C0, DEL, C1) are escaped, and each byte that is not UTF-8 becomes
 * U+FFFD, so the document is valid whatever a path or DMI string held. */
static void escaped(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k, bad;

	fputc('"', f);
	while (i < n) {
		unsigned char c = u[i];

		k = utf8_len(u + i, n - i, &bad);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else if (k == 0)
			fputs("\\ufffd", f);
		else if (k == 2 && c == 0xC2 && u[i + 1] < 0xA0)
			fprintf(f, "\\u%04x", u[i + 1]);
		else
			fwrite(u + i, 1, k, f);
		i += k ? k : bad;
	}
	fputc('"', f);
}

/* Comma, indentation and key before every value. */
static void lead(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			fputc(',', j->f);
		j->first[j->depth] = false;
		indent(j);
	}
	if (key) {
		escaped(j->f, key, strlen(key));
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_(struct json *j, const char *key, char c)
{
	lead(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_(struct json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

void json_obj(struct json *j, const char *key)
{
	open_(j, key, '{');
}

void json_obj_end(struct json *j)
{
	close_(j, '}');
}

void json_arr(struct json *j, const char *key)
{
	open_(j, key, '[');
}

void json_arr_end(struct json *j)
{
	close_(j, ']');
}

void json_strn(struct json *j, const char *key, const char *v, size_t n)
{
	lead(j, key);
	escaped(j->f, v, n);
}

void json_str(struct json *j, const char *key, const char *v)
{
	if (!v) {
		json_null(j, key);
		return;
	}
	json_strn(j, key, v, strlen(v));
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	lead(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	lead(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_num(struct json *j, const char *key, double v, int decimals)
{
	lead(j, key);
	if (!isfinite(v))
		fputs("null", j->f);
	else
		fprintf(j->f, "%.*f", decimals, v);
}

void json_bool(struct json *j, const char *key, bool v)
{
	lead(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	lead(j, key);
	fputs("null", j->f);
}

void json_end(struct json *j)
{
	fputc('\n', j->f);
}

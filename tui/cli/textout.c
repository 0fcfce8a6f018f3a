/* SPDX-License-Identifier: MIT */
/*
 * What a command prints goes to a terminal, and much of it comes from
 * outside: DMI strings, kernel log lines, report files, paths, and the
 * values given on the command line, which error messages repeat.  Every
 * byte a command writes to standard output or standard error passes this
 * one filter (cli.h):
 * valid UTF-8, newlines and tabs pass; control characters (C0, DEL and the
 * C1 range, which terminals read as escape sequences) and bytes that are
 * not UTF-8 become '?'.  JSON is escaped by its writer before it gets here
 * (util/json.c), so the filter leaves it unchanged.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct textout {
	int fd;
	unsigned char seq[4]; /* a multi-byte character so far */
	size_t have, need;    /* its bytes so far, and in all */
};

static struct textout out_state = { .fd = STDOUT_FILENO },
		      err_state = { .fd = STDERR_FILENO };

static bool put_all(int fd, const char *b, size_t n)
{
	ssize_t r;

	while (n) {
		r = write(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

/* The second byte's range after lead byte c (RFC 3629, table 3-7). */
static bool second_ok(unsigned char c, unsigned char b)
{
	if (c == 0xE0)
		return b >= 0xA0 && b <= 0xBF;
	if (c == 0xED)
		return b >= 0x80 && b <= 0x9F;
	if (c == 0xF0)
		return b >= 0x90 && b <= 0xBF;
	if (c == 0xF4)
		return b >= 0x80 && b <= 0x8F;
	/* After C2: U+0080..U+009F are the C1 controls, refused. */
	if (c == 0xC2)
		return b >= 0xA0 && b <= 0xBF;
	return b >= 0x80 && b <= 0xBF;
}

static size_t length(unsigned char c)
{
	if (c >= 0xC2 && c <= 0xDF)
		return 2;
	if (c >= 0xE0 && c <= 0xEF)
		return 3;
	if (c >= 0xF0 && c <= 0xF4)
		return 4;
	return 0;
}

/* Filters n bytes of b into out (room for 4 * n + 4), returns its length. */
static size_t filter(struct textout *t, const unsigned char *b, size_t n,
		     char *out)
{
	size_t o = 0, i;

	for (i = 0; i < n; i++) {
		unsigned char c = b[i];

		if (t->need) {
			bool ok = t->have == 1 ? second_ok(t->seq[0], c)
					       : (c >= 0x80 && c <= 0xBF);

			if (ok) {
				t->seq[t->have++] = c;
				if (t->have == t->need) {
					memcpy(out + o, t->seq, t->need);
					o += t->need;
					t->need = t->have = 0;
				}
				continue;
			}
			/* The sequence broke off: one '?' for it, then this
			 * byte on its own. */
			out[o++] = '?';
			t->need = t->have = 0;
		}
		if (c < 0x80) {
			bool ctl = (c < 0x20 && c != '\n' && c != '\t') ||
				   c == 0x7f;

			out[o++] = ctl ? '?' : (char)c;
			continue;
		}
		t->need = length(c);
		if (!t->need) {
			out[o++] = '?';
			continue;
		}
		t->seq[0] = c;
		t->have = 1;
	}
	return o;
}

static ssize_t cookie_write(void *c, const char *buf, size_t n)
{
	struct textout *t = c;
	char out[4096 * 2];
	size_t done = 0, k;

	while (done < n) {
		k = n - done < 2048 ? n - done : 2048;
		if (!put_all(t->fd, out,
			     filter(t, (const unsigned char *)buf + done, k,
				    out)))
			return done ? (ssize_t)done : -1;
		done += k;
	}
	return (ssize_t)n;
}

static int cookie_close(void *c)
{
	struct textout *t = c;

	/* A character cut off at the end. */
	if (t->need && !put_all(t->fd, "?", 1))
		return EOF;
	t->need = t->have = 0;
	return 0;
}

static const cookie_io_functions_t io = {
	.write = cookie_write,
	.close = cookie_close,
};

int cli_text_filter(void)
{
	FILE *f = fopencookie(&out_state, "w", io);

	if (!f)
		return -1;
	if (isatty(STDOUT_FILENO))
		setvbuf(f, NULL, _IOLBF, 0);
	fflush(stdout);
	stdout = f;
	return 0;
}

/* Standard error, line by line (app_fail writes one line per error, with
 * any newline inside it already made a '?'), so that a message is out
 * before anything that follows it, an exit included. */
int cli_error_filter(void)
{
	FILE *f = fopencookie(&err_state, "w", io);

	if (!f)
		return -1;
	setvbuf(f, NULL, _IOLBF, 0);
	stderr = f;
	return 0;
}

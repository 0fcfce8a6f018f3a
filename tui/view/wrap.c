/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <string.h>

#include "wrap.h"

int wrap_hang(const char *text)
{
	const char *p = text;
	const char *q;

	while (*p == ' ')
		p++;
	/* "2. ", "10. " */
	for (q = p; isdigit((unsigned char)*q); q++)
		;
	if (q > p && q[0] == '.' && q[1] == ' ')
		return (int)(q + 2 - text);
	if ((p[0] == '-' || p[0] == '*') && p[1] == ' ')
		return (int)(p + 2 - text);
	return (int)(p - text);
}

int wrap_row(const char *p, int w, const char **next)
{
	int len = (int)strlen(p), cut = len;

	if (w < 1)
		w = 1;
	if (len > w) {
		cut = w;
		while (cut > 0 && p[cut] != ' ')
			cut--;
		/* One word wider than the row: split, never dropped. */
		if (cut == 0)
			cut = w;
	}
	for (*next = p + cut; **next == ' ';)
		(*next)++;
	return cut;
}

int wrap_indent(const char *text, int w)
{
	int hang = wrap_hang(text);

	return w - hang >= WRAP_MIN_TEXT ? hang : 0;
}

int wrap_rows(const char *text, int w)
{
	int hang = wrap_indent(text, w), rows = 0;
	const char *p = text;

	while (*p) {
		wrap_row(p, rows ? w - hang : w, &p);
		rows++;
	}
	return rows ? rows : 1;
}

int wrap_status_rows(const char *text, int cols, int lines)
{
	int rows = wrap_rows(text, cols);
	int half = (lines - 1) / 2;
	int cap = half > WRAP_STATUS_ROWS ? half : WRAP_STATUS_ROWS;

	return rows < cap ? rows : cap;
}

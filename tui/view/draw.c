/* SPDX-License-Identifier: MIT */
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"

attr_t draw_look(const struct ui_state *s, enum draw_pair pair)
{
	if (s->color)
		return COLOR_PAIR(pair) | (pair == C_BAD ? A_BOLD : 0);
	switch (pair) {
	case C_BAD:
	case C_KEY:
		return A_REVERSE;
	case C_TITLE:
	case C_OK:
		return A_BOLD;
	default:
		return A_NORMAL;
	}
}

attr_t draw_verdict_look(const struct ui_state *s, enum tsc_verdict v)
{
	return draw_look(s, v == TSC_VERDICT_OK	   ? C_OK
			    : v == TSC_VERDICT_BAD ? C_BAD
						   : C_UNSURE);
}

void draw_put(int y, int x, attr_t a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int w = COLS - x;

	if (y < 0 || y >= LINES || w <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	attron(a);
	mvaddnstr(y, x, buf, w);
	attroff(a);
}

/* The length of text's first row wrapped at width w (at a word boundary
 * where there is one), and in *next where the row after it starts. */
static int row_cut(const char *p, int w, const char **next)
{
	int len = (int)strlen(p), cut = len;

	if (len > w) {
		cut = w;
		while (cut > 0 && p[cut] != ' ')
			cut--;
		if (cut == 0)
			cut = w;
	}
	for (*next = p + cut; **next == ' ';)
		(*next)++;
	return cut;
}

void draw_wrapped(int y, int x, int n, attr_t a, const char *text)
{
	int w = COLS - x, i;
	const char *p = text, *next;

	for (i = 0; i < n && *p && w > 10; i++) {
		int cut = row_cut(p, w, &next);

		draw_put(y + i, x, a, "%.*s", cut, p);
		p = next;
	}
}

void draw_keys(const struct ui_state *s, const char *keys)
{
	draw_put(LINES - 1, 0, draw_look(s, C_KEY), "%-*s", COLS, keys);
}

/* The bar with the entries in `show`, brief or not, into out; its width. */
static int keybar_text(const struct draw_key *k, int n, const bool *show,
		       bool brief, char *out, size_t cap)
{
	size_t o = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < n && o < cap; i++)
		if (show[i])
			o += (size_t)snprintf(out + o, cap - o, "%s%s %s",
					      o ? (brief ? " " : "  ") : " ",
					      k[i].key,
					      brief ? k[i].brief : k[i].label);
	return (int)strlen(out);
}

void draw_keybar(const struct ui_state *s, const struct draw_key *k, int n)
{
	bool show[32];
	char bar[512];
	int i, drop;

	for (i = 0; i < n && i < 32; i++)
		show[i] = true;
	n = i;
	if (keybar_text(k, n, show, false, bar, sizeof(bar)) > COLS) {
		for (drop = n - 1;
		     keybar_text(k, n, show, true, bar, sizeof(bar)) > COLS &&
		     drop >= 0;
		     drop--)
			if (!k[drop].keep)
				show[drop] = false;
	}
	draw_keys(s, bar);
}

/* What the last draw_lines() calls left below the screen. */
static int overflow;

void draw_begin(void)
{
	overflow = 0;
}

int draw_overflow(void)
{
	return overflow;
}

static int wrapped_rows(const char *p, int w)
{
	int rows = 0;

	while (*p) {
		row_cut(p, w, &p);
		rows++;
	}
	return rows ? rows : 1;
}

void draw_lines(const struct ui_state *s, const char *title,
		const char lines[][UI_LINE], int n, const char *keys)
{
	int i, rows = 0, row = 0, first = s->info_scroll, y = 2,
	       fit = LINES - 3 - 2 + 1, w = COLS > 20 ? COLS : 20;
	char bar[160];

	draw_put(0, 0, draw_look(s, C_TITLE) | A_BOLD, "%s", title);
	for (i = 0; i < n; i++)
		rows += wrapped_rows(lines[i], w);
	/* Scrolled no further than to show the last row at the bottom. */
	if (first > rows - fit)
		first = rows - fit;
	if (first < 0)
		first = 0;
	if (rows - fit > overflow)
		overflow = rows - fit;
	for (i = 0; i < n && y < 2 + fit; i++) {
		const char *p = lines[i], *next;

		do {
			int cut = row_cut(p, w, &next);

			if (row++ >= first && y < 2 + fit)
				draw_put(y++, 0, A_NORMAL, "%.*s", cut, p);
			p = next;
		} while (*p);
	}
	if (rows > fit)
		snprintf(bar, sizeof(bar), "%s  %s", keys,
			 first < rows - fit ? "Down more" : "Up");
	draw_keys(s, rows > fit ? bar : keys);
}

void draw_addl(char lines[][UI_LINE], int *n, const char *fmt, ...)
{
	va_list ap;

	if (*n >= UI_MAX_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(lines[(*n)++], UI_LINE, fmt, ap);
	va_end(ap);
}

void draw_addtext(char lines[][UI_LINE], int *n, const char *lead,
		  const char *text)
{
	int pad = (int)strlen(lead), room = UI_LINE - 1 - pad, cut;
	const char *p = text;

	if (room < 20)
		return;
	do {
		cut = (int)strlen(p);
		if (cut > room) {
			cut = room;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = room;
		}
		draw_addl(lines, n, "%*s%.*s", pad, p == text ? lead : "", cut,
			  p);
		p += cut;
		while (*p == ' ')
			p++;
	} while (*p && *n < UI_MAX_LINES);
}

void draw_sparkline(const int64_t *v, unsigned n, char *out, size_t cap,
		    bool unicode)
{
	static const char *const blocks[] = { "\u2581", "\u2582", "\u2583",
					      "\u2584", "\u2585", "\u2586",
					      "\u2587", "\u2588" };
	static const char ascii[] = "_.-~=+*#";
	int64_t lo = 0, hi = 0;
	size_t o = 0;
	unsigned i;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!i || v[i] < lo)
			lo = v[i];
		if (!i || v[i] > hi)
			hi = v[i];
	}
	for (i = 0; i < n; i++) {
		int level = hi > lo ? (int)((v[i] - lo) * 7 / (hi - lo)) : 3;
		const char *c =
			unicode ? blocks[level] : (char[]){ ascii[level], 0 };
		size_t l = strlen(c);

		if (o + l + 1 > cap)
			break;
		memcpy(out + o, c, l);
		o += l;
		out[o] = '\0';
	}
}

bool draw_unicode_ok(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && strcmp(cs, "UTF-8") == 0;
}

/* SPDX-License-Identifier: MIT */
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "wrap.h"

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

void draw_wrapped(int y, int x, int n, attr_t a, const char *text)
{
	draw_wrapped_more(y, x, n, a, text, DRAW_MORE);
}

void draw_wrapped_more(int y, int x, int n, attr_t a, const char *text,
		       const char *more)
{
	int w = COLS - x, hang = wrap_indent(text, w), i;
	const char *p = text, *next;

	for (i = 0; i < n && *p && w > 10; i++) {
		int width = i ? w - hang : w;
		int cut = wrap_row(p, width, &next);

		/* The last row it may have, with text left after it: it
		 * ends in `more`, so a cut is never silent. */
		if (i == n - 1 && *next) {
			cut = wrap_row(p, width - (int)strlen(more), &next);
			draw_put(y + i, i ? x + hang : x, a, "%.*s%s", cut, p,
				 more);
			return;
		}
		draw_put(y + i, i ? x + hang : x, a, "%.*s", cut, p);
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

int draw_status_rows(const struct ui_state *s)
{
	return s->status[0] ? wrap_status_rows(s->status, COLS, LINES) : 1;
}

void draw_lines(const struct ui_state *s, const char *title,
		const char lines[][UI_LINE], int n, const char *keys)
{
	int i, rows = 0, row = 0, first = s->info_scroll, y = 2,
	       fit = LINES - 2 - 2 - draw_status_rows(s) + 1,
	       w = COLS > 20 ? COLS : 20;
	char bar[160];

	draw_put(0, 0, draw_look(s, C_TITLE) | A_BOLD, "%s", title);
	for (i = 0; i < n; i++)
		rows += wrap_rows(lines[i], w);
	/* Scrolled no further than to show the last row at the bottom. */
	if (first > rows - fit)
		first = rows - fit;
	if (first < 0)
		first = 0;
	if (rows - fit > overflow)
		overflow = rows - fit;
	for (i = 0; i < n && y < 2 + fit; i++) {
		const char *p = lines[i], *next;
		int hang = wrap_indent(p, w), x = 0;

		do {
			int cut = wrap_row(p, w - x, &next);

			if (row++ >= first && y < 2 + fit)
				draw_put(y++, x, A_NORMAL, "%.*s", cut, p);
			p = next;
			x = hang;
		} while (*p);
	}
	if (rows > fit)
		snprintf(bar, sizeof(bar), "%s  %s", keys,
			 first < rows - fit ? "Down more" : "Up");
	draw_keys(s, rows > fit ? bar : keys);
}

/* text into lines of up to UI_LINE - 1 bytes, cut at blanks; the lines
 * after the first indented by its hanging indent (wrap.h), so that each
 * wraps on the screen under the text it continues. */
static void add_split(char lines[][UI_LINE], int *n, const char *text)
{
	int hang = wrap_hang(text), room, cut;
	const char *p = text, *next;

	if (hang > UI_LINE / 4)
		hang = 0;
	room = UI_LINE - 1;
	do {
		/* Full, with more to come: the last place says so (a plan
		 * of many files was cut silently). */
		if (*n >= UI_MAX_LINES) {
			snprintf(lines[UI_MAX_LINES - 1], UI_LINE, "%s",
				 DRAW_MORE_LINES);
			return;
		}
		cut = wrap_row(p, room, &next);
		snprintf(lines[(*n)++], UI_LINE, "%*s%.*s",
			 p == text ? 0 : hang, "", cut, p);
		p = next;
		room = UI_LINE - 1 - hang;
	} while (*p);
}

void draw_addl(char lines[][UI_LINE], int *n, const char *fmt, ...)
{
	char text[UI_LINE * UI_MAX_LINES];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	add_split(lines, n, text);
}

void draw_addtext(char lines[][UI_LINE], int *n, const char *lead,
		  const char *text)
{
	draw_addl(lines, n, "%s%s", lead, text);
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

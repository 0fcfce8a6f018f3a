/* SPDX-License-Identifier: MIT */
/* What every screen draws with: looks, cut lines, wrapped text, a titled
 * list of lines, the key bar, sparklines. */
#ifndef TSCTUI_VIEW_DRAW_H
#define TSCTUI_VIEW_DRAW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/tsc.h"
#include "view.h"

enum draw_pair { C_TITLE = 1, C_OK, C_UNSURE, C_BAD, C_DIM, C_KEY };

/* A colour pair, or without colours: bold for good news, reverse for bad,
 * plain for the rest. */
attr_t draw_look(const struct ui_state *s, enum draw_pair pair);
attr_t draw_verdict_look(const struct ui_state *s, enum tsc_verdict v);
/* One line at (y, x), cut to the screen's width. */
void draw_put(int y, int x, attr_t a, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Text wrapped at word boundaries into at most n lines from y, the rows
 * after the first under its text (wrap.h); when it does not fit, its last
 * row ends in DRAW_MORE. */
#define DRAW_MORE " ..."
/* The same on the main screen, saying where the rest is: the all-text
 * screen (screen_text.c, key l) shows whole what the main screen cuts. */
#define DRAW_MORE_ALL " ... l: all"
/* The last of UI_MAX_LINES lines when there were more. */
#define DRAW_MORE_LINES "... and more, not shown"
void draw_wrapped(int y, int x, int n, attr_t a, const char *text);
/* draw_wrapped, its last row ending in `more` when the text is cut. */
void draw_wrapped_more(int y, int x, int n, attr_t a, const char *text,
		       const char *more);
/* A title, then lines, each wrapped to the screen's width, from row
 * s->info_scroll on, and a key bar (saying Up/Down when they do not all
 * fit). */
void draw_lines(const struct ui_state *s, const char *title,
		const char lines[][UI_LINE], int n, const char *keys);
/* The rows the status line takes above the key bar: the last action's
 * message wrapped whole (its last sentence is often the one step left,
 * "run update-grub"), wrap_status_rows; 1 when there is none. */
int draw_status_rows(const struct ui_state *s);
/* The bottom line: the keys this screen answers (cut to the width). */
void draw_keys(const struct ui_state *s, const char *keys);
/* A key bar entry: the key, its label, a shorter label for narrow
 * screens; keep: shown whatever the width (help, quit). */
struct draw_key {
	const char *key, *label, *brief;
	bool keep;
};
/* The key bar fitted to the width: the labels, else the brief labels,
 * else the brief labels with entries dropped from the end, never one
 * marked keep. */
void draw_keybar(const struct ui_state *s, const struct draw_key *k, int n);
/* The rows a draw_lines() call could not show (its largest useful
 * scroll), since the last draw_begin(). */
void draw_begin(void);
int draw_overflow(void);
/* Appends a formatted line to lines[*n], up to UI_MAX_LINES (past them,
 * the last line becomes DRAW_MORE_LINES); a line longer than UI_LINE - 1
 * bytes goes on in the next ones, cut at blanks and indented as its first
 * (wrap.h), never cut off. */
void draw_addl(char lines[][UI_LINE], int *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* draw_addl of lead then text (each line is wrapped to the screen when
 * drawn, its continuation rows under its text). */
void draw_addtext(char lines[][UI_LINE], int *n, const char *lead,
		  const char *text);
/* A sparkline of the values (Unicode blocks where the locale allows, else
 * ASCII). */
void draw_sparkline(const int64_t *v, unsigned n, char *out, size_t cap,
		    bool unicode);
bool draw_unicode_ok(void);

#endif

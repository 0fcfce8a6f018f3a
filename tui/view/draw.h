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
/* Text wrapped at word boundaries into at most n lines from y. */
void draw_wrapped(int y, int x, int n, attr_t a, const char *text);
/* A title, then lines, each wrapped to the screen's width, and a key bar. */
void draw_lines(const struct ui_state *s, const char *title,
		const char lines[][UI_LINE], int n, const char *keys);
/* The bottom line: the keys this screen answers. */
void draw_keys(const struct ui_state *s, const char *keys);
/* Appends a formatted line to lines[*n], up to UI_MAX_LINES. */
void draw_addl(char lines[][UI_LINE], int *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A sparkline of the values (Unicode blocks where the locale allows, else
 * ASCII). */
void draw_sparkline(const int64_t *v, unsigned n, char *out, size_t cap,
		    bool unicode);
bool draw_unicode_ok(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * How text is wrapped on every screen, pure (no curses), so a unit test
 * checks that nothing is lost (tests/unit/test_wrap.c): rows break at
 * blanks, a word longer than the row is split rather than dropped, and
 * the rows after the first start under the text, not at column 0 (a
 * line's hanging indent: its leading blanks and a list marker such as
 * "2. " or "- ").
 */
#ifndef TSCTUI_VIEW_WRAP_H
#define TSCTUI_VIEW_WRAP_H

/* Below this many columns of text a hanging indent is dropped. */
#define WRAP_MIN_TEXT 20

/* The columns a line's continuation rows are indented by. */
int wrap_hang(const char *text);
/* The length of p's first row at width w, and in *next where the row after
 * it starts (blanks between the two dropped). */
int wrap_row(const char *p, int w, const char **next);
/* The indent of text's continuation rows at width w: wrap_hang, or 0
 * where that would leave fewer than WRAP_MIN_TEXT columns. */
int wrap_indent(const char *text, int w);
/* The rows text takes at width w (at least 1). */
int wrap_rows(const char *text, int w);
/* The status line's rows on a terminal of cols x lines: what text takes,
 * up to half the lines above the key bar, and never fewer than
 * WRAP_STATUS_ROWS.  The message is there until the next key, and half
 * holds every action's message whole from 60x15 up (a refusal with its
 * way out takes up to six rows at 60 columns: tests/unit/test_hint.c);
 * three rows, the old cap, cut it. */
#define WRAP_STATUS_ROWS 3
int wrap_status_rows(const char *text, int cols, int lines);

#endif

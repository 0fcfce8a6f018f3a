/* SPDX-License-Identifier: MIT */
/*
 * Lines of blank-separated words (kernel command lines, the stage's
 * options): the one tokeniser, and the editor kernel-arg uses.  Pure
 * functions, unit-tested.  Blanks are space, tab and newline.
 */
#ifndef TSCTUI_UTIL_WORDS_H
#define TSCTUI_UTIL_WORDS_H

#include <stdbool.h>
#include <stddef.h>

/* The first word at or after s, its length in *len; NULL when none is
 * left.  Walk a line with: for (w = line; (w = words_next(w, &n)); w += n) */
const char *words_next(const char *s, size_t *len);
/* Does the word w (n bytes) start with prefix?  Prefixes such as "tsc=". */
bool words_starts(const char *w, size_t n, const char *prefix);
bool words_has(const char *line, const char *word);
/* Appends the word w (n bytes) to the line in buf (cap bytes), with a
 * space between words; a word that does not fit is cut. */
void words_append(char *buf, size_t cap, const char *w, size_t n);
/* line with word appended unless present, or without every copy of it;
 * single spaces between words.  A malloc'd string sized from line (free
 * it), never cut; NULL only when memory runs out. */
char *words_add(const char *line, const char *word);
char *words_remove(const char *line, const char *word);
/* line without every word that starts with one of prefixes (a NULL-ended
 * list), single spaces between words; malloc'd as above. */
char *words_remove_prefixed(const char *line, const char *const *prefixes);

#endif

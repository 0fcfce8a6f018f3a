/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "words.h"

#define BLANKS " \t\n"

const char *words_next(const char *s, size_t *len)
{
	s += strspn(s, BLANKS);
	*len = strcspn(s, BLANKS);
	return *len ? s : NULL;
}

bool words_starts(const char *w, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	return n >= p && memcmp(w, prefix, p) == 0;
}

static bool is(const char *w, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(w, word, n) == 0;
}

static bool has_prefix(const char *w, size_t n, const char *const *prefixes)
{
	for (; prefixes && *prefixes; prefixes++)
		if (words_starts(w, n, *prefixes))
			return true;
	return false;
}

bool words_has(const char *line, const char *word)
{
	const char *w;
	size_t n;

	for (w = line; (w = words_next(w, &n)); w += n)
		if (is(w, n, word))
			return true;
	return false;
}

void words_append(char *buf, size_t cap, const char *w, size_t n)
{
	size_t o = strlen(buf);

	if (o < cap)
		snprintf(buf + o, cap - o, "%s%.*s", o ? " " : "", (int)n, w);
}

/* The words of line except `skip` (NULL: none) and those starting with
 * one of prefixes (NULL: none), then `extra` (NULL: none), single spaces
 * between: malloc'd, room for all of them (the words are never longer
 * than line, plus a blank and extra). */
static char *copy_words(const char *line, const char *skip,
			const char *const *prefixes, const char *extra)
{
	size_t cap = strlen(line) + (extra ? strlen(extra) + 1 : 0) + 1;
	char *out = malloc(cap);
	const char *w;
	size_t n, o = 0;

	if (!out)
		return NULL;
	for (w = line; (w = words_next(w, &n)); w += n) {
		if ((skip && is(w, n, skip)) || has_prefix(w, n, prefixes))
			continue;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, w, n);
		o += n;
	}
	if (extra) {
		n = strlen(extra);
		if (o)
			out[o++] = ' ';
		memcpy(out + o, extra, n);
		o += n;
	}
	out[o] = '\0';
	return out;
}

char *words_add(const char *line, const char *word)
{
	return copy_words(line, NULL, NULL,
			  words_has(line, word) ? NULL : word);
}

char *words_remove(const char *line, const char *word)
{
	return copy_words(line, word, NULL, NULL);
}

char *words_remove_prefixed(const char *line, const char *const *prefixes)
{
	return copy_words(line, NULL, prefixes, NULL);
}

/* SPDX-License-Identifier: MIT */
#include <stdio.h>
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

/* Copies the words of line except `skip` (NULL: none) and those starting
 * with one of prefixes (NULL: none); stops at the first that does not
 * fit. */
static size_t copy_words(const char *line, const char *skip,
			 const char *const *prefixes, char *out, size_t cap)
{
	const char *w;
	size_t n, o = 0;

	out[0] = '\0';
	for (w = line; (w = words_next(w, &n)); w += n) {
		if ((skip && is(w, n, skip)) || has_prefix(w, n, prefixes))
			continue;
		if (o + n + 2 > cap)
			break;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, w, n);
		o += n;
		out[o] = '\0';
	}
	return o;
}

void words_add(const char *line, const char *word, char *out, size_t cap)
{
	size_t o = copy_words(line, NULL, NULL, out, cap);

	if (!words_has(line, word) && o + strlen(word) + 2 <= cap)
		snprintf(out + o, cap - o, "%s%s", o ? " " : "", word);
}

void words_remove(const char *line, const char *word, char *out, size_t cap)
{
	copy_words(line, word, NULL, out, cap);
}

void words_remove_prefixed(const char *line, const char *const *prefixes,
			   char *out, size_t cap)
{
	copy_words(line, NULL, prefixes, out, cap);
}

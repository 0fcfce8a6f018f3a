/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "cmdline.h"

static const char *next_word(const char *s, size_t *len)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	*len = strcspn(s, " \t\n");
	return *len ? s : NULL;
}

static bool is(const char *w, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(w, word, n) == 0;
}

bool cmdline_has(const char *line, const char *word)
{
	const char *w = line;
	size_t n;

	while ((w = next_word(w, &n))) {
		if (is(w, n, word))
			return true;
		w += n;
	}
	return false;
}

/* Copies the words of line except `skip` (NULL: none). */
static size_t copy_words(const char *line, const char *skip, char *out,
			 size_t cap)
{
	const char *w = line;
	size_t n, o = 0;

	out[0] = '\0';
	while ((w = next_word(w, &n))) {
		if (!skip || !is(w, n, skip)) {
			if (o + n + 2 > cap)
				break;
			if (o)
				out[o++] = ' ';
			memcpy(out + o, w, n);
			o += n;
			out[o] = '\0';
		}
		w += n;
	}
	return o;
}

void cmdline_add(const char *line, const char *word, char *out, size_t cap)
{
	size_t o = copy_words(line, NULL, out, cap);

	if (!cmdline_has(line, word) && o + strlen(word) + 2 <= cap)
		snprintf(out + o, cap - o, "%s%s", o ? " " : "", word);
}

void cmdline_remove(const char *line, const char *word, char *out,
		    size_t cap)
{
	copy_words(line, word, out, cap);
}

void cmdline_strip_boot_image(char *line)
{
	char out[4096];
	const char *w = line;
	size_t n, o = 0;

	while ((w = next_word(w, &n))) {
		if (strncmp(w, "BOOT_IMAGE=", 11) && strncmp(w, "initrd=", 7) &&
		    o + n + 2 < sizeof(out)) {
			if (o)
				out[o++] = ' ';
			memcpy(out + o, w, n);
			o += n;
		}
		w += n;
	}
	out[o] = '\0';
	strcpy(line, out);
}

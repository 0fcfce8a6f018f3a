/* SPDX-License-Identifier: MIT */
/* Kernel command lines as words: pure functions, unit-tested. */
#ifndef TSCTUI_ACTION_CMDLINE_H
#define TSCTUI_ACTION_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

bool cmdline_has(const char *line, const char *word);
/* line with word appended unless present, or without every copy of it;
 * single spaces between words. */
void cmdline_add(const char *line, const char *word, char *out, size_t cap);
void cmdline_remove(const char *line, const char *word, char *out,
		    size_t cap);
/* Drops BOOT_IMAGE=... and initrd=... that boot loaders add, in place. */
void cmdline_strip_boot_image(char *line);

#endif

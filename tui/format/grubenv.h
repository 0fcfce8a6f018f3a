/* SPDX-License-Identifier: MIT */
/*
 * GRUB's environment block: exactly 1024 bytes, the line
 * "# GRUB Environment Block", then name=value lines, then '#' padding.
 * The editor keeps every line it does not own byte for byte and appends new
 * variables after the last one, as grub-editenv does.  A block that is not
 * exactly that is corrupt and is never written.
 */
#ifndef TSCTUI_FORMAT_GRUBENV_H
#define TSCTUI_FORMAT_GRUBENV_H

#include <stdbool.h>
#include <stddef.h>

#define GRUBENV_SIZE 1024
#define GRUBENV_HEADER "# GRUB Environment Block\n"
#define GRUBENV_MAX_VARS 64

struct grubenv {
	size_t n;
	char *name[GRUBENV_MAX_VARS];
	char *value[GRUBENV_MAX_VARS];
};

/* Parses a block; false (and *why) when it is not a valid 1024-byte one. */
bool grubenv_parse(const char *data, size_t len, struct grubenv *env,
		   const char **why);
/* What can still be read from a corrupt block (any length, no header,
 * NULs, garbage): every line that is name=value with a name of letters,
 * digits and '_' and a value with no NUL or backslash, the first of each
 * name, up to GRUBENV_MAX_VARS.  Always succeeds. */
void grubenv_salvage(const char *data, size_t len, struct grubenv *env);
/* NULL when unset. */
const char *grubenv_get(const struct grubenv *env, const char *name);
/* Values must be one line without a backslash; false otherwise or when
 * the block is full. */
bool grubenv_set(struct grubenv *env, const char *name, const char *value);
void grubenv_unset(struct grubenv *env, const char *name);
/* Writes the 1024-byte block; false when the variables do not fit. */
bool grubenv_format(const struct grubenv *env, char out[GRUBENV_SIZE]);
void grubenv_free(struct grubenv *env);

#endif

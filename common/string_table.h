/* SPDX-License-Identifier: MIT */
/*
 * Enum <-> string from one table (systemd-boot's efi-string-table.h
 * pattern): a table of names indexed by the enum's values, and macros that
 * write both directions from it, so a name is spelled once.  Header only
 * and freestanding (common/ links no libc).
 *
 *   static const char *const mode_table[] = { [MODE_OFF] = "off", ... };
 *   STRING_TABLE_TO(mode_name, enum mode, mode_table, "?")
 *   STRING_TABLE_FROM_N(mode_from, enum mode, mode_table, 0)
 */
#ifndef TSC_STRING_TABLE_H
#define TSC_STRING_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#define STRING_TABLE_SIZE(t) (sizeof(t) / sizeof((t)[0]))

/* a (len bytes, not terminated) equals the string b. */
static inline bool string_table_eq(const char *a, size_t len, const char *b)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i] || !b[i])
			return false;
	return b[len] == '\0';
}

static inline size_t string_table_len(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* const char *func(type v): its name, or fallback outside the table. */
#define STRING_TABLE_TO(func, type, table, fallback)                           \
	const char *func(type v)                                               \
	{                                                                      \
		return (size_t)v < STRING_TABLE_SIZE(table) && (table)[v]      \
			       ? (table)[v]                                    \
			       : (fallback);                                   \
	}

/* bool func(const char *s, size_t len, type *out): the value whose name
 * s is, looked up from index first on (a "none" at 0 can be left out);
 * false, *out untouched, for any other word. */
#define STRING_TABLE_FROM_N(func, type, table, first)                          \
	bool func(const char *s, size_t len, type *out)                        \
	{                                                                      \
		size_t i;                                                      \
                                                                               \
		for (i = (first); s && i < STRING_TABLE_SIZE(table); i++)      \
			if ((table)[i] &&                                      \
			    string_table_eq(s, len, (table)[i])) {             \
				*out = (type)i;                                \
				return true;                                   \
			}                                                      \
		return false;                                                  \
	}

/* The same for a NUL-terminated s: bool func(const char *s, type *out). */
#define STRING_TABLE_FROM(func, type, table, first)                            \
	bool func(const char *s, type *out)                                    \
	{                                                                      \
		size_t i;                                                      \
                                                                               \
		for (i = (first); s && i < STRING_TABLE_SIZE(table); i++)      \
			if ((table)[i] &&                                      \
			    string_table_eq(s, string_table_len(s),            \
					    (table)[i])) {                     \
				*out = (type)i;                                \
				return true;                                   \
			}                                                      \
		return false;                                                  \
	}

#endif

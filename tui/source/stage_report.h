/* SPDX-License-Identifier: MIT */
/*
 * The stage's report as tsctui finds it: the raw variable contents, an
 * efivarfs file (4 bytes of attributes, then the contents), or a console log
 * holding one or more blocks between the stage's begin and end lines.
 */
#ifndef TSCTUI_SOURCE_STAGE_REPORT_H
#define TSCTUI_SOURCE_STAGE_REPORT_H

#include <stddef.h>

#include "../../common/report.h"
#include "../../common/report_var.h"

struct report_block {
	size_t pos, len; /* within the cleaned text */
};

/*
 * Finds the reports in data: the whole of it when it is a raw report or an
 * efivarfs file, else every begin/end block of a console log.  Cleans the
 * text in place first (terminal escape sequences and carriage returns out),
 * so data must be writable.  Returns the number of blocks it kept: the
 * last max of them (the newest), oldest first.  A block takes at least
 * REPORT_BLOCK_MIN bytes of data, so len / REPORT_BLOCK_MIN + 1 blocks
 * hold them all.
 */
#define REPORT_BLOCK_MIN (sizeof(TSC_REPORT_BEGIN) + sizeof(TSC_REPORT_END) - 1)
size_t report_find(char *data, size_t *len, struct report_block *blocks,
		   size_t max);

/* This boot's stage report, from the TsctuiReport variable (libefivar on
 * the live system, the efivarfs file under another root): 1 parsed into *r
 * (and, with text, the report's text, malloc'd, in *text), 0 absent, -1 not
 * a valid report. */
int stage_report_read(const char *root, struct tsc_report *r, char **text,
		      size_t *text_len);

#endif

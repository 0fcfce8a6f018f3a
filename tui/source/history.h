/* SPDX-License-Identifier: MIT */
#ifndef TSCTUI_SOURCE_HISTORY_H
#define TSCTUI_SOURCE_HISTORY_H

#include <stddef.h>

#define HISTORY_MAX 4096

struct hist_row {
	char boot_id[64], bios[64], mode[16], result[32], ppm[32], cs[32];
	long long time, warp;
	const char *source; /* "tsctui" or "journal" */
};

/* One row as a table line, and the table's header: for `tsctui history`
 * and the dashboard alike. */
void history_header(char *out, size_t cap);
void history_row_text(const struct hist_row *r, char *out, size_t cap);

/* The BIOS version of the most recent boot tsctui recorded with the stage
 * in sync mode (for the diagnosis); "" when none.  why: "" or, when the
 * record is there and cannot be read (too large, say), the one line. */
void history_last_sync_bios(const char *root, char *bios, size_t cap, char *why,
			    size_t wcap);

/* What a boot's kernel log says, as a history record keeps it: the first
 * warp's cycles (0 none) and the first watchdog skew's ppm ("-" none). */
struct klog;
void history_kernel_facts(const struct klog *k, long long *warp, char *ppm,
			  size_t cap);

/* The newest max rows (all when fewer), oldest first; 0 when nothing is
 * recorded anywhere.  *dropped: how many older ones were left out.  why:
 * "" or, when tsctui's record is there and cannot be read (larger than
 * 64 MiB, say), the one line (0 rows then: the journal does not stand in
 * for a record that exists). */
int history_rows(const char *root, struct hist_row *rows, int max, int *dropped,
		 char *why, size_t wcap);

#endif

/* SPDX-License-Identifier: MIT */
#ifndef TSCTUI_SOURCE_HISTORY_H
#define TSCTUI_SOURCE_HISTORY_H

#define HISTORY_MAX 4096

struct hist_row {
	char boot_id[40], bios[64], mode[16], result[24], ppm[24], cs[32];
	long long time, warp;
	const char *source; /* "tsctui" or "journal" */
};

/* Up to max rows, oldest first; 0 when nothing is recorded anywhere. */
int history_rows(const char *root, struct hist_row *rows, int max);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The boot history file, one record per boot: written by boot-ok
 * (action/boot_ok.c), read by `tsctui history`, the dashboard and the
 * diagnosis (source/history.c).  A record is one line of tab-separated
 * key=value fields (a BIOS version has spaces in it); a reader skips keys
 * it does not know, so a field can be added.  Pure: no I/O.
 */
#ifndef TSCTUI_FORMAT_HISTORY_RECORD_H
#define TSCTUI_FORMAT_HISTORY_RECORD_H

#include <stddef.h>

/* Under the root, in tsctui's state directory (action/act.h). */
#define HISTORY_RECORD_FILE "/var/lib/tsctui/history"

/* Room for one formatted record: the fields' buffers below, their keys
 * and separators, with space to spare. */
#define HISTORY_RECORD_LINE_MAX 1024

struct history_record {
	char boot_id[64];		/* "-" unknown */
	long long time;			/* seconds since the epoch */
	char bios_version[64];		/* "-" unknown */
	char bios_date[32];		/* "-" unknown */
	long long bootloader_launch_ns; /* FPDT; -1 unknown */
	char stage_mode[16];   /* off | measure | sync, "-" no report */
	char stage_result[32]; /* the report's result, "-" no report */
	long long warp_cycles; /* the kernel's first warp; 0 none */
	char watchdog_ppm[32]; /* the watchdog's first skew, "%.1f"; "-" */
	char clocksource[32];  /* "-" unknown */
};

/* The record as one line, newline included; empty text is written "-". */
void history_record_format(const struct history_record *r, char *line,
			   size_t cap);
/* One line (without its newline) into *r; line is cut up in place.
 * Fields the line lacks are left empty (0 for numbers). */
void history_record_parse(char *line, struct history_record *r);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Past boots' kernel messages from the systemd journal, through sd-journal
 * (never by parsing journalctl's output), grouped by boot and parsed by the
 * same kernel-log parser.  For history when tsctui's own is empty.
 */
#ifndef TSCTUI_SOURCE_JOURNAL_H
#define TSCTUI_SOURCE_JOURNAL_H

#include <stddef.h>

#include "kernlog.h"

struct journal_boot {
	char boot_id[40];
	long long first_us; /* realtime of its first kernel message */
	char bios[64];	    /* from the kernel's "DMI: ..., BIOS X" line */
	struct klog *klog;
};

/* dir NULL: this system's journal; else the journal files under dir.
 * Returns 0 (possibly with no boots) or -1 with *err. */
int journal_boots(const char *dir, struct journal_boot **boots, size_t *n,
		  const char **err);
void journal_free(struct journal_boot *boots, size_t n);

/* "DMI: LENOVO 20NE/20NE, BIOS R11ET36W (1.28 ) 06/30/2023" -> the BIOS
 * version "R11ET36W (1.28 )"; "" when the line has none. */
void journal_dmi_bios_version(const char *msg, char *out, size_t cap);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Past boots' kernel messages from the systemd journal, through sd-journal
 * (never by parsing journalctl's output), grouped by boot and parsed by the
 * same kernel-log parser.  For history when tsctui's own is empty.
 */
#ifndef TSCTUI_SOURCE_JOURNAL_H
#define TSCTUI_SOURCE_JOURNAL_H

#include <stddef.h>
#include <systemd/sd-journal.h>

#include "kernlog.h"

struct journal_boot {
	char boot_id[40];
	long long first_us; /* realtime of its first kernel message */
	char bios[64];	    /* from the kernel's "DMI: ..., BIOS X" line */
	struct klog *klog;
};

/* dir NULL: this system's journal (local only); else the journal files
 * under dir, a path under a root (path_under), its directory opened by
 * the resolver so that a link there does not lead to this machine's
 * journal.  0, or -1 when there is none to open; journal_close ends it. */
int journal_open(const char *dir, sd_journal **j, int *dfd);
void journal_close(sd_journal *j, int dfd);
/* One field of the entry the journal stands at, cut to fit cap; -1 if
 * the entry has none. */
int journal_field(sd_journal *j, const char *name, char *out, size_t cap);

/* dir NULL: this system's journal; else the journal files under dir.
 * Returns 0 (possibly with no boots) or -1 with *err. */
int journal_boots(const char *dir, struct journal_boot **boots, size_t *n,
		  const char **err);
void journal_free(struct journal_boot *boots, size_t n);

/* "DMI: LENOVO 20NE/20NE, BIOS R11ET36W (1.28 ) 06/30/2023" -> the BIOS
 * version "R11ET36W (1.28 )"; "" when the line has none. */
void journal_dmi_bios_version(const char *msg, char *out, size_t cap);

#endif

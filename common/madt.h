/* SPDX-License-Identifier: MIT */
/*
 * Which CPUs Linux will start: the ACPI MADT's enabled Local APIC and
 * Local x2APIC entries.  Linux follows this table, not MP services'
 * StatusFlag, so a CPU the table lists and the stage did not measure is one
 * whose counter nobody looked at (docs/DESIGN.md 3.4).
 */
#ifndef TSCTUI_COMMON_MADT_H
#define TSCTUI_COMMON_MADT_H

#include "tsc.h"

struct tsc_madt {
	uint32_t n;		   /* enabled entries, all of them counted */
	uint32_t id[TSC_MAX_CPUS]; /* the first TSC_MAX_CPUS of their IDs */
};

/*
 * Parses a whole MADT (signature "APIC", its header's length, a checksum
 * that sums to 0).  Entries of type 0 (Local APIC, 8 bits of ID) and 9
 * (Local x2APIC) with flag bit 0 (Enabled) count; online-capable ones
 * are hot-plug slots Linux does not start at boot, and the IDs 0xff and
 * 0xffffffff are "none".  0, or -1 when the table is malformed.
 */
int tsc_madt_parse(const void *table, size_t len, struct tsc_madt *out);

/* The first ID the table lists that is not among ids[0..n); false when
 * every one of them is (or the table listed more than it keeps). */
bool tsc_madt_missing(const struct tsc_madt *m, const uint32_t *ids, uint32_t n,
		      uint32_t *missing);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Other TSC fixers on the managed system (fixers.c): Zanasin/tscsync, a
 * pre-boot stage like tsctui's (`install --migrate` takes over its job,
 * action/migrate.h), and limenode/tscsync, a user-space tool whose
 * systemd units write the TSC MSRs at boot and after each resume and
 * which needs tsc=reliable, so the kernel no longer tests the TSC.
 * Found by their files; status and the dashboard explain them.
 */
#ifndef TSCTUI_SOURCE_FIXERS_H
#define TSCTUI_SOURCE_FIXERS_H

#include <stdbool.h>

#define FIXERS_MAX_UNITS 4

struct sys_fixers {
	bool zanasin;	     /* Zanasin/tscsync's stage is in the boot path */
	char zanasin_at[96]; /* the first of its files found */
	bool limenode;	     /* limenode/tscsync is installed */
	int nunits;	     /* its units found */
	char units[FIXERS_MAX_UNITS][48];
	bool unit_enabled[FIXERS_MAX_UNITS]; /* linked from a .wants dir */
};

void fixers_read(const char *root, struct sys_fixers *f);

#endif

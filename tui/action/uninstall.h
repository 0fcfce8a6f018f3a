/* SPDX-License-Identifier: MIT */
/*
 * What uninstall.c (the ledger's replay) and uninstall_sweep.c (--force:
 * tsctui's artefacts found by what they are) share.  Internal to the two.
 */
#ifndef TSCTUI_ACTION_UNINSTALL_H
#define TSCTUI_ACTION_UNINSTALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "act.h"

struct tsctui_conf;

/* Where an ESP and a grubenv may be, when tsctui.conf no longer says. */
extern const char *const uninstall_esp_places[];
extern const char *const uninstall_grubenv_places[];

/* Does the grubenv at sys (under the root) hold a tsctui_* variable? */
bool uninstall_has_stage_vars(struct act *a, const char *sys);
/* Is an efivarfs file name a firmware boot entry (Boot#### under the
 * global GUID)?  Its variable name, "Boot####", goes to name. */
bool uninstall_boot_entry(const char *file, char name[16]);
/* Does a firmware boot entry's load option name tsctui's image? */
bool uninstall_loads_tsctui(const uint8_t *d, size_t n);
/* How many of tsctui's artefacts are still in place, nothing said. */
size_t uninstall_leftovers_quiet(struct act *a, const struct tsctui_conf *c);
/* The one line when something of tsctui's is still here (its list in the
 * notes); 0 when nothing is. */
int uninstall_say_left(struct act *a, const struct tsctui_conf *c,
		       const char *lead, const char *way_out);
/* --force's sweep (uninstall_sweep.c): damaged names why the ledger could
 * not be used (NULL: it was replayed, or missing); known the
 * configuration, replayed whether a replay ran first. */
int uninstall_sweep(struct act *a, bool purge, const char *damaged,
		    const struct tsctui_conf *known, bool replayed);

#endif

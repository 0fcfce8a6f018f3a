/* SPDX-License-Identifier: MIT */
/*
 * The stage's mode and hang guard, written where the installed boot path
 * keeps them (the layout, and the reading half: source/stage_state.h):
 * the ESP's files here, GRUB's grubenv variables in grub.c.
 */
#ifndef TSCTUI_ACTION_STAGECFG_H
#define TSCTUI_ACTION_STAGECFG_H

#include <stdbool.h>

#include "act.h"
#include "../source/config.h"
#include "../source/stage_state.h"

/* Sets mode and options (replacing them); with reset, also clears the
 * guard: every marker, and the strikes.  By the loader's state_write
 * (loader_writing.h): grub.c's, or the ESP's below. */
int stagecfg_write(struct act *a, const struct tsctui_conf *c,
		   enum tsc_mode mode, const char *options, bool reset);
int stagecfg_esp_write(struct act *a, const struct tsctui_conf *c,
		       enum tsc_mode mode, const char *options, bool reset);
/* boot-ok: this boot reached Linux.  Clears pending (an older GRUB block
 * leaves it set) and the hibernation marker; confirms a sync boot (strikes
 * back to 0) or counts a probation boot's strike, tripping the guard at
 * GUARD_MAX_STRIKES.  *strikes_out: the count afterwards, or -1 when this
 * boot neither confirmed nor struck. */
int stagecfg_boot_ok(struct act *a, const struct tsctui_conf *c,
		     int *strikes_out);
/* The ESP's, for the systemd-boot driver's and the firmware entry's
 * boot_ok (GRUB's is in grub.c). */
int stagecfg_esp_boot_ok(struct act *a, const struct tsctui_conf *c,
			 int *strikes_out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The stage's mode and hang guard where the installed boot path keeps them
 * (ARCHITECTURE 4.2, DESIGN.md 7.1): grubenv variables tsctui_mode,
 * tsctui_options, tsctui_pending, tsctui_tripped, tsctui_synced,
 * tsctui_probation, tsctui_strikes for GRUB; the files options, pending,
 * disabled, synced, probation, strikes and hibernated in ESP/EFI/tsctui/
 * for systemd-boot and the firmware entry.
 */
#ifndef TSCTUI_ACTION_STAGECFG_H
#define TSCTUI_ACTION_STAGECFG_H

#include <stdbool.h>

#include "act.h"
#include "config.h"

#define ESP_STATE_DIR "/EFI/tsctui"

/* A sync boot not confirmed by Linux, followed by a write-free boot that
 * was: a strike.  This many trip the guard (systemd's boot assessment
 * gives an entry 3 tries too). */
#define GUARD_MAX_STRIKES 3

/* The hang guard's markers, as the boot path keeps them. */
struct guard_marks {
	bool pending;	 /* the stage started and has not returned */
	bool tripped;	 /* disabled / tsctui_tripped */
	bool synced;	 /* a sync run wrote; Linux has not confirmed it */
	bool probation;	 /* this boot measured only, after an unconfirmed sync */
	bool hibernated; /* ESP: the sleep hook's marker (DESIGN.md 7.1) */
	int strikes;
};

/* The ESP state files the guard may leave, for reset and uninstall. */
extern const char *const stagecfg_guard_files[];
/* The grubenv variables tsctui owns, for uninstall. */
extern const char *const stagecfg_grub_vars[];

struct stage_state {
	char mode[16];	     /* off | measure | sync */
	char options[256];   /* extra tokens */
	char guard[16];	     /* clear | pending | tripped */
	char since[32];	     /* when the guard changed, if known */
	struct guard_marks marks;
};

/* The ESP path of a state file ("options", "pending", "disabled"). */
void stagecfg_esp_file(const struct tsctui_conf *c, const char *name,
		       char *out, size_t cap);
int stagecfg_read(const char *root, const struct tsctui_conf *c,
		  struct stage_state *s, const char **why);
/* Sets mode and options (replacing them); with reset, also clears the
 * guard: every marker, and the strikes. */
int stagecfg_write(struct act *a, const struct tsctui_conf *c,
		   const char *mode, const char *options, bool reset);
/* boot-ok: this boot reached Linux.  Clears pending (an older GRUB block
 * leaves it set) and the hibernation marker; confirms a sync boot (strikes
 * back to 0) or counts a probation boot's strike, tripping the guard at
 * GUARD_MAX_STRIKES.  *strikes_out: the count afterwards, or -1 when this
 * boot neither confirmed nor struck. */
int stagecfg_boot_ok(struct act *a, const struct tsctui_conf *c,
		     int *strikes_out);

/* Reads and parses the grubenv; -1 (and an error in a) when corrupt. */
struct grubenv;
int stagecfg_grubenv(struct act *a, const struct tsctui_conf *c,
		     struct grubenv *env, bool *exists);
int stagecfg_grubenv_write(struct act *a, const struct tsctui_conf *c,
			   const struct grubenv *env);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The stage's mode and hang guard where the installed boot path keeps them
 * (ARCHITECTURE 4.2, DESIGN.md 7.1), read: grubenv variables tsctui_mode,
 * tsctui_options, tsctui_pending, tsctui_tripped, tsctui_synced,
 * tsctui_probation, tsctui_strikes for GRUB; the files options, pending,
 * disabled, synced, probation, strikes and hibernated in ESP/EFI/tsctui/
 * for systemd-boot and the firmware entry.  The writing half is
 * action/grub.c for GRUB's grubenv and action/stagecfg.c for the ESP's
 * files.
 */
#ifndef TSCTUI_SOURCE_STAGE_STATE_H
#define TSCTUI_SOURCE_STAGE_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/tsc.h"
#include "boot_id.h"
#include "config.h"

#define ESP_STATE_DIR "/EFI/tsctui"

/* A sync boot not confirmed by Linux, followed by a write-free boot that
 * was: a strike.  This many trip the guard (systemd's boot assessment
 * gives an entry 3 tries too). */
#define GUARD_MAX_STRIKES 3
/* A probation boot that never reached Linux (its marker found at the next
 * armed run): counted in GUARD_LOST_FLAGS flags (lost1.., tsctui_lost1..:
 * GRUB has no arithmetic); the next one, the GUARD_MAX_LOST-th, trips. */
#define GUARD_LOST_FLAGS 4
#define GUARD_MAX_LOST (GUARD_LOST_FLAGS + 1)

/* Room for one error sentence naming a file and what is wrong with it. */
#define STAGE_STATE_ERR_MAX 1024

/* The hang guard's markers, as the boot path keeps them. */
struct guard_marks {
	bool pending;	/* the stage started and has not returned */
	bool tripped;	/* disabled / tsctui_tripped */
	bool synced;	/* a sync run wrote; Linux has not confirmed it */
	bool probation; /* this boot measured only, after an unconfirmed sync */
	bool hibernated; /* ESP: the sleep hook's marker (DESIGN.md 7.1) */
	/* The stage's tsctui_resume variable: a resume boot's stage started
	 * and has not returned cleanly; the next boot that is not a resume
	 * trips the guard (DESIGN.md 7.1).  Every loader. */
	bool resume;
	int strikes;
	int lost; /* probation boots that never reached Linux, in a row */
};

/* The ESP state files the guard may leave, for reset and uninstall. */
extern const char *const stage_state_guard_files[];
/* The GRUB path's channel the stage keeps (efi/main.c): its markers, in
 * the subdirectory STAGE_STATE_RUN_DIR under ESP_STATE_DIR. */
#define STAGE_STATE_RUN_DIR "run"
extern const char *const stage_state_run_files[];
/* The grubenv variables tsctui owns, for uninstall. */
extern const char *const stage_state_grub_vars[];
/* The lost-probation flags, by count - 1: ESP files, grubenv variables. */
extern const char *const stage_state_lost_files[GUARD_LOST_FLAGS];
extern const char *const stage_state_lost_vars[GUARD_LOST_FLAGS];

/* The guard as a word: tripped (disabled), pending (a start or a sync not
 * yet confirmed by Linux), clear. */
enum guard_state { GUARD_CLEAR, GUARD_PENDING, GUARD_TRIPPED };

/* "clear", "pending", "tripped": one table, by the enum.  Nothing reads a
 * guard back from its word, so the reverse lookup is not written. */
const char *stage_state_guard_name(enum guard_state g);

/* systemd's HibernateLocation variable (vendor GUID below): the stage on
 * the ESP paths takes every boot for a resume while it exists (it writes
 * nothing on the ESP; its guard is the tsctui_resume variable).  none:
 * absent; current:
 * present while a hibernation is under way (the sleep hook's hibernated
 * marker is on the ESP); stale: present with no hibernation under way
 * (systemd 253/254 can leave one after a resume that did not happen). */
#define GUID_SYSTEMD_HIBERNATE "8cf2644b-4b0b-428f-9387-6d876050dc67"
enum hib_location { HIB_NONE, HIB_CURRENT, HIB_STALE };
const char *stage_state_hib_name(enum hib_location h);

/* Does the loader record the entry booted last, which lets the stage (or
 * GRUB's block) tell another system's boot from a Linux boot that failed
 * (DESIGN.md 7.1)?  systemd-boot: `default @saved` in loader/loader.conf on
 * the ESP; GRUB: GRUB_SAVEDEFAULT=true in /etc/default/grub or a
 * /etc/default/grub.d/ *.cfg (the last assignment wins, as grub-mkconfig
 * sources them); the firmware entry has no such setting. */
enum last_boot { LAST_BOOT_NO_SETTING, LAST_BOOT_SET, LAST_BOOT_UNSET };

struct stage_state {
	enum tsc_mode mode; /* TSC_MODE_OFF too when the word names none */
	bool mode_known;    /* mode_word names a mode */
	char mode_word[16]; /* as the boot path keeps it: shown, not compared */
	char options[256];  /* extra tokens */
	enum guard_state guard;
	char since[32]; /* when the guard changed, if known */
	struct guard_marks marks;
	enum hib_location hibernate_location;
	enum last_boot last_boot;
};

/* The ESP path of a state file ("options", "pending", "disabled"). */
void stage_state_esp_file(const struct tsctui_conf *c, const char *name,
			  char *out, size_t cap);
/* The mode, options and guard, where the loader's boot path keeps them
 * (its state_read, loader.h); 0, or -1 with *why (a static buffer). */
int stage_state_read(const char *root, const struct tsctui_conf *c,
		     struct stage_state *s, const char **why);
/* The two places: the grubenv (GRUB), the ESP's files (systemd-boot and
 * the firmware entry); 0, or -1 with the sentence in err. */
int stage_state_read_grub(const char *root, const struct tsctui_conf *c,
			  struct stage_state *s, char *err);
int stage_state_read_esp(const char *root, const struct tsctui_conf *c,
			 struct stage_state *s, char *err);

/* The pieces the writing half builds on; each returns 0, or -1 with the
 * sentence to show in err (STAGE_STATE_ERR_MAX bytes). */
struct grubenv;
/* Reads and parses the grubenv; *exists false (and 0) when it is absent. */
int stage_state_grubenv(const char *root, const struct tsctui_conf *c,
			struct grubenv *env, bool *exists, char *err);
int stage_state_grub_marks(const struct tsctui_conf *c,
			   const struct grubenv *env, struct guard_marks *m,
			   char *err);
/* boot: the boot_id the strikes file last counted, or "". */
int stage_state_esp_marks(const char *root, const struct tsctui_conf *c,
			  struct guard_marks *m, char boot[BOOT_ID_MAX],
			  char *err);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The stage's mode and hang guard where the installed boot path keeps them
 * (ARCHITECTURE 4.2): grubenv variables tsctui_mode, tsctui_options,
 * tsctui_pending, tsctui_tripped for GRUB; the files options, pending and
 * disabled in ESP/EFI/tsctui/ for systemd-boot and the firmware entry.
 */
#ifndef TSCTUI_ACTION_STAGECFG_H
#define TSCTUI_ACTION_STAGECFG_H

#include <stdbool.h>

#include "act.h"
#include "config.h"

#define ESP_STATE_DIR "/EFI/tsctui"

struct stage_state {
	char mode[16];	     /* off | measure | sync */
	char options[256];   /* extra tokens */
	char guard[16];	     /* clear | pending | tripped */
	char since[32];	     /* when the guard changed, if known */
};

/* The ESP path of a state file ("options", "pending", "disabled"). */
void stagecfg_esp_file(const struct tsctui_conf *c, const char *name,
		       char *out, size_t cap);
int stagecfg_read(const char *root, const struct tsctui_conf *c,
		  struct stage_state *s, const char **why);
/* Sets mode and options (replacing them); with reset, also clears the
 * guard (pending and tripped). */
int stagecfg_write(struct act *a, const struct tsctui_conf *c,
		   const char *mode, const char *options, bool reset);
/* boot-ok: this boot reached Linux, so it was not a hung one. */
int stagecfg_clear_pending(struct act *a, const struct tsctui_conf *c);

/* Reads and parses the grubenv; -1 (and an error in a) when corrupt. */
struct grubenv;
int stagecfg_grubenv(struct act *a, const struct tsctui_conf *c,
		     struct grubenv *env, bool *exists);
int stagecfg_grubenv_write(struct act *a, const struct tsctui_conf *c,
			   const struct grubenv *env);

#endif

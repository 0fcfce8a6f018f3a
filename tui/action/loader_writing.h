/* SPDX-License-Identifier: MIT */
/*
 * What differs between the loaders when tsctui changes the system: the
 * writing half of each loader's table (the reading half, and the type:
 * source/loader.h), one file each: grub.c, sdboot.c, efi_entry.c.
 * install, uninstall and the stage state's writers go through it.
 */
#ifndef TSCTUI_ACTION_LOADER_WRITING_H
#define TSCTUI_ACTION_LOADER_WRITING_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/tsc.h"
#include "../source/config.h"
#include "act.h"
#include "actions.h"

struct loader_writing {
	/* install, before the first write: what this loader needs found and
	 * checked (GRUB: the grubenv and its file system).  NULL: nothing. */
	int (*prepare)(struct act *a, struct tsctui_conf *c);
	/* install: the stage's image and state, and what starts it; fresh:
	 * no earlier install (its state starts in measure mode, guard
	 * clear; a repeated install leaves the user's mode alone). */
	int (*place)(struct act *a, struct tsctui_conf *c,
		     const struct install_opts *o, const char *image,
		     size_t len, bool fresh);
	/* After install's ledger is saved and after uninstall's replay: the
	 * loader's generated configuration (grub.cfg).  NULL: none. */
	int (*regenerate)(struct act *a);
	/* uninstall, first: a file the replay must not restore byte for
	 * byte (the grubenv, which GRUB writes too).  NULL: none. */
	int (*settle)(struct act *a, const struct tsctui_conf *c);
	/* The stage's mode and guard (stagecfg.h). */
	int (*state_write)(struct act *a, const struct tsctui_conf *c,
			   enum tsc_mode mode, const char *options, bool reset);
	int (*boot_ok)(struct act *a, const struct tsctui_conf *c,
		       int *strikes_out);
	/* Secure Boot: the firmware itself checks the image against db
	 * (a MOK key is worth a warning), and refuses a MOK-signed one
	 * outright (nothing but the firmware ever checks it). */
	bool firmware_checks;
	bool mok_refused;
};

extern const struct loader_writing grub_writing, sdboot_writing,
	efi_entry_writing;

/* grub.cfg from the distribution's tool (live system), or the command to
 * run inside the target (another --root): grub_writing's regenerate, which
 * kernel-arg's GRUB drop-in needs too. */
int grub_regenerate(struct act *a);

/* The writing half of an installed loader (not LOADER_NONE). */
const struct loader_writing *loader_writing(enum loader l);

#endif

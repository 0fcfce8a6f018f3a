/* SPDX-License-Identifier: MIT */
/* The actions that change the system (ARCHITECTURE 4.3), one file each
 * (install.c, uninstall.c, mode.c, guard.c, boot_ok.c, kernel_arg.c); the
 * CLI and the dashboard both call these.  Each returns 0, or -1 with
 * a->error set and the system as it was. */
#ifndef TSCTUI_ACTION_ACTIONS_H
#define TSCTUI_ACTION_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/tsc.h"
#include "../source/loader.h"
#include "act.h"

/* kernel-arg's GRUB drop-in (uninstall looks for it too). */
#define KERNEL_ARG_DROPIN "/etc/default/grub.d/tsctui-nowatchdog.cfg"

struct install_opts {
	/* The loader: the command line's word for it (refused here when
	 * unknown), else `loader` (the dashboard's choice); LOADER_NONE
	 * with no word: detect it. */
	const char *loader_word;
	enum loader loader;
	const char *esp;  /* NULL: detect; a path on the managed system */
	const char *next; /* efi-entry: Boot#### to start next */
	const char *key, *cert;
	bool migrate; /* take over Zanasin/tscsync's job (migrate.h) */
};

int install_run(struct act *a, const struct install_opts *o);
int uninstall_run(struct act *a, bool purge);
/* uninstall --force: also without a usable ledger, going by what is on
 * the disk (uninstall.c says what that is). */
int uninstall_force(struct act *a, bool purge);
/* After a failed action: the changes it could not undo, named (notes),
 * and the way out, uninstall, added to the error. */
void uninstall_left_by_failure(struct act *a);
/* mode off|measure|sync; sync on a CPU outside the supported list needs
 * allow_any (which is also passed to the stage). */
/* mode off|measure|sync: the command line's word, refused when unknown;
 * mode_set_to takes the mode itself (the dashboard). */
int mode_set(struct act *a, const char *mode, bool allow_any);
int mode_set_to(struct act *a, enum tsc_mode m, bool allow_any);
/* The stage's sync gate on the managed system's CPU: false with why. */
bool mode_sync_allowed(const char *root, bool allow_any, char *why, size_t cap);
int guard_reset(struct act *a, const char *mode);
int guard_reset_to(struct act *a, enum tsc_mode m);
int boot_ok_run(struct act *a);
/* kernel-arg nowatchdog on|off */
struct tsctui_conf;
int kernel_arg_set(struct act *a, const char *name, const char *onoff);
/* kernel-arg nowatchdog, on or off (the dashboard's k). */
int kernel_arg_nowatchdog(struct act *a, bool on);

#endif

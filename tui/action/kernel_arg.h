/* SPDX-License-Identifier: MIT */
/* Inside kernel-arg: what kernel_arg.c (tsc=nowatchdog on|off) and
 * kernel_arg_reliable.c (tsc=reliable off) share. */
#ifndef TSCTUI_ACTION_KERNEL_ARG_H
#define TSCTUI_ACTION_KERNEL_ARG_H

#include <stdbool.h>
#include <stddef.h>

#include "../source/config.h"
#include "act.h"

/* How kernel-arg changes the command line here: grubby (Fedora family),
 * Debian's grub.d drop-in plus update-grub, or BLS entries plus
 * /etc/kernel/cmdline, by the loader that starts Linux.  Fills c (the
 * configuration, or the detected loader and ESP); -1 with *why when
 * neither is known. */
enum karg_method { KARG_GRUBBY, KARG_GRUB_DROPIN, KARG_BLS };
int kernel_arg_method(struct act *a, struct tsctui_conf *c, enum karg_method *m,
		      const char **why, enum act_hint *hint);

/* tok out of (off) or into (on) every BLS entry's options; *carrying:
 * how many entries have it afterwards. */
int kernel_arg_edit_entries(struct act *a, const struct tsctui_conf *c,
			    const char *tok, bool on, size_t *carrying);
/* tok out of or into /etc/kernel/cmdline (seeded from /proc/cmdline). */
int kernel_arg_edit_cmdline(struct act *a, const char *tok, bool on);
/* kernel-arg reliable off (kernel_arg_reliable.c). */
int kernel_arg_reliable_off(struct act *a);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The kernel command line: this boot's (/proc/cmdline), the next boot's
 * as the boot configuration holds it (/etc/kernel/cmdline,
 * /etc/default/grub and its drop-ins), and kernel-arg's own setting.
 * action/kernel_arg.c changes them.
 */
#ifndef TSCTUI_SOURCE_KERNEL_CMDLINE_H
#define TSCTUI_SOURCE_KERNEL_CMDLINE_H

#include <stdbool.h>

/* kernel-arg nowatchdog on|off keeps its choice here ("on" or "off"), for
 * the kernel-install plugin and for uninstall. */
#define NOWATCHDOG_SETTING "/etc/tsctui/nowatchdog"

/* How many tsc= words are kept; the kernel takes several (tsc=reliable
 * tsc=nowatchdog), and more than four is not a configuration. */
#define CMDLINE_MAX_TSC 4
#define CMDLINE_VALUE_MAX 32

struct sys_cmdline {
	char tsc[CMDLINE_MAX_TSC][CMDLINE_VALUE_MAX]; /* every tsc= value */
	int ntsc;
	/* What the next boot will get, from the configuration the boot path
	 * reads (/etc/kernel/cmdline, /etc/default/grub and its drop-ins). */
	char next_tsc[CMDLINE_MAX_TSC][CMDLINE_VALUE_MAX];
	int nnext;
	char clocksource[CMDLINE_VALUE_MAX];
	char tsc_early_khz[CMDLINE_VALUE_MAX];
	/* kernel-arg's setting (NOWATCHDOG_SETTING says "on"): what the
	 * next kernel-install adds, whether or not a boot has it yet. */
	bool nowatchdog;
};

/* /proc/cmdline's text: every tsc=, clocksource= and tsc_early_khz=. */
void kernel_cmdline_parse(const char *text, struct sys_cmdline *c);
/* Fills next_tsc from the boot configuration under root. */
void kernel_cmdline_read_next(const char *root, struct sys_cmdline *c);
/* Is kernel-arg's nowatchdog setting on? */
bool kernel_cmdline_nowatchdog(const char *root);

#endif

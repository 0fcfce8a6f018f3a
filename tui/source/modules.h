/* SPDX-License-Identifier: MIT */
/*
 * Kernel modules that matter here: msr, rtc_cmos (the RTC the rate check
 * counts against), kvm_amd / kvm_intel (a KVM host, whose guests lose their
 * fast clock with it).  On the live system through libkmod; under another
 * root from that root's /proc/modules.  A kernel without module support has
 * no /proc/modules: that is said, not failed on.
 */
#ifndef TSCTUI_SOURCE_MODULES_H
#define TSCTUI_SOURCE_MODULES_H

#include <stdbool.h>

struct sys_modules {
	bool supported; /* the kernel loads modules */
	bool msr, rtc_cmos, kvm_amd, kvm_intel;
};

void read_modules(const char *root, struct sys_modules *m);
/* From /proc/modules text (the first word of each line). */
void parse_proc_modules(const char *text, struct sys_modules *m);

enum rtc_plan {
	RTC_PRESENT,	   /* /dev/rtc0 is there */
	RTC_LOAD,	   /* load rtc_cmos now */
	RTC_ASK,	   /* would load it, if asked (--load-rtc) */
	RTC_NEEDS_ROOT,	   /* asked, but only root may load modules */
	RTC_UNSUPPORTED,   /* no module support, or rtc_cmos loaded and no
			      RTC all the same */
};

/* Whether to load rtc_cmos: only when the RTC is absent, as root, and only
 * when asked. */
enum rtc_plan rtc_plan(const struct sys_modules *m, bool have_rtc,
		       bool is_root, bool asked);
/* Loads a module with libkmod; 0 or -1 with *err. */
int modules_load(const char *name, const char **err);

#endif

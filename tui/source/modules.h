/* SPDX-License-Identifier: MIT */
/*
 * Kernel modules that matter here: msr, rtc_cmos (the RTC the rate check
 * counts against), kvm_amd / kvm_intel (a KVM host, whose guests lose their
 * fast clock with it): which are there.  On the live system through
 * libkmod; under another root from that root's /proc/modules.  A kernel
 * without module support has no /proc/modules: that is said, not failed
 * on.
 */
#ifndef TSCTUI_SOURCE_MODULES_H
#define TSCTUI_SOURCE_MODULES_H

#include <stdbool.h>

struct sys_modules {
	bool supported; /* the kernel loads modules */
	bool msr, rtc_cmos, kvm_amd, kvm_intel;
};

void modules_read(const char *root, struct sys_modules *m);
/* From /proc/modules text (the first word of each line). */
void modules_parse_proc(const char *text, struct sys_modules *m);

#endif

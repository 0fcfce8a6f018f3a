/* SPDX-License-Identifier: MIT */
/*
 * Whether this is a virtual machine, and the evidence: the cpuinfo
 * hypervisor flag, the kernel log's "Hypervisor detected" and
 * "Booting paravirtualized kernel on" lines, a hypervisor's paravirtual
 * clocksource (current, available, or in the log), and DMI vendor and
 * product strings that only hypervisors give (sysfs, or the log's "DMI:"
 * line).  A rescue (--root on a disk image, a log from elsewhere) and a
 * guest whose flag is hidden are told by the rest.  A laptop's SMBIOS
 * strings with no flag and no such line are never taken for a guest.
 */
#ifndef TSCTUI_MODEL_VIRT_H
#define TSCTUI_MODEL_VIRT_H

#include <stdbool.h>

#include "../source/system.h"

#define VIRT_MAX_EVIDENCE 8

struct virt_evidence {
	bool virtual_machine;
	int n;
	/* "cpuinfo: hypervisor flag", "log: Hypervisor detected: KVM",
	 * "clocksource: kvm-clock", "dmi: QEMU", ... */
	char what[VIRT_MAX_EVIDENCE][128];
};

/* Whether DMI's vendor or product names a hypervisor (QEMU, VMware,
 * VirtualBox, Microsoft's "Virtual Machine", Xen, Bochs, KVM, bhyve,
 * Parallels, ...); the word found in *word. */
bool virt_dmi_hypervisor(const char *vendor, const char *product,
			 const char **word);
void virt_evidence_read(const struct sysinfo *s, struct virt_evidence *v);

/* The guest's clocksource is fast (the TSC itself, or a paravirtual
 * clock read in user space: kvm-clock, Hyper-V's TSC page, Xen's). */
bool virt_fast_clock(const char *cs);

#endif

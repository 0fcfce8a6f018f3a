/* SPDX-License-Identifier: MIT */
/*
 * CPUID facts the stage and the dashboard need, decoded from raw register
 * values (so each case is a unit test), and the decision whether a TSC write
 * is allowed on this CPU.
 */
#ifndef TSCTUI_COMMON_CPUID_H
#define TSCTUI_COMMON_CPUID_H

#include "tsc.h"

enum tsc_vendor {
	TSC_VENDOR_OTHER,
	TSC_VENDOR_AMD,
	TSC_VENDOR_HYGON,
	TSC_VENDOR_INTEL
};

struct tsc_cpu_regs {
	uint32_t max_leaf;     /* leaf 0 eax */
	uint32_t vendor[3];    /* leaf 0 ebx, edx, ecx: the vendor string */
	uint32_t leaf1_eax;    /* family/model/stepping */
	uint32_t leaf1_ecx;    /* bit 31: running under a hypervisor */
	uint32_t leaf7_ebx;    /* bit 1: IA32_TSC_ADJUST */
	uint32_t max_ext_leaf; /* leaf 0x80000000 eax */
	uint32_t ext1_edx;     /* leaf 0x80000001 edx, bit 27: RDTSCP */
	uint32_t ext7_edx;     /* leaf 0x80000007 edx, bit 8: invariant TSC */
};

struct tsc_cpu_info {
	enum tsc_vendor vendor;
	uint32_t family;
	uint32_t model;
	bool invariant_tsc;
	bool tsc_adjust;
	bool hypervisor;
	bool rdtscp; /* the UEFI stage then orders its TSC reads with it */
};

const char *tsc_vendor_name(enum tsc_vendor v);
bool tsc_vendor_from(const char *s, size_t len, enum tsc_vendor *out);

void tsc_cpu_decode(const struct tsc_cpu_regs *r, struct tsc_cpu_info *out);
/* Executes CPUID on the calling processor. */
void tsc_cpu_read(struct tsc_cpu_regs *r);
/*
 * The calling processor's APIC ID, from CPUID (safe on an AP): the 32-bit
 * x2APIC ID of leaf 0Bh where the CPU reports that leaf, else the 8-bit
 * initial APIC ID of leaf 1.  *bits says which (32 or 8).
 */
uint32_t tsc_cpu_apic_self(uint32_t *bits);
/* Does an APIC ID read that way name the processor whose full ID is id? */
bool tsc_apic_matches(uint32_t self, uint32_t bits, uint32_t id);

/*
 * Sync needs bare metal (under a hypervisor a TSC write is a per-vCPU
 * offset the host computes), an invariant TSC (else the counters drift
 * apart again) and no TSC_ADJUST (with it the kernel corrects offsets
 * itself, and a write to MSR 0x10 would also move TSC_ADJUST).  The family
 * list is where the firmware fault was seen and writes were proven
 * harmless; allow_any lifts only that list.  On refusal *reason says why in
 * one sentence; the checks run in the order that gives the most useful
 * reason: hypervisor and TSC_ADJUST (refused whatever allow says), the list
 * (which allow lifts), invariant TSC.
 */
bool tsc_sync_allowed(const struct tsc_cpu_info *c, bool allow_any,
		      const char **reason);
/* Is the family on the supported list (AMD 17h/19h/1Ah, Hygon 18h)? */
bool tsc_family_listed(const struct tsc_cpu_info *c);

#endif

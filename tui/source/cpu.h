/* SPDX-License-Identifier: MIT */
/* The CPU as the managed system's /proc/cpuinfo describes it: the one
 * reader of that file (cpu_map.c reads the APIC IDs from the same text). */
#ifndef TSCTUI_SOURCE_CPU_H
#define TSCTUI_SOURCE_CPU_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/cpuid.h"

struct sys_cpu {
	/* The stage's own enum (common/cpuid.h), which the model decides
	 * by; vendor_known is false when /proc/cpuinfo names none (or cannot
	 * be read). */
	enum tsc_vendor vendor_id;
	bool vendor_known;
	unsigned family, model;
	char model_name[96];
	unsigned threads;
	bool constant_tsc, nonstop_tsc, tsc_adjust, tsc_reliable,
		tsc_known_freq, hypervisor;
	bool invariant_tsc; /* constant_tsc and nonstop_tsc */
};

/* /proc/cpuinfo under root, malloc'd; NULL when it cannot be read. */
char *cpu_read_cpuinfo(const char *root, size_t *len);
/* Reads and parses it; false (and *cpu zeroed) when it cannot be read. */
bool cpu_read(const char *root, struct sys_cpu *cpu);
void cpu_parse(const char *text, struct sys_cpu *cpu);
/* The vendor's word ("amd", "hygon", "intel", "other": tsc_vendor_name),
 * or unknown when it is not known: the one place a front end gets it. */
const char *cpu_vendor_word(const struct sys_cpu *cpu, const char *unknown);
/* AMD or Hygon: the CPUs whose boot warp the stage is made for. */
bool cpu_is_amd(const struct sys_cpu *cpu);

#endif

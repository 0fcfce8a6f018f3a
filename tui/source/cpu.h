/* SPDX-License-Identifier: MIT */
/* The CPU as the managed system's /proc/cpuinfo describes it: the one
 * reader of that file (cpu_map.c reads the APIC IDs from the same text). */
#ifndef TSCTUI_SOURCE_CPU_H
#define TSCTUI_SOURCE_CPU_H

#include <stdbool.h>
#include <stddef.h>

struct sys_cpu {
	char vendor[16]; /* amd | hygon | intel | other | "" (unknown) */
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

#endif

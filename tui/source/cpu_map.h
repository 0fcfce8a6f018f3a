/* SPDX-License-Identifier: MIT */
/*
 * Linux CPU numbers by APIC ID.  The stage's report numbers CPUs in MP
 * services order (its `index`) and names each one's APIC ID; the kernel,
 * its log ("TSC synchronization [CPU#0 -> CPU#3]") and /proc number them
 * as Linux does, and the two orders differ (AMD Zen with SMT: Linux CPUs
 * 0-3 are APIC IDs 0,2,4,6).  The map comes from the managed system's
 * /proc/cpuinfo ("processor" and "apicid" of each block), under --root.
 * Where it cannot say, the lookups answer -1 and `why` says why.
 */
#ifndef TSCTUI_SOURCE_CPU_MAP_H
#define TSCTUI_SOURCE_CPU_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../common/report.h"

/* More logical CPUs than the stage handles (TSC_MAX_CPUS), so that a
 * report of a big machine still finds its own. */
#define CPUMAP_MAX 1024

struct cpu_map {
	unsigned n;
	struct {
		uint32_t apic;
		uint32_t cpu;
	} e[CPUMAP_MAX];
	char why[160]; /* why the map is empty, or "" */
};

/* From /proc/cpuinfo's text; blocks without both lines are left out, as
 * are APIC IDs that two blocks claim. */
void cpu_map_parse(const char *text, struct cpu_map *m);
/* root's /proc/cpuinfo. */
void cpu_map_read(const char *root, struct cpu_map *m);
/* Says that the map does not apply (e.g. a report read from a file). */
void cpu_map_none(struct cpu_map *m, const char *why);

/* The Linux CPU with this APIC ID, or -1. */
int cpu_map_linux(const struct cpu_map *m, uint32_t apic);
/* The Linux CPU of the report's CPU `index` (the BSP or an AP), or -1:
 * no map, an APIC ID the map lacks, or one the report gives twice (a
 * report without APIC IDs reads as all zero). */
int cpu_map_report_linux(const struct cpu_map *m, const struct tsc_report *r,
			 uint32_t index);
/* The report's CPU that is Linux CPU `cpu`: its MP index, and in *ap its
 * record (NULL for the BSP); -1 when not known. */
int cpu_map_report_index(const struct cpu_map *m, const struct tsc_report *r,
			 uint32_t cpu, const struct tsc_report_cpu **ap);
/* Whether every CPU of the report maps; if not, why, in words. */
bool cpu_map_covers(const struct cpu_map *m, const struct tsc_report *r,
		    char *why, size_t cap);

#endif

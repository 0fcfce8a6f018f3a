/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "cpu.h"

/* A 256-thread machine's cpuinfo is about 400 KiB; 4 MiB leaves room
 * for the largest. */
#define CPUINFO_READ_MAX (4u << 20)

/* /proc/cpuinfo: vendor, family, model, threads, the TSC flags. */

static bool has_flag(const char *flags, const char *f)
{
	size_t n = strlen(f);
	const char *p = flags;

	while ((p = strstr(p, f))) {
		if ((p == flags || p[-1] == ' ') &&
		    (p[n] == ' ' || !p[n] || p[n] == '\n'))
			return true;
		p += n;
	}
	return false;
}

static const char *field(const char *text, const char *key)
{
	const char *p = text;
	size_t n = strlen(key);

	while ((p = strstr(p, key))) {
		if ((p == text || p[-1] == '\n') &&
		    (p[n] == '\t' || p[n] == ' ' || p[n] == ':')) {
			p = strchr(p, ':');
			return p ? p + 1 + strspn(p + 1, " \t") : NULL;
		}
		p += n;
	}
	return NULL;
}

const char *cpu_vendor_word(const struct sys_cpu *cpu, const char *unknown)
{
	return cpu->vendor_known ? tsc_vendor_name(cpu->vendor_id) : unknown;
}

bool cpu_is_amd(const struct sys_cpu *cpu)
{
	return cpu->vendor_known && (cpu->vendor_id == TSC_VENDOR_AMD ||
				     cpu->vendor_id == TSC_VENDOR_HYGON);
}

void cpu_parse(const char *text, struct sys_cpu *cpu)
{
	const char *p;
	char vendor[32] = "", flags[4096] = "";

	memset(cpu, 0, sizeof(*cpu));
	if ((p = field(text, "vendor_id")))
		sscanf(p, "%31s", vendor);
	cpu->vendor_known = vendor[0] != '\0';
	if (!strcmp(vendor, "AuthenticAMD"))
		cpu->vendor_id = TSC_VENDOR_AMD;
	else if (!strcmp(vendor, "HygonGenuine"))
		cpu->vendor_id = TSC_VENDOR_HYGON;
	else if (!strcmp(vendor, "GenuineIntel"))
		cpu->vendor_id = TSC_VENDOR_INTEL;
	else
		cpu->vendor_id = TSC_VENDOR_OTHER;
	if ((p = field(text, "cpu family")))
		sscanf(p, "%u", &cpu->family);
	if ((p = field(text, "model")))
		sscanf(p, "%u", &cpu->model);
	if ((p = field(text, "model name")))
		sscanf(p, "%95[^\n]", cpu->model_name);
	if ((p = field(text, "flags")))
		sscanf(p, "%4095[^\n]", flags);
	for (p = text; (p = strstr(p, "processor")); p += 9)
		if ((p == text || p[-1] == '\n') && field(p, "processor"))
			cpu->threads++;
	cpu->constant_tsc = has_flag(flags, "constant_tsc");
	cpu->nonstop_tsc = has_flag(flags, "nonstop_tsc");
	cpu->tsc_adjust = has_flag(flags, "tsc_adjust");
	cpu->tsc_reliable = has_flag(flags, "tsc_reliable");
	cpu->tsc_known_freq = has_flag(flags, "tsc_known_freq");
	cpu->hypervisor = has_flag(flags, "hypervisor");
	cpu->invariant_tsc = cpu->constant_tsc && cpu->nonstop_tsc;
}

char *cpu_read_cpuinfo(const char *root, size_t *len)
{
	char path[PATH_UNDER_MAX];

	if (!path_under(root, "/proc/cpuinfo", path, sizeof(path)))
		return NULL;
	return fsx_read_max(path, CPUINFO_READ_MAX, len);
}

bool cpu_read(const char *root, struct sys_cpu *cpu)
{
	size_t len;
	char *d = cpu_read_cpuinfo(root, &len);

	memset(cpu, 0, sizeof(*cpu));
	if (!d)
		return false;
	cpu_parse(d, cpu);
	free(d);
	return true;
}

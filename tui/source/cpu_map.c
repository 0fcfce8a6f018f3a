/* SPDX-License-Identifier: MIT */
/* Linux CPU numbers by APIC ID, from /proc/cpuinfo (cpu_map.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "../util/path.h"
#include "cpu.h"
#include "cpu_map.h"

/* The value of "key : value" if line is that key's line. */
static const char *value_of(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) ||
	    (line[n] != ' ' && line[n] != '\t' && line[n] != ':'))
		return NULL;
	line += n + strspn(line + n, " \t");
	return *line == ':' ? line + 1 : NULL;
}

static bool number(const char *v, uint32_t *out)
{
	char *end;
	unsigned long x;

	v += strspn(v, " \t");
	if (*v < '0' || *v > '9')
		return false;
	x = strtoul(v, &end, 10);
	if (x > UINT32_MAX ||
	    (*end && *end != '\n' && *end != ' ' && *end != '\t'))
		return false;
	*out = (uint32_t)x;
	return true;
}

static void add(struct cpu_map *m, bool have_cpu, uint32_t cpu, bool have_apic,
		uint32_t apic, bool *dup)
{
	unsigned i;

	if (!have_cpu || !have_apic)
		return;
	for (i = 0; i < m->n; i++)
		if (m->e[i].apic == apic) {
			dup[i] = true;
			return;
		}
	if (m->n < CPUMAP_MAX) {
		m->e[m->n].apic = apic;
		m->e[m->n].cpu = cpu;
		m->n++;
	}
}

void cpu_map_parse(const char *text, struct cpu_map *m)
{
	bool dup[CPUMAP_MAX] = { false };
	bool have_cpu = false, have_apic = false;
	uint32_t cpu = 0, apic = 0;
	const char *line = text, *v;
	unsigned i, k;

	memset(m, 0, sizeof(*m));
	while (line && *line) {
		if (*line == '\n') {
			add(m, have_cpu, cpu, have_apic, apic, dup);
			have_cpu = have_apic = false;
		} else if ((v = value_of(line, "processor"))) {
			/* A block may lack its blank line before the next. */
			add(m, have_cpu, cpu, have_apic, apic, dup);
			have_apic = false;
			have_cpu = number(v, &cpu);
		} else if ((v = value_of(line, "apicid"))) {
			have_apic = number(v, &apic);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	add(m, have_cpu, cpu, have_apic, apic, dup);
	/* An APIC ID two CPUs claim names neither. */
	for (i = k = 0; i < m->n; i++)
		if (!dup[i])
			m->e[k++] = m->e[i];
	m->n = k;
	if (!m->n)
		snprintf(m->why, sizeof(m->why),
			 "/proc/cpuinfo has no processor/apicid pairs");
}

void cpu_map_none(struct cpu_map *m, const char *why)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->why, sizeof(m->why), "%s", why);
}

void cpu_map_read(const char *root, struct cpu_map *m)
{
	size_t len;
	char *d = cpu_read_cpuinfo(root, &len);

	if (!d) {
		cpu_map_none(m, "cannot read /proc/cpuinfo");
		return;
	}
	cpu_map_parse(d, m);
	free(d);
}

int cpu_map_linux(const struct cpu_map *m, uint32_t apic)
{
	unsigned i;

	for (i = 0; m && i < m->n; i++)
		if (m->e[i].apic == apic)
			return (int)m->e[i].cpu;
	return -1;
}

/* The APIC ID of the report's CPU `index`; false when the report has no
 * such CPU. */
static bool apic_of(const struct tsc_report *r, uint32_t index, uint32_t *apic)
{
	uint32_t i;

	if (index == r->bsp_index) {
		*apic = r->bsp_apic_id;
		return true;
	}
	for (i = 0; i < r->nap; i++)
		if (r->ap[i].index == index) {
			*apic = r->ap[i].apic_id;
			return true;
		}
	return false;
}

static unsigned apic_uses(const struct tsc_report *r, uint32_t apic)
{
	unsigned n = r->bsp_apic_id == apic;
	uint32_t i;

	for (i = 0; i < r->nap; i++)
		n += r->ap[i].apic_id == apic;
	return n;
}

int cpu_map_report_linux(const struct cpu_map *m, const struct tsc_report *r,
			 uint32_t index)
{
	uint32_t apic;

	if (!r || !apic_of(r, index, &apic) || apic_uses(r, apic) != 1)
		return -1;
	return cpu_map_linux(m, apic);
}

int cpu_map_report_index(const struct cpu_map *m, const struct tsc_report *r,
			 uint32_t cpu, const struct tsc_report_cpu **ap)
{
	uint32_t i;

	*ap = NULL;
	if (!r)
		return -1;
	if (cpu_map_report_linux(m, r, r->bsp_index) == (int)cpu)
		return (int)r->bsp_index;
	for (i = 0; i < r->nap; i++)
		if (cpu_map_report_linux(m, r, r->ap[i].index) == (int)cpu) {
			*ap = &r->ap[i];
			return (int)r->ap[i].index;
		}
	return -1;
}

bool cpu_map_covers(const struct cpu_map *m, const struct tsc_report *r,
		    char *why, size_t cap)
{
	uint32_t i, apic;

	if (!m || !m->n) {
		snprintf(why, cap, "%s", m && m->why[0] ? m->why : "no map");
		return false;
	}
	for (i = 0; i <= r->nap; i++) {
		uint32_t index = i < r->nap ? r->ap[i].index : r->bsp_index;

		apic = i < r->nap ? r->ap[i].apic_id : r->bsp_apic_id;
		if (apic_uses(r, apic) != 1) {
			snprintf(why, cap,
				 "the report gives APIC ID %u to "
				 "more than one CPU",
				 apic);
			return false;
		}
		if (cpu_map_linux(m, apic) < 0) {
			snprintf(why, cap,
				 "APIC ID %u (the stage's CPU #%u) "
				 "is not in /proc/cpuinfo",
				 apic, index);
			return false;
		}
	}
	return true;
}

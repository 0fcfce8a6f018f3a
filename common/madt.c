/* SPDX-License-Identifier: MIT */
#include "madt.h"

#define MADT_HEADER 44 /* the ACPI header (36) + local APIC address, flags */
#define MADT_LAPIC 0
#define MADT_X2APIC 9
#define MADT_ENABLED 1u

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void add(struct tsc_madt *m, uint32_t id)
{
	if (m->n < TSC_MAX_CPUS)
		m->id[m->n] = id;
	m->n++;
}

int tsc_madt_parse(const void *table, size_t len, struct tsc_madt *out)
{
	const uint8_t *t = table;
	uint32_t total, at;
	uint8_t sum = 0;

	out->n = 0;
	if (!t || len < MADT_HEADER || t[0] != 'A' || t[1] != 'P' ||
	    t[2] != 'I' || t[3] != 'C')
		return -1;
	total = le32(t + 4);
	if (total < MADT_HEADER || total > len)
		return -1;
	for (at = 0; at < total; at++)
		sum = (uint8_t)(sum + t[at]);
	if (sum != 0)
		return -1;
	for (at = MADT_HEADER; at < total; at += t[at + 1]) {
		const uint8_t *e = t + at;

		if (total - at < 2 || e[1] < 2 || e[1] > total - at)
			return -1;
		if (e[0] == MADT_LAPIC) {
			if (e[1] < 8)
				return -1;
			if ((le32(e + 4) & MADT_ENABLED) && e[3] != 0xff)
				add(out, e[3]);
		} else if (e[0] == MADT_X2APIC) {
			if (e[1] < 16)
				return -1;
			if ((le32(e + 8) & MADT_ENABLED) &&
			    le32(e + 4) != 0xffffffffu)
				add(out, le32(e + 4));
		}
	}
	return 0;
}

bool tsc_madt_missing(const struct tsc_madt *m, const uint32_t *ids, uint32_t n,
		      uint32_t *missing)
{
	uint32_t i, j;

	for (i = 0; i < m->n && i < TSC_MAX_CPUS; i++) {
		for (j = 0; j < n && ids[j] != m->id[i]; j++)
			;
		if (j == n) {
			*missing = m->id[i];
			return true;
		}
	}
	return false;
}

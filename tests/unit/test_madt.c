/* The ACPI MADT parser and the decision it feeds (common/madt.h), on byte
 * fixtures laid out as firmware does: which CPUs Linux will start. */
#include "cm.h"
#include <string.h>

#include "../../common/madt.h"

static uint8_t tab[512];
static size_t len;

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The header: signature, length, revision, checksum (fixed by seal()),
 * OEM fields, then the local APIC address and flags. */
static void begin(void)
{
	memset(tab, 0, sizeof(tab));
	memcpy(tab, "APIC", 4);
	tab[8] = 5;
	memcpy(tab + 10, "TSCTUI", 6);
	put32(tab + 36, 0xfee00000u);
	put32(tab + 40, 1);
	len = 44;
}

static void lapic(uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t *e = tab + len;

	e[0] = 0;
	e[1] = 8;
	e[2] = uid;
	e[3] = id;
	put32(e + 4, flags);
	len += 8;
}

static void x2apic(uint32_t id, uint32_t flags)
{
	uint8_t *e = tab + len;

	e[0] = 9;
	e[1] = 16;
	put32(e + 4, id);
	put32(e + 8, flags);
	put32(e + 12, id);
	len += 16;
}

/* An I/O APIC entry: not a CPU. */
static void ioapic(void)
{
	uint8_t *e = tab + len;

	e[0] = 1;
	e[1] = 12;
	e[2] = 32;
	put32(e + 4, 0xfec00000u);
	len += 12;
}

static void seal(void)
{
	uint8_t sum = 0;
	size_t i;

	put32(tab + 4, (uint32_t)len);
	tab[9] = 0;
	for (i = 0; i < len; i++)
		sum = (uint8_t)(sum + tab[i]);
	tab[9] = (uint8_t)(0x100 - sum);
}

/* A 4-CPU laptop: Local APIC entries 0..3 enabled, two online-capable
 * hot-plug slots, one disabled entry, an I/O APIC. */
static void laptop(void **s)
{
	struct tsc_madt m;

	(void)s;
	begin();
	lapic(0, 0, 1);
	lapic(1, 1, 1);
	lapic(2, 2, 1);
	lapic(3, 3, 1);
	lapic(4, 4, 2); /* online capable, not enabled: not started at boot */
	lapic(5, 5, 2);
	lapic(6, 6, 0);
	lapic(7, 0xff, 1); /* ID 0xff: none */
	ioapic();
	seal();
	assert_int_equal(tsc_madt_parse(tab, len, &m), 0);
	assert_int_equal(m.n, 4);
	assert_int_equal(m.id[0], 0);
	assert_int_equal(m.id[3], 3);
}

/* x2APIC entries count as well, beyond 8 bits of ID. */
static void x2apic_ids(void **s)
{
	struct tsc_madt m;

	(void)s;
	begin();
	lapic(0, 0, 1);
	x2apic(300, 1);
	x2apic(301, 0);
	x2apic(0xffffffffu, 1);
	seal();
	assert_int_equal(tsc_madt_parse(tab, len, &m), 0);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.id[1], 300);
}

/* A table that does not add up is refused, never half read. */
static void malformed(void **s)
{
	struct tsc_madt m;

	(void)s;
	begin();
	lapic(0, 0, 1);
	lapic(1, 1, 1);
	seal();
	tab[9]++; /* checksum */
	assert_int_equal(tsc_madt_parse(tab, len, &m), -1);
	seal();
	assert_int_equal(tsc_madt_parse(tab, len - 1, &m), -1); /* cut */
	tab[44 + 1] = 0; /* an entry of length 0 would never end */
	seal();
	assert_int_equal(tsc_madt_parse(tab, len, &m), -1);
	begin();
	lapic(0, 0, 1);
	tab[len - 7] = 20; /* an entry running past the table */
	seal();
	assert_int_equal(tsc_madt_parse(tab, len, &m), -1);
	begin();
	memcpy(tab, "FACP", 4);
	seal();
	assert_int_equal(tsc_madt_parse(tab, len, &m), -1);
	assert_int_equal(tsc_madt_parse(NULL, 0, &m), -1);
}

/* The decision: an enabled CPU the stage did not measure is found. */
static void missing_cpu(void **s)
{
	const uint32_t measured[] = { 0, 2, 1, 3 };
	uint32_t id = 0;
	struct tsc_madt m;

	(void)s;
	begin();
	lapic(0, 0, 1);
	lapic(1, 1, 1);
	lapic(2, 2, 1);
	lapic(3, 3, 1);
	seal();
	assert_int_equal(tsc_madt_parse(tab, len, &m), 0);
	assert_false(tsc_madt_missing(&m, measured, 4, &id));
	/* CPU 2 did not answer the survey. */
	assert_true(
		tsc_madt_missing(&m, (const uint32_t[]){ 0, 1, 3 }, 3, &id));
	assert_int_equal(id, 2);
	/* One MP services did not offer at all (StatusFlag disabled). */
	begin();
	lapic(0, 0, 1);
	lapic(1, 1, 1);
	lapic(2, 2, 1);
	lapic(3, 3, 1);
	lapic(4, 9, 1);
	seal();
	assert_int_equal(tsc_madt_parse(tab, len, &m), 0);
	assert_true(tsc_madt_missing(&m, measured, 4, &id));
	assert_int_equal(id, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(laptop),
		cmocka_unit_test(x2apic_ids),
		cmocka_unit_test(malformed),
		cmocka_unit_test(missing_cpu),
	};
	return cmocka_run_group_tests_name("madt", tests, NULL, NULL);
}

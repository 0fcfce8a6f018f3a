/* Linux CPU numbers by APIC ID (tui/source/cpu_map.c): the stage's report
 * numbers CPUs in MP services order, the kernel in its own. */
#include "cm.h"
#include <stdio.h>
#include <string.h>

#include "../../tui/source/cpu_map.h"

/* AMD Zen with SMT: Linux CPUs 0-3 are the first threads (APIC IDs
 * 0,2,4,6), 4-7 their siblings (1,3,5,7). */
static const unsigned zen_apic[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };

static void zen_cpuinfo(char *buf, size_t cap)
{
	size_t n = 0;
	unsigned i;

	for (i = 0; i < 8; i++)
		n += (size_t)snprintf(
			buf + n, cap - n,
			"processor\t: %u\nvendor_id\t: "
			"AuthenticAMD\napicid\t\t: %u\n"
			"initial apicid\t: %u\nflags\t\t: fpu\n\n",
			i, zen_apic[i], zen_apic[i]);
}

/* MP services order: the stage's #k has APIC ID k. */
static void mp_report(struct tsc_report *r, unsigned ncpus)
{
	unsigned i;

	memset(r, 0, sizeof(*r));
	r->bsp_index = 0;
	r->bsp_apic_id = 0;
	r->nap = ncpus - 1;
	for (i = 1; i < ncpus; i++) {
		r->ap[i - 1].index = i;
		r->ap[i - 1].apic_id = i;
	}
}

static void zen_smt(void **s)
{
	static struct cpu_map m;
	static struct tsc_report r;
	const struct tsc_report_cpu *ap;
	char text[2048], why[160];
	unsigned k;

	(void)s;
	zen_cpuinfo(text, sizeof(text));
	cpu_map_parse(text, &m);
	assert_int_equal(m.n, 8);
	for (k = 0; k < 8; k++)
		assert_int_equal(cpu_map_linux(&m, zen_apic[k]), (int)k);
	mp_report(&r, 8);
	assert_true(cpu_map_covers(&m, &r, why, sizeof(why)));
	/* The stage's #1 (APIC 1) is Linux CPU 4; #2 (APIC 2) is CPU 1. */
	assert_int_equal(cpu_map_report_linux(&m, &r, 0), 0);
	assert_int_equal(cpu_map_report_linux(&m, &r, 1), 4);
	assert_int_equal(cpu_map_report_linux(&m, &r, 2), 1);
	assert_int_equal(cpu_map_report_linux(&m, &r, 7), 7);
	/* The kernel's CPU 2 ("CPU#0 -> CPU#2") is the stage's #4. */
	assert_int_equal(cpu_map_report_index(&m, &r, 2, &ap), 4);
	assert_non_null(ap);
	assert_int_equal(ap->apic_id, 4);
	assert_int_equal(cpu_map_report_index(&m, &r, 0, &ap), 0);
	assert_null(ap);
	assert_int_equal(cpu_map_report_index(&m, &r, 9, &ap), -1);
	assert_int_equal(cpu_map_report_linux(&m, &r, 8), -1);
}

/* Where the map cannot say, every lookup answers -1 and why is given. */
static void unknown(void **s)
{
	static struct cpu_map m;
	static struct tsc_report r;
	const struct tsc_report_cpu *ap;
	char text[2048], why[160];
	unsigned i;

	(void)s;
	cpu_map_parse("processor\t: 0\nvendor_id\t: AuthenticAMD\n\n"
		      "processor\t: 1\n\n",
		      &m);
	assert_int_equal(m.n, 0);
	mp_report(&r, 2);
	assert_int_equal(cpu_map_report_linux(&m, &r, 1), -1);
	assert_int_equal(cpu_map_report_index(&m, &r, 1, &ap), -1);
	assert_false(cpu_map_covers(&m, &r, why, sizeof(why)));
	assert_non_null(strstr(why, "apicid"));

	/* A report without APIC IDs parses them as 0: not one CPU named. */
	zen_cpuinfo(text, sizeof(text));
	cpu_map_parse(text, &m);
	mp_report(&r, 4);
	for (i = 0; i < r.nap; i++)
		r.ap[i].apic_id = 0;
	for (i = 0; i < 4; i++)
		assert_int_equal(cpu_map_report_linux(&m, &r, i), -1);
	assert_false(cpu_map_covers(&m, &r, why, sizeof(why)));
	assert_non_null(strstr(why, "more than one"));

	/* An APIC ID the system does not have (another machine's report). */
	mp_report(&r, 4);
	r.ap[2].apic_id = 40;
	assert_int_equal(cpu_map_report_linux(&m, &r, 3), -1);
	assert_false(cpu_map_covers(&m, &r, why, sizeof(why)));
	assert_non_null(strstr(why, "APIC ID 40"));

	/* Two processors claiming one APIC ID: neither is trusted. */
	cpu_map_parse("processor : 0\napicid : 0\n\nprocessor : 1\napicid : 2\n"
		      "\nprocessor : 2\napicid : 2\n\n",
		      &m);
	assert_int_equal(m.n, 1);
	assert_int_equal(cpu_map_linux(&m, 0), 0);
	assert_int_equal(cpu_map_linux(&m, 2), -1);

	cpu_map_read("/nonexistent-root", &m);
	assert_int_equal(m.n, 0);
	assert_non_null(strstr(m.why, "cannot read"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zen_smt),
		cmocka_unit_test(unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

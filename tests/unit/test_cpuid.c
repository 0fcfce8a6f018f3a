/* CPUID decoding from register values, and the sync gate. */
#include "cm.h"
#include <string.h>

#include "../../common/cpuid.h"

static struct tsc_cpu_regs regs(const char *vendor, uint32_t eax1,
				bool invariant, bool adjust, bool hv)
{
	struct tsc_cpu_regs r = { .max_leaf = 0x10,
				  .max_ext_leaf = 0x80000008 };

	/* leaf 0 returns the string in ebx, edx, ecx. */
	memcpy(&r.vendor[0], vendor, 4);
	memcpy(&r.vendor[1], vendor + 4, 4);
	memcpy(&r.vendor[2], vendor + 8, 4);
	r.leaf1_eax = eax1;
	r.leaf1_ecx = hv ? 1u << 31 : 0;
	r.leaf7_ebx = adjust ? 1u << 1 : 0;
	r.ext7_edx = invariant ? 1u << 8 : 0;
	return r;
}

/* Ryzen 7 3700U (E595): family 17h model 18h: eax 0x00810F81. */
static void amd_zen(void **s)
{
	struct tsc_cpu_regs r =
		regs("AuthenticAMD", 0x00810F81, true, false, false);
	struct tsc_cpu_info c;
	const char *why;

	(void)s;
	tsc_cpu_decode(&r, &c);
	assert_int_equal(c.vendor, TSC_VENDOR_AMD);
	assert_int_equal(c.family, 0x17);
	assert_int_equal(c.model, 0x18);
	assert_true(c.invariant_tsc);
	assert_false(c.tsc_adjust);
	assert_false(c.hypervisor);
	assert_false(c.rdtscp);
	r.ext1_edx = 1u << 27;
	tsc_cpu_decode(&r, &c);
	assert_true(c.rdtscp);
	assert_true(tsc_sync_allowed(&c, false, &why));
	assert_null(why);
}

/* Zen 4 (19h) and Zen 5 (1Ah) are listed; Hygon 18h too. */
/* The E595's CPU as a KVM guest with +invtsc: a named AMD model, invariant
 * TSC, no TSC_ADJUST, and the hypervisor bit.  Refused, allow or not. */
static void hypervisor_refused(void **s)
{
	struct tsc_cpu_regs r =
		regs("AuthenticAMD", 0x00810F81, true, false, true);
	struct tsc_cpu_info c;
	const char *why;

	(void)s;
	tsc_cpu_decode(&r, &c);
	assert_true(c.hypervisor);
	assert_false(tsc_sync_allowed(&c, false, &why));
	assert_non_null(strstr(why, "hypervisor"));
	assert_false(tsc_sync_allowed(&c, true, &why));
	assert_non_null(strstr(why, "hypervisor"));
}

static void listed_families(void **s)
{
	struct tsc_cpu_regs r;
	struct tsc_cpu_info c;
	const char *why;

	(void)s;
	r = regs("AuthenticAMD", 0x00A60F12, true, false, false);
	tsc_cpu_decode(&r, &c);
	assert_int_equal(c.family, 0x19);
	assert_true(tsc_sync_allowed(&c, false, &why));
	r = regs("AuthenticAMD", 0x00B40F40, true, false, false);
	tsc_cpu_decode(&r, &c);
	assert_int_equal(c.family, 0x1a);
	assert_true(tsc_sync_allowed(&c, false, &why));
	r = regs("HygonGenuine", 0x00900F01, true, false, false);
	tsc_cpu_decode(&r, &c);
	assert_int_equal(c.vendor, TSC_VENDOR_HYGON);
	assert_int_equal(c.family, 0x18);
	assert_true(tsc_sync_allowed(&c, false, &why));
	/* AMD family 15h (Bulldozer) is not listed. */
	r = regs("AuthenticAMD", 0x00600F12, true, false, false);
	tsc_cpu_decode(&r, &c);
	assert_int_equal(c.family, 0x15);
	assert_false(tsc_sync_allowed(&c, false, &why));
	assert_true(tsc_sync_allowed(&c, true, &why));
}

/* Intel with TSC_ADJUST: refused even with allow=any-cpu. */
static void intel_adjust(void **s)
{
	struct tsc_cpu_regs r =
		regs("GenuineIntel", 0x000906EA, true, true, false);
	struct tsc_cpu_info c;
	const char *why;

	(void)s;
	tsc_cpu_decode(&r, &c);
	assert_int_equal(c.vendor, TSC_VENDOR_INTEL);
	assert_int_equal(c.family, 6);
	assert_int_equal(c.model, 0x9e);
	assert_true(c.tsc_adjust);
	assert_false(tsc_sync_allowed(&c, true, &why));
	assert_non_null(strstr(why, "TSC_ADJUST"));
}

/* Intel without TSC_ADJUST or invariant TSC (Skylake-Client's CPUID on
 * bare metal): the reason names the list, which is what allow=any-cpu
 * would change. */
static void intel_not_listed(void **s)
{
	struct tsc_cpu_regs r =
		regs("GenuineIntel", 0x000506E3, false, false, false);
	struct tsc_cpu_info c;
	const char *why;

	(void)s;
	tsc_cpu_decode(&r, &c);
	assert_false(c.hypervisor);
	assert_false(tsc_sync_allowed(&c, false, &why));
	assert_non_null(strstr(why, "supported list"));
	/* With the list lifted, the missing invariant TSC still refuses. */
	assert_false(tsc_sync_allowed(&c, true, &why));
	assert_non_null(strstr(why, "invariant"));
}

/* EPYC's CPUID as stock TCG offers it, on bare metal: family 17h but no
 * invariant TSC; allow=any-cpu does not lift that. */
static void no_invariant(void **s)
{
	struct tsc_cpu_regs r =
		regs("AuthenticAMD", 0x00800F12, false, false, false);
	struct tsc_cpu_info c;
	const char *why;

	(void)s;
	tsc_cpu_decode(&r, &c);
	assert_int_equal(c.family, 0x17);
	assert_false(c.invariant_tsc);
	assert_false(tsc_sync_allowed(&c, false, &why));
	assert_non_null(strstr(why, "invariant"));
	assert_false(tsc_sync_allowed(&c, true, &why));
	assert_non_null(strstr(why, "invariant"));
}

/* Leaves beyond the maximum are not trusted. */
static void absent_leaves(void **s)
{
	struct tsc_cpu_regs r =
		regs("AuthenticAMD", 0x00810F81, true, true, false);
	struct tsc_cpu_info c;

	(void)s;
	r.max_leaf = 1;
	r.max_ext_leaf = 0x80000001;
	tsc_cpu_decode(&r, &c);
	assert_false(c.tsc_adjust);
	assert_false(c.invariant_tsc);
	r = regs("CyrixInstead", 0x00000543, false, false, false);
	tsc_cpu_decode(&r, &c);
	assert_int_equal(c.vendor, TSC_VENDOR_OTHER);
}

/* An APIC ID read from leaf 1 has 8 bits: it names the processor whose full
 * ID has those low bits; leaf 0Bh's 32 bits must match exactly. */
static void apic_match(void **s)
{
	(void)s;
	assert_true(tsc_apic_matches(5, 32, 5));
	assert_false(tsc_apic_matches(5, 32, 261));
	assert_true(tsc_apic_matches(5, 8, 261));
	assert_false(tsc_apic_matches(5, 8, 6));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(amd_zen),
		cmocka_unit_test(apic_match),
		cmocka_unit_test(hypervisor_refused),
		cmocka_unit_test(listed_families),
		cmocka_unit_test(intel_adjust),
		cmocka_unit_test(intel_not_listed),
		cmocka_unit_test(no_invariant),
		cmocka_unit_test(absent_leaves),
	};
	return cmocka_run_group_tests_name("cpuid", tests, NULL, NULL);
}

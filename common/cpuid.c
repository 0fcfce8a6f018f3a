/* SPDX-License-Identifier: MIT */
#include "cpuid.h"
#include "string_table.h"

#define CPUID_EXT_POWER 0x80000007u
#define EXT7_EDX_INVARIANT_TSC (1u << 8)
#define LEAF7_EBX_TSC_ADJUST (1u << 1)
#define LEAF1_ECX_HYPERVISOR (1u << 31)
#define CPUID_EXT_FEATURES 0x80000001u
#define EXT1_EDX_RDTSCP (1u << 27)
#define CPUID_TOPOLOGY 0xbu

/* The vendor strings as leaf 0 returns them: ebx, edx, ecx. */
static bool vendor_is(const uint32_t v[3], const char *s)
{
	uint32_t w[3] = { 0, 0, 0 };
	int i;

	for (i = 0; i < 12; i++)
		w[i / 4] |= (uint32_t)(unsigned char)s[i] << (8 * (i % 4));
	return v[0] == w[0] && v[1] == w[1] && v[2] == w[2];
}

static const char *const vendor_names[] = {
	[TSC_VENDOR_OTHER] = "other",
	[TSC_VENDOR_AMD] = "amd",
	[TSC_VENDOR_HYGON] = "hygon",
	[TSC_VENDOR_INTEL] = "intel",
};

STRING_TABLE_TO(tsc_vendor_name, enum tsc_vendor, vendor_names, "other")
STRING_TABLE_FROM_N(tsc_vendor_from, enum tsc_vendor, vendor_names, 0)

void tsc_cpu_decode(const struct tsc_cpu_regs *r, struct tsc_cpu_info *out)
{
	uint32_t base_family = (r->leaf1_eax >> 8) & 0xf;
	uint32_t base_model = (r->leaf1_eax >> 4) & 0xf;

	*out = (struct tsc_cpu_info){ .vendor = TSC_VENDOR_OTHER };
	if (vendor_is(r->vendor, "AuthenticAMD"))
		out->vendor = TSC_VENDOR_AMD;
	else if (vendor_is(r->vendor, "HygonGenuine"))
		out->vendor = TSC_VENDOR_HYGON;
	else if (vendor_is(r->vendor, "GenuineIntel"))
		out->vendor = TSC_VENDOR_INTEL;

	if (r->max_leaf >= 1) {
		out->family = base_family;
		out->model = base_model;
		if (base_family == 0xf)
			out->family += (r->leaf1_eax >> 20) & 0xff;
		if (base_family == 0xf || base_family == 0x6)
			out->model |= ((r->leaf1_eax >> 16) & 0xf) << 4;
		out->hypervisor = (r->leaf1_ecx & LEAF1_ECX_HYPERVISOR) != 0;
	}
	if (r->max_leaf >= 7)
		out->tsc_adjust = (r->leaf7_ebx & LEAF7_EBX_TSC_ADJUST) != 0;
	if (r->max_ext_leaf >= CPUID_EXT_POWER)
		out->invariant_tsc =
			(r->ext7_edx & EXT7_EDX_INVARIANT_TSC) != 0;
	if (r->max_ext_leaf >= CPUID_EXT_FEATURES)
		out->rdtscp = (r->ext1_edx & EXT1_EDX_RDTSCP) != 0;
}

static void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c,
		  uint32_t *d)
{
	__asm__ __volatile__("cpuid"
			     : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			     : "a"(leaf), "c"(0));
}

void tsc_cpu_read(struct tsc_cpu_regs *r)
{
	uint32_t a, b, c, d;

	*r = (struct tsc_cpu_regs){ 0 };
	cpuid(0, &r->max_leaf, &r->vendor[0], &r->vendor[2], &r->vendor[1]);
	if (r->max_leaf >= 1) {
		cpuid(1, &r->leaf1_eax, &b, &r->leaf1_ecx, &d);
	}
	if (r->max_leaf >= 7)
		cpuid(7, &a, &r->leaf7_ebx, &c, &d);
	cpuid(0x80000000u, &r->max_ext_leaf, &b, &c, &d);
	if (r->max_ext_leaf >= CPUID_EXT_FEATURES)
		cpuid(CPUID_EXT_FEATURES, &a, &b, &c, &r->ext1_edx);
	if (r->max_ext_leaf >= CPUID_EXT_POWER)
		cpuid(CPUID_EXT_POWER, &a, &b, &c, &r->ext7_edx);
}

uint32_t tsc_cpu_apic_self(uint32_t *bits)
{
	uint32_t a, b, c, d, max;

	cpuid(0, &max, &b, &c, &d);
	if (max >= CPUID_TOPOLOGY) {
		/* Subleaf 0 (cpuid() passes ecx=0): a level with logical
		 * processors in EBX[15:0] means the leaf is implemented. */
		cpuid(CPUID_TOPOLOGY, &a, &b, &c, &d);
		if (b & 0xffff) {
			*bits = 32;
			return d;
		}
	}
	cpuid(1, &a, &b, &c, &d);
	*bits = 8;
	return b >> 24;
}

bool tsc_apic_matches(uint32_t self, uint32_t bits, uint32_t id)
{
	return bits >= 32 ? self == id : self == (id & 0xff);
}

/* AMD Zen (17h), Zen 3/4 (19h), Zen 5 (1Ah); Hygon Dhyana (18h). */
bool tsc_family_listed(const struct tsc_cpu_info *c)
{
	if (c->vendor == TSC_VENDOR_AMD)
		return c->family == 0x17 || c->family == 0x19 ||
		       c->family == 0x1a;
	if (c->vendor == TSC_VENDOR_HYGON)
		return c->family == 0x18;
	return false;
}

bool tsc_sync_allowed(const struct tsc_cpu_info *c, bool allow_any,
		      const char **reason)
{
	/* A hypervisor turns a guest's TSC write into a per-vCPU offset
	 * computed under its own scheduling noise (KVM: kvm_set_tsc_khz,
	 * kvm_synchronize_tsc), and a guest's offsets are the host's business:
	 * no option lifts this. */
	if (c->hypervisor) {
		*reason = "running under a hypervisor: a guest's TSC writes "
			  "become per-vCPU offsets the host sets; fix the host";
		return false;
	}
	if (c->tsc_adjust) {
		*reason = "the CPU has TSC_ADJUST: the kernel corrects TSC "
			  "offsets itself";
		return false;
	}
	if (!allow_any && !tsc_family_listed(c)) {
		*reason = "the CPU is not in the supported list (AMD family "
			  "17h/19h/1Ah, Hygon 18h); allow=any-cpu overrides";
		return false;
	}
	if (!c->invariant_tsc) {
		*reason = "the CPU has no invariant TSC (CPUID 80000007h "
			  "EDX bit 8): counters would drift apart again";
		return false;
	}
	*reason = 0;
	return true;
}

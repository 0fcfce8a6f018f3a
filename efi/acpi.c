/* SPDX-License-Identifier: MIT */
/*
 * The firmware's ACPI MADT, parsed once (common/madt.h): the CPUs Linux
 * will start.  Found through the ACPI 2.0 configuration table's XSDT, or
 * the 1.0 table's RSDT; no table found means no check (platform.h).
 */
#include "../common/madt.h"
#include "stage.h"

struct rsdp {
	char sig[8];
	UINT8 checksum;
	char oem[6];
	UINT8 revision;
	UINT32 rsdt;
	UINT32 length;
	UINT64 xsdt;
	UINT8 xchecksum;
	UINT8 reserved[3];
} __attribute__((packed));

/* The SDT header's length field, and where the entries start. */
#define SDT_LENGTH 4
#define SDT_HEADER 36
/* No sane XSDT lists more tables than this. */
#define SDT_MAX 4096

static struct tsc_madt madt;
static BOOLEAN have_madt;

static UINT32 le32(const UINT8 *p)
{
	return (UINT32)p[0] | (UINT32)p[1] << 8 | (UINT32)p[2] << 16 |
	       (UINT32)p[3] << 24;
}

static BOOLEAN sig_is(const UINT8 *p, const char *sig)
{
	return p[0] == sig[0] && p[1] == sig[1] && p[2] == sig[2] &&
	       p[3] == sig[3];
}

/* Each entry of an XSDT (8 bytes) or RSDT (4 bytes) names a table. */
static void scan(const UINT8 *sdt, const char *sig, UINTN width)
{
	UINT32 len, at;

	if (!sdt || !sig_is(sdt, sig))
		return;
	len = le32(sdt + SDT_LENGTH);
	if (len < SDT_HEADER || (len - SDT_HEADER) / width > SDT_MAX)
		return;
	for (at = SDT_HEADER; at + width <= len; at += (UINT32)width) {
		UINT64 addr = le32(sdt + at);
		const UINT8 *t;

		if (width == 8)
			addr |= (UINT64)le32(sdt + at + 4) << 32;
		t = (const UINT8 *)(UINTN)addr;
		if (t && sig_is(t, "APIC") &&
		    tsc_madt_parse(t, le32(t + SDT_LENGTH), &madt) == 0) {
			have_madt = TRUE;
			return;
		}
	}
}

void acpi_read_madt(void)
{
	EFI_GUID acpi20 = ACPI_20_TABLE_GUID, acpi10 = ACPI_TABLE_GUID;
	const struct rsdp *r20 = NULL, *r10 = NULL;
	UINTN i;

	for (i = 0; i < ST->NumberOfTableEntries; i++) {
		EFI_CONFIGURATION_TABLE *c = &ST->ConfigurationTable[i];

		if (!CompareGuid(&c->VendorGuid, &acpi20))
			r20 = c->VendorTable;
		else if (!CompareGuid(&c->VendorGuid, &acpi10))
			r10 = c->VendorTable;
	}
	if (r20 && r20->revision >= 2 && r20->xsdt)
		scan((const UINT8 *)(UINTN)r20->xsdt, "XSDT", 8);
	if (!have_madt && (r20 || r10))
		scan((const UINT8 *)(UINTN)(r20 ? r20 : r10)->rsdt, "RSDT", 4);
}

const struct tsc_madt *acpi_madt(void *ctx)
{
	(void)ctx;
	return have_madt ? &madt : NULL;
}

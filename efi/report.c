/* SPDX-License-Identifier: MIT */
/*
 * The report leaves the stage twice: as the volatile variable TsctuiReport
 * (BOOTSERVICE|RUNTIME, never NON_VOLATILE: it lives in RAM, is readable
 * from Linux for this boot only, and wears no flash), and on the console
 * between marker lines, for logs and for a person watching.
 *
 * A firmware limits the size of one variable (OVMF: about 33 KB with its
 * 4 MB flash, 8 KB with the 2 MB one; the UEFI specification leaves it to
 * the platform), and a report grows by ~110 bytes per AP.  When the whole
 * report is refused as too large, the variable gets a copy that fits: every
 * record, the AP records worst verdict first as room allows, and "omitted
 * N" (tsc_report_write_fit).  The console copy always has every AP.
 */
#include "stage.h"
#include "../common/report_var.h"

static EFI_GUID report_guid = TSC_REPORT_VAR_GUID_INIT;
/* L"TsctuiReport": a wide literal joined to a narrow one is wide (C11
 * 6.4.5). */
#define REPORT_VAR_NAME (L"" TSC_REPORT_VAR_NAME)

static char text[TSC_REPORT_MAX_TEXT];
static char fitted[TSC_REPORT_MAX_TEXT];

#define REPORT_ATTRS                                                           \
	(EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)
/* What a variable costs besides its data: the name and the store's record
 * header (60 bytes in EDK2's authenticated format, and 4 to spare). */
#define REPORT_VAR_OVERHEAD (sizeof(REPORT_VAR_NAME) + 64)

/* sim.varmax=N (sim build): a firmware whose limit is N bytes of data. */
static EFI_STATUS set_report(const char *data, UINTN n, UINTN sim_varmax)
{
	if (STAGE_SIM && sim_varmax && n > sim_varmax)
		return EFI_INVALID_PARAMETER; /* as EDK2 refuses one too big */
	return uefi_call_wrapper(RT->SetVariable, 5, REPORT_VAR_NAME,
				 &report_guid, REPORT_ATTRS, n, (void *)data);
}

static bool too_big(EFI_STATUS st)
{
	/* EDK2 says INVALID_PARAMETER; other firmware OUT_OF_RESOURCES. */
	return st == EFI_INVALID_PARAMETER || st == EFI_OUT_OF_RESOURCES;
}

/* The largest data size worth trying first: the firmware's own maximum
 * when it says (UEFI 2.0 QueryVariableInfo), else just below what failed. */
static UINTN first_cap(UINTN failed, UINTN sim_varmax)
{
	UINT64 store = 0, left = 0, max = 0;
	UINTN cap = failed - 1;

	if (RT->Hdr.Revision >= (2u << 16) &&
	    !EFI_ERROR(uefi_call_wrapper(RT->QueryVariableInfo, 4, REPORT_ATTRS,
					 &store, &left, &max)) &&
	    max > REPORT_VAR_OVERHEAD && max - REPORT_VAR_OVERHEAD < cap)
		cap = (UINTN)(max - REPORT_VAR_OVERHEAD);
	if (STAGE_SIM && sim_varmax && sim_varmax < cap)
		cap = sim_varmax;
	return cap;
}

/*
 * Shrinking the fitted copy when the firmware still refuses it: to 3/4 each
 * time, at most FIT_TRIES times (from OVMF's 33 KB that reaches 1 KB), and
 * never below FIT_SMALLEST: the records around the APs alone take 330
 * bytes or more, so a smaller copy cannot be written at all.
 */
#define FIT_TRIES 12
#define FIT_SHRINK(cap) ((cap)*3 / 4)
#define FIT_SMALLEST 256

/* Stores a copy that fits; returns the last status. */
static EFI_STATUS store_fitted(const struct tsc_report *r, UINTN full,
			       UINTN sim_varmax)
{
	EFI_STATUS st = EFI_BUFFER_TOO_SMALL;
	UINTN cap = first_cap(full, sim_varmax), n = 0;
	uint32_t omitted = 0;
	int tries;

	for (tries = 0; tries < FIT_TRIES && cap >= FIT_SMALLEST; tries++) {
		n = tsc_report_write_fit(r, fitted, cap + 1, &omitted);
		if (n == 0)
			break;
		st = set_report(fitted, n, sim_varmax);
		if (!too_big(st))
			break;
		cap = FIT_SHRINK(cap);
	}
	if (!EFI_ERROR(st))
		Print(L"tsctui: the report variable holds %d of %d APs (%d "
		      L"bytes:"
		      L" the firmware's variable size limit); this console "
		      L"copy "
		      L"has them all\r\n",
		      (int)(r->nap - omitted), (int)r->nap, (int)n);
	return st;
}

/* The longest console line printed whole, its NUL included: a report's
 * lines are about 110 characters; a longer one is cut. */
#define CONSOLE_LINE_MAX 256

static void print_lines(const char *s, UINTN n)
{
	CHAR16 line[CONSOLE_LINE_MAX];
	UINTN i = 0, k;

	while (i < n) {
		for (k = 0; i < n && s[i] != '\n' && k + 1 < CONSOLE_LINE_MAX;
		     i++, k++)
			line[k] = (CHAR16)s[i];
		line[k] = 0;
		while (i < n && s[i] != '\n')
			i++; /* a line too long for the console is cut */
		i++;
		Print(L"%s\r\n", line);
	}
}

EFI_STATUS report_publish(const struct tsc_report *r, UINTN sim_varmax)
{
	EFI_STATUS st;
	UINTN n;

	n = tsc_report_write(r, text, sizeof(text));
	if (n == 0) {
		Print(L"tsctui: the report does not fit in %d bytes\r\n",
		      (int)sizeof(text));
		return EFI_BUFFER_TOO_SMALL;
	}
	st = set_report(text, n, sim_varmax);
	if (too_big(st))
		st = store_fitted(r, n, sim_varmax);
	Print(L"" TSC_REPORT_BEGIN L"\r\n");
	print_lines(text, n);
	Print(L"" TSC_REPORT_END L"\r\n");
	if (EFI_ERROR(st))
		Print(L"tsctui: could not store the report variable: %r\r\n",
		      st);
	return st;
}

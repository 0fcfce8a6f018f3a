/* SPDX-License-Identifier: MIT */
/*
 * The report leaves the stage twice: as the volatile variable TsctuiReport
 * (BOOTSERVICE|RUNTIME, never NON_VOLATILE: it lives in RAM, is readable
 * from Linux for this boot only, and wears no flash), and on the console
 * between marker lines, for logs and for a person watching.
 */
#include "stage.h"

static EFI_GUID report_guid = { 0x503ecfa9, 0x0287, 0x4bb9,
				{ 0xa4, 0xe1, 0x41, 0x75, 0x1a, 0x6d, 0x7c,
				  0x4c } };

static char text[TSC_REPORT_MAX_TEXT];

static void print_lines(const char *s, UINTN n)
{
	CHAR16 line[256];
	UINTN i = 0, k;

	while (i < n) {
		for (k = 0; i < n && s[i] != '\n' && k + 1 < 256; i++, k++)
			line[k] = (CHAR16)s[i];
		line[k] = 0;
		while (i < n && s[i] != '\n')
			i++; /* a line too long for the console is cut */
		i++;
		Print(L"%s\r\n", line);
	}
}

EFI_STATUS report_publish(const struct tsc_report *r)
{
	EFI_STATUS st;
	UINTN n;

	n = tsc_report_write(r, text, sizeof(text));
	if (n == 0) {
		Print(L"tsctui: the report does not fit in %d bytes\r\n",
		      (int)sizeof(text));
		return EFI_BUFFER_TOO_SMALL;
	}
	st = uefi_call_wrapper(RT->SetVariable, 5, L"TsctuiReport",
			       &report_guid,
			       EFI_VARIABLE_BOOTSERVICE_ACCESS |
				       EFI_VARIABLE_RUNTIME_ACCESS,
			       n, text);
	Print(L"--- tsctui report begin ---\r\n");
	print_lines(text, n);
	Print(L"--- tsctui report end ---\r\n");
	if (EFI_ERROR(st))
		Print(L"tsctui: could not store the report variable: %r\r\n",
		      st);
	return st;
}

/* SPDX-License-Identifier: MIT */
/*
 * Where the stage leaves its report (ARCHITECTURE 4.2), spelled once for
 * the stage, tsctui and the tests (tests/lib/reportvar.py reads this file):
 * the volatile EFI variable, and the console lines around its copy there.
 */
#ifndef TSCTUI_COMMON_REPORT_VAR_H
#define TSCTUI_COMMON_REPORT_VAR_H

#define TSC_REPORT_VAR_NAME "TsctuiReport"

/* The vendor GUID in its parts, the way EFI_GUID holds them; both forms
 * below are made from this one list. */
#define TSC_REPORT_VAR_GUID(X)                                                 \
	X(503ecfa9, 0287, 4bb9, a4, e1, 41, 75, 1a, 6d, 7c, 4c)

#define TSC_GUID_TEXT_(a, b, c, d0, d1, d2, d3, d4, d5, d6, d7)                \
#a "-" #b "-" #c "-" #d0 #d1 "-" #d2 #d3 #d4 #d5 #d6 #d7
#define TSC_GUID_INIT_(a, b, c, d0, d1, d2, d3, d4, d5, d6, d7)                \
	{                                                                      \
		0x##a, 0x##b, 0x##c,                                           \
		{                                                              \
			0x##d0, 0x##d1, 0x##d2, 0x##d3, 0x##d4, 0x##d5,        \
				0x##d6, 0x##d7                                 \
		}                                                              \
	}

/* "503ecfa9-0287-4bb9-a4e1-41751a6d7c4c" */
#define TSC_REPORT_VAR_GUID_TEXT TSC_REPORT_VAR_GUID(TSC_GUID_TEXT_)
/* An initializer for EFI_GUID. */
#define TSC_REPORT_VAR_GUID_INIT TSC_REPORT_VAR_GUID(TSC_GUID_INIT_)
/* Its file under /sys/firmware/efi/efivars. */
#define TSC_REPORT_VAR_FILE TSC_REPORT_VAR_NAME "-" TSC_REPORT_VAR_GUID_TEXT

/* The resume guard's own non-volatile variable, under the same GUID
 * (ARCHITECTURE 3: on a resume boot the ESP and the grubenv belong to the
 * hibernated kernel).  Present: a resume boot's stage started and has not
 * returned cleanly (DESIGN.md 7.1). */
#define TSC_RESUME_VAR_NAME "tsctui_resume"
#define TSC_RESUME_VAR_FILE TSC_RESUME_VAR_NAME "-" TSC_REPORT_VAR_GUID_TEXT

/* The lines around the console copy. */
#define TSC_REPORT_BEGIN "--- tsctui report begin ---"
#define TSC_REPORT_END "--- tsctui report end ---"

#endif

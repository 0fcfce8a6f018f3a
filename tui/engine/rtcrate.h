/* SPDX-License-Identifier: MIT */
/*
 * A short measurement of the TSC's rate against the RTC alone, for the
 * question the clocksource watchdog cannot answer: when it dropped the TSC,
 * was the TSC wrong or its own reference?  Only the RTC is a third opinion:
 * after the drop CLOCK_MONOTONIC_RAW runs on the watchdog's reference (hpet
 * or acpi_pm), the very clock in doubt, so it is never used here.
 */
#ifndef TSCTUI_ENGINE_RTCRATE_H
#define TSCTUI_ENGINE_RTCRATE_H

#include <stdbool.h>

#include "reftick.h"

/*
 * Three RTC seconds: the edges come from interrupts (about 10 us late at
 * worst) or from polling the RTC's time (one read, tens of us, in a VM);
 * 50 us over 3 s is 17 ppm, well inside the 250 ppm that tells a good TSC
 * from one whose rate changed (docs/DESIGN.md).  At most 4 s and a little
 * of waiting, only when the watchdog dropped the TSC.
 */
#define RTCRATE_SECONDS 3

struct rtcrate {
	bool measured;
	enum ref_kind ref; /* REF_RTC or REF_RTC_POLLED when measured */
	double seconds;	   /* RTC seconds spanned */
	double mhz;	   /* the TSC's rate against the RTC */
	double ppm;	   /* against the kernel's calibration */
	char why[160];	   /* when not measured */
};

/* Measures for `seconds` RTC seconds; kernel_mhz is the kernel's
 * calibration (0: no ppm can be given, and measured stays false). */
void rtcrate_measure(unsigned seconds, double kernel_mhz, struct rtcrate *out);

#endif

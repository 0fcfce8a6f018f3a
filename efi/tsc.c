/* SPDX-License-Identifier: MIT */
/* The TSC rate, counted against the firmware's Stall (which firmware times
 * with a fixed-rate timer: the ACPI PM timer or HPET in OVMF). */
#include "stage.h"

/* 20 ms: long enough that a Stall's own overhead (microseconds) is below
 * 0.1%, short enough to be lost in the boot. */
#define CALIBRATE_US 20000

UINT64 tsc_calibrate_hz(void)
{
	UINT64 t0, t1;

	t0 = tsc_read_ordered();
	uefi_call_wrapper(BS->Stall, 1, CALIBRATE_US);
	t1 = tsc_read_ordered();
	return (t1 - t0) * (1000000 / CALIBRATE_US);
}

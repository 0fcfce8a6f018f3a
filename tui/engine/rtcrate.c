/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rtcrate.h"

void rtcrate_measure(unsigned seconds, double kernel_mhz, struct rtcrate *out)
{
	struct reftick ref;
	double t0, t;
	uint64_t c0, c;
	unsigned k;

	memset(out, 0, sizeof(*out));
	if (kernel_mhz <= 0) {
		snprintf(
			out->why, sizeof(out->why),
			"the kernel logged no TSC calibration to compare with");
		return;
	}
	/* "tsc": never fall back to CLOCK_MONOTONIC_RAW (see the header). */
	reftick_open(&ref, "tsc");
	if (ref.kind != REF_RTC && ref.kind != REF_RTC_POLLED) {
		snprintf(out->why, sizeof(out->why), "%s", ref.why);
		reftick_close(&ref);
		return;
	}
	if (!reftick_sample(&ref, &t0, &c0)) {
		snprintf(out->why, sizeof(out->why),
			 "the RTC's second never changed");
		reftick_close(&ref);
		return;
	}
	for (k = 0; k < seconds; k++) {
		if (!reftick_sample(&ref, &t, &c)) {
			snprintf(out->why, sizeof(out->why),
				 "the RTC's second stopped changing");
			reftick_close(&ref);
			return;
		}
	}
	out->ref = ref.kind;
	reftick_close(&ref);
	if (t <= t0 || c <= c0) {
		snprintf(out->why, sizeof(out->why),
			 "the RTC or the TSC went backwards");
		return;
	}
	out->measured = true;
	out->seconds = t - t0;
	out->mhz = (double)(c - c0) / out->seconds / 1e6;
	out->ppm = (out->mhz - kernel_mhz) / kernel_mhz * 1e6;
}

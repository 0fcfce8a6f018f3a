/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rate.h"
#include "rtcrate.h"

void rtcrate_measure(unsigned seconds, double kernel_mhz, struct rtcrate *out)
{
	struct reftick ref;
	struct rate rate;
	double t;
	uint64_t c;
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
		/* Cut to fit, as status has always printed it. */
		snprintf(out->why, sizeof(out->why), "%.*s",
			 (int)sizeof(out->why) - 1, ref.why);
		reftick_close(&ref);
		return;
	}
	/* The same arithmetic as check and the dashboard (engine/rate.c). */
	rate_init(&rate, kernel_mhz);
	for (k = 0; k <= seconds; k++) {
		if (!reftick_sample(&ref, &t, &c)) {
			snprintf(out->why, sizeof(out->why),
				 "the RTC's second stopped changing");
			reftick_close(&ref);
			return;
		}
		rate_tick(&rate, c, t);
	}
	out->ref = ref.kind;
	reftick_close(&ref);
	if (rate.n == 0) {
		snprintf(out->why, sizeof(out->why),
			 "the RTC or the TSC went backwards");
		return;
	}
	out->measured = true;
	out->seconds = rate.last_t - rate.first_t;
	out->mhz = rate_cumulative_mhz(&rate);
	out->ppm = rate_ppm(&rate, out->mhz);
}

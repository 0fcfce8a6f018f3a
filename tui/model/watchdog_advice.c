/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "watchdog_advice.h"

enum watchdog_rate watchdog_advice_rate(const struct tsc_rate_check *r)
{
	if (!r || !r->measured)
		return WATCHDOG_RATE_NONE;
	return fabs(r->ppm) <= WATCHDOG_RATE_GOOD_PPM ? WATCHDOG_RATE_WITHIN
						      : WATCHDOG_RATE_OUTSIDE;
}

static void rec(struct watchdog_advice *a, const char *r)
{
	if (a->nrecs < 2)
		a->recs[a->nrecs++] = r;
}

/* What a change of the TSC's rate comes from, said where the rate is in
 * doubt. */
#define RATE_CAUSES                                                            \
	"a TSC's rate changes when its reference clock does: on AMD the "      \
	"TSC follows the base clock (BCLK), so a tool or BIOS setting that "   \
	"lowers it slows the TSC"

/* Where tsc=nowatchdog is advised on a kernel with the 2026 watchdog,
 * say what else it turns off. */
static void nowatchdog_scope(const struct watchdog_case *c,
			     struct watchdog_advice *a)
{
	size_t n = strlen(a->why);
	int i;

	for (i = 0; i < a->nrecs; i++)
		if (!strcmp(a->recs[i], "add-nowatchdog") && c->watchdog_2026)
			snprintf(a->why + n, sizeof(a->why) - n,
				 " On this kernel tsc=nowatchdog also turns "
				 "off the watchdog's test of each CPU's TSC "
				 "against the boot CPU's.");
}

void watchdog_advice_decide(const struct watchdog_case *c,
			    struct watchdog_advice *a)
{
	double skew = fabs(c->skew_ppm);
	bool nowd = !c->nowatchdog_set;

	memset(a, 0, sizeof(*a));
	a->rate = watchdog_advice_rate(&c->rate);
	if (c->cpus_apart) {
		/* A rate can be right on every CPU while their TSCs disagree:
		 * no rate measurement clears that. */
		a->row = WATCHDOG_ROW_CPUS_APART;
		snprintf(a->why, sizeof(a->why),
			 "The watchdog's cross-CPU check found CPUs whose TSC "
			 "is ahead of or behind the others: the TSCs are "
			 "apart between CPUs, which tsc=nowatchdog would "
			 "hide; measure the offsets (`tsctui check`).");
		rec(a, "measure-rate");
		return;
	}
	if (a->rate == WATCHDOG_RATE_WITHIN) {
		a->row = WATCHDOG_ROW_RATE_GOOD;
		snprintf(a->why, sizeof(a->why),
			 "Against the RTC the TSC runs %+.1f ppm from its "
			 "calibration (within %.0f ppm), so the watchdog's "
			 "reference was at fault: tsc=nowatchdog keeps the "
			 "TSC while the warp test still guards it.",
			 c->rate.ppm, WATCHDOG_RATE_GOOD_PPM);
		if (nowd)
			rec(a, "add-nowatchdog");
		nowatchdog_scope(c, a);
		return;
	}
	if (a->rate == WATCHDOG_RATE_OUTSIDE) {
		a->row = WATCHDOG_ROW_RATE_CHANGED;
		snprintf(a->why, sizeof(a->why),
			 "Against the RTC the TSC runs %+.1f ppm from its "
			 "calibration (beyond %.0f ppm): the watchdog was "
			 "right, and tsc=nowatchdog would keep a clock that "
			 "runs wrong: %s; undo that and measure again.",
			 c->rate.ppm, WATCHDOG_RATE_GOOD_PPM, RATE_CAUSES);
		return;
	}
	rec(a, "measure-rate");
	if (c->reference_slow) {
		a->row = WATCHDOG_ROW_REFERENCE;
		snprintf(a->why, sizeof(a->why),
			 "The kernel dropped the TSC because reading its "
			 "reference took too long, not for a skew (5.14-5.15 "
			 "did so; later kernels skip that round instead): the "
			 "fault lies with the reference. Measure the rate "
			 "(`tsctui check`); if it holds, tsc=nowatchdog keeps "
			 "the TSC.");
		if (nowd)
			rec(a, "add-nowatchdog");
	} else if (!c->skew_known) {
		a->row = WATCHDOG_ROW_UNKNOWN;
		snprintf(a->why, sizeof(a->why),
			 "Without the skew's size, whether the TSC or the "
			 "watchdog's reference was wrong is not known: "
			 "measure the TSC's rate against the RTC (`tsctui "
			 "check`) before turning the watchdog off.");
	} else if (skew >= WATCHDOG_STALL_PPM) {
		a->row = WATCHDOG_ROW_STALLED;
		snprintf(a->why, sizeof(a->why),
			 "A skew of %.0f%% is no drift: a clock stalled or "
			 "jumped, and turning the watchdog off would hide "
			 "it; measure the rate against the RTC (`tsctui "
			 "check`).",
			 skew / 1e4);
	} else if (skew > WATCHDOG_PLAUSIBLE_PPM) {
		a->row = WATCHDOG_ROW_TOO_LARGE;
		snprintf(a->why, sizeof(a->why),
			 "%.0f ppm is more than a bad reference makes of a "
			 "good TSC (up to %.0f ppm): %s. Measure the rate "
			 "against the RTC (`tsctui check`) before anything "
			 "else.",
			 skew, WATCHDOG_PLAUSIBLE_PPM, RATE_CAUSES);
	} else {
		a->row = WATCHDOG_ROW_PLAUSIBLE;
		snprintf(a->why, sizeof(a->why),
			 "A skew this size is what a bad reference makes of "
			 "a good TSC, but only a rate measurement against "
			 "the RTC tells which is wrong: measure it (`tsctui "
			 "check`); if it holds within %.0f ppm, "
			 "tsc=nowatchdog keeps the TSC while the warp test "
			 "still guards it.",
			 WATCHDOG_RATE_GOOD_PPM);
		if (nowd)
			rec(a, "add-nowatchdog");
	}
	nowatchdog_scope(c, a);
}

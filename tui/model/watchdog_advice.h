/* SPDX-License-Identifier: MIT */
/*
 * What to advise when the clocksource watchdog dropped the TSC: one
 * decision table over the watchdog's skew and a measurement of the TSC's
 * rate against the RTC (docs/DESIGN.md 9.3 gives the bounds and their
 * reasons).  Pure: the diagnosis fills the case from the snapshot, and
 * the same table serves the which-clock advice.
 */
#ifndef TSCTUI_MODEL_WATCHDOG_ADVICE_H
#define TSCTUI_MODEL_WATCHDOG_ADVICE_H

#include <stdbool.h>

#include "../source/system.h"

/* The TSC against the RTC within this many ppm of the kernel's
 * calibration: a good TSC.  Half the watchdog's own trip point (about
 * 500 ppm over its 0.5 s interval): a TSC this close could not have
 * tripped a sound watchdog by itself.  Crystals (TSC and RTC, +-20 to
 * 100 ppm each) sit well inside it. */
#define WATCHDOG_RATE_GOOD_PPM 250.0
/* The largest skew a good TSC can be charged with by a bad reference:
 * the field trips (E595: +1800 and -850 ppm, flipping sign between
 * boots) are 850-1800 ppm; 5000 ppm is 2.5 ms over a 0.5 s interval,
 * more than late reads of the reference have been seen to explain.
 * Beyond it the TSC's rate changed (a base clock lowered by half a per
 * cent or more), or a clock stalled. */
#define WATCHDOG_PLAUSIBLE_PPM 5000.0
/* Tens of per cent: no drift at all, a clock stalled or jumped. */
#define WATCHDOG_STALL_PPM 100000.0

enum watchdog_rate {
	WATCHDOG_RATE_NONE,    /* no measurement against the RTC */
	WATCHDOG_RATE_WITHIN,  /* within WATCHDOG_RATE_GOOD_PPM */
	WATCHDOG_RATE_OUTSIDE, /* beyond it */
};

/* The table's input. */
struct watchdog_case {
	bool skew_known; /* the log gave both intervals */
	double skew_ppm;
	/* The kernel dropped the TSC because its reference read slowly
	 * (5.14-5.15's read-back delay), not for a skew. */
	bool reference_slow;
	/* The watchdog's cross-CPU check found CPUs ahead of or behind the
	 * one it ran on: the TSCs are apart, whatever the reference. */
	bool cpus_apart;
	struct tsc_rate_check rate; /* the live one, assess.h */
	bool nowatchdog_set;	    /* tsc=nowatchdog already on */
	/* The kernel has the 2026 watchdog, where tsc=nowatchdog also
	 * turns off its test of each CPU against the boot CPU. */
	bool watchdog_2026;
};

enum watchdog_row {
	WATCHDOG_ROW_RATE_GOOD,	   /* measured within: the reference lied */
	WATCHDOG_ROW_RATE_CHANGED, /* measured outside: the watchdog was
				      right */
	WATCHDOG_ROW_PLAUSIBLE,	   /* not measured, a skew a bad reference
				      explains */
	WATCHDOG_ROW_REFERENCE,	   /* not measured, dropped for a slow read */
	WATCHDOG_ROW_TOO_LARGE,	   /* not measured, beyond a bad reference */
	WATCHDOG_ROW_STALLED,	   /* not measured, tens of per cent */
	WATCHDOG_ROW_UNKNOWN,	   /* not measured, the skew not logged */
	WATCHDOG_ROW_CPUS_APART,   /* the cross-CPU check found the TSCs
				      apart */
};

struct watchdog_advice {
	enum watchdog_row row;
	enum watchdog_rate rate;
	int nrecs;
	const char *recs[2]; /* ARCHITECTURE 4.5 names, in order */
	char why[512];	     /* one or two sentences for the summary */
};

enum watchdog_rate watchdog_advice_rate(const struct tsc_rate_check *r);
void watchdog_advice_decide(const struct watchdog_case *c,
			    struct watchdog_advice *out);

#endif

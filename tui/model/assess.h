/* SPDX-License-Identifier: MIT */
/*
 * One decision over one read: what the front ends show and act on, derived
 * once from the system snapshot (source/system.h) and what was measured
 * live, as chrony's REF_GetTrackingReport derives the report its client
 * and daemon only format.  Pure: no file is read here, so a unit test
 * states a case as a snapshot (tests/unit/test_assess.c).  cli/ and ui/
 * include model/ through this header alone (tests/build/rooms.t); the
 * headers below give the types they word.
 */
#ifndef TSCTUI_MODEL_ASSESS_H
#define TSCTUI_MODEL_ASSESS_H

#include <stdbool.h>
#include <stdint.h>

#include "../engine/engine.h"
#include "../engine/rtcrate.h"
#include "../source/system.h"
#include "diagnosis.h"
#include "fixers.h"
#include "rtc_plan.h"
#include "setup.h"
#include "setup_check.h"
#include "trust.h"
#include "watchdog_advice.h"

/* What was measured on the running machine, beside what was read. */
struct assess_live {
	/* The TSC's rate against the RTC (measured false: none yet). */
	struct tsc_rate_check rate;
	bool checking; /* the guided setup's five-minute check started */
	/* A survey of this machine's cores for the trust answer (NULL:
	 * none ran), or the survey that failed. */
	const struct tsc_report *survey;
	bool survey_failed;
};

struct assessment {
	struct diagnosis diag; /* what is wrong, the advice, health */
	struct setup setup;    /* the guided setup's step */
	/* tsctui.conf was read: mode, guard and uninstall have a stage to
	 * act on. */
	bool installed;
	bool healthy;	 /* status exits 0 */
	bool nowatchdog; /* kernel-arg has tsc=nowatchdog set */
	/* The hang guard gave up on sync after GUARD_MAX_STRIKES. */
	bool struck_out;
	/* Can programs that read the TSC themselves rely on it. */
	struct trust_out trust;
	/* Which clocksource watchdog the kernel has, what decided it (its
	 * wording, else the kernel's version), and the skew at which it
	 * drops the TSC (docs/DESIGN.md 9.2); limit_ppm 0 when unknown. */
	enum klog_watchdog watchdog;
	enum klog_watchdog_by watchdog_by;
	double watchdog_limit_ppm;
};

void assess_make(const struct sysinfo *s, const struct assess_live *l,
		 struct assessment *a);

/*
 * Whether the rate against the RTC would decide the advice and may be
 * measured: the watchdog dropped the TSC, and the log and the root are
 * the running machine's (the live RTC would judge another machine's TSC
 * wrongly).
 */
bool assess_rate_wanted(const struct assessment *a, bool this_machine);
/* A measurement by `status` (engine/rtcrate.h) as the advice takes it. */
void assess_rate_from_rtcrate(const struct rtcrate *m,
			      struct tsc_rate_check *rc);
/* The dashboard engine's rate as the advice takes it, once it spans
 * RTCRATE_SECONDS of the RTC; false (rc untouched) before. */
bool assess_rate_from_engine(const struct engine_snapshot *snap,
			     struct tsc_rate_check *rc);

/* `check`'s health rule for one sample: no warp on any core and the
 * kernel on the TSC. */
bool assess_sample_healthy(uint32_t warps, const char *clocksource);

/*
 * Can programs trust the TSC, with the live engine's cores (snap, NULL
 * when it has none) in place of status' one survey, on the machine
 * itself (this_machine: no --root, no --kernel-log) and not a guest: a
 * warp or a core judged bad is a no, a core not yet measured a
 * cannot-tell (model/trust.c decides, DESIGN 9.7).  Elsewhere the
 * assessment's answer from the files and the log, as it is.
 */
void assess_live_trust(const struct assessment *a, const struct sysinfo *s,
		       const struct engine_snapshot *snap, bool this_machine,
		       struct trust_out *out);

#endif

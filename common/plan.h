/* SPDX-License-Identifier: MIT */
/*
 * The sync plan: pure decisions over measured offsets (AP minus BSP, in
 * cycles).  Counters only move forward for large corrections, because a
 * running counter seen going backwards is exactly the fault we fix; small
 * backward steps fine-tune an AP that overshot.
 *
 *   1. If APs are ahead, move the BSP forward: to the median AP when the APs
 *      agree within TSC_AGREE_SPAN (the E595/Legion pattern: the BSP alone
 *      lags), else to the furthest-ahead AP (then every AP is behind or
 *      level, and step 2 brings each forward); only once the estimate it
 *      is aimed with repeats (tsc_plan_repeats).
 *   2. Move every AP that still lags forward to the BSP; fine-tune.
 */
#ifndef TSCTUI_COMMON_PLAN_H
#define TSCTUI_COMMON_PLAN_H

#include "tsc.h"
#include "verdict.h"

/* Reference design values; docs/DESIGN.md has the table with reasons. */
/* 1.5e11 cycles is ~70 s at 2 GHz, 20x the worst lag seen (3.3 s);
 * anything further is not this fault, and is left alone. */
#define TSC_FORWARD_CAP 150000000000LL
/* Backward steps only fine-tune: 1e6 cycles is ~0.5 ms. */
#define TSC_BACKWARD_CAP 1000000LL
/* APs agreeing this closely lag together: the BSP is the odd one out. */
#define TSC_AGREE_SPAN 1000000LL
/* An AP ahead by less than this is noise, not a reason to move the BSP. */
#define TSC_SURVEY_NOISE 200
/* The landing error of a write is learned only when this plausible. */
#define TSC_SHORTFALL_MAX 5000
/* Measure/adjust iterations per AP before giving up. */
#define TSC_MAX_ITER 12
/* Writes per AP in a run, its first included: the coarse move, then at
 * most three corrections.  A write that lands where it was aimed (20 to
 * 150 cycles of latency, learned after the first) needs one or two; more
 * than that means writes do not land where aimed, and more of them only
 * add chances to land badly (docs/DESIGN.md 3.4). */
#define TSC_AP_WRITES_MAX 4
/* The BSP's corrections after its big move (1 + this many writes). */
#define TSC_BSP_STEER_MAX 4
/* Whole tests run again per AP when one's windows disagree
 * (tsc_plan_offset_trusted); after these the last verdict stands. */
#define TSC_RETEST_MAX 2
/* Aim for an AP offset within this many cycles. */
#define TSC_TARGET 10

enum tsc_bsp_rule { TSC_BSP_NONE, TSC_BSP_MEDIAN, TSC_BSP_FURTHEST };

/*
 * How far to move the BSP forward.  offsets[i] and rtts[i] are the APs'
 * survey estimates; usable[i] false leaves AP i out (beyond a cap, or
 * unmeasured).  An AP counts as ahead only beyond tsc_ahead_noise() of its
 * own round trip.  Returns the shift (>= 0) and the rule applied.
 */
int64_t tsc_plan_bsp(const int64_t *offsets, const uint64_t *rtts,
		     const bool *usable, uint32_t n, enum tsc_bsp_rule *rule);

/*
 * Whether two ping-pong estimates of one counter, taken one after the
 * other with nothing written between, are the same offset seen twice.
 * Each lies within about half its round trip of the truth (the AP read its
 * counter between the BSP's two reads; the samples averaged are at most
 * tsc_est_window slower, and a coarse counter reads up to a tick late), so
 * two honest ones differ by at most the sum of those bounds.  The slack of
 * TSC_SURVEY_NOISE absorbs what a bound from the round trip cannot: a
 * responder moved between cores that read a few tens of cycles apart.
 * Estimates further apart did not see one fixed counter, and no move may
 * be aimed at either (docs/DESIGN.md 3.3, "A move on estimates that
 * repeat").
 */
bool tsc_plan_repeats(int64_t first, uint64_t rtt_first, int64_t second,
		      uint64_t rtt_second, uint64_t tick);

/* Below this an AP "ahead" is noise: TSC_SURVEY_NOISE, or a quarter of the
 * round trip when that is larger (the estimate's systematic bias). */
uint64_t tsc_ahead_noise(uint64_t rtt);

/* Within the caps, in either direction: an AP further off is left alone and
 * takes no part in the plan. */
bool tsc_plan_reachable(int64_t offset);

enum tsc_ap_action {
	TSC_AP_DONE,	       /* within the band */
	TSC_AP_FORWARD,	       /* lagging: move forward */
	TSC_AP_BACKWARD,       /* slightly ahead: fine-tune back */
	TSC_AP_TOO_FAR_BEHIND, /* beyond the forward cap: leave alone */
	TSC_AP_TOO_FAR_AHEAD,  /* beyond the backward cap: leave alone */
};

/*
 * The band an AP must reach: the target, at least one tick (a write of whole
 * ticks cannot land closer than half a tick, plus noise), and at least 1/16
 * of the round trip (finer than that is the estimator's own noise; chasing
 * it only adds writes).
 */
uint64_t tsc_sync_band(uint64_t rtt, uint64_t tick);
/*
 * The band for an AP nothing has been written to yet: at least the ok limit
 * of the verdicts, and at least a quarter of the round trip.  A write only
 * adds landing error; an offset below the one-way latency cannot be seen as
 * a warp by the kernel's check or by any program (a reading cannot reach
 * the other core faster than that); and on shared hosts an estimate's
 * systematic bias was measured at up to rtt/4 (docs/DESIGN.md).
 */
uint64_t tsc_sync_band_untouched(uint64_t rtt, uint64_t tick);

/* What to do with an AP at `offset`; *delta is the step to apply
 * (before landing-error compensation), quantised to the tick. */
enum tsc_ap_action tsc_plan_ap(int64_t offset, uint64_t band, uint64_t tick,
			       int64_t *delta);

/*
 * Whether the AP pass touches an AP at all: only when, after the BSP's
 * moves, its survey offset is beyond the survey's noise
 * (tsc_ahead_noise): below that a ping-pong estimate cannot tell a fault
 * from its own bias, and the kernel-style test in the verify decides.
 */
bool tsc_plan_needs_tuning(int64_t survey_offset, uint64_t rtt,
			   int64_t bsp_shift);

/*
 * Whether the verify writes to an AP after a kernel-style test gave it
 * verdict v.  `touched`: the BSP moved or this AP was written this run.
 * A touched AP is steered until `ok`.  An untouched one only on proof:
 * the test saw its counter go backwards (`warped`), as the kernel's would;
 * an estimate alone is not enough, because on the TSC rig the estimates of
 * a healthy machine's APs went past the `bad` limit in 1 boot of 10, and a
 * machine without the fault must get no writes.
 */
bool tsc_plan_steer(enum tsc_verdict v, bool touched, bool warped);
/*
 * The other side of that rule: an AP the sync left as it is although its
 * test calls it `bad` (nothing moved it and no warp was seen).  A two-way
 * test cannot tell an offset of a few tens of cycles from a path that is
 * slower one way (on Zen, between CCXs; on the TSC rig, the host's CPUs
 * reading their clocks apart: healthy APs read 45 to 60 cycles off, with
 * the oracle at 0), and a write aimed at such a reading puts a real offset
 * where there may be none.  So it is not written, and its note says why
 * (TSC_NOTE_UNPROVEN), so that `out-of-sync` after a sync that wrote
 * nothing is explained; the kernel, which catches offsets by the warps it
 * sees, judges it.  In measure mode nothing is written anyway: no note.
 */
bool tsc_plan_unproven(enum tsc_verdict v, bool touched, bool warped);

/*
 * Whether a kernel-style test's offset may move a counter at all: its
 * windows (tsc_warp_result) must agree within the floor F.  Counters of
 * one machine do not drift apart by a handoff within 20 ms, so windows
 * further apart than that saw something else: a vCPU thread descheduled,
 * or on real firmware an SMI, during the test.  On the TSC rig under load
 * one healthy AP's windows read 0 and -4.06e6 cycles (spread 4060382, mean
 * -2030223) while the others' spread was 4 to 20 at a floor of 228.  Such
 * a test is run again, never written from.  Within TSC_TRUST_SPREAD the
 * windows agree whatever F.
 */
bool tsc_plan_offset_trusted(uint64_t spread, uint64_t floor);

/*
 * Whether a trusted test is steady enough to aim a write or to learn a
 * landing from: its windows within max(F/4, TSC_STEER_SPREAD, 4 ticks) of
 * each other (a counter that ticks in 21s quantises each window's offset
 * to half ticks: GRUB's sim boot on such a host steered from a spread of
 * 73).  On the TSC rig steady tests' windows agreed within 0 to 22
 * cycles, and the tests whose windows were 149 to 211 apart (below F, so
 * trusted) erred by up to 92 cycles against the rig's oracle: one such
 * test taught a landing error of 75 where the writes landed 20 late, and
 * the AP ended 118 off instead of 15.  Such a test is run again.
 */
bool tsc_plan_offset_steady(uint64_t spread, uint64_t floor, uint64_t tick);
#define TSC_STEER_SPREAD 40u
/* TSC_TRUST_SPREAD: verdict.h, which never calls such a test ok. */

/*
 * Whether a kernel-style test was fed: it saw handoffs both ways in more
 * than half of its TSC_WARP_WINDOWS_MAX windows, and made at least
 * TSC_WARP_MIN_ROUNDS handoffs.  One that was not was starved (a side
 * descheduled for much of it), and its few handoffs' gaps are not the
 * fastest: on the host simulator under TCG three such tests (608, 902 and
 * 1,878 handoffs, 2 to 4 windows, their windows 1 to 21 cycles apart)
 * read 173 to 210 cycles off the truth, where 170 tests of 2,325 to
 * 18,385 handoffs erred by at most 40.  A fed 2 ms test makes 4,000 to
 * 5,000 handoffs there, and hardware, whose cache line crosses cores in
 * about 100 ns, makes several times that.  A starved test is run again;
 * its offset never steers, teaches or judges (a warp it saw still
 * counts: that is proof).
 */
#define TSC_WARP_MIN_ROUNDS 2000u
bool tsc_plan_test_fed(uint32_t windows, uint32_t rounds);

/*
 * Landing error ("shortfall") of TSC writes: wrmsr(rdtsc() + delta) lands
 * short by the cycles between the read and the write taking effect.  Learned
 * from each write's measured effect, ignoring implausible values.
 */
struct tsc_shortfall {
	int64_t sum;
	uint32_t n;
	uint32_t rejected;
	int64_t lo, hi; /* the range of the plausible ones */
};

void tsc_shortfall_learn(struct tsc_shortfall *s, int64_t requested,
			 int64_t achieved);
int64_t tsc_shortfall_comp(const struct tsc_shortfall *s);
/*
 * Whether a correction of `offset` is worth a write: not once two or more
 * writes have landed further apart than twice the correction (the next
 * one would as likely land further off than where the counter is).  The
 * write's landing error is what cannot be corrected, however well learned.
 */
bool tsc_shortfall_worth(const struct tsc_shortfall *s, int64_t offset);

/*
 * The largest landing error a `rdtsc; add; wrmsr` can have on hardware,
 * with the error of learning it: the slowest landing assumed (150 + 30
 * cycles, docs/DESIGN.md 11.2) plus two tests' or a survey's error (up to
 * about 130 cycles on the TSC rig), with room.  A landing further off
 * than this, yet within TSC_SHORTFALL_MAX (beyond is a one-off glitch),
 * is not a latency: the block was interrupted or emulated (TCG lands
 * writes 160 to 2200 cycles late, a different amount each time), and the
 * next write would land as far off, so no fine correction is made.
 */
#define TSC_LANDING_PLAUSIBLE 400
/* Whether the landing error learned is larger, in magnitude, than the
 * `noise` of the measurements it was learned from: only then is it more
 * than that noise (a figure within it may be the noise alone). */
bool tsc_shortfall_beyond(const struct tsc_shortfall *s, uint64_t noise);
/* The largest plausible landing error learned, in magnitude (0: none). */
uint64_t tsc_shortfall_worst(const struct tsc_shortfall *s);

/*
 * Whether a correction aimed at offset 0 missed by more than a landing
 * can on hardware, so that the next one would be as much a lottery: the
 * counter went from `before` to `after`, further off than before by more
 * than TSC_WARP_OK_ABS (a test's own noise), and further off than
 * TSC_LANDING_MISS.  That bound is two landings' jitter at the slowest
 * landing assumed (2 x 30 cycles: the aim used one learned landing, the
 * write had its own; docs/DESIGN.md 11.2) plus two kernel-style tests'
 * error (2 x TSC_WARP_OK_ABS: the landing was learned from the difference
 * of two).  A miss within it is the landing model's noise, not wild
 * writes: on the host simulator under TCG (writes exact to +-20 cycles)
 * a landing of -22 learned from one such write aimed the next 36 cycles
 * off an AP that had been 14 off, and stopping there left it 36 off by
 * the stage's own test, near the `bad` limit where the floor is low.
 * TCG's own timing (writes 160 to 2200 cycles late, a different amount
 * each time) misses by hundreds.
 */
#define TSC_LANDING_MISS 100
bool tsc_plan_landing_missed(int64_t before, int64_t after);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The kernel's boot-time check, run the kernel's way.
 *
 * Linux decides whether to keep the TSC in check_tsc_warp()
 * (arch/x86/kernel/tsc_sync.c): the two CPUs loop for milliseconds, each
 * taking one spinlock, reading the last TSC value stored under it, reading
 * its own TSC and storing that, with no turns: whoever gets the lock goes.
 * A "warp" is a reading below the previous one; after a handoff between
 * the CPUs that happens when the offset between them exceeds the time the
 * handoff took.  The fastest handoffs decide, and a free-running loop makes
 * far more of them than a strict-turn test (docs/DESIGN.md, "The verify
 * is the kernel's test").
 *
 * This test is the same loop, for the same time, and records one more fact
 * per handoff: who stored the previous value.  The smallest gap seen in
 * each direction is what the kernel's verdict turns on:
 *
 *   to_ap  = min over BSP->AP handoffs of (AP reading - BSP reading) = L + d
 *   to_bsp = min over AP->BSP handoffs of (BSP reading - AP reading) = L - d
 *
 * where d is the AP's offset against the BSP and L the fastest handoff.  A
 * negative gap is a warp.  So d = (to_ap - to_bsp) / 2 is the offset as the
 * kernel's check sees it (it steers the correction), and the margin
 * min(to_ap, to_bsp) is how far the pair is from a warp.
 */
#ifndef TSCTUI_COMMON_WARP_H
#define TSCTUI_COMMON_WARP_H

#include "mailbox.h"

/*
 * The kernel's check_tsc_warp() runs 20 ms for a CPU alone in its package
 * and 2 ms for one that shares it with an online CPU (loop_timeout()); the
 * stage runs the same durations, so its test makes as many handoffs as the
 * kernel's will, and on a one-package laptop costs 2 ms an AP.
 */
#define TSC_WARP_US 20000
#define TSC_WARP_US_SHARED 2000
/* 2 ms: the kernel's run for a CPU that shares a package with an online
 * one; what the live engine (tui/engine/survey.c) spends per core at each
 * refresh, as much as the strict-turn test it replaced. */
#define TSC_WARP_US_LIVE 2000

/*
 * The offset is measured per window of the test, from the TSC_WARP_LOW-th
 * smallest gap of each direction rather than the smallest (one lucky
 * handoff each way), and the windows' offsets are averaged; their range is
 * the spread.  On the TSC rig a single low-statistic offset erred by up to
 * 70 cycles, the average of four by up to about 30 (docs/DESIGN.md).  The
 * margin stays the true minimum over the whole test: that is what makes a
 * warp.
 */
#define TSC_WARP_LOW 8
#define TSC_WARP_WINDOWS TSC_WARP_WINDOWS_MAX

struct tsc_warp_result {
	bool complete;		 /* both sides ran the whole time */
	uint32_t rounds;	 /* handoffs, both directions */
	uint32_t handoffs_to_ap; /* BSP's value seen by the AP next */
	uint32_t handoffs_to_bsp;
	uint32_t
		warps_bsp; /* the BSP read less than the AP's value: AP ahead */
	uint32_t
		warps_ap; /* the AP read less than the BSP's value: AP behind */
	uint64_t max_back;  /* the largest backwards step seen, cycles */
	int64_t gap_to_ap;  /* smallest BSP->AP gap (L + d) */
	int64_t gap_to_bsp; /* smallest AP->BSP gap (L - d) */
	uint32_t windows;   /* windows with enough handoffs both ways */
	int64_t offset;	    /* their mean offset, AP minus BSP */
	uint64_t spread;    /* max - min of their offsets */
	uint64_t worst;	    /* the largest |offset| of one window */
};

/*
 * The windows' offsets from each direction's TSC_WARP_LOW-th smallest gap
 * (INT64_MAX: the window saw too few): windows, offset, spread and worst of
 * *out.  Used by tsc_warp_run(); on its own for the unit tests.
 */
void tsc_warp_combine(struct tsc_warp_result *out, const int64_t *to_ap,
		      const int64_t *to_bsp);

/* At least one window saw enough handoffs both ways: offset, floor and
 * margin are defined. */
bool tsc_warp_two_way(const struct tsc_warp_result *w);
/* The fastest handoff, both directions averaged: (to_ap + to_bsp) / 2. */
int64_t tsc_warp_floor(const struct tsc_warp_result *w);
/* How far from a warp: min(to_ap, to_bsp); negative once one was seen. */
int64_t tsc_warp_margin(const struct tsc_warp_result *w);

/* BSP side: asks the AP in session to run the test for `cycles` of its own
 * counter, runs its half as long, and collects both halves.  False when the
 * AP did not start or finish in time (the result says how far it got). */
bool tsc_warp_run(struct tsc_mailbox *mb, uint64_t cycles,
		  struct tsc_warp_result *out);
/* AP side, called by the responder running on processor cpu. */
void tsc_warp_ap(struct tsc_mailbox *mb, uint32_t cpu, uint64_t cycles);

#endif

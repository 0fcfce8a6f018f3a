/* SPDX-License-Identifier: MIT */
/*
 * Is a core in sync with the BSP?  The kernel-style warp test decides
 * (warp.h): a warp seen, or an offset beyond tsc_warp_bad_limit() by more
 * than half the test's own spread, is `bad`; within tsc_warp_ok_limit(),
 * over a whole test, `ok`; in between `unsure`.  Without that test's
 * two-way figures the ping-pong estimate is all there is, and a verdict
 * states its uncertainty: a round trip of rtt cycles can skew an offset
 * estimate by up to rtt / 2 (one leg may have taken the whole round trip),
 * so an estimate beyond the limit but within that error of it, with no warp
 * seen, is `unsure`: the kernel's own check will decide.
 *
 * The limit, from the field (DOMAIN.md): the kernel accepted Legion cores at
 * -18..+12 cycles and rejected +38..+51; it accepted an E595 core estimated
 * at 45 cycles over a 357-cycle round trip and IdeaPad cores at -28..-42 over
 * slow round trips.  25 cycles sits between the largest offset the kernel
 * always accepted and the smallest it rejected; the rest is uncertainty.
 */
#ifndef TSCTUI_COMMON_VERDICT_H
#define TSCTUI_COMMON_VERDICT_H

#include "tsc.h"

#define TSC_OK_LIMIT 25

struct tsc_measurement {
	bool measured;
	int64_t offset;
	uint64_t rtt;
	uint32_t warps; /* both directions */
	bool warp_complete;
	/* The kernel-style test saw handoffs both ways (warp.h): offset is
	 * its windows' mean, spread their range, rtt twice its floor. */
	bool kernel_test;
	uint64_t spread;
	/* The kernel-style test only: the window offset furthest from 0
	 * (max |d_k|) and the true minimum gap, min(to_ap, to_bsp). */
	uint64_t worst;
	int64_t margin;
};

/*
 * The kernel-style test's limits, from its floor F (the fastest handoff).
 * `ok` within F/8, and never beyond TSC_WARP_OK_ABS cycles, in every window
 * of the test; `bad` beyond F/4 by more than half the windows' spread;
 * `unsure` between.  The kernel warps once an offset exceeds the fastest
 * handoff of its own run, and on the TSC rig that was as low as half the
 * stage's floor with 4 vCPUs and about a third with 8; an estimate errs by
 * up to about 30 cycles there.  So nothing near the kernel's reach is
 * `ok`, and what the kernel caught on 4 vCPUs is `bad`.  On real machines
 * (floors of 40 to 150 cycles) the limits are 5 to 20 and 10 to 40 cycles
 * (DESIGN.md, "The verify is the kernel's test").
 */
uint64_t tsc_warp_ok_limit(uint64_t floor);
/*
 * `ok` never beyond this many cycles, whatever the floor.  F/8 alone grows
 * with a slow handoff: 29 to 49 cycles on the TSC rig (F 230 to 390), 75 to
 * 100 on this host's simulator, where Linux on a Zen laptop rejected +38
 * (DOMAIN.md).  20 is the field's largest accepted offset (-18..+12) with a
 * little room; on real machines (F 40 to 150) F/8 is the smaller one and
 * this changes nothing (docs/DESIGN.md 3.1).
 */
#define TSC_WARP_OK_ABS 20u
/*
 * A kernel-style test's windows this close agree whatever its floor
 * (tsc_plan_offset_trusted, plan.h): a floor can read 0 where the counter
 * ticks coarsely (21 cycles a tick on a nested VM), while a stall (a
 * descheduled vCPU thread, an SMI) costs tens of microseconds, tens of
 * thousands of cycles, so 1000 cycles is far below any stall and far above
 * the 4 to 20 cycles steady windows differ by on the rig.  A test beyond
 * both is never `ok`, never written from and never learned from.
 */
#define TSC_TRUST_SPREAD 1000u
uint64_t tsc_warp_bad_limit(uint64_t floor);

/* The estimate's error bound: half the round trip. */
static inline uint64_t tsc_uncertainty(uint64_t rtt)
{
	return rtt / 2;
}

enum tsc_verdict tsc_verdict_of(const struct tsc_measurement *m);

/* Which clause of the rule above decided a verdict. */
enum tsc_verdict_clause {
	TSC_CLAUSE_NOT_MEASURED, /* unmeasured: it did not answer */
	TSC_CLAUSE_WARP_SEEN,	 /* bad: a backwards step was seen */
	TSC_CLAUSE_BEYOND,	 /* bad: beyond bad_limit */
	TSC_CLAUSE_NEAR,	 /* unsure: beyond ok_limit, within bad_limit */
	TSC_CLAUSE_CUT,		 /* unsure: within ok_limit, warp test cut */
	TSC_CLAUSE_DISTRUSTED,	 /* unsure: the test's windows disagree */
	TSC_CLAUSE_WINDOW,	 /* unsure: the mean within, a window not */
	TSC_CLAUSE_MARGIN,	 /* unsure: the smallest gap below 3F/4 */
	TSC_CLAUSE_WITHIN,	 /* ok: within ok_limit over a whole test */
};

/* A verdict with what decided it, for saying why in words. */
struct tsc_verdict_why {
	enum tsc_verdict verdict;
	enum tsc_verdict_clause clause;
	bool kernel_test; /* the kernel-style rule applied, else the estimate's
			   */
	uint64_t magnitude; /* |offset| */
	uint64_t ok_limit;  /* ok up to this */
	uint64_t error;	    /* allowed on top of the limit: rtt / 2, or half
			     * the kernel-style test's spread */
	uint64_t bad_limit; /* bad beyond this, the error included */
};

/* tsc_verdict_of(), with its deciding clause and the limits it applied. */
void tsc_verdict_explain(const struct tsc_measurement *m,
			 struct tsc_verdict_why *why);

/* The run's result from the per-AP verdicts: any bad -> out-of-sync,
 * else any unsure or unmeasured, or none at all -> unsure, else in-sync. */
enum tsc_result tsc_result_of(const enum tsc_verdict *v, uint32_t n);

#endif

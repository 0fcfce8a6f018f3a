/* SPDX-License-Identifier: MIT */
#include "verdict.h"
#include "plan.h"

uint64_t tsc_warp_ok_limit(uint64_t floor)
{
	return floor / 8 < TSC_WARP_OK_ABS ? floor / 8 : TSC_WARP_OK_ABS;
}

uint64_t tsc_warp_bad_limit(uint64_t floor)
{
	return floor / 4;
}

/*
 * The rule, once: the limits of the test that measured, then the first
 * clause that holds.  tsc_verdict_of() is its verdict.
 */
void tsc_verdict_explain(const struct tsc_measurement *m,
			 struct tsc_verdict_why *w)
{
	uint64_t floor = m->rtt / 2;

	w->kernel_test = m->kernel_test;
	w->magnitude = (uint64_t)tsc_abs64(m->offset);
	if (m->kernel_test) {
		w->ok_limit = tsc_warp_ok_limit(floor);
		w->error = m->spread / 2;
		w->bad_limit = tsc_warp_bad_limit(floor) + w->error;
	} else {
		w->ok_limit = TSC_OK_LIMIT;
		w->error = tsc_uncertainty(m->rtt);
		w->bad_limit = TSC_OK_LIMIT + w->error;
	}
	if (!m->measured) {
		w->verdict = TSC_VERDICT_UNMEASURED;
		w->clause = TSC_CLAUSE_NOT_MEASURED;
	} else if (m->warps) {
		/* A backwards step seen is proof, whatever the estimate says.
		 */
		w->verdict = TSC_VERDICT_BAD;
		w->clause = TSC_CLAUSE_WARP_SEEN;
	} else if (w->magnitude > w->bad_limit) {
		w->verdict = TSC_VERDICT_BAD;
		w->clause = TSC_CLAUSE_BEYOND;
	} else if (w->magnitude > w->ok_limit) {
		w->verdict = TSC_VERDICT_UNSURE;
		w->clause = TSC_CLAUSE_NEAR;
	} else if (!m->warp_complete) {
		w->verdict = TSC_VERDICT_UNSURE;
		w->clause = TSC_CLAUSE_CUT;
	} else if (m->kernel_test &&
		   !tsc_plan_offset_trusted(m->spread, floor)) {
		/* Windows this far apart saw a stall, not the counters: the
		 * stage writes nothing from such a test, nor calls it ok. */
		w->verdict = TSC_VERDICT_UNSURE;
		w->clause = TSC_CLAUSE_DISTRUSTED;
	} else if (m->kernel_test && m->worst > w->ok_limit) {
		/* The mean of the windows can hide one beyond the limit. */
		w->verdict = TSC_VERDICT_UNSURE;
		w->clause = TSC_CLAUSE_WINDOW;
	} else if (m->kernel_test &&
		   (m->margin < 0 || (uint64_t)m->margin * 4 < floor * 3)) {
		/* The fastest handoffs themselves came within F/4 of a
		 * warp: the 8th-smallest gaps the offset is taken from did
		 * not see what the kernel's fastest handoff may see. */
		w->verdict = TSC_VERDICT_UNSURE;
		w->clause = TSC_CLAUSE_MARGIN;
	} else {
		w->verdict = TSC_VERDICT_OK;
		w->clause = TSC_CLAUSE_WITHIN;
	}
}

enum tsc_verdict tsc_verdict_of(const struct tsc_measurement *m)
{
	struct tsc_verdict_why w;

	tsc_verdict_explain(m, &w);
	return w.verdict;
}

enum tsc_result tsc_result_of(const enum tsc_verdict *v, uint32_t n)
{
	bool unsure = n == 0; /* no AP measured: nothing was shown */
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (v[i] == TSC_VERDICT_BAD)
			return TSC_RESULT_OUT_OF_SYNC;
		if (v[i] != TSC_VERDICT_OK)
			unsure = true;
	}
	return unsure ? TSC_RESULT_UNSURE : TSC_RESULT_IN_SYNC;
}

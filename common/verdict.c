/* SPDX-License-Identifier: MIT */
#include "verdict.h"

uint64_t tsc_warp_ok_limit(uint64_t floor)
{
	return floor / 8;
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
	bool unsure = false;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (v[i] == TSC_VERDICT_BAD)
			return TSC_RESULT_OUT_OF_SYNC;
		if (v[i] != TSC_VERDICT_OK)
			unsure = true;
	}
	return unsure ? TSC_RESULT_UNSURE : TSC_RESULT_IN_SYNC;
}

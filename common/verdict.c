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

static enum tsc_verdict kernel_test_verdict(const struct tsc_measurement *m)
{
	uint64_t mag = (uint64_t)tsc_abs64(m->offset);
	uint64_t floor = m->rtt / 2;

	if (mag > tsc_warp_bad_limit(floor) + m->spread / 2)
		return TSC_VERDICT_BAD;
	if (mag > tsc_warp_ok_limit(floor) || !m->warp_complete)
		return TSC_VERDICT_UNSURE;
	return TSC_VERDICT_OK;
}

enum tsc_verdict tsc_verdict_of(const struct tsc_measurement *m)
{
	uint64_t mag;

	if (!m->measured)
		return TSC_VERDICT_UNMEASURED;
	/* A backwards step seen is proof, whatever the estimate says. */
	if (m->warps)
		return TSC_VERDICT_BAD;
	if (m->kernel_test)
		return kernel_test_verdict(m);
	mag = (uint64_t)tsc_abs64(m->offset);
	if (mag <= TSC_OK_LIMIT)
		return m->warp_complete ? TSC_VERDICT_OK : TSC_VERDICT_UNSURE;
	if (mag <= TSC_OK_LIMIT + tsc_uncertainty(m->rtt))
		return TSC_VERDICT_UNSURE;
	return TSC_VERDICT_BAD;
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

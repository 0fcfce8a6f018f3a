/* SPDX-License-Identifier: MIT */
#include "plan.h"
#include "mailbox.h"
#include "estimate.h"

bool tsc_plan_reachable(int64_t offset)
{
	return offset <= TSC_FORWARD_CAP && offset >= -TSC_FORWARD_CAP;
}

uint64_t tsc_ahead_noise(uint64_t rtt)
{
	return rtt / 4 > TSC_SURVEY_NOISE ? rtt / 4 : TSC_SURVEY_NOISE;
}

/* How far an estimate with this fastest round trip can lie from the
 * truth (tsc_plan_repeats). */
static uint64_t estimate_reach(uint64_t rtt, uint64_t tick)
{
	return (rtt + tsc_est_window(rtt, tick)) / 2 + (tick ? tick : 1);
}

bool tsc_plan_repeats(int64_t first, uint64_t rtt_first, int64_t second,
		      uint64_t rtt_second, uint64_t tick)
{
	uint64_t apart = (uint64_t)tsc_abs64(tsc_sub_sat(first, second));

	return apart <= estimate_reach(rtt_first, tick) +
				estimate_reach(rtt_second, tick) +
				TSC_SURVEY_NOISE;
}

/* Median of the usable offsets, by selection without a copy (n is small). */
static int64_t median(const int64_t *v, const bool *usable, uint32_t n,
		      uint32_t count)
{
	uint32_t i, j, below, equal, want = (count - 1) / 2;

	for (i = 0; i < n; i++) {
		if (!usable[i])
			continue;
		below = equal = 0;
		for (j = 0; j < n; j++) {
			if (!usable[j])
				continue;
			if (v[j] < v[i])
				below++;
			else if (v[j] == v[i])
				equal++;
		}
		if (below <= want && want < below + equal)
			return v[i];
	}
	return 0;
}

int64_t tsc_plan_bsp(const int64_t *offsets, const uint64_t *rtts,
		     const bool *usable, uint32_t n, enum tsc_bsp_rule *rule)
{
	int64_t lo = 0, hi = 0, target;
	uint32_t i, count = 0;
	bool ahead = false;

	*rule = TSC_BSP_NONE;
	for (i = 0; i < n; i++) {
		if (!usable[i])
			continue;
		if (count == 0 || offsets[i] < lo)
			lo = offsets[i];
		if (count == 0 || offsets[i] > hi)
			hi = offsets[i];
		if (offsets[i] > (int64_t)tsc_ahead_noise(rtts[i]))
			ahead = true;
		count++;
	}
	if (!ahead)
		return 0;
	if (hi - lo <= TSC_AGREE_SPAN) {
		target = median(offsets, usable, n, count);
		*rule = TSC_BSP_MEDIAN;
		/* A median within noise: the APs are level with the BSP and
		 * only the few ahead need fine-tuning back. */
		for (i = 0; i < n; i++) {
			if (usable[i] && offsets[i] == target &&
			    target <= (int64_t)tsc_ahead_noise(rtts[i])) {
				*rule = TSC_BSP_NONE;
				return 0;
			}
		}
		return target;
	}
	*rule = TSC_BSP_FURTHEST;
	return hi;
}

uint64_t tsc_sync_band(uint64_t rtt, uint64_t tick)
{
	uint64_t band = TSC_TARGET;

	if (tick > band)
		band = tick;
	if (rtt / 16 > band)
		band = rtt / 16;
	return band;
}

uint64_t tsc_sync_band_untouched(uint64_t rtt, uint64_t tick)
{
	uint64_t band = tsc_sync_band(rtt, tick);

	if (band < TSC_OK_LIMIT)
		band = TSC_OK_LIMIT;
	if (band < rtt / 4)
		band = rtt / 4;
	return band;
}

enum tsc_ap_action tsc_plan_ap(int64_t offset, uint64_t band, uint64_t tick,
			       int64_t *delta)
{
	*delta = 0;
	if ((uint64_t)tsc_abs64(offset) <= band)
		return TSC_AP_DONE;
	if (offset < 0) {
		if (tsc_abs64(offset) > TSC_FORWARD_CAP)
			return TSC_AP_TOO_FAR_BEHIND;
		*delta = tsc_quantise(-offset, tick);
		return TSC_AP_FORWARD;
	}
	if (offset > TSC_BACKWARD_CAP)
		return TSC_AP_TOO_FAR_AHEAD;
	*delta = -tsc_quantise(offset, tick);
	return TSC_AP_BACKWARD;
}

bool tsc_plan_needs_tuning(int64_t survey_offset, uint64_t rtt,
			   int64_t bsp_shift)
{
	return (uint64_t)tsc_abs64(tsc_sub_sat(survey_offset, bsp_shift)) >
	       tsc_ahead_noise(rtt);
}

bool tsc_plan_steer(enum tsc_verdict v, bool touched, bool warped)
{
	if (v == TSC_VERDICT_OK || v == TSC_VERDICT_UNMEASURED)
		return false;
	return touched || warped;
}

bool tsc_plan_unproven(enum tsc_verdict v, bool touched, bool warped)
{
	return v == TSC_VERDICT_BAD && !touched && !warped;
}

bool tsc_plan_offset_trusted(uint64_t spread, uint64_t floor)
{
	return spread <= floor || spread <= TSC_TRUST_SPREAD;
}

bool tsc_plan_test_fed(uint32_t windows, uint32_t rounds)
{
	return windows > TSC_WARP_WINDOWS_MAX / 2 &&
	       rounds >= TSC_WARP_MIN_ROUNDS;
}

bool tsc_plan_offset_steady(uint64_t spread, uint64_t floor, uint64_t tick)
{
	return spread <= floor / 4 || spread <= TSC_STEER_SPREAD ||
	       spread / 4 <= tick;
}

void tsc_shortfall_learn(struct tsc_shortfall *s, int64_t requested,
			 int64_t achieved)
{
	int64_t short_by = tsc_sub_sat(requested, achieved);

	if (tsc_abs64(short_by) > TSC_SHORTFALL_MAX) {
		s->rejected++;
		return;
	}
	if (s->n == 0 || short_by < s->lo)
		s->lo = short_by;
	if (s->n == 0 || short_by > s->hi)
		s->hi = short_by;
	s->sum += short_by;
	s->n++;
}

bool tsc_shortfall_worth(const struct tsc_shortfall *s, int64_t offset)
{
	if (s->n < 2)
		return true;
	return (uint64_t)s->hi - (uint64_t)s->lo <
	       2u * (uint64_t)tsc_abs64(offset);
}

uint64_t tsc_shortfall_worst(const struct tsc_shortfall *s)
{
	uint64_t lo, hi;

	if (!s->n)
		return 0;
	lo = (uint64_t)tsc_abs64(s->lo);
	hi = (uint64_t)tsc_abs64(s->hi);
	return lo > hi ? lo : hi;
}

bool tsc_shortfall_beyond(const struct tsc_shortfall *s, uint64_t noise)
{
	return s->n && (uint64_t)tsc_abs64(tsc_shortfall_comp(s)) > noise;
}

bool tsc_plan_landing_missed(int64_t before, int64_t after)
{
	uint64_t now = (uint64_t)tsc_abs64(after);

	return now > (uint64_t)tsc_abs64(before) + TSC_WARP_OK_ABS &&
	       now > TSC_LANDING_MISS;
}

int64_t tsc_shortfall_comp(const struct tsc_shortfall *s)
{
	return s->n ? tsc_div_round(s->sum, s->n) : 0;
}

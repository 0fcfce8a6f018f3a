/* SPDX-License-Identifier: MIT */
#include "estimate.h"

/*
 * min_rounds 32: the first exchanges pay for cold caches and a waking AP.
 * patience 48 and want_close 8: measured on the host simulator and in OVMF
 * (docs/DESIGN.md, "Stopping rule"), the estimate after this stop is as close
 * to the truth as after 4000 fixed rounds, at under a tenth of the exchanges.
 * max_rounds 1024: a ping-pong estimate only plans the coarse moves (the
 * kernel-style test steers and judges), and one that has not settled in
 * 1024 rounds is on a host too noisy for more rounds to help; under load
 * the host simulator's estimates ran to the old cap of 4000 (about 4 ms
 * each) in most measurements.
 */
const struct tsc_est_policy tsc_est_adaptive = {
	.min_rounds = 32,
	.patience = 48,
	.want_close = 8,
	.max_rounds = 1024,
	.fixed = false,
};

const struct tsc_est_policy tsc_est_reference = {
	.min_rounds = 4000,
	.patience = 0,
	.want_close = 1,
	.max_rounds = 4000,
	.fixed = true,
};

uint64_t tsc_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * Averaging window above the fastest round trip: two ticks (a coarse counter
 * quantises both reads of a round trip), or 1/32 of the round trip, whichever
 * is larger; samples slower than that carry more asymmetry than they remove
 * by averaging.
 */
uint64_t tsc_est_window(uint64_t best_rtt, uint64_t tick)
{
	uint64_t w = 2 * (tick ? tick : 1);

	if (best_rtt / 32 > w)
		w = best_rtt / 32;
	return w;
}

void tsc_est_init(struct tsc_estimator *e, const struct tsc_est_policy *p)
{
	*e = (struct tsc_estimator){ .policy = *p };
}

static void note_delta(struct tsc_estimator *e, uint64_t d)
{
	if (d == 0)
		return;
	e->tick_gcd = e->tick_gcd ? tsc_gcd(e->tick_gcd, d) : d;
}

uint64_t tsc_est_tick(const struct tsc_estimator *e)
{
	return e->tick_gcd ? e->tick_gcd : 1;
}

/*
 * Saturating arithmetic: the inputs are counter values, anything a broken
 * or simulated CPU returns, and no sum or product of them may overflow.
 * Within decades of each other the results are exact; beyond, they stick
 * at the int64_t limits.
 */
static int64_t sat_add(int64_t x, int64_t y)
{
	int64_t r;

	if (__builtin_add_overflow(x, y, &r))
		return y > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t sat_sub(int64_t x, int64_t y)
{
	int64_t r;

	if (__builtin_sub_overflow(x, y, &r))
		return y < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* A difference of two counter values (mod 2^64) as a signed number. */
static int64_t as_signed(uint64_t d)
{
	return d <= (uint64_t)INT64_MAX ? (int64_t)d
					: -(int64_t)(UINT64_MAX - d) - 1;
}

/* 2 * d - rtt, d = a - t0 taken as signed, saturated. */
static int64_t twice_offset(uint64_t d, uint64_t rtt)
{
	int64_t s = as_signed(d), r;

	if (__builtin_mul_overflow(s, (int64_t)2, &r))
		return s > 0 ? INT64_MAX : INT64_MIN;
	return sat_sub(r, rtt > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)rtt);
}

/* num / den (den >= 1) rounded half away from zero, as tsc_div_round,
 * without its overflow next to the int64_t limits. */
static int64_t div_round(int64_t num, int64_t den)
{
	int64_t q = num / den, r = num % den;

	if (r >= den - den / 2)
		return q + 1;
	if (-r >= den - den / 2)
		return q - 1;
	return q;
}

static void keep(struct tsc_estimator *e, int64_t twice, uint64_t rtt)
{
	uint32_t i;

	if (e->nkept == TSC_EST_KEEP) {
		if (rtt >= e->kept[TSC_EST_KEEP - 1].rtt)
			return;
		e->nkept--;
	}
	i = e->nkept;
	while (i > 0 && e->kept[i - 1].rtt > rtt) {
		e->kept[i] = e->kept[i - 1];
		i--;
	}
	e->kept[i] =
		(struct tsc_est_sample){ .twice_offset = twice, .rtt = rtt };
	e->nkept++;
}

void tsc_est_add(struct tsc_estimator *e, uint64_t t0, uint64_t a, uint64_t t2)
{
	uint64_t rtt;

	e->rounds++;
	/* The BSP's own counter cannot run backwards between two reads. */
	if (t2 < t0)
		return;
	rtt = t2 - t0;
	note_delta(e, rtt);
	if (e->have_a)
		note_delta(e, a > e->last_a ? a - e->last_a : e->last_a - a);
	e->last_a = a;
	e->have_a = true;

	if (e->nkept == 0 || rtt < e->kept[0].rtt)
		e->last_improved = e->rounds;
	/* 2a - t0 - t2 as (a - t0) * 2 - rtt: exact while AP and BSP are
	 * within 2^62 cycles (decades) of each other, saturated beyond. */
	keep(e, twice_offset(a - t0, rtt), rtt);
	e->accepted++;
}

static uint32_t close_count(const struct tsc_estimator *e)
{
	uint64_t limit;
	uint32_t n = 0;

	if (e->nkept == 0)
		return 0;
	limit = e->kept[0].rtt +
		tsc_est_window(e->kept[0].rtt, tsc_est_tick(e));
	if (limit < e->kept[0].rtt)
		limit = UINT64_MAX;
	while (n < e->nkept && e->kept[n].rtt <= limit)
		n++;
	return n;
}

bool tsc_est_done(const struct tsc_estimator *e)
{
	const struct tsc_est_policy *p = &e->policy;

	if (e->rounds >= p->max_rounds)
		return true;
	if (p->fixed || e->rounds < p->min_rounds)
		return false;
	if (e->rounds - e->last_improved < p->patience)
		return false;
	return close_count(e) >= p->want_close;
}

void tsc_est_result(const struct tsc_estimator *e, struct tsc_estimate *out)
{
	uint32_t n = close_count(e), i;
	int64_t sum = 0, dev = 0, base;
	bool exact = true;

	*out = (struct tsc_estimate){ .rounds = e->rounds,
				      .tick = tsc_est_tick(e) };
	if (n == 0)
		return;
	base = e->kept[0].twice_offset;
	for (i = 0; i < n; i++) {
		if (__builtin_add_overflow(sum, e->kept[i].twice_offset, &sum))
			exact = false;
		dev = sat_add(dev, sat_sub(e->kept[i].twice_offset, base));
	}
	out->valid = true;
	out->used = n;
	out->rtt = e->kept[0].rtt;
	/* Averaging quantised reads resolves below the tick; writes are
	 * quantised later, by the planner.  Where the plain sum would not
	 * fit (offsets of centuries), the mean is the fastest sample plus the
	 * mean deviation from it, which stays small. */
	if (exact)
		out->offset = div_round(sum, 2 * (int64_t)n);
	else
		out->offset =
			div_round(sat_add(base, div_round(dev, (int64_t)n)), 2);
}

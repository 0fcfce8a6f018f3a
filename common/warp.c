/* SPDX-License-Identifier: MIT */
#include "warp.h"

#define LOAD(p) atomic_load_explicit((p), memory_order_acquire)
#define STORE(p, v) atomic_store_explicit((p), (v), memory_order_release)

enum { BY_NONE, BY_BSP, BY_AP };

/* One side's findings, per window: the TSC_WARP_LOW smallest gaps of the
 * handoffs it received, ascending. */
struct half {
	uint32_t handoffs;
	uint32_t warps;
	uint64_t max_back;
	int64_t low[TSC_WARP_WINDOWS][TSC_WARP_LOW];
	bool complete;
};

static void half_init(struct half *h)
{
	uint32_t i, k;

	*h = (struct half){ .complete = true };
	for (k = 0; k < TSC_WARP_WINDOWS; k++)
		for (i = 0; i < TSC_WARP_LOW; i++)
			h->low[k][i] = INT64_MAX;
}

/* Most gaps are larger than the kept ones: one comparison. */
static void keep_low(int64_t *low, int64_t gap)
{
	uint32_t i = TSC_WARP_LOW - 1;

	if (gap >= low[i])
		return;
	while (i > 0 && low[i - 1] > gap) {
		low[i] = low[i - 1];
		i--;
	}
	low[i] = gap;
}

static bool wait_arrived(struct tsc_mailbox *mb, uint32_t cpu)
{
	const struct tsc_platform *pf = mb->pf;
	uint64_t deadline = pf->read(pf->ctx, cpu) + mb->timeout_cycles;
	uint32_t spins = 0;

	while (LOAD(&mb->warp.arrived) < 2) {
		if (++spins % TSC_SPIN_CHECK == 0 &&
		    pf->read(pf->ctx, cpu) > deadline)
			return false;
		tsc_cpu_relax();
	}
	return true;
}

/*
 * check_tsc_warp()'s loop: lock, take the last value, read, store, unlock,
 * and every 8th turn look at the clock and relax.  The lock is a ticket
 * lock: with two CPUs contending it hands over as the kernel's queued
 * spinlock does (a waiter gets the lock before the holder takes it again),
 * where a test-and-set lock lets the releasing CPU win again and again (on
 * this host's cores: a few hundred handoffs in 20 ms instead of thousands).
 * A partner that vanished leaves us waiting past the deadline: the half
 * ends incomplete.  Each side times its windows on its own counter from the
 * common start.
 */
static void run_half(struct tsc_mailbox *mb, uint32_t cpu, uint32_t me,
		     uint64_t cycles, struct half *h)
{
	const struct tsc_platform *pf = mb->pf;
	struct tsc_warp_area *w = &mb->warp;
	uint64_t start = pf->read(pf->ctx, cpu), end = start + cycles;
	uint64_t span = cycles / TSC_WARP_WINDOWS + 1;
	uint64_t give_up = end + mb->timeout_cycles, prev, now, win;
	uint32_t by, i, spins, ticket;
	int64_t gap;

	for (i = 0;; i++) {
		ticket = atomic_fetch_add_explicit(&w->next, 1,
						   memory_order_relaxed);
		spins = 0;
		while (atomic_load_explicit(&w->serving,
					    memory_order_acquire) != ticket) {
			if (++spins % TSC_SPIN_CHECK == 0 &&
			    pf->read(pf->ctx, cpu) > give_up) {
				h->complete = false;
				return;
			}
		}
		prev = w->last;
		by = w->last_by;
		now = pf->read(pf->ctx, cpu);
		w->last = now;
		w->last_by = me;
		atomic_store_explicit(&w->serving, ticket + 1,
				      memory_order_release);

		if (by != BY_NONE && by != me) {
			gap = (int64_t)(now - prev);
			h->handoffs++;
			win = (now - start) / span;
			if (win >= TSC_WARP_WINDOWS)
				win = TSC_WARP_WINDOWS - 1;
			keep_low(h->low[win], gap);
			if (gap < 0) {
				h->warps++;
				if ((uint64_t)-gap > h->max_back)
					h->max_back = (uint64_t)-gap;
			}
		}
		if (!(i & 7)) {
			if (now > end)
				return;
			tsc_cpu_relax();
		}
	}
}

void tsc_warp_ap(struct tsc_mailbox *mb, uint32_t cpu, uint64_t cycles)
{
	struct tsc_warp_area *w = &mb->warp;
	struct half h;
	uint32_t k;

	half_init(&h);
	/* The kernel's start_count: both sides begin together. */
	atomic_fetch_add(&w->arrived, 1);
	if (wait_arrived(mb, cpu))
		run_half(mb, cpu, BY_AP, cycles, &h);
	else
		h.complete = false;
	atomic_store(&w->ap_handoffs, h.handoffs);
	atomic_store(&w->ap_warps, h.warps);
	atomic_store(&w->ap_max_back, h.max_back);
	for (k = 0; k < TSC_WARP_WINDOWS; k++) {
		atomic_store(&w->ap_min[k], h.low[k][0]);
		atomic_store(&w->ap_low[k], h.low[k][TSC_WARP_LOW - 1]);
	}
	atomic_store(&w->ap_complete, h.complete);
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/*
 * The offset of each window whose two directions both reached
 * TSC_WARP_LOW handoffs, averaged: (to_ap - to_bsp) / 2 from the low
 * order statistics.  Their range is the spread.
 */
void tsc_warp_combine(struct tsc_warp_result *out, const int64_t *to_ap,
		      const int64_t *to_bsp)
{
	/* Halves first, so d fits.  The mean is taken as the sum of the
	 * quotients d / n plus the rounded sum of the remainders: exact,
	 * and no sum leaves 64 bits however far apart the counters are
	 * (no 128-bit division, which the stage has no library for). */
	int64_t q = 0, r = 0, lo = 0, hi = 0, d;
	int64_t n = 0;
	bool first = true;
	uint32_t k;

	out->worst = 0;
	for (k = 0; k < TSC_WARP_WINDOWS; k++)
		if (to_ap[k] != INT64_MAX && to_bsp[k] != INT64_MAX)
			n++;
	out->windows = (uint32_t)n;
	if (n == 0)
		return;
	for (k = 0; k < TSC_WARP_WINDOWS; k++) {
		if (to_ap[k] == INT64_MAX || to_bsp[k] == INT64_MAX)
			continue;
		d = to_ap[k] / 2 - to_bsp[k] / 2;
		if (first || d < lo)
			lo = d;
		if (first || d > hi)
			hi = d;
		if ((uint64_t)tsc_abs64(d) > out->worst)
			out->worst = (uint64_t)tsc_abs64(d);
		first = false;
		q += d / n;
		r += d % n;
	}
	/* q and r of one sign, so that q + round(r / n) rounds as the
	 * exact mean would, half away from zero. */
	q += r / n;
	r %= n;
	if (q > 0 && r < 0) {
		q--;
		r += n;
	} else if (q < 0 && r > 0) {
		q++;
		r -= n;
	}
	d = tsc_div_round(r, n);
	out->offset = d > 0 && q > INT64_MAX - d   ? INT64_MAX
		      : d < 0 && q < INT64_MIN - d ? INT64_MIN
						   : q + d;
	out->spread = (uint64_t)hi - (uint64_t)lo;
}

bool tsc_warp_run(struct tsc_mailbox *mb, uint64_t cycles,
		  struct tsc_warp_result *out)
{
	const struct tsc_platform *pf = mb->pf;
	struct tsc_warp_area *w = &mb->warp;
	int64_t to_ap[TSC_WARP_WINDOWS], to_bsp[TSC_WARP_WINDOWS];
	struct half h;
	uint64_t seq, deadline;
	uint32_t spins = 0, k;
	bool ran = false;

	*out = (struct tsc_warp_result){ 0 };
	half_init(&h);
	atomic_store(&w->next, 0);
	atomic_store(&w->serving, 0);
	w->last = 0;
	w->last_by = BY_NONE;
	atomic_store(&w->arrived, 0);
	atomic_store(&w->ap_complete, 0);
	seq = tsc_mb_post(mb, TSC_CMD_WARP, (int64_t)cycles);
	atomic_fetch_add(&w->arrived, 1);
	if (wait_arrived(mb, pf->bsp)) {
		run_half(mb, pf->bsp, BY_BSP, cycles, &h);
		ran = true;
	}
	/* The AP may have started a little later: give it its whole run. */
	deadline = pf->read(pf->ctx, pf->bsp) + cycles + mb->timeout_cycles;
	while (LOAD(&mb->resp) != seq) {
		if (++spins % TSC_SPIN_CHECK == 0 &&
		    pf->read(pf->ctx, pf->bsp) > deadline)
			return false;
	}
	out->handoffs_to_bsp = h.handoffs;
	out->handoffs_to_ap = atomic_load(&w->ap_handoffs);
	out->rounds = out->handoffs_to_ap + out->handoffs_to_bsp;
	out->warps_bsp = h.warps;
	out->warps_ap = atomic_load(&w->ap_warps);
	out->max_back = h.max_back;
	if (atomic_load(&w->ap_max_back) > out->max_back)
		out->max_back = atomic_load(&w->ap_max_back);
	out->gap_to_ap = out->gap_to_bsp = INT64_MAX;
	for (k = 0; k < TSC_WARP_WINDOWS; k++) {
		out->gap_to_bsp = min64(out->gap_to_bsp, h.low[k][0]);
		out->gap_to_ap =
			min64(out->gap_to_ap, atomic_load(&w->ap_min[k]));
		to_bsp[k] = h.low[k][TSC_WARP_LOW - 1];
		to_ap[k] = atomic_load(&w->ap_low[k]);
	}
	tsc_warp_combine(out, to_ap, to_bsp);
	out->complete = ran && h.complete && atomic_load(&w->ap_complete);
	return out->complete;
}

bool tsc_warp_two_way(const struct tsc_warp_result *w)
{
	return w->windows > 0;
}

int64_t tsc_warp_floor(const struct tsc_warp_result *w)
{
	/* Halving each gap first cannot overflow. */
	return w->gap_to_ap / 2 + w->gap_to_bsp / 2;
}

int64_t tsc_warp_margin(const struct tsc_warp_result *w)
{
	return min64(w->gap_to_ap, w->gap_to_bsp);
}

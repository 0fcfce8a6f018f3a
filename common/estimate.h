/* SPDX-License-Identifier: MIT */
/*
 * Offset of one CPU's TSC against another's, from ping-pong round trips.
 *
 * A round trip is (t0, a, t2): the BSP reads t0 and signals, the AP reads a
 * and answers, the BSP reads t2.  If the two legs took equally long, the AP
 * read its counter at the BSP's (t0 + t2) / 2, so offset = a - (t0 + t2) / 2.
 * The legs are never exactly equal: a round trip of rtt cycles can skew the
 * estimate by up to rtt / 2.  The fastest round trips are the least skewed,
 * so the estimate averages the samples closest to the fastest one (which also
 * gives sub-tick resolution on a coarse counter).
 *
 * Stopping rule (docs/DESIGN.md has the evidence): stop once at least
 * min_rounds were taken, the fastest round trip has not improved for
 * `patience` rounds, and `want_close` samples lie within the close window of
 * it; never go past max_rounds.  With `fixed` set, take exactly max_rounds
 * (the reference design's behaviour, kept for the benchmark).
 */
#ifndef TSCTUI_COMMON_ESTIMATE_H
#define TSCTUI_COMMON_ESTIMATE_H

#include "tsc.h"

/* The fastest samples kept; more than want_close so a late improvement of the
 * best round trip still finds close neighbours. */
#define TSC_EST_KEEP 16

struct tsc_est_policy {
	uint32_t min_rounds;
	uint32_t patience;
	uint32_t want_close;
	uint32_t max_rounds;
	bool fixed;
};

/* The adaptive policy, and the reference design's fixed 4000 rounds. */
extern const struct tsc_est_policy tsc_est_adaptive;
extern const struct tsc_est_policy tsc_est_reference;

struct tsc_est_sample {
	int64_t twice_offset; /* 2a - t0 - t2: the offset, doubled, exact */
	uint64_t rtt;
};

struct tsc_estimator {
	struct tsc_est_policy policy;
	uint32_t rounds;   /* samples offered, including rejected ones */
	uint32_t accepted; /* samples with t2 >= t0 */
	uint32_t last_improved;
	uint32_t nkept;
	struct tsc_est_sample kept[TSC_EST_KEEP]; /* ascending rtt */
	uint64_t tick_gcd; /* gcd of same-CPU deltas seen so far, 0: none */
	uint64_t last_a;
	bool have_a;
};

struct tsc_estimate {
	bool valid;
	int64_t offset; /* AP minus BSP, cycles (sub-tick resolution) */
	uint64_t rtt;	/* fastest round trip, cycles */
	uint32_t rounds;
	uint32_t used; /* samples averaged */
	uint64_t tick;
};

uint64_t tsc_gcd(uint64_t a, uint64_t b);
/* Samples within this many cycles of the fastest are averaged. */
uint64_t tsc_est_window(uint64_t best_rtt, uint64_t tick);

void tsc_est_init(struct tsc_estimator *e, const struct tsc_est_policy *p);
void tsc_est_add(struct tsc_estimator *e, uint64_t t0, uint64_t a, uint64_t t2);
bool tsc_est_done(const struct tsc_estimator *e);
/* The tick seen so far (1 when unknown); never larger than any delta seen. */
uint64_t tsc_est_tick(const struct tsc_estimator *e);
void tsc_est_result(const struct tsc_estimator *e, struct tsc_estimate *out);

#endif

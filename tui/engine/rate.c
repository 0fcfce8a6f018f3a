/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <string.h>

#include "rate.h"

void rate_init(struct rate *r, double ref_mhz)
{
	memset(r, 0, sizeof(*r));
	r->ref_mhz = ref_mhz;
}

void rate_set_reference(struct rate *r, double kernel_mhz, uint64_t tsc_hz)
{
	if (r->ref_mhz > 0)
		return;
	r->ref_mhz = kernel_mhz > 0 ? kernel_mhz : (double)tsc_hz / 1e6;
}

bool rate_cancelling(double a, double b)
{
	double big = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a) > 20 && fabs(b) > 20 && a * b < 0 &&
	       fabs(a + b) <= 0.25 * big;
}

double rate_ppm(const struct rate *r, double mhz)
{
	if (r->ref_mhz <= 0)
		return 0;
	return (mhz - r->ref_mhz) / r->ref_mhz * 1e6;
}

static void keep_edge(struct rate *r, uint64_t tsc, double t)
{
	if (r->nhead < RATE_EDGES) {
		r->head_tsc[r->nhead] = tsc;
		r->head_t[r->nhead++] = t;
		return;
	}
	if (r->ntail == RATE_EDGES) {
		memmove(r->tail_tsc, r->tail_tsc + 1,
			sizeof(r->tail_tsc[0]) * (RATE_EDGES - 1));
		memmove(r->tail_t, r->tail_t + 1,
			sizeof(r->tail_t[0]) * (RATE_EDGES - 1));
		r->ntail--;
	}
	r->tail_tsc[r->ntail] = tsc;
	r->tail_t[r->ntail++] = t;
}

void rate_tick(struct rate *r, uint64_t tsc, double t)
{
	double w;

	if (!r->started) {
		r->started = true;
		r->first_tsc = r->last_tsc = tsc;
		r->first_t = r->last_t = t;
		keep_edge(r, tsc, t);
		return;
	}
	if (t <= r->last_t || tsc <= r->last_tsc)
		return;
	keep_edge(r, tsc, t);
	w = (double)(tsc - r->last_tsc) / (t - r->last_t) / 1e6;
	if (r->kept == RATE_WINDOWS) {
		memmove(r->mhz, r->mhz + 1,
			sizeof(r->mhz[0]) * (RATE_WINDOWS - 1));
		memmove(r->paired, r->paired + 1,
			sizeof(r->paired[0]) * (RATE_WINDOWS - 1));
		r->kept--;
	}
	r->mhz[r->kept] = w;
	r->paired[r->kept] = false;
	if (r->kept > 0 && !r->paired[r->kept - 1] &&
	    rate_cancelling(rate_ppm(r, r->mhz[r->kept - 1]), rate_ppm(r, w)))
		r->paired[r->kept - 1] = r->paired[r->kept] = true;
	r->kept++;
	r->n++;
	r->last_tsc = tsc;
	r->last_t = t;
}

/* Index of the edge lowest against the line of slope k (cycles a second)
 * through the run's first edge. */
static unsigned least_late(const struct rate *r, const uint64_t *tsc,
			   const double *t, unsigned from, unsigned to,
			   double k)
{
	unsigned i, best = from;
	double low = 0;

	for (i = from; i < to; i++) {
		double res = (double)(tsc[i] - r->first_tsc) -
			     k * (t[i] - r->first_t);

		if (i == from || res < low) {
			low = res;
			best = i;
		}
	}
	return best;
}

double rate_cumulative_mhz(const struct rate *r)
{
	const uint64_t *btsc = r->tail_tsc;
	const double *bt = r->tail_t;
	unsigned a, b, asplit = r->nhead, bfrom = 0, bto = r->ntail, pass;
	double k;

	if (!r->started || r->last_t <= r->first_t)
		return 0;
	k = (double)(r->last_tsc - r->first_tsc) / (r->last_t - r->first_t);
	if (r->ntail == 0) {
		/* A short run: its first half against its second. */
		asplit = r->nhead / 2;
		btsc = r->head_tsc;
		bt = r->head_t;
		bfrom = asplit;
		bto = r->nhead;
	}
	if (asplit == 0 || bto <= bfrom)
		return k / 1e6;
	/* Twice: the second pass judges lateness against the first's rate. */
	for (pass = 0; pass < 2; pass++) {
		a = least_late(r, r->head_tsc, r->head_t, 0, asplit, k);
		b = least_late(r, btsc, bt, bfrom, bto, k);
		if (bt[b] <= r->head_t[a] || btsc[b] <= r->head_tsc[a])
			break;
		k = (double)(btsc[b] - r->head_tsc[a]) / (bt[b] - r->head_t[a]);
	}
	return k / 1e6;
}

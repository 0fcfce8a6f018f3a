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

void rate_tick(struct rate *r, uint64_t tsc, double t)
{
	double w;

	if (!r->started) {
		r->started = true;
		r->first_tsc = r->last_tsc = tsc;
		r->first_t = r->last_t = t;
		return;
	}
	if (t <= r->last_t || tsc <= r->last_tsc)
		return;
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

double rate_cumulative_mhz(const struct rate *r)
{
	if (!r->started || r->last_t <= r->first_t)
		return 0;
	return (double)(r->last_tsc - r->first_tsc) / (r->last_t - r->first_t) /
	       1e6;
}

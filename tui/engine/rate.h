/* SPDX-License-Identifier: MIT */
/*
 * The TSC's rate against an independent reference: TSC cycles counted
 * between reference ticks (RTC update interrupts, one a second), per window
 * and cumulative, in MHz and in ppm against the kernel's calibration.  A
 * late tick makes one window long and the next short: such pairs cancel and
 * are flagged; a real drift does not cancel, and the cumulative figure is
 * the headline.  Pure arithmetic here; rtc.c feeds it.
 */
#ifndef TSCTUI_ENGINE_RATE_H
#define TSCTUI_ENGINE_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define RATE_WINDOWS 64

struct rate {
	double ref_mhz; /* the kernel's figure, for ppm */
	bool started;
	uint64_t first_tsc, last_tsc;
	double first_t, last_t;	   /* reference seconds */
	unsigned n;		   /* windows seen */
	double mhz[RATE_WINDOWS];  /* the most recent windows, oldest first */
	bool paired[RATE_WINDOWS]; /* part of a cancelling pair */
	unsigned kept;
};

void rate_init(struct rate *r, double ref_mhz);
/* The reference rate, once: the kernel's calibration (MHz) when it logged
 * one, else the survey's own (tsc_hz).  `check` and the dashboard's engine
 * both set it this way. */
void rate_set_reference(struct rate *r, double kernel_mhz, uint64_t tsc_hz);
/* A reference tick at reference time t (seconds) with the TSC reading. */
void rate_tick(struct rate *r, uint64_t tsc, double t);
double rate_cumulative_mhz(const struct rate *r);
double rate_ppm(const struct rate *r, double mhz);
/* Two consecutive windows whose errors cancel: equal and opposite within
 * a quarter, and each beyond 20 ppm (else it is plain noise). */
bool rate_cancelling(double a_ppm, double b_ppm);

#endif

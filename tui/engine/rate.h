/* SPDX-License-Identifier: MIT */
/*
 * The TSC's rate against an independent reference: TSC cycles counted
 * between reference ticks (RTC update interrupts, one a second), per window
 * and cumulative, in MHz and in ppm against the kernel's calibration.  A
 * late tick makes one window long and the next short: such pairs cancel and
 * are flagged; a real drift does not cancel, and the cumulative figure is
 * the headline.  Pure arithmetic here; reftick.c feeds it.
 */
#ifndef TSCTUI_ENGINE_RATE_H
#define TSCTUI_ENGINE_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define RATE_WINDOWS 64
/* Edges kept from the run's start and from its end, for the cumulative
 * figure (rate_cumulative_mhz). */
#define RATE_EDGES 8

struct rate {
	double ref_mhz; /* the kernel's figure, for ppm */
	bool started;
	uint64_t first_tsc, last_tsc;
	double first_t, last_t;	   /* reference seconds */
	unsigned n;		   /* windows seen */
	double mhz[RATE_WINDOWS];  /* the most recent windows, oldest first */
	bool paired[RATE_WINDOWS]; /* part of a cancelling pair */
	unsigned kept;
	/* The first RATE_EDGES edges and the last RATE_EDGES after them. */
	uint64_t head_tsc[RATE_EDGES], tail_tsc[RATE_EDGES];
	double head_t[RATE_EDGES], tail_t[RATE_EDGES];
	unsigned nhead, ntail;
};

void rate_init(struct rate *r, double ref_mhz);
/* The reference rate, once: the kernel's calibration (MHz) when it logged
 * one, else the survey's own (tsc_hz).  `check` and the dashboard's engine
 * both set it this way. */
void rate_set_reference(struct rate *r, double kernel_mhz, uint64_t tsc_hz);
/* A reference tick at reference time t (seconds) with the TSC reading. */
void rate_tick(struct rate *r, uint64_t tsc, double t);
/*
 * The rate over the whole run.  An edge's TSC reading can only be late
 * (an interrupt delivered late, a reader descheduled), never early, so the
 * figure is taken between the least late edge near the start and the least
 * late near the end (lowest against the run's average line), not between
 * the first and the last: on the TSC rig under load one late interrupt
 * made a 12 s run read -6330 ppm, where the polled edges read +6.
 */
double rate_cumulative_mhz(const struct rate *r);
double rate_ppm(const struct rate *r, double mhz);
/* Two consecutive windows whose errors cancel: equal and opposite within
 * a quarter, and each beyond 20 ppm (else it is plain noise). */
bool rate_cancelling(double a_ppm, double b_ppm);

#endif

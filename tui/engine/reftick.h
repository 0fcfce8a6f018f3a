/* SPDX-License-Identifier: MIT */
/*
 * A reference clock independent of the TSC: the RTC's update interrupts
 * (/dev/rtc0, RTC_UIE_ON: one a second), or CLOCK_MONOTONIC_RAW while the
 * clocksource is not tsc (when it is tsc, that clock is built from the TSC
 * and comparing the two measures nothing).  Otherwise: none, said so.
 */
#ifndef TSCTUI_ENGINE_REFTICK_H
#define TSCTUI_ENGINE_REFTICK_H

#include <stdbool.h>
#include <stdint.h>

enum ref_kind { REF_NONE, REF_RTC, REF_MONOTONIC_RAW };

struct reftick {
	enum ref_kind kind;
	int fd;
	double ticks;  /* RTC seconds counted so far */
	char why[160]; /* for REF_NONE */
};

const char *reftick_name(enum ref_kind k);
void reftick_open(struct reftick *r, const char *clocksource);
/* Waits for the next tick (RTC) or reads now (monotonic); returns the
 * reference time in seconds and the TSC read at that instant. */
bool reftick_sample(struct reftick *r, double *t, uint64_t *tsc);
void reftick_close(struct reftick *r);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * A reference clock independent of the TSC: the RTC (/dev/rtc0), or
 * CLOCK_MONOTONIC_RAW while the clocksource is not tsc (when it is tsc,
 * that clock is built from the TSC and comparing the two measures
 * nothing).  Otherwise: none, said so.
 *
 * The RTC's second edges are taken from its update interrupts
 * (RTC_UIE_ON, one a second) where they come.  On some machines they never
 * do: the kernel chooses the RTC's interrupt path from the firmware (newer
 * AMD laptops route the alarm through ACPI), and on the TSC rig with a
 * laptop's SMBIOS strings `rtc_cmos` registers without HPET interrupts and
 * not one update interrupt arrived in 120 s.  So every wait is bounded
 * (REFTICK_UIE_WAIT_MS), and without interrupts the edge is found by
 * reading the RTC's time until its second changes, as util-linux's hwclock
 * does when its wait for an interrupt times out.  Either way the reference
 * time is the RTC's own second count, so the two paths mix in one run.
 */
#ifndef TSCTUI_ENGINE_REFTICK_H
#define TSCTUI_ENGINE_REFTICK_H

#include <stdbool.h>
#include <stdint.h>

/* An update interrupt is due every second: 1.5 s without one means none
 * will come. */
#define REFTICK_UIE_WAIT_MS 1500
/* Polling for the edge: a second and a little, then give up. */
#define REFTICK_POLL_MAX_MS 1200

enum ref_kind { REF_NONE, REF_RTC, REF_RTC_POLLED, REF_MONOTONIC_RAW };

struct reftick {
	enum ref_kind kind;
	int fd;
	char why[160]; /* for REF_NONE, and why the RTC is polled */
};

const char *reftick_name(enum ref_kind k);
void reftick_open(struct reftick *r, const char *clocksource);
/* Waits for the next second's edge (RTC, at most REFTICK_UIE_WAIT_MS plus
 * REFTICK_POLL_MAX_MS) or reads now (monotonic); returns the reference
 * time in seconds and the TSC read at that instant.  False when no edge
 * came in that time. */
bool reftick_sample(struct reftick *r, double *t, uint64_t *tsc);
void reftick_close(struct reftick *r);

#endif

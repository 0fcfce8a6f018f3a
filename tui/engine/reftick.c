/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <linux/rtc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../../common/string_table.h"
#include "../../common/tsc.h"
#include "../util/path.h"
#include "reftick.h"

static const char *const ref_names[] = {
	[REF_NONE] = "none",
	[REF_RTC] = "rtc",
	[REF_RTC_POLLED] = "rtc_polled",
	[REF_MONOTONIC_RAW] = "monotonic_raw",
};

STRING_TABLE_TO(reftick_name, enum ref_kind, ref_names, "none")

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The RTC's time as seconds since the epoch (its own count: only the
 * differences matter). */
static bool rtc_seconds(int fd, double *t)
{
	struct rtc_time rt;
	struct tm tm;

	memset(&rt, 0, sizeof(rt));
	if (ioctl(fd, RTC_RD_TIME, &rt) != 0)
		return false;
	tm = (struct tm){ .tm_sec = rt.tm_sec,
			  .tm_min = rt.tm_min,
			  .tm_hour = rt.tm_hour,
			  .tm_mday = rt.tm_mday,
			  .tm_mon = rt.tm_mon,
			  .tm_year = rt.tm_year };
	*t = (double)timegm(&tm);
	return true;
}

void reftick_open(struct reftick *r, const char *clocksource)
{
	memset(r, 0, sizeof(*r));
	r->seconds = rtc_seconds;
	/* Under --root the RTC (and the clocksource) at hand are this
	 * machine's, and the TSC calibration they would be held against is
	 * the target's log: nothing to measure, and /dev/rtc0 is not the
	 * target's to open. */
	if (!path_root_is_host()) {
		r->fd = -1;
		r->kind = REF_NONE;
		snprintf(r->why, sizeof(r->why),
			 "under --root this machine's RTC is not opened (it is "
			 "not the target's): no independent reference");
		return;
	}
	r->fd = open("/dev/rtc0", O_RDONLY | O_CLOEXEC);
	/* TSCTUI_TEST_RTC_POLLED=1: as on a machine whose RTC sends no
	 * update interrupts (tests/rig/which-clock.t). */
	if (r->fd >= 0 && getenv("TSCTUI_TEST_RTC_POLLED")) {
		double t;

		if (rtc_seconds(r->fd, &t)) {
			r->kind = REF_RTC_POLLED;
			snprintf(r->why, sizeof(r->why),
				 "update interrupts not used "
				 "(TSCTUI_TEST_RTC_POLLED): its second is "
				 "polled");
			return;
		}
	}
	if (r->fd >= 0 && ioctl(r->fd, RTC_UIE_ON, 0) == 0) {
		r->kind = REF_RTC;
		return;
	}
	if (r->fd >= 0) {
		double t;

		snprintf(r->why, sizeof(r->why),
			 "/dev/rtc0 gives no update interrupts (%s)",
			 strerror(errno));
		if (rtc_seconds(r->fd, &t)) {
			r->kind = REF_RTC_POLLED;
			snprintf(r->why + strlen(r->why),
				 sizeof(r->why) - strlen(r->why),
				 ": its second is polled");
			return;
		}
		close(r->fd);
	} else {
		snprintf(r->why, sizeof(r->why), "no /dev/rtc0 (%s)",
			 strerror(errno));
	}
	r->fd = -1;
	if (clocksource && clocksource[0] && strcmp(clocksource, "tsc")) {
		r->kind = REF_MONOTONIC_RAW;
		return;
	}
	r->kind = REF_NONE;
	/* NULL: the dashboard shows another root, whose clocksource says
	 * nothing of the machine the engine runs on. */
	snprintf(r->why + strlen(r->why), sizeof(r->why) - strlen(r->why),
		 clocksource ? "; the clocksource is tsc, so "
			       "CLOCK_MONOTONIC_RAW is the TSC itself: no "
			       "independent reference"
			     : "; this machine's clocksource is not read "
			       "under --root, so CLOCK_MONOTONIC_RAW may be "
			       "the TSC itself: no independent reference");
}

static bool cancelled(const struct reftick *r)
{
	return r->cancel && atomic_load(r->cancel);
}

/* Sleeps ms, in steps of REFTICK_CANCEL_MS, until cancelled. */
static void sleep_ms(const struct reftick *r, double ms)
{
	double end = mono_ms() + ms, left;

	while (!cancelled(r) && (left = end - mono_ms()) > 0) {
		double step =
			left < REFTICK_CANCEL_MS ? left : REFTICK_CANCEL_MS;
		struct timespec ts = { .tv_sec = 0,
				       .tv_nsec = (long)(step * 1e6) };

		nanosleep(&ts, NULL);
	}
}

bool reftick_edge_sharp(double blur_ms, double fastest_ms, double last_ms)
{
	double limit = REFTICK_SHARP_FACTOR * fastest_ms;

	if (limit < REFTICK_SHARP_MIN_MS)
		limit = REFTICK_SHARP_MIN_MS;
	return blur_ms <= limit ||
	       (last_ms >= REFTICK_SLEPT_READ_MS &&
		fabs(blur_ms - last_ms) <= REFTICK_SHARP_MIN_MS);
}

/*
 * The edge by reading the time until its second changes; after the first
 * edge, only from just before the next one is due.  An edge found by a
 * poll that came long after the one before it (the reader descheduled,
 * the vCPU stalled) is known only that coarsely: it is dropped and the
 * next second's taken, at most REFTICK_BLURRED_MAX times in a run.  Under
 * TCG, on a loaded host, status's 3-second measure read a TSC true to
 * 10 ppm as +486 ppm from two late edges, and advised against the fix.
 */
static bool edge_polled(struct reftick *r, double *t, uint64_t *tsc)
{
	double first, now, start, end, prev, at, fastest, blur;
	bool sharp;

	do {
		if (cancelled(r))
			return false;
		start = mono_ms();
		if (r->edge_ms > 0 && start > r->edge_ms) {
			double due = r->edge_ms +
				     1e3 * (double)(long)((start - r->edge_ms) /
								  1e3 +
							  1);

			if (due - REFTICK_POLL_EARLY_MS > start)
				sleep_ms(r,
					 due - REFTICK_POLL_EARLY_MS - start);
		}
		end = mono_ms() + REFTICK_POLL_MAX_MS;
		at = mono_ms();
		if (!r->seconds(r->fd, &first))
			return false;
		prev = mono_ms();
		/* the first read's length, until a poll's is known */
		fastest = prev - at;
		for (;;) {
			if (prev >= end || cancelled(r))
				return false;
			if (!r->seconds(r->fd, &now))
				return false;
			*tsc = tsc_read_ordered();
			at = mono_ms();
			if (now != first)
				break;
			if (at - prev < fastest)
				fastest = at - prev;
			prev = at;
		}
		/* The edge came after prev and by at.  A read of the RTC that
		 * waits out its update (older kernels sleep 20 ms in it) makes
		 * every edge about that late, which cancels out of a rate:
		 * an edge as sharp as the sharpest seen in the run counts. */
		blur = at - prev;
		sharp = reftick_edge_sharp(blur, fastest, r->blur_last);
		r->blur_last = blur;
		/* The next edge is due a second after this one: from prev
		 * (before it) when this one came late, never past it. */
		r->edge_ms = sharp ? at : prev;
	} while (!sharp && r->blurred++ < REFTICK_BLURRED_MAX);
	*t = now;
	return true;
}

/*
 * With update interrupts: the first one only tells where the second's edge
 * lies (without a busy wait); every edge that times the TSC is then found
 * by polling from just before it is due.  Interrupt-timed edges on the TSC
 * rig read the counter's 2100 MHz 770 to 1350 ppm fast over 13 s, always
 * the same way, where polled ones read it within 2 to 29 ppm
 * (docs/DESIGN.md).
 */
static bool edge_interrupt(struct reftick *r, double *t, uint64_t *tsc)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	unsigned long data;
	int n, waited;

	if (r->edge_ms > 0)
		return edge_polled(r, t, tsc);
	/* An interrupt that came while the caller was busy marks an edge
	 * long past: drop it and wait for the next. */
	while (poll(&p, 1, 0) == 1 &&
	       read(r->fd, &data, sizeof(data)) == sizeof(data))
		;
	/* Up to REFTICK_UIE_WAIT_MS, looking at cancel between steps. */
	for (waited = 0;;) {
		n = poll(&p, 1, REFTICK_CANCEL_MS);
		if (n < 0 && errno == EINTR)
			continue;
		if (n != 0 || cancelled(r))
			break;
		waited += REFTICK_CANCEL_MS;
		if (waited >= REFTICK_UIE_WAIT_MS)
			break;
	}
	if (cancelled(r))
		return false;
	if (n == 1 && read(r->fd, &data, sizeof(data)) == sizeof(data)) {
		r->edge_ms = mono_ms();
		ioctl(r->fd, RTC_UIE_OFF, 0);
		return edge_polled(r, t, tsc);
	}
	if (n == 0) {
		ioctl(r->fd, RTC_UIE_OFF, 0);
		r->kind = REF_RTC_POLLED;
		snprintf(r->why, sizeof(r->why),
			 "no update interrupt from /dev/rtc0 in %d ms: its "
			 "second is polled",
			 REFTICK_UIE_WAIT_MS);
		return edge_polled(r, t, tsc);
	}
	return false;
}

bool reftick_sample(struct reftick *r, double *t, uint64_t *tsc)
{
	struct timespec ts;

	if (r->kind == REF_RTC)
		return edge_interrupt(r, t, tsc);
	if (r->kind == REF_RTC_POLLED)
		return edge_polled(r, t, tsc);
	if (r->kind == REF_MONOTONIC_RAW) {
		*tsc = tsc_read_ordered();
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		*t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		return true;
	}
	return false;
}

void reftick_close(struct reftick *r)
{
	if (r->fd >= 0) {
		if (r->kind == REF_RTC && r->edge_ms == 0)
			ioctl(r->fd, RTC_UIE_OFF, 0);
		close(r->fd);
	}
	r->fd = -1;
}

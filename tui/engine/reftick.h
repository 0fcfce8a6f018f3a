/* SPDX-License-Identifier: MIT */
/*
 * A reference clock independent of the TSC: the RTC (/dev/rtc0), or
 * CLOCK_MONOTONIC_RAW while the clocksource is not tsc (when it is tsc,
 * that clock is built from the TSC and comparing the two measures
 * nothing).  Otherwise: none, said so.  Under --root: none, and the RTC is
 * not opened (it is this machine's, not the target's).
 *
 * The RTC's second edges are found by reading its time until the second
 * changes, as util-linux's hwclock does, from just before each edge is due;
 * the first edge is located by an update interrupt (RTC_UIE_ON, one a
 * second) where they come, else by polling a whole second.  Interrupts
 * alone time the edges badly in a VM (reftick.c).  On some machines none
 * come at all: the kernel chooses the RTC's interrupt path from the
 * firmware (newer AMD laptops route the alarm through ACPI), and on the TSC
 * rig with a laptop's SMBIOS strings not one update interrupt arrived in
 * 120 s.  So every wait is bounded (REFTICK_UIE_WAIT_MS, then
 * REFTICK_POLL_MAX_MS).  The reference time is the RTC's own second count.
 */
#ifndef TSCTUI_ENGINE_REFTICK_H
#define TSCTUI_ENGINE_REFTICK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* An update interrupt is due every second: 1.5 s without one means none
 * will come. */
#define REFTICK_UIE_WAIT_MS 1500
/* Polling for the edge: a second and a little, then give up. */
#define REFTICK_POLL_MAX_MS 1200
/* Once an edge is known, sleep until this long before the next one is due
 * and poll only then: the monotonic clock that times the sleep may run on
 * a reference that is off by a few thousand ppm (a few ms a second). */
#define REFTICK_POLL_EARLY_MS 30
/* An edge is sharp when the poll that saw it came at most this many times
 * the edge's fastest poll after the one before it, and never under
 * REFTICK_SHARP_MIN_MS: the kernel's read of an MC146818 waits out the
 * update-in-progress window (up to about 350 us in recent kernels; older
 * ones sleep 20 ms in it) in the very poll that sees the edge; a wait every
 * edge has is not lateness (it cancels out of a rate), so an edge within
 * REFTICK_SHARP_MIN_MS of the edge before it counts too.  0.5 ms of
 * lateness is 167 ppm over status's 3 s, inside its 250.  A blurred edge
 * is dropped for the next second's, REFTICK_BLURRED_MAX times in a run at
 * most. */
#define REFTICK_SHARP_FACTOR 4.0
/* ... counting the edge before only when it took this long: a kernel that
 * sleeps in the read, every edge alike, not a reader held up now and then
 * (under two busy loops on the host, the run's sharpest edge as the
 * measure let blurred ones in: status read a -1500 ppm TSC as -2700, and
 * a true one as +659). */
#define REFTICK_SLEPT_READ_MS 5.0
#define REFTICK_SHARP_MIN_MS 0.5
#define REFTICK_BLURRED_MAX 3

enum ref_kind { REF_NONE, REF_RTC, REF_RTC_POLLED, REF_MONOTONIC_RAW };

struct reftick {
	enum ref_kind kind;
	int fd;
	double edge_ms;	  /* CLOCK_MONOTONIC of the last polled edge, or 0 */
	unsigned blurred; /* edges dropped as blurred so far */
	double blur_last; /* the last edge's blur (ms), 0 before one */
	char why[256];	  /* for REF_NONE, and why the RTC is polled */
	/* Set by the owner (the dashboard's engine when it stops): a wait
	 * for an edge gives up within REFTICK_CANCEL_MS.  NULL: never. */
	const atomic_bool *cancel;
	/* The RTC's second count (reftick_open sets the RTC's; the tests
	 * give a clock that never ticks). */
	bool (*seconds)(int fd, double *t);
};
/* How often a wait for an edge looks at cancel: a key (q) is answered
 * within 100 ms (tsctui(8)), and the wait is up to REFTICK_POLL_MAX_MS a
 * try, three tries more for blurred edges. */
#define REFTICK_CANCEL_MS 20

const char *reftick_name(enum ref_kind k);
/* clocksource: the running machine's, or NULL when it is not known (the
 * dashboard under --root): then only the RTC is taken. */
void reftick_open(struct reftick *r, const char *clocksource);
/* Waits for the next second's edge (RTC, at most REFTICK_UIE_WAIT_MS plus
 * REFTICK_POLL_MAX_MS) or reads now (monotonic); returns the reference
 * time in seconds and the TSC read at that instant.  False when no edge
 * came in that time. */
bool reftick_sample(struct reftick *r, double *t, uint64_t *tsc);
void reftick_close(struct reftick *r);
/* Does an edge count: blur_ms from the last poll that saw the old second
 * to the read of the new one, fastest_ms the quickest poll before it,
 * last_ms the edge before it's blur (0: none yet)? */
bool reftick_edge_sharp(double blur_ms, double fastest_ms, double last_ms);

#endif

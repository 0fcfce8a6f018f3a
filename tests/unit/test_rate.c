/* The rate against a fake tick source: exact ticks, late/early pairs that
 * cancel, and a real drift that does not. */
#include "cm.h"
#include <math.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "../../tui/engine/rate.h"
#include "../../tui/engine/reftick.h"

#define MHZ 2096.073
#define CYCLES_PER_S (MHZ * 1e6)

static void exact(void **s)
{
	struct rate r;
	int i;

	(void)s;
	rate_init(&r, MHZ);
	for (i = 0; i <= 20; i++)
		rate_tick(&r, (uint64_t)(1e12 + i * CYCLES_PER_S), i);
	assert_int_equal(r.n, 20);
	assert_true(fabs(rate_cumulative_mhz(&r) - MHZ) < 1e-6);
	assert_true(fabs(rate_ppm(&r, r.mhz[r.kept - 1])) < 0.01);
}

/* A tick 100 us late: one window 100 ppm fast, the next 100 ppm slow;
 * the pair is flagged, and the cumulative figure is untouched. */
static void late_tick_cancels(void **s)
{
	struct rate r;
	int i;

	(void)s;
	rate_init(&r, MHZ);
	for (i = 0; i <= 10; i++) {
		double late = i == 5 ? 100e-6 : 0;

		rate_tick(&r, (uint64_t)(1e12 + (i + late) * CYCLES_PER_S), i);
	}
	/* The TSC is read 100 us late at second 5: window 4->5 counts more
	 * cycles, window 5->6 fewer. */
	assert_true(r.paired[4] && r.paired[5]);
	assert_true(fabs(rate_ppm(&r, r.mhz[4]) - 100) < 1);
	assert_true(fabs(rate_ppm(&r, r.mhz[5]) + 100) < 1);
	assert_false(r.paired[3] || r.paired[6]);
	assert_true(fabs(rate_ppm(&r, rate_cumulative_mhz(&r))) < 0.01);
}

/* The first and the last edges read late (80 ms and 76 ms, an interrupt
 * delivered late under load, and a jittery 0 to 2 ms on the rest): the
 * cumulative figure goes by the least late edges near each end, and lands
 * within 1 ppm of a TSC 1500 ppm slow; between the first and the last edge
 * it would read 300 ppm off.  A short run (fewer edges than the head
 * keeps) is split in halves the same way. */
static void late_ends_ignored(void **s)
{
	static const double late[] = { 80e-3,  1e-3,   0, 2e-3, 0,
				       0.5e-3, 1e-3,   0, 0,	1.5e-3,
				       0,      2e-3,   0, 1e-3, 0,
				       0,      0.2e-3, 0, 1e-3, 76e-3 };
	double k = CYCLES_PER_S * (1 - 1500e-6);
	struct rate r;
	unsigned n, i;

	(void)s;
	for (n = 6; n <= 20; n += 14) {
		rate_init(&r, MHZ);
		for (i = 0; i < n; i++) {
			double lt = i + 1 == n ? late[19] : late[i];

			rate_tick(&r, (uint64_t)(1e12 + (i + lt) * k), i);
		}
		assert_true(fabs(rate_ppm(&r, rate_cumulative_mhz(&r)) + 1500) <
			    1);
	}
}

/* A TSC 30 ppm fast, steadily: nothing cancels, the cumulative says 30. */
static void real_drift(void **s)
{
	struct rate r;
	int i;

	(void)s;
	rate_init(&r, MHZ);
	for (i = 0; i <= 30; i++)
		rate_tick(&r, (uint64_t)(1e12 + i * CYCLES_PER_S * 1.00003), i);
	for (i = 0; i < (int)r.kept; i++)
		assert_false(r.paired[i]);
	assert_true(fabs(rate_ppm(&r, rate_cumulative_mhz(&r)) - 30) < 0.1);
}

static void pairs_rule(void **s)
{
	(void)s;
	assert_true(rate_cancelling(100, -95));
	assert_false(rate_cancelling(100, -60)); /* not equal and opposite */
	assert_false(rate_cancelling(100, 100)); /* same sign: drift */
	assert_false(rate_cancelling(10, -10));	 /* noise */
}

static void ignores_nonsense(void **s)
{
	struct rate r;

	(void)s;
	rate_init(&r, MHZ);
	rate_tick(&r, 1000, 1.0);
	rate_tick(&r, 500, 2.0);  /* counter went back */
	rate_tick(&r, 2000, 1.0); /* time went back */
	assert_int_equal(r.n, 0);
	assert_true(rate_cumulative_mhz(&r) == 0);
}

/* The reference: the kernel's calibration when known, else the survey's;
 * set once, so a later survey does not move the ppm scale. */
static void reference(void **s)
{
	struct rate r;

	(void)s;
	rate_init(&r, 0);
	rate_set_reference(&r, 2096.066, 2100000000);
	assert_true(fabs(r.ref_mhz - 2096.066) < 1e-9);
	rate_set_reference(&r, 0, 2200000000);
	assert_true(fabs(r.ref_mhz - 2096.066) < 1e-9);
	rate_init(&r, 0);
	rate_set_reference(&r, 0, 2100000000);
	assert_true(fabs(r.ref_mhz - 2100.0) < 1e-9);
	assert_true(fabs(rate_ppm(&r, 2100.21) - 100) < 1e-6);
}

/* Which RTC edges count (reftick_edge_sharp): the update-in-progress wait
 * in the read that sees the edge is not lateness, a poll that came long
 * after the one before it is; an older kernel's 20 ms sleep in that read,
 * the same at every edge, counts once the run has seen one. */
static void blurred_edges(void **s)
{
	(void)s;
	/* a recent kernel under TCG: polls of 30 us, the edge's read 0.35 ms
	 * (its UIP wait): sharp */
	assert_true(reftick_edge_sharp(0.35, 0.03, 0));
	/* the reader descheduled for 1.5 ms as the edge came: blurred, also
	 * against a run whose sharpest edge was 0.35 ms */
	assert_false(reftick_edge_sharp(1.5, 0.03, 0));
	assert_false(reftick_edge_sharp(1.5, 0.03, 0.35));
	/* slow polls (0.2 ms each): four of them still count */
	assert_true(reftick_edge_sharp(0.8, 0.2, 0));
	assert_false(reftick_edge_sharp(0.9, 0.2, 0));
	/* an older kernel: every edge's read sleeps 20 ms; the first is
	 * dropped, the next within 0.5 ms of it counts */
	assert_false(reftick_edge_sharp(20.1, 0.005, 0));
	assert_true(reftick_edge_sharp(20.3, 0.005, 20.1));
	assert_false(reftick_edge_sharp(21.0, 0.005, 20.1));
	/* a reader held up at one edge (6 ms) lets no other in: not one
	 * held up less, nor one held up as long by chance under 5 ms */
	assert_false(reftick_edge_sharp(2.6, 0.03, 6.0));
	assert_false(reftick_edge_sharp(2.2, 0.03, 2.0));
}

/* An RTC whose second never changes: every wait for its edge runs out. */
static bool frozen(int fd, double *t)
{
	(void)fd;
	*t = 1000;
	return true;
}

static void *cancel_soon(void *flag)
{
	struct timespec ms50 = { 0, 50000000 };

	nanosleep(&ms50, NULL);
	atomic_store((atomic_bool *)flag, true);
	return NULL;
}

static double ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* How long a wait for an edge of this reference takes when the owner
 * cancels it 50 ms in (the dashboard's q: the engine stops). */
static double cancelled_after(struct reftick *r)
{
	atomic_bool stop = false;
	pthread_t th;
	double t, t0 = ms_now();
	uint64_t tsc;

	r->cancel = &stop;
	r->seconds = frozen;
	assert_int_equal(pthread_create(&th, NULL, cancel_soon, &stop), 0);
	assert_false(reftick_sample(r, &t, &tsc));
	t = ms_now() - t0;
	pthread_join(th, NULL);
	return t;
}

/* A wait for the RTC's edge gives up once cancelled: the polled one
 * (which runs REFTICK_POLL_MAX_MS, 1.2 s, a try) and the one for the
 * update interrupt (REFTICK_UIE_WAIT_MS, 1.5 s, then polled).  Quitting
 * the dashboard waited for them, up to about 4 s with blurred edges.
 * Bounded at a quarter of the shorter wait, far above the 50 ms and the
 * REFTICK_CANCEL_MS step, far below what an uncancelled wait takes. */
static void cancel_ends_waits(void **s)
{
	struct reftick r = { .kind = REF_RTC_POLLED, .fd = -1 };
	int fds[2];
	double took;

	(void)s;
	took = cancelled_after(&r);
	assert_true(took < REFTICK_POLL_MAX_MS / 4);
	/* the interrupt's wait: a pipe that never becomes readable */
	assert_int_equal(pipe(fds), 0);
	r = (struct reftick){ .kind = REF_RTC, .fd = fds[0] };
	took = cancelled_after(&r);
	assert_true(took < REFTICK_POLL_MAX_MS / 4);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact),
		cmocka_unit_test(late_tick_cancels),
		cmocka_unit_test(real_drift),
		cmocka_unit_test(late_ends_ignored),
		cmocka_unit_test(pairs_rule),
		cmocka_unit_test(ignores_nonsense),
		cmocka_unit_test(reference),
		cmocka_unit_test(blurred_edges),
		cmocka_unit_test(cancel_ends_waits),
	};
	return cmocka_run_group_tests_name("rate", tests, NULL, NULL);
}

/* Offset estimation, tick detection and the stopping rule, from synthetic
 * round trips whose truth is known. */
#include "cm.h"

#include "../../common/estimate.h"

#define T0 1000000000000ull

/* One round trip: forward leg f, return leg b, AP offset d. */
static void trip(struct tsc_estimator *e, uint64_t t, int64_t d, uint64_t f,
		 uint64_t b)
{
	tsc_est_add(e, t, (uint64_t)((int64_t)(t + f) + d), t + f + b);
}

static void symmetric_is_exact(void **s)
{
	struct tsc_estimator e;
	struct tsc_estimate r;
	int i;

	(void)s;
	tsc_est_init(&e, &tsc_est_adaptive);
	for (i = 0; i < 100; i++)
		trip(&e, T0 + (uint64_t)i * 5000, -6815086010LL, 150, 150);
	tsc_est_result(&e, &r);
	assert_true(r.valid);
	assert_int_equal(r.offset, -6815086010LL);
	assert_int_equal(r.rtt, 300);
}

/* Slow trips are lopsided (the return leg waits); the fast ones are not.
 * The estimate must follow the fast trips, not the average. */
static void asymmetric_follows_fastest(void **s)
{
	struct tsc_estimator e;
	struct tsc_estimate r;
	int i;

	(void)s;
	tsc_est_init(&e, &tsc_est_adaptive);
	for (i = 0; i < 400; i++) {
		if (i % 10 == 3)
			trip(&e, T0 + (uint64_t)i * 9000, 500, 200, 201);
		else
			trip(&e, T0 + (uint64_t)i * 9000, 500, 200,
			     600 + (uint64_t)(i % 7) * 100);
	}
	tsc_est_result(&e, &r);
	assert_int_equal(r.rtt, 401);
	assert_true(r.offset >= 499 && r.offset <= 500);
}

/* A genuinely lopsided fastest trip skews by half the difference of the
 * legs, which is inside the rtt/2 bound the verdicts use. */
static void skew_bounded_by_half_rtt(void **s)
{
	struct tsc_estimator e;
	struct tsc_estimate r;
	int i;

	(void)s;
	tsc_est_init(&e, &tsc_est_adaptive);
	for (i = 0; i < 200; i++)
		trip(&e, T0 + (uint64_t)i * 5000, 40, 100, 300);
	tsc_est_result(&e, &r);
	assert_int_equal(r.offset, 40 - 100);
	assert_true(tsc_abs64(r.offset - 40) <= (int64_t)r.rtt / 2);
}

/* A counter that moves in steps of 25: reads are multiples of 25, the tick
 * is found, and averaging over trips at different phases resolves an offset
 * below one tick. */
static void coarse_tick_25(void **s)
{
	struct tsc_estimator e;
	struct tsc_estimate r;
	const int64_t truth = 10;
	int i;

	(void)s;
	tsc_est_init(&e, &tsc_est_adaptive);
	for (i = 0; i < 800; i++) {
		/* Real time advances by a non-multiple of 25 each trip. */
		uint64_t real = T0 + (uint64_t)i * 1013;
		uint64_t t0 = real / 25 * 25;
		uint64_t a =
			(uint64_t)((int64_t)(real + 300) + truth) / 25 * 25;
		uint64_t t2 = (real + 600) / 25 * 25;

		tsc_est_add(&e, t0, a, t2);
	}
	assert_int_equal(tsc_est_tick(&e), 25);
	tsc_est_result(&e, &r);
	assert_int_equal(r.tick, 25);
	assert_true(r.offset >= truth - 6 && r.offset <= truth + 6);
	assert_int_not_equal(r.offset % 25, 0);
}

static void quantise_to_ticks(void **s)
{
	(void)s;
	assert_int_equal(tsc_quantise(37, 25), 25);
	assert_int_equal(tsc_quantise(38, 25), 50);
	assert_int_equal(tsc_quantise(-38, 25), -50);
	assert_int_equal(tsc_quantise(-12, 25), 0);
	assert_int_equal(tsc_quantise(-13, 25), -25);
	assert_int_equal(tsc_quantise(12345, 1), 12345);
	assert_int_equal(tsc_div_round(-3, 2), -2);
	assert_int_equal(tsc_div_round(3, 2), 2);
	assert_int_equal(tsc_gcd(42, 21), 21);
	assert_int_equal(tsc_gcd(0, 7), 7);
}

/* Stable data: the adaptive rule stops long before the reference's 4000. */
static void adaptive_stops_early(void **s)
{
	struct tsc_estimator e;
	uint32_t i = 0;

	(void)s;
	tsc_est_init(&e, &tsc_est_adaptive);
	while (!tsc_est_done(&e)) {
		trip(&e, T0 + i * 3000ull, 7, 300 + (i % 5), 300 + (i % 3));
		i++;
	}
	assert_true(e.rounds >= tsc_est_adaptive.min_rounds);
	assert_true(e.rounds <= 200);
}

/* A round trip that keeps improving never satisfies patience: the hard cap
 * ends it. */
static void cap_bounds_an_improving_run(void **s)
{
	struct tsc_estimator e;
	uint32_t i = 0;

	(void)s;
	tsc_est_init(&e, &tsc_est_adaptive);
	while (!tsc_est_done(&e)) {
		trip(&e, T0 + i * 100000ull, 0, 50000 - i * 10, 50000 - i * 10);
		i++;
	}
	assert_int_equal(e.rounds, tsc_est_adaptive.max_rounds);
}

/* Too few close samples: one lucky fast trip among slow ones is not enough
 * on its own; sampling continues until neighbours arrive or the cap. */
static void lone_outlier_needs_company(void **s)
{
	struct tsc_estimator e;
	uint32_t i;

	(void)s;
	tsc_est_init(&e, &tsc_est_adaptive);
	trip(&e, T0, 0, 100, 100);
	for (i = 1; i < 200; i++)
		trip(&e, T0 + i * 5000ull, 0, 1000, 1000);
	assert_false(tsc_est_done(&e));
}

static void fixed_runs_exactly(void **s)
{
	struct tsc_estimator e;
	uint32_t i = 0;

	(void)s;
	tsc_est_init(&e, &tsc_est_reference);
	while (!tsc_est_done(&e)) {
		trip(&e, T0 + i * 3000ull, 0, 300, 300);
		i++;
	}
	assert_int_equal(e.rounds, 4000);
}

/* A BSP counter that went backwards (t2 < t0) is not a sample. */
static void rejects_impossible_trip(void **s)
{
	struct tsc_estimator e;
	struct tsc_estimate r;

	(void)s;
	tsc_est_init(&e, &tsc_est_adaptive);
	tsc_est_add(&e, T0 + 100, T0 + 50, T0);
	tsc_est_result(&e, &r);
	assert_false(r.valid);
	assert_int_equal(e.accepted, 0);
	assert_int_equal(r.rounds, 1);
}

static void window_rule(void **s)
{
	(void)s;
	assert_int_equal(tsc_est_window(300, 1), 9);
	assert_int_equal(tsc_est_window(300, 25), 50);
	assert_int_equal(tsc_est_window(40, 1), 2);
}

/* One round trip with the offset taken mod 2^64, as counters wrap. */
static void trip_wide(struct tsc_estimator *e, uint64_t t, uint64_t d,
		      uint64_t f, uint64_t b)
{
	tsc_est_add(e, t, t + f + d, t + f + b);
}

/* An AP 2^60 cycles (twelve years) ahead: each doubled sample fits, their
 * sum did not (signed overflow; UBSan stops the test).  The estimate is
 * still exact. */
static void far_offset_is_exact(void **s)
{
	struct tsc_estimator e;
	struct tsc_estimate r;
	int i;

	(void)s;
	for (i = 0; i < 2; i++) {
		int64_t d = i ? -(1LL << 60) - 7 : (1LL << 60) + 7;
		uint32_t k;

		tsc_est_init(&e, &tsc_est_reference);
		for (k = 0; k < 200; k++)
			trip_wide(&e, T0 + (uint64_t)k * 5000, (uint64_t)d, 150,
				  150);
		tsc_est_result(&e, &r);
		assert_true(r.valid);
		assert_true(r.used > 1);
		assert_int_equal(r.offset, d);
	}
}

/* Counters 2^63 apart, the furthest a difference can be (the forward
 * leg's 150 cycles must not carry it past): no overflow, and the estimate
 * saturates on the side of the truth. */
static void extreme_offset_saturates(void **s)
{
	static const uint64_t ds[] = { (uint64_t)INT64_MAX - 200,
				       (uint64_t)INT64_MAX - 1000,
				       (uint64_t)INT64_MIN,
				       (uint64_t)INT64_MIN + 1000 };
	struct tsc_estimator e;
	struct tsc_estimate r;
	uint32_t i, k;

	(void)s;
	for (i = 0; i < sizeof(ds) / sizeof(ds[0]); i++) {
		tsc_est_init(&e, &tsc_est_reference);
		for (k = 0; k < 200; k++)
			trip_wide(&e, UINT64_MAX - 100000 + k * 7, ds[i],
				  150 + k % 3, 150);
		tsc_est_result(&e, &r);
		assert_true(r.valid);
		if ((int64_t)ds[i] > 0)
			assert_true(r.offset >= INT64_MAX / 2);
		else
			assert_true(r.offset <= INT64_MIN / 2);
	}
	/* A round trip that took longer than 2^63 cycles. */
	tsc_est_init(&e, &tsc_est_adaptive);
	tsc_est_add(&e, 0, 1, UINT64_MAX);
	tsc_est_result(&e, &r);
	assert_true(r.valid);
	assert_int_equal(r.rtt, UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(symmetric_is_exact),
		cmocka_unit_test(asymmetric_follows_fastest),
		cmocka_unit_test(skew_bounded_by_half_rtt),
		cmocka_unit_test(coarse_tick_25),
		cmocka_unit_test(quantise_to_ticks),
		cmocka_unit_test(adaptive_stops_early),
		cmocka_unit_test(cap_bounds_an_improving_run),
		cmocka_unit_test(lone_outlier_needs_company),
		cmocka_unit_test(fixed_runs_exactly),
		cmocka_unit_test(rejects_impossible_trip),
		cmocka_unit_test(window_rule),
		cmocka_unit_test(far_offset_is_exact),
		cmocka_unit_test(extreme_offset_saturates),
	};
	return cmocka_run_group_tests_name("estimate", tests, NULL, NULL);
}

/* Verdict edges: the limit, the rtt/2 uncertainty, warps as proof. */
#include "cm.h"

#include "../../common/verdict.h"

static enum tsc_verdict v(int64_t off, uint64_t rtt, uint32_t warps)
{
	struct tsc_measurement m = { .measured = true,
				     .offset = off,
				     .rtt = rtt,
				     .warps = warps,
				     .warp_complete = true };
	return tsc_verdict_of(&m);
}

static void limit_edges(void **s)
{
	(void)s;
	assert_int_equal(v(0, 100, 0), TSC_VERDICT_OK);
	assert_int_equal(v(TSC_OK_LIMIT, 100, 0), TSC_VERDICT_OK);
	assert_int_equal(v(-TSC_OK_LIMIT, 100, 0), TSC_VERDICT_OK);
	/* Just past the limit, inside the error of a 100-cycle trip. */
	assert_int_equal(v(TSC_OK_LIMIT + 1, 100, 0), TSC_VERDICT_UNSURE);
	assert_int_equal(v(TSC_OK_LIMIT + 50, 100, 0), TSC_VERDICT_UNSURE);
	assert_int_equal(v(TSC_OK_LIMIT + 51, 100, 0), TSC_VERDICT_BAD);
	assert_int_equal(v(-(TSC_OK_LIMIT + 51), 100, 0), TSC_VERDICT_BAD);
}

/* The field cases of DOMAIN.md. */
static void field_cases(void **s)
{
	(void)s;
	/* E595 cpu 7: 45 cycles over a 357-cycle trip; the kernel took it. */
	assert_int_equal(v(45, 357, 0), TSC_VERDICT_UNSURE);
	/* IdeaPad: -28..-42 over slow trips; the kernel took them. */
	assert_int_equal(v(-42, 300, 0), TSC_VERDICT_UNSURE);
	/* Legion: -18..+12 accepted. */
	assert_int_equal(v(-18, 120, 0), TSC_VERDICT_OK);
	assert_int_equal(v(12, 120, 0), TSC_VERDICT_OK);
	/* The BSP 3 s behind: bad however slow the trip. */
	assert_int_equal(v(6815086010LL, 2000, 0), TSC_VERDICT_BAD);
}

static void warps_are_proof(void **s)
{
	(void)s;
	assert_int_equal(v(0, 100, 1), TSC_VERDICT_BAD);
}

static void unmeasured_and_cut(void **s)
{
	struct tsc_measurement m = { 0 };

	(void)s;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_UNMEASURED);
	/* An offset inside the limit whose warp test was cut short. */
	m = (struct tsc_measurement){ .measured = true,
				      .offset = 3,
				      .rtt = 100,
				      .warp_complete = false };
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_UNSURE);
}

/* The kernel-style test's rule: ok within an eighth of the floor (rtt is
 * twice the floor), bad beyond a quarter by more than half the windows'
 * spread, unsure between, and never ok for a test cut short. */
static void kernel_test_rule(void **s)
{
	static const struct {
		int64_t off;
		uint64_t floor, spread;
		enum tsc_verdict want;
	} cases[] = {
		{ 20, 280, 40, TSC_VERDICT_OK },
		{ -20, 280, 40, TSC_VERDICT_OK },
		/* F/8 = 35, but never ok beyond TSC_WARP_OK_ABS. */
		{ 21, 280, 40, TSC_VERDICT_UNSURE },
		{ 35, 280, 40, TSC_VERDICT_UNSURE },
		{ 36, 280, 40, TSC_VERDICT_UNSURE },
		{ 90, 280, 40, TSC_VERDICT_UNSURE },
		{ 91, 280, 40, TSC_VERDICT_BAD },
		{ -150, 280, 0, TSC_VERDICT_BAD },
		/* A Legion-sized floor (a fast handoff on real hardware): +38
		 * is bad where the kernel rejected +38..+51; +5 is ok. */
		{ 38, 45, 4, TSC_VERDICT_BAD },
		{ -12, 45, 4, TSC_VERDICT_UNSURE },
		{ 5, 45, 4, TSC_VERDICT_OK },
	};
	struct tsc_measurement m = { .measured = true,
				     .warp_complete = true,
				     .kernel_test = true };
	size_t i;

	(void)s;
	assert_int_equal(tsc_warp_ok_limit(280), TSC_WARP_OK_ABS);
	assert_int_equal(tsc_warp_ok_limit(120), 15);
	assert_int_equal(tsc_warp_bad_limit(280), 70);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		m.offset = cases[i].off;
		m.rtt = 2 * cases[i].floor;
		m.spread = cases[i].spread;
		/* Windows and margin as a steady pair's: each window at the
		 * mean, the fastest gap the floor less the offset. */
		m.worst = (uint64_t)tsc_abs64(cases[i].off);
		m.margin = (int64_t)cases[i].floor - tsc_abs64(cases[i].off);
		assert_int_equal(tsc_verdict_of(&m), cases[i].want);
	}
	m.offset = 0;
	m.rtt = 560;
	m.warp_complete = false;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_UNSURE);
	m.warp_complete = true;
	m.warps = 1;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_BAD);
}

/* A steady pair's measurement by the kernel-style test. */
static struct tsc_measurement steady(int64_t off, uint64_t floor)
{
	return (struct tsc_measurement){
		.measured = true,
		.warp_complete = true,
		.kernel_test = true,
		.offset = off,
		.rtt = 2 * floor,
		.spread = 4,
		.worst = (uint64_t)tsc_abs64(off) + 2,
		.margin = (int64_t)floor - tsc_abs64(off),
	};
}

/* ok needs every window within the limit, not just their mean. */
static void every_window_within(void **s)
{
	struct tsc_measurement m = steady(0, 240);

	(void)s;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_OK);
	/* Windows at -28, +28, -28, +28: a mean of 0, and each one within
	 * F/8 = 30 but beyond TSC_WARP_OK_ABS. */
	m.spread = 56;
	m.worst = 28;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_UNSURE);
	m.worst = TSC_WARP_OK_ABS;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_OK);
	m.worst = TSC_WARP_OK_ABS + 1;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_UNSURE);
}

/* A test whose windows disagree beyond TSC_TRUST_SPREAD and its floor saw
 * a stall: never ok, whatever its mean. */
static void distrusted_never_ok(void **s)
{
	struct tsc_measurement m = steady(0, 228);
	struct tsc_verdict_why w;

	(void)s;
	m.spread = 4060382; /* the rig's stalled window, DESIGN 3.3 */
	m.worst = 0;
	tsc_verdict_explain(&m, &w);
	assert_int_equal(w.verdict, TSC_VERDICT_UNSURE);
	assert_int_equal(w.clause, TSC_CLAUSE_DISTRUSTED);
	m.spread = TSC_TRUST_SPREAD + 1;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_UNSURE);
	m.spread = TSC_TRUST_SPREAD;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_OK);
}

/* The reported margin counts: a fastest handoff within F/4 of a warp is
 * not ok, however small the offset of the 8th-smallest gaps. */
static void margin_used(void **s)
{
	struct tsc_measurement m = steady(3, 240);
	struct tsc_verdict_why w;

	(void)s;
	m.margin = 180; /* 3F/4 exactly */
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_OK);
	m.margin = 179;
	tsc_verdict_explain(&m, &w);
	assert_int_equal(w.verdict, TSC_VERDICT_UNSURE);
	assert_int_equal(w.clause, TSC_CLAUSE_MARGIN);
	m.margin = -1;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_UNSURE);
	/* A floor read as 0 (a coarse tick) allows a margin of 0. */
	m = steady(0, 0);
	m.margin = 0;
	m.worst = 0;
	assert_int_equal(tsc_verdict_of(&m), TSC_VERDICT_OK);
}

static void results(void **s)
{
	enum tsc_verdict all_ok[] = { TSC_VERDICT_OK, TSC_VERDICT_OK };
	enum tsc_verdict one_unsure[] = { TSC_VERDICT_OK, TSC_VERDICT_UNSURE };
	enum tsc_verdict silent[] = { TSC_VERDICT_OK, TSC_VERDICT_UNMEASURED };
	enum tsc_verdict one_bad[] = { TSC_VERDICT_UNSURE, TSC_VERDICT_BAD };

	(void)s;
	assert_int_equal(tsc_result_of(all_ok, 2), TSC_RESULT_IN_SYNC);
	assert_int_equal(tsc_result_of(one_unsure, 2), TSC_RESULT_UNSURE);
	assert_int_equal(tsc_result_of(silent, 2), TSC_RESULT_UNSURE);
	assert_int_equal(tsc_result_of(one_bad, 2), TSC_RESULT_OUT_OF_SYNC);
	/* Nothing measured proves nothing (issue 25): never in-sync. */
	assert_int_equal(tsc_result_of(all_ok, 0), TSC_RESULT_UNSURE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limit_edges),
		cmocka_unit_test(field_cases),
		cmocka_unit_test(warps_are_proof),
		cmocka_unit_test(unmeasured_and_cut),
		cmocka_unit_test(kernel_test_rule),
		cmocka_unit_test(every_window_within),
		cmocka_unit_test(distrusted_never_ok),
		cmocka_unit_test(margin_used),
		cmocka_unit_test(results),
	};
	return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}

/* The engine's worker thread on this machine's cores, with simulated
 * offsets: snapshots fill in, keep a history, and never wait for a survey
 * (the engine is told to make each survey take seconds). */
#include "cm.h"
#include <string.h>
#include <unistd.h>

#include "../../tui/engine/engine.h"

static struct engine_snapshot snap;

static bool wait_surveys(struct engine *e, unsigned n)
{
	int i;

	/* Bounded: 20 s, far beyond what two surveys take here. */
	for (i = 0; i < 2000; i++) {
		engine_snapshot(e, &snap);
		if (snap.surveys >= n)
			return true;
		usleep(10000);
	}
	return false;
}

/* The verdict shown is the worst of the window: one unsure survey among
 * ok ones shows unsure, a bad one bad; unmeasured only when all are. */
static void worst_of_the_window(void **s)
{
	const enum tsc_verdict ok_unsure[] = { TSC_VERDICT_OK,
					       TSC_VERDICT_UNSURE,
					       TSC_VERDICT_OK };
	const enum tsc_verdict bad_first[] = { TSC_VERDICT_BAD, TSC_VERDICT_OK,
					       TSC_VERDICT_OK, TSC_VERDICT_OK,
					       TSC_VERDICT_OK };
	const enum tsc_verdict ok_gap[] = { TSC_VERDICT_UNMEASURED,
					    TSC_VERDICT_OK };

	(void)s;
	assert_int_equal(engine_worst_verdict(ok_unsure, 3),
			 TSC_VERDICT_UNSURE);
	assert_int_equal(engine_worst_verdict(ok_unsure, 1), TSC_VERDICT_OK);
	assert_int_equal(engine_worst_verdict(bad_first, 5), TSC_VERDICT_BAD);
	assert_int_equal(engine_worst_verdict(ok_gap, 2), TSC_VERDICT_OK);
	assert_int_equal(engine_worst_verdict(ok_gap, 1),
			 TSC_VERDICT_UNMEASURED);
	assert_int_equal(engine_worst_verdict(ok_gap, 0),
			 TSC_VERDICT_UNMEASURED);
}

static void fills_in(void **s)
{
	struct engine_config c = { .simulate = "sim.offset.1=5000",
				   .interval_s = 0.05,
				   .kernel_mhz = 2096 };
	struct engine *e = engine_start(&c);
	int64_t lim;

	(void)s;
	assert_non_null(e);
	assert_true(wait_surveys(e, 3));
	assert_int_equal(snap.ncores, 1);
	assert_int_equal(snap.cores[0].cpu, 1);
	lim = snap.cores[0].rtt / 2 > 64 ? (int64_t)snap.cores[0].rtt / 2 : 64;
	assert_true(snap.cores[0].offset > 5000 - lim &&
		    snap.cores[0].offset < 5000 + lim);
	assert_int_equal(snap.cores[0].verdict, TSC_VERDICT_BAD);
	assert_int_equal(snap.cores[0].shown, TSC_VERDICT_BAD);
	assert_true(snap.cores[0].nverdicts >= 3 &&
		    snap.cores[0].nverdicts <= ENGINE_VERDICTS);
	assert_true(snap.cores[0].warps_bsp > 0);
	assert_true(snap.cores[0].nhist >= 3);
	assert_true(snap.cost_valid && snap.cost.ns_one > 0);
	engine_stop(e);
}

/* While a survey runs (made to take 1.5 s), snapshots still come, and say
 * busy; the survey's results arrive when it ends. */
static void snapshots_do_not_wait(void **s)
{
	struct engine_config c = { .simulate = "sim.offset.1=-700",
				   .interval_s = 60,
				   .extra_ms = 1500 };
	struct engine *e = engine_start(&c);
	unsigned during = 0, i;

	(void)s;
	assert_non_null(e);
	for (i = 0; i < 300; i++) {
		engine_snapshot(e, &snap);
		if (snap.busy) {
			during++;
			assert_int_equal(snap.surveys, 0);
		}
		if (snap.surveys)
			break;
		usleep(10000);
	}
	assert_true(during >= 10);
	assert_int_equal(snap.surveys, 1);
	assert_false(snap.busy);
	assert_true(snap.cores[0].warps_ap > 0);
	engine_stop(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(worst_of_the_window),
		cmocka_unit_test(fills_in),
		cmocka_unit_test(snapshots_do_not_wait),
	};
	return cmocka_run_group_tests_name("engine", tests, NULL, NULL);
}

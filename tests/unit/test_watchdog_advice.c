/* The watchdog advice's decision table (tui/model/watchdog_advice.c):
 * each row, and its edges.  add-nowatchdog only where it cannot hurt. */
#include "cm.h"
#include <string.h>

#include "../../tui/model/watchdog_advice.h"

static struct watchdog_advice a;

static bool has(const char *rec)
{
	int i;

	for (i = 0; i < a.nrecs; i++)
		if (!strcmp(a.recs[i], rec))
			return true;
	return false;
}

static void decide(bool known, double skew, bool measured, double rate)
{
	struct watchdog_case c = {
		.skew_known = known,
		.skew_ppm = skew,
		.rate = { .measured = measured, .ppm = rate },
	};

	watchdog_advice_decide(&c, &a);
}

/* The TSC within the bound against the RTC: the reference lied,
 * whatever the skew (a stalled reference makes any skew). */
static void rate_good_adds_nowatchdog(void **s)
{
	(void)s;
	decide(true, 1798.6, true, -22.0);
	assert_int_equal(a.row, WATCHDOG_ROW_RATE_GOOD);
	assert_int_equal(a.rate, WATCHDOG_RATE_WITHIN);
	assert_int_equal(a.nrecs, 1);
	assert_string_equal(a.recs[0], "add-nowatchdog");
	decide(true, 300000, true, WATCHDOG_RATE_GOOD_PPM);
	assert_true(has("add-nowatchdog"));
	decide(false, 0, true, -4);
	assert_true(has("add-nowatchdog"));
}

/* Outside the bound: the watchdog was right; never add-nowatchdog, and
 * say what changes a TSC's rate. */
static void rate_changed_never_nowatchdog(void **s)
{
	(void)s;
	decide(true, -90000, true, -95000); /* BCLK 100 -> 90.5 MHz */
	assert_int_equal(a.row, WATCHDOG_ROW_RATE_CHANGED);
	assert_int_equal(a.rate, WATCHDOG_RATE_OUTSIDE);
	assert_false(has("add-nowatchdog"));
	assert_false(has("measure-rate"));
	assert_non_null(strstr(a.why, "base clock"));
	decide(true, 900, true, WATCHDOG_RATE_GOOD_PPM + 0.1);
	assert_false(has("add-nowatchdog"));
}

/* Not measured: measure-rate first, add-nowatchdog beside it only for a
 * skew a bad reference explains. */
static void unmeasured(void **s)
{
	(void)s;
	decide(true, 1798.6, false, 0);
	assert_int_equal(a.row, WATCHDOG_ROW_PLAUSIBLE);
	assert_int_equal(a.nrecs, 2);
	assert_string_equal(a.recs[0], "measure-rate");
	assert_string_equal(a.recs[1], "add-nowatchdog");
	decide(true, -WATCHDOG_PLAUSIBLE_PPM, false, 0);
	assert_true(has("add-nowatchdog"));
	/* beyond: the rate may have changed */
	decide(true, WATCHDOG_PLAUSIBLE_PPM + 1, false, 0);
	assert_int_equal(a.row, WATCHDOG_ROW_TOO_LARGE);
	assert_true(has("measure-rate"));
	assert_false(has("add-nowatchdog"));
	assert_non_null(strstr(a.why, "base clock"));
	/* tens of per cent: a stalled or jumping clock */
	decide(true, -230000, false, 0);
	assert_int_equal(a.row, WATCHDOG_ROW_STALLED);
	assert_false(has("add-nowatchdog"));
	assert_non_null(strstr(a.why, "stalled or jumped"));
	/* the skew not logged (3.x delta, 4.x name-only lines) */
	decide(false, 0, false, 0);
	assert_int_equal(a.row, WATCHDOG_ROW_UNKNOWN);
	assert_int_equal(a.nrecs, 1);
	assert_string_equal(a.recs[0], "measure-rate");
}

/* Dropped for a slow read of the reference (5.14-5.15): the reference's
 * fault, yet the rate still has the last word. */
static void reference_slow(void **s)
{
	struct watchdog_case c = { .reference_slow = true };

	(void)s;
	watchdog_advice_decide(&c, &a);
	assert_int_equal(a.row, WATCHDOG_ROW_REFERENCE);
	assert_string_equal(a.recs[0], "measure-rate");
	assert_true(has("add-nowatchdog"));
	c.rate.measured = true;
	c.rate.ppm = 4000;
	watchdog_advice_decide(&c, &a);
	assert_false(has("add-nowatchdog"));
}

/* The cross-CPU check found the TSCs apart: never add-nowatchdog, even
 * with a good rate. */
static void cpus_apart_never_nowatchdog(void **s)
{
	struct watchdog_case c = { .skew_known = true,
				   .skew_ppm = 900,
				   .cpus_apart = true,
				   .rate = { .measured = true, .ppm = 3 } };

	(void)s;
	watchdog_advice_decide(&c, &a);
	assert_int_equal(a.row, WATCHDOG_ROW_CPUS_APART);
	assert_false(has("add-nowatchdog"));
	assert_true(has("measure-rate"));
}

/* tsc=nowatchdog already on: not advised again. */
static void nowatchdog_already_set(void **s)
{
	struct watchdog_case c = { .skew_known = true,
				   .skew_ppm = 900,
				   .nowatchdog_set = true };

	(void)s;
	watchdog_advice_decide(&c, &a);
	assert_false(has("add-nowatchdog"));
	assert_true(has("measure-rate"));
	c.rate.measured = true;
	watchdog_advice_decide(&c, &a);
	assert_int_equal(a.nrecs, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rate_good_adds_nowatchdog),
		cmocka_unit_test(rate_changed_never_nowatchdog),
		cmocka_unit_test(unmeasured),
		cmocka_unit_test(reference_slow),
		cmocka_unit_test(cpus_apart_never_nowatchdog),
		cmocka_unit_test(nowatchdog_already_set),
	};

	return cmocka_run_group_tests_name("watchdog_advice", tests, NULL,
					   NULL);
}

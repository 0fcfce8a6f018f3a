/* check's wait for the next sample: an absolute time S seconds after the
 * sample began, exact for every interval check accepts (usleep's 32-bit
 * microseconds wrapped above 4294 s: 4295 s became 32 ms). */
#include "cm.h"

#include <time.h>

#include "../../tui/cli/cli.h"

static void deadline(double s, time_t sec, long nsec, time_t want_sec,
		     long want_nsec)
{
	struct timespec t0 = { .tv_sec = sec, .tv_nsec = nsec }, out;

	cli_deadline(&t0, s, &out);
	assert_int_equal(out.tv_sec, want_sec);
	assert_int_equal(out.tv_nsec, want_nsec);
}

static void past_usleep_limit(void **s)
{
	(void)s;
	deadline(4295, 1000, 0, 5295, 0);
	deadline(4294.967296, 1000, 0, 5294, 967296000);
	deadline(86400, 5, 999999999, 86405, 999999999);
}

static void fractions_carry(void **s)
{
	(void)s;
	deadline(0, 7, 123, 7, 123);
	deadline(0.5, 7, 600000000, 8, 100000000);
	deadline(15, 7, 999999999, 22, 999999999);
	deadline(0.000000001, 7, 999999999, 8, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(past_usleep_limit),
		cmocka_unit_test(fractions_carry),
	};
	return cmocka_run_group_tests_name("deadline", tests, NULL, NULL);
}

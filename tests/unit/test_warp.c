/* The kernel-style test's arithmetic over its windows (common/warp.c):
 * what the verdict is decided from. */
#include "cm.h"

#include "../../common/warp.h"

#define NONE INT64_MAX

static struct tsc_warp_result combine(const int64_t *to_ap,
				      const int64_t *to_bsp)
{
	struct tsc_warp_result w = { 0 };

	tsc_warp_combine(&w, to_ap, to_bsp);
	return w;
}

/* Steady windows: d_k = (to_ap - to_bsp) / 2 each, their mean, their range
 * and the one furthest from 0. */
static void windows_agree(void **s)
{
	const int64_t to_ap[] = { 250, 260, 240, 250 };
	const int64_t to_bsp[] = { 230, 220, 240, 210 };
	struct tsc_warp_result w = combine(to_ap, to_bsp);

	(void)s;
	assert_int_equal(w.windows, 4);
	/* d = 10, 20, 0, 20 */
	assert_int_equal(w.offset, 13); /* 12.5, half away from zero */
	assert_int_equal(w.spread, 20);
	assert_int_equal(w.worst, 20);
}

/* One window stalled: the spread shows it (the rig's 0 and -4.06e6 of
 * DESIGN 3.3), and the worst window is that one, not the mean. */
static void one_window_stalled(void **s)
{
	const int64_t to_ap[] = { 228, 228, NONE, NONE };
	const int64_t to_bsp[] = { 228, 228 + 8120764, NONE, NONE };
	struct tsc_warp_result w = combine(to_ap, to_bsp);

	(void)s;
	assert_int_equal(w.windows, 2);
	assert_int_equal(w.offset, -2030191);
	assert_int_equal(w.spread, 4060382);
	assert_int_equal(w.worst, 4060382);
}

/* Windows at -28 and +28 average to 0; the worst is still 28. */
static void mean_hides_windows(void **s)
{
	const int64_t to_ap[] = { 200, 256, 200, 256 };
	const int64_t to_bsp[] = { 256, 200, 256, 200 };
	struct tsc_warp_result w = combine(to_ap, to_bsp);

	(void)s;
	assert_int_equal(w.offset, 0);
	assert_int_equal(w.spread, 56);
	assert_int_equal(w.worst, 28);
}

/* No window with enough handoffs both ways: nothing is defined. */
static void no_window(void **s)
{
	const int64_t to_ap[] = { 200, NONE, NONE, NONE };
	const int64_t to_bsp[] = { NONE, 200, NONE, NONE };
	struct tsc_warp_result w = combine(to_ap, to_bsp);

	(void)s;
	assert_int_equal(w.windows, 0);
	assert_false(tsc_warp_two_way(&w));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(windows_agree),
		cmocka_unit_test(one_window_stalled),
		cmocka_unit_test(mean_hides_windows),
		cmocka_unit_test(no_window),
	};
	return cmocka_run_group_tests_name("warp", tests, NULL, NULL);
}

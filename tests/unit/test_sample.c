/* The sampling step `check` and the dashboard's engine share
 * (engine/sample.c), on this machine's cores with simulated offsets: the
 * warps are summed over every AP in both directions, the rate's reference
 * is the kernel's calibration or else the survey's own, and a sample
 * takes the reference's edge too, so two samples make one window of the
 * TSC's rate. */
#include "cm.h"
#include <string.h>

#include "../../tui/engine/sample.h"

static struct tsc_report report;

static uint32_t all_warps(const struct tsc_report *r)
{
	uint32_t k, n = 0;

	for (k = 0; k < r->nap; k++)
		n += r->ap[k].warps_bsp + r->ap[k].warps_ap;
	return n;
}

/* An AP behind CPU 0 is seen warping by the AP, one ahead by CPU 0: the
 * sample's count is both directions, every AP. */
static void warps_both_directions(void **s)
{
	static const char *const specs[] = { "sim.offset.1=-5000",
					     "sim.offset.1=5000" };
	struct sampler sm;
	const char *err = NULL;
	size_t i;

	(void)s;
	for (i = 0; i < 2; i++) {
		sampler_open(&sm, specs[i], 2096, "hpet", &report);
		assert_int_equal(sampler_survey(&sm, &err), 0);
		assert_true(report.nap >= 1);
		if (i == 0)
			assert_true(report.ap[0].warps_ap > 0);
		else
			assert_true(report.ap[0].warps_bsp > 0);
		assert_int_equal(sm.warps, all_warps(&report));
		sampler_close(&sm);
	}
}

/* The kernel's calibration when the log gave one; the survey's own rate
 * when it did not (ppm against 0 MHz would be meaningless). */
static void rate_reference(void **s)
{
	struct sampler sm;
	const char *err = NULL;

	(void)s;
	sampler_open(&sm, NULL, 2096.5, "hpet", &report);
	assert_int_equal(sampler_survey(&sm, &err), 0);
	assert_true(sm.rate.ref_mhz == 2096.5);
	sampler_close(&sm);

	sampler_open(&sm, NULL, 0, "hpet", &report);
	assert_int_equal(sampler_survey(&sm, &err), 0);
	assert_true(report.tsc_hz > 0);
	assert_true(sm.rate.ref_mhz == (double)report.tsc_hz / 1e6);
	sampler_close(&sm);
}

/* With a clocksource other than tsc there is always a reference (the RTC,
 * or CLOCK_MONOTONIC_RAW without one): each sample takes its next edge,
 * so the second sample closes a window, near the survey's rate. */
static void two_samples_one_window(void **s)
{
	struct sampler sm;
	const char *err = NULL;
	double mhz;

	(void)s;
	sampler_open(&sm, NULL, 0, "hpet", &report);
	assert_int_not_equal(sm.ref.kind, REF_NONE);
	assert_int_equal(sampler_take(&sm, &err), 0);
	assert_int_equal(sm.rate.kept, 0);
	assert_int_equal(sampler_take(&sm, &err), 0);
	assert_int_equal(sm.rate.kept, 1);
	mhz = sm.rate.mhz[0];
	/* 2%: a VM's TSC against its RTC, one second's edge jitter. */
	assert_true(mhz > sm.rate.ref_mhz * 0.98 &&
		    mhz < sm.rate.ref_mhz * 1.02);
	sampler_close(&sm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(warps_both_directions),
		cmocka_unit_test(rate_reference),
		cmocka_unit_test(two_samples_one_window),
	};
	return cmocka_run_group_tests_name("sample", tests, NULL, NULL);
}

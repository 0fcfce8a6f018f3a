/* Can programs trust the TSC (tui/model/trust.c): each case states what
 * status read in a line or two. */
#include "cm.h"
#include <string.h>

#include "../../tui/model/trust.h"

static struct trust_out out;
static struct trust_in in;

/* The live machine on tsc with its log read; each case changes a field
 * or two. */
static void live(void)
{
	memset(&in, 0, sizeof(in));
	in.clocksource = "tsc";
	in.have_klog = true;
	in.survey_cpu = -1;
}

static enum trust_verdict decide(void)
{
	memset(&out, 0, sizeof(out));
	trust_decide(&in, &out);
	return out.verdict;
}

static void kept_and_agreeing(void **s)
{
	(void)s;
	live();
	in.survey = TRUST_SURVEY_AGREE;
	assert_int_equal(decide(), TRUST_YES);
	/* from the log and files alone (--root, --kernel-log) */
	in.survey = TRUST_SURVEY_NONE;
	assert_int_equal(decide(), TRUST_YES);
	assert_non_null(strstr(out.why, "log and files alone"));
	assert_null(strstr(out.why, "WINE_DISABLE_QPC_TSC"));
	assert_null(out.effect);
}

static void dropped(void **s)
{
	(void)s;
	live();
	in.clocksource = "hpet";
	in.warp = true;
	assert_int_equal(decide(), TRUST_NO);
	assert_non_null(strstr(out.why, "clocksource hpet"));
	assert_non_null(strstr(out.why, "warp test failed"));
	assert_non_null(strstr(out.why, "WINE_DISABLE_QPC_TSC=1"));
	/* The effect alone, for the dashboard's line: the workaround, not
	 * the reason the screen shows elsewhere. */
	assert_non_null(out.effect);
	assert_non_null(strstr(out.effect, "WINE_DISABLE_QPC_TSC=1"));
	assert_null(strstr(out.effect, "hpet"));
	live();
	in.clocksource = "hpet";
	in.watchdog_drop = true;
	assert_int_equal(decide(), TRUST_NO);
	assert_non_null(strstr(out.why, "watchdog dropped it"));
	/* the kernel's choice is enough, even without its log */
	live();
	in.clocksource = "acpi_pm";
	in.have_klog = false;
	assert_int_equal(decide(), TRUST_NO);
}

static void kept_but_warped(void **s)
{
	(void)s;
	/* tsc=reliable keeps the TSC through a warp: the log says so */
	live();
	in.warp = true;
	assert_int_equal(decide(), TRUST_NO);
	live();
	in.inter_cpu = true;
	assert_int_equal(decide(), TRUST_NO);
	live();
	in.survey = TRUST_SURVEY_DISAGREE;
	in.survey_cpu = 5;
	assert_int_equal(decide(), TRUST_NO);
	assert_non_null(strstr(out.why, "CPU 5"));
}

static void cannot_tell(void **s)
{
	(void)s;
	live();
	in.clocksource = "";
	assert_int_equal(decide(), TRUST_UNKNOWN);
	live();
	in.have_klog = false;
	assert_int_equal(decide(), TRUST_UNKNOWN);
	live();
	in.survey = TRUST_SURVEY_INCOMPLETE;
	assert_int_equal(decide(), TRUST_UNKNOWN);
}

/* A guest: yes only when its own kernel uses the TSC. */
static void guests(void **s)
{
	(void)s;
	live();
	in.vm = true;
	in.clocksource = "kvm-clock";
	assert_int_equal(decide(), TRUST_NO);
	assert_non_null(strstr(out.why, "virtual machine"));
	live();
	in.vm = true;
	assert_int_equal(decide(), TRUST_YES);
	in.have_klog = false;
	assert_int_equal(decide(), TRUST_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kept_and_agreeing),
		cmocka_unit_test(dropped),
		cmocka_unit_test(kept_but_warped),
		cmocka_unit_test(cannot_tell),
		cmocka_unit_test(guests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

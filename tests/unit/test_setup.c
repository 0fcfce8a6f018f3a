/* The guided setup's step, one case per step, from the system snapshot and
 * the diagnosis alone; and the five-minute check's accounting. */
#include <stdio.h>
#include <string.h>

#include "cm.h"

#include "../../tui/model/setup.h"
#include "../../tui/model/setup_check.h"

static struct sysinfo sys;
static struct diagnosis diag;
static struct tsc_report report;
static struct setup out;

static void stage(bool installed, const char *mode, bool with_report)
{
	memset(&sys, 0, sizeof(sys));
	memset(&diag, 0, sizeof(diag));
	diag.code = DIAG_HEALTHY;
	sys.stage.installed = installed;
	sys.stage.has_state = installed;
	sys.stage.mode_known =
		tsc_mode_from(mode, strlen(mode), &sys.stage.mode);
	snprintf(sys.stage.mode_word, sizeof(sys.stage.mode_word), "%s", mode);
	sys.stage.has_report = with_report;
	sys.stage.report = with_report ? &report : NULL;
}

/* A report of n APs, each at offset off (positive: the BSP is behind). */
static void aps(uint32_t n, int64_t off)
{
	uint32_t i;

	memset(&report, 0, sizeof(report));
	report.nap = n;
	for (i = 0; i < n; i++) {
		report.ap[i].index = i + 1;
		report.ap[i].survey_offset = off + i;
		report.ap[i].rtt = 200;
		report.ap[i].verdict = TSC_VERDICT_BAD;
	}
}

static void expect(enum setup_step st, int number, enum setup_enter enter)
{
	assert_int_equal(out.step, st);
	assert_int_equal(out.number, number);
	assert_int_equal(out.enter, enter);
}

static void not_installed_installs(void **s)
{
	(void)s;
	stage(false, "", false);
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_INSTALL, 2, SETUP_ENTER_INSTALL);
}

/* A guest: the host's TSC, nothing to install here, installed or not. */
static void guest_checks_the_host(void **s)
{
	(void)s;
	stage(false, "", false);
	sys.cpu.hypervisor = true;
	diag.code = DIAG_VIRTUAL_MACHINE;
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_GUEST, 2, SETUP_ENTER_NOTHING);
	stage(true, "measure", false);
	sys.cpu.hypervisor = true;
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_GUEST, 2, SETUP_ENTER_NOTHING);
}

static void measuring_without_report_boots(void **s)
{
	(void)s;
	stage(true, "measure", false);
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_MEASURE_BOOT, 3, SETUP_ENTER_NOTHING);
}

/* The E595 pattern: the BSP 3 s behind every AP. */
static void bsp_behind_syncs(void **s)
{
	(void)s;
	stage(true, "measure", true);
	aps(3, 6815086010LL);
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_SYNC, 4, SETUP_ENTER_SYNC);
	assert_int_equal(out.behind, 6815086010LL);
}

static void no_lagging_bsp_is_nothing_to_sync(void **s)
{
	(void)s;
	stage(true, "measure", true);
	aps(3, 5);
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_NOTHING_TO_SYNC, 3, SETUP_ENTER_NOTHING);
	/* Installed but off: nothing to sync either. */
	stage(true, "off", false);
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_NOTHING_TO_SYNC, 3, SETUP_ENTER_NOTHING);
}

static void synced_offers_the_check(void **s)
{
	(void)s;
	stage(true, "sync", true);
	aps(3, 5);
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_VERIFY, 5, SETUP_ENTER_CHECK);
}

static void watchdog_skew_asks_for_nowatchdog(void **s)
{
	(void)s;
	stage(true, "sync", false);
	diag.code = DIAG_WATCHDOG_SKEW;
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_NOWATCHDOG, 5, SETUP_ENTER_NOWATCHDOG);
	/* Already on: the check instead. */
	setup_decide(&sys, &diag, true, false, &out);
	expect(SETUP_VERIFY, 5, SETUP_ENTER_CHECK);
}

/* A directsync kernel that keeps the TSC: no sync pushed, even with the
 * firmware's fault in a measure report. */
static void directsync_kernel_is_not_pushed_to_sync(void **s)
{
	(void)s;
	stage(true, "measure", true);
	aps(3, 6815086010);
	snprintf(sys.cs.current, sizeof(sys.cs.current), "tsc");
	diag.directsync = true;
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_DIRECTSYNC, 2, SETUP_ENTER_NOTHING);
	/* the same kernel that lost the TSC anyway: the usual path */
	snprintf(sys.cs.current, sizeof(sys.cs.current), "hpet");
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_SYNC, 4, SETUP_ENTER_SYNC);
}

/* A watchdog drop after a suspend: the rate measurement, not the stage,
 * installed or not. */
static void runtime_skew_measures_the_rate(void **s)
{
	(void)s;
	stage(false, "", false);
	diag.code = DIAG_WATCHDOG_SKEW;
	diag.after_power_transition = true;
	setup_decide(&sys, &diag, false, false, &out);
	expect(SETUP_RUNTIME_SKEW, 2, SETUP_ENTER_CHECK);
	setup_decide(&sys, &diag, false, true, &out);
	expect(SETUP_CHECKING, 2, SETUP_ENTER_NOTHING);
}

static void check_started_is_checking(void **s)
{
	(void)s;
	stage(true, "sync", false);
	diag.code = DIAG_WATCHDOG_SKEW;
	setup_decide(&sys, &diag, false, true, &out);
	expect(SETUP_CHECKING, 5, SETUP_ENTER_NOTHING);
}

/* ---- the five-minute check ---- */

static struct engine_snapshot snap;

static void survey(unsigned n, uint32_t warps)
{
	snap.surveys = n;
	snap.ncores = 2;
	snap.cores[0].warps_bsp = warps;
	snap.cores[1].warps_ap = warps;
}

static void check_counts_new_surveys_for_five_minutes(void **s)
{
	struct setup_check c = { 0 };

	(void)s;
	survey(5, 1);
	assert_false(setup_check_started(&c));
	assert_false(setup_check_count(&c, &snap, 1000));

	setup_check_start(&c, 5, 1000);
	assert_true(setup_check_started(&c));
	assert_int_equal(setup_check_left(&c, 1000), SETUP_CHECK_S);
	/* The survey it started on is not counted; each new one once. */
	assert_false(setup_check_count(&c, &snap, 1000));
	survey(6, 2);
	assert_true(setup_check_count(&c, &snap, 1002));
	assert_false(setup_check_count(&c, &snap, 1002));
	survey(7, 0);
	assert_true(setup_check_count(&c, &snap, 1000 + SETUP_CHECK_S));
	assert_int_equal(c.surveys, 2);
	assert_int_equal(c.warps, 4);
	/* Over: nothing more is counted. */
	survey(8, 9);
	assert_false(setup_check_count(&c, &snap, 1001 + SETUP_CHECK_S));
	assert_int_equal(c.warps, 4);
	assert_true(setup_check_left(&c, 1001 + SETUP_CHECK_S) <= 0);

	/* A restart counts afresh. */
	setup_check_start(&c, 8, 2000);
	assert_int_equal(c.surveys, 0);
	assert_int_equal(c.warps, 0);
}

/* Sync set and this boot's report measured only: a probation boot after an
 * unconfirmed sync.  Where the loader keeps no record of the entry booted
 * last, the setup offers the setting that gives it one, with what it
 * changes; not where it is set, not on a resume boot (its report counts the
 * guard variable's writes), not on the firmware entry (no such setting). */
static void probation_offers_the_last_boot_setting(void **s)
{
	(void)s;
	stage(true, "sync", true);
	aps(3, 0);
	report.mode = TSC_MODE_MEASURE;
	sys.stage.loader = LOADER_GRUB;
	sys.stage.state.last_boot = LAST_BOOT_UNSET;
	setup_decide(&sys, &diag, false, false, &out);
	assert_non_null(out.last_boot);
	assert_non_null(strstr(out.last_boot, "GRUB_SAVEDEFAULT=true"));
	assert_non_null(strstr(out.last_boot, "It changes"));
	sys.stage.loader = LOADER_SDBOOT;
	setup_decide(&sys, &diag, false, false, &out);
	assert_non_null(strstr(out.last_boot, "default @saved"));
	sys.stage.state.last_boot = LAST_BOOT_SET;
	setup_decide(&sys, &diag, false, false, &out);
	assert_null(out.last_boot);
	sys.stage.state.last_boot = LAST_BOOT_UNSET;
	report.nvram_writes = 2;
	setup_decide(&sys, &diag, false, false, &out);
	assert_null(out.last_boot);
	report.nvram_writes = 0;
	report.mode = TSC_MODE_SYNC;
	setup_decide(&sys, &diag, false, false, &out);
	assert_null(out.last_boot);
	report.mode = TSC_MODE_MEASURE;
	sys.stage.loader = LOADER_EFI_ENTRY;
	sys.stage.state.last_boot = LAST_BOOT_NO_SETTING;
	setup_decide(&sys, &diag, false, false, &out);
	assert_null(out.last_boot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(not_installed_installs),
		cmocka_unit_test(guest_checks_the_host),
		cmocka_unit_test(measuring_without_report_boots),
		cmocka_unit_test(bsp_behind_syncs),
		cmocka_unit_test(no_lagging_bsp_is_nothing_to_sync),
		cmocka_unit_test(synced_offers_the_check),
		cmocka_unit_test(watchdog_skew_asks_for_nowatchdog),
		cmocka_unit_test(check_started_is_checking),
		cmocka_unit_test(directsync_kernel_is_not_pushed_to_sync),
		cmocka_unit_test(runtime_skew_measures_the_rate),
		cmocka_unit_test(check_counts_new_surveys_for_five_minutes),
		cmocka_unit_test(probation_offers_the_last_boot_setting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

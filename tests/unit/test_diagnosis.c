/* The diagnosis (tui/model/diagnosis.c) as a pure function: a system
 * snapshot in, a code, a sentence and recommendations out.  Each case
 * states the snapshot in a few lines; kernel events come from the log
 * lines the kernel prints, through the real parser. */
#include "cm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/verdict.h"
#include "../../tui/model/diagnosis.h"

static const char warp_log[] =
	"[    0.174311] TSC synchronization [CPU#0 -> CPU#2]:\n"
	"[    0.174311] Measured 6601281288 cycles TSC warp between CPUs, "
	"turning off TSC clock.\n"
	"[    0.301238] clocksource: Switched to clocksource hpet\n";
static const char watchdog_log[] =
	"[    4.218722] clocksource: Watchdog hpet interval: 495426793ns\n"
	"[    4.218730] clocksource: Clocksource tsc interval: 495006210ns\n"
	"[    4.218733] clocksource: Marking clocksource tsc unstable due to "
	"frequency skew\n"
	"[    4.218902] clocksource: Switched to clocksource hpet\n";

/* An AMD laptop with an invariant TSC, the stage not installed. */
static struct sysinfo *laptop(const char *cs, const char *log)
{
	struct sysinfo *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	snprintf(s->cs.current, sizeof(s->cs.current), "%s", cs);
	snprintf(s->cpu.vendor, sizeof(s->cpu.vendor), "amd");
	s->cpu.family = 0x17;
	s->cpu.invariant_tsc = true;
	snprintf(s->stage.loader, sizeof(s->stage.loader), "none");
	s->klog = calloc(1, sizeof(*s->klog));
	assert_non_null(s->klog);
	s->have_klog = true;
	kernlog_parse(log, strlen(log), s->klog);
	return s;
}

static void done(struct sysinfo *s)
{
	free(s->klog);
	free(s);
}

static bool has_rec(const struct diagnosis *d, const char *rec)
{
	int i;

	for (i = 0; i < d->nrecs; i++)
		if (!strcmp(d->recs[i], rec))
			return true;
	return false;
}

static void healthy(void **st)
{
	struct sysinfo *s = laptop("tsc", "");
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &d);
	assert_string_equal(diagnosis_code_name(d.code), "healthy");
	assert_false(d.unhealthy);
	assert_int_equal(d.nrecs, 1);
	assert_string_equal(d.recs[0], "none");
	done(s);
}

/* The dashboard while its kernel log is still being read: no conclusion
 * the log could change, and it says why. */
static void waiting_for_the_log(void **st)
{
	struct sysinfo *s = laptop("hpet", "");
	struct diagnosis d;

	(void)st;
	s->have_klog = false;
	s->klog_pending = true;
	diagnosis_make(s, NULL, &d);
	assert_string_equal(diagnosis_code_name(d.code), "unknown");
	assert_false(d.unhealthy);
	assert_int_equal(d.nrecs, 1);
	assert_string_equal(d.recs[0], "none");
	assert_string_equal(d.kernel_verdict, "reading the kernel log...");
	assert_non_null(strstr(d.summary, "Reading the kernel log"));
	done(s);
}

/* The field report's first boot: a warp at boot, nothing installed. */
static void boot_warp_asks_to_measure(void **st)
{
	struct sysinfo *s = laptop("hpet", warp_log);
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &d);
	assert_string_equal(diagnosis_code_name(d.code), "boot-warp");
	assert_true(d.unhealthy);
	assert_true(has_rec(&d, "install-measure"));
	assert_non_null(strstr(d.summary, "6,601,281,288 cycles"));
	assert_non_null(strstr(d.summary, "between CPU 0 and CPU 2"));
	done(s);
}

/* Measured, and the stage saw the boot CPU behind every AP: sync next. */
static void boot_warp_measured_behind_asks_for_sync(void **st)
{
	struct sysinfo *s = laptop("hpet", warp_log);
	struct tsc_report r = { .nap = 2 };
	struct diagnosis d;

	(void)st;
	s->stage.installed = true;
	s->stage.has_state = true;
	s->stage.mode = TSC_MODE_MEASURE;
	s->stage.mode_known = true;
	snprintf(s->stage.mode_word, sizeof(s->stage.mode_word), "measure");
	r.ap[0].survey_offset = 6815086011;
	r.ap[0].rtt = 126;
	r.ap[0].verdict = TSC_VERDICT_BAD;
	r.ap[1].survey_offset = 6815085000;
	r.ap[1].rtt = 130;
	r.ap[1].verdict = TSC_VERDICT_BAD;
	s->stage.has_report = true;
	s->stage.report = &r;
	diagnosis_make(s, NULL, &d);
	assert_string_equal(diagnosis_code_name(d.code), "boot-warp");
	assert_true(has_rec(&d, "enable-sync"));
	assert_non_null(strstr(d.summary, "6,815,085,000 cycles behind"));
	done(s);
}

static void watchdog_skew_suggests_nowatchdog(void **st)
{
	struct sysinfo *s = laptop("hpet", watchdog_log);
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	assert_true(d.unhealthy);
	assert_true(has_rec(&d, "add-nowatchdog"));
	done(s);
}

/* With tsc=nowatchdog already on the command line, it is not suggested
 * again. */
static void watchdog_skew_with_nowatchdog_set(void **st)
{
	struct sysinfo *s = laptop("hpet", watchdog_log);
	struct diagnosis d;

	(void)st;
	kernel_cmdline_parse("ro quiet tsc=nowatchdog", &s->cmdline);
	diagnosis_make(s, NULL, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	assert_false(has_rec(&d, "add-nowatchdog"));
	assert_non_null(strstr(d.summary, "although tsc=nowatchdog is set"));
	done(s);
}

static void virtual_machine_checks_the_host(void **st)
{
	struct sysinfo *s = laptop("kvm-clock", "");
	struct diagnosis d;

	(void)st;
	s->cpu.hypervisor = true;
	diagnosis_make(s, NULL, &d);
	assert_string_equal(diagnosis_code_name(d.code), "virtual-machine");
	assert_true(has_rec(&d, "check-host"));
	done(s);
}

static void no_invariant_tsc(void **st)
{
	struct sysinfo *s = laptop("hpet", "");
	struct diagnosis d;

	(void)st;
	s->cpu.invariant_tsc = false;
	diagnosis_make(s, NULL, &d);
	assert_string_equal(diagnosis_code_name(d.code), "no-invariant-tsc");
	assert_true(d.unhealthy);
	done(s);
}

/* A new BIOS since the last sync boot: measure again, and say so in
 * bios_changed (tsctui_bios_changed_since_sync); no sync boot: no change. */
static void bios_update_asks_to_remeasure(void **st)
{
	struct sysinfo *s = laptop("tsc", "");
	struct diagnosis d;

	(void)st;
	snprintf(s->machine.bios_version, sizeof(s->machine.bios_version),
		 "R11ET36W (1.30 )");
	diagnosis_make(s, "R11ET36W (1.28 )", &d);
	assert_true(has_rec(&d, "remeasure-after-bios-update"));
	assert_true(d.bios_changed);
	diagnosis_make(s, "R11ET36W (1.30 )", &d);
	assert_false(has_rec(&d, "remeasure-after-bios-update"));
	assert_false(d.bios_changed);
	diagnosis_make(s, "", &d);
	assert_false(d.bios_changed);
	done(s);
}

/* tsc=reliable is warned about, never recommended. */
static void reliable_is_warned_never_recommended(void **st)
{
	struct sysinfo *s = laptop("tsc", "");
	struct diagnosis d;
	int i;

	(void)st;
	kernel_cmdline_parse("tsc=reliable", &s->cmdline);
	diagnosis_make(s, NULL, &d);
	assert_non_null(strstr(d.summary, "Warning: tsc=reliable is set"));
	for (i = 0; i < d.nrecs; i++)
		assert_null(strstr(d.recs[i], "reliable"));
	done(s);
}

/* The BSP is behind only when every measured AP leads it by more than the
 * ok limit plus the estimate's uncertainty. */
static void bsp_behind(void **st)
{
	struct tsc_report r = { .nap = 2 };
	long long by = 0;

	(void)st;
	r.ap[0].survey_offset = 5000;
	r.ap[0].rtt = 100;
	r.ap[0].verdict = TSC_VERDICT_BAD;
	r.ap[1].survey_offset = 4000;
	r.ap[1].rtt = 100;
	r.ap[1].verdict = TSC_VERDICT_BAD;
	assert_true(diagnosis_bsp_behind(&r, &by));
	assert_int_equal(by, 4000);
	r.ap[1].survey_offset = TSC_OK_LIMIT;
	assert_false(diagnosis_bsp_behind(&r, &by));
	r.ap[1].verdict = TSC_VERDICT_UNMEASURED;
	assert_true(diagnosis_bsp_behind(&r, &by));
	assert_int_equal(by, 5000);
	assert_false(diagnosis_bsp_behind(NULL, &by));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy),
		cmocka_unit_test(waiting_for_the_log),
		cmocka_unit_test(boot_warp_asks_to_measure),
		cmocka_unit_test(boot_warp_measured_behind_asks_for_sync),
		cmocka_unit_test(watchdog_skew_suggests_nowatchdog),
		cmocka_unit_test(watchdog_skew_with_nowatchdog_set),
		cmocka_unit_test(virtual_machine_checks_the_host),
		cmocka_unit_test(no_invariant_tsc),
		cmocka_unit_test(bios_update_asks_to_remeasure),
		cmocka_unit_test(reliable_is_warned_never_recommended),
		cmocka_unit_test(bsp_behind),
	};

	return cmocka_run_group_tests_name("diagnosis", tests, NULL, NULL);
}

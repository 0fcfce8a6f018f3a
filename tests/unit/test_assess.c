/* The one decision the front ends word (tui/model/assess.c), stated on
 * snapshots built in memory: no file is read.  Kernel events come from the
 * lines the kernel prints, through the real parser. */
#include "cm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tui/model/assess.h"

static const char watchdog_log[] =
	"[    4.218722] clocksource: Watchdog hpet interval: 495426793ns\n"
	"[    4.218730] clocksource: Clocksource tsc interval: 495006210ns\n"
	"[    4.218733] clocksource: Marking clocksource tsc unstable due to "
	"frequency skew\n"
	"[    4.218902] clocksource: Switched to clocksource hpet\n";

/* An AMD laptop, invariant TSC, on clocksource cs, with this kernel log;
 * tsctui not installed. */
static struct sysinfo *laptop(const char *cs, const char *log)
{
	struct sysinfo *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	snprintf(s->cs.current, sizeof(s->cs.current), "%s", cs);
	s->cpu.vendor_id = TSC_VENDOR_AMD;
	s->cpu.vendor_known = true;
	s->cpu.family = 0x17;
	s->cpu.invariant_tsc = true;
	snprintf(s->machine.bios_version, sizeof(s->machine.bios_version),
		 "R11ET36W (1.30 )");
	s->klog = calloc(1, sizeof(*s->klog));
	assert_non_null(s->klog);
	s->have_klog = true;
	kernlog_parse(log, strlen(log), s->klog);
	return s;
}

/* tsctui installed for GRUB, the stage in mode. */
static void installed(struct sysinfo *s, enum tsc_mode mode)
{
	s->stage.conf_read = 1;
	s->stage.installed = true;
	s->stage.loader = s->stage.conf.loader = LOADER_GRUB;
	s->stage.has_state = true;
	s->stage.mode = mode;
	s->stage.mode_known = true;
	snprintf(s->stage.mode_word, sizeof(s->stage.mode_word), "%s",
		 tsc_mode_name(mode));
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

static void healthy_and_not_installed(void **st)
{
	struct sysinfo *s = laptop("tsc", "");
	struct assess_live live = { 0 };
	struct assessment a;

	(void)st;
	assess_make(s, &live, &a);
	assert_true(a.healthy);
	assert_false(a.installed);
	assert_int_equal(a.diag.code, DIAG_HEALTHY);
	assert_int_equal(a.setup.step, SETUP_INSTALL);
	assert_int_equal(a.setup.enter, SETUP_ENTER_INSTALL);
	done(s);
}

/* A guest: the host makes the TSC, so nothing is to be installed here. */
static void a_guest_installs_nothing(void **st)
{
	struct sysinfo *s = laptop("kvm-clock", "");
	struct assess_live live = { 0 };
	struct assessment a;

	(void)st;
	s->cpu.hypervisor = true;
	assess_make(s, &live, &a);
	assert_int_equal(a.diag.code, DIAG_VIRTUAL_MACHINE);
	assert_true(a.diag.vm.virtual_machine);
	assert_int_equal(a.setup.step, SETUP_GUEST);
	assert_int_equal(a.setup.enter, SETUP_ENTER_NOTHING);
	assert_false(a.installed);
	done(s);
}

/* Installed (tsctui.conf read) and measuring without a report: power
 * off and boot; three strikes are the guard giving up on sync. */
static void installed_and_struck_out(void **st)
{
	struct sysinfo *s = laptop("tsc", "");
	struct assess_live live = { 0 };
	struct assessment a;

	(void)st;
	installed(s, TSC_MODE_MEASURE);
	s->stage.strikes = GUARD_MAX_STRIKES - 1;
	assess_make(s, &live, &a);
	assert_true(a.installed);
	assert_false(a.struck_out);
	assert_int_equal(a.setup.step, SETUP_MEASURE_BOOT);
	s->stage.strikes = GUARD_MAX_STRIKES;
	assess_make(s, &live, &a);
	assert_true(a.struck_out);
	done(s);
}

/* The watchdog dropped the TSC: the rate is wanted on this machine only,
 * and a live measurement within the bound decides the advice. */
static void the_live_rate_decides_the_watchdog_advice(void **st)
{
	struct sysinfo *s = laptop("hpet", watchdog_log);
	struct assess_live live = { 0 };
	struct assessment a;

	(void)st;
	installed(s, TSC_MODE_SYNC);
	assess_make(s, &live, &a);
	assert_false(a.healthy);
	assert_int_equal(a.diag.code, DIAG_WATCHDOG_SKEW);
	assert_true(assess_rate_wanted(&a, true));
	assert_false(assess_rate_wanted(&a, false));
	assert_true(has_rec(&a.diag, "measure-rate"));
	live.rate.measured = true;
	live.rate.ppm = -16;
	assess_make(s, &live, &a);
	assert_int_equal(a.diag.nrecs, 1);
	assert_string_equal(a.diag.recs[0], "add-nowatchdog");
	assert_int_equal(a.setup.step, SETUP_NOWATCHDOG);
	/* The snapshot's own slot is not where the live rate goes. */
	assert_false(s->rate_check.measured);
	done(s);
}

/* The last sync boot's BIOS comes with the snapshot. */
static void a_bios_update_since_the_last_sync(void **st)
{
	struct sysinfo *s = laptop("tsc", "");
	struct assess_live live = { 0 };
	struct assessment a;

	(void)st;
	snprintf(s->last_sync_bios, sizeof(s->last_sync_bios),
		 "R11ET36W (1.28 )");
	assess_make(s, &live, &a);
	assert_true(a.diag.bios_changed);
	assert_true(has_rec(&a.diag, "remeasure-after-bios-update"));
	snprintf(s->last_sync_bios, sizeof(s->last_sync_bios),
		 "R11ET36W (1.30 )");
	assess_make(s, &live, &a);
	assert_false(a.diag.bios_changed);
	done(s);
}

static void a_sample_is_healthy_without_warps_on_tsc(void **st)
{
	(void)st;
	assert_true(assess_sample_healthy(0, "tsc"));
	assert_false(assess_sample_healthy(1, "tsc"));
	assert_false(assess_sample_healthy(0, "hpet"));
	assert_false(assess_sample_healthy(0, ""));
}

/* The engine's rate counts once it spans RTCRATE_SECONDS of the RTC. */
static void the_engine_rate_counts_once_long_enough(void **st)
{
	struct engine_snapshot *snap = calloc(1, sizeof(*snap));
	struct tsc_rate_check rc = { 0 };
	unsigned i;

	(void)st;
	assert_non_null(snap);
	snap->ref = REF_RTC;
	rate_init(&snap->rate, 2000);
	for (i = 0; i < RTCRATE_SECONDS; i++)
		rate_tick(&snap->rate, (uint64_t)i * 2000000000ull, i);
	assert_false(assess_rate_from_engine(snap, &rc));
	assert_false(rc.measured);
	rate_tick(&snap->rate, (uint64_t)i * 2000000000ull, i);
	assert_true(assess_rate_from_engine(snap, &rc));
	assert_true(rc.measured);
	assert_string_equal(rc.source, "dashboard");
	assert_true(rc.ppm > -1 && rc.ppm < 1);
	/* Against CLOCK_MONOTONIC_RAW it says nothing of the RTC. */
	memset(&rc, 0, sizeof(rc));
	snap->ref = REF_MONOTONIC_RAW;
	assert_false(assess_rate_from_engine(snap, &rc));
	free(snap);
}

/* Can programs trust the TSC, live: the engine's cores take the place of
 * status' survey on the machine itself, and nowhere else. */
static void the_live_cores_answer_trust(void **st)
{
	struct sysinfo *s = laptop("tsc", "");
	struct assess_live live = { 0 };
	struct engine_snapshot *snap = calloc(1, sizeof(*snap));
	struct assessment a;
	struct trust_out out;

	(void)st;
	assert_non_null(snap);
	assess_make(s, &live, &a);
	assert_int_equal(a.trust.verdict, TRUST_YES);
	snap->surveys = 1;
	snap->ncores = 2;
	snap->cores[0] = (struct engine_core){ .cpu = 1,
					       .measured = true,
					       .shown = TSC_VERDICT_OK };
	snap->cores[1] = (struct engine_core){ .cpu = 2,
					       .measured = true,
					       .shown = TSC_VERDICT_OK };
	assess_live_trust(&a, s, snap, true, &out);
	assert_int_equal(out.verdict, TRUST_YES);
	/* a core not yet measured: cannot tell */
	snap->cores[1].measured = false;
	assess_live_trust(&a, s, snap, true, &out);
	assert_int_equal(out.verdict, TRUST_UNKNOWN);
	/* a warp: no, whatever the files said */
	snap->cores[1].measured = true;
	snap->cores[1].warps_bsp = 3;
	assess_live_trust(&a, s, snap, true, &out);
	assert_int_equal(out.verdict, TRUST_NO);
	/* not this machine's cores (--root, --kernel-log), or no engine:
	 * the assessment's answer as it is */
	assess_live_trust(&a, s, snap, false, &out);
	assert_int_equal(out.verdict, TRUST_YES);
	assess_live_trust(&a, s, NULL, true, &out);
	assert_int_equal(out.verdict, TRUST_YES);
	free(snap);
	done(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_and_not_installed),
		cmocka_unit_test(a_guest_installs_nothing),
		cmocka_unit_test(installed_and_struck_out),
		cmocka_unit_test(the_live_rate_decides_the_watchdog_advice),
		cmocka_unit_test(a_bios_update_since_the_last_sync),
		cmocka_unit_test(a_sample_is_healthy_without_warps_on_tsc),
		cmocka_unit_test(the_engine_rate_counts_once_long_enough),
		cmocka_unit_test(the_live_cores_answer_trust),
	};

	return cmocka_run_group_tests_name("assess", tests, NULL, NULL);
}

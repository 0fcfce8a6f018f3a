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
	s->cpu.vendor_id = TSC_VENDOR_AMD;
	s->cpu.vendor_known = true;
	s->cpu.family = 0x17;
	s->cpu.invariant_tsc = true;
	s->stage.loader = LOADER_NONE;
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
	diagnosis_make(s, NULL, &s->rate_check, &d);
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
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "unknown");
	assert_false(d.unhealthy);
	assert_int_equal(d.nrecs, 1);
	assert_string_equal(d.recs[0], "none");
	assert_string_equal(d.kernel_verdict, "reading the kernel log...");
	assert_non_null(strstr(d.summary, "Reading the kernel log"));
	done(s);
}

/* No kernel log and none coming (not root): the way out is a code, and
 * the summary holds the command line's words for it, marked, so status
 * prints the same bytes and the dashboard puts its own words there. */
static void no_log_advice_is_a_code(void **st)
{
	struct sysinfo *s = laptop("hpet", "");
	const char *words = diagnosis_advice_words(DIAG_ADVICE_KERNEL_LOG);
	struct diagnosis d;

	(void)st;
	s->have_klog = false;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "unknown");
	assert_int_equal(d.advice, DIAG_ADVICE_KERNEL_LOG);
	assert_int_equal(d.advice_end - d.advice_at, strlen(words));
	assert_memory_equal(d.summary + d.advice_at, words, strlen(words));
	assert_non_null(strstr(d.summary, "and without the kernel log tsctui "
					  "cannot say why (run as root, or "
					  "give --kernel-log)."));
	/* with the log, no advice */
	s->have_klog = true;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_int_equal(d.advice, DIAG_ADVICE_NONE);
	done(s);
}

/* The field report's first boot: a warp at boot, nothing installed. */
static void boot_warp_asks_to_measure(void **st)
{
	struct sysinfo *s = laptop("hpet", warp_log);
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "boot-warp");
	assert_true(d.unhealthy);
	assert_true(has_rec(&d, "install-measure"));
	assert_non_null(strstr(d.summary, "6,601,281,288 cycles"));
	assert_non_null(strstr(d.summary, "between CPU 0 and CPU 2"));
	done(s);
}

/* Measured, and the stage saw the boot CPU behind every AP: sync next. */
/* The stage installed in measure mode, and this boot's report: the E595's
 * BSP behind both APs. */
static void measured_behind(struct sysinfo *s, struct tsc_report *r)
{
	s->stage.installed = true;
	s->stage.has_state = true;
	s->stage.mode = TSC_MODE_MEASURE;
	s->stage.mode_known = true;
	snprintf(s->stage.mode_word, sizeof(s->stage.mode_word), "measure");
	r->ap[0].survey_offset = 6815086011;
	r->ap[0].rtt = 126;
	r->ap[0].verdict = TSC_VERDICT_BAD;
	r->ap[1].survey_offset = 6815085000;
	r->ap[1].rtt = 130;
	r->ap[1].verdict = TSC_VERDICT_BAD;
	s->stage.has_report = true;
	s->stage.report = r;
}

static void boot_warp_measured_behind_asks_for_sync(void **st)
{
	struct sysinfo *s = laptop("hpet", warp_log);
	struct tsc_report r = { .nap = 2 };
	struct diagnosis d;

	(void)st;
	measured_behind(s, &r);
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "boot-warp");
	assert_true(has_rec(&d, "enable-sync"));
	assert_non_null(strstr(d.summary, "6,815,085,000 cycles behind"));
	done(s);
}

/* The kernel's warp test missed the firmware's fault (its two CPUs did not
 * run at once; seen on the TSC rig under TCG) and the watchdog dropped the
 * TSC later; the stage's measure report of this boot has the BSP behind:
 * the firmware's warp, sync mode fixes it, and tsc=nowatchdog (which the
 * watchdog's branch would give, the TSC's rate being right) is never
 * advised. */
static void watchdog_drop_the_stage_measured_is_the_warp(void **st)
{
	struct sysinfo *s = laptop("hpet", watchdog_log);
	struct tsc_report r = { .nap = 2, .result = TSC_RESULT_OUT_OF_SYNC };
	struct diagnosis d;

	(void)st;
	measured_behind(s, &r);
	r.mode = TSC_MODE_MEASURE;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "boot-warp");
	assert_true(has_rec(&d, "enable-sync"));
	assert_false(has_rec(&d, "add-nowatchdog"));
	assert_non_null(strstr(d.summary, "stage measured the TSCs apart"));
	/* A report that found the cores in step leaves it the watchdog's. */
	r.result = TSC_RESULT_IN_SYNC;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	done(s);
}

static void watchdog_skew_suggests_nowatchdog(void **st)
{
	struct sysinfo *s = laptop("hpet", watchdog_log);
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	assert_true(d.unhealthy);
	/* -849 ppm, no rate measured: measure first */
	assert_string_equal(d.recs[0], "measure-rate");
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
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	assert_false(has_rec(&d, "add-nowatchdog"));
	assert_non_null(strstr(d.summary, "although tsc=nowatchdog is set"));
	done(s);
}

/* A guest on the hypervisor's paravirtual clock: nothing to check on the
 * host; on a slow clocksource: check-host. */
static void virtual_machine_checks_the_host_only_when_slow(void **st)
{
	struct sysinfo *s = laptop("kvm-clock", "");
	struct diagnosis d;

	(void)st;
	s->cpu.hypervisor = true;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "virtual-machine");
	assert_false(has_rec(&d, "check-host"));
	assert_true(has_rec(&d, "none"));
	assert_non_null(strstr(d.summary, "paravirtual clock"));
	snprintf(s->cs.current, sizeof(s->cs.current), "hpet");
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_true(has_rec(&d, "check-host"));
	assert_non_null(strstr(d.summary, "slow"));
	done(s);
}

/* A guest on kvm-clock whose own warp test failed: the host's TSC is in
 * doubt. */
static void guest_with_a_warp_checks_the_host(void **st)
{
	struct sysinfo *s = laptop("kvm-clock", warp_log);
	struct diagnosis d;

	(void)st;
	s->cpu.hypervisor = true;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "virtual-machine");
	assert_true(has_rec(&d, "check-host"));
	assert_non_null(strstr(d.summary, "in doubt"));
	done(s);
}

/* No hypervisor flag (hidden, or a rescue with --root and a log from
 * elsewhere): the log, the clocksources and DMI tell, each named. */
static void guest_told_by_other_evidence(void **st)
{
	static const char log[] =
		"[    0.000000] DMI: innotek GmbH VirtualBox/VirtualBox, BIOS "
		"VirtualBox 12/01/2006\n"
		"[    0.000000] Hypervisor detected: KVM\n"
		"[    0.000000] Booting paravirtualized kernel on KVM\n";
	struct sysinfo *s = laptop("tsc", log);
	struct diagnosis d;
	int i;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_true(d.vm.virtual_machine);
	assert_int_equal(d.vm.n, 3);
	assert_string_equal(d.vm.what[0], "log: Hypervisor detected: KVM");
	assert_string_equal(d.vm.what[1],
			    "log: Booting paravirtualized kernel on KVM");
	assert_string_equal(d.vm.what[2], "log: DMI: VirtualBox");
	assert_string_equal(diagnosis_code_name(d.code), "virtual-machine");
	done(s);
	/* each alone is enough */
	s = laptop("hyperv_clocksource_tsc_page", "");
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(d.vm.what[0],
			    "clocksource: hyperv_clocksource_tsc_page");
	assert_false(has_rec(&d, "check-host"));
	snprintf(s->cs.current, sizeof(s->cs.current), "hpet");
	snprintf(s->cs.available[0], sizeof(s->cs.available[0]), "xen");
	s->cs.navailable = 1;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(d.vm.what[0], "clocksource: xen");
	assert_true(has_rec(&d, "check-host"));
	s->cs.navailable = 0;
	snprintf(s->machine.vendor, sizeof(s->machine.vendor),
		 "Microsoft Corporation");
	snprintf(s->machine.product, sizeof(s->machine.product),
		 "Virtual Machine");
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(d.vm.what[0], "dmi: Microsoft Virtual Machine");
	for (i = 0; i < d.nrecs; i++)
		assert_string_not_equal(d.recs[i], "add-nowatchdog");
	done(s);
}

/* The TSC rig's guests: a laptop's SMBIOS strings, no hypervisor bit,
 * TCG's "bare hardware" banner and its P0 firmware line: never a guest.
 * Nor a Surface, nor a Xeon. */
static void laptop_strings_are_never_virtual(void **st)
{
	static const char log[] =
		"[    0.000000] [Firmware Bug]: TSC doesn't count with P0 "
		"frequency!\n"
		"[    0.000000] DMI: LENOVO 20NECTO1WW/20NECTO1WW, BIOS "
		"R11ET36W "
		"(1.28 ) 11/19/2019\n"
		"[    0.000000] Booting paravirtualized kernel on bare "
		"hardware\n";
	static const char *const laptops[][2] = {
		{ "LENOVO", "20NECTO1WW" },
		{ "Microsoft Corporation", "Surface Laptop 3" },
		{ "Dell Inc.", "Precision 7920 Tower (Xeon)" },
		{ "Framework", "Laptop 13 (AMD Ryzen 7040Series)" },
	};
	struct sysinfo *s = laptop("tsc", log);
	struct diagnosis d;
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(laptops) / sizeof(laptops[0]); i++) {
		snprintf(s->machine.vendor, sizeof(s->machine.vendor), "%s",
			 laptops[i][0]);
		snprintf(s->machine.product, sizeof(s->machine.product), "%s",
			 laptops[i][1]);
		diagnosis_make(s, NULL, &s->rate_check, &d);
		assert_false(d.vm.virtual_machine);
		assert_int_equal(d.vm.n, 0);
		assert_string_equal(diagnosis_code_name(d.code), "healthy");
	}
	done(s);
}

/* A firmware-bug event is never followed by "no TSC trouble". */
static void firmware_bug_is_not_no_trouble(void **st)
{
	struct sysinfo *s = laptop("tsc", "[    0.000000] [Firmware Bug]: TSC "
					  "doesn't count with P0 frequency!\n");
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "healthy");
	assert_null(strstr(d.summary, "no TSC trouble"));
	assert_non_null(strstr(d.summary, "changes nothing here"));
	done(s);
	s = laptop("tsc", "[    0.121455] [Firmware Bug]: TSC ADJUST: CPU0: "
			  "-2147483648 force to 0\n");
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_null(strstr(d.summary, "no TSC trouble"));
	assert_non_null(strstr(d.summary, "firmware bug"));
	assert_non_null(strstr(d.summary, "CPU 0"));
	done(s);
	s = laptop("tsc", "[    0.160302] TSC ADJUST compensate: CPU2 observed "
			  "86522 warp. Adjust: 86522\n");
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_null(strstr(d.summary, "no TSC trouble"));
	assert_non_null(strstr(d.summary, "CPU 2's TSC 86522 cycles off"));
	done(s);
	s = laptop("tsc", "[  327.445302] [Firmware Bug]: TSC ADJUST differs: "
			  "CPU15 45960750 --> 78394770. Restoring\n");
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_null(strstr(d.summary, "no TSC trouble"));
	assert_non_null(strstr(d.summary, "CPU 15"));
	done(s);
}

/* 5.14-5.15 dropped the TSC for a slow read of its reference: the
 * watchdog-skew code, the reference named at fault, measure-rate first. */
static void readback_drop_blames_the_reference(void **st)
{
	static const char log[] =
		"[    6.101234] clocksource: timekeeping watchdog on CPU2: "
		"hpet "
		"read-back delay of 174213ns, attempt 4, marking unstable\n"
		"[    6.101240] tsc: Marking TSC unstable due to clocksource "
		"watchdog\n"
		"[    6.101300] clocksource: Switched to clocksource hpet\n";
	struct sysinfo *s = laptop("hpet", log);
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	assert_non_null(strstr(d.summary, "reading its reference (hpet)"));
	assert_non_null(strstr(d.summary, "not the TSC"));
	assert_null(strstr(d.summary, "ppm against"));
	assert_string_equal(d.recs[0], "measure-rate");
	assert_true(has_rec(&d, "add-nowatchdog"));
	assert_non_null(strstr(d.kernel_verdict, "read slowly"));
	done(s);
}

/* The old message: a watchdog skew whose ppm is not known; the advice
 * will not turn the watchdog off on it. */
static void old_delta_is_measured_first(void **st)
{
	struct sysinfo *s = laptop("hpet", "[   12.0] Clocksource tsc unstable "
					   "(delta = -131624372 ns)\n");
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	assert_non_null(strstr(d.summary, "-131624372 ns"));
	assert_non_null(strstr(d.summary, "not known"));
	assert_int_equal(d.nrecs, 1);
	assert_string_equal(d.recs[0], "measure-rate");
	done(s);
}

/* The watchdog's cross-CPU check found CPUs apart: the TSCs disagree
 * between CPUs, and turning the watchdog off would hide it. */
static void cpus_apart_keeps_the_watchdog(void **st)
{
	static const char log[] =
		"[    5.842001] clocksource: timekeeping watchdog on CPU6: "
		"Marking "
		"clocksource 'tsc' as unstable because the skew is too large:\n"
		"[    5.842010] clocksource:                       'hpet' "
		"wd_nsec: "
		"495136113 wd_now: 4c6fb9a wd_last: 4551262 mask: ffffffff\n"
		"[    5.842015] clocksource:                       'tsc' "
		"cs_nsec: "
		"496026671 cs_now: 9b2b4c28f5 cs_last: 9aefc6e4c5 mask: "
		"ffffffffffffffff\n"
		"[    5.842100] clocksource: CPUs 0,2-3 ahead of CPU 6 for "
		"clocksource tsc.\n";
	struct sysinfo *s = laptop("hpet", log);
	struct diagnosis d;

	(void)st;
	s->rate_check.measured = true;
	s->rate_check.ppm = 2;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	assert_false(has_rec(&d, "add-nowatchdog"));
	assert_non_null(strstr(d.summary, "apart between CPUs"));
	done(s);
}

/* A measured rate (issue 17 will keep one) decides: within the bound
 * add-nowatchdog alone, outside never. */
static void a_measured_rate_decides(void **st)
{
	struct sysinfo *s = laptop("hpet", watchdog_log);
	struct diagnosis d;

	(void)st;
	s->rate_check.measured = true;
	s->rate_check.ppm = -16;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_int_equal(d.nrecs, 1);
	assert_string_equal(d.recs[0], "add-nowatchdog");
	s->rate_check.ppm = -95000;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_false(has_rec(&d, "add-nowatchdog"));
	assert_non_null(strstr(d.summary, "base clock"));
	done(s);
}

static void no_invariant_tsc(void **st)
{
	struct sysinfo *s = laptop("hpet", "");
	struct diagnosis d;

	(void)st;
	s->cpu.invariant_tsc = false;
	diagnosis_make(s, NULL, &s->rate_check, &d);
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
	diagnosis_make(s, "R11ET36W (1.28 )", &s->rate_check, &d);
	assert_true(has_rec(&d, "remeasure-after-bios-update"));
	assert_true(d.bios_changed);
	diagnosis_make(s, "R11ET36W (1.30 )", &s->rate_check, &d);
	assert_false(has_rec(&d, "remeasure-after-bios-update"));
	assert_false(d.bios_changed);
	diagnosis_make(s, "", &s->rate_check, &d);
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
	diagnosis_make(s, NULL, &s->rate_check, &d);
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

static const char inter_cpu_log[] =
	"[    2.131550] clocksource: Switched to clocksource tsc\n"
	"[   38.502113] clocksource: Marking clocksource tsc unstable due to "
	"inter CPU skew\n"
	"[   38.502120] clocksource: CPU3      80712345678 < CPU0      "
	"80712345716 (cycles)\n"
	"[   38.502131] tsc: Marking TSC unstable due to clocksource "
	"watchdog\n"
	"[   38.502410] clocksource: Switched to clocksource hpet\n";
/* The classic watchdog's 6.x block: the same skew as watchdog_log. */
static const char classic_watchdog_log[] =
	"[    4.2] clocksource: timekeeping watchdog on CPU3: Marking "
	"clocksource 'tsc' as unstable because the skew is too large:\n"
	"[    4.2] clocksource:                       'hpet' wd_nsec: "
	"495426793 wd_now: 1 wd_last: 0 mask: ffffffff\n"
	"[    4.2] clocksource:                       'tsc' cs_nsec: "
	"495006210 cs_now: 1 cs_last: 0 mask: ffffffffffffffff\n"
	"[    4.2] tsc: Marking TSC unstable due to clocksource watchdog\n";

/* An inter-CPU skew after a sync boot: its own code, the pair and the
 * cycles, the stage's part named; never tsc=nowatchdog. */
static void inter_cpu_skew_after_sync(void **st)
{
	struct sysinfo *s = laptop("hpet", inter_cpu_log);
	struct tsc_report r = { .nap = 3,
				.mode = TSC_MODE_SYNC,
				.result = TSC_RESULT_IN_SYNC,
				.msr_writes = 4 };
	struct diagnosis d;

	(void)st;
	s->stage.installed = true;
	s->stage.has_report = true;
	s->stage.report = &r;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "inter-cpu-skew");
	assert_true(d.unhealthy);
	assert_non_null(strstr(d.summary, "CPU 3 read its TSC 38 cycles "
					  "behind CPU 0's"));
	assert_non_null(strstr(d.summary, "the stage synced the TSCs (result "
					  "in-sync)"));
	assert_non_null(strstr(d.summary, "visible to the running kernel"));
	assert_false(has_rec(&d, "add-nowatchdog"));
	assert_false(has_rec(&d, "measure-rate"));
	done(s);
}

/* Without the stage: the TSCs are apart at run time; measure first. */
static void inter_cpu_skew_without_stage(void **st)
{
	struct sysinfo *s = laptop("hpet", inter_cpu_log);
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "inter-cpu-skew");
	assert_non_null(strstr(d.summary, "would only hide"));
	assert_true(has_rec(&d, "install-measure"));
	assert_false(has_rec(&d, "add-nowatchdog"));
	done(s);
}

/* Advising tsc=nowatchdog on a kernel with the 2026 watchdog says that it
 * also turns off the inter-CPU test; on the classic one it does not. */
static void nowatchdog_scope_by_watchdog(void **st)
{
	struct sysinfo *s = laptop("hpet", watchdog_log);
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_true(has_rec(&d, "add-nowatchdog"));
	assert_non_null(strstr(d.summary, "also turns off the watchdog's "
					  "test of each CPU"));
	done(s);
	s = laptop("hpet", classic_watchdog_log);
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	assert_true(has_rec(&d, "add-nowatchdog"));
	assert_null(strstr(d.summary, "also turns off"));
	/* the same log on a 7.2 kernel: the wording still decides */
	snprintf(s->kernel_release, sizeof(s->kernel_release), "7.2.0");
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_null(strstr(d.summary, "also turns off"));
	done(s);
}

/* tsc=watchdog means one thing before the 2026 watchdog and the opposite
 * since: read by the same rule as the log. */
static void tsc_watchdog_parameter(void **st)
{
	struct sysinfo *s = laptop("tsc", "");
	struct diagnosis d;

	(void)st;
	kernel_cmdline_parse("ro quiet tsc=watchdog", &s->cmdline);
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_non_null(strstr(d.summary, "which one this kernel has is not "
					  "known"));
	snprintf(s->kernel_release, sizeof(s->kernel_release), "7.1.0-1");
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_non_null(strstr(d.summary, "forces the clocksource watchdog on "
					  "the TSC"));
	snprintf(s->kernel_release, sizeof(s->kernel_release), "6.12.1");
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_non_null(strstr(d.summary, "makes the TSC the watchdog of the "
					  "other clocksources"));
	done(s);
}

/* A watchdog drop within seconds of a resume from s2idle: the Framework
 * laptops' runtime fault, which the stage cannot fix; one hours later is
 * not tied to it. */
static void drop_after_suspend(void **st)
{
	static const char near[] =
		"[ 2.2] clocksource: Switched to clocksource tsc\n"
		"[ 5402.0] PM: suspend entry (s2idle)\n"
		"[ 5466.2] PM: suspend exit\n"
		"[ 5466.7] clocksource: Watchdog hpet interval: 499712311ns\n"
		"[ 5466.7] clocksource: Clocksource tsc interval: 500217903ns\n"
		"[ 5466.7] clocksource: Marking clocksource tsc unstable due "
		"to frequency skew\n";
	static const char far[] =
		"[ 2.2] clocksource: Switched to clocksource tsc\n"
		"[ 5402.0] PM: suspend entry (s2idle)\n"
		"[ 5466.2] PM: suspend exit\n"
		"[ 9466.7] clocksource: Watchdog hpet interval: 499712311ns\n"
		"[ 9466.7] clocksource: Clocksource tsc interval: 500217903ns\n"
		"[ 9466.7] clocksource: Marking clocksource tsc unstable due "
		"to frequency skew\n";
	struct sysinfo *s = laptop("hpet", near);
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "watchdog-skew");
	assert_non_null(strstr(d.summary, "It came 0.5 s after a "
					  "suspend-exit"));
	assert_non_null(strstr(d.summary, "Framework 13/16 AMD"));
	assert_true(has_rec(&d, "measure-rate"));
	done(s);
	s = laptop("hpet", far);
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_null(strstr(d.summary, "Framework"));
	done(s);
}

/* A drop logged without the skew's report (only the marking line): the
 * two minutes count from that line.  Before, any suspend earlier in the
 * log was named, however long before; a log without times still names
 * the last one. */
static void drop_without_report_after_suspend(void **st)
{
	static const char near[] =
		"[ 2.2] clocksource: Switched to clocksource tsc\n"
		"[ 5402.0] PM: suspend entry (s2idle)\n"
		"[ 5466.2] PM: suspend exit\n"
		"[ 5466.7] tsc: Marking TSC unstable due to clocksource "
		"watchdog\n";
	static const char far[] =
		"[ 2.2] clocksource: Switched to clocksource tsc\n"
		"[ 5402.0] PM: suspend entry (s2idle)\n"
		"[ 5466.2] PM: suspend exit\n"
		"[ 9466.7] tsc: Marking TSC unstable due to clocksource "
		"watchdog\n";
	static const char untimed[] =
		"clocksource: Switched to clocksource tsc\n"
		"PM: suspend entry (s2idle)\n"
		"PM: suspend exit\n"
		"tsc: Marking TSC unstable due to clocksource watchdog\n";
	struct sysinfo *s = laptop("hpet", near);
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_non_null(strstr(d.summary, "It came 0.5 s after a "
					  "suspend-exit"));
	done(s);
	s = laptop("hpet", far);
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_null(strstr(d.summary, "Framework"));
	done(s);
	s = laptop("hpet", untimed);
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_non_null(strstr(d.summary, "It followed a suspend-exit"));
	done(s);
}

/* A tsc=directsync kernel keeps the TSC by writing it itself: said, with
 * what it corrected where the log has it. */
static void directsync_kernel(void **st)
{
	static const char log[] =
		"[ 0.17] TSC direct sync: CPU1 observed 6815086010 warp. "
		"Overhead: 212\n"
		"[ 2.1] clocksource: Switched to clocksource tsc\n";
	struct sysinfo *s = laptop("tsc", log);
	struct tsc_report r = { .mode = TSC_MODE_MEASURE };
	struct diagnosis d;

	(void)st;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_string_equal(diagnosis_code_name(d.code), "healthy");
	assert_non_null(strstr(d.summary, "it corrected CPU 1 by 6815086010 "
					  "cycles"));
	assert_false(has_rec(&d, "enable-sync"));
	s->stage.has_report = true;
	s->stage.report = &r;
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_non_null(strstr(d.summary, "measure report still shows the "
					  "firmware's fault"));
	done(s);
	/* at the default log level its lines are gone: the command line
	 * says it */
	s = laptop("tsc", "");
	kernel_cmdline_parse("ro quiet tsc=directsync", &s->cmdline);
	diagnosis_make(s, NULL, &s->rate_check, &d);
	assert_non_null(strstr(d.summary, "tsc=directsync"));
	assert_non_null(strstr(d.summary, "not in this log"));
	done(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy),
		cmocka_unit_test(waiting_for_the_log),
		cmocka_unit_test(boot_warp_asks_to_measure),
		cmocka_unit_test(boot_warp_measured_behind_asks_for_sync),
		cmocka_unit_test(watchdog_drop_the_stage_measured_is_the_warp),
		cmocka_unit_test(watchdog_skew_suggests_nowatchdog),
		cmocka_unit_test(watchdog_skew_with_nowatchdog_set),
		cmocka_unit_test(
			virtual_machine_checks_the_host_only_when_slow),
		cmocka_unit_test(guest_with_a_warp_checks_the_host),
		cmocka_unit_test(guest_told_by_other_evidence),
		cmocka_unit_test(laptop_strings_are_never_virtual),
		cmocka_unit_test(firmware_bug_is_not_no_trouble),
		cmocka_unit_test(readback_drop_blames_the_reference),
		cmocka_unit_test(old_delta_is_measured_first),
		cmocka_unit_test(a_measured_rate_decides),
		cmocka_unit_test(cpus_apart_keeps_the_watchdog),
		cmocka_unit_test(no_invariant_tsc),
		cmocka_unit_test(bios_update_asks_to_remeasure),
		cmocka_unit_test(reliable_is_warned_never_recommended),
		cmocka_unit_test(bsp_behind),
		cmocka_unit_test(inter_cpu_skew_after_sync),
		cmocka_unit_test(inter_cpu_skew_without_stage),
		cmocka_unit_test(nowatchdog_scope_by_watchdog),
		cmocka_unit_test(tsc_watchdog_parameter),
		cmocka_unit_test(drop_after_suspend),
		cmocka_unit_test(drop_without_report_after_suspend),
		cmocka_unit_test(directsync_kernel),
		cmocka_unit_test(no_log_advice_is_a_code),
	};

	return cmocka_run_group_tests_name("diagnosis", tests, NULL, NULL);
}

/* The kernel-log parser on logs built from real message formats. */
#include "cm.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tui/source/kernlog.h"
#include "../../tui/util/fileio.h"

static struct klog k;

static void parse_file(const char *name)
{
	char path[512];
	size_t len;
	char *d;

	snprintf(path, sizeof(path), "%s/tests/fixtures/kernlog/%s",
		 getenv("TOP") ? getenv("TOP") : ".", name);
	d = fileio_read_all(path, 1u << 20, &len);
	assert_non_null(d);
	kernlog_parse(d, len, &k);
	free(d);
}

static const struct klog_event *first(enum klog_kind kind)
{
	size_t i;

	for (i = 0; i < k.n; i++)
		if (k.ev[i].kind == kind)
			return &k.ev[i];
	return NULL;
}

static void e595_warp(void **s)
{
	const struct klog_event *w, *u, *sw;

	(void)s;
	parse_file("e595-bios128-warp.dmesg");
	w = first(KLOG_WARP);
	assert_non_null(w);
	assert_int_equal(w->cycles, 6601281288LL);
	assert_int_equal(w->cpus[0], 0);
	assert_int_equal(w->cpus[1], 2);
	assert_true(fabs(w->time - 0.174311) < 1e-9);
	assert_true(fabs(kernlog_tsc_mhz(&k) - 2096.066) < 1e-9);
	/* 6601281288 cycles at 2096.066 MHz: 3.149 s. */
	assert_true(fabs(w->cycles / (kernlog_tsc_mhz(&k) * 1e6) - 3.149) <
		    5e-4);
	u = first(KLOG_UNSTABLE);
	assert_non_null(u);
	assert_string_equal(u->text, "check_tsc_sync_source failed");
	sw = first(KLOG_SWITCH);
	assert_string_equal(sw->text, "hpet");
}

static void e595_watchdog_journal(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_file("e595-bios130-watchdog.journal");
	assert_null(first(KLOG_WARP));
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_true(w->has_intervals);
	assert_int_equal(w->wd_ns, 495136113);
	assert_int_equal(w->cs_ns, 496026671);
	assert_int_equal(w->cpus[0], 3);
	assert_true(fabs(kernlog_ppm(w) - 1798.6) < 0.05);
	assert_string_equal(k.watchdog, "hpet");
	assert_true(fabs(kernlog_tsc_mhz(&k) - 2096.073) < 1e-9);
	assert_non_null(first(KLOG_FOUND_UNSTABLE));
	assert_string_equal(first(KLOG_UNSTABLE)->text, "clocksource watchdog");
	/* journalctl short lines carry no boot time */
	assert_true(w->time < 0);
}

static void e595_watchdog_pair(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_file("e595-bios130-watchdog2.dmesg");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_int_equal(w->wd_ns, 495426793);
	assert_int_equal(w->cs_ns, 495006210);
	assert_true(fabs(kernlog_ppm(w) - (-848.9)) < 0.05);
	assert_non_null(first(KLOG_FREQUENCY_SKEW));
	assert_true(fabs(w->time - 4.218722) < 1e-9);
}

static void newer_wordings(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_file("newer-kernel.journal");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	/* The skewed-by line agrees with the nsec lines. */
	assert_int_equal(w->cs_ns - w->wd_ns, 890558);
	assert_true(fabs(w->time - 5.842001) < 1e-9);
	assert_int_equal(first(KLOG_WATCHDOG_TIMEOUT)->cpus[0], 4);
	assert_non_null(first(KLOG_READBACK_DELAY));
	assert_non_null(first(KLOG_WARP_RANDOM));
}

static void intel_adjust(void **s)
{
	const struct klog_event *f, *c;

	(void)s;
	parse_file("intel-tsc-adjust.dmesg");
	f = first(KLOG_FW_BUG_ADJUST);
	assert_non_null(f);
	assert_int_equal(f->cpus[0], 0);
	c = first(KLOG_ADJUST_COMPENSATE);
	assert_int_equal(c->cpus[0], 2);
	assert_int_equal(c->cycles, 86522);
	assert_int_equal(first(KLOG_WARP)->cycles, 3072);
	assert_true(fabs(kernlog_tsc_mhz(&k) - 2899.886) < 1e-9);
}

static void kvm_and_healthy(void **s)
{
	(void)s;
	parse_file("kvm-guest.dmesg");
	assert_string_equal(first(KLOG_UNSTABLE)->text, "TSCs unsynchronized");
	assert_string_equal(first(KLOG_SWITCH)->text, "kvm-clock");
	parse_file("healthy-synced.dmesg");
	assert_null(first(KLOG_WARP));
	assert_null(first(KLOG_UNSTABLE));
	assert_string_equal(k.ev[k.n - 1].text, "tsc");
}

static void kmsg_records(void **s)
{
	static const char kmsg[] =
		"6,512,174311,-;TSC synchronization [CPU#0 -> CPU#2]:\n"
		"4,513,174311,-;Measured 6601281288 cycles TSC warp between "
		"CPUs, turning off TSC clock.\n"
		" SUBSYSTEM=cpu\n";

	(void)s;
	kernlog_parse(kmsg, sizeof(kmsg) - 1, &k);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.ev[0].cycles, 6601281288LL);
	assert_true(fabs(k.ev[0].time - 0.174311) < 1e-9);
}

static void garbage(void **s)
{
	static const char junk[] = "Measured cycles TSC warp\n[ 1.0\n"
				   "TSC synchronization [CPU#x\n\0\0\n"
				   "Marking TSC unstable due to \n";

	(void)s;
	kernlog_parse(junk, sizeof(junk) - 1, &k);
	assert_int_equal(k.n, 1); /* only the empty-reason unstable line */
	kernlog_parse("", 0, &k);
	assert_int_equal(k.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(e595_warp),
		cmocka_unit_test(e595_watchdog_journal),
		cmocka_unit_test(e595_watchdog_pair),
		cmocka_unit_test(newer_wordings),
		cmocka_unit_test(intel_adjust),
		cmocka_unit_test(kvm_and_healthy),
		cmocka_unit_test(kmsg_records),
		cmocka_unit_test(garbage),
	};
	return cmocka_run_group_tests_name("kernlog", tests, NULL, NULL);
}

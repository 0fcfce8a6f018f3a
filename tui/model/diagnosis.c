/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../common/verdict.h"
#include "diagnosis.h"

/* The one table of codes' words: index = enum diag_code. */
static const char *const code_names[] = {
	[DIAG_HEALTHY] = "healthy",
	[DIAG_BOOT_WARP] = "boot-warp",
	[DIAG_WATCHDOG_SKEW] = "watchdog-skew",
	[DIAG_NO_INVARIANT_TSC] = "no-invariant-tsc",
	[DIAG_VIRTUAL_MACHINE] = "virtual-machine",
	[DIAG_UNKNOWN] = "unknown",
};

const char *diagnosis_code_name(enum diag_code c)
{
	return (size_t)c < sizeof(code_names) / sizeof(code_names[0])
		       ? code_names[c]
		       : code_names[DIAG_UNKNOWN];
}

static void add_rec(struct diagnosis *d, const char *r)
{
	int i;

	for (i = 0; i < d->nrecs; i++)
		if (!strcmp(d->recs[i], r))
			return;
	if (d->nrecs < DIAG_MAX_RECS)
		d->recs[d->nrecs++] = r;
}

static void say(struct diagnosis *d, const char *fmt, ...)
{
	size_t n = strlen(d->summary);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->summary + n, sizeof(d->summary) - n, fmt, ap);
	va_end(ap);
}

/* 6601281288 -> "6,601,281,288" */
static void grouped(long long v, char *out, size_t cap)
{
	char digits[32];
	int n, i, o = 0;

	n = snprintf(digits, sizeof(digits), "%lld", v < 0 ? -v : v);
	if (v < 0 && o + 1 < (int)cap)
		out[o++] = '-';
	for (i = 0; i < n && o + 2 < (int)cap; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
}

static const struct klog_event *find(const struct sysinfo *s, enum klog_kind k)
{
	return s->have_klog ? kernlog_first(s->klog, k) : NULL;
}

static bool unstable_because(const struct sysinfo *s, const char *why)
{
	size_t i;

	if (!s->have_klog)
		return false;
	for (i = 0; i < s->klog->n; i++)
		if (s->klog->ev[i].kind == KLOG_UNSTABLE &&
		    strstr(s->klog->ev[i].text, why))
			return true;
	return false;
}

static bool cmdline_tsc(const struct sysinfo *s, const char *v)
{
	int i;

	for (i = 0; i < s->cmdline.ntsc; i++)
		if (!strcmp(s->cmdline.tsc[i], v))
			return true;
	return false;
}

bool diagnosis_bsp_behind(const struct tsc_report *r, long long *by)
{
	uint32_t i;
	long long min = 0;

	if (!r || r->nap == 0)
		return false;
	for (i = 0; i < r->nap; i++) {
		const struct tsc_report_cpu *c = &r->ap[i];

		if (c->verdict == TSC_VERDICT_UNMEASURED)
			continue;
		if (c->survey_offset <=
		    (int64_t)(TSC_OK_LIMIT + tsc_uncertainty(c->rtt)))
			return false;
		if (i == 0 || c->survey_offset < min)
			min = c->survey_offset;
	}
	*by = min;
	return true;
}

/* What the stage's report says of the kernel's CPU `cpu`: the report
 * numbers CPUs in MP services order, the kernel as Linux does, so the two
 * meet by APIC ID (source/cpumap.h), or not at all. */
static void stage_on_cpu(const struct sysinfo *s, const struct tsc_report *r,
			 int cpu, struct diagnosis *d)
{
	const struct tsc_report_cpu *ap;
	char n[32];
	int index = cpu_map_report_index(&s->cpumap, r, (uint32_t)cpu, &ap);

	if (index < 0) {
		say(d, " (which of the stage's CPUs that is, is not known: %s)",
		    s->cpumap.n ? "no CPU of its report has that CPU's APIC ID "
				  "alone"
				: s->cpumap.why);
	} else if (!ap) {
		say(d, " (the stage's boot CPU, #%d)", index);
	} else {
		grouped(ap->final_offset, n, sizeof(n));
		say(d, " (the stage's #%d, APIC ID %u: %s at %s%s cycles)",
		    index, ap->apic_id, tsc_verdict_name(ap->verdict),
		    ap->final_offset > 0 ? "+" : "", n);
	}
}

static void verdict_add(struct diagnosis *d, const char *fmt, ...)
{
	size_t n = strlen(d->kernel_verdict);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->kernel_verdict + n, sizeof(d->kernel_verdict) - n, fmt,
		  ap);
	va_end(ap);
}

static void kernel_words(const struct sysinfo *s, struct diagnosis *d)
{
	const struct klog_event *w = find(s, KLOG_WARP),
				*wd = find(s, KLOG_WATCHDOG_SKEW);
	double mhz = s->have_klog ? kernlog_tsc_mhz(s->klog) : 0;
	char n[32];

	if (s->klog_pending) {
		verdict_add(d, "reading the kernel log...");
	} else if (w) {
		grouped(w->cycles, n, sizeof(n));
		verdict_add(d, "TSC dropped at boot: warp of %s cycles", n);
		if (mhz > 0)
			verdict_add(d, " (%.2f s)", w->cycles / (mhz * 1e6));
		if (w->cpus[0] >= 0)
			verdict_add(d, " CPU#%d -> CPU#%d", w->cpus[0],
				    w->cpus[1]);
	} else if (wd || find(s, KLOG_FREQUENCY_SKEW) ||
		   unstable_because(s, "clocksource watchdog")) {
		verdict_add(d, "TSC dropped by the watchdog");
		if (wd && wd->time >= 0)
			verdict_add(d, " %.0f s after boot", wd->time);
		if (wd && wd->has_intervals)
			verdict_add(d, ": %+.0f ppm against %s",
				    kernlog_ppm(wd),
				    s->klog->watchdog[0] ? s->klog->watchdog
							 : "the watchdog");
	} else if (!strcmp(s->cs.current, "tsc")) {
		verdict_add(d, "TSC kept");
	} else if (s->cs.current[0]) {
		verdict_add(d, "clocksource %s%s", s->cs.current,
			    s->have_klog ? "" : " (no kernel log to say why)");
	}
}

void diagnosis_make(const struct sysinfo *s, const char *last_sync_bios,
		    struct diagnosis *d)
{
	const struct klog_event *w = find(s, KLOG_WARP),
				*wd = find(s, KLOG_WATCHDOG_SKEW);
	const struct tsc_report *r =
		s->stage.has_report ? s->stage.report : NULL;
	bool warp = w || unstable_because(s, "check_tsc_sync_source");
	bool watchdog = wd || find(s, KLOG_FREQUENCY_SKEW) ||
			unstable_because(s, "clocksource watchdog");
	bool amd = !strcmp(s->cpu.vendor, "amd") ||
		   !strcmp(s->cpu.vendor, "hygon");
	long long behind;
	char n[32];

	memset(d, 0, sizeof(*d));
	kernel_words(s, d);
	if (s->cpu.hypervisor) {
		d->code = DIAG_VIRTUAL_MACHINE;
		say(d,
		    "This is a virtual machine (clocksource %s): its TSC is "
		    "the host's, so check the host's clocksource.",
		    s->cs.current[0] ? s->cs.current : "unknown");
		add_rec(d, "check-host");
	} else if (s->cpu.vendor[0] && !s->cpu.invariant_tsc) {
		d->code = DIAG_NO_INVARIANT_TSC;
		d->unhealthy = true;
		say(d,
		    "This CPU has no invariant TSC (constant_tsc and "
		    "nonstop_tsc), so its counters drift apart and no sync can "
		    "make the TSC usable as a clock.");
	} else if (s->klog_pending) {
		/* The dashboard's first moments with a big log. */
		d->code = DIAG_UNKNOWN;
		say(d, "Reading the kernel log: its TSC messages decide the "
		       "diagnosis.");
	} else if (warp) {
		d->code = DIAG_BOOT_WARP;
		d->unhealthy = true;
		if (w) {
			grouped(w->cycles, n, sizeof(n));
			say(d,
			    "At boot the kernel measured a TSC warp of %s "
			    "cycles",
			    n);
			if (w->cpus[0] >= 0) {
				say(d, " between CPU %d and CPU %d", w->cpus[0],
				    w->cpus[1]);
				if (r)
					stage_on_cpu(s, r, w->cpus[1], d);
			}
			say(d, " and dropped the TSC");
		} else {
			say(d, "At boot the kernel's warp test failed and it "
			       "dropped the TSC");
		}
		if (!strcmp(s->cpu.vendor, "intel") && s->cpu.tsc_adjust) {
			say(d,
			    ", although this Intel CPU has TSC_ADJUST, "
			    "which the kernel uses to correct offsets: that is "
			    "a firmware bug to report to the vendor.");
		} else if (!s->stage.installed) {
			say(d, "; install the stage in measure mode to see "
			       "every core's offset before Linux starts.");
			if (amd || !s->cpu.vendor[0])
				add_rec(d, "install-measure");
		} else if (s->stage.mode_known &&
			   s->stage.mode == TSC_MODE_MEASURE &&
			   diagnosis_bsp_behind(r, &behind)) {
			grouped(behind, n, sizeof(n));
			say(d,
			    "; the stage measured the boot CPU at least %s "
			    "cycles behind all the others, which sync mode "
			    "corrects.",
			    n);
			add_rec(d, "enable-sync");
		} else if (s->stage.mode_known &&
			   s->stage.mode == TSC_MODE_SYNC) {
			say(d,
			    " even though the stage ran in sync mode%s%s; "
			    "the kernel has the last word: see the stage's "
			    "report.",
			    r ? " with result " : "",
			    r ? tsc_result_name(r->result) : "");
		} else {
			say(d, "; the stage is installed in %s mode%s.",
			    s->stage.mode_word,
			    r ? "" : " but left no report this boot");
		}
	} else if (watchdog) {
		d->code = DIAG_WATCHDOG_SKEW;
		d->unhealthy = true;
		say(d, "The boot-time warp test passed, but the clocksource "
		       "watchdog dropped the TSC");
		if (wd && wd->has_intervals)
			say(d, " for a skew of %+.1f ppm against %s",
			    kernlog_ppm(wd),
			    s->klog->watchdog[0] ? s->klog->watchdog
						 : "its reference");
		if (cmdline_tsc(s, "nowatchdog")) {
			say(d, " although tsc=nowatchdog is set.");
		} else {
			say(d, "; tsc=nowatchdog keeps the TSC while the warp "
			       "test still guards it (confirm no drift with "
			       "`tsctui check`).");
			add_rec(d, "add-nowatchdog");
		}
	} else if (!strcmp(s->cs.current, "tsc")) {
		d->code = DIAG_HEALTHY;
		say(d, "The kernel uses the TSC as its clocksource%s.",
		    s->have_klog ? " and logged no TSC trouble this boot" : "");
	} else {
		d->code = DIAG_UNKNOWN;
		say(d, "The clocksource is %s, not tsc, %s.",
		    s->cs.current[0] ? s->cs.current : "unknown",
		    s->have_klog ? "and the kernel log does not say why"
				 : "and without the kernel log tsctui cannot "
				   "say why (run as root, or give "
				   "--kernel-log)");
	}
	if (last_sync_bios && last_sync_bios[0] && s->machine.bios_version[0] &&
	    strcmp(last_sync_bios, s->machine.bios_version)) {
		d->bios_changed = true;
		say(d,
		    " The BIOS changed (%s, was %s at the last sync boot): "
		    "measure again before syncing.",
		    s->machine.bios_version, last_sync_bios);
		add_rec(d, "remeasure-after-bios-update");
	}
	if (cmdline_tsc(s, "reliable"))
		say(d,
		    " Warning: tsc=reliable is set; it skips the boot-time "
		    "warp test and hides a real offset, so the clock can jump "
		    "back when a task moves between cores.");
	else {
		int i;

		for (i = 0; i < s->cmdline.nnext; i++)
			if (!strcmp(s->cmdline.next_tsc[i], "reliable"))
				say(d,
				    " Warning: the boot configuration adds "
				    "tsc=reliable for the next boot; it skips "
				    "the boot-time warp test and hides a real "
				    "offset.");
	}
	if (s->kvm_host && s->cs.current[0] && strcmp(s->cs.current, "tsc") &&
	    !s->cpu.hypervisor)
		say(d,
		    " This machine runs KVM: with the host off the TSC, "
		    "every guest pays too (no master clock, no vDSO clock).");
	if (d->nrecs == 0)
		add_rec(d, "none");
}

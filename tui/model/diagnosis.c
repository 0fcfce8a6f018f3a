/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../common/string_table.h"
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
	[DIAG_INTER_CPU_SKEW] = "inter-cpu-skew",
};

STRING_TABLE_TO(diagnosis_code_name, enum diag_code, code_names,
		code_names[DIAG_UNKNOWN])

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

static const char *const advice_table[] = {
	[DIAG_ADVICE_NONE] = "",
	[DIAG_ADVICE_KERNEL_LOG] = "(run as root, or give --kernel-log)",
};
_Static_assert(STRING_TABLE_SIZE(advice_table) == DIAG_ADVICES,
	       "every advice has the command line's words");
STRING_TABLE_TO(diagnosis_advice_words, enum diag_advice, advice_table, "")

/* The way out a, in the command line's words, marked where it is. */
static void say_advice(struct diagnosis *d, enum diag_advice a)
{
	d->advice_at = strlen(d->summary);
	say(d, "%s", diagnosis_advice_words(a));
	d->advice_end = strlen(d->summary);
	d->advice = a;
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

/* A read-back delay for which the kernel dropped the TSC (5.14-5.15,
 * 6.x's "marking tsc unstable"). */
static const struct klog_event *readback_drop(const struct sysinfo *s)
{
	size_t i;

	for (i = 0; s->have_klog && i < s->klog->n; i++)
		if (s->klog->ev[i].kind == KLOG_READBACK_DELAY &&
		    s->klog->ev[i].dropped)
			return &s->klog->ev[i];
	return NULL;
}

/* The clocksource now: sysfs's, else the last one the log switched to
 * (a rescue with a log from elsewhere). */
static const char *current_cs(const struct sysinfo *s)
{
	size_t i;

	if (s->cs.current[0])
		return s->cs.current;
	for (i = s->have_klog ? s->klog->n : 0; i > 0; i--)
		if (s->klog->ev[i - 1].kind == KLOG_SWITCH)
			return s->klog->ev[i - 1].text;
	return "";
}

static const char *wd_name(const struct sysinfo *s, const char *dflt)
{
	return s->have_klog && s->klog->watchdog[0] ? s->klog->watchdog : dflt;
}

static bool cmdline_tsc(const struct sysinfo *s, const char *v)
{
	int i;

	for (i = 0; i < s->cmdline.ntsc; i++)
		if (!strcmp(s->cmdline.tsc[i], v))
			return true;
	return false;
}

/* Which watchdog the kernel has (source/kernlog.c): the log's wording,
 * else the kernel's version. */
static enum klog_watchdog watchdog_gen(const struct sysinfo *s)
{
	static const struct klog none;
	enum klog_watchdog_by by;

	return kernlog_watchdog(s->have_klog ? s->klog : &none,
				s->kernel_release, &by);
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
 * meet by APIC ID (source/cpu_map.h), or not at all. */
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
	} else if (wd || find(s, KLOG_FREQUENCY_SKEW) || readback_drop(s) ||
		   unstable_because(s, "clocksource watchdog")) {
		const struct klog_event *rb = readback_drop(s);

		verdict_add(d, "TSC dropped by the watchdog");
		if (wd && wd->time >= 0)
			verdict_add(d, " %.0f s after boot", wd->time);
		else if (!wd && rb && rb->time >= 0)
			verdict_add(d, " %.0f s after boot", rb->time);
		if (wd && wd->has_intervals)
			verdict_add(d, ": %+.0f ppm against %s",
				    kernlog_ppm(wd),
				    wd_name(s, "the watchdog"));
		else if (wd && wd->has_delta)
			verdict_add(d,
				    ": %lld ns off over an unlogged interval",
				    (long long)wd->delta_ns);
		else if (rb)
			verdict_add(d,
				    ": its reference %s read slowly (%lld ns)",
				    rb->watchdog[0] ? rb->watchdog : "clock",
				    (long long)rb->delay_ns);
		else if (wd)
			verdict_add(d, ": skew not logged");
	} else if (!strcmp(current_cs(s), "tsc")) {
		verdict_add(d, "TSC kept");
	} else if (current_cs(s)[0]) {
		d->verdict_cs_only = true;
		verdict_add(d, "clocksource %s%s", current_cs(s),
			    s->have_klog ? "" : " (no kernel log to say why)");
	}
}

/* Something in the guest's own log that puts the host's TSC in doubt:
 * the guest's warp test or watchdog found its TSC (the host's, offset)
 * at fault. */
static const char *host_doubt(const struct sysinfo *s)
{
	if (find(s, KLOG_WARP) || unstable_because(s, "check_tsc_sync_source"))
		return "The guest's warp test failed on its TSC";
	if (find(s, KLOG_WATCHDOG_SKEW) || find(s, KLOG_FREQUENCY_SKEW) ||
	    unstable_because(s, "clocksource watchdog"))
		return "The guest's watchdog dropped its TSC";
	return NULL;
}

static void guest(const struct sysinfo *s, struct diagnosis *d)
{
	const char *cs = current_cs(s), *doubt = host_doubt(s);
	int i;

	d->code = DIAG_VIRTUAL_MACHINE;
	say(d, "This is a virtual machine (");
	for (i = 0; i < d->vm.n; i++)
		say(d, "%s%s", i ? "; " : "", d->vm.what[i]);
	say(d, "): its TSC is the host's.");
	if (doubt) {
		say(d,
		    " %s%s%s, which puts the host's TSC in doubt: check "
		    "the host's clocksource.",
		    doubt, cs[0] ? "; it runs on " : "", cs);
		add_rec(d, "check-host");
	} else if (!cs[0]) {
		say(d, " Its clocksource is not known.");
	} else if (virt_fast_clock(cs)) {
		say(d,
		    " Its clocksource %s is %s, read without leaving the "
		    "guest: nothing to do here.",
		    cs,
		    strcmp(cs, "tsc") ? "the hypervisor's paravirtual clock"
				      : "the TSC itself");
	} else {
		say(d,
		    " Its clocksource %s is slow (every read leaves the "
		    "guest): check the host's clocksource, as a host off the "
		    "TSC gives its guests no stable paravirtual clock.",
		    cs);
		add_rec(d, "check-host");
	}
	if (unstable_because(s, "running on Hyper-V"))
		say(d, " (\"Marking TSC unstable due to running on Hyper-V\" "
		       "is every Hyper-V guest's: its TSC may change rate "
		       "on live migration.)");
}

/* A suspend, hibernation or change of power source (source/powerlog.h)
 * this close before a watchdog drop: the Framework 13/16 AMD pattern
 * (runtime drops of about 1000 ppm after s2idle and power-source
 * changes), a fault the stage's sync cannot fix.
 * The watchdog runs every 0.5 s, so a drop caused by the resume comes
 * within seconds of it; two minutes leaves room for the retries. */
#define TRANSITION_NEAR_S 120.0

static void power_transition(const struct sysinfo *s,
			     const struct klog_event *wd, struct diagnosis *d)
{
	const struct klog_transition *tr =
		s->have_klog ? kernlog_last_transition(s->klog) : NULL;
	/* The drop: the skew's report, else the marking line (the 2026
	 * watchdog's wordings). */
	double at = wd && wd->time >= 0 ? wd->time
		    : s->have_klog && s->klog->wd_dropped
			    ? s->klog->wd_dropped_at
			    : -1;
	const struct power_change *pc =
		at >= 0 ? powerlog_last_before(&s->powerlog, at) : NULL;
	double gap;

	/* The later of the two, within the window. */
	if (pc && (at - pc->time > TRANSITION_NEAR_S ||
		   (tr && tr->time >= 0 && tr->time > pc->time)))
		pc = NULL;
	if (pc) {
		say(d, " It came %.1f s after a change to %s power (%s):",
		    at - pc->time, pc->to_mains ? "mains" : "battery",
		    pc->source);
	} else if (!tr) {
		return;
	} else if (tr->time >= 0 && at >= 0) {
		gap = at - tr->time;
		if (gap > TRANSITION_NEAR_S)
			return;
		say(d, " It came %.1f s after a %s%s%s%s:", gap,
		    kernlog_transition_name(tr->kind), tr->what[0] ? " (" : "",
		    tr->what, tr->what[0] ? ")" : "");
	} else {
		say(d, " It followed a %s in the log:",
		    kernlog_transition_name(tr->kind));
	}
	d->after_power_transition = true;
	say(d, " the pattern of the Framework 13/16 AMD laptops, whose TSC is "
	       "dropped at run time after suspend or a change of power "
	       "source while the boot-time test passes; the stage's sync "
	       "cannot help there, measuring which clock is wrong can.");
}

/* The watchdog dropped the TSC: the decision table says what may be
 * advised. */
static void watchdog_drop(const struct sysinfo *s,
			  const struct tsc_rate_check *rate,
			  struct diagnosis *d)
{
	const struct klog_event *wd = find(s, KLOG_WATCHDOG_SKEW),
				*rb = readback_drop(s);
	struct watchdog_case c = {
		.skew_known = wd && wd->has_intervals,
		.skew_ppm = wd && wd->has_intervals ? kernlog_ppm(wd) : 0,
		.reference_slow = rb && !(wd && wd->has_intervals),
		.cpus_apart = find(s, KLOG_CPUS_APART) != NULL,
		.rate = *rate,
		.nowatchdog_set = cmdline_tsc(s, "nowatchdog"),
		.watchdog_2026 = watchdog_gen(s) == KLOG_WATCHDOG_2026,
	};
	int i;

	d->code = DIAG_WATCHDOG_SKEW;
	d->unhealthy = true;
	say(d, "The boot-time warp test passed, but the clocksource "
	       "watchdog dropped the TSC");
	if (c.skew_known)
		say(d, " for a skew of %+.1f ppm against %s", c.skew_ppm,
		    wd_name(s, "its reference"));
	else if (c.reference_slow)
		say(d,
		    " because reading its reference (%s) took %lld ns: the "
		    "fault lies with the reference, not the TSC",
		    rb->watchdog[0] ? rb->watchdog : wd_name(s, "the watchdog"),
		    (long long)rb->delay_ns);
	else if (wd && wd->has_delta)
		say(d,
		    " for a difference of %lld ns over an interval the log "
		    "does not give (so its ppm is not known)",
		    (long long)wd->delta_ns);
	else if (wd && wd->watchdog[0])
		say(d,
		    " against %s, in a wording without the intervals that "
		    "give its size",
		    wd->watchdog);
	else
		say(d, " (the log does not give its size)");
	watchdog_advice_decide(&c, &d->watchdog);
	d->has_watchdog_advice = true;
	if (c.nowatchdog_set)
		say(d, " although tsc=nowatchdog is set.");
	else
		say(d, ".");
	power_transition(s, wd, d);
	say(d, " %s", d->watchdog.why);
	for (i = 0; i < d->watchdog.nrecs; i++)
		add_rec(d, d->watchdog.recs[i]);
}

/* A tsc=directsync kernel (SteamOS's and others') writes the APs' TSCs
 * itself during its warp test; its lines may be at debug level. */
static void directsync(const struct sysinfo *s, const struct tsc_report *r,
		       struct diagnosis *d)
{
	const struct klog_event *e;
	int ncpu = 0;
	size_t i;

	if (!cmdline_tsc(s, "directsync") && !find(s, KLOG_DIRECTSYNC))
		return;
	d->directsync = true;
	say(d, " This kernel syncs the TSCs itself at boot (tsc=directsync)");
	for (i = 0; s->have_klog && i < s->klog->n; i++) {
		e = &s->klog->ev[i];
		if (e->kind != KLOG_DIRECTSYNC)
			continue;
		say(d, "%s CPU %d by %lld cycles",
		    ncpu ? "," : ": it corrected", e->cpus[0],
		    (long long)e->cycles);
		ncpu++;
	}
	if (!ncpu)
		say(d,
		    " (its corrections are not in this log: SteamOS's kernel "
		    "logs them at debug level)");
	if (r && r->mode == TSC_MODE_SYNC && r->msr_writes > 0)
		say(d, "; the stage synced first, so it %s.",
		    ncpu ? "still found offsets to correct"
			 : "had nothing left to correct");
	else if (r && r->mode == TSC_MODE_MEASURE)
		say(d, "; the stage's measure report still shows the "
		       "firmware's fault as it was before the kernel.");
	else
		say(d, ".");
	say(d, " The stage adds a sync before any kernel (a distribution "
	       "kernel, Secure Boot) without long loops with interrupts off "
	       "in the kernel; with this kernel keeping the TSC it is not "
	       "needed.");
}

/* tsc=watchdog changed its meaning with the 2026 watchdog: read by the
 * same rule as the log (its wording, else the kernel's version). */
static void watchdog_param(const struct sysinfo *s, struct diagnosis *d)
{
	switch (watchdog_gen(s)) {
	case KLOG_WATCHDOG_2026:
		say(d, " tsc=watchdog is set: on this kernel it forces the "
		       "clocksource watchdog on the TSC, even where the kernel "
		       "would leave it off.");
		break;
	case KLOG_WATCHDOG_CLASSIC:
		say(d, " tsc=watchdog is set: on this kernel it makes the TSC "
		       "the watchdog of the other clocksources (since the 2026 "
		       "watchdog it means the opposite: the watchdog forced on "
		       "the TSC).");
		break;
	case KLOG_WATCHDOG_UNKNOWN:
		say(d, " tsc=watchdog is set: before the 2026 watchdog it made "
		       "the TSC the watchdog of the other clocksources, since "
		       "then it forces the watchdog on the TSC; which one this "
		       "kernel has is not known.");
		break;
	}
}

/* The 2026 watchdog's inter-CPU test dropped the TSC: a CPU read its
 * counter after the boot CPU and got less.  No rate measurement clears
 * that, and tsc=nowatchdog would only hide it (on that kernel it turns
 * the test off). */
static void inter_cpu_skew(const struct sysinfo *s, const struct tsc_report *r,
			   struct diagnosis *d)
{
	const struct klog_event *e = find(s, KLOG_INTER_CPU_SKEW);
	bool synced = r && r->mode == TSC_MODE_SYNC && r->msr_writes > 0;
	bool amd = cpu_is_amd(&s->cpu);
	char n[32];

	d->code = DIAG_INTER_CPU_SKEW;
	d->unhealthy = true;
	say(d, "The clocksource watchdog's inter-CPU test dropped the TSC");
	if (e->time >= 0)
		say(d, " %.0f s after boot", e->time);
	if (e->cpus[0] >= 0) {
		grouped(e->cycles, n, sizeof(n));
		say(d, ": CPU %d read its TSC %s cycles behind CPU %d's",
		    e->cpus[0], n, e->cpus[1]);
	}
	say(d, ". The boot-time warp test passed, so the cores agreed closely "
	       "enough then");
	if (synced) {
		say(d, "; this boot the stage synced the TSCs (result %s)",
		    tsc_result_name(r->result));
		if (e->cpus[0] >= 0) {
			say(d, ", and had CPU %d", e->cpus[0]);
			stage_on_cpu(s, r, e->cpus[0], d);
			say(d, " and CPU %d", e->cpus[1]);
			stage_on_cpu(s, r, e->cpus[1], d);
		}
		say(d, ": the stage's residual, or a drift since, was "
		       "visible to the running kernel. `tsctui check` "
		       "measures the offsets now.");
	} else {
		say(d, ": the TSCs are apart between cores at run time, "
		       "which tsc=nowatchdog would only hide (on this kernel "
		       "it turns the inter-CPU test off).");
		if (!s->stage.installed && (amd || !s->cpu.vendor_known))
			add_rec(d, "install-measure");
	}
}

/* What a boot that kept the TSC logged anyway: the firmware's TSC lines
 * and the watchdog's skipped rounds.  False when there was nothing. */
static bool kept_but(const struct sysinfo *s, struct diagnosis *d)
{
	const struct klog_event *adj = find(s, KLOG_FW_BUG_ADJUST),
				*dif = find(s, KLOG_ADJUST_DIFFERS);
	int skipped = 0;
	bool any = false;
	size_t i;

	if (adj || dif) {
		const struct klog_event *e = adj ? adj : dif;

		say(d,
		    ", but the firmware wrote the TSC_ADJUST register (CPU "
		    "%d: \"%s\") and the kernel set it back: a firmware bug "
		    "to report to the vendor, though this boot's TSC is kept",
		    e->cpus[0], e->text);
		any = true;
	}
	if (find(s, KLOG_ADJUST_COMPENSATE)) {
		const struct klog_event *c = find(s, KLOG_ADJUST_COMPENSATE);

		say(d,
		    "%s the kernel found CPU %d's TSC %lld cycles off and "
		    "corrected it through TSC_ADJUST (\"TSC ADJUST "
		    "compensate\"), so the firmware left the TSCs apart",
		    any ? "; also," : ", but", c->cpus[0],
		    (long long)c->cycles);
		any = true;
	}
	if (find(s, KLOG_FW_BUG_P0)) {
		say(d,
		    "%s the kernel logged \"[Firmware Bug]: TSC doesn't count "
		    "with P0 frequency!\", which changes nothing here (the "
		    "TSC is kept; QEMU's emulated AMD CPUs print it on every "
		    "boot)",
		    any ? "; also," : ";");
		any = true;
	}
	say(d, ".");
	for (i = 0; s->have_klog && i < s->klog->n; i++)
		skipped += s->klog->ev[i].kind == KLOG_READBACK_DELAY ||
			   s->klog->ev[i].kind == KLOG_LONG_READOUT;
	if (skipped)
		say(d,
		    " The watchdog skipped %d check%s because its reference "
		    "read slowly; that does not harm the TSC.",
		    skipped, skipped == 1 ? "" : "s");
	return any || skipped;
}

/* Why the kernel marked the TSC unstable, where it said. */
static void unstable_words(const struct sysinfo *s, struct diagnosis *d)
{
	size_t i;

	for (i = 0; s->have_klog && i < s->klog->n; i++) {
		const struct klog_event *e = &s->klog->ev[i];

		if (e->kind != KLOG_UNSTABLE)
			continue;
		say(d, " The kernel marked the TSC unstable \"due to %s\"",
		    e->text);
		switch (e->cause) {
		case KLOG_CAUSE_UNSYNCHRONIZED:
			say(d, ": at boot it judged this machine's TSCs not "
			       "to run in step (no constant TSC, or several "
			       "sockets it does not trust).");
			break;
		case KLOG_CAUSE_CPUFREQ:
		case KLOG_CAUSE_IDLE:
			say(d, ": this TSC is not invariant (its rate follows "
			       "the CPU's frequency or stops in idle).");
			break;
		case KLOG_CAUSE_PARAMETER:
			say(d, ": tsc=unstable is on the command line.");
			break;
		default:
			say(d, ".");
		}
		return;
	}
}

void diagnosis_make(const struct sysinfo *s, const char *last_sync_bios,
		    const struct tsc_rate_check *rate, struct diagnosis *d)
{
	const struct klog_event *w = find(s, KLOG_WARP),
				*wd = find(s, KLOG_WATCHDOG_SKEW);
	const struct tsc_report *r =
		s->stage.has_report ? s->stage.report : NULL;
	bool kernel_warp = w || unstable_because(s, "check_tsc_sync_source");
	bool watchdog = wd || find(s, KLOG_FREQUENCY_SKEW) ||
			readback_drop(s) ||
			unstable_because(s, "clocksource watchdog");
	/* The watchdog dropped the TSC on a boot whose stage measured the
	 * cores apart before Linux: the watchdog saw that offset (the
	 * kernel's 2 ms warp test can miss it when its two CPUs do not run
	 * at once, as under TCG), so this is the firmware's warp, and
	 * tsc=nowatchdog would only hide it. */
	bool stage_warp = !kernel_warp && watchdog && r &&
			  r->result == TSC_RESULT_OUT_OF_SYNC;
	bool warp = kernel_warp || stage_warp;
	bool amd = cpu_is_amd(&s->cpu);
	long long behind;
	char n[32];

	memset(d, 0, sizeof(*d));
	kernel_words(s, d);
	virt_evidence_read(s, &d->vm);
	if (d->vm.virtual_machine) {
		guest(s, d);
	} else if (s->cpu.vendor_known && !s->cpu.invariant_tsc) {
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
		} else if (stage_warp) {
			say(d,
			    "The kernel's boot-time warp test passed, but "
			    "this boot's stage measured the TSCs apart "
			    "before Linux started, and the clocksource "
			    "watchdog dropped the TSC for that (tsc=nowatchdog "
			    "would only hide it)");
		} else {
			say(d, "At boot the kernel's warp test failed and it "
			       "dropped the TSC");
		}
		if (s->cpu.vendor_known &&
		    s->cpu.vendor_id == TSC_VENDOR_INTEL && s->cpu.tsc_adjust) {
			say(d,
			    ", although this Intel CPU has TSC_ADJUST, "
			    "which the kernel uses to correct offsets: that is "
			    "a firmware bug to report to the vendor.");
		} else if (!s->stage.installed) {
			say(d, "; install the stage in measure mode to see "
			       "every core's offset before Linux starts.");
			if (amd || !s->cpu.vendor_known)
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
	} else if (find(s, KLOG_INTER_CPU_SKEW)) {
		inter_cpu_skew(s, r, d);
	} else if (watchdog) {
		watchdog_drop(s, rate, d);
	} else if (!strcmp(current_cs(s), "tsc")) {
		d->code = DIAG_HEALTHY;
		say(d, "The kernel uses the TSC as its clocksource");
		if (s->have_klog && !kept_but(s, d)) {
			d->summary[strlen(d->summary) - 1] = '\0';
			say(d, " and logged no TSC trouble this boot.");
		} else if (!s->have_klog) {
			say(d, ".");
		}
		directsync(s, r, d);
	} else {
		d->code = DIAG_UNKNOWN;
		if (current_cs(s)[0])
			say(d, "The clocksource is %s, not tsc, ",
			    current_cs(s));
		else
			say(d, "The current clocksource is not known (neither "
			       "sysfs nor the log's switches say), ");
		if (!s->have_klog) {
			say(d, "and without the kernel log tsctui cannot say "
			       "why ");
			say_advice(d, DIAG_ADVICE_KERNEL_LOG);
			say(d, ".");
		} else {
			say(d, "%s.",
			    find(s, KLOG_UNSTABLE)
				    ? "and the kernel log says why"
				    : "and the kernel log does not say why");
		}
		unstable_words(s, d);
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
		    "back when a task moves between cores (`tsctui "
		    "kernel-arg reliable off` removes it).");
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
	if (cmdline_tsc(s, "watchdog"))
		watchdog_param(s, d);
	if (s->kvm_host && s->cs.current[0] && strcmp(s->cs.current, "tsc") &&
	    !d->vm.virtual_machine)
		say(d,
		    " This machine runs KVM: with the host off the TSC, "
		    "every guest pays too (no master clock, no vDSO clock).");
	if (d->nrecs == 0)
		add_rec(d, "none");
}

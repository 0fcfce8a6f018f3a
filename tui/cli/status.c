/* SPDX-License-Identifier: MIT */
/* tsctui status: one-shot state and diagnosis, as text, JSON
 * (ARCHITECTURE 4.5) or Prometheus text format.  Exit 1 when unhealthy. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/survey.h"
#include "../model/assess.h"
#include "cli.h"
#include "metrics.h"

static void event_json(struct json *j, const struct klog_event *e, double mhz,
		       const char *watchdog)
{
	json_obj(j, NULL);
	json_str(j, "kind", kernlog_kind_name(e->kind));
	if (e->time >= 0)
		json_num(j, "time", e->time, 6);
	else
		json_null(j, "time");
	switch (e->kind) {
	case KLOG_WARP:
		json_i64(j, "cycles", e->cycles);
		json_arr(j, "cpus");
		if (e->cpus[0] >= 0) {
			json_i64(j, NULL, e->cpus[0]);
			json_i64(j, NULL, e->cpus[1]);
		}
		json_arr_end(j);
		if (mhz > 0)
			json_num(j, "seconds", e->cycles / (mhz * 1e6), 6);
		break;
	case KLOG_WATCHDOG_SKEW:
		if (e->has_intervals) {
			json_i64(j, "wd_interval_ns", e->wd_ns);
			json_i64(j, "cs_interval_ns", e->cs_ns);
			json_num(j, "ppm", kernlog_ppm(e), 1);
		} else {
			/* the log does not give it: not 0, not made up */
			json_null(j, "ppm");
		}
		if (e->has_delta)
			json_i64(j, "delta_ns", e->delta_ns);
		if (e->clocksource[0])
			json_str(j, "clocksource", e->clocksource);
		if (e->watchdog[0] || watchdog[0])
			json_str(j, "watchdog",
				 e->watchdog[0] ? e->watchdog : watchdog);
		if (e->cpus[0] >= 0)
			json_i64(j, "cpu", e->cpus[0]);
		break;
	case KLOG_UNSTABLE:
		json_str(j, "reason", e->text);
		json_str(j, "cause", kernlog_cause_name(e->cause));
		break;
	case KLOG_READBACK_DELAY:
		json_i64(j, "delay_ns", e->delay_ns);
		if (e->limit_ns > 0)
			json_i64(j, "limit_ns", e->limit_ns);
		if (e->attempt > 0)
			json_i64(j, "attempt", e->attempt);
		json_bool(j, "dropped", e->dropped);
		json_bool(j, "skipped", e->skipped);
		if (e->watchdog[0])
			json_str(j, "watchdog", e->watchdog);
		if (e->cpus[0] >= 0)
			json_i64(j, "cpu", e->cpus[0]);
		json_str(j, "text", e->text);
		break;
	case KLOG_LONG_READOUT:
		if (e->cs_ns)
			json_i64(j, "cs_interval_ns", e->cs_ns);
		json_i64(j, "wd_interval_ns", e->wd_ns);
		if (e->watchdog[0])
			json_str(j, "watchdog", e->watchdog);
		break;
	case KLOG_SWITCH:
		json_str(j, "to", e->text);
		break;
	case KLOG_ADJUST_COMPENSATE:
		json_i64(j, "cycles", e->cycles);
		json_i64(j, "cpu", e->cpus[0]);
		break;
	case KLOG_INTER_CPU_SKEW:
		/* cpus[0] read its counter after cpus[1] and got less */
		json_arr(j, "cpus");
		if (e->cpus[0] >= 0) {
			json_i64(j, NULL, e->cpus[0]);
			json_i64(j, NULL, e->cpus[1]);
		}
		json_arr_end(j);
		json_arr(j, "counters");
		if (e->cpus[0] >= 0) {
			json_u64(j, NULL, e->counter[0]);
			json_u64(j, NULL, e->counter[1]);
		}
		json_arr_end(j);
		if (e->cpus[0] >= 0)
			json_i64(j, "cycles", e->cycles);
		else
			json_null(j, "cycles");
		break;
	case KLOG_DIRECTSYNC:
		json_i64(j, "cpu", e->cpus[0]);
		json_i64(j, "corrections", e->corrections);
		json_i64(j, "cycles", e->cycles);
		json_i64(j, "overhead_cycles", e->overhead);
		break;
	case KLOG_WATCHDOG_TIMEOUT:
		if (e->cpus[0] >= 0)
			json_i64(j, "cpu", e->cpus[0]);
		if (e->watchdog[0])
			json_str(j, "watchdog", e->watchdog);
		if (e->delay_ns > 0)
			json_i64(j, "readout_ns", e->delay_ns);
		break;
	default:
		if (e->cpus[0] >= 0)
			json_i64(j, "cpu", e->cpus[0]);
		if (e->text[0])
			json_str(j, "text", e->text);
	}
	json_obj_end(j);
}

/* Which clocksource watchdog the kernel has, what decided it, and the
 * skew at which it drops the TSC (the assessment's, docs/DESIGN.md 9.2). */
static void watchdog_json(struct json *j, const struct assessment *a)
{
	json_obj(j, "watchdog");
	json_str(j, "kind", kernlog_watchdog_name(a->watchdog));
	json_str(j, "decided_by", kernlog_watchdog_by_name(a->watchdog_by));
	if (a->watchdog == KLOG_WATCHDOG_UNKNOWN)
		json_null(j, "limit_ppm");
	else
		json_num(j, "limit_ppm", a->watchdog_limit_ppm, 1);
	json_obj_end(j);
}

/* Suspend and hibernation before the watchdog's drop (all of them when
 * it did not drop the TSC), the last KLOG_MAX_TRANSITIONS, with this
 * boot's changes of power source before it (source/powerlog.h): in time
 * order, a transition without a time where the log has it. */
static void transitions_json(struct json *j, const struct sysinfo *s)
{
	int i = 0, n = s->have_klog ? s->klog->ntr : 0;
	size_t k = 0;

	json_arr(j, "power_transitions");
	while (i < n || k < s->powerlog.n) {
		const struct klog_transition *tr =
			i < n ? &s->klog->tr[i] : NULL;
		const struct power_change *pc =
			k < s->powerlog.n ? &s->powerlog.ch[k] : NULL;

		json_obj(j, NULL);
		if (tr && (!pc || tr->time < 0 || tr->time <= pc->time)) {
			json_str(j, "kind", kernlog_transition_name(tr->kind));
			if (tr->time >= 0)
				json_num(j, "time", tr->time, 6);
			else
				json_null(j, "time");
			if (tr->what[0])
				json_str(j, "what", tr->what);
			i++;
		} else {
			json_str(j, "kind",
				 pc->to_mains ? "to-mains" : "to-battery");
			json_num(j, "time", pc->time, 6);
			json_str(j, "what", pc->source);
			k++;
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* Other TSC fixers found (model/fixers.h): "other_fixers". */
static void fixers_json(struct json *j, const struct sysinfo *s)
{
	struct fixers_out fo;
	int i;

	fixers_explain(s, &fo);
	json_arr(j, "other_fixers");
	for (i = 0; i < fo.n; i++) {
		json_obj(j, NULL);
		json_str(j, "name", fo.f[i].name);
		json_str(j, "kind", fo.f[i].kind);
		json_str(j, "found", fo.f[i].found);
		json_str(j, "advice", fo.f[i].advice);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void status_json(const struct sysinfo *s, const struct assessment *a,
			const struct tsc_rate_check *rc)
{
	const struct diagnosis *d = &a->diag;
	const struct trust_out *t = &a->trust;
	struct json j;
	int i;

	json_init(&j, stdout, true);
	json_obj(&j, NULL);
	json_obj(&j, "machine");
	json_str(&j, "vendor", s->machine.vendor);
	json_str(&j, "product", s->machine.product);
	json_str(&j, "product_version", s->machine.product_version);
	json_str(&j, "bios_version", s->machine.bios_version);
	json_str(&j, "bios_date", s->machine.bios_date);
	if (s->machine.bootloader_launch_ns >= 0)
		json_i64(&j, "bootloader_launch_ns",
			 s->machine.bootloader_launch_ns);
	else
		json_null(&j, "bootloader_launch_ns");
	json_obj_end(&j);
	json_obj(&j, "cpu");
	json_str(&j, "vendor", cpu_vendor_word(&s->cpu, NULL));
	json_u64(&j, "family", s->cpu.family);
	json_u64(&j, "model", s->cpu.model);
	json_str(&j, "model_name", s->cpu.model_name);
	json_u64(&j, "threads", s->cpu.threads);
	json_bool(&j, "invariant_tsc", s->cpu.invariant_tsc);
	json_bool(&j, "tsc_adjust", s->cpu.tsc_adjust);
	json_obj(&j, "flags");
	json_bool(&j, "constant_tsc", s->cpu.constant_tsc);
	json_bool(&j, "nonstop_tsc", s->cpu.nonstop_tsc);
	json_bool(&j, "tsc_adjust", s->cpu.tsc_adjust);
	json_bool(&j, "tsc_reliable", s->cpu.tsc_reliable);
	json_bool(&j, "tsc_known_freq", s->cpu.tsc_known_freq);
	json_bool(&j, "hypervisor", s->cpu.hypervisor);
	json_obj_end(&j);
	json_obj_end(&j);
	json_bool(&j, "virtual_machine", d->vm.virtual_machine);
	json_arr(&j, "virtual_machine_evidence");
	for (i = 0; i < d->vm.n; i++)
		json_str(&j, NULL, d->vm.what[i]);
	json_arr_end(&j);
	json_obj(&j, "clocksource");
	json_str(&j, "current", s->cs.current[0] ? s->cs.current : NULL);
	json_arr(&j, "available");
	for (i = 0; i < s->cs.navailable; i++)
		json_str(&j, NULL, s->cs.available[i]);
	json_arr_end(&j);
	json_obj_end(&j);
	json_obj(&j, "kernel");
	if (s->have_klog && kernlog_tsc_mhz(s->klog) > 0)
		json_num(&j, "tsc_mhz", kernlog_tsc_mhz(s->klog), 3);
	else
		json_null(&j, "tsc_mhz");
	json_arr(&j, "cmdline_tsc");
	for (i = 0; i < s->cmdline.ntsc; i++)
		json_str(&j, NULL, s->cmdline.tsc[i]);
	json_arr_end(&j);
	json_arr(&j, "next_boot_tsc");
	for (i = 0; i < s->cmdline.nnext; i++)
		json_str(&j, NULL, s->cmdline.next_tsc[i]);
	json_arr_end(&j);
	json_bool(&j, "log", s->have_klog);
	watchdog_json(&j, a);
	transitions_json(&j, s);
	json_arr(&j, "events");
	for (i = 0; s->have_klog && i < (int)s->klog->n; i++)
		event_json(&j, &s->klog->ev[i], kernlog_tsc_mhz(s->klog),
			   s->klog->watchdog);
	json_arr_end(&j);
	json_str(&j, "verdict",
		 d->kernel_verdict[0] ? d->kernel_verdict : NULL);
	json_obj_end(&j);
	json_obj(&j, "efi");
	if (s->efi.secure_boot < 0)
		json_null(&j, "secure_boot");
	else
		json_bool(&j, "secure_boot", s->efi.secure_boot == 1);
	json_str(&j, "loader_info",
		 s->efi.loader_info[0] ? s->efi.loader_info : NULL);
	if (s->efi.boot_current >= 0) {
		char b[16];

		snprintf(b, sizeof(b), "Boot%04X", s->efi.boot_current);
		json_str(&j, "boot_current", b);
	} else {
		json_null(&j, "boot_current");
	}
	json_arr(&j, "boot_order");
	for (i = 0; i < (int)s->efi.nboot_order; i++) {
		char b[16];

		snprintf(b, sizeof(b), "Boot%04X", s->efi.boot_order[i]);
		json_str(&j, NULL, b);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_obj(&j, "modules");
	json_bool(&j, "supported", s->modules.supported);
	json_bool(&j, "msr", s->modules.msr);
	json_bool(&j, "rtc_cmos", s->modules.rtc_cmos);
	json_bool(&j, "kvm_amd", s->modules.kvm_amd);
	json_bool(&j, "kvm_intel", s->modules.kvm_intel);
	json_obj_end(&j);
	json_bool(&j, "kvm_host", s->kvm_host);
	json_obj(&j, "stage");
	json_bool(&j, "installed", s->stage.installed);
	json_str(&j, "loader", loader_name(s->stage.loader));
	json_str(&j, "mode", s->stage.mode_word[0] ? s->stage.mode_word : NULL);
	json_str(&j, "guard",
		 s->stage.has_state ? system_guard_word(&s->stage) : NULL);
	/* installed, yet mode and guard unreadable: why, and the way out */
	if (s->stage.installed && !s->stage.has_state)
		json_str(&j, "state_error", s->stage.state_why);
	if (s->stage.has_report)
		report_json(&j, "report", s->stage.report, &s->cpumap);
	else
		json_null(&j, "report");
	json_obj_end(&j);
	json_obj(&j, "diagnosis");
	json_str(&j, "code", diagnosis_code_name(d->code));
	json_str(&j, "summary", d->summary);
	json_arr(&j, "recommendations");
	for (i = 0; i < d->nrecs; i++)
		json_str(&j, NULL, d->recs[i]);
	json_arr_end(&j);
	/* What the watchdog advice went by: the TSC's rate against the RTC
	 * (none until a measurement is kept) and its bound. */
	json_obj(&j, "rate_check");
	json_str(&j, "result",
		 rc->measured
			 ? (watchdog_advice_rate(rc) == WATCHDOG_RATE_WITHIN
				    ? "within"
				    : "outside")
			 : "none");
	if (rc->measured)
		json_num(&j, "ppm", rc->ppm, 1);
	else
		json_null(&j, "ppm");
	json_num(&j, "bound_ppm", WATCHDOG_RATE_GOOD_PPM, 0);
	if (rc->source)
		json_str(&j, "source", rc->source);
	else
		json_null(&j, "source");
	if (rc->measured) {
		json_str(&j, "reference", rc->reference);
		json_num(&j, "seconds", rc->seconds, 0);
		json_num(&j, "tsc_mhz", rc->mhz, 3);
	} else if (rc->why[0]) {
		json_str(&j, "why", rc->why);
	}
	json_obj_end(&j);
	json_obj_end(&j);
	json_obj(&j, "tsc_trust");
	if (t->verdict == TRUST_UNKNOWN)
		json_null(&j, "programs_can_trust");
	else
		json_bool(&j, "programs_can_trust", t->verdict == TRUST_YES);
	json_str(&j, "why", t->why);
	json_obj_end(&j);
	fixers_json(&j, s);
	json_arr(&j, "notes");
	for (i = 0; i < s->nnotes; i++)
		json_str(&j, NULL, s->notes[i]);
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

/* "LENOVO 20NECTO1WW": the DMI vendor and product, either alone when the
 * other is empty. */
static void status_machine(const struct sys_machine *m, char *out, size_t cap)
{
	snprintf(out, cap, "%s%s%s", m->vendor,
		 m->vendor[0] && m->product[0] ? " " : "", m->product);
}

/* The families and names are metrics.c's; this says what each one holds. */
static void status_prometheus(const struct sysinfo *s,
			      const struct diagnosis *d,
			      const struct trust_out *t)
{
	const struct klog *k = s->have_klog ? s->klog : NULL;
	const struct klog_event *w = kernlog_first(k, KLOG_WARP),
				*wd = kernlog_first(k, KLOG_WATCHDOG_SKEW);
	const struct sys_stage *st = &s->stage;
	double mhz = k ? kernlog_tsc_mhz(k) : 0;
	char machine[sizeof(s->machine.vendor) + sizeof(s->machine.product)];
	int i;

	status_machine(&s->machine, machine, sizeof(machine));
	metrics_head(METRIC_INFO);
	metrics_labelled(METRIC_INFO, 1, "machine", machine, "product_version",
			 s->machine.product_version, "bios_version",
			 s->machine.bios_version, "version", TSCTUI_VERSION,
			 (const char *)NULL);
	metrics_gauge(METRIC_CLOCKSOURCE_TSC, !strcmp(s->cs.current, "tsc"));
	metrics_head(METRIC_CLOCKSOURCE_INFO);
	metrics_labelled(METRIC_CLOCKSOURCE_INFO, 1, "clocksource",
			 s->cs.current, (const char *)NULL);
	metrics_gauge(METRIC_INVARIANT_TSC, s->cpu.invariant_tsc);
	metrics_gauge(METRIC_VIRTUAL_MACHINE, d->vm.virtual_machine);
	metrics_gauge(METRIC_KERNEL_LOG_READ, k != NULL);
	if (k) {
		metrics_gauge(METRIC_BOOT_WARP_CYCLES,
			      w ? (double)w->cycles : 0);
		if (mhz > 0) {
			metrics_gauge(METRIC_BOOT_WARP_SECONDS,
				      w ? (double)w->cycles / (mhz * 1e6) : 0);
			metrics_gauge(METRIC_TSC_FREQUENCY_HERTZ, mhz * 1e6);
		}
		/* NaN: dropped, but the kernel's wording gives no
		 * intervals (the 3.x message). */
		metrics_gauge(METRIC_WATCHDOG_SKEW_RATIO,
			      wd && wd->has_intervals ? kernlog_ppm(wd) / 1e6
			      : wd		      ? NAN
						      : 0);
	}
	metrics_gauge(METRIC_BIOS_CHANGED_SINCE_SYNC, d->bios_changed);
	metrics_gauge(METRIC_STAGE_INSTALLED, st->installed);
	metrics_head(METRIC_STAGE_MODE);
	for (i = TSC_MODE_OFF; i <= TSC_MODE_SYNC; i++)
		metrics_state(METRIC_STAGE_MODE, "mode", tsc_mode_name(i),
			      st->has_state && st->mode_known &&
				      (int)st->mode == i);
	metrics_head(METRIC_STAGE_GUARD);
	for (i = GUARD_CLEAR; i <= GUARD_TRIPPED; i++)
		metrics_state(METRIC_STAGE_GUARD, "state",
			      stage_state_guard_name(i),
			      st->has_state && (int)st->guard == i);
	metrics_head(METRIC_STAGE_RESULT);
	for (i = TSC_RESULT_IN_SYNC; i <= TSC_RESULT_ERROR; i++)
		metrics_state(METRIC_STAGE_RESULT, "result", tsc_result_name(i),
			      st->has_report && (int)st->report->result == i);
	metrics_state(METRIC_STAGE_RESULT, "result", "none", !st->has_report);
	metrics_head(METRIC_DIAGNOSIS);
	for (i = DIAG_HEALTHY; i <= DIAG_UNKNOWN; i++)
		metrics_state(METRIC_DIAGNOSIS, "code", diagnosis_code_name(i),
			      (int)d->code == i);
	metrics_gauge(METRIC_UNHEALTHY, d->unhealthy);
	if (t->verdict != TRUST_UNKNOWN)
		metrics_gauge(METRIC_TSC_TRUSTED, t->verdict == TRUST_YES);
}

static void status_text(const struct sysinfo *s, const struct diagnosis *d,
			const struct tsc_rate_check *rc,
			const struct trust_out *t)
{
	struct fixers_out fo;
	int i;

	if (s->machine.vendor[0] || s->machine.product[0])
		printf("machine:     %s %s, BIOS %s\n", s->machine.vendor,
		       s->machine.product,
		       s->machine.bios_version[0] ? s->machine.bios_version
						  : "unknown");
	else
		printf("machine:     unknown (no DMI), BIOS %s\n",
		       s->machine.bios_version[0] ? s->machine.bios_version
						  : "unknown");
	printf("cpu:         %s family %xh, %u thread%s, invariant TSC %s, "
	       "TSC_ADJUST %s%s\n",
	       cpu_vendor_word(&s->cpu, "unknown"), s->cpu.family,
	       s->cpu.threads, s->cpu.threads == 1 ? "" : "s",
	       s->cpu.invariant_tsc ? "yes" : "no",
	       s->cpu.tsc_adjust ? "yes" : "no",
	       d->vm.virtual_machine ? ", virtual machine" : "");
	for (i = 0; i < d->vm.n; i++)
		printf("%s%s", i ? "; " : "virtual:     ", d->vm.what[i]);
	if (d->vm.n)
		printf("\n");
	if (!s->cs.current[0])
		printf("clocksource: unknown (no "
		       "/sys/devices/system/clocksource)\n");
	else if (!s->cs.navailable)
		printf("clocksource: %s\n", s->cs.current);
	else {
		printf("clocksource: %s (available:", s->cs.current);
		for (i = 0; i < s->cs.navailable; i++)
			printf(" %s", s->cs.available[i]);
		printf(")\n");
	}
	if (d->kernel_verdict[0])
		printf("kernel:      %s\n", d->kernel_verdict);
	printf("cmdline:     tsc=");
	for (i = 0; i < s->cmdline.ntsc; i++)
		printf("%s%s", i ? "," : "", s->cmdline.tsc[i]);
	printf("%s now; next boot: tsc=", s->cmdline.ntsc ? "" : "(none)");
	for (i = 0; i < s->cmdline.nnext; i++)
		printf("%s%s", i ? "," : "", s->cmdline.next_tsc[i]);
	printf("%s\n", s->cmdline.nnext ? "" : "(none)");
	if (s->stage.installed && !s->stage.has_state)
		/* no empty fields: what cannot be read, and what fixes it */
		printf("stage:       installed (%s), mode and guard unknown: "
		       "%s\n",
		       loader_name(s->stage.loader), s->stage.state_why);
	else if (s->stage.installed)
		printf("stage:       installed (%s), mode %s, guard %s%s%s\n",
		       loader_name(s->stage.loader), s->stage.mode_word,
		       system_guard_word(&s->stage),
		       s->stage.has_report ? ", this boot: " : "",
		       s->stage.has_report
			       ? tsc_result_name(s->stage.report->result)
			       : "");
	else
		printf("stage:       not installed\n");
	if (system_probation_note(&s->stage))
		printf("             %s\n", system_probation_note(&s->stage));
	if (rc->measured)
		printf("rate:        %.3f MHz against the RTC (%s, %.0f s, "
		       "measured by %s): %+.1f ppm from the kernel's "
		       "calibration\n",
		       rc->mhz, rc->reference, rc->seconds, rc->source,
		       rc->ppm);
	else if (rc->source)
		printf("rate:        not measured against the RTC: %s\n",
		       rc->why);
	printf("programs:    %s the TSC: %s\n",
	       t->verdict == TRUST_YES	? "can trust"
	       : t->verdict == TRUST_NO ? "cannot trust"
					: "cannot tell whether they can trust",
	       t->why);
	fixers_explain(s, &fo);
	for (i = 0; i < fo.n; i++)
		printf("other fixer: %s (%s): %s\n", fo.f[i].name,
		       fo.f[i].found, fo.f[i].advice);
	printf("diagnosis:   %s\n", d->summary);
	printf("next step:   ");
	for (i = 0; i < d->nrecs; i++)
		printf("%s%s", i ? ", " : "", d->recs[i]);
	printf("\n");
	for (i = 0; i < s->nnotes; i++)
		printf("note:        %s\n", s->notes[i]);
}

/*
 * The watchdog dropped the TSC on the machine this runs on: only the TSC's
 * rate against the RTC tells whether the TSC or the watchdog's reference
 * lied, so status measures it (RTCRATE_SECONDS, a few seconds) rather than
 * advise blind.  Not for another machine's log or root (assess.h), nor
 * for --prometheus (the textfile timer runs it every minute; `check`
 * measures the rate there).
 */
static void status_rate_measure(const struct sysinfo *s,
				struct tsc_rate_check *rc)
{
	struct rtcrate m;

	rtcrate_measure(RTCRATE_SECONDS,
			s->have_klog ? kernlog_tsc_mhz(s->klog) : 0, &m);
	assess_rate_from_rtcrate(&m, rc);
}

/*
 * Can programs that read the TSC themselves rely on it (model/trust.c,
 * through the assessment)?  On the live machine, a yes from the kernel's
 * files and log is checked against a survey of the cores (a few ms a
 * CPU); never for another machine's root or log, whose cores are not
 * these.
 */
static void status_trust(const struct globals *g, const struct sysinfo *s,
			 struct assess_live *live, struct assessment *a)
{
	struct tsc_report *r;
	const char *err = NULL;

	if (a->trust.verdict != TRUST_YES || g->kernel_log ||
	    strcmp(g->root, "/"))
		return;
	r = malloc(sizeof(*r));
	live->survey_failed = !r || survey_run(g->simulate, 0, r, &err) != 0;
	live->survey = live->survey_failed ? NULL : r;
	assess_make(s, live, a);
	live->survey = NULL;
	free(r);
}

int cmd_status(const struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 },
	};
	struct assess_live live = { 0 };
	bool json = g->json, prom = false, quiet = false;
	struct assessment a;
	struct sysinfo s;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'p')
			prom = true;
		else if (c == 'q')
			quiet = true;
		else
			return EXIT_USAGE;
	}
	if (cli_no_args(argc, argv))
		return EXIT_USAGE;
	if (json && prom)
		return app_fail("status: --json and --prometheus exclude each "
				"other");
	if (quiet && (json || prom))
		return app_fail("status: --quiet prints nothing; it excludes "
				"--json and --prometheus");
	system_read(g->root, g->kernel_log, &s);
	assess_make(&s, &live, &a);
	if (!prom && !quiet &&
	    assess_rate_wanted(&a, !g->kernel_log && !strcmp(g->root, "/"))) {
		status_rate_measure(&s, &live.rate);
		assess_make(&s, &live, &a);
	}
	status_trust(g, &s, &live, &a);
	if (quiet) {
		system_free(&s);
		if (a.trust.verdict == TRUST_UNKNOWN) {
			fprintf(stderr, "tsctui: %s\n", a.trust.why);
			return EXIT_USAGE;
		}
		return a.trust.verdict == TRUST_YES ? EXIT_OK : EXIT_UNHEALTHY;
	}
	if (prom)
		status_prometheus(&s, &a.diag, &a.trust);
	else if (json)
		status_json(&s, &a, &live.rate);
	else
		status_text(&s, &a.diag, &live.rate, &a.trust);
	system_free(&s);
	return a.healthy ? EXIT_OK : EXIT_UNHEALTHY;
}

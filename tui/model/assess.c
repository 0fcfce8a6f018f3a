/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "assess.h"

void assess_make(const struct sysinfo *s, const struct assess_live *l,
		 struct assessment *a)
{
	struct trust_in in;

	memset(a, 0, sizeof(*a));
	diagnosis_make(s, s->last_sync_bios, &l->rate, &a->diag);
	a->installed = s->stage.installed;
	a->healthy = !a->diag.unhealthy;
	a->nowatchdog = s->cmdline.nowatchdog;
	a->struck_out = s->stage.strikes >= GUARD_MAX_STRIKES;
	setup_decide(s, &a->diag, a->nowatchdog, l->checking, &a->setup);
	trust_inputs(s, a->diag.vm.virtual_machine, l->survey, &in);
	if (l->survey_failed)
		in.survey = TRUST_SURVEY_INCOMPLETE;
	trust_decide(&in, &a->trust);
	{
		static const struct klog none;

		a->watchdog =
			kernlog_watchdog(s->have_klog ? s->klog : &none,
					 s->kernel_release, &a->watchdog_by);
		if (a->watchdog != KLOG_WATCHDOG_UNKNOWN)
			a->watchdog_limit_ppm = kernlog_watchdog_limit_ppm(
				a->watchdog,
				s->have_klog && s->klog->refined_mhz > 0);
	}
}

bool assess_rate_wanted(const struct assessment *a, bool this_machine)
{
	return a->diag.has_watchdog_advice && this_machine;
}

void assess_rate_from_rtcrate(const struct rtcrate *m,
			      struct tsc_rate_check *rc)
{
	memset(rc, 0, sizeof(*rc));
	rc->source = "status";
	rc->measured = m->measured;
	if (!m->measured) {
		snprintf(rc->why, sizeof(rc->why), "%s", m->why);
		return;
	}
	rc->ppm = m->ppm;
	rc->mhz = m->mhz;
	rc->seconds = m->seconds;
	rc->reference = reftick_name(m->ref);
}

bool assess_rate_from_engine(const struct engine_snapshot *snap,
			     struct tsc_rate_check *rc)
{
	const struct rate *r = &snap->rate;

	if ((snap->ref != REF_RTC && snap->ref != REF_RTC_POLLED) ||
	    !r->started || r->last_t - r->first_t < RTCRATE_SECONDS ||
	    r->ref_mhz <= 0)
		return false;
	rc->measured = true;
	rc->source = "dashboard";
	rc->reference = reftick_name(snap->ref);
	rc->mhz = rate_cumulative_mhz(r);
	rc->ppm = rate_ppm(r, rc->mhz);
	rc->seconds = r->last_t - r->first_t;
	return true;
}

bool assess_sample_healthy(uint32_t warps, const char *clocksource)
{
	return !warps && !strcmp(clocksource, "tsc");
}

void assess_live_trust(const struct assessment *a, const struct sysinfo *s,
		       const struct engine_snapshot *snap, bool this_machine,
		       struct trust_out *out)
{
	struct trust_in in;
	unsigned i;

	*out = a->trust;
	if (a->trust.verdict != TRUST_YES || !this_machine ||
	    a->diag.vm.virtual_machine || !snap || !snap->surveys)
		return;
	trust_inputs(s, false, NULL, &in);
	in.survey = TRUST_SURVEY_AGREE;
	in.survey_cpu = -1;
	for (i = 0; i < snap->ncores; i++) {
		const struct engine_core *c = &snap->cores[i];

		if (c->warps_bsp || c->warps_ap ||
		    c->shown == TSC_VERDICT_BAD) {
			in.survey = TRUST_SURVEY_DISAGREE;
			in.survey_cpu = (int)c->cpu;
			break;
		}
		if (!c->measured)
			in.survey = TRUST_SURVEY_INCOMPLETE;
	}
	trust_decide(&in, out);
}

/* SPDX-License-Identifier: MIT */
#include "trust.h"

#include <stdio.h>
#include <string.h>

#include "../../common/report.h"
#include "../source/system.h"

/* What breaks when the cores disagree, and the switch that avoids it:
 * the why's tail, and the effect alone for a line that shows the reason
 * elsewhere (trust.h). */
#define TRUST_SWITCH "for Proton and Wine games set WINE_DISABLE_QPC_TSC=1"
#define TRUST_WORKAROUND                                                       \
	" Programs that read the TSC themselves can see time go backwards "    \
	"between cores; " TRUST_SWITCH "."
#define TRUST_EFFECT "time can go backwards between cores; " TRUST_SWITCH

static void say(struct trust_out *out, enum trust_verdict v, const char *why,
		const char *tail)
{
	out->verdict = v;
	out->effect = tail[0] ? TRUST_EFFECT : NULL;
	snprintf(out->why, sizeof(out->why), "%s%s", why, tail);
}

void trust_decide(const struct trust_in *in, struct trust_out *out)
{
	char why[200];
	const char *cs = in->clocksource ? in->clocksource : "";

	if (!cs[0]) {
		say(out, TRUST_UNKNOWN,
		    "The kernel's clocksource could not be "
		    "read.",
		    "");
		return;
	}
	if (strcmp(cs, "tsc")) {
		if (in->vm)
			snprintf(why, sizeof(why),
				 "This virtual machine's kernel runs on %s, "
				 "not the TSC: it does not vouch for the "
				 "counter the host gives it.",
				 cs);
		else
			snprintf(why, sizeof(why),
				 "The kernel does not use the TSC (clocksource "
				 "%s)%s.",
				 cs,
				 in->warp ? ": its boot-time warp test failed"
				 : in->inter_cpu ? ": its watchdog saw the "
						   "cores disagree"
				 : in->watchdog_drop
					 ? ": its watchdog dropped it"
					 : "");
		say(out, TRUST_NO, why, TRUST_WORKAROUND);
		return;
	}
	if (!in->have_klog) {
		say(out, TRUST_UNKNOWN,
		    "The kernel uses the TSC, but its log could not be read to "
		    "see whether a warp was seen since boot.",
		    "");
		return;
	}
	if (in->warp || in->inter_cpu) {
		say(out, TRUST_NO,
		    "The kernel uses the TSC, but its log shows the cores "
		    "disagreed since boot.",
		    TRUST_WORKAROUND);
		return;
	}
	switch (in->survey) {
	case TRUST_SURVEY_DISAGREE:
		snprintf(why, sizeof(why),
			 "The kernel kept the TSC, but a survey of the cores "
			 "now sees CPU %d disagree with CPU 0.",
			 in->survey_cpu);
		say(out, TRUST_NO, why, TRUST_WORKAROUND);
		return;
	case TRUST_SURVEY_INCOMPLETE:
		say(out, TRUST_UNKNOWN,
		    "The kernel kept the TSC with no warp since boot, but the "
		    "survey of the cores could not measure every one.",
		    "");
		return;
	case TRUST_SURVEY_AGREE:
		say(out, TRUST_YES,
		    "The kernel kept the TSC, no warp since boot, and the "
		    "cores "
		    "agree now.",
		    "");
		return;
	case TRUST_SURVEY_NONE:
		break;
	}
	say(out, TRUST_YES,
	    in->vm ? "This virtual machine's kernel uses the TSC with no warp "
		     "since boot."
		   : "The kernel kept the TSC with no warp since boot (judged "
		     "from its log and files alone).",
	    "");
}

static bool any(const struct klog *k, enum klog_kind kind)
{
	return kernlog_first(k, kind) != NULL;
}

static bool unstable_cause(const struct klog *k, enum klog_cause cause)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (k->ev[i].kind == KLOG_UNSTABLE && k->ev[i].cause == cause)
			return true;
	return false;
}

void trust_inputs(const struct sysinfo *s, bool vm,
		  const struct tsc_report *survey, struct trust_in *in)
{
	const struct klog *k = s->have_klog ? s->klog : NULL;
	uint32_t i;

	memset(in, 0, sizeof(*in));
	in->clocksource = s->cs.current;
	in->vm = vm;
	in->have_klog = k != NULL;
	in->survey_cpu = -1;
	if (k) {
		in->warp = any(k, KLOG_WARP) || any(k, KLOG_WARP_RANDOM) ||
			   unstable_cause(k, KLOG_CAUSE_SYNC_CHECK);
		in->inter_cpu =
			any(k, KLOG_INTER_CPU_SKEW) || any(k, KLOG_CPUS_APART);
		in->watchdog_drop = any(k, KLOG_WATCHDOG_SKEW) ||
				    any(k, KLOG_FREQUENCY_SKEW) ||
				    unstable_cause(k, KLOG_CAUSE_WATCHDOG);
	}
	if (!survey)
		return;
	/* every AP listed, or a CPU went unsurveyed */
	in->survey = survey->nap + 1 < survey->ncpus ? TRUST_SURVEY_INCOMPLETE
						     : TRUST_SURVEY_AGREE;
	for (i = 0; i < survey->nap; i++) {
		const struct tsc_report_cpu *c = &survey->ap[i];

		if (c->verdict == TSC_VERDICT_UNMEASURED) {
			if (in->survey == TRUST_SURVEY_AGREE)
				in->survey = TRUST_SURVEY_INCOMPLETE;
		} else if (c->warps_bsp || c->warps_ap ||
			   c->verdict == TSC_VERDICT_BAD) {
			in->survey = TRUST_SURVEY_DISAGREE;
			in->survey_cpu = (int)c->index;
			return;
		}
	}
}

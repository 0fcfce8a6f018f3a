/* SPDX-License-Identifier: MIT */
/*
 * Can a program that reads the TSC itself (GE-Proton's
 * QueryPerformanceCounter, RPCS3, DPDK, Redis) rely on it this boot?  A
 * pure decision over what status already read: the kernel kept the TSC,
 * its log shows no warp and no inter-CPU skew since boot, and, on the
 * live machine, a survey of the cores sees them agree (docs/DESIGN.md
 * 9.7).  status --quiet, status --json's tsc_trust, tsctui_tsc_trusted and
 * the dashboard word it.
 */
#ifndef TSCTUI_MODEL_TRUST_H
#define TSCTUI_MODEL_TRUST_H

#include <stdbool.h>

enum trust_verdict {
	TRUST_YES,
	TRUST_NO,
	TRUST_UNKNOWN,
};

/* What the live survey said, when one ran. */
enum trust_survey {
	TRUST_SURVEY_NONE,	 /* not run: --root, --kernel-log, a VM */
	TRUST_SURVEY_AGREE,	 /* every core measured, no warp, none bad */
	TRUST_SURVEY_DISAGREE,	 /* a warp, or a core judged bad */
	TRUST_SURVEY_INCOMPLETE, /* a core not measured, or it failed */
};

struct trust_in {
	const char *clocksource; /* the kernel's current one; "" unknown */
	bool vm;
	bool have_klog;
	bool warp;	    /* the boot-time warp test failed */
	bool inter_cpu;	    /* a watchdog's inter-CPU test failed */
	bool watchdog_drop; /* the watchdog dropped the TSC */
	enum trust_survey survey;
	int survey_cpu; /* the first core that disagreed, or -1 */
};

struct trust_out {
	enum trust_verdict verdict;
	char why[400];
	/* What breaks and the workaround, without the reason ("time can go
	 * backwards between cores; ..."), for a screen whose other lines
	 * give the reason (the clocksource, the warp, the diagnosis); NULL
	 * where nothing breaks. */
	const char *effect;
};

void trust_decide(const struct trust_in *in, struct trust_out *out);

struct sysinfo;
struct tsc_report;
/* The inputs from what status read: the clocksource, the log's events,
 * whether a guest (the diagnosis' evidence), and a live survey of the
 * cores or NULL when none ran. */
void trust_inputs(const struct sysinfo *s, bool vm,
		  const struct tsc_report *survey, struct trust_in *in);

#endif

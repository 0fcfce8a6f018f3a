/* SPDX-License-Identifier: MIT */
/*
 * One sample of the live machine, the step `tsctui check` and the
 * dashboard's engine thread both take: a survey of every core against
 * CPU 0 (read-only), then the reference clock's next edge folded into the
 * TSC's rate.  The two halves are separate calls so the engine can publish
 * the survey before it waits (up to a second) for the edge; sample_take
 * runs both.
 */
#ifndef TSCTUI_ENGINE_SAMPLE_H
#define TSCTUI_ENGINE_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "../../common/report.h"
#include "rate.h"
#include "reftick.h"

struct sampler {
	const char *simulate;	   /* sim.* tokens or NULL (the caller's) */
	double kernel_mhz;	   /* the kernel's calibration, 0 if unknown */
	struct tsc_report *report; /* the last survey (the caller's) */
	struct reftick ref;
	struct rate rate;
	uint32_t warps; /* the last survey's, every core, both directions */
};

/* clocksource: the running machine's current one (reftick_open's
 * choice), NULL when not known (system_live_clocksource). */
void sampler_open(struct sampler *s, const char *simulate, double kernel_mhz,
		  const char *clocksource, struct tsc_report *report);
/* The survey half: 0, or -1 with *err. */
int sampler_survey(struct sampler *s, const char **err);
/* The rate half: true when the reference gave an edge. */
bool sampler_tick(struct sampler *s);
/* Both halves. */
int sampler_take(struct sampler *s, const char **err);
void sampler_close(struct sampler *s);

#endif

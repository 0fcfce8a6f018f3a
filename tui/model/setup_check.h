/* SPDX-License-Identifier: MIT */
/*
 * The guided setup's five-minute check (step 5): every survey the engine
 * finishes in those five minutes is counted, with the warps it saw on every
 * core.  A pure accounting over engine snapshots; the clock is passed in.
 */
#ifndef TSCTUI_MODEL_SETUP_CHECK_H
#define TSCTUI_MODEL_SETUP_CHECK_H

#include <stdbool.h>
#include <time.h>

#include "../engine/engine.h"

/* Five minutes of surveys: what the field report ran to trust a fix. */
#define SETUP_CHECK_S 300

struct setup_check {
	time_t until;	      /* 0: not started */
	unsigned from_survey; /* the survey count when it started */
	unsigned seen;	      /* the survey count of the last snapshot */
	unsigned surveys;     /* surveys counted */
	unsigned long warps;  /* their warps, both ways, every core */
};

/* Starts (or restarts) the check at now, after `surveys` surveys. */
void setup_check_start(struct setup_check *c, unsigned surveys, time_t now);
bool setup_check_started(const struct setup_check *c);
/* One engine snapshot, taken at now: a survey not seen before, finished
 * after the start and within the five minutes, is counted.  Returns
 * whether it was. */
bool setup_check_count(struct setup_check *c,
		       const struct engine_snapshot *snap, time_t now);
/* Seconds left; 0 or less once it is over. */
long setup_check_left(const struct setup_check *c, time_t now);

#endif

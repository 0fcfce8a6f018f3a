/* SPDX-License-Identifier: MIT */
/*
 * The live engine: a worker thread that surveys every core (read-only),
 * counts the TSC against the reference clock, and now and then measures
 * what a clock read costs.  The dashboard takes snapshots; a snapshot is a
 * copy made under a mutex no survey ever holds, so it never waits for one.
 */
#ifndef TSCTUI_ENGINE_ENGINE_H
#define TSCTUI_ENGINE_ENGINE_H

#include <stdbool.h>

#include "../../common/report.h"
#include "clockcost.h"
#include "rate.h"
#include "reftick.h"

#define ENGINE_HISTORY 32
/* A core's verdict as shown is the worst of its last 5 surveys (10 s at
 * the dashboard's 2 s interval): on a noisy VM one survey's verdict flips
 * between ok and unsure (offsets of -40 to +141 cycles at round trips of
 * 700-1130), the worst of five stays put, and a bad one stays in sight
 * for 10 s. */
#define ENGINE_VERDICTS 5
#define ENGINE_VERDICTS_S "5"

struct engine_core {
	uint32_t cpu;
	bool measured;
	int64_t offset;
	double offset_ns;
	uint64_t rtt;
	uint32_t warps_bsp, warps_ap;
	uint64_t max_warp;
	enum tsc_verdict verdict; /* this survey's */
	enum tsc_verdict shown;	  /* the worst of the last ENGINE_VERDICTS */
	unsigned nverdicts;
	enum tsc_verdict verdicts[ENGINE_VERDICTS]; /* oldest first */
	enum tsc_ap_note note;
	/* The kernel-style test judged it (common/verdict.h), with this
	 * spread: what the "why" view needs to restate the rule. */
	bool kernel_test;
	uint64_t spread;
	uint64_t worst; /* its window furthest from 0, |d_k| */
	int64_t margin; /* its smallest gap */
	unsigned nhist;
	int64_t hist[ENGINE_HISTORY]; /* oldest first */
};

struct engine_snapshot {
	unsigned surveys;
	bool busy; /* a survey is running now */
	double survey_ms;
	unsigned ncores; /* APs, CPU 0 being the reference */
	struct engine_core cores[TSC_MAX_CPUS];
	struct rate rate;
	enum ref_kind ref;
	char ref_why[256];
	bool cost_valid;
	struct clockcost cost;
	char error[160];
};

struct engine_config {
	const char *simulate; /* sim.* tokens or NULL */
	double interval_s;    /* between surveys */
	double kernel_mhz;    /* for ppm */
	const char *clocksource;
	unsigned extra_ms; /* tests: make each survey take this long */
};

struct engine;

/* The worst of n verdicts (bad, then unsure, then ok; unmeasured only when
 * all are). */
enum tsc_verdict engine_worst_verdict(const enum tsc_verdict *v, unsigned n);

struct engine *engine_start(const struct engine_config *c);
void engine_snapshot(struct engine *e, struct engine_snapshot *out);
void engine_stop(struct engine *e);

#endif

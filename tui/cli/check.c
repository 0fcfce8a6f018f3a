/* SPDX-License-Identifier: MIT */
/*
 * tsctui check: the field report's tsccheck, done right.  Every interval:
 * a survey of every core against CPU 0 (offsets and warps, read-only), the
 * clocksource, and the TSC's rate against an independent reference.  A
 * table per sample, or with --json one object per line, or --prometheus.
 * Exit 1 on any warp or a clocksource other than tsc.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../action/module_load.h"
#include "../engine/sample.h"
#include "../engine/survey.h"
#include "../model/assess.h"
#include "../source/system.h"
#include "../util/path.h"
#include "cli.h"
#include "metrics.h"

#define CHECK_INTERVAL_MAX 86400
#define CHECK_SAMPLES_MAX 1000000

/* Did the survey see this CPU at all?  One that did not answer has no
 * offset and no warps, and is never exported as if at 0. */
static bool measured(const struct tsc_report_cpu *c)
{
	return c->verdict != TSC_VERDICT_UNMEASURED;
}

static void sample_json(unsigned i, const char *cs, const struct tsc_report *r,
			const struct reftick *ref, const struct rate *rate,
			uint32_t warps, bool healthy)
{
	struct json j;
	uint32_t k;

	json_init(&j, stdout, false);
	json_obj(&j, NULL);
	json_u64(&j, "sample", i);
	json_i64(&j, "time", (int64_t)time(NULL));
	json_str(&j, "clocksource", cs);
	json_arr(&j, "cpus");
	for (k = 0; k < r->nap; k++) {
		const struct tsc_report_cpu *c = &r->ap[k];

		json_obj(&j, NULL);
		json_u64(&j, "index", c->index);
		json_bool(&j, "measured", measured(c));
		if (!measured(c)) {
			/* Nothing seen: null, never an offset of 0. */
			json_null(&j, "offset");
			json_null(&j, "offset_ns");
			json_null(&j, "rtt");
			json_null(&j, "warps_bsp");
			json_null(&j, "warps_ap");
			json_null(&j, "max_warp");
			json_str(&j, "verdict", tsc_verdict_name(c->verdict));
			json_obj_end(&j);
			continue;
		}
		json_i64(&j, "offset", c->final_offset);
		json_num(&j, "offset_ns", survey_cycles_ns(c->final_offset, r),
			 1);
		json_u64(&j, "rtt", c->rtt);
		json_u64(&j, "warps_bsp", c->warps_bsp);
		json_u64(&j, "warps_ap", c->warps_ap);
		json_u64(&j, "max_warp", c->max_warp);
		json_str(&j, "verdict", tsc_verdict_name(c->verdict));
		if (c->has_true_offset)
			json_i64(&j, "sim_true_offset", c->true_offset);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_u64(&j, "warps", warps);
	json_obj(&j, "rate");
	json_str(&j, "reference", reftick_name(ref->kind));
	if (ref->kind == REF_NONE || ref->kind == REF_RTC_POLLED)
		json_str(&j, "why", ref->why);
	if (rate->kept) {
		double w = rate->mhz[rate->kept - 1],
		       cum = rate_cumulative_mhz(rate);

		json_num(&j, "window_mhz", w, 3);
		json_num(&j, "window_ppm", rate_ppm(rate, w), 1);
		json_num(&j, "cumulative_mhz", cum, 3);
		json_num(&j, "cumulative_ppm", rate_ppm(rate, cum), 1);
		json_bool(&j, "cancelling_pair", rate->paired[rate->kept - 1]);
	}
	json_num(&j, "kernel_mhz", rate->ref_mhz, 3);
	json_obj_end(&j);
	json_bool(&j, "healthy", healthy);
	json_obj_end(&j);
	json_end(&j);
	fflush(stdout);
}

static void sample_text(unsigned i, const char *cs, const struct tsc_report *r,
			const struct reftick *ref, const struct rate *rate)
{
	uint32_t k;

	printf("sample %u: clocksource %s\n", i, cs);
	printf("%5s %10s %9s %7s %11s  %s\n", "CPU", "offset", "ns", "rtt",
	       "warps b/a", "verdict");
	for (k = 0; k < r->nap; k++) {
		const struct tsc_report_cpu *c = &r->ap[k];

		printf("%5u %10lld %9.1f %7llu %5u/%-5u  %s\n", c->index,
		       (long long)c->final_offset,
		       survey_cycles_ns(c->final_offset, r),
		       (unsigned long long)c->rtt, c->warps_bsp, c->warps_ap,
		       tsc_verdict_name(c->verdict));
	}
	if (rate->kept)
		printf("rate: %.3f MHz this window (%+.1f ppm%s), %.3f MHz "
		       "cumulative (%+.1f ppm) against %s\n",
		       rate->mhz[rate->kept - 1],
		       rate_ppm(rate, rate->mhz[rate->kept - 1]),
		       rate->paired[rate->kept - 1] ? ", cancels the other of "
						      "its pair"
						    : "",
		       rate_cumulative_mhz(rate),
		       rate_ppm(rate, rate_cumulative_mhz(rate)),
		       reftick_name(ref->kind));
	else if (ref->kind == REF_NONE)
		printf("rate: not measured: %s\n", ref->why);
	if (ref->kind == REF_RTC_POLLED)
		printf("rate: %s\n", ref->why);
	fflush(stdout);
}

/* The live survey's families (metrics.c); the clocksource is status's
 * (tsctui-textfile prints both, and a family appears once). */
static void sample_prometheus(const struct tsc_report *r,
			      const struct reftick *ref,
			      const struct rate *rate, uint32_t warps,
			      uint64_t samples, uint64_t total_warps)
{
	uint64_t most = 0;
	bool any = false;
	char cpu[16];
	uint32_t k;

	/* A CPU that did not answer has no offset and no warps: saying 0
	 * would say it is in sync. */
	metrics_head(METRIC_CORE_MEASURED);
	for (k = 0; k < r->nap; k++) {
		snprintf(cpu, sizeof(cpu), "%u", r->ap[k].index);
		metrics_labelled(METRIC_CORE_MEASURED, measured(&r->ap[k]),
				 "cpu", cpu, (const char *)NULL);
	}
	metrics_head(METRIC_CORE_OFFSET_SECONDS);
	for (k = 0; k < r->nap; k++) {
		int64_t o = r->ap[k].final_offset;

		if (!measured(&r->ap[k]))
			continue;
		any = true;

		snprintf(cpu, sizeof(cpu), "%u", r->ap[k].index);
		metrics_labelled(METRIC_CORE_OFFSET_SECONDS,
				 survey_cycles_ns(o, r) / 1e9, "cpu", cpu,
				 (const char *)NULL);
		if ((uint64_t)llabs(o) > most)
			most = (uint64_t)llabs(o);
	}
	if (any)
		metrics_gauge(METRIC_CORE_OFFSET_MAX_SECONDS,
			      survey_cycles_ns((int64_t)most, r) / 1e9);
	metrics_head(METRIC_CORE_WARPS);
	for (k = 0; k < r->nap; k++) {
		if (!measured(&r->ap[k]))
			continue;
		snprintf(cpu, sizeof(cpu), "%u", r->ap[k].index);
		metrics_labelled(METRIC_CORE_WARPS,
				 r->ap[k].warps_bsp + r->ap[k].warps_ap, "cpu",
				 cpu, (const char *)NULL);
	}
	metrics_gauge(METRIC_WARPS, warps);
	metrics_gauge(METRIC_SAMPLES, (double)samples);
	metrics_gauge(METRIC_WARPS_ALL_SAMPLES, (double)total_warps);
	if (rate->kept) {
		metrics_head(METRIC_TSC_RATE_DEVIATION_RATIO);
		metrics_labelled(METRIC_TSC_RATE_DEVIATION_RATIO,
				 rate_ppm(rate, rate_cumulative_mhz(rate)) /
					 1e6,
				 "reference", reftick_name(ref->kind),
				 (const char *)NULL);
	}
}

/* --load-rtc: the rate needs the RTC; load rtc_cmos if it is missing.
 * m is the snapshot's, of the running machine (cmd_check refuses
 * --load-rtc under another root). */
static int prepare_rtc(const struct sys_modules *m)
{
	const char *err;

	switch (rtc_plan(m, access("/dev/rtc0", F_OK) == 0, geteuid() == 0,
			 true)) {
	case RTC_LOAD:
		if (module_load("rtc_cmos", &err) != 0)
			return app_fail("check: loading rtc_cmos: %s", err);
		return 0;
	case RTC_NEEDS_ROOT:
		return app_fail("check: loading rtc_cmos needs root");
	case RTC_UNSUPPORTED:
		fprintf(stderr, "tsctui: check: no RTC, and %s\n",
			m->supported ? "rtc_cmos is loaded without one"
				     : "this kernel cannot load modules");
		return 0;
	default:
		return 0;
	}
}

int cmd_check(const struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "samples", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "load-rtc", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	bool load_rtc = false;
	double interval = 15;
	uint64_t samples = 1, i, total_warps = 0;
	bool json = g->json, prom = false, unhealthy = false;
	struct tsc_report *r = NULL;
	struct sysinfo s;
	struct sampler sm;
	const char *err;
	int c, rc = EXIT_OK;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'i':
			if (!cli_parse_seconds(optarg, CHECK_INTERVAL_MAX,
					       &interval))
				return app_fail("check: --interval takes "
						"seconds, 0 to %d, not '%s'",
						CHECK_INTERVAL_MAX, optarg);
			break;
		case 'n':
			if (!cli_parse_u64(optarg, 1, CHECK_SAMPLES_MAX,
					   &samples))
				return app_fail("check: --samples takes a "
						"count, 1 to %d, not '%s'",
						CHECK_SAMPLES_MAX, optarg);
			break;
		case 'j':
			json = true;
			break;
		case 'p':
			prom = true;
			break;
		case 'r':
			load_rtc = true;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (cli_no_args(argc, argv))
		return EXIT_USAGE;
	if (json && prom)
		return app_fail("check: --json and --prometheus exclude each "
				"other");
	/* rtc_cmos would go into the running kernel, which another root's
	 * modules do not describe, and the RTC it brings is this machine's,
	 * not the target's (DESIGN.md 8.1). */
	if (load_rtc && !path_root_is_host())
		return app_fail("check: --load-rtc loads rtc_cmos into the "
				"running kernel, not into %s: run it without "
				"--root",
				g->root);
	/* The one read (source/system.h): the clocksource, the modules and
	 * the kernel's calibration come from it. */
	system_read(g->root, g->kernel_log, &s);
	if (load_rtc && prepare_rtc(&s.modules) != 0) {
		system_free(&s);
		return EXIT_USAGE;
	}
	/* The one allocation, after every usage error: the one exit below
	 * frees it. */
	r = calloc(1, sizeof(*r));
	if (!r) {
		system_free(&s);
		return app_fail("check: out of memory");
	}
	sampler_open(&sm, g->simulate,
		     s.have_klog ? kernlog_tsc_mhz(s.klog) : 0,
		     system_live_clocksource(g->root, &s), r);
	for (i = 0; i < samples; i++) {
		struct timespec t0, next;
		bool healthy;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (sampler_take(&sm, &err) != 0) {
			rc = app_fail("check: %s", err);
			break;
		}
		/* The watchdog may have switched it since the last sample. */
		system_reread_clocksource(g->root, &s);
		healthy = assess_sample_healthy(sm.warps, s.cs.current);
		unhealthy |= !healthy;
		total_warps += sm.warps;
		/* Prometheus: one exposition, after the last sample (a
		 * metric family appears once in a scrape). */
		if (prom) {
			if (i + 1 == samples)
				sample_prometheus(r, &sm.ref, &sm.rate,
						  sm.warps, samples,
						  total_warps);
		} else if (json) {
			sample_json((unsigned)i, s.cs.current, r, &sm.ref,
				    &sm.rate, sm.warps, healthy);
		} else {
			sample_text((unsigned)i, s.cs.current, r, &sm.ref,
				    &sm.rate);
		}
		/* Until the next sample is due, S seconds after this one
		 * began: an absolute time (usleep's 32-bit microseconds
		 * wrapped above 4294 s). */
		if (i + 1 < samples) {
			cli_deadline(&t0, interval, &next);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &next, NULL) == EINTR)
				;
		}
	}
	sampler_close(&sm);
	free(r);
	system_free(&s);
	if (rc == EXIT_OK && unhealthy)
		rc = EXIT_UNHEALTHY;
	return rc;
}

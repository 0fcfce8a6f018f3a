/* SPDX-License-Identifier: MIT */
/*
 * tsctui's Prometheus metrics (text exposition format 0.0.4): every
 * family's name, type and help, once, in one table (metrics.c), and the
 * lines of an exposition.  status prints the state families, check the
 * live survey's; no family is in both, so the two outputs together are one
 * valid exposition (what tsctui-textfile writes for node_exporter).
 */
#ifndef TSCTUI_CLI_METRICS_H
#define TSCTUI_CLI_METRICS_H

#include <stdbool.h>

enum metric {
	/* status */
	METRIC_INFO,
	METRIC_CLOCKSOURCE_TSC,
	METRIC_CLOCKSOURCE_INFO,
	METRIC_INVARIANT_TSC,
	METRIC_VIRTUAL_MACHINE,
	METRIC_KERNEL_LOG_READ,
	METRIC_BOOT_WARP_CYCLES,
	METRIC_BOOT_WARP_SECONDS,
	METRIC_WATCHDOG_SKEW_RATIO,
	METRIC_TSC_FREQUENCY_HERTZ,
	METRIC_BIOS_CHANGED_SINCE_SYNC,
	METRIC_STAGE_INSTALLED,
	METRIC_STAGE_MODE,
	METRIC_STAGE_GUARD,
	METRIC_STAGE_RESULT,
	METRIC_DIAGNOSIS,
	METRIC_UNHEALTHY,
	METRIC_TSC_TRUSTED,
	/* check */
	METRIC_CORE_MEASURED,
	METRIC_CORE_OFFSET_SECONDS,
	METRIC_CORE_OFFSET_MAX_SECONDS,
	METRIC_CORE_WARPS,
	METRIC_WARPS,
	METRIC_SAMPLES,
	METRIC_WARPS_ALL_SAMPLES,
	METRIC_TSC_RATE_DEVIATION_RATIO,
	METRIC_COUNT
};

/* The family's # HELP and # TYPE lines: once per family, before its
 * samples. */
void metrics_head(enum metric m);
/* One sample without labels. */
void metrics_value(enum metric m, double v);
/* One sample with labels: key and value strings in pairs, then NULL.
 * Values are escaped as the format asks (backslash, quote, newline). */
void metrics_labelled(enum metric m, double v, ...);
/* A family of one sample without labels: head and value. */
void metrics_gauge(enum metric m, double v);
/* One member of a state set (after metrics_head): the sample labelled
 * label=state, 1 when it is the current state, else 0.  Every state is
 * printed, so an alert on one never meets a series that went stale. */
void metrics_state(enum metric m, const char *label, const char *state,
		   bool current);

#endif

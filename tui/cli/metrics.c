/* SPDX-License-Identifier: MIT */
/*
 * The metric families, one table: names follow Prometheus' conventions
 * (the tsctui_ namespace, base units in the name: _seconds, _hertz,
 * _ratio; 0/1 gauges for yes/no; a state set, one series per state, for
 * an enum; _info for labels only).  Cycles are kept where the kernel
 * counts them (the boot warp, exact as it logged it), beside seconds.
 * None is a counter: each run of status or check is a new process, so a
 * count that starts from zero every run is a gauge, not a _total.
 */
#include <stdarg.h>
#include <math.h>
#include <stdio.h>

#include "metrics.h"

struct metrics_family {
	const char *name, *type, *help;
};

static const struct metrics_family metrics_table[METRIC_COUNT] = {
	[METRIC_INFO] = { "tsctui_info", "gauge",
			  "Constant 1; labels: the machine (DMI vendor and "
			  "product), its product version, BIOS version and "
			  "the tsctui version" },
	[METRIC_CLOCKSOURCE_TSC] = { "tsctui_clocksource_tsc", "gauge",
				     "1 when the kernel's current clocksource "
				     "is tsc" },
	[METRIC_CLOCKSOURCE_INFO] = { "tsctui_clocksource_info", "gauge",
				      "Constant 1; label: the current "
				      "clocksource" },
	[METRIC_INVARIANT_TSC] = { "tsctui_invariant_tsc", "gauge",
				   "1 when the CPU has an invariant TSC "
				   "(constant_tsc and nonstop_tsc)" },
	[METRIC_TSC_TRUSTED] = { "tsctui_tsc_trusted", "gauge",
				 "1 when programs that read the TSC themselves "
				 "can rely on it this boot, 0 when not; absent "
				 "when it cannot be told" },
	[METRIC_VIRTUAL_MACHINE] = { "tsctui_virtual_machine", "gauge",
				     "1 in a virtual machine (the CPU flags "
				     "say hypervisor)" },
	[METRIC_KERNEL_LOG_READ] = { "tsctui_kernel_log_read", "gauge",
				     "1 when the kernel log was read; the "
				     "boot warp, watchdog skew and TSC "
				     "frequency come from it and are absent "
				     "without it" },
	[METRIC_BOOT_WARP_CYCLES] = { "tsctui_boot_warp_cycles", "gauge",
				      "TSC warp between CPUs the kernel "
				      "measured at boot, in cycles as it "
				      "logged it (0: none)" },
	[METRIC_BOOT_WARP_SECONDS] = { "tsctui_boot_warp_seconds", "gauge",
				       "The boot warp in seconds at the "
				       "kernel's TSC frequency (0: none)" },
	[METRIC_WATCHDOG_SKEW_RATIO] = { "tsctui_watchdog_skew_ratio", "gauge",
					 "Skew of the TSC against the "
					 "watchdog's clocksource for which the "
					 "kernel dropped the TSC, as a ratio "
					 "(0: none)" },
	[METRIC_TSC_FREQUENCY_HERTZ] = { "tsctui_tsc_frequency_hertz", "gauge",
					 "The kernel's TSC calibration" },
	[METRIC_BIOS_CHANGED_SINCE_SYNC] = { "tsctui_bios_changed_since_sync",
					     "gauge",
					     "1 when the BIOS version differs "
					     "from the last sync boot's "
					     "(measure again before syncing)" },
	[METRIC_STAGE_INSTALLED] = { "tsctui_stage_installed", "gauge",
				     "1 when the tsctui UEFI stage is "
				     "installed" },
	[METRIC_STAGE_MODE] = { "tsctui_stage_mode", "gauge",
				"The stage's mode for the next boot, one "
				"series per mode, 1 for the current one" },
	[METRIC_STAGE_GUARD] = { "tsctui_stage_guard", "gauge",
				 "The hang guard, one series per state, 1 for "
				 "the current one (all 0: not installed)" },
	[METRIC_STAGE_RESULT] = { "tsctui_stage_result", "gauge",
				  "The stage's result in this boot, one series "
				  "per result, 1 for this boot's (none: the "
				  "stage did not run)" },
	[METRIC_DIAGNOSIS] = { "tsctui_diagnosis", "gauge",
			       "The diagnosis, one series per code, 1 for "
			       "the current one" },
	[METRIC_UNHEALTHY] = { "tsctui_unhealthy", "gauge",
			       "1 when the TSC is not the clocksource and "
			       "could be (status exits 1)" },
	[METRIC_CORE_MEASURED] = { "tsctui_core_measured", "gauge",
				   "1 when the last survey measured a CPU "
				   "against CPU 0; 0 when it did not answer "
				   "(then it has no offset or warps sample)" },
	[METRIC_CORE_OFFSET_SECONDS] = { "tsctui_core_offset_seconds", "gauge",
					 "TSC offset of a CPU against CPU 0 "
					 "in the last survey" },
	[METRIC_CORE_OFFSET_MAX_SECONDS] = { "tsctui_core_offset_max_seconds",
					     "gauge",
					     "The largest absolute TSC offset "
					     "of any CPU against CPU 0 in the "
					     "last survey" },
	[METRIC_CORE_WARPS] = { "tsctui_core_warps", "gauge",
				"Warps of a CPU against CPU 0 in the last "
				"survey" },
	[METRIC_WARPS] = { "tsctui_warps", "gauge",
			   "Warps in the last survey, all CPUs" },
	[METRIC_SAMPLES] = { "tsctui_samples", "gauge",
			     "Surveys this check took" },
	[METRIC_WARPS_ALL_SAMPLES] = { "tsctui_warps_all_samples", "gauge",
				       "Warps in all of this check's surveys, "
				       "all CPUs" },
	[METRIC_TSC_RATE_DEVIATION_RATIO] = { "tsctui_tsc_rate_deviation_ratio",
					      "gauge",
					      "The TSC's rate against the "
					      "reference (label), relative to "
					      "the kernel's calibration: 0 "
					      "runs exactly at it" },
};

void metrics_head(enum metric m)
{
	const struct metrics_family *f = &metrics_table[m];

	printf("# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name,
	       f->type);
}

/* %.15g: integers up to 10^15 exactly (cycles, counts), and short ratios
 * (0.0017986, not 0.0017986000000000001). */
static void metrics_number(double v)
{
	if (isnan(v))
		printf(" NaN\n"); /* the exposition format's spelling */
	else
		printf(" %.15g\n", v);
}

void metrics_value(enum metric m, double v)
{
	fputs(metrics_table[m].name, stdout);
	metrics_number(v);
}

static void metrics_escaped(const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			printf("\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", stdout);
		else
			putchar(*v);
	}
}

void metrics_labelled(enum metric m, double v, ...)
{
	const char *key, *sep = "{";
	va_list ap;

	fputs(metrics_table[m].name, stdout);
	va_start(ap, v);
	while ((key = va_arg(ap, const char *))) {
		printf("%s%s=\"", sep, key);
		metrics_escaped(va_arg(ap, const char *));
		putchar('"');
		sep = ",";
	}
	va_end(ap);
	if (sep[0] == ',')
		putchar('}');
	metrics_number(v);
}

void metrics_gauge(enum metric m, double v)
{
	metrics_head(m);
	metrics_value(m, v);
}

void metrics_state(enum metric m, const char *label, const char *state,
		   bool current)
{
	metrics_labelled(m, current ? 1 : 0, label, state, (const char *)NULL);
}

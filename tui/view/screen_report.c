/* SPDX-License-Identifier: MIT */
/* The stage's report of this boot, with the kernel's word beside it. */
#include <stdio.h>

#include "draw.h"
#include "screen.h"

/* One row per AP.  CPU: Linux's number (the kernel log's, the cores
 * panel's); #: the stage's own, in MP services order. */
static int ap_rows(const struct ui_state *s, const struct tsc_report *r, int y)
{
	char why[192];
	uint32_t i;

	if (!cpu_map_covers(&s->sys->cpumap, r, why, sizeof(why)))
		draw_put(y++, 0, A_NORMAL, "Linux CPU numbers not known (%s)",
			 why);
	draw_put(y++, 0, draw_look(s, C_TITLE),
		 "%-5s %4s %5s %14s %10s %7s %11s  %s", "CPU", "#", "APIC",
		 "survey", "final", "rtt", "warps b/a", "verdict");
	for (i = 0; i < r->nap && y < LINES - 4; i++, y++) {
		const struct tsc_report_cpu *c = &r->ap[i];
		int cpu = cpu_map_report_linux(&s->sys->cpumap, r, c->index);
		char n[16] = "?";

		if (cpu >= 0)
			snprintf(n, sizeof(n), "%d", cpu);
		draw_put(y, 0, A_NORMAL,
			 "%-5s %4u %5u %14lld %10lld %7llu %5u/%-5u", n,
			 c->index, c->apic_id, (long long)c->survey_offset,
			 (long long)c->final_offset, (unsigned long long)c->rtt,
			 c->warps_bsp, c->warps_ap);
		draw_put(y, 64, draw_verdict_look(s, c->verdict), "%s",
			 tsc_verdict_name(c->verdict));
	}
	return y;
}

static void draw(const struct ui_state *s)
{
	const struct tsc_report *r =
		s->sys->stage.has_report ? s->sys->stage.report : NULL;
	int y = 2;

	draw_put(0, 0, draw_look(s, C_TITLE) | A_BOLD,
		 "Stage report of this boot");
	if (!r) {
		draw_put(y, 0, A_NORMAL,
			 "No report this boot: the stage did "
			 "not run (not installed, off, or "
			 "skipped).");
	} else {
		draw_put(y++, 0, A_NORMAL, "%s build, mode %s: %s%s%s",
			 tsc_build_name(r->build), tsc_mode_name(r->mode),
			 tsc_result_name(r->result), r->reason[0] ? " - " : "",
			 r->reason);
		draw_put(y++, 0, A_NORMAL,
			 "phases: survey %.1f, bsp %.1f, ap pass %.1f, verify "
			 "%.1f ms; BSP moved %lld cycles; %u writes",
			 r->phase_us[0] / 1e3, r->phase_us[1] / 1e3,
			 r->phase_us[2] / 1e3, r->phase_us[3] / 1e3,
			 (long long)r->bsp_shift, r->msr_writes);
		y = ap_rows(s, r, y);
		if (r->omitted && y < LINES - 4)
			draw_put(y++, 0, A_NORMAL,
				 "+%u APs, none worse, left out to fit the "
				 "firmware's variable size (the console has "
				 "all)",
				 r->omitted);
	}
	draw_put(LINES - 3, 0, draw_look(s, C_TITLE),
		 "The kernel's word for this boot:");
	draw_put(LINES - 2, 2, A_NORMAL, "%s",
		 s->diag->kernel_verdict[0] ? s->diag->kernel_verdict
					    : "unknown (no kernel log)");
	draw_keys(s, " Esc Back");
}

const struct screen screen_report = { "report", draw };

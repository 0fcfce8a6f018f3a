/* SPDX-License-Identifier: MIT */
/* The guided setup: step 1 (is this machine affected?), then the step the
 * model decided (model/setup.c) in words; step 5's five-minute check as
 * counted so far (model/setup_check.c). */
#include <string.h>

#include "../engine/reftick.h"
#include "../model/fixers.h"
#include "draw.h"
#include "screen.h"

typedef char lines_t[UI_MAX_LINES][UI_LINE];

static void checking(const struct ui_state *s, lines_t l, int *n)
{
	const struct rate *rt = &s->snap->rate;
	long left = setup_check_left(s->check, s->now);

	draw_addl(l, n,
		  "5. Checking: %s, %u surveys, %lu warps; rate %+.1f "
		  "ppm (cumulative, against %s)",
		  left > 0 ? "running" : "done", s->check->surveys,
		  s->check->warps,
		  rt->kept ? rate_ppm(rt, rate_cumulative_mhz(rt)) : 0.0,
		  reftick_name(s->snap->ref));
	if (left > 0)
		draw_addl(l, n, "   %ld:%02ld left", left / 60, left % 60);
	else
		draw_addl(l, n, "   %s",
			  s->check->warps ? "Warps were seen: the sync does "
					    "not hold."
					  : "No warp in five minutes: it holds "
					    "(one boot is not a series of "
					    "boots).");
}

static void step(const struct ui_state *s, lines_t l, int *n)
{
	const struct sysinfo *y = s->sys;

	switch (s->setup.step) {
	case SETUP_GUEST:
		draw_addl(l, n,
			  "2. This is a virtual machine (a guest): its TSC is "
			  "the host's, and the stage never syncs in a guest. "
			  "Nothing to install here.");
		draw_addl(
			l, n,
			"   On the host: run tsctui there (its clocksource "
			"should be tsc; a boot warp there is what to fix); "
			"check the guest is given an invariant TSC (QEMU/KVM: "
			"-cpu host or +invtsc) and uses kvm-clock or tsc.");
		break;
	case SETUP_INSTALL:
		draw_addl(l, n,
			  "2. Install the stage in measure mode: it only "
			  "looks, before Linux starts.");
		break;
	case SETUP_MEASURE_BOOT:
		draw_addl(l, n,
			  "3. Power the machine off fully, boot it, and "
			  "start tsctui again: the report will show every "
			  "core's offset.");
		break;
	case SETUP_SYNC:
		draw_addl(l, n,
			  "3. The report: the boot CPU is at least %lld "
			  "cycles behind all the others.",
			  s->setup.behind);
		draw_addl(l, n,
			  "4. Switch to sync mode: the stage moves the "
			  "counters forward. If a boot ever hangs in it, the "
			  "next boot skips and disables it (the hang guard).");
		break;
	case SETUP_NOTHING_TO_SYNC:
		draw_addl(l, n,
			  "3. The report shows no lagging boot CPU: "
			  "nothing to sync.");
		break;
	case SETUP_NOWATCHDOG:
		draw_addl(l, n,
			  "5. The warp test passed but the watchdog "
			  "dropped the TSC: turn on tsc=nowatchdog, then run "
			  "`tsctui check --interval 15 --samples 20` (five "
			  "minutes) to confirm no warp and no drift.");
		break;
	case SETUP_VERIFY:
		draw_addl(l, n, "5. After the next boot: %s",
			  !strcmp(y->cs.current, "tsc")
				  ? "the kernel kept the TSC."
				  : "check whether the kernel kept the TSC.");
		draw_addl(l, n,
			  "   Enter: a five-minute check of every core "
			  "(warps) and the rate (drift).");
		break;
	case SETUP_CHECKING:
		checking(s, l, n);
		break;
	case SETUP_DIRECTSYNC:
		draw_addl(
			l, n,
			"2. This kernel syncs the TSCs itself "
			"(tsc=directsync) and keeps the TSC: no sync needed.");
		draw_addl(l, n,
			  "   The stage would add a sync before any kernel (a "
			  "distribution kernel, Secure Boot) without long "
			  "loops with interrupts off in the kernel; measure "
			  "mode shows the firmware's fault.");
		break;
	case SETUP_RUNTIME_SKEW:
		draw_addl(l, n,
			  "2. The watchdog dropped the TSC soon after a "
			  "suspend, while the boot-time test passed: a fault "
			  "at run time that no sync before boot fixes.");
		draw_addl(l, n,
			  "   Enter: a five-minute check of the TSC's rate "
			  "against the RTC and of every core, to tell which "
			  "clock is wrong.");
		break;
	}
}

/* Other TSC fixers on the system (model/fixers.h): what each means and
 * the way to tsctui, before the step, since two fixers would fight. */
static void fixers(const struct ui_state *s, lines_t l, int *n)
{
	struct fixers_out fo;
	char line[UI_LINE];
	int i;

	fixers_explain(s->sys, &fo);
	for (i = 0; i < fo.n; i++) {
		snprintf(line, sizeof(line), "Another TSC fixer: %s (%s): %s",
			 fo.f[i].name, fo.f[i].found, fo.f[i].advice);
		draw_addtext(l, n, "   ", line);
	}
}

static void draw(const struct ui_state *s)
{
	const struct sysinfo *y = s->sys;
	lines_t l;
	int n = 0;

	draw_addl(l, &n,
		  "1. Is this machine affected? clocksource %s; %s; CPU "
		  "%s family %xh; TSC_ADJUST %s",
		  y->cs.current[0] ? y->cs.current : "unknown",
		  !s->diag->kernel_verdict[0] ? "no log"
		  : s->diag->verdict_cs_only  ? "no TSC event in the kernel log"
					      : s->diag->kernel_verdict,
		  cpu_vendor_word(&y->cpu, "unknown"), y->cpu.family,
		  y->cpu.tsc_adjust ? "yes" : "no");
	draw_addtext(l, &n, "   ", s->diag->summary);
	fixers(s, l, &n);
	step(s, l, &n);
	/* A probation boot the loader cannot tell from another system's
	 * boot: the setting that lets it (the model's sentence). */
	if (s->setup.last_boot)
		draw_addtext(l, &n, "   ", s->setup.last_boot);
	draw_lines(s, "Guided setup", l, n,
		   s->setup.enter != SETUP_ENTER_NOTHING
			   ? " Enter Do it   Esc Back"
			   : " Esc Back");
}

const struct screen screen_setup = { "setup", draw };

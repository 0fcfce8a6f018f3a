/* SPDX-License-Identifier: MIT */
/* The help screen: what each panel of the main screen means. */
#include "draw.h"
#include "screen.h"

/* One paragraph each (under UI_LINE), wrapped to the screen's width. */
static const char help_text[][UI_LINE] = {
	"Clocksource: what the kernel reads the time from, and why. On tsc a "
	"read costs ~25 ns; on hpet ~1.5 us, and KVM guests lose their fast "
	"clock.",
	"Stage: the UEFI program that runs before Linux. measure only looks; "
	"sync moves lagging counters forward.",
	"The hang guard disables the stage after a boot hung in it, or after "
	"3 sync boots Linux never confirmed.",
	"Cores: each CPU's TSC offset against CPU 0 (cycles and ns), the "
	"fastest round trip (an estimate can be off by half of it), and the "
	"warps seen each way.",
	"Verdict: ok, unsure (within the estimate's error) or bad; the worst "
	"of the core's last 5 surveys (10 s), so one noisy survey does not "
	"flip it.",
	"w says why each core has its verdict, from its last survey. l shows "
	"whole what the main screen cut to fit (a cut ends in ... l: all).",
	"Rate: the TSC against the RTC; late ticks cancel in pairs, drift "
	"does not.",
	"With --root: the clocksource, stage and diagnosis are the target's "
	"files; cores and clock cost are measured live on this machine; the "
	"rate is not (this machine's RTC is not the target's).",
	"Diagnosis: the next step. tsctui never offers tsc=reliable: it skips "
	"the boot-time warp test and hides a real offset,",
	"so the clock can jump back when a task moves between cores. "
	"tsc=nowatchdog only stops the watchdog.",
	"Keys: Up/Down/PgUp/PgDn scroll (the cores on the main screen, the "
	"text elsewhere), Esc back, q quit. Smallest window: 60x15.",
};

static void draw(const struct ui_state *s)
{
	draw_lines(s, "Help", help_text,
		   (int)(sizeof(help_text) / sizeof(help_text[0])),
		   " Esc Back");
}

const struct screen screen_help = { "help", draw };

/* SPDX-License-Identifier: MIT */
/* The help screen: what each panel of the main screen means. */
#include "draw.h"
#include "screen.h"

static const char help_text[][UI_LINE] = {
	"Clocksource: what the kernel reads the time from, and why. On tsc a",
	"read costs ~25 ns; on hpet ~1.5 us, and KVM guests lose their fast "
	"clock.",
	"Stage: the UEFI program that runs before Linux. measure only looks;",
	"sync moves lagging counters forward. The hang guard disables it after",
	"a boot hung in it, or after 3 sync boots Linux never confirmed.",
	"Cores: each CPU's TSC offset against CPU 0 (cycles and ns), the",
	"fastest round trip (an estimate can be off by half of it), warps seen",
	"each way, and a verdict: ok, unsure (within the estimate's error), "
	"bad.",
	"Rate: the TSC against the RTC; late ticks cancel in pairs, drift does "
	"not.",
	"Diagnosis: the next step. tsctui never offers tsc=reliable: it skips "
	"the",
	"boot-time warp test and hides a real offset, so the clock can jump "
	"back",
	"when a task moves between cores. tsc=nowatchdog only stops the "
	"watchdog.",
};

static void draw(const struct ui_state *s)
{
	draw_lines(s, "Help", help_text,
		   (int)(sizeof(help_text) / sizeof(help_text[0])),
		   " Esc Back");
}

const struct screen screen_help = { "help", draw };

/* SPDX-License-Identifier: MIT */
/* Recovery: why the hang guard disabled the stage, and the three ways on
 * (the keys 1-3 are the ui's, tui/ui/keys.c). */
#include "draw.h"
#include "screen.h"

static void draw(const struct ui_state *s)
{
	const struct sys_stage *st = &s->sys->stage;
	const struct tsc_report *r = st->has_report ? st->report : NULL;
	char l[UI_MAX_LINES][UI_LINE];
	int n = 0;

	if (s->struck_out)
		draw_addl(l, &n,
			  "%d sync boots in a row were not confirmed by "
			  "Linux (each followed by a measure-only boot that "
			  "was), so the hang guard disabled the stage.",
			  st->strikes);
	else
		draw_addl(l, &n,
			  "A boot hung in the stage and never reached "
			  "Linux, so the hang guard disabled the stage on the "
			  "next boot.");
	if (st->since[0])
		draw_addl(l, &n, "Tripped: %s (UTC).", st->since);
	draw_addl(l, &n, "The stage was in %s mode (%s path).", st->mode_word,
		  loader_name(st->loader));
	if (r)
		draw_addl(l, &n, "Last report: %s%s%s",
			  tsc_result_name(r->result), r->reason[0] ? " - " : "",
			  r->reason);
	draw_addl(l, &n, "%s", "");
	draw_addl(l, &n, "1  stay off: the stage does nothing");
	draw_addl(l, &n,
		  "2  back to measure mode: it only looks (the safe "
		  "choice)");
	draw_addl(l, &n,
		  "3  retry sync: if it hangs again, the guard trips "
		  "again");
	draw_addl(l, &n, "%s", "");
	draw_addl(l, &n,
		  "By hand: delete EFI/tsctui/disabled (and strikes) on "
		  "the ESP, or set tsctui_tripped=0 tsctui_strikes=0 in the "
		  "grubenv (RECOVERY.md).");
	draw_lines(s, "Recovery: the hang guard disabled the stage", l, n,
		   COLS >= 80
			   ? " 1 Stay off  2 Back to measure  3 Retry sync  "
			     "Esc Later"
			   : " 1 Stay off  2 Measure  3 Retry sync  Esc Later");
}

const struct screen screen_recovery = { "recovery", draw };

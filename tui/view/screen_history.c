/* SPDX-License-Identifier: MIT */
/* The history screen: one row per past boot, and the warp sizes plotted. */
#include "draw.h"
#include "screen.h"

static void draw(const struct ui_state *s)
{
	char plot[UI_MAX_LINES * 4 + 1];

	draw_lines(s, "History: one row per boot", s->history, s->nhistory,
		   " Esc Back");
	if (s->nwarps < 2)
		return;
	draw_sparkline(s->warps, (unsigned)s->nwarps, plot, sizeof(plot),
		       draw_unicode_ok());
	draw_put(LINES - 2, 0, draw_look(s, C_TITLE), "warp size per boot: %s",
		 plot);
}

const struct screen screen_history = { "history", draw };

/* SPDX-License-Identifier: MIT */
/* The confirmation: what an action will change, asked once (the lines are
 * the ui's, tui/ui/confirm.c). */
#include "draw.h"
#include "screen.h"

static void draw(const struct ui_state *s)
{
	/* A plan that already failed offers no yes. */
	draw_lines(s, s->confirm_title, s->confirm, s->nconfirm,
		   s->confirm_fails ? " any key: Back (nothing changes)"
				    : " y Yes, do it   any other key: No");
}

const struct screen screen_confirm = { "confirm", draw };

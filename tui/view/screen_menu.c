/* SPDX-License-Identifier: MIT */
/* A menu: a title and numbered items, one of them selected. */
#include "draw.h"
#include "screen.h"

static void draw(const struct ui_state *s)
{
	int i;

	draw_put(0, 0, draw_look(s, C_TITLE) | A_BOLD, "%s", s->menu_title);
	for (i = 0; i < s->nmenu; i++)
		draw_put(2 + i, 2, i == s->menu_sel ? A_REVERSE : A_NORMAL,
			 " %d %s ", i + 1, s->menu[i]);
	draw_keys(s, " Up/Down choose  Enter select  Esc Back");
}

const struct screen screen_menu = { "menu", draw };

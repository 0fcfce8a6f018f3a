/* SPDX-License-Identifier: MIT */
/* A menu: a title and numbered items, one of them selected. */
#include "draw.h"
#include "screen.h"
#include "wrap.h"

/* UI_MIN_LINES leaves room for three title rows, a blank one and
 * UI_MENU_MAX items. */
#define MENU_TITLE_ROWS 3

static void draw(const struct ui_state *s)
{
	/* The title whole, on as many rows as it takes (at most three). */
	int top = wrap_rows(s->menu_title, COLS), i;

	if (top > MENU_TITLE_ROWS)
		top = MENU_TITLE_ROWS;
	draw_wrapped(0, 0, top, draw_look(s, C_TITLE) | A_BOLD, s->menu_title);
	for (i = 0; i < s->nmenu; i++)
		draw_put(top + 1 + i, 2,
			 i == s->menu_sel ? A_REVERSE : A_NORMAL, " %d %s ",
			 i + 1, s->menu[i]);
	draw_keys(s, " Up/Down choose  Enter select  Esc Back");
}

const struct screen screen_menu = { "menu", draw };

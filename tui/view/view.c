/* SPDX-License-Identifier: MIT */
/* The dashboard's drawing: colours, and the screen being shown. */
#include "draw.h"
#include "screen.h"

static const struct screen *const screens[V_COUNT] = {
	[V_MAIN] = &screen_main,	 [V_HELP] = &screen_help,
	[V_REPORT] = &screen_report,	 [V_HISTORY] = &screen_history,
	[V_MENU] = &screen_menu,	 [V_CONFIRM] = &screen_confirm,
	[V_RECOVERY] = &screen_recovery, [V_SETUP] = &screen_setup,
	[V_WHY] = &screen_why,
};

void view_init_colors(struct ui_state *s)
{
	s->color = has_colors();
	if (!s->color)
		return;
	start_color();
	use_default_colors();
	init_pair(C_TITLE, COLOR_CYAN, -1);
	init_pair(C_OK, COLOR_GREEN, -1);
	init_pair(C_UNSURE, COLOR_YELLOW, -1);
	init_pair(C_BAD, COLOR_RED, -1);
	init_pair(C_DIM, COLOR_BLUE, -1);
	init_pair(C_KEY, COLOR_BLACK, COLOR_CYAN);
}

/* The status line: the last action's message, or its error. */
static void statusline(const struct ui_state *s)
{
	if (s->status[0])
		draw_put(LINES - 2, 0,
			 draw_look(s, s->status_error ? C_BAD : C_OK), "%s",
			 s->status);
}

void view_draw(const struct ui_state *s)
{
	erase();
	screens[s->view]->draw(s);
	statusline(s);
	refresh();
}

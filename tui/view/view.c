/* SPDX-License-Identifier: MIT */
/* The dashboard's drawing: colours, and the screen being shown. */
#include <stdio.h>

#include "draw.h"
#include "screen.h"

static const struct screen *const screens[V_COUNT] = {
	[V_MAIN] = &screen_main,	 [V_HELP] = &screen_help,
	[V_REPORT] = &screen_report,	 [V_HISTORY] = &screen_history,
	[V_MENU] = &screen_menu,	 [V_CONFIRM] = &screen_confirm,
	[V_RECOVERY] = &screen_recovery, [V_SETUP] = &screen_setup,
	[V_WHY] = &screen_why,		 [V_TEXT] = &screen_text,
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
	int rows = draw_status_rows(s);

	/* Cut on the main screen, it says where it is whole (l). */
	if (s->status[0])
		draw_wrapped_more(
			LINES - 1 - rows, 0, rows,
			draw_look(s, s->status_error ? C_BAD : C_OK), s->status,
			s->view == V_MAIN ? DRAW_MORE_ALL : DRAW_MORE);
}

int view_draw(const struct ui_state *s)
{
	char small[96];

	erase();
	draw_begin();
	if (COLS < UI_MIN_COLS || LINES < UI_MIN_LINES) {
		snprintf(small, sizeof(small),
			 "Enlarge the window: tsctui needs at least %d "
			 "columns and %d lines (this one is %dx%d).",
			 UI_MIN_COLS, UI_MIN_LINES, COLS, LINES);
		draw_wrapped(0, 0, LINES, A_BOLD, small);
		refresh();
		return 0;
	}
	screens[s->view]->draw(s);
	statusline(s);
	refresh();
	return draw_overflow();
}

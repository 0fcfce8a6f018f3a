/* SPDX-License-Identifier: MIT */
/*
 * The dashboard's screens, drawn from one state struct: no I/O here.  The
 * loop in tui/ui/dashboard.c fills the state (from the sources, the
 * diagnosis, the engine and the actions) and calls view_draw().
 */
#ifndef TSCTUI_VIEW_VIEW_H
#define TSCTUI_VIEW_VIEW_H

#include <curses.h>
#include <stdbool.h>

#include "../engine/engine.h"
#include "../model/diagnosis.h"
#include "../source/system.h"

enum ui_view {
	V_MAIN,
	V_HELP,
	V_REPORT,
	V_HISTORY,
	V_MENU,
	V_CONFIRM,
	V_RECOVERY,
	V_SETUP,
	V_WHY,
};

#define UI_MAX_LINES 24
#define UI_LINE 160

struct ui_state {
	/* What the system says (refreshed, never assumed). */
	const struct sysinfo *sys;
	const struct diagnosis *diag;
	const struct engine_snapshot *snap;
	bool nowatchdog;     /* the kernel-arg setting */
	int nhistory;
	char history[UI_MAX_LINES][UI_LINE];
	int nwarps;			   /* warp cycles per boot, for the plot */
	int64_t warps[UI_MAX_LINES];

	/* Where the user is. */
	enum ui_view view, back;
	int scroll;
	char status[UI_LINE];
	bool status_error;
	bool color;

	/* A menu: a title and items. */
	char menu_title[80];
	int nmenu, menu_sel;
	char menu[8][80];

	/* A confirmation: what will change, asked once. */
	char confirm_title[120];
	int nconfirm;
	char confirm[UI_MAX_LINES][UI_LINE];

	/* Guided setup: the step and what it says. */
	int setup_step;
	int nsetup;
	char setup[UI_MAX_LINES][UI_LINE];
	char setup_action[80]; /* what Enter does on this step, or "" */
};

void view_init_colors(struct ui_state *s);
void view_draw(const struct ui_state *s);

/* A sparkline of the values, in w cells (Unicode blocks where the locale
 * allows, else ASCII). */
void view_sparkline(const int64_t *v, unsigned n, char *out, size_t cap,
		    bool unicode);

#endif

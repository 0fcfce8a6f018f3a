/* SPDX-License-Identifier: MIT */
/*
 * The dashboard's screens, drawn from one state struct: no I/O here.  The
 * loop in tui/ui/dashboard.c fills the state (from the sources, the model,
 * the engine and the actions) and calls view_draw(), which hands it to the
 * screen being shown (screen.h: one file each, screen_<name>.c).
 */
#ifndef TSCTUI_VIEW_VIEW_H
#define TSCTUI_VIEW_VIEW_H

#include <stdbool.h>
#include <time.h>

#include "../engine/engine.h"
#include "../model/diagnosis.h"
#include "../model/setup.h"
#include "../model/setup_check.h"
#include "../model/trust.h"
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
	V_TEXT,
	V_COUNT
};

#define UI_MAX_LINES 24
/* The items a menu holds: keys 1 to 8 choose one; the dashboard's ESP
 * choices are as many. */
#define UI_MENU_MAX 8
/* Room for the longest paragraph a screen words (the diagnosis' summary
 * is 768 bytes): a paragraph kept in one line wraps as one on the screen,
 * where one split into 159-byte pieces broke mid-sentence. */
#define UI_LINE 1024
/* The smallest terminal every screen is drawn whole on (the main screen's
 * header, one core, the diagnosis, status and keys; the other screens
 * scroll); below it one line asks for a larger window. */
#define UI_MIN_COLS 60
#define UI_MIN_LINES 15

struct ui_state {
	/* What the system says (refreshed, never assumed). */
	const struct sysinfo *sys;
	const struct diagnosis *diag;
	const struct engine_snapshot *snap;
	/* Can programs that read the TSC rely on it (model/trust.h): the
	 * assessment's answer, checked against the live cores when the
	 * dashboard runs on the machine itself. */
	const struct trust_out *trust;
	bool nowatchdog; /* the kernel-arg setting */
	int nhistory;
	char history[UI_MAX_LINES][UI_LINE];
	int nwarps; /* warp cycles per boot, for the plot */
	int64_t warps[UI_MAX_LINES];
	time_t now; /* the loop's clock, for what counts down */
	/* The guard tripped on unconfirmed sync boots, not on a hang. */
	bool struck_out;
	/* --root other than /: the files are the target's, the cores, the
	 * rate and the clock's cost this machine's. */
	const char *root;
	/* The live kernel log needs root, and this is not: said where a
	 * fact from it is missing. */
	bool not_root;

	/* Where the user is. */
	enum ui_view view;
	int scroll;	 /* the cores panel's first row */
	int info_scroll; /* help, history, setup, confirmation: first row */
	char status[UI_LINE];
	bool status_error;
	/* The last message said, kept past the screen that said it: the
	 * all-text screen (l) shows it whole. */
	char last_status[UI_LINE];
	bool color;

	/* A menu: a title and items. */
	char menu_title[UI_LINE];
	int nmenu, menu_sel;
	char menu[UI_MENU_MAX][80];

	/* A confirmation: what will change, asked once. */
	char confirm_title[120];
	int nconfirm;
	char confirm[UI_MAX_LINES][UI_LINE];
	bool confirm_fails; /* its dry run failed: there is nothing to do */

	/* The guided setup: its step (model/setup.h) and the five-minute
	 * check's count (model/setup_check.h). */
	struct setup setup;
	const struct setup_check *check;
};

void view_init_colors(struct ui_state *s);
/* Draws the screen shown; returns how far its text can scroll (0 when it
 * all fits). */
int view_draw(const struct ui_state *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * A screen: one file each (screen_main.c, screen_why.c, ...), drawing from
 * the state it is handed and nothing else.  What a key does on a screen is
 * the ui's (tui/ui/keys.c); what a screen shows is derived before it is
 * drawn (the model, tui/ui/dashboard.c's refresh).
 */
#ifndef TSCTUI_VIEW_SCREEN_H
#define TSCTUI_VIEW_SCREEN_H

#include "view.h"

struct screen {
	const char *name;
	void (*draw)(const struct ui_state *s);
};

extern const struct screen screen_main, screen_help, screen_report,
	screen_history, screen_menu, screen_confirm, screen_recovery,
	screen_setup, screen_why;

#endif

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
	screen_setup, screen_why, screen_text;

/*
 * What the main screen may cut (ending the cut in DRAW_MORE_ALL), for the
 * all-text screen to show whole; one copy of each, in screen_main.c.  The
 * note under the stage line: another TSC fixer's, else
 * system_stage_note's; *bad when it warns; NULL when there is none.  Why
 * there is no rate yet ("Rate: ..."): false when there is one.
 */
const char *main_stage_note(const struct ui_state *s, char *buf, size_t cap,
			    bool *bad);
bool main_rate_why(const struct ui_state *s, char *buf, size_t cap);
/* Whether programs that read the TSC themselves can rely on it. */
void main_trust_words(const struct trust_out *t, char *out, size_t cap);

#endif

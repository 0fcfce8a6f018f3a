/* SPDX-License-Identifier: MIT */
/*
 * The dashboard's words for an action's way out (act.h's enum act_hint):
 * where the command line names an option, the dashboard names a key or a
 * menu.  Pure (no curses), so a unit test renders every one
 * (tests/unit/test_wrap.c).
 */
#ifndef TSCTUI_UI_HINT_H
#define TSCTUI_UI_HINT_H

#include <stddef.h>

#include "../action/act.h"

/* h's words on the dashboard. */
const char *hint_words(enum act_hint h);
/* An action's error as the dashboard says it: the command line's words
 * for its hint (error[at, end)) replaced by the dashboard's. */
void hint_say(const char *error, enum act_hint h, size_t at, size_t end,
	      char *out, size_t cap);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The dashboard's words for an action's way out (act.h's enum act_hint)
 * and for the diagnosis's advice (model/diagnosis.h's enum diag_advice):
 * where the command line names an option, the dashboard names a key or a
 * menu, or says what to do.  Pure (no curses), so a unit test renders every one
 * (tests/unit/test_wrap.c).
 */
#ifndef TSCTUI_UI_HINT_H
#define TSCTUI_UI_HINT_H

#include <stddef.h>

#include "../action/act.h"
#include "../model/assess.h"

/* h's words on the dashboard. */
const char *hint_words(enum act_hint h);
/* An action's error as the dashboard says it: the command line's words
 * for its hint (error[at, end)) replaced by the dashboard's. */
void hint_say(const char *error, enum act_hint h, size_t at, size_t end,
	      char *out, size_t cap);
/* What an action says (act_say.h), on the dashboard: its own words where
 * the command line's name a command or an option, else those. */
const char *hint_say_words(enum act_say code);
/* Everything a said, in the dashboard's words, one per line. */
void hint_said(const struct act *a, char *out, size_t cap);
/* a's words on the dashboard. */
const char *hint_advice_words(enum diag_advice a);
/* The diagnosis's summary as the dashboard says it: the command line's
 * words for its advice (summary[advice_at, advice_end)) replaced by the
 * dashboard's. */
void hint_diagnosis(const struct diagnosis *d, char *out, size_t cap);

#endif

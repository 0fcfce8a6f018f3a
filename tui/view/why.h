/* SPDX-License-Identifier: MIT */
/*
 * Why a core has its verdict, in words: the clause of the verdict's own
 * rule that decided it (tsc_verdict_explain, common/verdict.h), with the
 * limits that rule applied, and the engine's note.  Pure text, no curses:
 * the "why" screen draws it, the unit tests read it.
 */
#ifndef TSCTUI_VIEW_WHY_H
#define TSCTUI_VIEW_WHY_H

#include <stddef.h>

#include "../engine/engine.h"

void why_line(const struct engine_core *c, char *out, size_t cap);

#endif

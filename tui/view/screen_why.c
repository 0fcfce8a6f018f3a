/* SPDX-License-Identifier: MIT */
/* The "why" screen: each core that is not ok, and the clause of the
 * verdict's rule that made it so (why.c). */
#include <string.h>

#include "draw.h"
#include "screen.h"
#include "why.h"

static void draw(const struct ui_state *s)
{
	char line[UI_LINE];
	unsigned i;
	int y = 2;

	draw_put(0, 0, draw_look(s, C_TITLE) | A_BOLD, "Why each verdict");
	for (i = 0; s->snap && i < s->snap->ncores && y < LINES - 2; i++) {
		const struct engine_core *c = &s->snap->cores[i];

		if (c->shown == TSC_VERDICT_OK)
			continue;
		why_line(c, line, sizeof(line));
		draw_wrapped(y, 0, 2, draw_verdict_look(s, c->shown), line);
		y += (int)strlen(line) / (COLS > 20 ? COLS : 20) + 1;
	}
	if (y == 2)
		draw_put(y, 0, A_NORMAL, "Every core is ok.");
	draw_keys(s, " Esc Back");
}

const struct screen screen_why = { "why", draw };

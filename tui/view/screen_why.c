/* SPDX-License-Identifier: MIT */
/* The "why" screen: each core that is not ok, and the clause of the
 * verdict's rule that made it so (why.c). */
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "screen.h"
#include "why.h"
#include "wrap.h"

/* Each core's line takes the rows it wraps to (wrap.h), whole; where the
 * next one does not fit, a last row says how many are left unshown. */
static void draw(const struct ui_state *s)
{
	char line[UI_LINE];
	unsigned i, left = 0;
	int y = 2, rows, bottom = LINES - 2;

	draw_put(0, 0, draw_look(s, C_TITLE) | A_BOLD, "Why each verdict");
	for (i = 0; s->snap && i < s->snap->ncores; i++) {
		const struct engine_core *c = &s->snap->cores[i];

		if (c->shown == TSC_VERDICT_OK)
			continue;
		why_line(c, line, sizeof(line));
		rows = wrap_rows(line, COLS);
		/* the last row stays free for the count of the rest */
		if (left || y + rows > bottom - 1) {
			left++;
			continue;
		}
		draw_wrapped(y, 0, rows, draw_verdict_look(s, c->shown), line);
		y += rows;
	}
	if (left)
		draw_put(y, 0, A_NORMAL,
			 "... %u more core%s: a taller terminal shows them",
			 left, left == 1 ? "" : "s");
	else if (y == 2)
		draw_put(y, 0, A_NORMAL, "Every core is ok.");
	draw_keys(s, " Esc Back");
}

const struct screen screen_why = { "why", draw };

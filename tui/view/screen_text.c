/* SPDX-License-Identifier: MIT */
/*
 * All text (key l): whole, and scrolling, what the main screen cuts to fit
 * (its cuts end in DRAW_MORE_ALL, naming this screen): the last message
 * said, the note under the stage line, why there is no rate, whether
 * programs can trust the TSC, and the diagnosis with its next steps.  The
 * words are the main screen's own (screen.h), not a second copy.
 */
#include <stdio.h>

#include "draw.h"
#include "screen.h"

static void draw(const struct ui_state *s)
{
	static char lines[UI_MAX_LINES][UI_LINE];
	char buf[UI_LINE];
	const char *note;
	bool bad;
	int n = 0, i;

	/* draw_addtext: a paragraph longer than a line goes on in the next,
	 * never cut off. */
	if (s->last_status[0])
		draw_addtext(lines, &n, "Last message: ", s->last_status);
	note = main_stage_note(s, buf, sizeof(buf), &bad);
	if (note)
		draw_addtext(lines, &n, "Stage: ", note);
	if (main_rate_why(s, buf, sizeof(buf)))
		draw_addtext(lines, &n, "", buf);
	if (s->trust) {
		main_trust_words(s->trust, buf, sizeof(buf));
		draw_addtext(lines, &n, "", buf);
	}
	draw_addl(lines, &n, "Diagnosis (%s): %s",
		  diagnosis_code_name(s->diag->code), s->diag->summary);
	for (i = 0; i < s->diag->nrecs; i++)
		draw_addtext(lines, &n, "Next: ", s->diag->recs[i]);
	draw_lines(s, "All text: what the main screen cuts, whole", lines, n,
		   " Esc Back");
}

const struct screen screen_text = { "text", draw };

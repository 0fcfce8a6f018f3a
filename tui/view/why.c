/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "../../common/verdict.h"
#include "why.h"

/*
 * The measurement the verdict was made from.  The report keeps no "warp
 * test complete" flag: a cut test leaves the note warp-cut, unless an
 * earlier note (beyond-cap, not-converged) was already there.  So when the
 * rule does not give back the verdict the engine recorded, the test was cut.
 */
static void explain(const struct engine_core *c, struct tsc_verdict_why *w)
{
	struct tsc_measurement m = {
		.measured = c->measured,
		.offset = c->offset,
		.rtt = c->rtt,
		.warps = c->warps_bsp + c->warps_ap,
		.warp_complete = c->note != TSC_NOTE_WARP_CUT,
		.kernel_test = c->kernel_test,
		.spread = c->spread,
		.worst = c->worst,
		.margin = c->margin,
	};

	tsc_verdict_explain(&m, w);
	if (w->verdict != c->verdict && m.warp_complete) {
		m.warp_complete = false;
		tsc_verdict_explain(&m, w);
	}
}

/* What the rule's limits are, in words: the estimate's or the test's. */
static void beyond(const struct engine_core *c, const struct tsc_verdict_why *w,
		   char *out, size_t cap)
{
	if (w->kernel_test)
		snprintf(out, cap,
			 "CPU %u: bad: %lld cycles is beyond the "
			 "kernel-style test's limit of %llu (a quarter of its "
			 "fastest handoff, %llu cycles, plus half its windows' "
			 "spread)",
			 c->cpu, (long long)c->offset,
			 (unsigned long long)w->bad_limit,
			 (unsigned long long)(c->rtt / 2));
	else
		snprintf(out, cap,
			 "CPU %u: bad: %lld cycles is beyond the "
			 "%llu-cycle limit plus the estimate's error (%llu, "
			 "half "
			 "the round trip)",
			 c->cpu, (long long)c->offset,
			 (unsigned long long)w->ok_limit,
			 (unsigned long long)w->error);
}

static void near(const struct engine_core *c, const struct tsc_verdict_why *w,
		 char *out, size_t cap)
{
	if (w->kernel_test)
		snprintf(out, cap,
			 "CPU %u: unsure: %lld cycles is beyond %llu "
			 "(an eighth of the fastest handoff, at most %u) but "
			 "within %llu (a quarter of it plus half the spread); "
			 "the kernel's own check decides",
			 c->cpu, (long long)c->offset,
			 (unsigned long long)w->ok_limit, TSC_WARP_OK_ABS,
			 (unsigned long long)w->bad_limit);
	else
		snprintf(out, cap,
			 "CPU %u: unsure: %lld cycles is beyond %llu, "
			 "but within the estimate's error of %llu cycles; the "
			 "kernel's own check decides",
			 c->cpu, (long long)c->offset,
			 (unsigned long long)w->ok_limit,
			 (unsigned long long)w->error);
}

void why_line(const struct engine_core *c, char *out, size_t cap)
{
	struct tsc_verdict_why w;
	size_t n;

	explain(c, &w);
	switch (w.clause) {
	case TSC_CLAUSE_NOT_MEASURED:
		snprintf(out, cap, "CPU %u: unmeasured: it did not answer",
			 c->cpu);
		break;
	case TSC_CLAUSE_WARP_SEEN:
		snprintf(out, cap,
			 "CPU %u: bad: time went backwards %u times "
			 "(%s), by up to %llu cycles",
			 c->cpu, c->warps_bsp + c->warps_ap,
			 c->warps_bsp ? "CPU 0 read less than it: it is ahead"
				      : "it read less than CPU 0: it is behind",
			 (unsigned long long)c->max_warp);
		break;
	case TSC_CLAUSE_BEYOND:
		beyond(c, &w, out, cap);
		break;
	case TSC_CLAUSE_NEAR:
		near(c, &w, out, cap);
		break;
	case TSC_CLAUSE_CUT:
		snprintf(out, cap,
			 "CPU %u: unsure: %lld cycles is within %llu, "
			 "but its warp test was cut short, so a warp is not "
			 "ruled out; the kernel's own check decides",
			 c->cpu, (long long)c->offset,
			 (unsigned long long)w.ok_limit);
		break;
	case TSC_CLAUSE_DISTRUSTED:
		snprintf(out, cap,
			 "CPU %u: unsure: its test's windows disagree by %llu "
			 "cycles, more than its fastest handoff: something "
			 "stalled a side, so the test proves nothing",
			 c->cpu, (unsigned long long)c->spread);
		break;
	case TSC_CLAUSE_WINDOW:
		snprintf(out, cap,
			 "CPU %u: unsure: %lld cycles on average, but one "
			 "window of its test saw %llu, beyond %llu",
			 c->cpu, (long long)c->offset,
			 (unsigned long long)c->worst,
			 (unsigned long long)w.ok_limit);
		break;
	case TSC_CLAUSE_MARGIN:
		snprintf(out, cap,
			 "CPU %u: unsure: %lld cycles, but its fastest handoff "
			 "came within %lld cycles of a warp, less than three "
			 "quarters of its floor (%llu)",
			 c->cpu, (long long)c->offset, (long long)c->margin,
			 (unsigned long long)(c->rtt / 2));
		break;
	case TSC_CLAUSE_WITHIN:
		snprintf(out, cap,
			 "CPU %u: ok: %lld cycles, within %llu, no "
			 "warp",
			 c->cpu, (long long)c->offset,
			 (unsigned long long)w.ok_limit);
		break;
	}
	/* The panel shows the worst of the last surveys; this one's clause
	 * may be milder. */
	n = strlen(out);
	if (c->nverdicts && c->shown != c->verdict && n < cap)
		snprintf(out + n, cap - n,
			 "; shown %s: the worst of its last %u surveys",
			 tsc_verdict_name(c->shown), c->nverdicts);
	/* A note the clause has not already said. */
	if (c->note == TSC_NOTE_NONE ||
	    (c->note == TSC_NOTE_WARP_CUT && w.clause == TSC_CLAUSE_CUT) ||
	    (c->note == TSC_NOTE_NO_ANSWER &&
	     w.clause == TSC_CLAUSE_NOT_MEASURED))
		return;
	n = strlen(out);
	if (n < cap)
		snprintf(out + n, cap - n, " (note: %s)",
			 tsc_note_name(c->note));
}

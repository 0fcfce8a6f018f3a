/* SPDX-License-Identifier: MIT */
/*
 * The main screen.  Rows: 0-1 header, 2-3 clocksource and the kernel's
 * verdict, 4 stage (and its note, up to STAGE_NOTE_ROWS more), under
 * --root the line between what was read and what is measured, then from
 * row 6 or below those the cores (as many as there are, up to two thirds
 * of what is left), then rate, the power source with whether programs can
 * trust the TSC, cost and events (newest first, so that a short screen
 * cuts the oldest), then the diagnosis (as many
 * rows as it takes, while the panels above keep MAIN_MIN_PANEL), status
 * and keys.
 */
#include <stdio.h>
#include <string.h>

#include "../../common/verdict.h"
#include "../engine/reftick.h"
#include "../model/fixers.h"
#include "draw.h"
#include "screen.h"
#include "wrap.h"

/* The cores' title and one core, and the rate: what the diagnosis never
 * takes from the panels above it. */
#define MAIN_MIN_PANEL 3
/* The stage's note under its line, at most (24 rows or more). */
#define STAGE_NOTE_ROWS 3

/* A fact the system did not give: "unknown", and why where it is known. */
static const char *or_unknown(const char *v, const char *why)
{
	return v && v[0] ? v : why;
}

static void header(const struct ui_state *s)
{
	const struct sysinfo *y = s->sys;
	double mhz = y->have_klog ? kernlog_tsc_mhz(y->klog) : 0;
	char rate[64];

	if (y->machine.vendor[0] || y->machine.product[0])
		draw_put(0, 0, draw_look(s, C_TITLE) | A_BOLD,
			 "tsctui  %s %s  BIOS %s", y->machine.vendor,
			 y->machine.product,
			 or_unknown(y->machine.bios_version, "unknown"));
	else
		draw_put(0, 0, draw_look(s, C_TITLE) | A_BOLD,
			 "tsctui  machine unknown (no DMI)  BIOS %s",
			 or_unknown(y->machine.bios_version, "unknown"));
	if (mhz > 0)
		snprintf(rate, sizeof(rate), "TSC %.3f MHz", mhz);
	else
		snprintf(rate, sizeof(rate), "TSC MHz unknown (%s)",
			 y->klog_pending ? "reading the log"
			 : y->have_klog	 ? "not in the kernel log"
			 : s->not_root	 ? "the kernel log needs root"
					 : "no kernel log");
	draw_put(1, 0, A_NORMAL,
		 "CPU %s family %xh, %u thread%s | %s | invariant %s "
		 "| TSC_ADJUST %s%s",
		 cpu_vendor_word(&y->cpu, "unknown"), y->cpu.family,
		 y->cpu.threads, y->cpu.threads == 1 ? "" : "s", rate,
		 y->cpu.invariant_tsc ? "yes" : "no",
		 y->cpu.tsc_adjust ? "yes" : "no",
		 s->diag->vm.virtual_machine ? " | virtual machine" : "");
}

static void clocksource_line(const struct ui_state *s, int y)
{
	const struct sysinfo *sys = s->sys;
	char avail[128] = "";
	const char *verdict = s->diag->kernel_verdict;
	int i;

	/* The others the kernel could switch to: the current one is said
	 * already. */
	for (i = 0; i < sys->cs.navailable; i++) {
		if (!strcmp(sys->cs.available[i], sys->cs.current))
			continue;
		strncat(avail, avail[0] ? " " : "",
			sizeof(avail) - strlen(avail) - 1);
		strncat(avail, sys->cs.available[i],
			sizeof(avail) - strlen(avail) - 1);
	}
	if (s->diag->verdict_cs_only)
		verdict = s->sys->have_klog ? "no TSC event in the kernel log"
					    : "";
	if (!sys->cs.current[0])
		draw_put(y, 0, draw_look(s, C_DIM),
			 "Clocksource unknown (no "
			 "/sys/devices/system/clocksource)");
	else
		draw_put(y, 0,
			 draw_look(s, strcmp(sys->cs.current, "tsc") ? C_BAD
								     : C_OK),
			 "Clocksource %s%s%s%s", sys->cs.current,
			 avail[0] ? " (also available: " : "", avail,
			 avail[0] ? ")" : "");
	draw_put(y + 1, 2, A_NORMAL, "%s",
		 verdict[0]    ? verdict
		 : s->not_root ? "kernel log unavailable: reading it needs root"
			       : "kernel log unavailable");
}

/* Under --root the files are the target's; what the engine shows is
 * measured on this machine: said on the panel's title. */
static bool other_root(const struct ui_state *s)
{
	return s->root && strcmp(s->root, "/") != 0;
}

/* Another TSC fixer found on the system (model/fixers.h), named in the
 * note under the stage line: it matters more than the stage's own note,
 * since two fixers would fight.  What it means and the way to tsctui take
 * more rows than a note has: the setup says them.  NULL when none. */
static const char *fixer_note(const struct ui_state *s, char *out, size_t cap)
{
	struct fixers_out fo;

	fixers_explain(s->sys, &fo);
	if (fo.n == 0)
		return NULL;
	snprintf(out, cap,
		 "Another TSC fixer: %s (%s)%s; what it means and the way to "
		 "tsctui: s (Setup)",
		 fo.f[0].name, fo.f[0].found, fo.n > 1 ? ", and one more" : "");
	return out;
}

const char *main_stage_note(const struct ui_state *s, char *buf, size_t cap,
			    bool *bad)
{
	const char *note = fixer_note(s, buf, cap);

	*bad = note != NULL;
	return note ? note : system_stage_note(&s->sys->stage, bad);
}

/* The note under the stage line (drawn at y + 1), wrapped; how many rows
 * it took. */
static int stage_note(const struct ui_state *s, int y, const char *note,
		      bool bad)
{
	/* Whole where the screen has the rows (a note's last words are often
	 * the way out: the command that removes a stale variable); one row
	 * on a short screen, where the cores need them. */
	int rows = wrap_rows(note, COLS - 2);

	if (rows > (LINES >= 24 ? STAGE_NOTE_ROWS : 1))
		rows = LINES >= 24 ? STAGE_NOTE_ROWS : 1;
	draw_wrapped_more(y + 1, 2, rows, bad ? draw_look(s, C_BAD) : A_NORMAL,
			  note, DRAW_MORE_ALL);
	return rows;
}

/* The stage line, and the note under it (main_stage_note), or none; how
 * many rows the stage took. */
static int stage_line(const struct ui_state *s, int y)
{
	const struct sys_stage *st = &s->sys->stage;
	char strikes[32] = "", fixer[256];
	bool bad;
	const char *note = main_stage_note(s, fixer, sizeof(fixer), &bad);

	if (!st->installed) {
		draw_put(y, 0, A_NORMAL, "Stage: not installed%s",
			 s->diag->directsync ? "; this kernel syncs the TSCs "
					       "itself (tsc=directsync)"
					     : "");
		return note ? 1 + stage_note(s, y, note, bad) : 1;
	}
	if (st->strikes)
		snprintf(strikes, sizeof(strikes), ", %d of 3 strikes",
			 st->strikes);
	draw_put(y, 0,
		 st->guard == GUARD_TRIPPED ? draw_look(s, C_BAD) : A_NORMAL,
		 "Stage: %s, mode %s, guard %s%s%s; this boot: %s%s",
		 loader_name(st->loader), st->mode_word, system_guard_word(st),
		 st->probation ? " (probation)" : "", strikes,
		 st->has_report ? tsc_result_name(st->report->result)
				: "no report",
		 s->diag->directsync ? "; kernel: tsc=directsync" : "");
	return note ? 1 + stage_note(s, y, note, bad) : 1;
}

static void cores(const struct ui_state *s, int y, int rows)
{
	const struct engine_snapshot *n = s->snap;
	bool uni = draw_unicode_ok();
	char spark[160];
	unsigned i, first = (unsigned)s->scroll, shown = 0, fit;

	draw_put(y, 0, draw_look(s, C_TITLE),
		 "%-5s %12s %9s %7s %11s  %-10s %s", "CPU", "offset cyc", "ns",
		 "rtt", "warps b/a", "worst of " ENGINE_VERDICTS_S, "recent");
	if (!n || n->surveys == 0) {
		if (rows > 1)
			draw_put(y + 1, 0, A_NORMAL, "measuring...");
		return;
	}
	/* The rows under the title; the last says what is below, when
	 * something is. */
	fit = (unsigned)(rows - 1);
	if (n->ncores - first > fit && fit > 1)
		fit--;
	for (i = first; i < n->ncores && shown < fit; i++, shown++) {
		const struct engine_core *c = &n->cores[i];
		int row = y + 1 + (int)shown;

		draw_sparkline(c->hist, c->nhist, spark, sizeof(spark), uni);
		draw_put(row, 0, A_NORMAL, "%-5u %12lld %9.1f %7llu %5u/%-5u",
			 c->cpu, (long long)c->offset, c->offset_ns,
			 (unsigned long long)c->rtt, c->warps_bsp, c->warps_ap);
		draw_put(row, 50, draw_verdict_look(s, c->shown), "%-10s",
			 tsc_verdict_name(c->shown));
		draw_put(row, 61, A_NORMAL, "%s", spark);
	}
	/* Within rows: with room for one core only, the core. */
	if (first + shown < n->ncores && 1 + (int)shown < rows)
		draw_put(y + 1 + (int)shown, 0, draw_look(s, C_DIM),
			 "... %u more (Down/PgDn)", n->ncores - first - shown);
}

bool main_rate_why(const struct ui_state *s, char *buf, size_t cap)
{
	const struct engine_snapshot *n = s->snap;

	if (!n || n->rate.kept)
		return false;
	snprintf(buf, cap, "Rate: %s",
		 n->ref == REF_NONE ? n->ref_why : "waiting for ticks");
	return true;
}

/* The rate against the reference, and how it moved window by window;
 * why there is none on as many of the rows as the panels below leave
 * (spare), at least one. */
static int rate_lines(const struct ui_state *s, int y, int rows, int spare)
{
	const struct engine_snapshot *n = s->snap;
	int used = 0;

	if (rows <= 0)
		return 0;
	if (n && n->rate.kept) {
		double cum = rate_cumulative_mhz(&n->rate),
		       w = n->rate.mhz[n->rate.kept - 1];

		draw_put(y + used++, 0, A_NORMAL,
			 "Rate vs %s: %.3f MHz cumulative (%+.1f ppm), window "
			 "%+.1f ppm%s",
			 reftick_name(n->ref), cum, rate_ppm(&n->rate, cum),
			 rate_ppm(&n->rate, w),
			 n->rate.paired[n->rate.kept - 1]
				 ? " (cancels its pair)"
				 : "");
	} else if (n) {
		char why[sizeof(n->ref_why) + 16];
		int need;

		main_rate_why(s, why, sizeof(why));
		need = wrap_rows(why, COLS);
		if (need > spare)
			need = spare > 1 ? spare : 1;
		if (need > rows)
			need = rows;
		draw_wrapped_more(y, 0, need, draw_look(s, C_DIM), why,
				  DRAW_MORE_ALL);
		used += need;
	}
	if (n && n->rate.kept > 1 && used < rows) {
		int64_t ppm[RATE_WINDOWS];
		char chart[RATE_WINDOWS * 4 + 1];
		unsigned i;

		for (i = 0; i < n->rate.kept; i++)
			ppm[i] = (int64_t)rate_ppm(&n->rate, n->rate.mhz[i]);
		draw_sparkline(ppm, n->rate.kept, chart, sizeof(chart),
			       draw_unicode_ok());
		draw_put(y + used++, 2, draw_look(s, C_DIM),
			 "window ppm over time: %s", chart);
	}
	return used;
}

/* The live power source (source/power.h), in a few words. */
static void power_words(const struct sys_power *p, char *out, size_t cap)
{
	char bat[64] = "", pct[16] = "";

	if (p->capacity >= 0)
		snprintf(pct, sizeof(pct), " %d%%", p->capacity);
	if (p->have_battery)
		snprintf(bat, sizeof(bat), "%sbattery%s%s%s",
			 p->have_mains ? ", " : "",
			 p->battery_status[0] ? " " : "", p->battery_status,
			 pct);
	if (!p->have_mains && !p->have_battery)
		snprintf(out, cap, "Power: unknown (no power supply in /sys)");
	else
		snprintf(out, cap, "Power: %s%s",
			 !p->have_mains ? ""
			 : p->on_mains	? "AC"
					: "AC unplugged",
			 bat);
}

/* Where programs cannot trust the TSC, what breaks and the workaround
 * (the lines above give the reason: the clocksource, the warp, the
 * diagnosis), else why. */
void main_trust_words(const struct trust_out *t, char *out, size_t cap)
{
	snprintf(out, cap, "Programs %s the TSC: %s",
		 t->verdict == TRUST_YES  ? "can trust"
		 : t->verdict == TRUST_NO ? "cannot trust"
					  : "may not trust",
		 t->effect ? t->effect : t->why);
}

/* The rows the power and trust lines take whole: one where both fit on
 * a row, else the power source on its own and the trust sentence wrapped
 * under it. */
static int power_trust_rows(const struct ui_state *s)
{
	char power[128], trust[512];

	if (!s->trust)
		return 1;
	power_words(&s->sys->power, power, sizeof(power));
	main_trust_words(s->trust, trust, sizeof(trust));
	if ((int)(strlen(power) + 3 + strlen(trust)) <= COLS)
		return 1;
	return 1 + wrap_rows(trust, COLS - 2);
}

/* The power source, and whether programs that read the TSC themselves
 * can rely on it, in at most rows rows (the trust sentence's why is whole
 * where the screen has them: it says what breaks and the workaround);
 * how many it took. */
static int power_trust_lines(const struct ui_state *s, int y, int rows)
{
	const struct trust_out *t = s->trust;
	attr_t a = t && t->verdict == TRUST_NO ? draw_look(s, C_BAD) : A_NORMAL;
	char power[128], trust[512];

	power_words(&s->sys->power, power, sizeof(power));
	if (!t) {
		draw_put(y, 0, A_NORMAL, "%s", power);
		return 1;
	}
	main_trust_words(t, trust, sizeof(trust));
	if (power_trust_rows(s) == 1 || rows < 2) {
		draw_put(y, 0, a, "%s | %s", power, trust);
		return 1;
	}
	draw_put(y, 0, A_NORMAL, "%s", power);
	if (rows - 1 > wrap_rows(trust, COLS - 2))
		rows = 1 + wrap_rows(trust, COLS - 2);
	draw_wrapped_more(y + 1, 2, rows - 1, a, trust, DRAW_MORE_ALL);
	return rows;
}

static void lower_panels(const struct ui_state *s, int y, int rows)
{
	const struct engine_snapshot *n = s->snap;
	const struct klog *k = s->sys->have_klog ? s->sys->klog : NULL;
	int events = 0, used;
	size_t i;

	for (i = 0; k && i < k->n; i++)
		events += !(k->ev[i].kind == KLOG_SWITCH && i + 1 < k->n);
	used = rate_lines(s, y, rows,
			  rows - events - power_trust_rows(s) -
				  (n && n->cost_valid ? 1 : 0));
	if (used < rows)
		used += power_trust_lines(s, y + used, rows - used);
	if (n && n->cost_valid && used < rows)
		draw_put(y + used++, 0, A_NORMAL,
			 "Clock read: %.0f ns one thread, %.0f ns on all %u "
			 "CPUs",
			 n->cost.ns_one, n->cost.ns_all, n->cost.threads);
	/* Newest first: what is cut on a short screen is the oldest. */
	for (i = k ? k->n : 0; i-- > 0 && used < rows;) {
		const struct klog_event *e = &k->ev[i];

		if (e->kind == KLOG_SWITCH && i + 1 < k->n)
			continue; /* the last switch says where it ended */
		if (e->time >= 0)
			draw_put(y + used, 0, draw_look(s, C_DIM), "[%9.3f]",
				 e->time);
		draw_put(y + used++, 12, A_NORMAL, "%s %s%s",
			 kernlog_kind_name(e->kind),
			 e->kind == KLOG_WARP ? "" : e->text,
			 e->kind == KLOG_WARP ? "(see above)" : "");
	}
}

static const struct draw_key main_keys[] = {
	{ "?", "Help", "Help", true },
	{ "w", "Why", "Why", false },
	{ "r", "Report", "Rep", false },
	{ "y", "History", "Hist", false },
	{ "m", "Mode", "Mode", false },
	{ "g", "Guard", "Grd", false },
	{ "k", "tsc=nowatchdog", "Nowd", false },
	{ "i", "Install", "Inst", false },
	{ "u", "Uninstall", "Uninst", false },
	{ "s", "Setup", "Setup", false },
	{ "l", "All text", "All", false },
	{ "q", "Quit", "Quit", true },
};

static void draw(const struct ui_state *s)
{
	int need = wrap_rows(s->diag->summary, COLS - 2);
	int below = draw_status_rows(s) + 2; /* status, keys, the title */
	int most, sum, diag_y, free_rows, rows, want, top;

	header(s);
	clocksource_line(s, 2);
	/* Under --root the line between what was read and what is measured
	 * comes after the stage's note, and the cores one row lower. */
	top = 4 + stage_line(s, 4);
	if (other_root(s)) {
		draw_put(top, 0, draw_look(s, C_DIM),
			 "Above: read from %s. Below: measured on this "
			 "machine, live.",
			 s->root);
		top++;
	}
	if (top < 6)
		top = 6;
	/* The diagnosis' summary gets the rows it needs, as long as the
	 * cores, from top (under the stage's note and the --root line), keep
	 * their title, one row and the rate (MAIN_MIN_PANEL); then the status
	 * line and the keys.  A status message long enough to leave less
	 * takes the cores' rows, never the diagnosis' (it goes at the next
	 * key). */
	most = LINES - below - 1 - top - MAIN_MIN_PANEL;
	sum = need < most ? need : most > 1 ? most : 1;
	diag_y = LINES - below - sum;
	free_rows = diag_y - top;
	want = (s->snap && s->snap->ncores ? (int)s->snap->ncores : 1) + 1;
	rows = free_rows * 2 / 3;
	if (want < rows)
		rows = want;
	if (rows < 2)
		rows = 2;
	if (rows > free_rows)
		rows = free_rows;
	if (rows > 0)
		cores(s, top, rows);
	lower_panels(s, top + rows + 1, free_rows - rows - 1);
	draw_put(diag_y, 0, draw_look(s, C_TITLE), "Diagnosis: %s  (next: %s)",
		 diagnosis_code_name(s->diag->code),
		 s->diag->nrecs ? s->diag->recs[0] : "none");
	/* Not cut without a word: the all-text screen has it whole. */
	draw_wrapped_more(diag_y + 1, 2, sum, A_NORMAL, s->diag->summary,
			  DRAW_MORE_ALL);
	draw_keybar(s, main_keys,
		    (int)(sizeof(main_keys) / sizeof(main_keys[0])));
}

const struct screen screen_main = { "main", draw };

/* SPDX-License-Identifier: MIT */
/* The dashboard's drawing: the main screen and the other views. */
#include <langinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../common/verdict.h"
#include "../engine/reftick.h"
#include "view.h"

enum { C_TITLE = 1, C_OK, C_UNSURE, C_BAD, C_DIM, C_KEY };

void view_init_colors(struct ui_state *s)
{
	s->color = has_colors();
	if (!s->color)
		return;
	start_color();
	use_default_colors();
	init_pair(C_TITLE, COLOR_CYAN, -1);
	init_pair(C_OK, COLOR_GREEN, -1);
	init_pair(C_UNSURE, COLOR_YELLOW, -1);
	init_pair(C_BAD, COLOR_RED, -1);
	init_pair(C_DIM, COLOR_BLUE, -1);
	init_pair(C_KEY, COLOR_BLACK, COLOR_CYAN);
}

/* Monochrome: bold for good news, reverse for bad, dim for the rest. */
static attr_t look(const struct ui_state *s, int pair)
{
	if (s->color)
		return COLOR_PAIR(pair) | (pair == C_BAD ? A_BOLD : 0);
	switch (pair) {
	case C_BAD:
	case C_KEY:
		return A_REVERSE;
	case C_TITLE:
	case C_OK:
		return A_BOLD;
	default:
		return A_NORMAL;
	}
}

/* One line, cut to the screen's width. */
static void put(int y, int x, attr_t a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int w = COLS - x;

	if (y < 0 || y >= LINES || w <= 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	attron(a);
	mvaddnstr(y, x, buf, w);
	attroff(a);
}

void view_sparkline(const int64_t *v, unsigned n, char *out, size_t cap,
		    bool unicode)
{
	static const char *const blocks[] = { "\u2581", "\u2582", "\u2583",
					      "\u2584", "\u2585", "\u2586",
					      "\u2587", "\u2588" };
	static const char ascii[] = "_.-~=+*#";
	int64_t lo = 0, hi = 0;
	size_t o = 0;
	unsigned i;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!i || v[i] < lo)
			lo = v[i];
		if (!i || v[i] > hi)
			hi = v[i];
	}
	for (i = 0; i < n; i++) {
		int level = hi > lo ? (int)((v[i] - lo) * 7 / (hi - lo)) : 3;
		const char *c = unicode ? blocks[level] : (char[]){ ascii[level],
								   0 };
		size_t l = strlen(c);

		if (o + l + 1 > cap)
			break;
		memcpy(out + o, c, l);
		o += l;
		out[o] = '\0';
	}
}

static bool unicode_ok(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && strcmp(cs, "UTF-8") == 0;
}

static int verdict_pair(enum tsc_verdict v)
{
	return v == TSC_VERDICT_OK ? C_OK
	       : v == TSC_VERDICT_BAD ? C_BAD
				      : C_UNSURE;
}

static void header(const struct ui_state *s)
{
	const struct sysinfo *y = s->sys;
	double mhz = y->have_klog ? kernlog_tsc_mhz(y->klog) : 0;

	put(0, 0, look(s, C_TITLE) | A_BOLD, "tsctui  %s %s  BIOS %s",
	    y->machine.vendor[0] ? y->machine.vendor : "?", y->machine.product,
	    y->machine.bios_version[0] ? y->machine.bios_version : "?");
	put(1, 0, A_NORMAL,
	    "CPU %s family %xh, %u threads | TSC %.3f MHz | invariant %s | "
	    "TSC_ADJUST %s%s",
	    y->cpu.vendor[0] ? y->cpu.vendor : "?", y->cpu.family,
	    y->cpu.threads, mhz, y->cpu.invariant_tsc ? "yes" : "no",
	    y->cpu.tsc_adjust ? "yes" : "no",
	    y->cpu.hypervisor ? " | virtual machine" : "");
}

static void clocksource_line(const struct ui_state *s, int y)
{
	const struct sysinfo *sys = s->sys;
	char avail[128] = "";
	int i;

	for (i = 0; i < sys->cs.navailable; i++) {
		strncat(avail, i ? " " : "", sizeof(avail) - strlen(avail) - 1);
		strncat(avail, sys->cs.available[i],
			sizeof(avail) - strlen(avail) - 1);
	}
	put(y, 0, strcmp(sys->cs.current, "tsc") ? look(s, C_BAD)
						 : look(s, C_OK),
	    "Clocksource %s (%s)", sys->cs.current[0] ? sys->cs.current : "?",
	    avail);
	put(y + 1, 2, A_NORMAL, "%s", s->diag->kernel_verdict[0]
					       ? s->diag->kernel_verdict
					       : "kernel log unavailable");
}

static void stage_line(const struct ui_state *s, int y)
{
	const struct sys_stage *st = &s->sys->stage;
	char strikes[32] = "";

	if (!st->installed) {
		put(y, 0, A_NORMAL, "Stage: not installed");
		return;
	}
	if (st->strikes)
		snprintf(strikes, sizeof(strikes), ", %d of 3 strikes",
			 st->strikes);
	put(y, 0, !strcmp(st->guard, "tripped") ? look(s, C_BAD) : A_NORMAL,
	    "Stage: %s, mode %s, guard %s%s%s; this boot: %s", st->loader,
	    st->mode, st->guard, st->probation ? " (probation)" : "",
	    strikes,
	    st->has_report ? tsc_result_name(st->report->result)
			   : "no report");
}

static void cores(const struct ui_state *s, int y, int rows)
{
	const struct engine_snapshot *n = s->snap;
	bool uni = unicode_ok();
	char spark[160];
	unsigned i, first = (unsigned)s->scroll, shown = 0;

	put(y, 0, look(s, C_TITLE), "%-5s %12s %9s %7s %11s  %-10s %s", "CPU",
	    "offset cyc", "ns", "rtt", "warps b/a", "verdict", "recent");
	if (!n || n->surveys == 0) {
		put(y + 1, 0, A_NORMAL, "measuring...");
		return;
	}
	for (i = first; i < n->ncores && (int)shown < rows - 1; i++, shown++) {
		const struct engine_core *c = &n->cores[i];

		view_sparkline(c->hist, c->nhist, spark, sizeof(spark), uni);
		put(y + 1 + (int)shown, 0, A_NORMAL,
		    "%-5u %12lld %9.1f %7llu %5u/%-5u", c->cpu,
		    (long long)c->offset, c->offset_ns,
		    (unsigned long long)c->rtt, c->warps_bsp, c->warps_ap);
		put(y + 1 + (int)shown, 50, look(s, verdict_pair(c->verdict)),
		    "%-10s", tsc_verdict_name(c->verdict));
		put(y + 1 + (int)shown, 61, A_NORMAL, "%s", spark);
	}
	if (first + shown < n->ncores)
		put(y + rows - 1, 0, look(s, C_DIM), "... %u more (Down/PgDn)",
		    n->ncores - first - shown);
}

static void lower_panels(const struct ui_state *s, int y, int rows)
{
	const struct engine_snapshot *n = s->snap;
	const struct klog *k = s->sys->have_klog ? s->sys->klog : NULL;
	int used = 0;
	size_t i;

	if (n && n->rate.kept) {
		double cum = rate_cumulative_mhz(&n->rate),
		       w = n->rate.mhz[n->rate.kept - 1];

		put(y + used++, 0, A_NORMAL,
		    "Rate vs %s: %.3f MHz cumulative (%+.1f ppm), window %+.1f "
		    "ppm%s", reftick_name(n->ref), cum,
		    rate_ppm(&n->rate, cum), rate_ppm(&n->rate, w),
		    n->rate.paired[n->rate.kept - 1] ? " (cancels its pair)"
						     : "");
	} else if (n) {
		put(y + used++, 0, look(s, C_DIM), "Rate: %s",
		    n->ref == REF_NONE ? n->ref_why : "waiting for ticks");
	}
	if (n && n->rate.kept > 1 && used < rows) {
		int64_t ppm[RATE_WINDOWS];
		char chart[RATE_WINDOWS * 4 + 1];
		unsigned i2;

		for (i2 = 0; i2 < n->rate.kept; i2++)
			ppm[i2] = (int64_t)rate_ppm(&n->rate, n->rate.mhz[i2]);
		view_sparkline(ppm, n->rate.kept, chart, sizeof(chart),
			       unicode_ok());
		put(y + used++, 2, look(s, C_DIM), "window ppm over time: %s",
		    chart);
	}
	if (n && n->cost_valid)
		put(y + used++, 0, A_NORMAL,
		    "Clock read: %.0f ns one thread, %.0f ns on all %u CPUs",
		    n->cost.ns_one, n->cost.ns_all, n->cost.threads);
	for (i = 0; k && i < k->n && used < rows; i++) {
		const struct klog_event *e = &k->ev[i];

		if (e->kind == KLOG_SWITCH && i + 1 < k->n)
			continue; /* the last switch says where it ended */
		if (e->time >= 0)
			put(y + used, 0, look(s, C_DIM), "[%9.3f]", e->time);
		put(y + used++, 12, A_NORMAL, "%s %s%s",
		    kernlog_kind_name(e->kind),
		    e->kind == KLOG_WARP ? "" : e->text,
		    e->kind == KLOG_WARP ? "(see above)" : "");
	}
}

static void keybar(const struct ui_state *s)
{
	/* Short labels where the screen is narrow: all keys stay visible. */
	put(LINES - 1, 0, look(s, C_KEY), "%-*s", COLS,
	    COLS >= 100 ? " h Help  w Why  r Report  y History  m Mode  "
			  "g Guard  k tsc=nowatchdog  i Install  u Uninstall  "
			  "s Setup  q Quit"
			: " h Help w Why r Rep y Hist m Mode g Grd k Nowd "
			  "i Inst u Uninst s Setup q");
}

/* Text wrapped at word boundaries into at most n lines from y. */
static void wrapped(int y, int x, int n, attr_t a, const char *text)
{
	int w = COLS - x, i;
	const char *p = text;

	for (i = 0; i < n && *p && w > 10; i++) {
		int len = (int)strlen(p), cut = len;

		if (len > w) {
			cut = w;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = w;
		}
		put(y + i, x, a, "%.*s", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

static void statusline(const struct ui_state *s)
{
	if (s->status[0])
		put(LINES - 2, 0, s->status_error ? look(s, C_BAD)
						  : look(s, C_OK),
		    "%s", s->status);
}

/*
 * Rows: 0-1 header, 2-3 clocksource and the kernel's verdict, 4 stage,
 * 6.. cores (as many as there are, up to two thirds of what is left), then
 * rate, cost and events, then the diagnosis (3 lines), status and keys.
 */
static void main_screen(const struct ui_state *s)
{
	int free_rows = LINES - 6 - 6, rows, want;

	header(s);
	clocksource_line(s, 2);
	stage_line(s, 4);
	want = (s->snap && s->snap->ncores ? (int)s->snap->ncores : 1) + 1;
	rows = free_rows * 2 / 3;
	if (want < rows)
		rows = want;
	if (rows < 2)
		rows = 2;
	cores(s, 6, rows);
	lower_panels(s, 6 + rows + 1, free_rows - rows - 1);
	put(LINES - 6, 0, look(s, C_TITLE), "Diagnosis: %s  (next: %s)",
	    s->diag->code, s->diag->nrecs ? s->diag->recs[0] : "none");
	wrapped(LINES - 5, 2, 3, A_NORMAL, s->diag->summary);
}

static void wrapped(int y, int x, int n, attr_t a, const char *text);

/* A title and lines, each wrapped to the screen's width. */
static void lines_view(const struct ui_state *s, const char *title,
		       const char lines[][UI_LINE], int n, const char *foot)
{
	int i, y = 2, w = COLS > 20 ? COLS : 20;

	put(0, 0, look(s, C_TITLE) | A_BOLD, "%s", title);
	for (i = 0; i < n && y < LINES - 2; i++) {
		int need = (int)strlen(lines[i]) / w + 1;

		wrapped(y, 0, need, A_NORMAL, lines[i]);
		y += need;
	}
	put(LINES - 1, 0, look(s, C_KEY), "%-*s", COLS, foot);
}

/* Why a core has its verdict, in words. */
static void why_line(const struct engine_core *c, char *out, size_t cap)
{
	if (!c->measured)
		snprintf(out, cap, "CPU %u: unmeasured: it did not answer", c->cpu);
	else if (c->warps_bsp || c->warps_ap)
		snprintf(out, cap, "CPU %u: bad: time went backwards %u times "
			 "(%s), by up to %llu cycles", c->cpu,
			 c->warps_bsp + c->warps_ap,
			 c->warps_bsp ? "CPU 0 read less than it: it is ahead"
				      : "it read less than CPU 0: it is behind",
			 (unsigned long long)c->max_warp);
	else if (c->verdict == TSC_VERDICT_BAD)
		snprintf(out, cap, "CPU %u: bad: %lld cycles is beyond the "
			 "%d-cycle limit plus the estimate's error (%llu, half "
			 "the round trip)", c->cpu, (long long)c->offset,
			 TSC_OK_LIMIT, (unsigned long long)(c->rtt / 2));
	else if (c->verdict == TSC_VERDICT_UNSURE)
		snprintf(out, cap, "CPU %u: unsure: %lld cycles is beyond %d, "
			 "but within the estimate's error of %llu cycles; the "
			 "kernel's own check decides", c->cpu,
			 (long long)c->offset, TSC_OK_LIMIT,
			 (unsigned long long)(c->rtt / 2));
	else
		snprintf(out, cap, "CPU %u: ok: %lld cycles, within %d, no "
			 "warp", c->cpu, (long long)c->offset, TSC_OK_LIMIT);
}

static void why_view(const struct ui_state *s)
{
	char line[UI_LINE];
	unsigned i;
	int y = 2;

	put(0, 0, look(s, C_TITLE) | A_BOLD, "Why each verdict");
	for (i = 0; s->snap && i < s->snap->ncores && y < LINES - 2; i++) {
		if (s->snap->cores[i].verdict == TSC_VERDICT_OK)
			continue;
		why_line(&s->snap->cores[i], line, sizeof(line));
		wrapped(y, 0, 2, look(s, verdict_pair(s->snap->cores[i].verdict)),
			line);
		y += (int)strlen(line) / (COLS > 20 ? COLS : 20) + 1;
	}
	if (y == 2)
		put(y, 0, A_NORMAL, "Every core is ok.");
	put(LINES - 1, 0, look(s, C_KEY), "%-*s", COLS, " Esc Back");
}

static const char help_text[][UI_LINE] = {
	"Clocksource: what the kernel reads the time from, and why. On tsc a",
	"read costs ~25 ns; on hpet ~1.5 us, and KVM guests lose their fast clock.",
	"Stage: the UEFI program that runs before Linux. measure only looks;",
	"sync moves lagging counters forward. The hang guard disables it after",
	"a boot hung in it, or after 3 sync boots Linux never confirmed.",
	"Cores: each CPU's TSC offset against CPU 0 (cycles and ns), the",
	"fastest round trip (an estimate can be off by half of it), warps seen",
	"each way, and a verdict: ok, unsure (within the estimate's error), bad.",
	"Rate: the TSC against the RTC; late ticks cancel in pairs, drift does not.",
	"Diagnosis: the next step. tsctui never offers tsc=reliable: it skips the",
	"boot-time warp test and hides a real offset, so the clock can jump back",
	"when a task moves between cores. tsc=nowatchdog only stops the watchdog.",
};

static void report_view(const struct ui_state *s)
{
	const struct tsc_report *r = s->sys->stage.has_report
					     ? s->sys->stage.report
					     : NULL;
	char why[192];
	uint32_t i;
	int y = 2;

	put(0, 0, look(s, C_TITLE) | A_BOLD, "Stage report of this boot");
	if (!r) {
		put(y, 0, A_NORMAL, "No report this boot: the stage did not run "
				    "(not installed, off, or skipped).");
	} else {
		put(y++, 0, A_NORMAL, "%s build, mode %s: %s%s%s",
		    tsc_build_name(r->build), tsc_mode_name(r->mode),
		    tsc_result_name(r->result), r->reason[0] ? " - " : "",
		    r->reason);
		put(y++, 0, A_NORMAL,
		    "phases: survey %.1f, bsp %.1f, ap pass %.1f, verify %.1f "
		    "ms; BSP moved %lld cycles; %u writes",
		    r->phase_us[0] / 1e3, r->phase_us[1] / 1e3,
		    r->phase_us[2] / 1e3, r->phase_us[3] / 1e3,
		    (long long)r->bsp_shift, r->msr_writes);
		/* CPU: Linux's number (the kernel log's, the cores panel's);
		 * #: the stage's own, in MP services order. */
		if (!cpu_map_covers(&s->sys->cpumap, r, why, sizeof(why)))
			put(y++, 0, A_NORMAL, "Linux CPU numbers not known (%s)",
			    why);
		put(y++, 0, look(s, C_TITLE),
		    "%-5s %4s %5s %14s %10s %7s %11s  %s", "CPU", "#", "APIC",
		    "survey", "final", "rtt", "warps b/a", "verdict");
		for (i = 0; i < r->nap && y < LINES - 4; i++, y++) {
			const struct tsc_report_cpu *c = &r->ap[i];
			int cpu = cpu_map_report_linux(&s->sys->cpumap, r,
						       c->index);
			char n[16] = "?";

			if (cpu >= 0)
				snprintf(n, sizeof(n), "%d", cpu);
			put(y, 0, A_NORMAL,
			    "%-5s %4u %5u %14lld %10lld %7llu %5u/%-5u", n,
			    c->index, c->apic_id, (long long)c->survey_offset,
			    (long long)c->final_offset,
			    (unsigned long long)c->rtt, c->warps_bsp,
			    c->warps_ap);
			put(y, 64, look(s, verdict_pair(c->verdict)), "%s",
			    tsc_verdict_name(c->verdict));
		}
		if (r->omitted && y < LINES - 4)
			put(y++, 0, A_NORMAL,
			    "+%u APs, none worse, left out to fit the "
			    "firmware's variable size (the console has all)",
			    r->omitted);
	}
	put(LINES - 3, 0, look(s, C_TITLE), "The kernel's word for this boot:");
	put(LINES - 2, 2, A_NORMAL, "%s", s->diag->kernel_verdict[0]
						  ? s->diag->kernel_verdict
						  : "unknown (no kernel log)");
	put(LINES - 1, 0, look(s, C_KEY), "%-*s", COLS, " Esc Back");
}

static void menu_view(const struct ui_state *s)
{
	int i;

	put(0, 0, look(s, C_TITLE) | A_BOLD, "%s", s->menu_title);
	for (i = 0; i < s->nmenu; i++)
		put(2 + i, 2, i == s->menu_sel ? A_REVERSE : A_NORMAL, " %d %s ",
		    i + 1, s->menu[i]);
	put(LINES - 1, 0, look(s, C_KEY), "%-*s", COLS,
	    " Up/Down choose  Enter select  Esc Back");
}

void view_draw(const struct ui_state *s)
{
	erase();
	switch (s->view) {
	case V_MAIN:
		main_screen(s);
		statusline(s);
		keybar(s);
		break;
	case V_HELP:
		lines_view(s, "Help", help_text,
			   (int)(sizeof(help_text) / sizeof(help_text[0])),
			   " Esc Back");
		break;
	case V_REPORT:
		report_view(s);
		break;
	case V_HISTORY:
		lines_view(s, "History: one row per boot", s->history,
			   s->nhistory, " Esc Back");
		if (s->nwarps > 1) {
			char plot[UI_MAX_LINES * 4 + 1];

			view_sparkline(s->warps, (unsigned)s->nwarps, plot,
				       sizeof(plot), unicode_ok());
			put(LINES - 2, 0, look(s, C_TITLE),
			    "warp size per boot: %s", plot);
		}
		break;
	case V_WHY:
		why_view(s);
		break;
	case V_MENU:
		menu_view(s);
		break;
	case V_CONFIRM:
		lines_view(s, s->confirm_title, s->confirm, s->nconfirm,
			   " y Yes, do it   any other key: No");
		break;
	case V_RECOVERY:
		lines_view(s, "Recovery: the hang guard disabled the stage",
			   s->confirm, s->nconfirm,
			   " 1 Stay off  2 Back to measure  3 Retry sync  "
			   "Esc Later");
		break;
	case V_SETUP:
		lines_view(s, "Guided setup", s->setup, s->nsetup,
			   s->setup_action[0] ? " Enter Do it   Esc Back"
					      : " Esc Back");
		break;
	}
	statusline(s);
	refresh();
}

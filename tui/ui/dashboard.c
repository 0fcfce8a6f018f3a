/* SPDX-License-Identifier: MIT */
/*
 * `sudo tsctui`: the dashboard's loop.  It owns the input and hands each
 * key to its screen's bindings (keys.c), refreshes the picture from the
 * system (never from what it assumed an action did) and derives the model
 * from it (the diagnosis, the guided setup's step), runs the engine on its
 * own thread (keys are answered within 100 ms while a survey runs), counts
 * the five-minute check, and draws (tui/view/) when something changed.
 * The kernel log is read on a thread too (klog_loader.c): the first screen
 * says "reading the kernel log" until it lands, then the model is derived
 * again and the engine starts (it takes the kernel's TSC rate).
 */
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../app.h"
#include "../view/draw.h"
#include "dashboard.h"
#include "hint.h"

/* Re-read the system this often, and after every action. */
#define REFRESH_S 5

void dashboard_status(struct dash *d, bool error, const char *msg)
{
	size_t i, o = 0;

	for (i = 0; msg[i] && o + 3 < sizeof(d->ui.status); i++) {
		if (msg[i] == '\n') {
			d->ui.status[o++] = ';';
			d->ui.status[o++] = ' ';
		} else {
			d->ui.status[o++] = msg[i];
		}
	}
	d->ui.status[o] = '\0';
	d->ui.status_error = error;
	memcpy(d->ui.last_status, d->ui.status, o + 1);
	d->status_gen++;
}

static void load_history(struct dash *d)
{
	const struct hist_row *rows = d->sys.history;
	int n = d->sys.nhistory, i;
	struct ui_state *u = &d->ui;

	u->nhistory = 0;
	u->nwarps = 0;
	history_header(u->history[u->nhistory++], UI_LINE);
	/* The most recent boots that fit. */
	for (i = n > UI_MAX_LINES - 4 ? n - (UI_MAX_LINES - 4) : 0; i < n;
	     i++) {
		u->warps[u->nwarps++] = rows[i].warp;
		history_row_text(&rows[i], u->history[u->nhistory++], UI_LINE);
	}
	if (d->sys.history_error[0])
		draw_addl(u->history, &u->nhistory, "%s", d->sys.history_error);
	else if (n == 0)
		draw_addl(u->history, &u->nhistory,
			  "no boots recorded yet (tsctui-boot.service records "
			  "one "
			  "per boot once the stage is installed)");
}

/* The newest kernel log the loader has into sys (pending while it has
 * none yet). */
static void attach_klog(struct dash *d)
{
	bool have = false;

	d->klog_gen = klog_loader_result(d->klog, d->sys.klog, &d->sys.powerlog,
					 &have);
	d->sys.have_klog = have;
	d->sys.klog_pending = d->klog_gen == 0;
}

/* Does the dashboard show the machine its engine measures (no --root, no
 * --kernel-log)? */
static bool shows_this_machine(const struct dash *d)
{
	return !d->kernel_log && !strcmp(d->root, "/");
}

/* Can programs trust the TSC, with the live cores where they are this
 * machine's (model/assess.h decides). */
static void derive_trust(struct dash *d)
{
	assess_live_trust(&d->as, &d->sys, d->engine ? &d->snap : NULL,
			  shows_this_machine(d), &d->trust);
}

/*
 * What follows from the system as read and the engine's measurements: the
 * diagnosis, the setup step (model/assess.h).  The engine's rate against
 * the RTC counts for the watchdog advice only when the dashboard shows the
 * machine the engine runs on.
 */
static void derive(struct dash *d)
{
	char said[sizeof(d->as.diag.summary)];
	struct assess_live live = { 0 };

	if (d->engine && shows_this_machine(d))
		assess_rate_from_engine(&d->snap, &live.rate);
	live.checking = setup_check_started(&d->check);
	assess_make(&d->sys, &live, &d->as);
	/* The model's summary in the dashboard's words, once. */
	hint_diagnosis(&d->as.diag, said, sizeof(said));
	snprintf(d->as.diag.summary, sizeof(d->as.diag.summary), "%s", said);
	d->as.diag.advice = DIAG_ADVICE_NONE;
	d->ui.setup = d->as.setup;
	d->ui.nowatchdog = d->as.nowatchdog;
	d->ui.struck_out = d->as.struck_out;
	derive_trust(d);
}

void dashboard_refresh(struct dash *d)
{
	system_free(&d->sys);
	if (d->klog) {
		/* The log as last read; a new read lands in take_klog. */
		system_read_parts(d->root, NULL, SYS_HISTORY | SYS_BOOT,
				  &d->sys);
		klog_loader_reload(d->klog);
		if (d->sys.klog)
			attach_klog(d);
	} else {
		system_read_parts(d->root, d->kernel_log,
				  SYS_KLOG | SYS_HISTORY | SYS_BOOT, &d->sys);
	}
	load_history(d);
	derive(d);
	d->refreshed = time(NULL);
}

void dashboard_setup_step(struct dash *d)
{
	derive(d);
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* A new engine snapshot: counted by the five-minute check; drawn when a
 * survey started or ended. */
static unsigned take_snapshot(struct dash *d)
{
	unsigned surveys = d->snap.surveys;
	bool busy = d->snap.busy;

	if (!d->engine)
		return UI_NOTHING;
	engine_snapshot(d->engine, &d->snap);
	setup_check_count(&d->check, &d->snap, d->ui.now);
	return d->snap.surveys != surveys || d->snap.busy != busy ? UI_REDRAW
								  : UI_NOTHING;
}

static void start_engine(struct dash *d)
{
	struct engine_config ec = { 0 };

	ec.simulate = d->simulate;
	ec.interval_s = 2;
	ec.kernel_mhz = d->sys.have_klog ? kernlog_tsc_mhz(d->sys.klog) : 0;
	ec.clocksource = system_live_clocksource(d->root, &d->sys);
	ec.extra_ms = d->engine_extra_ms;
	d->engine = engine_start(&ec);
}

/* A kernel log read since the last look: derived again, drawn.  The
 * engine starts once the log is in (or there is none to wait for). */
static unsigned take_klog(struct dash *d)
{
	unsigned react = UI_NOTHING;

	if (d->klog && d->sys.klog &&
	    klog_loader_generation(d->klog) != d->klog_gen) {
		attach_klog(d);
		derive(d);
		react = UI_REDRAW;
	}
	if (!d->engine_started && !d->sys.klog_pending) {
		start_engine(d);
		d->engine_started = true;
	}
	return react;
}

static void loop(struct dash *d)
{
	unsigned react = UI_REDRAW;
	time_t drawn = 0;
	int ch;

	while (!interrupted && !(react & UI_QUIT)) {
		d->ui.now = time(NULL);
		react |= take_klog(d);
		react |= take_snapshot(d);
		if (d->ui.now - d->refreshed >= REFRESH_S &&
		    d->ui.view == V_MAIN) {
			dashboard_refresh(d);
			react |= UI_REDRAW;
		}
		/* Once a second whatever happened: the rate, the clock
		 * read's cost and the check's countdown move by themselves. */
		if (react & UI_REDRAW || d->ui.now != drawn) {
			d->scroll_max = view_draw(&d->ui);
			drawn = d->ui.now;
		}
		ch = getch();
		if (ch == ERR)
			react = UI_NOTHING;
		else if (ch == KEY_RESIZE)
			react = UI_REDRAW;
		else
			react = keys_react(d, ch);
	}
}

/* Whether the terminal has cursor addressing (terminfo's cup). */
static bool dashboard_addressable(SCREEN *scr)
{
	SCREEN *was = set_term(scr);
	const char *cup = tigetstr("cup");

	set_term(was);
	return cup && cup != (char *)-1 && cup[0];
}

int dashboard_run(const struct globals *g)
{
	struct dash *d = calloc(1, sizeof(*d));
	const char *slow = getenv("TSCTUI_ENGINE_EXTRA_MS"),
		   *slow_log = getenv("TSCTUI_KLOG_EXTRA_MS"), *term;
	SCREEN *scr;

	if (!d)
		return app_fail("out of memory");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		free(d);
		return app_fail("the dashboard needs a terminal; for scripts "
				"use tsctui status (see tsctui --help)");
	}
	/* ncurses' initscr() prints its own message and exits 1 on a
	 * terminal type it does not know; newterm() returns NULL. */
	setlocale(LC_ALL, "");
	term = getenv("TERM");
	scr = term && term[0] ? newterm(NULL, stdout, stdin) : NULL;
	if (!scr) {
		free(d);
		return app_fail("the terminal type TERM=%s is not known to "
				"this system's terminfo; run with a known one, "
				"e.g. TERM=xterm-256color or TERM=linux",
				term && term[0] ? term : "(unset)");
	}
	/* A terminal that cannot move the cursor (TERM=dumb) would get the
	 * key bar alone: refused, as an unknown one is. */
	if (!dashboard_addressable(scr)) {
		delscreen(scr);
		free(d);
		return app_fail("the terminal type TERM=%s cannot move the "
				"cursor, which the dashboard needs; run with "
				"one that can, e.g. TERM=xterm-256color or "
				"TERM=linux, or use tsctui status",
				term);
	}
	d->root = g->root;
	d->kernel_log = g->kernel_log;
	d->simulate = g->simulate;
	/* Tests make surveys slow on purpose, to show keys still answer. */
	d->engine_extra_ms = slow ? (unsigned)atoi(slow) : 0;
	/* Without a thread for it, the log is read in place, as status does.
	 * The engine starts in the loop, when the log is in (take_klog). */
	d->klog = klog_loader_start(d->root, d->kernel_log,
				    slow_log ? (unsigned)atoi(slow_log) : 0);
	dashboard_refresh(d);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	set_term(scr);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	/* Keys are answered within 100 ms, whatever the engine is doing. */
	timeout(100);
	view_init_colors(&d->ui);
	d->ui.sys = &d->sys;
	d->ui.diag = &d->as.diag;
	d->ui.snap = &d->snap;
	d->ui.trust = &d->trust;
	d->ui.check = &d->check;
	d->ui.root = d->root;
	d->ui.not_root = geteuid() != 0 && shows_this_machine(d);
	if (d->sys.stage.guard == GUARD_TRIPPED)
		d->ui.view = V_RECOVERY;
	loop(d);
	endwin();
	delscreen(scr);
	klog_loader_stop(d->klog);
	engine_stop(d->engine);
	system_free(&d->sys);
	free(d);
	return EXIT_OK;
}

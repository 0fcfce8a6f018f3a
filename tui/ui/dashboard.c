/* SPDX-License-Identifier: MIT */
/*
 * `sudo tsctui`: the dashboard's loop.  It owns the input, refreshes the
 * picture from the system (never from what it assumed an action did), runs
 * the engine on its own thread (keys are answered within 100 ms while a
 * survey runs), and runs the same actions as the CLI, each after showing
 * exactly what will change and asking once.
 */
#include <locale.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../app.h"
#include "../action/actions.h"
#include "../source/config.h"
#include "../source/detect.h"
#include "../source/stage_state.h"
#include "../source/history.h"
#include "../util/fileio.h"
#include "../util/path.h"
#include "../engine/reftick.h"
#include "../view/view.h"

/* Re-read the system this often, and after every action. */
#define REFRESH_S 5

enum pending {
	P_NONE,
	P_MODE,
	P_GUARD,
	P_KARG,
	P_INSTALL,
	P_UNINSTALL,
};

struct dash {
	const struct globals *g;
	struct sysinfo sys;
	struct diagnosis diag;
	struct engine_snapshot snap;
	struct engine *engine;
	struct ui_state ui;
	struct tsctui_conf conf;
	bool installed;
	enum pending pending, menu_for;
	char arg[32];
	time_t refreshed;
	/* The guided setup's five-minute check: warps summed over every
	 * survey since it started, and the rate at its start. */
	time_t check_until;
	unsigned check_from_survey, check_surveys;
	unsigned long check_warps;
};

/* Five minutes of surveys: what the field report ran to trust a fix. */
#define CHECK_S 300

static void addl(char lines[][UI_LINE], int *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void addl(char lines[][UI_LINE], int *n, const char *fmt, ...)
{
	va_list ap;

	if (*n >= UI_MAX_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(lines[(*n)++], UI_LINE, fmt, ap);
	va_end(ap);
}

/* The status line: every line of the action's message, joined. */
static void status(struct dash *d, bool error, const char *msg)
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
}

static void load_history(struct dash *d)
{
	struct hist_row *rows = calloc(HISTORY_MAX, sizeof(*rows));
	int n = rows ? history_rows(d->g->root, rows, HISTORY_MAX) : 0, i;
	struct ui_state *u = &d->ui;

	u->nhistory = 0;
	u->nwarps = 0;
	history_header(u->history[u->nhistory++], UI_LINE);
	/* The most recent boots that fit. */
	for (i = n > UI_MAX_LINES - 4 ? n - (UI_MAX_LINES - 4) : 0; i < n; i++) {
		u->warps[u->nwarps++] = rows[i].warp;
		history_row_text(&rows[i], u->history[u->nhistory++], UI_LINE);
	}
	if (n == 0)
		addl(u->history, &u->nhistory,
		     "no boots recorded yet (tsctui-boot.service records one "
		     "per boot once the stage is installed)");
	free(rows);
}

static void refresh_system(struct dash *d)
{
	char bios[128] = "";
	const char *why;

	system_free(&d->sys);
	system_read(d->g->root, d->g->kernel_log, &d->sys);
	history_last_sync_bios(d->g->root, bios, sizeof(bios));
	diagnosis_make(&d->sys, bios, &d->diag);
	d->installed = config_read(d->g->root, &d->conf, &why) > 0;
	d->ui.nowatchdog = d->sys.cmdline.nowatchdog;
	load_history(d);
	d->refreshed = time(NULL);
}

/* ---- what an action will change, said before it runs ---- */

static void describe(struct dash *d, enum pending p, const char *arg)
{
	struct ui_state *u = &d->ui;
	char esp_file[512];
	bool grub = d->installed && !strcmp(d->conf.loader, "grub");

	u->nconfirm = 0;
	d->pending = p;
	snprintf(d->arg, sizeof(d->arg), "%s", arg);
	stage_state_esp_file(&d->conf, "options", esp_file, sizeof(esp_file));
	switch (p) {
	case P_MODE:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Switch the stage to %s mode from the next boot?", arg);
		if (grub)
			addl(u->confirm, &u->nconfirm, "%s: tsctui_mode=%s",
			     d->conf.grubenv, arg);
		else
			addl(u->confirm, &u->nconfirm, "%s: mode=%s", esp_file,
			     arg);
		if (!strcmp(arg, "sync"))
			addl(u->confirm, &u->nconfirm,
			     "The stage will write the TSC of lagging cores. If "
			     "a boot never reaches Linux, the hang guard disables "
			     "it on the next boot.");
		break;
	case P_GUARD:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Reset the hang guard, with the stage in %s mode?",
			 arg);
		if (grub)
			addl(u->confirm, &u->nconfirm,
			     "%s: tsctui_pending=0 tsctui_tripped=0 "
			     "tsctui_mode=%s tsctui_options= (and synced, "
			     "probation, strikes to 0 where set)",
			     d->conf.grubenv, arg);
		else
			addl(u->confirm, &u->nconfirm,
			     "remove %s/EFI/tsctui/pending, disabled, synced, "
			     "probation, strikes, hibernated; %s: mode=%s",
			     d->conf.esp, esp_file, arg);
		break;
	case P_KARG: {
		struct act a;
		struct tsctui_conf c;
		enum karg_method m;
		const char *why = NULL;
		bool on = !strcmp(arg, "on");

		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Turn tsc=nowatchdog %s for the next boot?", arg);
		/* The action's own decision, so the list says what it does. */
		act_init(&a, d->g->root, "kernel-arg");
		if (kernel_arg_method(&a, &c, &m, &why) != 0)
			addl(u->confirm, &u->nconfirm, "(this will fail: %s)",
			     why);
		else if (m == KARG_GRUBBY)
			addl(u->confirm, &u->nconfirm, "grubby "
			     "--update-kernel=ALL %s tsc=nowatchdog",
			     on ? "--args" : "--remove-args");
		else if (m == KARG_GRUB_DROPIN)
			addl(u->confirm, &u->nconfirm, "%s "
			     "/etc/default/grub.d/tsctui-nowatchdog.cfg, then "
			     "regenerate grub.cfg (update-grub)",
			     on ? "create" : "remove");
		else
			addl(u->confirm, &u->nconfirm,
			     "%sthe options line of every boot entry under "
			     "%s/loader/entries (and /boot/loader/entries): %s "
			     "tsc=nowatchdog",
			     strcmp(c.loader, "systemd-boot")
				     ? ""
				     : "/etc/kernel/cmdline and ",
			     c.esp, on ? "add" : "remove");
		act_free(&a);
		addl(u->confirm, &u->nconfirm, "/etc/tsctui/nowatchdog: %s "
		     "(for the kernel-install plugin)", arg);
		addl(u->confirm, &u->nconfirm, "The boot-time warp test still "
		     "runs; only the clocksource watchdog is off.");
		break;
	}
	case P_INSTALL: {
		char esp[256] = "";
		const char *why = NULL;

		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Install the stage for %s, in measure mode?", arg);
		if (!detect_esp(d->g->root, esp, sizeof(esp), &why))
			addl(u->confirm, &u->nconfirm, "ESP: not found (%s)",
			     why);
		else
			addl(u->confirm, &u->nconfirm, "ESP: %s (detected)",
			     esp);
		addl(u->confirm, &u->nconfirm, "create /etc/tsctui/tsctui.conf");
		if (!strcmp(arg, "grub")) {
			addl(u->confirm, &u->nconfirm,
			     "create %s/EFI/tsctui/tsctui.efi", esp);
			addl(u->confirm, &u->nconfirm, "grubenv: add "
			     "tsctui_mode=measure, tsctui_options, "
			     "tsctui_pending=0, tsctui_tripped=0");
			addl(u->confirm, &u->nconfirm, "regenerate grub.cfg "
			     "(update-grub) so /etc/grub.d/05_tsctui runs");
		} else if (!strcmp(arg, "efi-entry")) {
			addl(u->confirm, &u->nconfirm,
			     "create %s/EFI/tsctui/tsctui.efi and options "
			     "(mode=measure)", esp);
			addl(u->confirm, &u->nconfirm, "NVRAM: a new Boot#### "
			     "\"tsctui\", first in BootOrder, starting the "
			     "entry that was first (unless it cannot start a "
			     "loader from a disk)");
			addl(u->confirm, &u->nconfirm, "record the BootOrder from "
			     "before on the ESP and in /var/lib/tsctui");
		} else {
			addl(u->confirm, &u->nconfirm,
			     "create %s/EFI/tsctui/options (mode=measure)", esp);
			addl(u->confirm, &u->nconfirm,
			     "create %s/EFI/systemd/drivers/tsctuix64.efi", esp);
		}
		addl(u->confirm, &u->nconfirm, "enable tsctui-boot.service "
		     "(multi-user.target and system-update.target)");
		addl(u->confirm, &u->nconfirm, "every changed file is backed up "
		     "once under /var/lib/tsctui/backup/");
		break;
	}
	case P_UNINSTALL: {
		struct act a;
		size_t i;

		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Uninstall tsctui and restore every file it changed?");
		act_init(&a, d->g->root, "read");
		if (act_ledger_load(&a) == 0)
			for (i = a.nledger; i-- > 0;)
				addl(u->confirm, &u->nconfirm, "%s %s",
				     a.ledger[i].kind == L_BACKUP ? "restore"
								   : "remove",
				     a.ledger[i].path);
		act_free(&a);
		addl(u->confirm, &u->nconfirm, "the boot history is kept");
		break;
	}
	case P_NONE:
		break;
	}
	u->back = u->view == V_CONFIRM ? V_MAIN : u->view;
	u->view = V_CONFIRM;
}

static bool needs_root(struct dash *d)
{
	if (geteuid() == 0 || strcmp(d->g->root, "/") != 0)
		return false;
	status(d, true, "this needs root: run sudo tsctui");
	return true;
}

static void run_pending(struct dash *d)
{
	struct install_opts io = { 0 };
	struct act a;
	int rc = -1;

	act_init(&a, d->g->root, "dashboard");
	switch (d->pending) {
	case P_MODE:
		rc = mode_set(&a, d->arg, false);
		break;
	case P_GUARD:
		rc = guard_reset(&a, d->arg);
		break;
	case P_KARG:
		rc = kernel_arg_set(&a, "nowatchdog", d->arg);
		break;
	case P_INSTALL:
		io.loader = d->arg;
		rc = install_run(&a, &io);
		break;
	case P_UNINSTALL:
		rc = uninstall_run(&a, false);
		break;
	case P_NONE:
		break;
	}
	status(d, rc != 0, rc ? a.error : a.message);
	act_free(&a);
	d->pending = P_NONE;
	/* The screen shows the system as it now is, not as assumed. */
	refresh_system(d);
}

/* ---- menus ---- */

static void menu(struct dash *d, enum pending kind, const char *title,
		 const char *const *items, int n)
{
	int i;

	d->menu_for = kind;
	snprintf(d->ui.menu_title, sizeof(d->ui.menu_title), "%s", title);
	for (i = 0; i < n && i < 8; i++)
		snprintf(d->ui.menu[i], sizeof(d->ui.menu[i]), "%s", items[i]);
	d->ui.nmenu = n;
	d->ui.menu_sel = 0;
	d->ui.view = V_MENU;
}

static void menu_chosen(struct dash *d, int i)
{
	static const char *const modes[] = { "off", "measure", "sync" };
	static const char *const loaders[] = { "grub", "systemd-boot",
					       "efi-entry" };

	d->ui.view = V_MAIN;
	if (d->menu_for == P_MODE || d->menu_for == P_GUARD)
		describe(d, d->menu_for, modes[i]);
	else if (d->menu_for == P_INSTALL)
		describe(d, P_INSTALL, loaders[i]);
}

/* ---- recovery and guided setup ---- */

static void recovery(struct dash *d)
{
	const struct tsc_report *r = d->sys.stage.has_report
					     ? d->sys.stage.report
					     : NULL;
	struct ui_state *u = &d->ui;

	u->nconfirm = 0;
	if (d->sys.stage.strikes >= GUARD_MAX_STRIKES)
		addl(u->confirm, &u->nconfirm, "%d sync boots in a row were "
		     "not confirmed by Linux (each followed by a measure-only "
		     "boot that was), so the hang guard disabled the stage.",
		     d->sys.stage.strikes);
	else
		addl(u->confirm, &u->nconfirm, "A boot hung in the stage and "
		     "never reached Linux, so the hang guard disabled the "
		     "stage on the next boot.");
	if (d->sys.stage.since[0])
		addl(u->confirm, &u->nconfirm, "Tripped: %s (UTC).",
		     d->sys.stage.since);
	addl(u->confirm, &u->nconfirm, "The stage was in %s mode (%s path).",
	     d->sys.stage.mode, d->sys.stage.loader);
	if (r)
		addl(u->confirm, &u->nconfirm, "Last report: %s%s%s",
		     tsc_result_name(r->result), r->reason[0] ? " - " : "",
		     r->reason);
	addl(u->confirm, &u->nconfirm, "%s", "");
	addl(u->confirm, &u->nconfirm, "1  stay off: the stage does nothing");
	addl(u->confirm, &u->nconfirm, "2  back to measure mode: it only "
	     "looks (the safe choice)");
	addl(u->confirm, &u->nconfirm, "3  retry sync: if it hangs again, the "
	     "guard trips again");
	addl(u->confirm, &u->nconfirm, "%s", "");
	addl(u->confirm, &u->nconfirm, "By hand: delete EFI/tsctui/disabled "
	     "(and strikes) on the ESP, or set tsctui_tripped=0 "
	     "tsctui_strikes=0 in the grubenv (RECOVERY.md).");
	u->view = V_RECOVERY;
}

/* The step follows from the system, so it resumes by itself after a
 * reboot: not installed -> install; measuring without a report -> power
 * off and boot; BSP behind -> sync; synced -> check the kernel kept it. */
static void setup(struct dash *d)
{
	struct ui_state *u = &d->ui;
	const struct sysinfo *s = &d->sys;
	const struct tsc_report *r = s->stage.has_report ? s->stage.report
							 : NULL;
	long long behind;

	u->nsetup = 0;
	u->setup_action[0] = '\0';
	addl(u->setup, &u->nsetup, "1. Is this machine affected? clocksource "
	     "%s; %s; CPU %s family %xh; TSC_ADJUST %s", s->cs.current,
	     d->diag.kernel_verdict[0] ? d->diag.kernel_verdict : "no log",
	     s->cpu.vendor, s->cpu.family, s->cpu.tsc_adjust ? "yes" : "no");
	addl(u->setup, &u->nsetup, "   %s", d->diag.summary);
	if (!s->stage.installed) {
		u->setup_step = 2;
		addl(u->setup, &u->nsetup, "2. Install the stage in measure "
		     "mode: it only looks, before Linux starts.");
		snprintf(u->setup_action, sizeof(u->setup_action), "install");
	} else if (!strcmp(s->stage.mode, "measure") && !r) {
		u->setup_step = 3;
		addl(u->setup, &u->nsetup, "3. Power the machine off fully, "
		     "boot it, and start tsctui again: the report will show "
		     "every core's offset.");
	} else if (!strcmp(s->stage.mode, "measure") &&
		   diagnosis_bsp_behind(r, &behind)) {
		u->setup_step = 4;
		addl(u->setup, &u->nsetup, "3. The report: the boot CPU is at "
		     "least %lld cycles behind all the others.", behind);
		addl(u->setup, &u->nsetup, "4. Switch to sync mode: the stage "
		     "moves the counters forward. If a boot ever hangs in it, "
		     "the next boot skips and disables it (the hang guard).");
		snprintf(u->setup_action, sizeof(u->setup_action), "sync");
	} else if (!strcmp(s->stage.mode, "sync")) {
		u->setup_step = 5;
		if (d->check_until) {
			long left = (long)(d->check_until - time(NULL));

			addl(u->setup, &u->nsetup, "5. Checking: %s, %u surveys, "
			     "%lu warps; rate %+.1f ppm (cumulative, against %s)",
			     left > 0 ? "running" : "done", d->check_surveys,
			     d->check_warps,
			     d->snap.rate.kept
				     ? rate_ppm(&d->snap.rate,
						rate_cumulative_mhz(&d->snap.rate))
				     : 0.0,
			     reftick_name(d->snap.ref));
			if (left > 0)
				addl(u->setup, &u->nsetup, "   %ld:%02ld left",
				     left / 60, left % 60);
			else
				addl(u->setup, &u->nsetup, "   %s",
				     d->check_warps ? "Warps were seen: the "
						      "sync does not hold."
						    : "No warp in five minutes: "
						      "it holds (one boot is not "
						      "a series of boots).");
		} else if (!strcmp(d->diag.code, "watchdog-skew") &&
			   !d->ui.nowatchdog) {
			addl(u->setup, &u->nsetup, "5. The warp test passed but the "
			     "watchdog dropped the TSC: turn on tsc=nowatchdog, "
			     "then run `tsctui check --interval 15 --samples 20` "
			     "(five minutes) to confirm no warp and no drift.");
			snprintf(u->setup_action, sizeof(u->setup_action),
				 "nowatchdog");
		} else {
			addl(u->setup, &u->nsetup, "5. After the next boot: %s",
			     !strcmp(s->cs.current, "tsc")
				     ? "the kernel kept the TSC."
				     : "check whether the kernel kept the TSC.");
			addl(u->setup, &u->nsetup, "   Enter: a five-minute check "
			     "of every core (warps) and the rate (drift).");
			snprintf(u->setup_action, sizeof(u->setup_action),
				 "check");
		}
	} else {
		u->setup_step = 3;
		addl(u->setup, &u->nsetup, "3. The report shows no lagging boot "
		     "CPU: nothing to sync.");
	}
	u->back = V_MAIN;
	u->view = V_SETUP;
}

/* ---- the loop ---- */

static bool key(struct dash *d, int ch)
{
	struct ui_state *u = &d->ui;
	static const char *const modes[] = { "off", "measure", "sync" };
	static const char *const loaders[] = {
		"GRUB (chain-loaded before the menu)", "systemd-boot (driver)",
		"its own firmware boot entry (starts the loader after it)"
	};

	if (u->view == V_CONFIRM) {
		if (ch == 'y' || ch == 'Y')
			run_pending(d);
		else
			status(d, false, "nothing changed");
		d->pending = P_NONE;
		u->view = V_MAIN;
		return true;
	}
	if (u->view == V_RECOVERY) {
		if (ch >= '1' && ch <= '3' && !needs_root(d))
			describe(d, P_GUARD, ch == '1' ? "off"
					     : ch == '2' ? "measure"
							 : "sync");
		else if (ch == 27 || ch == 'q')
			u->view = V_MAIN;
		return true;
	}
	if (u->view == V_MENU) {
		if (ch == KEY_UP && u->menu_sel > 0)
			u->menu_sel--;
		else if (ch == KEY_DOWN && u->menu_sel + 1 < u->nmenu)
			u->menu_sel++;
		else if (ch == '\n' || ch == KEY_ENTER)
			menu_chosen(d, u->menu_sel);
		else if (ch >= '1' && ch < '1' + u->nmenu)
			menu_chosen(d, ch - '1');
		else if (ch == 27 || ch == 'q')
			u->view = V_MAIN;
		return true;
	}
	if (u->view == V_SETUP && (ch == '\n' || ch == KEY_ENTER) &&
	    u->setup_action[0] &&
	    (!strcmp(u->setup_action, "check") || !needs_root(d))) {
		if (!strcmp(u->setup_action, "check")) {
			d->check_until = time(NULL) + CHECK_S;
			d->check_from_survey = d->snap.surveys;
			d->check_surveys = 0;
			d->check_warps = 0;
			setup(d);
			return true;
		}
		if (!strcmp(u->setup_action, "install")) {
			const char *why = NULL, *l = detect_loader(d->g->root,
								   &why);

			describe(d, P_INSTALL, l ? l : "grub");
		} else if (!strcmp(u->setup_action, "sync")) {
			describe(d, P_MODE, "sync");
		} else {
			describe(d, P_KARG, "on");
		}
		return true;
	}
	if (u->view != V_MAIN) {
		if (ch == 27 || ch == 'q' || ch == KEY_BACKSPACE)
			u->view = V_MAIN;
		return true;
	}
	switch (ch) {
	case 'q':
		return false;
	case 'h':
	case '?':
		u->view = V_HELP;
		break;
	case 'r':
		u->view = V_REPORT;
		break;
	case 'w':
		u->view = V_WHY;
		break;
	case 'y':
		u->view = V_HISTORY;
		break;
	case 's':
		setup(d);
		break;
	case KEY_DOWN:
	case KEY_NPAGE:
		if (d->snap.ncores && u->scroll + 1 < (int)d->snap.ncores)
			u->scroll += ch == KEY_NPAGE ? 10 : 1;
		if (u->scroll >= (int)d->snap.ncores)
			u->scroll = (int)d->snap.ncores - 1;
		break;
	case KEY_UP:
	case KEY_PPAGE:
		u->scroll -= ch == KEY_PPAGE ? 10 : 1;
		if (u->scroll < 0)
			u->scroll = 0;
		break;
	case 'm':
	case 'g':
	case 'k':
	case 'u':
		if (needs_root(d))
			break;
		if (ch != 'k' && !d->installed) {
			status(d, true, "tsctui is not installed: press i first");
			break;
		}
		if (ch == 'm')
			menu(d, P_MODE, "Stage mode from the next boot", modes, 3);
		else if (ch == 'g')
			menu(d, P_GUARD, "Reset the hang guard, then mode:", modes,
			     3);
		else if (ch == 'k')
			describe(d, P_KARG, d->ui.nowatchdog ? "off" : "on");
		else
			describe(d, P_UNINSTALL, "");
		break;
	case 'i':
		if (!needs_root(d))
			menu(d, P_INSTALL, "Install the stage for which boot "
			     "path?", loaders, 3);
		break;
	default:
		break;
	}
	return true;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

int dashboard_run(const struct globals *g)
{
	struct dash *d = calloc(1, sizeof(*d));
	struct engine_config ec = { 0 };
	const char *slow = getenv("TSCTUI_ENGINE_EXTRA_MS");
	int ch;

	if (!d)
		return app_fail("out of memory");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		free(d);
		return app_fail("the dashboard needs a terminal; for scripts "
				"use tsctui status (see tsctui --help)");
	}
	d->g = g;
	refresh_system(d);
	ec.simulate = g->simulate;
	ec.interval_s = 2;
	ec.kernel_mhz = d->sys.have_klog ? kernlog_tsc_mhz(d->sys.klog) : 0;
	ec.clocksource = d->sys.cs.current;
	/* Tests make surveys slow on purpose, to show keys still answer. */
	ec.extra_ms = slow ? (unsigned)atoi(slow) : 0;
	d->engine = engine_start(&ec);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setlocale(LC_ALL, "");
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	/* Keys are answered within 100 ms, whatever the engine is doing. */
	timeout(100);
	view_init_colors(&d->ui);
	d->ui.sys = &d->sys;
	d->ui.diag = &d->diag;
	d->ui.snap = &d->snap;
	if (!strcmp(d->sys.stage.guard, "tripped"))
		recovery(d);
	while (!interrupted) {
		if (d->engine) {
			unsigned before = d->snap.surveys, i;

			engine_snapshot(d->engine, &d->snap);
			if (d->check_until && d->snap.surveys != before &&
			    d->snap.surveys > d->check_from_survey &&
			    time(NULL) <= d->check_until) {
				d->check_surveys++;
				for (i = 0; i < d->snap.ncores; i++)
					d->check_warps +=
						d->snap.cores[i].warps_bsp +
						d->snap.cores[i].warps_ap;
			}
			if (d->check_until && d->ui.view == V_SETUP)
				setup(d);
		}
		if (time(NULL) - d->refreshed >= REFRESH_S &&
		    d->ui.view == V_MAIN)
			refresh_system(d);
		view_draw(&d->ui);
		ch = getch();
		if (ch == ERR || ch == KEY_RESIZE)
			continue;
		if (!key(d, ch))
			break;
	}
	endwin();
	engine_stop(d->engine);
	system_free(&d->sys);
	free(d);
	return EXIT_OK;
}

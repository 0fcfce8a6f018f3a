/* SPDX-License-Identifier: MIT */
/*
 * An action, said before it runs: the action itself, run dry
 * (act.dry_run), says what it will create, change or remove and which
 * tools it will run; that plan is the list shown, asked once.  Then the
 * same action for real, as the CLI runs it, its message or error on the
 * status line, and the system read again (the screen shows what is, not
 * what was assumed).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../action/actions.h"
#include "../view/draw.h"
#include "dashboard.h"

/* The pending action with its argument, dry or for real. */
static int act_pending(struct dash *d, struct act *a)
{
	struct install_opts io = { 0 };

	switch (d->pending) {
	case P_MODE:
		return mode_set(a, d->arg, false);
	case P_GUARD:
		return guard_reset(a, d->arg);
	case P_KARG:
		return kernel_arg_set(a, "nowatchdog", d->arg);
	case P_INSTALL:
		io.loader = d->arg;
		return install_run(a, &io);
	case P_UNINSTALL:
		return uninstall_run(a, false);
	case P_NONE:
		break;
	}
	return -1;
}

/* A directory the plan makes (or removes) along with something in it
 * goes without saying. */
static bool implied(const struct act *a, size_t k)
{
	const struct change *c = &a->changes[k];
	size_t i, n = strlen(c->path);

	for (i = 0; i < a->nchanges; i++)
		if (i != k && !strcmp(a->changes[i].what, c->what) &&
		    !strncmp(a->changes[i].path, c->path, n) &&
		    a->changes[i].path[n] == '/')
			return true;
	return false;
}

/* The plan as lines: each change, each tool, then the action's notes. */
static void plan_lines(struct ui_state *u, const struct act *a, int rc)
{
	char msg[sizeof(a->message)], *line, *save = NULL;
	size_t i;

	if (rc != 0) {
		draw_addl(u->confirm, &u->nconfirm, "(this will fail: %s)",
			  a->error);
		return;
	}
	for (i = 0; i < a->nchanges; i++)
		if (!implied(a, i))
			draw_addl(u->confirm, &u->nconfirm, "%s %s%s%s",
				  act_verb(a->changes[i].what),
				  a->changes[i].path,
				  a->changes[i].detail[0] ? ": " : "",
				  a->changes[i].detail);
	for (i = 0; i < a->nruns; i++)
		draw_addl(u->confirm, &u->nconfirm, "run %s", a->runs[i]);
	snprintf(msg, sizeof(msg), "%s", a->message);
	for (line = strtok_r(msg, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		draw_addl(u->confirm, &u->nconfirm, "%s", line);
}

void confirm_describe(struct dash *d, enum pending p, const char *arg)
{
	struct ui_state *u = &d->ui;
	struct act a;
	int rc;

	u->nconfirm = 0;
	d->pending = p;
	snprintf(d->arg, sizeof(d->arg), "%s", arg);
	switch (p) {
	case P_MODE:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Switch the stage to %s mode from the next boot?",
			 arg);
		break;
	case P_GUARD:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Reset the hang guard, with the stage in %s mode?",
			 arg);
		break;
	case P_KARG:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Turn tsc=nowatchdog %s for the next boot?", arg);
		break;
	case P_INSTALL:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Install the stage for %s, in measure mode?", arg);
		break;
	case P_UNINSTALL:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Uninstall tsctui and restore every file it changed?");
		break;
	case P_NONE:
		break;
	}
	act_init(&a, d->root, "dashboard");
	a.dry_run = true;
	rc = act_pending(d, &a);
	plan_lines(u, &a, rc);
	act_free(&a);
	if (p == P_KARG)
		draw_addl(u->confirm, &u->nconfirm,
			  "The boot-time warp test still "
			  "runs; only the clocksource watchdog is off.");
	if (p == P_UNINSTALL)
		draw_addl(u->confirm, &u->nconfirm, "the boot history is kept");
	u->view = V_CONFIRM;
}

bool confirm_needs_root(struct dash *d)
{
	if (geteuid() == 0 || strcmp(d->root, "/") != 0)
		return false;
	dashboard_status(d, true, "this needs root: run sudo tsctui");
	return true;
}

void confirm_run(struct dash *d)
{
	struct act a;
	int rc;

	act_init(&a, d->root, "dashboard");
	rc = act_pending(d, &a);
	dashboard_status(d, rc != 0, rc ? a.error : a.message);
	act_free(&a);
	d->pending = P_NONE;
	/* The screen shows the system as it now is, not as assumed. */
	dashboard_refresh(d);
}

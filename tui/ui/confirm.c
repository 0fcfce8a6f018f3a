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
#include "hint.h"

/* The pending action with its argument, dry or for real. */
static int act_pending(struct dash *d, struct act *a)
{
	struct install_opts io = { 0 };

	switch (d->pending) {
	case P_MODE:
		return mode_set_to(a, d->arg.mode, false);
	case P_GUARD:
		return guard_reset_to(a, d->arg.mode);
	case P_KARG:
		return kernel_arg_nowatchdog(a, d->arg.on);
	case P_INSTALL:
		io.loader = d->arg.loader;
		io.esp = d->esp[0] ? d->esp : NULL;
		return install_run(a, &io);
	case P_UNINSTALL:
		return uninstall_run(a, false);
	case P_ESP:
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
		if (i != k && a->changes[i].what == c->what &&
		    !strncmp(a->changes[i].path, c->path, n) &&
		    a->changes[i].path[n] == '/')
			return true;
	return false;
}

/* The plan as lines: each change, each tool, then the action's notes. */
static void plan_lines(struct ui_state *u, const struct act *a, int rc)
{
	static char msg[8192];
	char *line, *save = NULL;
	size_t i;

	if (rc != 0) {
		char said[sizeof(a->error) + 256];

		hint_say(a->error, a->hint, a->hint_at, a->hint_end, said,
			 sizeof(said));
		draw_addl(u->confirm, &u->nconfirm, "This cannot be done now:");
		draw_addtext(u->confirm, &u->nconfirm, "", said);
		u->confirm_fails = true;
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
	hint_said(a, msg, sizeof(msg));
	for (line = strtok_r(msg, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		draw_addl(u->confirm, &u->nconfirm, "%s", line);
}

void confirm_describe(struct dash *d, enum pending p, struct pending_arg arg)
{
	struct ui_state *u = &d->ui;
	struct act a;
	int rc;

	u->nconfirm = 0;
	u->confirm_fails = false;
	u->info_scroll = 0;
	d->pending = p;
	d->arg = arg;
	switch (p) {
	case P_MODE:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Switch the stage to %s mode from the next boot?",
			 tsc_mode_name(arg.mode));
		break;
	case P_GUARD:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Reset the hang guard, with the stage in %s mode?",
			 tsc_mode_name(arg.mode));
		break;
	case P_KARG:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Turn tsc=nowatchdog %s for the next boot?",
			 arg.on ? "on" : "off");
		break;
	case P_INSTALL:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Install the stage for %s, in measure mode?",
			 loader_name(arg.loader));
		break;
	case P_UNINSTALL:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Uninstall tsctui and restore every file it changed?");
		break;
	case P_ESP:
	case P_NONE:
		break;
	}
	act_init(&a, d->root, "dashboard");
	a.dry_run = true;
	rc = act_pending(d, &a);
	plan_lines(u, &a, rc);
	act_free(&a);
	if (u->confirm_fails) {
		u->view = V_CONFIRM;
		return;
	}
	if (p == P_KARG)
		draw_addl(u->confirm, &u->nconfirm,
			  "The boot-time warp test still "
			  "runs; only the clocksource watchdog is off.");
	if (p == P_UNINSTALL)
		draw_addl(u->confirm, &u->nconfirm, "the boot history is kept");
	u->view = V_CONFIRM;
}

void confirm_install(struct dash *d, enum loader loader)
{
	const struct mount_info *m = d->sys.boot.vfat;
	struct ui_state *u = &d->ui;
	int n = d->sys.boot.nvfat, i;

	d->esp[0] = '\0';
	if (d->sys.boot.has_esp) {
		confirm_describe(d, P_INSTALL,
				 (struct pending_arg){ .loader = loader });
		return;
	}
	if (n > DASH_ESP_CHOICES)
		n = DASH_ESP_CHOICES;
	if (n > 0) {
		d->esp_loader = loader;
		d->menu_for = P_ESP;
		snprintf(u->menu_title, sizeof(u->menu_title),
			 "Which is the EFI system partition? (none at "
			 "/boot/efi, /efi or /boot)");
		for (i = 0; i < n; i++) {
			snprintf(d->esp_choices[i], sizeof(d->esp_choices[i]),
				 "%s", m[i].dir);
			snprintf(u->menu[i], sizeof(u->menu[i]),
				 "%.40s (%.30s)", m[i].dir, m[i].dev);
		}
		u->nmenu = n;
		u->menu_sel = 0;
		u->view = V_MENU;
		return;
	}
	/* No FAT file system mounted anywhere: nothing to choose from. */
	u->nconfirm = 0;
	u->info_scroll = 0;
	u->confirm_fails = true;
	d->pending = P_NONE;
	snprintf(u->confirm_title, sizeof(u->confirm_title),
		 "Install the stage for %s: no EFI system partition found",
		 loader_name(loader));
	draw_addl(u->confirm, &u->nconfirm,
		  "No FAT file system is mounted, so tsctui cannot find the "
		  "EFI system partition the firmware boots from.");
	draw_addl(u->confirm, &u->nconfirm,
		  "Find it with `lsblk -f` (a small vfat partition), mount it "
		  "at /boot/efi (`mount /dev/DISKpN /boot/efi`, or add it to "
		  "/etc/fstab), then press i again.");
	draw_addl(u->confirm, &u->nconfirm,
		  "A machine that boots without UEFI (legacy BIOS) has none: "
		  "the stage cannot run there.");
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
	static char said[8192];
	struct act a;
	int rc;

	act_init(&a, d->root, "dashboard");
	rc = act_pending(d, &a);
	if (rc)
		hint_say(a.error, a.hint, a.hint_at, a.hint_end, said,
			 sizeof(said));
	else
		hint_said(&a, said, sizeof(said));
	dashboard_status(d, rc != 0, said);
	act_free(&a);
	d->pending = P_NONE;
	/* The screen shows the system as it now is, not as assumed. */
	dashboard_refresh(d);
}

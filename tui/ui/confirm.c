/* SPDX-License-Identifier: MIT */
/*
 * An action, said before it runs: what it will create, change or remove
 * (the grubenv variables, the ESP files, the drop-in or BLS lines, the
 * ledger's entries for uninstall), asked once; then the same action
 * function as the CLI, its message or error on the status line, and the
 * system read again (the screen shows what is, not what was assumed).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../action/actions.h"
#include "../source/detect.h"
#include "../action/stagecfg.h"
#include "../view/draw.h"
#include "dashboard.h"

void confirm_describe(struct dash *d, enum pending p, const char *arg)
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
			 "Switch the stage to %s mode from the next boot?",
			 arg);
		if (grub)
			draw_addl(u->confirm, &u->nconfirm,
				  "%s: tsctui_mode=%s", d->conf.grubenv, arg);
		else
			draw_addl(u->confirm, &u->nconfirm, "%s: mode=%s",
				  esp_file, arg);
		if (!strcmp(arg, "sync"))
			draw_addl(u->confirm, &u->nconfirm,
				  "The stage will write the TSC of lagging "
				  "cores. If "
				  "a boot never reaches Linux, the hang guard "
				  "disables "
				  "it on the next boot.");
		break;
	case P_GUARD:
		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Reset the hang guard, with the stage in %s mode?",
			 arg);
		if (grub)
			draw_addl(u->confirm, &u->nconfirm,
				  "%s: tsctui_pending=0 tsctui_tripped=0 "
				  "tsctui_mode=%s tsctui_options= (and synced, "
				  "probation, strikes to 0 where set)",
				  d->conf.grubenv, arg);
		else
			draw_addl(u->confirm, &u->nconfirm,
				  "remove %s/EFI/tsctui/pending, disabled, "
				  "synced, "
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
		act_init(&a, d->root, "kernel-arg");
		if (kernel_arg_method(&a, &c, &m, &why) != 0)
			draw_addl(u->confirm, &u->nconfirm,
				  "(this will fail: %s)", why);
		else if (m == KARG_GRUBBY)
			draw_addl(u->confirm, &u->nconfirm,
				  "grubby "
				  "--update-kernel=ALL %s tsc=nowatchdog",
				  on ? "--args" : "--remove-args");
		else if (m == KARG_GRUB_DROPIN)
			draw_addl(u->confirm, &u->nconfirm,
				  "%s "
				  "/etc/default/grub.d/tsctui-nowatchdog.cfg, "
				  "then "
				  "regenerate grub.cfg (update-grub)",
				  on ? "create" : "remove");
		else
			draw_addl(
				u->confirm, &u->nconfirm,
				"%sthe options line of every boot entry under "
				"%s/loader/entries (and /boot/loader/entries): "
				"%s "
				"tsc=nowatchdog",
				strcmp(c.loader, "systemd-boot")
					? ""
					: "/etc/kernel/cmdline and ",
				c.esp, on ? "add" : "remove");
		act_free(&a);
		draw_addl(u->confirm, &u->nconfirm,
			  "/etc/tsctui/nowatchdog: %s "
			  "(for the kernel-install plugin)",
			  arg);
		draw_addl(u->confirm, &u->nconfirm,
			  "The boot-time warp test still "
			  "runs; only the clocksource watchdog is off.");
		break;
	}
	case P_INSTALL: {
		char esp[256] = "";
		const char *why = NULL;

		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Install the stage for %s, in measure mode?", arg);
		if (!detect_esp(d->root, esp, sizeof(esp), &why))
			draw_addl(u->confirm, &u->nconfirm,
				  "ESP: not found (%s)", why);
		else
			draw_addl(u->confirm, &u->nconfirm,
				  "ESP: %s (detected)", esp);
		draw_addl(u->confirm, &u->nconfirm,
			  "create /etc/tsctui/tsctui.conf");
		if (!strcmp(arg, "grub")) {
			draw_addl(u->confirm, &u->nconfirm,
				  "create %s/EFI/tsctui/tsctui.efi", esp);
			draw_addl(u->confirm, &u->nconfirm,
				  "grubenv: add "
				  "tsctui_mode=measure, tsctui_options, "
				  "tsctui_pending=0, tsctui_tripped=0");
			draw_addl(
				u->confirm, &u->nconfirm,
				"regenerate grub.cfg "
				"(update-grub) so /etc/grub.d/05_tsctui runs");
		} else if (!strcmp(arg, "efi-entry")) {
			draw_addl(u->confirm, &u->nconfirm,
				  "create %s/EFI/tsctui/tsctui.efi and options "
				  "(mode=measure)",
				  esp);
			draw_addl(
				u->confirm, &u->nconfirm,
				"NVRAM: a new Boot#### "
				"\"tsctui\", first in BootOrder, starting the "
				"entry that was first (unless it cannot start "
				"a "
				"loader from a disk)");
			draw_addl(u->confirm, &u->nconfirm,
				  "record the BootOrder from "
				  "before on the ESP and in /var/lib/tsctui");
		} else {
			draw_addl(u->confirm, &u->nconfirm,
				  "create %s/EFI/tsctui/options (mode=measure)",
				  esp);
			draw_addl(u->confirm, &u->nconfirm,
				  "create %s/EFI/systemd/drivers/tsctuix64.efi",
				  esp);
		}
		draw_addl(u->confirm, &u->nconfirm,
			  "enable tsctui-boot.service "
			  "(multi-user.target and system-update.target)");
		draw_addl(u->confirm, &u->nconfirm,
			  "every changed file is backed up "
			  "once under /var/lib/tsctui/backup/");
		break;
	}
	case P_UNINSTALL: {
		struct act a;
		size_t i;

		snprintf(u->confirm_title, sizeof(u->confirm_title),
			 "Uninstall tsctui and restore every file it changed?");
		act_init(&a, d->root, "read");
		if (act_ledger_load(&a) == 0)
			for (i = a.nledger; i-- > 0;)
				draw_addl(u->confirm, &u->nconfirm, "%s %s",
					  a.ledger[i].kind == L_BACKUP
						  ? "restore"
						  : "remove",
					  a.ledger[i].path);
		act_free(&a);
		draw_addl(u->confirm, &u->nconfirm, "the boot history is kept");
		break;
	}
	case P_NONE:
		break;
	}
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
	struct install_opts io = { 0 };
	struct act a;
	int rc = -1;

	act_init(&a, d->root, "dashboard");
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
	dashboard_status(d, rc != 0, rc ? a.error : a.message);
	act_free(&a);
	d->pending = P_NONE;
	/* The screen shows the system as it now is, not as assumed. */
	dashboard_refresh(d);
}

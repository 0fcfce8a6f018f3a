/* SPDX-License-Identifier: MIT */
/*
 * tsctui uninstall: replays the ledger backwards.  Every file tsctui
 * modified gets its original bytes back; every file, link and directory it
 * created goes.  The grubenv is the exception that proves the rule: GRUB
 * itself writes it at boot (tsctui_pending and the guard's other
 * variables, stagecfg.h), and other tools may have set
 * variables since, so tsctui removes its own variables and restores the
 * saved bytes only when what remains is exactly what was there before
 * (the loader's settle, grub.c).  The firmware entry's NVRAM is in the
 * ledger like the rest (efi_entry.c).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../format/grubenv.h"
#include "../source/efivar.h"
#include "../source/kernel_cmdline.h"
#include "../source/loader.h"
#include "../source/stage_state.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "actions.h"
#include "loader_writing.h"
#include "stagecfg.h"

/* Does the ledger file hold an entry other than a begin line?  An
 * unreadable or damaged one counts as holding some: act_begin then says
 * what is wrong with it. */
static bool ledger_has_entries(struct act *a)
{
	size_t len;
	char *d = fsx_read_own(act_path_nofollow(a, TSCTUI_LEDGER), &len), *p;
	bool any = false;

	if (!d)
		return errno != ENOENT;
	any = memchr(d, '\0', len) != NULL;
	for (p = d; !any && p < d + len; p = strchr(p, '\n') + 1) {
		any = *p != '\n' && strncmp(p, "begin ", 6) != 0;
		if (!strchr(p, '\n'))
			break;
	}
	free(d);
	return any;
}

/* Did the ledger hold entries before this run began (act_begin's own
 * are not)? */
static bool recorded(const struct act *a)
{
	size_t i;

	for (i = 0; i < a->begun_with && i < a->nledger; i++)
		if (a->ledger[i].kind != L_BEGIN)
			return true;
	return false;
}

/* Anything to undo: a configuration, a ledger with entries, or the empty
 * state directory a killed uninstall leaves. */
static bool installed(const struct act *a, int have)
{
	return have > 0 || a->adopted || recorded(a);
}

/*
 * What is left of tsctui, found by what it is, not by the ledger: the
 * ledger may be missing, empty or cut short, and uninstall must never say
 * "removed" while any of this is still in place.  Each found thing is a
 * note (the full list, printed on stdout); the count is returned, and
 * `first` names the first one for the one-line error.
 */
#define MAX_LEFT 24
static const char *const files_of_tsctui[] = {
	TSCTUI_CONF,
	NOWATCHDOG_SETTING,
	KERNEL_ARG_DROPIN,
	"/etc/systemd/system/multi-user.target.wants/tsctui-boot.service",
	"/etc/systemd/system/system-update.target.wants/tsctui-boot.service",
	"/etc/systemd/system/tsctui-boot.service.d/tsctui-mounts.conf",
	NULL
};
/* Where an ESP is mounted, when tsctui.conf no longer says. */
static const char *const esp_places[] = { "/boot/efi", "/efi", "/boot", NULL };
static const char *const grubenv_places[] = { "/boot/grub/grubenv",
					      "/boot/grub2/grubenv", NULL };

static void left(struct act *a, size_t *n, char *first, size_t cap,
		 const char *fmt, const char *what)
{
	char line[PATH_UNDER_MAX + 200];

	snprintf(line, sizeof(line), fmt, what);
	if (*n == 0)
		snprintf(first, cap, "%s", what);
	if (*n < MAX_LEFT)
		act_note(a, "left: %s", line);
	(*n)++;
}

static bool has_stage_vars(struct act *a, const char *sys)
{
	struct grubenv env;
	const char *why;
	size_t len, i;
	char *d = fsx_read_max(act_path(a, sys), GRUBENV_SIZE * 4, &len);
	bool found = false;

	if (!d)
		return false;
	if (grubenv_parse(d, len, &env, &why)) {
		for (i = 0; stage_state_grub_vars[i]; i++)
			found = found ||
				grubenv_get(&env, stage_state_grub_vars[i]);
		grubenv_free(&env);
	}
	free(d);
	return found;
}

/* Does a firmware boot entry's load option name tsctui's image?  (Its
 * path is UTF-16LE in the device path: compared ASCII-wise, any case.) */
static bool loads_tsctui(const uint8_t *d, size_t n)
{
	static const char want[] = "\\efi\\tsctui\\tsctui.efi";
	size_t i, k, w = sizeof(want) - 1;

	for (i = 0; i + 2 * w <= n; i++) {
		for (k = 0; k < w; k++)
			if (d[i + 2 * k + 1] != 0 ||
			    tolower(d[i + 2 * k]) != want[k])
				break;
		if (k == w)
			return true;
	}
	return false;
}

static size_t leftovers(struct act *a, const struct tsctui_conf *c, char *first,
			size_t cap)
{
	char sys[PATH_UNDER_MAX], dir[PATH_UNDER_MAX];
	const char *esps[8], *envs[4];
	struct dirent *e;
	size_t n = 0, i, ne = 0, nv = 0;
	DIR *d;

	for (i = 0; files_of_tsctui[i]; i++)
		if (fsx_exists(act_path_nofollow(a, files_of_tsctui[i])))
			left(a, &n, first, cap, "%s", files_of_tsctui[i]);
	if (c->esp[0])
		esps[ne++] = c->esp;
	for (i = 0; esp_places[i]; i++)
		if (!c->esp[0] || strcmp(c->esp, esp_places[i]))
			esps[ne++] = esp_places[i];
	for (i = 0; i < ne; i++) {
		path_join(esps[i], ESP_STATE_DIR, sys, sizeof(sys));
		if (fsx_exists(act_path_nofollow(a, sys)))
			left(a, &n, first, cap, "%s", sys);
		path_join(esps[i], SD_DRIVERS_DIR "/tsctuix64.efi", sys,
			  sizeof(sys));
		if (fsx_exists(act_path_nofollow(a, sys)))
			left(a, &n, first, cap, "%s", sys);
	}
	if (c->grubenv[0])
		envs[nv++] = c->grubenv;
	for (i = 0; grubenv_places[i]; i++)
		if (!c->grubenv[0] || strcmp(c->grubenv, grubenv_places[i]))
			envs[nv++] = grubenv_places[i];
	for (i = 0; i < nv; i++)
		if (has_stage_vars(a, envs[i]))
			left(a, &n, first, cap, "%s (tsctui_* variables)",
			     envs[i]);
	snprintf(dir, sizeof(dir), "%s", act_path(a, EFIVARS_DIR));
	d = fsx_opendir(dir);
	while (d && (e = readdir(d))) {
		char name[16];
		uint8_t *data;
		size_t len;

		if (strncmp(e->d_name, "Boot", 4) || strlen(e->d_name) < 9 ||
		    strspn(e->d_name + 4, "0123456789ABCDEF") != 4 ||
		    strcmp(e->d_name + 8, "-" GUID_EFI_GLOBAL))
			continue;
		snprintf(name, sizeof(name), "%.8s", e->d_name);
		data = efivar_read(a->root, name, GUID_EFI_GLOBAL, &len, NULL);
		if (data && loads_tsctui(data, len))
			left(a, &n, first, cap,
			     strcmp(a->root, "/")
				     ? "%s, a firmware entry that starts "
				       "tsctui.efi: this is the target's NVRAM "
				       "as a file, not its firmware; remove "
				       "the "
				       "entry on the target machine itself "
				       "(efibootmgr -b NNNN -B)"
				     : "%s, a firmware entry that starts "
				       "tsctui.efi (efibootmgr -b NNNN -B)",
			     name);
		free(data);
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * Restartable from any point: every step is done again harmlessly (a file
 * already gone, a backup already restored), and the ledger keeps its
 * "begin uninstall" entry until the last one is undone, so that no other
 * action runs on a half-removed tsctui.
 */

/* The stage's run\ directory on the ESP, once its markers are gone: it is
 * the stage's, not the ledger's, and install's EFI/tsctui cannot go while
 * it is there. */
static void remove_run_dir(struct act *a, const struct tsctui_conf *c)
{
	char sys[PATH_UNDER_MAX];

	stage_state_esp_file(c, STAGE_STATE_RUN_DIR, sys, sizeof(sys));
	if (!fsx_is_dir(act_path(a, sys)))
		return;
	if (!a->dry_run && fsx_rmdir(act_path_nofollow(a, sys)) != 0)
		return; /* the check after the undo names what is left */
	act_changed(a, sys, "removed");
}

int uninstall_run(struct act *a, bool purge)
{
	/* Only kernel-arg ran: no loader's part to undo. */
	static const struct loader_writing nothing = { 0 };
	const struct loader_writing *w;
	struct tsctui_conf c;
	const char *why = NULL;
	char sys[PATH_UNDER_MAX];
	size_t i;
	int have;

	if (fsx_is_dir(act_path(a, TSCTUI_STATE_DIR)) &&
	    !fsx_dir_writable(act_path(a, TSCTUI_STATE_DIR)))
		return act_fail(a, "%s is not writable (%s); nothing changed",
				TSCTUI_STATE_DIR, strerror(errno));
	if (!ledger_has_entries(a)) {
		/* Nothing recorded to go by: what of tsctui is here is named,
		 * and nothing is touched (no lock taken either, so a refusal
		 * on a clean system creates no /run/tsctui.lock). */
		char first[PATH_UNDER_MAX];
		size_t n;

		if (config_read(a->root, &c, &why) <= 0)
			memset(&c, 0, sizeof(c));
		n = leftovers(a, &c, first, sizeof(first));
		if (n)
			return act_fail(
				a,
				"%s has no record of tsctui's changes, "
				"yet %s%s %s still here (the list is on "
				"standard output): restore or remove %s "
				"by hand, then run uninstall again",
				TSCTUI_LEDGER, first, n > 1 ? " and more" : "",
				n > 1 ? "are" : "is", n > 1 ? "them" : "it");
		if (!fsx_exists(act_path_nofollow(a, TSCTUI_STATE_DIR)))
			return act_fail(a, "tsctui is not installed here");
	}
	if (act_begin(a, "uninstall", ACT_UNINSTALL) != 0)
		return -1;
	have = config_read(a->root, &c, &why);
	if (have < 0 || !installed(a, have)) {
		if (have < 0)
			act_fail(a, "%s", why);
		else
			act_fail(a, "tsctui is not installed here");
		act_abort(a);
		return -1;
	}
	if (have == 0) {
		/* Only kernel-arg ran, or a killed uninstall took the
		 * configuration already: the ledger has the rest. */
		memset(&c, 0, sizeof(c));
	}
	w = have > 0 ? loader_writing(c.loader) : &nothing;
	if (w->settle && w->settle(a, &c) != 0)
		return -1;
	/* The stage's own state files are tsctui's too. */
	for (i = 0; have > 0 && stage_state_guard_files[i]; i++) {
		stage_state_esp_file(&c, stage_state_guard_files[i], sys,
				     sizeof(sys));
		act_remove(a, sys);
	}
	/* ... and the GRUB path's channel the stage made on the ESP, so that
	 * the directory install made can go. */
	for (i = 0; have > 0 && stage_state_run_files[i]; i++) {
		stage_state_esp_file(&c, stage_state_run_files[i], sys,
				     sizeof(sys));
		act_remove(a, sys);
	}
	if (have > 0)
		remove_run_dir(a, &c);
	if (purge)
		act_remove(a, TSCTUI_STATE_DIR "/history");
	if (act_ledger_undo(a, 0) != 0)
		return -1;
	if (w->regenerate && w->regenerate(a) != 0)
		return -1;
	if (!a->dry_run) {
		/* The ledger is done; is anything of tsctui's still here?
		 * (A dry run removed nothing: its plan is the answer.) */
		char first[PATH_UNDER_MAX];
		struct tsctui_conf none;
		size_t n;

		memset(&none, 0, sizeof(none));
		n = leftovers(a, have > 0 ? &c : &none, first, sizeof(first));
		if (n)
			return act_fail(a,
					"the ledger is undone, but %s%s %s "
					"still here (the list is on standard "
					"output): restore or remove %s by "
					"hand",
					first, n > 1 ? " and more" : "",
					n > 1 ? "are" : "is",
					n > 1 ? "them" : "it");
	}
	act_done(a, "tsctui removed%s", purge ? ", history too" : "");
	return 0;
}

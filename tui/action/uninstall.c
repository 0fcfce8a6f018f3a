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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "actions.h"
#include "loader_writing.h"
#include "stagecfg.h"

/* Anything to undo: a configuration, or a ledger that held entries
 * before this run began (act_begin's own are not). */
static bool installed(const struct act *a, int have)
{
	size_t i;

	if (have > 0 || a->adopted)
		return true;
	for (i = 0; i < a->begun_with && i < a->nledger; i++)
		if (a->ledger[i].kind != L_BEGIN)
			return true;
	return false;
}

/*
 * Restartable from any point: every step is done again harmlessly (a file
 * already gone, a backup already restored), and the ledger keeps its
 * "begin uninstall" entry until the last one is undone, so that no other
 * action runs on a half-removed tsctui.
 */
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
	if (purge)
		act_remove(a, TSCTUI_STATE_DIR "/history");
	if (act_ledger_undo(a, 0) != 0)
		return -1;
	if (w->regenerate && w->regenerate(a) != 0)
		return -1;
	act_done(a, "tsctui removed%s", purge ? ", history too" : "");
	return 0;
}

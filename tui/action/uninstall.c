/* SPDX-License-Identifier: MIT */
/*
 * tsctui uninstall: replays the ledger backwards.  Every file tsctui
 * modified gets its original bytes back; every file, link and directory it
 * created goes.  The grubenv is the exception that proves the rule: GRUB
 * itself writes it at boot (tsctui_pending and the guard's other
 * variables, stagecfg.h), and other tools may have set
 * variables since, so tsctui removes its own variables and restores the
 * saved bytes only when what remains is exactly what was there before
 * (the loader's settle, grub.c); the firmware entry's NVRAM, outside the
 * ledger, goes by the loader's remove (efi_entry.c).
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

	if (act_ledger_load(a) != 0)
		return -1;
	have = config_read(a->root, &c, &why);
	if (have < 0)
		return act_fail(a, "%s", why);
	if (have == 0 && a->nledger == 0)
		return act_fail(a, "tsctui is not installed here");
	if (have == 0) {
		/* Only kernel-arg ran: undo it all the same. */
		memset(&c, 0, sizeof(c));
	}
	if (!fsx_dir_writable(act_path(a, TSCTUI_STATE_DIR)))
		return act_fail(a, "%s is not writable (%s); nothing changed",
				TSCTUI_STATE_DIR, strerror(errno));
	w = have > 0 ? loader_writing(c.loader) : &nothing;
	if (w->settle && w->settle(a, &c) != 0)
		return -1;
	if (have > 0 && kernel_arg_undo_external(a, &c) != 0)
		return -1;
	if (w->remove && w->remove(a, &c) != 0)
		return -1;
	/* The stage's own state files are tsctui's too. */
	for (i = 0; have > 0 && stage_state_guard_files[i]; i++) {
		stage_state_esp_file(&c, stage_state_guard_files[i], sys,
				     sizeof(sys));
		act_remove(a, sys);
	}
	if (purge)
		act_remove(a, TSCTUI_STATE_DIR "/history");
	/* The ledger file goes first, so that its directory can go too; it is
	 * written back if the replay fails half way. */
	act_ledger_remove(a);
	if (act_ledger_undo(a, 0) != 0) {
		a->ledger_dirty = true;
		act_ledger_save(a);
		return -1;
	}
	if (w->regenerate && w->regenerate(a) != 0)
		return -1;
	act_done(a, "tsctui removed%s", purge ? ", history too" : "");
	return 0;
}

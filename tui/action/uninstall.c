/* SPDX-License-Identifier: MIT */
/*
 * tsctui uninstall: replays the ledger backwards.  Every file tsctui
 * modified gets its original bytes back; every file, link and directory it
 * created goes.  The grubenv is the exception that proves the rule: GRUB
 * itself writes it at boot (tsctui_pending and the guard's other
 * variables, stagecfg.h), and other tools may have set
 * variables since, so tsctui removes its own variables and restores the
 * saved bytes only when what remains is exactly what was there before.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../format/grubenv.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "actions.h"
#include "efi_entry.h"
#include "stagecfg.h"

static bool same_vars(const struct grubenv *x, const struct grubenv *y)
{
	size_t i;

	if (x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++)
		if (strcmp(x->name[i], y->name[i]) ||
		    strcmp(x->value[i], y->value[i]))
			return false;
	return true;
}

/* Settles the grubenv by hand and drops its backup entry; the generic
 * replay then has nothing left to do for it. */
static int settle_grubenv(struct act *a, const struct tsctui_conf *c)
{
	char bsys[PATH_UNDER_MAX], block[GRUBENV_SIZE];
	struct grubenv now, before;
	const char *why;
	size_t i, len;
	bool exists;
	char *orig;

	if (!act_ledger_has(a, L_BACKUP, c->grubenv))
		return 0;
	snprintf(bsys, sizeof(bsys), TSCTUI_BACKUP "%s", c->grubenv);
	orig = fsx_read(act_path(a, bsys), &len);
	if (!orig)
		return act_fail(a, "the backup of %s is missing", c->grubenv);
	if (!grubenv_parse(orig, len, &before, &why)) {
		free(orig);
		return act_fail(a, "the backup of %s is corrupt", c->grubenv);
	}
	if (stagecfg_grubenv(a, c, &now, &exists) != 0) {
		free(orig);
		grubenv_free(&before);
		return -1;
	}
	for (i = 0; stage_state_grub_vars[i]; i++)
		grubenv_unset(&now, stage_state_grub_vars[i]);
	if (same_vars(&now, &before)) {
		if (act_write(a, c->grubenv, orig, len, 0644))
			goto fail;
		act_detail(a, c->grubenv, "restored from %s", bsys);
	} else {
		if (!grubenv_format(&now, block) ||
		    act_write(a, c->grubenv, block, sizeof(block), 0644))
			goto fail;
		act_detail(a, c->grubenv,
			   "tsctui's variables removed (others were set "
			   "since install)");
	}
	free(orig);
	grubenv_free(&now);
	grubenv_free(&before);
	/* The backup and its ledger entry are done with. */
	act_ledger_drop_backup(a, c->grubenv);
	return 0;
fail:
	free(orig);
	grubenv_free(&now);
	grubenv_free(&before);
	return act_fail(a, "cannot write %s: %s", c->grubenv, strerror(errno));
}

int uninstall_run(struct act *a, bool purge)
{
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
	if (have > 0 && !strcmp(c.loader, "grub") && settle_grubenv(a, &c))
		return -1;
	if (have > 0 && kernel_arg_undo_external(a, &c) != 0)
		return -1;
	if (have > 0 && !strcmp(c.loader, "efi-entry") &&
	    efi_entry_uninstall(a, &c) != 0)
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
	if (have > 0 && !strcmp(c.loader, "grub") &&
	    install_regenerate_grub(a) != 0)
		return -1;
	act_done(a, "tsctui removed%s", purge ? ", history too" : "");
	return 0;
}

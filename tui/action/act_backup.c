/* SPDX-License-Identifier: MIT */
/* Backups: a file or EFI variable tsctui modified is copied once under
 * TSCTUI_BACKUP before the first change (act_modify, act_var_modify), and
 * put back from there by the ledger's undo. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../source/efivar.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "act_core.h"

const char *act_backup_of(const char *sys, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s", TSCTUI_BACKUP, sys);
	return buf;
}

const char *act_link_backup_of(const char *sys, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s" ACT_LINK_SUFFIX, TSCTUI_BACKUP, sys);
	return buf;
}

/* Is sys the ledger's own directory, or one above it?  Those go last,

 * if they differ (a change killed before it was made, or undone before a
 * kill, needs nothing), then the backup goes.  A missing backup is a
 * change never made or already undone.  -1 with errno. */
int act_backup_restore(struct act *a, const struct ledger_entry *e)
{
	char bsys[PATH_UNDER_MAX], b[PATH_UNDER_MAX], p[PATH_UNDER_MAX],
		name[64];
	size_t have, nowlen = 0;
	char *old, *now = NULL;
	struct stat st;
	int rc = 0;

	act_backup_of(e->path, bsys, sizeof(bsys));
	snprintf(b, sizeof(b), "%s", act_path_nofollow(a, bsys));
	/* A link now at the path is replaced, never written through: what
	 * the backup holds is the file that was there (the grubenv, the
	 * one file distributions make a link, is settled by grub.c). */
	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, e->path));
	act_drop_temp(b);
	act_drop_temp(p);
	old = fsx_read_own(b, &have);
	if (!old)
		return errno == ENOENT ? 0 : -1;
	if (e->kind == L_VARBACKUP) {
		uint32_t attrs;

		act_var_name(e->path, name, sizeof(name));
		now = (char *)efivar_read(a->root, name, GUID_EFI_GLOBAL,
					  &nowlen, &attrs);
		if (have < 4) {
			free(old);
			free(now);
			errno = EINVAL;
			return -1;
		}
		memcpy(&attrs, old, 4);
		if (!now || nowlen != have - 4 ||
		    memcmp(now, old + 4, nowlen)) {
			rc = act_var_set(a, name, attrs, (uint8_t *)old + 4,
					 have - 4);
			if (rc == 0)
				act_change(a, e->path, CHANGE_MODIFIED);
		}
	} else {
		now = fsx_read_own(p, &nowlen);
		if (!now || nowlen != have || memcmp(now, old, have)) {
			bool there = fsx_lstat(p, &st) == 0;

			rc = fsx_write_atomic(p, old, have,
					      there && S_ISREG(st.st_mode)
						      ? st.st_mode & 07777
						      : 0644);
			/* absent: a file install --migrate took (act_take) */
			if (rc == 0)
				act_change(a, e->path,
					   there ? CHANGE_MODIFIED
						 : CHANGE_CREATED);
		}
	}
	if (rc == 0) {
		act_detail(a, e->path, "restored from %s", bsys);
		rc = fsx_remove(b);
	}
	free(old);
	free(now);
	return rc;
}

void act_backup_plan(struct act *a, const struct ledger_entry *e)
{
	char b[PATH_UNDER_MAX];

	act_backup_of(e->path, b, sizeof(b));
	if (!fsx_exists(act_path_nofollow(a, b)))
		return;
	act_change(a, e->path, CHANGE_MODIFIED);
	act_detail(a, e->path, "restored from %s", b);
}

void act_ledger_drop_backup(struct act *a, const char *sys)
{
	char b[PATH_UNDER_MAX];
	size_t i;

	act_backup_of(sys, b, sizeof(b));
	if (!a->dry_run) {
		act_drop_temp(act_path_nofollow(a, b));
		fsx_remove(act_path_nofollow(a, b));
	}
	for (i = 0; i < a->nledger; i++) {
		if (a->ledger[i].kind == L_BACKUP &&
		    !strcmp(a->ledger[i].path, sys)) {
			act_ledger_forget_at(a, i);
			if (a->journal)
				act_ledger_save(a);
			return;
		}
	}
}

/* SPDX-License-Identifier: MIT */
/* File operations: the recorded ones (a directory, file or link tsctui
 * creates, a file it modifies after a backup), and the ones outside the
 * ledger (the stage's state files, the history, /run). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "act_core.h"

void act_drop_temp(const char *real)
{
	char t[PATH_UNDER_MAX];

	if (real[0] &&
	    snprintf(t, sizeof(t), "%s.tsctui-new", real) < (int)sizeof(t))
		fsx_remove(t);
}

int act_mkdirs(struct act *a, const char *sys, mode_t mode)
{
	char part[PATH_UNDER_MAX];
	size_t i, n = strlen(sys);

	if (n >= sizeof(part))
		return act_fail(a, "path too long: %s", sys);
	for (i = 1; i <= n; i++) {
		if (i < n && sys[i] != '/')
			continue;
		memcpy(part, sys, i);
		part[i] = '\0';
		if (fsx_exists(act_path(a, part))) {
			if (!fsx_is_dir(act_path(a, part)))
				return act_fail(a, "%s is not a directory",
						part);
			continue;
		}
		if (act_ledger_add(a, L_DIR, part) != 0)
			return -1;
		if (!a->dry_run) {
			fsx_fault_point();
			/* A creation is recorded ahead, and forgotten again
			 * when it did not happen (a read-only parent, a
			 * dangling link in the way: EEXIST, yet no
			 * directory), so no later undo trips over it. */
			int e = fsx_mkdir(act_path_nofollow(a, part), mode)
					? errno
					: 0;

			if (e == EEXIST && !fsx_is_dir(act_path(a, part)))
				e = ENOTDIR;
			if (e && e != EEXIST) {
				act_forget(a, L_DIR, part);
				return act_fail(a, "cannot create %s: %s", part,
						strerror(e));
			}
		}
		act_change(a, part, CHANGE_CREATED);
	}
	return 0;
}

int act_parent_dirs(struct act *a, const char *sys)
{
	char dir[PATH_UNDER_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", sys);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return act_mkdirs(a, dir, 0755);
}

bool act_foreign(struct act *a, const char *sys)
{
	return fsx_exists(act_path_nofollow(a, sys)) &&
	       !act_ledger_has(a, L_FILE, sys) &&
	       !act_ledger_has(a, L_LINK, sys);
}

/* A write that failed.  When the name holds something that is not a file
 * (a FIFO, a directory, a device: a corrupt disk, or a hand's mistake),
 * tsctui never replaces it, and the error says so and what the way out
 * is, instead of a bare "Invalid argument". */
static int write_failed(struct act *a, const char *sys, const char *p)
{
	int e = errno;
	struct stat st;
	const char *what = NULL;

	if (fsx_lstat(p, &st) == 0) {
		if (S_ISFIFO(st.st_mode))
			what = "FIFO";
		else if (S_ISDIR(st.st_mode))
			what = "directory";
		else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
			what = "device node";
		else if (S_ISSOCK(st.st_mode))
			what = "socket";
	}
	if (what)
		return act_fail(a,
				"cannot write %s: a %s is there, not a file "
				"(tsctui replaces only files and links): "
				"remove it, then run this command again",
				sys, what);
	return act_fail(a, "cannot write %s: %s", sys, strerror(e));
}

int act_put(struct act *a, const char *sys, const void *data, size_t len,
	    mode_t mode)
{
	char p[PATH_UNDER_MAX];
	bool existed;

	if (act_foreign(a, sys))
		return act_fail(a,
				"%s exists and was not installed by "
				"tsctui; not overwriting it",
				sys);
	if (act_parent_dirs(a, sys) != 0)
		return -1;
	/* tsctui's own file: a link there is replaced, never followed. */
	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, sys));
	existed = fsx_exists(p);
	if (existed) {
		size_t have;
		char *old = fsx_read_own(p, &have);
		bool same = old && have == len && memcmp(old, data, len) == 0;

		free(old);
		if (same)
			return 0; /* idempotent: nothing to do */
	}
	if (act_ledger_add(a, L_FILE, sys) != 0)
		return -1;
	if (!a->dry_run && fsx_write_atomic(p, data, len, mode) != 0)
		return write_failed(a, sys, p);
	act_change(a, sys, existed ? CHANGE_MODIFIED : CHANGE_CREATED);
	return 0;
}

int act_modify(struct act *a, const char *sys, const void *data, size_t len,
	       mode_t mode)
{
	char p[PATH_UNDER_MAX], bsys[PATH_UNDER_MAX];
	struct stat st;
	size_t have;
	char *old;
	bool same;

	if (act_ledger_has(a, L_FILE, sys))
		return act_put(a, sys, data, len, mode);
	/* Someone else's file: a link is kept, and the file it points to
	 * (inside the root) is the one changed. */
	snprintf(p, sizeof(p), "%s", act_path(a, sys));
	old = fsx_read(p, &have);
	if (!old && errno != ENOENT)
		return act_fail(a, "cannot read %s: %s", sys, strerror(errno));
	if (!old) {
		/* Absent: tsctui creates it, and uninstall removes it. */
		return act_put(a, sys, data, len, mode);
	}
	same = have == len && memcmp(old, data, len) == 0;
	if (same) {
		free(old);
		return 0;
	}
	if (fsx_stat(p, &st) == 0)
		mode = st.st_mode & 07777;
	if (!act_ledger_has(a, L_BACKUP, sys)) {
		/* The entry, then the copy, then the change. */
		act_backup_of(sys, bsys, sizeof(bsys));
		if (act_parent_dirs(a, bsys) != 0 ||
		    act_ledger_add(a, L_BACKUP, sys) != 0) {
			free(old);
			return -1;
		}
		if (!a->dry_run && fsx_write_atomic(act_path_nofollow(a, bsys),
						    old, have, 0600) != 0) {
			free(old);
			return act_fail(a, "cannot back up %s: %s", sys,
					strerror(errno));
		}
	}
	free(old);
	if (!a->dry_run && fsx_write_atomic(p, data, len, mode) != 0)
		return write_failed(a, sys, p);
	act_change(a, sys, CHANGE_MODIFIED);
	return 0;
}

int act_take(struct act *a, const char *sys)
{
	char p[PATH_UNDER_MAX], bsys[PATH_UNDER_MAX], target[PATH_UNDER_MAX];
	enum ledger_kind k = L_BACKUP;
	struct stat st;
	size_t have = 0;
	char *old = NULL;
	ssize_t n;

	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, sys));
	if (fsx_lstat(p, &st) != 0)
		return errno == ENOENT ? 0
				       : act_fail(a, "cannot read %s: %s", sys,
						  strerror(errno));
	if (S_ISLNK(st.st_mode)) {
		n = fsx_readlink(p, target, sizeof(target) - 1);
		if (n < 0)
			return act_fail(a, "cannot read the link %s: %s", sys,
					strerror(errno));
		target[n] = '\0';
		k = L_UNLINKED;
	} else if (!S_ISREG(st.st_mode)) {
		return act_fail(
			a, "%s is not a file or a link; not removing it", sys);
	} else if (!(old = fsx_read_own(p, &have))) {
		return act_fail(a, "cannot read %s: %s", sys, strerror(errno));
	}
	/* The entry, then the copy, then the removal: a kill anywhere
	 * leaves what the undo puts back (a copy without the removal is
	 * only dropped). */
	if (k == L_UNLINKED)
		act_link_backup_of(sys, bsys, sizeof(bsys));
	else
		act_backup_of(sys, bsys, sizeof(bsys));
	if (!act_ledger_has(a, k, sys) &&
	    (act_parent_dirs(a, bsys) != 0 || act_ledger_add(a, k, sys) != 0)) {
		free(old);
		return -1;
	}
	if (!a->dry_run &&
	    fsx_write_atomic(
		    act_path_nofollow(a, bsys), k == L_UNLINKED ? target : old,
		    k == L_UNLINKED ? strlen(target) : have, 0600) != 0) {
		free(old);
		return act_fail(a, "cannot back up %s: %s", sys,
				strerror(errno));
	}
	free(old);
	if (!a->dry_run && fsx_remove(p) != 0)
		return act_fail(a, "cannot remove %s: %s", sys,
				strerror(errno));
	act_change(a, sys, CHANGE_REMOVED);
	return 0;
}

int act_link(struct act *a, const char *sys, const char *target)
{
	char have[PATH_UNDER_MAX], p[PATH_UNDER_MAX];
	ssize_t n;

	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, sys));
	n = fsx_readlink(p, have, sizeof(have) - 1);
	if (n >= 0) {
		have[n] = '\0';
		if (strcmp(have, target) == 0 && act_ledger_has(a, L_LINK, sys))
			return 0;
	}
	if (act_foreign(a, sys))
		return act_fail(a, "%s exists and was not made by tsctui", sys);
	if (act_parent_dirs(a, sys) != 0 || act_ledger_add(a, L_LINK, sys) != 0)
		return -1;
	if (!a->dry_run) {
		if (fsx_remove(p) != 0)
			return act_fail(a, "cannot replace %s: %s", sys,
					strerror(errno));
		fsx_fault_point();
		if (fsx_symlink(target, p) != 0)
			return act_fail(a, "cannot link %s: %s", sys,
					strerror(errno));
	}
	act_change(a, sys, CHANGE_CREATED);
	return 0;
}

int act_drop(struct act *a, const char *sys)
{
	size_t i;

	for (i = 0; i < a->nledger; i++) {
		if ((a->ledger[i].kind == L_FILE ||
		     a->ledger[i].kind == L_LINK) &&
		    strcmp(a->ledger[i].path, sys) == 0) {
			/* The file, then its entry: a kill between leaves an
			 * entry whose undoing is a no-op. */
			if (!a->dry_run &&
			    fsx_remove(act_path_nofollow(a, sys)) != 0)
				return act_fail(a, "cannot remove %s: %s", sys,
						strerror(errno));
			act_ledger_forget_at(a, i);
			act_change(a, sys, CHANGE_REMOVED);
			return a->journal ? act_ledger_save(a) : 0;
		}
	}
	return 0;
}

/* ---- files outside the ledger ---- */

int act_write(struct act *a, const char *sys, const void *data, size_t len,
	      mode_t mode)
{
	char p[PATH_UNDER_MAX];
	bool had;

	snprintf(p, sizeof(p), "%s", act_path(a, sys));
	had = fsx_exists(p);
	if (!a->dry_run && fsx_write_atomic(p, data, len, mode) != 0)
		return write_failed(a, sys, p);
	act_change(a, sys, had ? CHANGE_MODIFIED : CHANGE_CREATED);
	return 0;
}

int act_append(struct act *a, const char *sys, const char *text)
{
	bool had = fsx_exists(act_path(a, sys));

	if (!a->dry_run) {
		fsx_fault_point();
		if (fsx_append(act_path(a, sys), text) != 0)
			return act_fail(a, "cannot append to %s: %s", sys,
					strerror(errno));
	}
	act_change(a, sys, had ? CHANGE_MODIFIED : CHANGE_CREATED);
	return 0;
}

int act_remove(struct act *a, const char *sys)
{
	char p[PATH_UNDER_MAX];

	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, sys));
	if (!a->dry_run)
		act_drop_temp(p);
	if (!fsx_exists(p))
		return 0;
	if (!a->dry_run && fsx_remove(p) != 0)
		return act_fail(a, "cannot remove %s: %s", sys,
				strerror(errno));
	act_change(a, sys, CHANGE_REMOVED);
	return 0;
}

int act_mkdir(struct act *a, const char *sys, mode_t mode)
{
	if (fsx_is_dir(act_path(a, sys)) || a->dry_run)
		return 0;
	fsx_fault_point();
	if (fsx_mkdir(act_path_nofollow(a, sys), mode) != 0 && errno != EEXIST)
		return act_fail(a, "cannot create %s: %s", sys,
				strerror(errno));
	return 0;
}

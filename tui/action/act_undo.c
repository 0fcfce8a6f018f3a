/* SPDX-License-Identifier: MIT */
/* The ledger's replay: its entries undone newest first, each by its
 * kind's row in one table (the undoing, and for a dry run the plan of
 * it).  An entry is data: the core undoes it by itself, never by calling
 * the action that made it. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "act_core.h"

/* Is sys the ledger's own directory, or one above it?  Those go last,
 * after the ledger file itself. */
static bool holds_ledger(const char *sys)
{
	size_t n = strlen(sys);

	return !strncmp(TSCTUI_LEDGER, sys, n) && TSCTUI_LEDGER[n] == '/';
}

/* Is sys a file the ledger keeps for itself that is gone by now: the
 * ledger file once uninstall took it, a backup once its entry was
 * settled? */
static bool bookkeeping_gone(struct act *a, const char *sys)
{
	size_t n = strlen(TSCTUI_BACKUP), i, l = strlen(sys),
	       k = strlen(ACT_LINK_SUFFIX);
	char link[PATH_UNDER_MAX];

	for (i = 0; i < a->ngone; i++)
		if (!strcmp(a->gone[i], sys))
			return true;
	if (!strcmp(sys, TSCTUI_LEDGER))
		return a->ledger_removed;
	/* a link's backup names the link with a suffix (act_take) */
	snprintf(link, sizeof(link), "%.*s", (int)(l > n + k ? l - k : 0),
		 sys + n);
	return !strncmp(sys, TSCTUI_BACKUP, n) && sys[n] == '/' &&
	       !fsx_is_dir(act_path(a, sys)) &&
	       !act_ledger_has(a, L_BACKUP, sys + n) &&
	       !act_ledger_has(a, L_VARBACKUP, sys + n) &&
	       !(l > n + k && !strcmp(sys + l - k, ACT_LINK_SUFFIX) &&
		 act_ledger_has(a, L_UNLINKED, link));
}

/* Would the directory sys be empty once the changes planned so far are
 * made?  (A dry run removes nothing, so the replay asks this instead of
 * trying rmdir.) */
static bool emptied(struct act *a, const char *sys)
{
	char child[PATH_UNDER_MAX];
	struct dirent *e;
	bool empty = true;
	size_t i;
	DIR *d = fsx_opendir(act_path(a, sys));

	if (!d)
		return false;
	while (empty && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(child, sizeof(child), "%s/%s", sys, e->d_name);
		empty = bookkeeping_gone(a, child);
		for (i = 0; i < a->nchanges && !empty; i++)
			empty = !strcmp(a->changes[i].path, child) &&
				a->changes[i].what == CHANGE_REMOVED;
	}
	closedir(d);
	return empty;
}

/* A file or link tsctui created, and an EFI variable: gone. */
static int undo_file(struct act *a, const struct ledger_entry *e)
{
	char p[PATH_UNDER_MAX];
	bool had;

	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, e->path));
	act_drop_temp(p);
	had = fsx_exists(p);
	if (fsx_remove(p) != 0)
		return -1;
	if (had)
		act_change(a, e->path, CHANGE_REMOVED);
	return 0;
}

static int undo_var(struct act *a, const struct ledger_entry *e)
{
	char p[PATH_UNDER_MAX], name[64];
	bool had;

	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, e->path));
	act_drop_temp(p);
	had = fsx_exists(p);
	if (act_var_del(a, act_var_name(e->path, name, sizeof(name))) != 0)
		return -1;
	if (had)
		act_change(a, e->path, CHANGE_REMOVED);
	return 0;
}

static void plan_gone(struct act *a, const struct ledger_entry *e)
{
	if (fsx_exists(act_path_nofollow(a, e->path)))
		act_change(a, e->path, CHANGE_REMOVED);
}

/* A directory tsctui created: only when empty, as someone else may have
 * put files in it. */
static int undo_dir(struct act *a, const struct ledger_entry *e)
{
	fsx_fault_point();
	if (fsx_rmdir(act_path_nofollow(a, e->path)) == 0) {
		act_change(a, e->path, CHANGE_REMOVED);
		return 0;
	}
	return errno == ENOENT || errno == ENOTEMPTY || errno == EEXIST ? 0
									: -1;
}

static void plan_dir(struct act *a, const struct ledger_entry *e)
{
	if (!bookkeeping_gone(a, e->path) && emptied(a, e->path))
		act_change(a, e->path, CHANGE_REMOVED);
}

/* grubby added tsc=nowatchdog to every kernel: grubby takes it back.  A
 * dry run names the run (and, under another root, says it cannot). */
static int undo_grubby(struct act *a, const struct ledger_entry *e)
{
	const char *tool = act_grubby_tool(a);
	/* which edit the entry takes back: its key says */
	bool reliable = !strcmp(e->path, ACT_GRUBBY_RELIABLE_KEY);
	const char *arg = reliable ? ACT_GRUBBY_RELIABLE : ACT_GRUBBY_ARG;

	if (!tool) {
		act_fail(a,
			 "grubby %s %s %s the kernels' command lines and "
			 "cannot be run here (under --root): run `grubby "
			 "--update-kernel=ALL %s=%s` inside the system",
			 reliable ? "took" : "added", arg,
			 reliable ? "out of" : "to",
			 reliable ? "--args" : "--remove-args", arg);
		errno = EIO;
		return -1;
	}
	if (act_grubby_edit(a, tool, arg, reliable) != 0) {
		errno = EIO;
		return -1;
	}
	return 0;
}

static void plan_grubby(struct act *a, const struct ledger_entry *e)
{
	undo_grubby(a, e);
}

/* Someone else's link that install --migrate removed: made again from
 * the target its backup holds (unless something is there by now), then
 * the backup goes.  No backup: never removed, or already put back. */
static int undo_unlinked(struct act *a, const struct ledger_entry *e)
{
	char bsys[PATH_UNDER_MAX], b[PATH_UNDER_MAX], p[PATH_UNDER_MAX];
	size_t len;
	char *target;

	act_link_backup_of(e->path, bsys, sizeof(bsys));
	snprintf(b, sizeof(b), "%s", act_path_nofollow(a, bsys));
	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, e->path));
	act_drop_temp(b);
	target = fsx_read_own(b, &len);
	if (!target)
		return errno == ENOENT ? 0 : -1;
	if (!fsx_exists(p)) {
		fsx_fault_point();
		if (fsx_symlink(target, p) != 0) {
			free(target);
			return -1;
		}
		act_change(a, e->path, CHANGE_CREATED);
	}
	free(target);
	return fsx_remove(b);
}

static void plan_unlinked(struct act *a, const struct ledger_entry *e)
{
	char b[PATH_UNDER_MAX];

	act_link_backup_of(e->path, b, sizeof(b));
	if (fsx_exists(act_path_nofollow(a, b)) &&
	    !fsx_exists(act_path_nofollow(a, e->path)))
		act_change(a, e->path, CHANGE_CREATED);
}

/* A begin entry goes with its action (act_commit, act_abort). */
static int undo_nothing(struct act *a, const struct ledger_entry *e)
{
	(void)a;
	(void)e;
	return 0;
}

static void plan_nothing(struct act *a, const struct ledger_entry *e)
{
	(void)a;
	(void)e;
}

static const struct {
	/* The entry undone for real: 0, or -1 with errno. */
	int (*undo)(struct act *a, const struct ledger_entry *e);
	/* What undo would change, into the change list (a dry run). */
	void (*plan)(struct act *a, const struct ledger_entry *e);
} undo_table[] = {
	[L_DIR] = { undo_dir, plan_dir },
	[L_FILE] = { undo_file, plan_gone },
	[L_LINK] = { undo_file, plan_gone },
	[L_BACKUP] = { act_backup_restore, act_backup_plan },
	[L_VAR] = { undo_var, plan_gone },
	[L_VARBACKUP] = { act_backup_restore, act_backup_plan },
	[L_BEGIN] = { undo_nothing, plan_nothing },
	[L_GRUBBY] = { undo_grubby, plan_grubby },
	[L_UNLINKED] = { undo_unlinked, plan_unlinked },
};
_Static_assert(sizeof(undo_table) / sizeof(undo_table[0]) == LEDGER_KINDS,
	       "every ledger kind has its undo");

static int undo_one(struct act *a, const struct ledger_entry *e)
{
	return undo_table[e->kind].undo(a, e);
}

static void undo_planned(struct act *a, const struct ledger_entry *e)
{
	undo_table[e->kind].plan(a, e);
}

int act_ledger_undo(struct act *a, size_t from)
{
	char left[512] = "";
	size_t i = a->nledger, nleft = 0, other = 0;
	int saved;

	while (i-- > from) {
		struct ledger_entry *e = &a->ledger[i];

		/* A begin entry goes with its action (act_commit,
		 * act_abort); the ledger's own directories go last. */
		if (e->kind == L_BEGIN ||
		    (e->kind == L_DIR && holds_ledger(e->path)))
			continue;
		if (a->dry_run) {
			/* planned once the entry is gone, as its file is */
			struct ledger_entry was = { e->kind, strdup(e->path) };

			act_ledger_forget_at(a, i);
			undo_planned(a, &was);
			free(was.path);
			continue;
		}
		if (undo_one(a, e) != 0) {
			saved = errno;
			if (nleft++ < 4)
				snprintf(left + strlen(left),
					 sizeof(left) - strlen(left),
					 "%s%s (%s)", nleft > 1 ? ", " : "",
					 e->path, strerror(saved));
			continue;
		}
		act_ledger_forget_at(a, i);
		if (act_ledger_save(a) != 0)
			return -1;
	}
	if (nleft)
		return act_fail(a,
				"could not undo %zu change%s, left as they "
				"are and still in %s for the next run: %s%s",
				nleft, nleft > 1 ? "s" : "", TSCTUI_LEDGER,
				left, nleft > 4 ? ", ..." : "");
	/* Nothing left but begin entries and the ledger's own directories:
	 * the ledger file goes, then they do, deepest first.  (A kill
	 * between leaves an empty /var/lib/tsctui, which act_begin and
	 * uninstall take as tsctui's.) */
	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind != L_BEGIN &&
		    !(a->ledger[i].kind == L_DIR &&
		      holds_ledger(a->ledger[i].path)))
			other++;
	if (other)
		return 0;
	if (!a->dry_run) {
		if (fsx_remove(act_path_nofollow(a, TSCTUI_LEDGER)) != 0)
			return act_fail(a, "cannot remove %s: %s",
					TSCTUI_LEDGER, strerror(errno));
	}
	a->ledger_removed = true;
	for (i = a->nledger; i-- > 0;) {
		struct ledger_entry e = a->ledger[i];

		if (e.kind == L_DIR && a->dry_run)
			undo_planned(a, &e);
		else if (e.kind == L_DIR)
			undo_one(a, &e);
		free(e.path);
	}
	a->nledger = 0;
	a->ledger_dirty = false;
	return 0;
}

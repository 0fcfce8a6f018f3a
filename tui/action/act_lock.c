/* SPDX-License-Identifier: MIT */
/* One action at a time: the lock, and an action's begin, commit and
 * abort in the ledger (act.h says how a killed one is settled). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "act_core.h"

#define LOCK_FILE "/run/tsctui.lock"
#define LOCK_WAIT_DEFAULT 10

int act_lock(struct act *a, bool forever)
{
	char p[PATH_UNDER_MAX];
	const char *env = getenv("TSCTUI_LOCK_WAIT");
	double wait = env && env[0] ? strtod(env, NULL) : LOCK_WAIT_DEFAULT;
	struct timespec step = { 0, 50 * 1000 * 1000 };
	bool dir = strcmp(a->root, "/") != 0 || !fsx_is_dir("/run");
	double waited = 0;
	int fd;

	if (a->dry_run || a->lock_fd >= 0)
		return 0;
	/* /run/tsctui.lock on the running system; another root (a disk
	 * from a live USB, whose /run holds anything at all) is locked as
	 * a whole, by its own directory, so the lock is never a device
	 * node or a link of the disk's making. */
	snprintf(p, sizeof(p), "%s",
		 dir ? act_path(a, "/") : act_path_nofollow(a, LOCK_FILE));
	fd = dir ? fsx_open_dir(p) : fsx_open_lock(p);
	if (fd < 0)
		return act_fail(a, "cannot open the lock %s: %s",
				dir ? a->root : LOCK_FILE, strerror(errno));
	while (flock(fd, LOCK_EX | (forever ? 0 : LOCK_NB)) != 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK || waited >= wait) {
			close(fd);
			return act_fail(a,
					"another tsctui is changing this "
					"system (it holds %s); try again when "
					"it has finished",
					dir ? a->root : LOCK_FILE);
		}
		nanosleep(&step, NULL);
		waited += 0.05;
	}
	a->lock_fd = fd;
	return 0;
}

static bool dir_is_empty(struct act *a, const char *sys)
{
	DIR *d = fsx_opendir(act_path(a, sys));
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

int act_begin(struct act *a, const char *action, unsigned flags)
{
	char name[32];
	ssize_t mark;
	size_t i;

	/* The entry's word: the action's name, a-z and '-' ("guard
	 * reset" is guard-reset). */
	snprintf(name, sizeof(name), "%s", action);
	for (i = 0; name[i]; i++)
		if (name[i] < 'a' || name[i] > 'z')
			name[i] = '-';

	if (act_lock(a, flags & ACT_BOOT_OK) != 0 || act_ledger_load(a) != 0)
		return -1;
	a->begun_with = a->nledger;
	if (flags & ACT_BOOT_OK) {
		/* its changes are a backup entry at most, saved ahead */
		a->journal = a->nledger > 0;
		return 0;
	}
	if (!a->dry_run)
		act_drop_temp(act_path_nofollow(a, TSCTUI_LEDGER));
	mark = act_ledger_find_begin(a);
	if (mark >= 0 && !strcmp(a->ledger[mark].path, "uninstall")) {
		if (!(flags & ACT_UNINSTALL))
			return act_fail(a, "an uninstall was interrupted; run "
					   "`tsctui uninstall` to finish it");
		a->journal = true;
		return 0; /* it goes on from where it stopped */
	}
	if (mark >= 0) {
		/* Killed half way: what it did is undone first (uninstall
		 * undoes it with the rest). */
		a->journal = true;
		act_say(a, SAY_UNDONE_FIRST, a->ledger[mark].path, SAY_END);
		if (!(flags & ACT_UNINSTALL) &&
		    act_ledger_undo(a, (size_t)mark + 1) != 0)
			return -1;
		mark = act_ledger_find_begin(a);
		if (mark >= 0)
			act_ledger_forget_at(a, (size_t)mark);
		if (act_ledger_save(a) != 0)
			return -1;
		a->journal = false;
	}
	/* An empty state directory and no ledger: an earlier run's, killed
	 * between making it and the first entry (or uninstall's last
	 * step). */
	if (a->nledger == 0 && dir_is_empty(a, TSCTUI_STATE_DIR)) {
		if (act_ledger_add(a, L_DIR, TSCTUI_STATE_DIR) != 0)
			return -1;
		a->adopted = true;
	}
	{
		/* Where the ledger goes must take it, before anything
		 * else is done. */
		const char *d = fsx_is_dir(act_path(a, TSCTUI_STATE_DIR))
					? TSCTUI_STATE_DIR
					: "/var/lib";

		if (!a->dry_run && fsx_is_dir(act_path(a, d)) &&
		    !fsx_dir_writable(act_path(a, d)))
			return act_fail(a,
					"%s is not writable (%s); nothing "
					"changed",
					d, strerror(errno));
	}
	/* The start first, then the directory the ledger lives in: the
	 * first entries are saved together once it exists. */
	if (act_ledger_add(a, L_BEGIN, name) != 0 ||
	    act_mkdirs(a, TSCTUI_STATE_DIR, 0755) != 0 ||
	    act_ledger_save(a) != 0)
		return -1;
	a->journal = true;
	return 0;
}

int act_commit(struct act *a)
{
	size_t i = a->nledger;

	while (i-- > 0)
		if (a->ledger[i].kind == L_BEGIN) {
			act_ledger_forget_at(a, i);
			break;
		}
	return act_ledger_save(a);
}

void act_abort(struct act *a)
{
	ssize_t mark = -1;
	size_t i = a->nledger;
	char err[sizeof(a->error)];

	while (i-- > 0)
		if (a->ledger[i].kind == L_BEGIN) {
			mark = (ssize_t)i;
			break;
		}
	if (mark < 0)
		return;
	/* The error that made it fail comes first; what could not be
	 * undone is said after it. */
	snprintf(err, sizeof(err), "%s", a->error);
	a->error[0] = '\0';
	if (act_ledger_undo(a, (size_t)mark + 1) == 0) {
		mark = act_ledger_find_begin(a);
		if (mark >= 0)
			act_ledger_forget_at(a, (size_t)mark);
		act_ledger_save(a);
	} else {
		char more[sizeof(a->error)];

		snprintf(more, sizeof(more), "%s", a->error);
		snprintf(a->error, sizeof(a->error), "%.500s; %.500s", err,
			 more);
		/* Undoing failed too: that is what to see to first. */
		a->hint = ACT_HINT_NONE;
		return;
	}
	snprintf(a->error, sizeof(a->error), "%s", err);
}

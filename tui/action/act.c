/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../source/config.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "act.h"

static const char *const kind_names[] = { "dir", "file", "link", "backup" };

void act_init(struct act *a, const char *root, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->root = root;
	a->name = name;
}

void act_free(struct act *a)
{
	size_t i;

	for (i = 0; i < a->nchanges; i++)
		free(a->changes[i].path);
	for (i = 0; i < a->nledger; i++)
		free(a->ledger[i].path);
	for (i = 0; i < a->nruns; i++)
		free(a->runs[i]);
	for (i = 0; i < a->ngone; i++)
		free(a->gone[i]);
	a->nchanges = a->nledger = a->nruns = a->ngone = 0;
}

/* The result lives until 7 more calls; copy it to keep it longer. */
const char *act_path(struct act *a, const char *sys)
{
	static char bufs[8][PATH_UNDER_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	if (!path_under(a->root, sys, b, sizeof(bufs[0])))
		b[0] = '\0';
	return b;
}

int act_fail(struct act *a, const char *fmt, ...)
{
	va_list ap;

	if (a->error[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(a->error, sizeof(a->error), fmt, ap);
	va_end(ap);
	return -1;
}

void act_note(struct act *a, const char *fmt, ...)
{
	size_t n = strlen(a->message);
	va_list ap;

	if (n && n + 1 < sizeof(a->message))
		a->message[n++] = '\n';
	va_start(ap, fmt);
	vsnprintf(a->message + n, sizeof(a->message) - n, fmt, ap);
	va_end(ap);
}

void act_done(struct act *a, const char *fmt, ...)
{
	char line[sizeof(a->message)];
	va_list ap;

	if (a->dry_run)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	act_note(a, "%s", line);
}

void act_detail(struct act *a, const char *sys, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	for (i = 0; i < a->nchanges; i++) {
		if (strcmp(a->changes[i].path, sys))
			continue;
		va_start(ap, fmt);
		vsnprintf(a->changes[i].detail, sizeof(a->changes[i].detail),
			  fmt, ap);
		va_end(ap);
		return;
	}
}

const char *act_verb(const char *what)
{
	if (!strcmp(what, "created"))
		return "create";
	if (!strcmp(what, "removed"))
		return "remove";
	return "modify";
}

void act_changed(struct act *a, const char *sys, const char *what)
{
	size_t i;

	for (i = 0; i < a->nchanges; i++) {
		if (strcmp(a->changes[i].path, sys) == 0) {
			/* created then modified is still created; created
			 * then removed is nothing at all */
			if (strcmp(what, "removed") == 0 &&
			    strcmp(a->changes[i].what, "created") == 0) {
				free(a->changes[i].path);
				a->changes[i] = a->changes[--a->nchanges];
			} else if (strcmp(a->changes[i].what, "created")) {
				a->changes[i].what = what;
			}
			return;
		}
	}
	if (a->nchanges < ACT_MAX_CHANGES)
		a->changes[a->nchanges++] =
			(struct change){ strdup(sys), what, "" };
}

/* ---- the ledger ---- */

int act_ledger_load(struct act *a)
{
	char *data, *line, *save = NULL, *sp;
	size_t len;
	unsigned k;

	data = fsx_read(act_path(a, TSCTUI_LEDGER), &len);
	if (!data)
		return errno == ENOENT
			       ? 0
			       : act_fail(a, "cannot read %s: %s",
					  TSCTUI_LEDGER, strerror(errno));
	for (line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sp = strchr(line, ' ');
		if (!sp || a->nledger == ACT_MAX_LEDGER) {
			free(data);
			return act_fail(a,
					"%s is damaged; not touching "
					"anything",
					TSCTUI_LEDGER);
		}
		*sp = '\0';
		for (k = 0; k < 4; k++)
			if (strcmp(line, kind_names[k]) == 0)
				break;
		if (k == 4 || sp[1] != '/') {
			free(data);
			return act_fail(a,
					"%s is damaged; not touching "
					"anything",
					TSCTUI_LEDGER);
		}
		a->ledger[a->nledger++] =
			(struct ledger_entry){ (enum ledger_kind)k,
					       strdup(sp + 1) };
	}
	free(data);
	return 0;
}

static int add(struct act *a, enum ledger_kind k, const char *sys)
{
	if (act_ledger_has(a, k, sys))
		return 0;
	if (a->nledger == ACT_MAX_LEDGER)
		return act_fail(a, "too many changes to record");
	a->ledger[a->nledger++] = (struct ledger_entry){ k, strdup(sys) };
	a->ledger_dirty = true;
	return 0;
}

bool act_ledger_has(const struct act *a, enum ledger_kind k, const char *sys)
{
	size_t i;

	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind == k &&
		    strcmp(a->ledger[i].path, sys) == 0)
			return true;
	return false;
}

static void forget(struct act *a, size_t i)
{
	free(a->ledger[i].path);
	memmove(&a->ledger[i], &a->ledger[i + 1],
		(a->nledger - i - 1) * sizeof(a->ledger[0]));
	a->nledger--;
	a->ledger_dirty = true;
}

int act_ledger_save(struct act *a)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *f;
	int rc;

	if (!a->ledger_dirty || a->dry_run)
		return 0;
	if (a->nledger == 0)
		return fsx_remove(act_path(a, TSCTUI_LEDGER));
	f = open_memstream(&out, &len);
	if (!f)
		return act_fail(a, "out of memory");
	for (i = 0; i < a->nledger; i++)
		fprintf(f, "%s %s\n", kind_names[a->ledger[i].kind],
			a->ledger[i].path);
	fclose(f);
	rc = fsx_write_atomic(act_path(a, TSCTUI_LEDGER), out, len, 0644);
	free(out);
	if (rc != 0)
		return act_fail(a, "cannot write %s: %s", TSCTUI_LEDGER,
				strerror(errno));
	a->ledger_dirty = false;
	return 0;
}

static const char *backup_of(const char *sys)
{
	static char sysb[PATH_UNDER_MAX];

	snprintf(sysb, sizeof(sysb), "%s%s", TSCTUI_BACKUP, sys);
	return sysb;
}

/* Is sys a file the ledger keeps for itself that is gone by now: the
 * ledger file once uninstall took it, a backup once its entry was
 * settled? */
static bool bookkeeping_gone(struct act *a, const char *sys)
{
	size_t n = strlen(TSCTUI_BACKUP), i;

	for (i = 0; i < a->ngone; i++)
		if (!strcmp(a->gone[i], sys))
			return true;
	if (!strcmp(sys, TSCTUI_LEDGER))
		return a->ledger_removed;
	return !strncmp(sys, TSCTUI_BACKUP, n) && sys[n] == '/' &&
	       !fsx_is_dir(act_path(a, sys)) &&
	       !act_ledger_has(a, L_BACKUP, sys + n);
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
	DIR *d = opendir(act_path(a, sys));

	if (!d)
		return false;
	while (empty && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(child, sizeof(child), "%s/%s", sys, e->d_name);
		empty = bookkeeping_gone(a, child);
		for (i = 0; i < a->nchanges && !empty; i++)
			empty = !strcmp(a->changes[i].path, child) &&
				!strcmp(a->changes[i].what, "removed");
	}
	closedir(d);
	return empty;
}

/* One ledger entry's undoing, as a plan. */
static void undo_planned(struct act *a, const struct ledger_entry *e)
{
	switch (e->kind) {
	case L_FILE:
	case L_LINK:
		act_changed(a, e->path, "removed");
		break;
	case L_DIR:
		if (!bookkeeping_gone(a, e->path) && emptied(a, e->path))
			act_changed(a, e->path, "removed");
		break;
	case L_BACKUP: {
		char d[PATH_UNDER_MAX], *slash;

		act_changed(a, e->path, "modified");
		act_detail(a, e->path, "restored from %s%s", TSCTUI_BACKUP,
			   e->path);
		/* The backup's directories go with it, unreported. */
		snprintf(d, sizeof(d), "%s", backup_of(e->path));
		while ((slash = strrchr(d, '/')) &&
		       strlen(d) > strlen(TSCTUI_BACKUP)) {
			*slash = '\0';
			if (!emptied(a, d) || a->ngone == ACT_MAX_GONE)
				break;
			a->gone[a->ngone++] = strdup(d);
		}
		break;
	}
	}
}

int act_ledger_undo(struct act *a, size_t from)
{
	int rc = 0;

	while (a->nledger > from) {
		size_t i = a->nledger - 1;
		struct ledger_entry *e = &a->ledger[i];
		char p[PATH_UNDER_MAX];

		snprintf(p, sizeof(p), "%s", act_path(a, e->path));

		if (a->dry_run) {
			/* planned once the entry is gone, as its file is */
			struct ledger_entry was = { e->kind, strdup(e->path) };

			forget(a, i);
			undo_planned(a, &was);
			free(was.path);
			continue;
		}
		switch (e->kind) {
		case L_FILE:
		case L_LINK:
			if (fsx_remove(p) != 0)
				rc = act_fail(a, "cannot remove %s: %s",
					      e->path, strerror(errno));
			else
				act_changed(a, e->path, "removed");
			break;
		case L_DIR:
			/* Only when empty: someone else may have put files
			 * in a directory we made. */
			if (rmdir(p) == 0)
				act_changed(a, e->path, "removed");
			else if (errno != ENOENT && errno != ENOTEMPTY)
				rc = act_fail(a, "cannot remove %s: %s",
					      e->path, strerror(errno));
			break;
		case L_BACKUP: {
			char bsys[PATH_UNDER_MAX], b[PATH_UNDER_MAX];
			struct stat st;
			mode_t mode = 0644;

			snprintf(bsys, sizeof(bsys), "%s", backup_of(e->path));
			snprintf(b, sizeof(b), "%s", act_path(a, bsys));
			if (stat(p, &st) == 0)
				mode = st.st_mode & 07777;
			if (fsx_copy_atomic(b, p, mode) != 0) {
				rc = act_fail(a,
					      "cannot restore %s from %s: %s",
					      e->path, bsys, strerror(errno));
				break;
			}
			act_changed(a, e->path, "modified");
			fsx_remove(b);
			/* The backup's directories go with it. */
			{
				char d[PATH_UNDER_MAX], *slash;

				snprintf(d, sizeof(d), "%s", b);
				while ((slash = strrchr(d, '/')) &&
				       strlen(d) > strlen(act_path(
							   a, TSCTUI_BACKUP))) {
					*slash = '\0';
					if (rmdir(d) != 0)
						break;
				}
			}
			break;
		}
		}
		if (rc != 0)
			return rc;
		forget(a, i);
	}
	return rc;
}

/* ---- recorded operations ---- */

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
		if (!a->dry_run && mkdir(act_path(a, part), mode) != 0)
			return act_fail(a, "cannot create %s: %s", part,
					strerror(errno));
		add(a, L_DIR, part);
		act_changed(a, part, "created");
	}
	return 0;
}

static int parent_dirs(struct act *a, const char *sys)
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
	return fsx_exists(act_path(a, sys)) &&
	       !act_ledger_has(a, L_FILE, sys) &&
	       !act_ledger_has(a, L_LINK, sys);
}

int act_put(struct act *a, const char *sys, const void *data, size_t len,
	    mode_t mode)
{
	bool existed = fsx_exists(act_path(a, sys));

	if (act_foreign(a, sys))
		return act_fail(a,
				"%s exists and was not installed by "
				"tsctui; not overwriting it",
				sys);
	if (parent_dirs(a, sys) != 0)
		return -1;
	if (existed) {
		size_t have;
		char *old = fsx_read(act_path(a, sys), &have);
		bool same = old && have == len && memcmp(old, data, len) == 0;

		free(old);
		if (same)
			return 0; /* idempotent: nothing to do */
	}
	if (!a->dry_run &&
	    fsx_write_atomic(act_path(a, sys), data, len, mode) != 0)
		return act_fail(a, "cannot write %s: %s", sys, strerror(errno));
	add(a, L_FILE, sys);
	act_changed(a, sys, existed ? "modified" : "created");
	return 0;
}

int act_modify(struct act *a, const char *sys, const void *data, size_t len,
	       mode_t mode)
{
	char p[PATH_UNDER_MAX];
	size_t have;
	char *old;
	bool same;

	if (act_ledger_has(a, L_FILE, sys))
		return act_put(a, sys, data, len, mode);
	/* act_path's buffers rotate; this one must outlive other calls. */
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
	if (!act_ledger_has(a, L_BACKUP, sys)) {
		const char *bsys = backup_of(sys);
		char bcopy[PATH_UNDER_MAX];

		snprintf(bcopy, sizeof(bcopy), "%s", bsys);
		if (parent_dirs(a, bcopy) != 0 ||
		    (!a->dry_run && fsx_write_atomic(act_path(a, bcopy), old,
						     have, 0600) != 0)) {
			free(old);
			return act_fail(a, "cannot back up %s: %s", sys,
					strerror(errno));
		}
		add(a, L_BACKUP, sys);
	}
	free(old);
	if (!a->dry_run && fsx_write_atomic(p, data, len, mode) != 0)
		return act_fail(a, "cannot write %s: %s", sys, strerror(errno));
	act_changed(a, sys, "modified");
	return 0;
}

int act_link(struct act *a, const char *sys, const char *target)
{
	char have[PATH_UNDER_MAX];
	ssize_t n;

	n = readlink(act_path(a, sys), have, sizeof(have) - 1);
	if (n >= 0) {
		have[n] = '\0';
		if (strcmp(have, target) == 0 && act_ledger_has(a, L_LINK, sys))
			return 0;
	}
	if (act_foreign(a, sys))
		return act_fail(a, "%s exists and was not made by tsctui", sys);
	if (parent_dirs(a, sys) != 0)
		return -1;
	if (a->dry_run)
		goto recorded;
	unlink(act_path(a, sys));
	if (symlink(target, act_path(a, sys)) != 0)
		return act_fail(a, "cannot link %s: %s", sys, strerror(errno));
recorded:
	add(a, L_LINK, sys);
	act_changed(a, sys, "created");
	return 0;
}

int act_drop(struct act *a, const char *sys)
{
	size_t i;

	for (i = 0; i < a->nledger; i++) {
		if ((a->ledger[i].kind == L_FILE ||
		     a->ledger[i].kind == L_LINK) &&
		    strcmp(a->ledger[i].path, sys) == 0) {
			if (!a->dry_run && fsx_remove(act_path(a, sys)) != 0)
				return act_fail(a, "cannot remove %s: %s", sys,
						strerror(errno));
			forget(a, i);
			act_changed(a, sys, "removed");
			return 0;
		}
	}
	return 0;
}

/* ---- files outside the ledger, and tools ---- */

int act_write(struct act *a, const char *sys, const void *data, size_t len,
	      mode_t mode)
{
	bool had = fsx_exists(act_path(a, sys));

	if (!a->dry_run &&
	    fsx_write_atomic(act_path(a, sys), data, len, mode) != 0)
		return act_fail(a, "cannot write %s: %s", sys, strerror(errno));
	act_changed(a, sys, had ? "modified" : "created");
	return 0;
}

int act_append(struct act *a, const char *sys, const char *text)
{
	bool had = fsx_exists(act_path(a, sys));
	FILE *f;

	if (!a->dry_run) {
		f = fopen(act_path(a, sys), "a");
		if (!f)
			return act_fail(a, "cannot append to %s: %s", sys,
					strerror(errno));
		fputs(text, f);
		if (fclose(f) != 0)
			return act_fail(a, "cannot write %s", sys);
	}
	act_changed(a, sys, had ? "modified" : "created");
	return 0;
}

int act_remove(struct act *a, const char *sys)
{
	if (!fsx_exists(act_path(a, sys)))
		return 0;
	if (!a->dry_run && fsx_remove(act_path(a, sys)) != 0)
		return act_fail(a, "cannot remove %s: %s", sys,
				strerror(errno));
	act_changed(a, sys, "removed");
	return 0;
}

int act_mkdir(struct act *a, const char *sys, mode_t mode)
{
	if (fsx_is_dir(act_path(a, sys)) || a->dry_run)
		return 0;
	if (mkdir(act_path(a, sys), mode) != 0 && errno != EEXIST)
		return act_fail(a, "cannot create %s: %s", sys,
				strerror(errno));
	return 0;
}

int act_run(struct act *a, const char *cmd, const char *shown)
{
	if (a->nruns < ACT_MAX_RUNS)
		a->runs[a->nruns++] = strdup(shown);
	return a->dry_run ? 0 : system(cmd);
}

void act_ledger_remove(struct act *a)
{
	if (!a->dry_run)
		fsx_remove(act_path(a, TSCTUI_LEDGER));
	a->ledger_removed = true;
}

void act_ledger_drop_backup(struct act *a, const char *sys)
{
	size_t i;

	if (!a->dry_run)
		fsx_remove(act_path(a, backup_of(sys)));
	for (i = 0; i < a->nledger; i++) {
		if (a->ledger[i].kind == L_BACKUP &&
		    !strcmp(a->ledger[i].path, sys)) {
			forget(a, i);
			return;
		}
	}
}

int act_installed(struct act *a, struct tsctui_conf *c)
{
	const char *why = NULL;
	int have = config_read(a->root, c, &why);

	if (have < 0)
		return act_fail(a, "%s", why);
	if (have == 0)
		return act_fail(a, "tsctui is not installed (run `tsctui "
				   "install` first)");
	return act_ledger_load(a);
}

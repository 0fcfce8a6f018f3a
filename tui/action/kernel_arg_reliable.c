/* SPDX-License-Identifier: MIT */
/*
 * tsctui kernel-arg reliable off: tsc=reliable out of every place the
 * managed system keeps Linux's arguments (GRUB's settings files, grubby's
 * entries, BLS entries and /etc/kernel/cmdline), each file backed up for
 * uninstall to put back, grubby's run recorded under its own key.  It is
 * never added: it hides a real warp, since the boot's warp test and the
 * watchdog are skipped and the clock can step back when a task changes
 * cores (limenode/tscsync needs it, DOMAIN 2).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "../util/words.h"
#include "actions.h"
#include "kernel_arg.h"
#include "loader_writing.h"

#define RELIABLE ACT_GRUBBY_RELIABLE
/* The settings of GRUB's generator that carry Linux's arguments. */
static const char *const grub_default_files[] = { "/etc/default/grub", NULL };
#define GRUB_DEFAULT_DIR "/etc/default/grub.d"
#define GRUB_CMDLINE_VAR "GRUB_CMDLINE_LINUX"

/* One line of /etc/default/grub without tok in a GRUB_CMDLINE_LINUX or
 * GRUB_CMDLINE_LINUX_DEFAULT value (quoted or not): a new string, or NULL
 * when the line is something else or has no tok. */
static char *default_line_without(const char *l, size_t n, const char *tok)
{
	size_t i = strspn(l, " \t"), v, e = n;
	char q = 0, qs[2] = "", *val, *edited, *out = NULL;

	if (strncmp(l + i, GRUB_CMDLINE_VAR, strlen(GRUB_CMDLINE_VAR)))
		return NULL;
	v = i + strlen(GRUB_CMDLINE_VAR);
	if (!strncmp(l + v, "_DEFAULT", 8))
		v += 8;
	if (v >= n || l[v] != '=')
		return NULL;
	v++;
	if (v < n && (l[v] == '"' || l[v] == '\'')) {
		q = l[v++];
		qs[0] = q;
		while (e > v && l[e - 1] != q)
			e--;
		if (e == v)
			return NULL; /* no closing quote: not ours to edit */
		e--;
	}
	val = strndup(l + v, e - v);
	if (val && words_has(val, tok) && (edited = words_remove(val, tok))) {
		if (asprintf(&out, "%.*s%s%s%.*s", (int)(v - (q ? 1 : 0)), l,
			     qs, edited, (int)(n - e), l + e) < 0)
			out = NULL;
		free(edited);
	}
	free(val);
	return out;
}

/* tok out of one of GRUB's settings files, every other byte kept. */
static int edit_default_grub(struct act *a, const char *sys, const char *tok)
{
	size_t len, at, n, i = 0;
	char *d = fsx_read(act_path(a, sys), &len), *out;
	bool edited = false;
	int rc;

	if (!d)
		return errno == ENOENT ? 0
				       : act_fail(a, "cannot read %s: %s", sys,
						  strerror(errno));
	out = malloc(len + 1);
	for (at = 0; out && at < len; at += n) {
		const char *nl = memchr(d + at, '\n', len - at);
		char *line;

		n = nl ? (size_t)(nl - (d + at)) : len - at;
		line = default_line_without(d + at, n, tok);
		if (line) {
			/* a removal never makes the line longer */
			memcpy(out + i, line, strlen(line));
			i += strlen(line);
			edited = true;
			free(line);
		} else {
			memcpy(out + i, d + at, n);
			i += n;
		}
		if (nl) {
			out[i++] = '\n';
			n++;
		}
	}
	free(d);
	if (!out)
		return act_fail(a, "out of memory");
	rc = edited ? act_modify(a, sys, out, i, 0644) : 0;
	free(out);
	return rc;
}

static int edit_default_grubs(struct act *a, const char *tok)
{
	char sys[600];
	struct dirent *e;
	size_t i;
	DIR *d;

	for (i = 0; grub_default_files[i]; i++)
		if (edit_default_grub(a, grub_default_files[i], tok) != 0)
			return -1;
	d = fsx_opendir(act_path(a, GRUB_DEFAULT_DIR));
	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l < 5 || strcmp(e->d_name + l - 4, ".cfg"))
			continue;
		snprintf(sys, sizeof(sys), GRUB_DEFAULT_DIR "/%.500s",
			 e->d_name);
		if (edit_default_grub(a, sys, tok) != 0) {
			closedir(d);
			return -1;
		}
	}
	if (d)
		closedir(d);
	return 0;
}

/* Does a BLS entry in dir (grubby's entries) carry tok on an options
 * line?  grubby's removal is undone by adding tok to every kernel, so it
 * runs only where one does. */
static bool entries_carry(struct act *a, const char *dir, const char *tok)
{
	char sys[600];
	struct dirent *e;
	bool found = false;
	DIR *d = fsx_opendir(act_path(a, dir));

	while (d && !found && (e = readdir(d))) {
		size_t l = strlen(e->d_name), len, at, n;
		char *t;

		if (l < 6 || strcmp(e->d_name + l - 5, ".conf"))
			continue;
		snprintf(sys, sizeof(sys), "%s/%.500s", dir, e->d_name);
		t = fsx_read(act_path(a, sys), &len);
		for (at = 0; t && at < len && !found; at += n + 1) {
			const char *nl = memchr(t + at, '\n', len - at);
			char *line;

			n = nl ? (size_t)(nl - (t + at)) : len - at;
			if (n < 8 || strncmp(t + at, "options", 7))
				continue;
			line = strndup(t + at + 7, n - 7);
			found = line && words_has(line, tok);
			free(line);
		}
		free(t);
	}
	if (d)
		closedir(d);
	return found;
}

/* Did this run record a change of the system since the ledger held
 * `from` entries?  (The change list is no count of them: a file the
 * settling of a killed run put back and this run edits again is one
 * entry there.)  The ledger's own directories are not a change. */
static bool recorded_since(const struct act *a, size_t from)
{
	size_t i, n = strlen(TSCTUI_STATE_DIR);

	for (i = from; i < a->nledger; i++)
		if (a->ledger[i].kind != L_DIR ||
		    strncmp(a->ledger[i].path, TSCTUI_STATE_DIR, n))
			return true;
	return false;
}

int kernel_arg_reliable_off(struct act *a)
{
	struct tsctui_conf c;
	enum karg_method method;
	enum act_hint hint = ACT_HINT_NONE;
	const char *why = NULL;
	char path[PATH_UNDER_MAX], *running;
	size_t carrying, from, len;
	bool live, changed;

	if (act_begin(a, "kernel-arg", 0) != 0)
		return -1;
	if (kernel_arg_method(a, &c, &method, &why, &hint) != 0) {
		act_fail_hint(a, hint, "%s", why);
		goto undo;
	}
	from = a->nledger;
	if ((c.loader == LOADER_GRUB || method != KARG_BLS) &&
	    edit_default_grubs(a, RELIABLE) != 0)
		goto undo;
	if (method == KARG_GRUBBY) {
		if (entries_carry(a, "/boot/loader/entries", RELIABLE)) {
			if (act_record(a, L_GRUBBY, ACT_GRUBBY_RELIABLE_KEY) !=
				    0 ||
			    act_grubby_edit(a, act_grubby_tool(a), RELIABLE,
					    false) != 0)
				goto undo;
		}
	} else {
		if (c.loader == LOADER_SDBOOT &&
		    kernel_arg_edit_cmdline(a, RELIABLE, false) != 0)
			goto undo;
		if (kernel_arg_edit_entries(a, &c, RELIABLE, false,
					    &carrying) != 0)
			goto undo;
		if (method == KARG_GRUB_DROPIN && recorded_since(a, from) &&
		    grub_regenerate(a) != 0)
			goto undo;
	}
	path_under(a->root, "/proc/cmdline", path, sizeof(path));
	running = fsx_read(path, &len);
	live = running && words_has(running, RELIABLE);
	free(running);
	changed = recorded_since(a, from);
	if (!changed) {
		/* nothing to do: what act_begin made for the ledger goes */
		act_abort(a);
		if (a->error[0])
			return -1;
	} else if (act_commit(a) != 0) {
		goto undo;
	}
	if (changed)
		act_done(a, SAY_RELIABLE_REMOVED, SAY_END);
	else if (live)
		/* already taken out this boot, or set where tsctui does not
		 * manage Linux's arguments */
		act_done(a, SAY_RELIABLE_LIVE_ONLY, SAY_END);
	else
		act_done(a, SAY_RELIABLE_NONE, SAY_END);
	return 0;
undo:
	act_abort(a);
	return -1;
}

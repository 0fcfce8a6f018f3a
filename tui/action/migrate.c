/* SPDX-License-Identifier: MIT */
/*
 * install --migrate: Zanasin/tscsync's job taken over (migrate.h says what
 * it installs).  Everything is found and checked before the first write;
 * then each removal is in the ledger before it is made (act_modify for its
 * block in custom.cfg and its grubenv variables, act_take for whole files
 * and links), so a kill leaves what the next action or uninstall puts
 * back.  Only tscsync's block leaves custom.cfg: the rest of the file is
 * the user's.  A file a package owns is the package manager's to remove.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/grubenv.h"
#include "../source/efivar.h"
#include "../source/loader.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "act.h"
#include "migrate.h"

#define TSCSYNC_UNIT "tscsync-report.service"
#define TSCSYNC_DRIVER SD_DRIVERS_DIR "/tscsyncx64.efi"
#define TSCSYNC_OPTIONS "/EFI/tscsync/options"
#define TSCSYNC_DISABLED "/EFI/tscsync/disabled"
/* Where GRUB's 41_custom finds custom.cfg, and the grubenv beside it. */
static const char *const grub_dirs[] = { "/boot/grub", "/boot/grub2", NULL };
static const char *const unit_dirs[] = { "/etc/systemd/system",
					 "/usr/local/lib/systemd/system",
					 "/usr/lib/systemd/system",
					 "/lib/systemd/system", NULL };
static const char *const entry_dirs[] = { "/loader/entries", NULL };
#define DPKG_INFO "/var/lib/dpkg/info"
/* GRUB's script has no block longer than this; a count past it is a
 * block that never ends. */
#define BLOCK_MAX_DEPTH 64

/* How one line of GRUB script changes the nesting: if/for/while open,
 * fi/done close, a trailing '{' opens (function, menuentry), a leading
 * '}' closes. */
static int depth_change(const char *l, size_t n)
{
	size_t i = 0, e = n, w;
	int d = 0;

	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	while (e > i &&
	       (l[e - 1] == ' ' || l[e - 1] == '\t' || l[e - 1] == '\r'))
		e--;
	if (i == e || l[i] == '#')
		return 0;
	for (w = i; w < e && l[w] != ' ' && l[w] != '\t' && l[w] != ';'; w++)
		;
	if ((w - i == 2 && (!strncmp(l + i, "if", 2))) ||
	    (w - i == 3 && !strncmp(l + i, "for", 3)) ||
	    (w - i == 5 && !strncmp(l + i, "while", 5)))
		d++;
	if ((w - i == 2 && !strncmp(l + i, "fi", 2)) ||
	    (w - i == 4 && !strncmp(l + i, "done", 4)) || l[i] == '}')
		d--;
	if (l[e - 1] == '{')
		d++;
	/* "if ...; then ... fi" on one line opens and closes */
	if (d > 0 && e - i >= 2 && !strncmp(l + e - 2, "fi", 2) &&
	    (e - i == 2 || l[e - 3] == ' ' || l[e - 3] == ';'))
		d--;
	return d;
}

static bool mentions(const char *l, size_t n)
{
	size_t i;

	for (i = 0; i + 7 <= n; i++)
		if (!strncmp(l + i, "tscsync", 7))
			return true;
	return false;
}

/*
 * Finds tscsync's block in a custom.cfg: the run of top-level statements
 * (a compound one whole, to its matching close) that mention tscsync,
 * with the comment lines right above the first.  [*at, *end) in bytes;
 * 1 found, 0 none, -1 a block that never closes.
 */
static int find_block(const char *d, size_t len, size_t *at, size_t *end)
{
	size_t pos = 0, stmt, n, comments = (size_t)-1;
	bool in = false;

	while (pos < len) {
		const char *nl;
		bool hit = false;
		int depth = 0;

		stmt = pos;
		/* one top-level statement: a line, or a compound to its end */
		do {
			nl = memchr(d + pos, '\n', len - pos);
			n = nl ? (size_t)(nl - (d + pos)) : len - pos;
			hit = hit || mentions(d + pos, n);
			depth += depth_change(d + pos, n);
			pos += n + (nl ? 1 : 0);
		} while (depth > 0 && depth < BLOCK_MAX_DEPTH && pos < len);
		if (depth > 0)
			return in || hit ? -1 : 0;
		n = strspn(d + stmt, " \t\r");
		if (!hit && d[stmt + n] == '#') {
			/* a comment: part of the block if what follows is */
			if (comments == (size_t)-1)
				comments = stmt;
			continue;
		}
		if (!hit && (d[stmt + n] == '\n' || stmt + n == len)) {
			/* a blank line parts the user's comments from ours */
			comments = (size_t)-1;
			continue;
		}
		if (hit) {
			if (!in)
				*at = comments != (size_t)-1 ? comments : stmt;
			in = true;
			*end = pos;
		} else if (in) {
			return 1;
		}
		comments = (size_t)-1;
	}
	return in ? 1 : 0;
}

/* A package's file list naming sys (dpkg -S, read from the target's own
 * database, never the host's): the package's name into pkg. */
static bool owned_by_package(struct act *a, const char *sys, char *pkg,
			     size_t cap)
{
	char list[PATH_UNDER_MAX];
	struct dirent *e;
	bool found = false;
	DIR *dir = fsx_opendir(act_path(a, DPKG_INFO));

	while (dir && !found && (e = readdir(dir))) {
		size_t l = strlen(e->d_name), len, at, n;
		char *d;

		if (l < 6 || strcmp(e->d_name + l - 5, ".list"))
			continue;
		snprintf(list, sizeof(list), DPKG_INFO "/%s", e->d_name);
		d = fsx_read(act_path(a, list), &len);
		for (at = 0; d && at < len && !found; at += n + 1) {
			const char *nl = memchr(d + at, '\n', len - at);

			n = nl ? (size_t)(nl - (d + at)) : len - at;
			found = n == strlen(sys) && !memcmp(d + at, sys, n);
		}
		free(d);
		if (found) {
			/* "name:arch.list" names "name" */
			snprintf(pkg, cap, "%.*s", (int)(l - 5), e->d_name);
			if (strchr(pkg, ':'))
				*strchr(pkg, ':') = '\0';
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

/* The first sign found: what, then the words saying what it is. */
static void sign(struct tscsync *t, const char *what, const char *is)
{
	if (!t->sign[0])
		snprintf(t->sign, sizeof(t->sign), "%.400s%.100s", what, is);
}

static void take(struct tscsync *t, const char *sys)
{
	if (t->ntake < TSCSYNC_MAX_TAKE)
		snprintf(t->take[t->ntake++], sizeof(t->take[0]), "%s", sys);
}

/* Its mode: "mode=measure" or "mode=sync" (grubenv tscsync_mode, or the
 * options file), the same words as tsctui's. */
static void read_mode(struct tscsync *t, const char *v)
{
	const char *m = v ? strstr(v, "mode=") : NULL;
	size_t n;

	if (!m)
		return;
	m += 5;
	n = strcspn(m, " \t\n");
	t->mode_known = tsc_mode_from(m, n, &t->mode);
}

static int find_grub(struct act *a, struct tscsync *t)
{
	char sys[64];
	struct grubenv env;
	const char *why;
	size_t i, len, at, end, k;
	char *d;
	int rc;

	for (i = 0; grub_dirs[i]; i++) {
		snprintf(sys, sizeof(sys), "%s/custom.cfg", grub_dirs[i]);
		d = fsx_read(act_path(a, sys), &len);
		if (!d)
			continue;
		rc = find_block(d, len, &at, &end);
		if (rc < 0) {
			free(d);
			return act_fail(a,
					"%s mentions tscsync in a block that "
					"never ends; cannot take it over "
					"safely: nothing changed",
					sys);
		}
		if (rc > 0) {
			sign(t, sys, " runs tscsync");
			snprintf(t->custom, sizeof(t->custom), "%s", sys);
			/* every block of it, not only the first */
			for (k = 0; rc > 0 && k < 8; k++) {
				memmove(d + at, d + end, len - end);
				len -= end - at;
				d[len] = '\0';
				rc = find_block(d, len, &at, &end);
			}
			t->custom_without = d;
			t->custom_without_len = len;
		} else {
			free(d);
		}
		break;
	}
	for (i = 0; grub_dirs[i] && !t->grubenv[0]; i++) {
		snprintf(sys, sizeof(sys), "%s/grubenv", grub_dirs[i]);
		d = fsx_read_max(act_path(a, sys), GRUBENV_SIZE * 4, &len);
		if (d && grubenv_parse(d, len, &env, &why)) {
			for (k = 0; k < env.n; k++)
				if (!strncmp(env.name[k], "tscsync_", 8))
					snprintf(t->grubenv, sizeof(t->grubenv),
						 "%s", sys);
			if (t->grubenv[0]) {
				const char *en =
					grubenv_get(&env, "tscsync_enable");
				const char *p =
					grubenv_get(&env, "tscsync_pending");

				read_mode(t, grubenv_get(&env, "tscsync_mode"));
				/* its guard turned it off after a hung boot */
				t->off = (en && strcmp(en, "1")) ||
					 (p && !strcmp(p, "1"));
				sign(t, sys, " holds tscsync_* variables");
			}
			grubenv_free(&env);
		}
		free(d);
	}
	return 0;
}

static void find_esp(struct act *a, const char *esp, struct tscsync *t)
{
	char sys[380], dsys[512];
	struct dirent *e;
	size_t len, i;
	char *d;
	DIR *dir;

	if (!esp[0])
		return;
	path_join(esp, TSCSYNC_DRIVER, sys, sizeof(sys));
	if (fsx_exists(act_path_nofollow(a, sys))) {
		sign(t, sys, " is installed");
		take(t, sys);
		path_join(esp, TSCSYNC_OPTIONS, sys, sizeof(sys));
		d = fsx_read(act_path(a, sys), &len);
		if (d)
			read_mode(t, d);
		free(d);
		path_join(esp, TSCSYNC_DISABLED, sys, sizeof(sys));
		t->off = t->off || fsx_exists(act_path(a, sys));
	}
	/* a boot loader entry that starts its image */
	for (i = 0; entry_dirs[i]; i++) {
		path_join(esp, entry_dirs[i], sys, sizeof(sys));
		dir = fsx_opendir(act_path(a, sys));
		while (dir && (e = readdir(dir))) {
			size_t l = strlen(e->d_name);

			if (l < 6 || strcmp(e->d_name + l - 5, ".conf"))
				continue;
			snprintf(dsys, sizeof(dsys), "%s/%.120s", sys,
				 e->d_name);
			d = fsx_read(act_path(a, dsys), &len);
			if (d && strstr(d, "tscsync.efi")) {
				sign(t, dsys, ", a boot entry, starts tscsync");
				take(t, dsys);
			}
			free(d);
		}
		if (dir)
			closedir(dir);
	}
}

static void find_unit(struct act *a, struct tscsync *t)
{
	static const char *const wanted_by[] = { "multi-user.target",
						 "system-update.target", NULL };
	char sys[256];
	size_t i;

	for (i = 0; unit_dirs[i]; i++) {
		snprintf(sys, sizeof(sys), "%s/" TSCSYNC_UNIT, unit_dirs[i]);
		if (fsx_exists(act_path_nofollow(a, sys))) {
			sign(t, sys, " is installed");
			take(t, sys);
		}
	}
	for (i = 0; wanted_by[i]; i++) {
		snprintf(sys, sizeof(sys),
			 "/etc/systemd/system/%s.wants/" TSCSYNC_UNIT,
			 wanted_by[i]);
		if (fsx_exists(act_path_nofollow(a, sys)))
			take(t, sys);
	}
}

int migrate_find(struct act *a, const char *esp, struct tscsync *t)
{
	char pkg[256];
	size_t i;

	memset(t, 0, sizeof(*t));
	if (find_grub(a, t) != 0)
		return -1;
	find_esp(a, esp, t);
	find_unit(a, t);
	if (!t->sign[0] && efivar_any(a->root, "TscSyncResult-"))
		sign(t, "the TscSyncResult variable", " is set");
	for (i = 0; i < t->ntake; i++)
		if (owned_by_package(a, t->take[i], pkg, sizeof(pkg)))
			return act_fail(
				a,
				"%s belongs to the package %s (dpkg "
				"-S): remove tscsync with the package "
				"manager (apt remove %s), then install; "
				"nothing changed",
				t->take[i], pkg, pkg);
	if (t->custom[0] && owned_by_package(a, t->custom, pkg, sizeof(pkg)))
		return act_fail(a,
				"%s belongs to the package %s (dpkg -S): "
				"remove tscsync with the package manager (apt "
				"remove %s), then install; nothing changed",
				t->custom, pkg, pkg);
	return t->sign[0] ? 1 : 0;
}

void migrate_free(struct tscsync *t)
{
	free(t->custom_without);
	t->custom_without = NULL;
}

/* Its grubenv variables go; the grubenv's backup keeps them, and
 * uninstall's settle (grub.c) puts them back. */
static int take_vars(struct act *a, const char *sys)
{
	char block[GRUBENV_SIZE];
	struct grubenv env;
	const char *why;
	size_t len, k;
	char *d = fsx_read_max(act_path(a, sys), GRUBENV_SIZE * 4, &len);
	int rc;

	if (!d || !grubenv_parse(d, len, &env, &why)) {
		free(d);
		return act_fail(a, "cannot read %s", sys);
	}
	free(d);
	for (k = env.n; k-- > 0;)
		if (!strncmp(env.name[k], "tscsync_", 8))
			grubenv_unset(&env, env.name[k]);
	rc = grubenv_format(&env, block)
		     ? act_modify(a, sys, block, sizeof(block), 0644)
		     : act_fail(a, "cannot write %s", sys);
	grubenv_free(&env);
	if (rc == 0)
		act_detail(a, sys, "tscsync_* variables removed");
	return rc;
}

int migrate_take(struct act *a, const struct tscsync *t)
{
	size_t i;

	/* What starts its stage goes first, its bookkeeping after. */
	if (t->custom[0] && act_modify(a, t->custom, t->custom_without,
				       t->custom_without_len, 0644) != 0)
		return -1;
	if (t->custom[0])
		act_detail(a, t->custom, "tscsync's block removed");
	for (i = 0; i < t->ntake; i++)
		if (act_take(a, t->take[i]) != 0)
			return -1;
	if (t->grubenv[0] && take_vars(a, t->grubenv) != 0)
		return -1;
	act_say(a, SAY_TSCSYNC_TAKEN_OVER, t->sign, SAY_END);
	return 0;
}

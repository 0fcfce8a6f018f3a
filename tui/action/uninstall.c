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
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../format/grubenv.h"
#include "../format/history_record.h"
#include "../source/efivar.h"
#include "../source/kernel_cmdline.h"
#include "../source/loader.h"
#include "../source/stage_state.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "../util/words.h"
#include "actions.h"
#include "loader_writing.h"
#include "stagecfg.h"

/* What the ledger gives uninstall to go by. */
enum ledger_state {
	LEDGER_NONE,	/* missing, or nothing but begin lines */
	LEDGER_ENTRIES, /* entries to replay */
	LEDGER_DAMAGED, /* unreadable (a FIFO, a link), a NUL, a bad line */
};

/* The ledger's state, read the way act_begin reads it (on a scratch act,
 * so nothing of a's changes); why says what is wrong with a damaged one. */
static enum ledger_state ledger_state(struct act *a, char *why, size_t cap)
{
	enum ledger_state s = LEDGER_NONE;
	struct act *t;
	size_t len, i;
	char *d = fsx_read_own(act_path_nofollow(a, TSCTUI_LEDGER), &len);

	if (!d && errno == ENOENT)
		return LEDGER_NONE;
	if (!d) {
		snprintf(why, cap, "cannot read %s: %s", TSCTUI_LEDGER,
			 errno == EINVAL ? "not a regular file"
					 : strerror(errno));
		return LEDGER_DAMAGED;
	}
	free(d);
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(why, cap, "out of memory");
		return LEDGER_DAMAGED;
	}
	act_init(t, a->root, "uninstall");
	if (act_ledger_load(t) != 0) {
		char *cut;

		/* act_begin's refusal; here it is a reason, not the end */
		snprintf(why, cap, "%s", t->error);
		cut = strstr(why, "; not touching anything");
		if (cut)
			*cut = '\0';
		s = LEDGER_DAMAGED;
	}
	for (i = 0; s == LEDGER_NONE && i < t->nledger; i++)
		if (t->ledger[i].kind != L_BEGIN)
			s = LEDGER_ENTRIES;
	act_free(t);
	free(t);
	return s;
}

/* Did the ledger hold entries before this run began (act_begin's own
 * are not)? */
static bool recorded(const struct act *a)
{
	size_t i;

	for (i = 0; i < a->begun_with && i < a->nledger; i++)
		if (a->ledger[i].kind != L_BEGIN)
			return true;
	return false;
}

/* Anything to undo: a configuration, a ledger with entries, or the empty
 * state directory a killed uninstall leaves. */
static bool installed(const struct act *a, int have)
{
	return have > 0 || a->adopted || recorded(a);
}

/*
 * What is left of tsctui, found by what it is, not by the ledger: the
 * ledger may be missing, empty or cut short, and uninstall must never say
 * "removed" while any of this is still in place.  Each found thing is a
 * note (the full list, printed on stdout); the count is returned, and
 * `first` names the first one for the one-line error.
 */
#define MAX_LEFT 24
static const char *const files_of_tsctui[] = {
	TSCTUI_CONF,
	NOWATCHDOG_SETTING,
	KERNEL_ARG_DROPIN,
	"/etc/systemd/system/multi-user.target.wants/tsctui-boot.service",
	"/etc/systemd/system/system-update.target.wants/tsctui-boot.service",
	"/etc/systemd/system/tsctui-boot.service.d/tsctui-mounts.conf",
	NULL
};
/* Where an ESP is mounted, when tsctui.conf no longer says. */
static const char *const esp_places[] = { "/boot/efi", "/efi", "/boot", NULL };
static const char *const grubenv_places[] = { "/boot/grub/grubenv",
					      "/boot/grub2/grubenv", NULL };

static void left(struct act *a, size_t *n, char *first, size_t cap,
		 const char *fmt, const char *what)
{
	char line[PATH_UNDER_MAX + 200];

	snprintf(line, sizeof(line), fmt, what);
	if (*n == 0)
		snprintf(first, cap, "%s", what);
	if (*n < MAX_LEFT)
		act_note(a, "left: %s", line);
	(*n)++;
}

static bool has_stage_vars(struct act *a, const char *sys)
{
	struct grubenv env;
	const char *why;
	size_t len, i;
	char *d = fsx_read_max(act_path(a, sys), GRUBENV_SIZE * 4, &len);
	bool found = false;

	if (!d)
		return false;
	if (grubenv_parse(d, len, &env, &why)) {
		for (i = 0; stage_state_grub_vars[i]; i++)
			found = found ||
				grubenv_get(&env, stage_state_grub_vars[i]);
		grubenv_free(&env);
	}
	free(d);
	return found;
}

/* Does a firmware boot entry's load option name tsctui's image?  (Its
 * path is UTF-16LE in the device path: compared ASCII-wise, any case.) */
static bool loads_tsctui(const uint8_t *d, size_t n)
{
	static const char want[] = "\\efi\\tsctui\\tsctui.efi";
	size_t i, k, w = sizeof(want) - 1;

	for (i = 0; i + 2 * w <= n; i++) {
		for (k = 0; k < w; k++)
			if (d[i + 2 * k + 1] != 0 ||
			    tolower(d[i + 2 * k]) != want[k])
				break;
		if (k == w)
			return true;
	}
	return false;
}

static size_t leftovers(struct act *a, const struct tsctui_conf *c, char *first,
			size_t cap)
{
	char sys[PATH_UNDER_MAX], dir[PATH_UNDER_MAX];
	const char *esps[8], *envs[4];
	struct dirent *e;
	size_t n = 0, i, ne = 0, nv = 0;
	DIR *d;

	for (i = 0; files_of_tsctui[i]; i++)
		if (fsx_exists(act_path_nofollow(a, files_of_tsctui[i])))
			left(a, &n, first, cap, "%s", files_of_tsctui[i]);
	if (c->esp[0])
		esps[ne++] = c->esp;
	for (i = 0; esp_places[i]; i++)
		if (!c->esp[0] || strcmp(c->esp, esp_places[i]))
			esps[ne++] = esp_places[i];
	for (i = 0; i < ne; i++) {
		path_join(esps[i], ESP_STATE_DIR, sys, sizeof(sys));
		if (fsx_exists(act_path_nofollow(a, sys)))
			left(a, &n, first, cap, "%s", sys);
		path_join(esps[i], SD_DRIVERS_DIR "/tsctuix64.efi", sys,
			  sizeof(sys));
		if (fsx_exists(act_path_nofollow(a, sys)))
			left(a, &n, first, cap, "%s", sys);
	}
	if (c->grubenv[0])
		envs[nv++] = c->grubenv;
	for (i = 0; grubenv_places[i]; i++)
		if (!c->grubenv[0] || strcmp(c->grubenv, grubenv_places[i]))
			envs[nv++] = grubenv_places[i];
	for (i = 0; i < nv; i++)
		if (has_stage_vars(a, envs[i]))
			left(a, &n, first, cap, "%s (tsctui_* variables)",
			     envs[i]);
	snprintf(dir, sizeof(dir), "%s", act_path(a, EFIVARS_DIR));
	d = fsx_opendir(dir);
	while (d && (e = readdir(d))) {
		char name[16];
		uint8_t *data;
		size_t len;

		if (strncmp(e->d_name, "Boot", 4) || strlen(e->d_name) < 9 ||
		    strspn(e->d_name + 4, "0123456789ABCDEF") != 4 ||
		    strcmp(e->d_name + 8, "-" GUID_EFI_GLOBAL))
			continue;
		snprintf(name, sizeof(name), "%.8s", e->d_name);
		data = efivar_read(a->root, name, GUID_EFI_GLOBAL, &len, NULL);
		if (data && loads_tsctui(data, len))
			left(a, &n, first, cap,
			     strcmp(a->root, "/")
				     ? "%s, a firmware entry that starts "
				       "tsctui.efi: this is the target's NVRAM "
				       "as a file, not its firmware; remove "
				       "the "
				       "entry on the target machine itself "
				       "(efibootmgr -b NNNN -B)"
				     : "%s, a firmware entry that starts "
				       "tsctui.efi (efibootmgr -b NNNN -B)",
			     name);
		free(data);
	}
	if (d)
		closedir(d);
	if (fsx_exists(act_path_nofollow(a, TSCTUI_BACKUP)))
		left(a, &n, first, cap,
		     "%s (copies of files tsctui changed, not put back)",
		     TSCTUI_BACKUP);
	return n;
}

/* leftovers(), counted, with nothing said. */
static size_t leftovers_quiet(struct act *a, const struct tsctui_conf *c)
{
	char first[PATH_UNDER_MAX], keep[sizeof(a->message)];
	size_t n;

	snprintf(keep, sizeof(keep), "%s", a->message);
	n = leftovers(a, c, first, sizeof(first));
	snprintf(a->message, sizeof(a->message), "%s", keep);
	return n;
}

/*
 * Restartable from any point: every step is done again harmlessly (a file
 * already gone, a backup already restored), and the ledger keeps its
 * "begin uninstall" entry until the last one is undone, so that no other
 * action runs on a half-removed tsctui.
 */

/* The stage's run\ directory on the ESP, once its markers are gone: it is
 * the stage's, not the ledger's, and install's EFI/tsctui cannot go while
 * it is there. */
static void remove_run_dir(struct act *a, const struct tsctui_conf *c)
{
	char sys[PATH_UNDER_MAX];

	stage_state_esp_file(c, STAGE_STATE_RUN_DIR, sys, sizeof(sys));
	if (!fsx_is_dir(act_path(a, sys)))
		return;
	if (!a->dry_run && fsx_rmdir(act_path_nofollow(a, sys)) != 0)
		return; /* the check after the undo names what is left */
	act_changed(a, sys, "removed");
}

/* The one line when something of tsctui's is still here; its list is on
 * standard output (the notes).  0 when nothing is. */
static int say_left(struct act *a, const struct tsctui_conf *c,
		    const char *lead, const char *way_out)
{
	char first[PATH_UNDER_MAX];
	size_t n = leftovers(a, c, first, sizeof(first));

	if (!n)
		return 0;
	return act_fail(a,
			"%s, yet %s%s %s still here (the list is on standard "
			"output): %s",
			lead, first, n > 1 ? " and more" : "",
			n > 1 ? "are" : "is", way_out);
}

/* The ledger replayed: settled, undone, grub.cfg regenerated.  c gets
 * the configuration (zeroed when there was none); 0, or -1. */
static int replay(struct act *a, bool purge, struct tsctui_conf *c)
{
	/* Only kernel-arg ran: no loader's part to undo. */
	static const struct loader_writing nothing = { 0 };
	const struct loader_writing *w;
	const char *why = NULL;
	char sys[PATH_UNDER_MAX];
	size_t i;
	int have;

	if (act_begin(a, "uninstall", ACT_UNINSTALL) != 0)
		return -1;
	have = config_read(a->root, c, &why);
	if (have < 0 || !installed(a, have)) {
		memset(c, 0, sizeof(*c));
		if (have < 0)
			act_fail(a,
				 "%s; `tsctui uninstall --force` goes on "
				 "without it",
				 why);
		else
			act_fail(a, "tsctui is not installed here");
		act_abort(a);
		return -1;
	}
	if (have == 0) {
		/* Only kernel-arg ran, or a killed uninstall took the
		 * configuration already: the ledger has the rest. */
		memset(c, 0, sizeof(*c));
	}
	w = have > 0 ? loader_writing(c->loader) : &nothing;
	if (w->settle && w->settle(a, c) != 0)
		return -1;
	/* The stage's own state files are tsctui's too. */
	for (i = 0; have > 0 && stage_state_guard_files[i]; i++) {
		stage_state_esp_file(c, stage_state_guard_files[i], sys,
				     sizeof(sys));
		act_remove(a, sys);
	}
	/* ... and the GRUB path's channel the stage made on the ESP, so that
	 * the directory install made can go. */
	for (i = 0; have > 0 && stage_state_run_files[i]; i++) {
		stage_state_esp_file(c, stage_state_run_files[i], sys,
				     sizeof(sys));
		act_remove(a, sys);
	}
	if (have > 0)
		remove_run_dir(a, c);
	if (purge)
		act_remove(a, HISTORY_RECORD_FILE);
	if (act_ledger_undo(a, 0) != 0)
		return -1;
	if (w->regenerate && w->regenerate(a) != 0)
		return -1;
	return 0;
}

/*
 * uninstall --force: tsctui's changes undone without the ledger (missing,
 * empty, a FIFO, cut by a NUL, damaged), or after the ledger's replay
 * when something was still left.  What is found by what it is becomes a
 * ledger of its own, written ahead like any other (a kill leaves it for a
 * plain uninstall to finish), and the one replay undoes it:
 *   - every regular file under backup/ is put back where it came from
 *     (the grubenv settled as always: tsctui's variables out, the copy
 *     back only when nothing else changed), then removed;
 *   - what is certainly tsctui's goes: EFI/tsctui/ and the systemd-boot
 *     driver on the ESP, the configuration and the nowatchdog setting,
 *     kernel-arg's GRUB drop-in, the unit's links and drop-in (not the
 *     package's unit files), firmware entries that start tsctui.efi;
 *   - directories go only when empty and only where tsctui alone puts
 *     things (/etc/tsctui, EFI/tsctui, its unit's drop-in directory and
 *     its own state directory): any other may have been there before.
 * Anything else in those places (a FIFO, a device, a link in backup/)
 * is not touched and is named by the check that follows.
 */
#define WALK_DEPTH 16

static bool is_grubenv(const struct tsctui_conf *c, const char *sys)
{
	size_t i;

	for (i = 0; grubenv_places[i]; i++)
		if (!strcmp(sys, grubenv_places[i]))
			return true;
	return c->grubenv[0] && !strcmp(sys, c->grubenv);
}

/* The efivarfs path of a global-GUID variable named by letters and
 * digits: what a varbackup entry names. */
static bool is_global_var(const char *sys)
{
	const char *name = sys + strlen(EFIVARS_DIR "/");
	size_t n = strlen(sys), g = strlen("-" GUID_EFI_GLOBAL);

	return !strncmp(sys, EFIVARS_DIR "/", strlen(EFIVARS_DIR "/")) &&
	       n > strlen(EFIVARS_DIR "/") + g &&
	       !strcmp(sys + n - g, "-" GUID_EFI_GLOBAL) &&
	       strspn(name,
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789") == n - strlen(EFIVARS_DIR "/") - g;
}

/* One file found under backup/: the entry that puts it back. */
static int found_backup(struct act *a, const char *bsys)
{
	const char *sys = bsys + strlen(TSCTUI_BACKUP);
	size_t n = strlen(bsys), t = strlen(".tsctui-new");

	/* a killed copy's leftover: tsctui's own temporary file */
	if (n > t && !strcmp(bsys + n - t, ".tsctui-new"))
		return act_record(a, L_FILE, bsys);
	if (is_global_var(sys))
		return act_record(a, L_VARBACKUP, sys);
	/* Nothing else under /sys or /proc is a file to write back, and
	 * tsctui never backs up its own state. */
	if (!strncmp(sys, "/sys/", 5) || !strncmp(sys, "/proc/", 6) ||
	    !strncmp(sys, TSCTUI_STATE_DIR "/", strlen(TSCTUI_STATE_DIR "/")))
		return 0;
	return act_record(a, L_BACKUP, sys);
}

/* The directories under sys (itself first: the replay undoes children
 * before parents), or, with files set, the regular files and links
 * under it: backups when sys is backup/, else tsctui's own files. */
static int walk(struct act *a, const char *sys, bool files, int depth)
{
	char child[PATH_UNDER_MAX];
	struct dirent *e;
	struct stat st;
	int rc = 0;
	DIR *d;

	if (depth > WALK_DEPTH ||
	    fsx_lstat(act_path_nofollow(a, sys), &st) != 0 ||
	    !S_ISDIR(st.st_mode))
		return 0;
	if (!files && (rc = act_record(a, L_DIR, sys)) != 0)
		return rc;
	d = fsx_opendir(act_path_nofollow(a, sys));
	while (rc == 0 && d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    snprintf(child, sizeof(child), "%s/%s", sys, e->d_name) >=
			    (int)sizeof(child) ||
		    fsx_lstat(act_path_nofollow(a, child), &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			rc = walk(a, child, files, depth + 1);
		else if (!files)
			continue;
		else if (!strncmp(child, TSCTUI_BACKUP "/",
				  strlen(TSCTUI_BACKUP "/")))
			rc = S_ISREG(st.st_mode) ? found_backup(a, child) : 0;
		else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			rc = act_record(a,
					S_ISLNK(st.st_mode) ? L_LINK : L_FILE,
					child);
	}
	if (d)
		closedir(d);
	return rc;
}

/* sys, if it is what tsctui would have made there (a regular file, or a
 * link where want_link). */
static int found_one(struct act *a, const char *sys, bool want_link)
{
	struct stat st;

	if (fsx_lstat(act_path_nofollow(a, sys), &st) != 0)
		return 0;
	if (want_link && S_ISLNK(st.st_mode))
		return act_record(a, L_LINK, sys);
	if (!want_link && S_ISREG(st.st_mode))
		return act_record(a, L_FILE, sys);
	return 0;
}

/* Firmware entries that start tsctui.efi (the NVRAM on the running
 * system, the efivarfs files under another root); their names in out. */
static int found_entries(struct act *a, char *out, size_t cap)
{
	char sys[PATH_UNDER_MAX];
	struct dirent *e;
	int rc = 0;
	DIR *d = fsx_opendir(act_path(a, EFIVARS_DIR));

	while (rc == 0 && d && (e = readdir(d))) {
		char name[16];
		uint8_t *data;
		size_t len;

		if (strncmp(e->d_name, "Boot", 4) || strlen(e->d_name) < 9 ||
		    strspn(e->d_name + 4, "0123456789ABCDEF") != 4 ||
		    strcmp(e->d_name + 8, "-" GUID_EFI_GLOBAL))
			continue;
		snprintf(name, sizeof(name), "%.8s", e->d_name);
		data = efivar_read(a->root, name, GUID_EFI_GLOBAL, &len, NULL);
		if (data && loads_tsctui(data, len)) {
			snprintf(sys, sizeof(sys), "%s/%s", EFIVARS_DIR,
				 e->d_name);
			rc = act_record(a, L_VAR, sys);
			if (!strstr(out, name))
				snprintf(out + strlen(out), cap - strlen(out),
					 "%s%s", out[0] ? ", " : "", name);
		}
		free(data);
	}
	if (d)
		closedir(d);
	return rc;
}

/* kernel-arg on makes /etc/kernel/cmdline when there is none (a copy is
 * kept only of one it changed): with no ledger, whether a file without a
 * copy is tsctui's cannot be told, so it is named, not removed. */
static void cmdline_note(struct act *a)
{
	static const char cmdline[] = "/etc/kernel/cmdline";
	char b[PATH_UNDER_MAX];
	size_t len;
	char *d = fsx_read_max(act_path(a, cmdline), 4096, &len);

	act_backup_of(cmdline, b, sizeof(b));
	if (d && !memchr(d, '\0', len) && words_has(d, "tsc=nowatchdog") &&
	    !fsx_exists(act_path_nofollow(a, b)))
		act_note(a,
			 "%s still says tsc=nowatchdog and no copy of it was "
			 "kept: kernel-arg may have made the file, or the word "
			 "was there before; remove it by hand if it is not "
			 "yours",
			 cmdline);
	free(d);
}

static const char *const dirs_of_tsctui[] = {
	"/etc/tsctui", "/etc/systemd/system/tsctui-boot.service.d", NULL
};

static int sweep(struct act *a, bool purge, const char *damaged,
		 const struct tsctui_conf *known, bool replayed)
{
	static const char *const links[] = {
		"/etc/systemd/system/multi-user.target.wants/"
		"tsctui-boot.service",
		"/etc/systemd/system/system-update.target.wants/"
		"tsctui-boot.service",
		NULL
	};
	static const char *const files[] = {
		TSCTUI_CONF, NOWATCHDOG_SETTING, KERNEL_ARG_DROPIN,
		"/etc/systemd/system/tsctui-boot.service.d/tsctui-mounts.conf",
		NULL
	};
	char esps[4][PATH_UNDER_MAX], sys[PATH_UNDER_MAX], entries[64] = "";
	char envs[4][sizeof(((struct tsctui_conf *)0)->grubenv)];
	struct tsctui_conf c, env;
	size_t i, k, ne = 0, nenv = 0, restored = 0, removed = 0, found;
	size_t had = a->nchanges; /* the replay's, when one ran first */
	struct stat st;
	const char *why = NULL;
	bool grub = false, nowatchdog;
	int rc = 0, have;

	have = config_read(a->root, &c, &why);
	if (have <= 0)
		c = *known;
	if (have < 0)
		act_note(a, "%s: removed all the same", why);
	if (damaged)
		act_note(a, "%s: going by what is on the disk instead",
			 damaged);
	/* A clean system: said before the lock, which is a file in /run on
	 * the running system, so that nothing is made. */
	if (!replayed && !damaged &&
	    !fsx_exists(act_path_nofollow(a, TSCTUI_STATE_DIR)) &&
	    !leftovers_quiet(a, &c))
		return act_fail(a, "tsctui is not installed here");
	if (act_lock(a, false) != 0)
		return -1;
	nowatchdog = fsx_exists(act_path_nofollow(a, NOWATCHDOG_SETTING));
	if (c.esp[0])
		snprintf(esps[ne++], sizeof(esps[0]), "%s%s", c.esp,
			 ESP_STATE_DIR);
	for (i = 0; esp_places[i]; i++)
		if (!c.esp[0] || strcmp(c.esp, esp_places[i]))
			snprintf(esps[ne++], sizeof(esps[0]), "%s%s",
				 esp_places[i], ESP_STATE_DIR);

	/* Found, in the order of a ledger (a directory before what is in
	 * it), with no entry saved until all are found. */
	a->journal = false;
	rc = act_record(a, L_BEGIN, "uninstall");
	if (rc == 0 && fsx_is_dir(act_path_nofollow(a, TSCTUI_STATE_DIR)))
		rc = act_record(a, L_DIR, TSCTUI_STATE_DIR);
	if (rc == 0)
		rc = walk(a, TSCTUI_BACKUP, false, 0);
	for (i = 0; rc == 0 && i < ne; i++)
		rc = walk(a, esps[i], false, 0);
	for (i = 0; rc == 0 && dirs_of_tsctui[i]; i++)
		if (fsx_is_dir(act_path_nofollow(a, dirs_of_tsctui[i])))
			rc = act_record(a, L_DIR, dirs_of_tsctui[i]);
	if (rc == 0)
		rc = walk(a, TSCTUI_BACKUP, true, 0);
	for (i = 0; rc == 0 && i < ne; i++) {
		rc = walk(a, esps[i], true, 0);
		snprintf(sys, sizeof(sys), "%.*s%s",
			 (int)(strlen(esps[i]) - strlen(ESP_STATE_DIR)),
			 esps[i], SD_DRIVERS_DIR "/tsctuix64.efi");
		if (rc == 0)
			rc = found_one(a, sys, false);
	}
	for (i = 0; rc == 0 && files[i]; i++)
		rc = found_one(a, files[i], false);
	for (i = 0; rc == 0 && links[i]; i++)
		rc = found_one(a, links[i], true);
	if (rc == 0)
		rc = found_entries(a, entries, sizeof(entries));
	/* The grubenv: tsctui's variables go even where no copy was kept. */
	for (i = 0; rc == 0 && (i == 0 || grubenv_places[i - 1]); i++) {
		const char *g = i == 0 ? c.grubenv : grubenv_places[i - 1];

		if (g[0] && has_stage_vars(a, g))
			rc = act_record(a, L_BACKUP, g);
	}
	if (rc != 0)
		return -1;
	for (i = 0, found = 0; i < a->nledger; i++)
		found += a->ledger[i].kind != L_BEGIN &&
			 strcmp(a->ledger[i].path, TSCTUI_STATE_DIR);
	if (!found && !fsx_exists(act_path_nofollow(a, TSCTUI_STATE_DIR)))
		goto check; /* nothing at all: nothing to record either */
	/* Written ahead: from here a kill leaves a ledger that a plain
	 * uninstall finishes.  It replaces the damaged one (a FIFO or
	 * device there, which a write refuses, is unlinked first, never
	 * opened); the state directory is made again if a replay took it. */
	if (!a->dry_run &&
	    fsx_lstat(act_path_nofollow(a, TSCTUI_LEDGER), &st) == 0 &&
	    !S_ISREG(st.st_mode) &&
	    fsx_remove(act_path_nofollow(a, TSCTUI_LEDGER)) != 0)
		return act_fail(a, "cannot remove %s: %s", TSCTUI_LEDGER,
				strerror(errno));
	if (!fsx_is_dir(act_path(a, TSCTUI_STATE_DIR)) &&
	    act_mkdirs(a, TSCTUI_STATE_DIR, 0755) != 0)
		return -1;
	a->ledger_dirty = true;
	if (act_ledger_save(a) != 0)
		return -1;
	a->journal = true;

	for (i = 0; i < a->nledger && nenv < 4; i++)
		if (a->ledger[i].kind == L_BACKUP &&
		    is_grubenv(&c, a->ledger[i].path))
			snprintf(envs[nenv++], sizeof(envs[0]), "%s",
				 a->ledger[i].path);
	env = c;
	for (i = 0; i < nenv; i++) {
		memcpy(env.grubenv, envs[i], sizeof(env.grubenv));
		if (grub_writing.settle(a, &env) != 0)
			return -1;
		grub = true;
	}
	if (purge)
		act_remove(a, HISTORY_RECORD_FILE);
	if (act_ledger_undo(a, 0) != 0)
		return -1;
	if ((grub || c.loader == LOADER_GRUB) && grub_regenerate(a))
		return -1;
	if (c.efi_entry[0] && !strstr(entries, c.efi_entry))
		snprintf(entries + strlen(entries),
			 sizeof(entries) - strlen(entries), "%s%s",
			 entries[0] ? ", " : "", c.efi_entry);
	if (entries[0] && strcmp(a->root, "/"))
		act_note(a,
			 "the firmware entry %s lives in the NVRAM of the "
			 "machine this disk belongs to, which a live system "
			 "cannot reach: remove it on that machine itself "
			 "(efibootmgr -b NNNN -B, NNNN its number)",
			 entries);
check:
	if (nowatchdog)
		cmdline_note(a);
	if (a->dry_run)
		return 0;
	for (k = had; k < a->nchanges; k++) {
		if (a->changes[k].what == CHANGE_MODIFIED)
			restored++;
		else if (a->changes[k].what == CHANGE_REMOVED)
			removed++;
	}
	if (say_left(a, &c, "uninstall --force went by what is on the disk",
		     "they are not certainly tsctui's to remove, or could not "
		     "be; restore or remove them by hand") != 0)
		return -1;
	if (replayed && !found)
		act_done(a, "tsctui removed%s", purge ? ", history too" : "");
	else
		act_done(a,
			 "tsctui removed, going by what was on the disk: %zu "
			 "file%s put back, %zu removed%s",
			 restored, restored == 1 ? "" : "s", removed,
			 purge ? ", history too" : "");
	return 0;
}

static const char force_way[] =
	"`tsctui uninstall --force` puts back the copies under " TSCTUI_BACKUP
	" and removes what is certainly tsctui's; or restore or remove "
	"them by hand";

static int uninstall(struct act *a, bool purge, bool force)
{
	struct tsctui_conf c;
	char why[sizeof(a->error)];
	const char *cwhy;
	enum ledger_state s;

	if (fsx_is_dir(act_path(a, TSCTUI_STATE_DIR)) &&
	    !fsx_dir_writable(act_path(a, TSCTUI_STATE_DIR)))
		return act_fail(a, "%s is not writable (%s); nothing changed",
				TSCTUI_STATE_DIR, strerror(errno));
	s = ledger_state(a, why, sizeof(why));
	memset(&c, 0, sizeof(c));
	if (force && s != LEDGER_ENTRIES)
		return sweep(a, purge, s == LEDGER_DAMAGED ? why : NULL, &c,
			     false);
	if (s != LEDGER_ENTRIES) {
		/* Nothing to go by: what of tsctui is here is named, and
		 * nothing is touched (no lock taken either, so a refusal
		 * on a clean system creates no /run/tsctui.lock). */
		char lead[sizeof(a->error) + 100];

		if (config_read(a->root, &c, &cwhy) <= 0)
			memset(&c, 0, sizeof(c));
		if (s == LEDGER_DAMAGED) {
			snprintf(lead, sizeof(lead), "%s", why);
			if (say_left(a, &c, lead, force_way) != 0)
				return -1;
			return act_fail(a,
					"%s; `tsctui uninstall --force` "
					"removes what of tsctui's is here "
					"without it",
					why);
		}
		snprintf(lead, sizeof(lead),
			 "%s has no record of tsctui's "
			 "changes",
			 TSCTUI_LEDGER);
		if (say_left(a, &c, lead, force_way) != 0)
			return -1;
		if (!fsx_exists(act_path_nofollow(a, TSCTUI_STATE_DIR)))
			return act_fail(a, "tsctui is not installed here");
	}
	if (replay(a, purge, &c) != 0) {
		/* --force goes on where the replay stopped (a damaged
		 * configuration, say): what the ledger still holds is
		 * replayed with what is found. */
		if (!force || a->dry_run)
			return -1;
		act_note(a,
			 "the ledger's replay stopped (%s): going by what "
			 "is on the disk",
			 a->error);
		a->error[0] = '\0';
		return sweep(a, purge, NULL, &c, true);
	}
	if (force && a->dry_run) {
		act_note(a, "--force then removes whatever of tsctui's the "
			    "ledger missed");
	} else if (force) {
		return sweep(a, purge, NULL, &c, true);
	} else if (!a->dry_run) {
		/* The ledger is done; is anything of tsctui's still here?
		 * (A dry run removed nothing: its plan is the answer.) */
		if (say_left(a, &c, "the ledger is undone",
			     "`tsctui uninstall --force` removes what is "
			     "certainly tsctui's; or restore or remove them "
			     "by hand") != 0)
			return -1;
	}
	act_done(a, "tsctui removed%s", purge ? ", history too" : "");
	return 0;
}

int uninstall_run(struct act *a, bool purge)
{
	return uninstall(a, purge, false);
}

int uninstall_force(struct act *a, bool purge)
{
	return uninstall(a, purge, true);
}

/*
 * After an action failed: what its undoing could not take back (a full
 * disk fails the writes an undo needs too: the ledger, a restored file),
 * as it is on the disk now, one note a change, and the way out appended
 * to the error.  The ledger was written ahead, so every such change is in
 * it, and uninstall (or the next run of the action) takes them back.
 */
void uninstall_left_by_failure(struct act *a)
{
	char b[PATH_UNDER_MAX];
	struct stat st;
	size_t i, n = 0, len;

	if (a->dry_run || !strcmp(a->name, "uninstall"))
		return;
	for (i = a->begun_with; i < a->nledger; i++) {
		const struct ledger_entry *e = &a->ledger[i];

		switch (e->kind) {
		case L_DIR:
		case L_FILE:
		case L_LINK:
		case L_VAR:
			if (fsx_lstat(act_path_nofollow(a, e->path), &st) != 0)
				continue;
			act_note(a, "left: %s (created)", e->path);
			break;
		case L_BACKUP:
		case L_VARBACKUP:
			act_backup_of(e->path, b, sizeof(b));
			if (!fsx_exists(act_path_nofollow(a, b)))
				continue;
			act_note(a, "left: %s (changed; its original is %s)",
				 e->path, b);
			break;
		default:
			continue;
		}
		n++;
	}
	/* (Without a ledger file, what is left is the state directory
	 * itself, which uninstall takes as tsctui's.) */
	len = strlen(a->error);
	if (n && len + 1 < sizeof(a->error))
		snprintf(a->error + len, sizeof(a->error) - len,
			 "; %zu change%s could not be undone (listed on "
			 "standard output%s): `tsctui uninstall` takes them "
			 "back%s",
			 n, n > 1 ? "s" : "",
			 fsx_exists(act_path_nofollow(a, TSCTUI_LEDGER))
				 ? ", and in " TSCTUI_LEDGER
				 : "",
			 strstr(a->error, strerror(ENOSPC))
				 ? " once there is free space"
				 : "");
}

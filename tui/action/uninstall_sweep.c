/* SPDX-License-Identifier: MIT */
/*
 * uninstall --force's sweep: with no usable ledger, find tsctui's own
 * artefacts by what they are and write the ledger that puts them back or
 * removes them (split from uninstall.c, which replays a ledger, so that
 * no file of action/ passes 600 lines).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/report_var.h"
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
#include "uninstall.h"

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

	for (i = 0; uninstall_grubenv_places[i]; i++)
		if (!strcmp(sys, uninstall_grubenv_places[i]))
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
	/* a link install --migrate removed: made again (act_take) */
	if (n > strlen(TSCTUI_BACKUP) + strlen(ACT_LINK_SUFFIX) &&
	    !strcmp(bsys + n - strlen(ACT_LINK_SUFFIX), ACT_LINK_SUFFIX)) {
		char link[PATH_UNDER_MAX];

		snprintf(link, sizeof(link), "%.*s",
			 (int)(strlen(sys) - strlen(ACT_LINK_SUFFIX)), sys);
		return act_record(a, L_UNLINKED, link);
	}
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

		if (!uninstall_boot_entry(e->d_name, name))
			continue;
		data = efivar_read(a->root, name, GUID_EFI_GLOBAL, &len, NULL);
		if (data && uninstall_loads_tsctui(data, len)) {
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
		act_say(a, SAY_CMDLINE_KEPT, cmdline, SAY_END);
	free(d);
}

static int by_path(const void *x, const void *y)
{
	return strcmp(((const struct ledger_entry *)x)->path,
		      ((const struct ledger_entry *)y)->path);
}

/* The found ledger in the replay's order: begin lines, then every
 * directory, each after its parent (a parent's path sorts before its
 * children's), then everything else as it was found.  Undone backwards,
 * a directory is tried only once nothing it may hold is left. */
static void dirs_first(struct act *a)
{
	struct ledger_entry *t = malloc(a->nledger * sizeof(*t));
	size_t i, n = 0, dirs;

	if (!t)
		return; /* the order found: only some directories may stay */
	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind == L_BEGIN)
			t[n++] = a->ledger[i];
	dirs = n;
	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind == L_DIR)
			t[n++] = a->ledger[i];
	qsort(t + dirs, n - dirs, sizeof(*t), by_path);
	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind != L_BEGIN && a->ledger[i].kind != L_DIR)
			t[n++] = a->ledger[i];
	memcpy(a->ledger, t, n * sizeof(*t));
	free(t);
}

static const char *const dirs_of_tsctui[] = {
	"/etc/tsctui", "/etc/systemd/system/tsctui-boot.service.d", NULL
};

int uninstall_sweep(struct act *a, bool purge, const char *damaged,
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
		act_say(a, SAY_CONF_UNREADABLE, why, SAY_END);
	if (damaged)
		act_say(a, SAY_LEDGER_DAMAGED, damaged, SAY_END);
	/* A clean system: said before the lock, which is a file in /run on
	 * the running system, so that nothing is made. */
	if (!replayed && !damaged &&
	    !fsx_exists(act_path_nofollow(a, TSCTUI_STATE_DIR)) &&
	    !uninstall_leftovers_quiet(a, &c))
		return act_fail(a, "tsctui is not installed here");
	if (act_lock(a, false) != 0)
		return -1;
	nowatchdog = fsx_exists(act_path_nofollow(a, NOWATCHDOG_SETTING));
	if (c.esp[0])
		snprintf(esps[ne++], sizeof(esps[0]), "%s%s", c.esp,
			 ESP_STATE_DIR);
	for (i = 0; uninstall_esp_places[i]; i++)
		if (!c.esp[0] || strcmp(c.esp, uninstall_esp_places[i]))
			snprintf(esps[ne++], sizeof(esps[0]), "%s%s",
				 uninstall_esp_places[i], ESP_STATE_DIR);

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
	for (i = 0; rc == 0 && (i == 0 || uninstall_grubenv_places[i - 1]);
	     i++) {
		const char *g =
			i == 0 ? c.grubenv : uninstall_grubenv_places[i - 1];

		if (g[0] && uninstall_has_stage_vars(a, g))
			rc = act_record(a, L_BACKUP, g);
	}
	/* What a damaged ledger still says, line by line: a NUL-cut one
	 * still names the grubby edit, the /etc/kernel/cmdline kernel-arg
	 * made and the directories tsctui made beside other things'. */
	if (rc == 0 && damaged && act_ledger_salvage(a) < 0)
		rc = -1;
	if (rc != 0)
		return -1;
	dirs_first(a);
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
	if (act_var_remove(a, TSC_RESUME_VAR_NAME, TSC_REPORT_VAR_GUID_TEXT))
		return -1;
	if (act_ledger_undo(a, 0) != 0)
		return -1;
	if ((grub || c.loader == LOADER_GRUB) && grub_regenerate(a))
		return -1;
	if (c.efi_entry[0] && !strstr(entries, c.efi_entry))
		snprintf(entries + strlen(entries),
			 sizeof(entries) - strlen(entries), "%s%s",
			 entries[0] ? ", " : "", c.efi_entry);
	if (entries[0] && strcmp(a->root, "/"))
		act_say(a, SAY_ENTRY_ON_TARGET, entries, SAY_END);
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
	if (uninstall_say_left(
		    a, &c, "uninstall --force went by what is on the disk",
		    "they are not certainly tsctui's to remove, or could not "
		    "be; restore or remove them by hand") != 0)
		return -1;
	if (replayed && !found) {
		act_done(a, purge ? SAY_REMOVED_HISTORY : SAY_REMOVED, SAY_END);
	} else {
		char put_back[24], gone[24];

		snprintf(put_back, sizeof(put_back), "%zu", restored);
		snprintf(gone, sizeof(gone), "%zu", removed);
		act_done(a, purge ? SAY_SWEPT_HISTORY : SAY_SWEPT, put_back,
			 gone, SAY_END);
	}
	return 0;
}

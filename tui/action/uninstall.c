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
	bool damaged;
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
	/* act_begin's reading, whose refusal is here a reason, not the end */
	if (act_ledger_read(t, &damaged, why, cap) != 0)
		s = LEDGER_DAMAGED;
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
const char *const uninstall_esp_places[] = { "/boot/efi", "/efi", "/boot",
					     NULL };
const char *const uninstall_grubenv_places[] = { "/boot/grub/grubenv",
						 "/boot/grub2/grubenv", NULL };

static void left(struct act *a, size_t *n, char *first, size_t cap,
		 enum act_say how, const char *what)
{
	if (*n == 0)
		snprintf(first, cap, "%s", what);
	if (*n < MAX_LEFT)
		act_say(a, how, what, SAY_END);
	(*n)++;
}

bool uninstall_has_stage_vars(struct act *a, const char *sys)
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

/* Is an efivarfs file name a firmware boot entry (Boot#### under the
 * global GUID)?  Its variable name goes to name (9 bytes at least). */
bool uninstall_boot_entry(const char *file, char name[16])
{
	if (strncmp(file, "Boot", 4) || strlen(file) < 9 ||
	    strspn(file + 4, "0123456789ABCDEF") != 4 ||
	    strcmp(file + 8, "-" GUID_EFI_GLOBAL))
		return false;
	snprintf(name, 16, "%.8s", file);
	return true;
}

/* Does a firmware boot entry's load option name tsctui's image?  (Its
 * path is UTF-16LE in the device path: compared ASCII-wise, any case.) */
bool uninstall_loads_tsctui(const uint8_t *d, size_t n)
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
			left(a, &n, first, cap, SAY_LEFT, files_of_tsctui[i]);
	if (c->esp[0])
		esps[ne++] = c->esp;
	for (i = 0; uninstall_esp_places[i]; i++)
		if (!c->esp[0] || strcmp(c->esp, uninstall_esp_places[i]))
			esps[ne++] = uninstall_esp_places[i];
	for (i = 0; i < ne; i++) {
		path_join(esps[i], ESP_STATE_DIR, sys, sizeof(sys));
		if (fsx_exists(act_path_nofollow(a, sys)))
			left(a, &n, first, cap, SAY_LEFT, sys);
		path_join(esps[i], SD_DRIVERS_DIR "/tsctuix64.efi", sys,
			  sizeof(sys));
		if (fsx_exists(act_path_nofollow(a, sys)))
			left(a, &n, first, cap, SAY_LEFT, sys);
	}
	if (c->grubenv[0])
		envs[nv++] = c->grubenv;
	for (i = 0; uninstall_grubenv_places[i]; i++)
		if (!c->grubenv[0] ||
		    strcmp(c->grubenv, uninstall_grubenv_places[i]))
			envs[nv++] = uninstall_grubenv_places[i];
	for (i = 0; i < nv; i++)
		if (uninstall_has_stage_vars(a, envs[i]))
			left(a, &n, first, cap, SAY_LEFT_GRUBENV, envs[i]);
	snprintf(dir, sizeof(dir), "%s", act_path(a, EFIVARS_DIR));
	d = fsx_opendir(dir);
	while (d && (e = readdir(d))) {
		char name[16];
		uint8_t *data;
		size_t len;

		if (!uninstall_boot_entry(e->d_name, name))
			continue;
		data = efivar_read(a->root, name, GUID_EFI_GLOBAL, &len, NULL);
		if (data && uninstall_loads_tsctui(data, len))
			left(a, &n, first, cap,
			     strcmp(a->root, "/") ? SAY_LEFT_ENTRY_TARGET
						  : SAY_LEFT_ENTRY,
			     name);
		free(data);
	}
	if (d)
		closedir(d);
	if (fsx_exists(act_path_nofollow(a, TSCTUI_BACKUP)))
		left(a, &n, first, cap, SAY_LEFT_BACKUPS, TSCTUI_BACKUP);
	return n;
}

/* leftovers(), counted, with nothing said. */
size_t uninstall_leftovers_quiet(struct act *a, const struct tsctui_conf *c)
{
	char first[PATH_UNDER_MAX];
	size_t keep = a->nsaid, n;

	n = leftovers(a, c, first, sizeof(first));
	act_unsay(a, keep);
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
	act_change(a, sys, CHANGE_REMOVED);
}

/* The one line when something of tsctui's is still here; its list is on
 * standard output (the notes).  0 when nothing is. */
int uninstall_say_left(struct act *a, const struct tsctui_conf *c,
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
	/* ... and the resume guard's variable a resume boot's stage left. */
	if (act_var_remove(a, TSC_RESUME_VAR_NAME, TSC_REPORT_VAR_GUID_TEXT))
		return -1;
	if (purge)
		act_remove(a, HISTORY_RECORD_FILE);
	if (act_ledger_undo(a, 0) != 0)
		return -1;
	if (w->regenerate && w->regenerate(a) != 0)
		return -1;
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
		return uninstall_sweep(
			a, purge, s == LEDGER_DAMAGED ? why : NULL, &c, false);
	if (s != LEDGER_ENTRIES) {
		/* Nothing to go by: what of tsctui is here is named, and
		 * nothing is touched (no lock taken either, so a refusal
		 * on a clean system creates no /run/tsctui.lock). */
		char lead[sizeof(a->error) + 100];

		if (config_read(a->root, &c, &cwhy) <= 0)
			memset(&c, 0, sizeof(c));
		if (s == LEDGER_DAMAGED) {
			snprintf(lead, sizeof(lead), "%s", why);
			if (uninstall_say_left(a, &c, lead, force_way) != 0)
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
		if (uninstall_say_left(a, &c, lead, force_way) != 0)
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
		act_say(a, SAY_REPLAY_STOPPED, a->error, SAY_END);
		a->error[0] = '\0';
		return uninstall_sweep(a, purge, NULL, &c, true);
	}
	if (force && a->dry_run) {
		act_say(a, SAY_FORCE_SWEEPS, SAY_END);
	} else if (force) {
		return uninstall_sweep(a, purge, NULL, &c, true);
	} else if (!a->dry_run) {
		/* The ledger is done; is anything of tsctui's still here?
		 * (A dry run removed nothing: its plan is the answer.) */
		if (uninstall_say_left(
			    a, &c, "the ledger is undone",
			    "`tsctui uninstall --force` removes what is "
			    "certainly tsctui's; or restore or remove them "
			    "by hand") != 0)
			return -1;
	}
	act_done(a, purge ? SAY_REMOVED_HISTORY : SAY_REMOVED, SAY_END);
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
	char b[PATH_UNDER_MAX], shown[PATH_UNDER_MAX], shown_b[PATH_UNDER_MAX];
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
			act_say(a, SAY_LEFT_CREATED,
				path_shown(e->path, shown, sizeof(shown)),
				SAY_END);
			break;
		case L_BACKUP:
		case L_VARBACKUP:
			act_backup_of(e->path, b, sizeof(b));
			if (!fsx_exists(act_path_nofollow(a, b)))
				continue;
			act_say(a, SAY_LEFT_CHANGED,
				path_shown(e->path, shown, sizeof(shown)),
				path_shown(b, shown_b, sizeof(shown_b)),
				SAY_END);
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
			 a->error_errno == ENOSPC ? " once there is free space"
						  : "");
}

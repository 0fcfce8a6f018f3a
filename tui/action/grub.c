/* SPDX-License-Identifier: MIT */
/*
 * GRUB, written: the stage is an image in the ESP's tsctui directory that
 * grub.d/05_tsctui chainloads; its mode and guard are grubenv variables,
 * which GRUB writes at boot too.  install finds the grubenv and the UUIDs
 * GRUB searches for; uninstall settles the grubenv by hand.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../format/grubenv.h"
#include "../source/detect.h"
#include "../source/stage_state.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "loader_writing.h"
#include "stagecfg.h"

static int grub_env_read(struct act *a, const struct tsctui_conf *c,
			 struct grubenv *env, bool *exists)
{
	char err[STAGE_STATE_ERR_MAX];

	if (stage_state_grubenv(a->root, c, env, exists, err) != 0)
		return act_fail(a, "%s", err);
	return 0;
}

static int grub_env_write(struct act *a, const struct tsctui_conf *c,
			  const struct grubenv *env)
{
	char block[GRUBENV_SIZE];

	if (!grubenv_format(env, block))
		return act_fail(a,
				"%s is full: the variables do not fit in "
				"1024 bytes",
				c->grubenv);
	return act_modify(a, c->grubenv, block, sizeof(block), 0644);
}

static int grub_marks(struct act *a, const struct tsctui_conf *c,
		      const struct grubenv *env, struct guard_marks *m)
{
	char err[STAGE_STATE_ERR_MAX];

	if (stage_state_grub_marks(c, env, m, err) != 0)
		return act_fail(a, "%s", err);
	return 0;
}

/* Sets a grubenv variable tsctui owns to "0" where it is set otherwise;
 * absent stays absent (GRUB's block defaults it). */
static bool zero_if_set(struct grubenv *env, const char *name)
{
	const char *v = grubenv_get(env, name);

	return !v || !strcmp(v, "0") || grubenv_set(env, name, "0");
}

/* The lost-probation flags back to 0 where set. */
static bool zero_lost(struct grubenv *env)
{
	for (int i = 0; i < GUARD_LOST_FLAGS; i++)
		if (!zero_if_set(env, stage_state_lost_vars[i]))
			return false;
	return true;
}

static int grub_state_write(struct act *a, const struct tsctui_conf *c,
			    enum tsc_mode m, const char *options, bool reset)
{
	const char *mode = tsc_mode_name(m);
	struct grubenv env;
	bool exists;
	int rc;

	if (grub_env_read(a, c, &env, &exists) != 0)
		return -1;
	if (!grubenv_set(&env, "tsctui_mode", mode) ||
	    !grubenv_set(&env, "tsctui_options", options) ||
	    (reset && !grubenv_set(&env, "tsctui_pending", "0")) ||
	    (reset && !grubenv_set(&env, "tsctui_tripped", "0")) ||
	    (reset && !zero_if_set(&env, "tsctui_synced")) ||
	    (reset && !zero_if_set(&env, "tsctui_probation")) ||
	    (reset && !zero_if_set(&env, "tsctui_strikes")) ||
	    (reset && !zero_lost(&env))) {
		grubenv_free(&env);
		return act_fail(a, "%s has no room for tsctui's variables",
				c->grubenv);
	}
	rc = grub_env_write(a, c, &env);
	grubenv_free(&env);
	act_detail(a, c->grubenv, "%stsctui_mode=%s tsctui_options=%s%s",
		   reset ? "tsctui_pending=0 tsctui_tripped=0 " : "", mode,
		   options,
		   reset ? " (and synced, probation, strikes, lost to 0 where "
			   "set)"
			 : "");
	return rc;
}

/*
 * GRUB rewrote the grubenv's blocks underneath a system that may have been
 * running all along (a resume from hibernation): drop the cached pages, so
 * that boot-ok reads what is on the disk.
 */
static void uncache(const char *path)
{
	int fd = fsx_open_read(path);

	if (fd < 0)
		return;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}

static int grub_boot_ok(struct act *a, const struct tsctui_conf *c,
			int *strikes_out)
{
	struct guard_marks m;
	struct grubenv env;
	char count[16], hib[PATH_UNDER_MAX];
	bool exists, ok = true;
	int rc = 0;

	uncache(act_path(a, c->grubenv));
	if (grub_env_read(a, c, &env, &exists) != 0)
		return -1;
	if (grub_marks(a, c, &env, &m) != 0) {
		grubenv_free(&env);
		return -1;
	}
	/* The sleep hook's marker is on the ESP on this path too (the block
	 * and the stage test it): a hibernation never resumed leaves none. */
	stage_state_esp_file(c, "hibernated", hib, sizeof(hib));
	if (act_remove(a, hib) != 0) {
		grubenv_free(&env);
		return -1;
	}
	if (!m.pending && !m.synced && !m.probation && !m.lost) {
		grubenv_free(&env);
		return 0;
	}
	/* This boot reached Linux: the lost probation boots' count ends. */
	ok = grubenv_set(&env, "tsctui_pending", "0") && zero_lost(&env);
	if (m.synced) {
		ok = ok && grubenv_set(&env, "tsctui_synced", "0") &&
		     zero_if_set(&env, "tsctui_probation") &&
		     zero_if_set(&env, "tsctui_strikes");
		*strikes_out = 0;
	} else if (m.probation) {
		snprintf(count, sizeof(count), "%d", m.strikes + 1);
		ok = ok && grubenv_set(&env, "tsctui_probation", "0") &&
		     grubenv_set(&env, "tsctui_strikes", count);
		if (m.strikes + 1 >= GUARD_MAX_STRIKES)
			ok = ok && grubenv_set(&env, "tsctui_tripped", "1");
		*strikes_out = m.strikes + 1;
	}
	if (!ok)
		rc = act_fail(a, "%s has no room for tsctui's variables",
			      c->grubenv);
	else
		rc = grub_env_write(a, c, &env);
	grubenv_free(&env);
	return rc;
}

/* Regenerates grub.cfg with the distribution's tool, on the live system;
 * under another root, says what to run inside it. */
int grub_regenerate(struct act *a)
{
	static const char *const tools[] = {
		"update-grub",
		"grub-mkconfig -o /boot/grub/grub.cfg",
		"grub2-mkconfig -o /boot/grub2/grub.cfg",
	};
	static const char *const names[] = { "update-grub", "grub-mkconfig",
					     "grub2-mkconfig" };
	static const char *const cfg_of[] = { "", "/boot/grub/grub.cfg",
					      "/boot/grub2/grub.cfg" };
	const char *cfg = fsx_exists(act_path(a, "/boot/grub2/grub.cfg"))
				  ? "/boot/grub2/grub.cfg"
				  : "/boot/grub/grub.cfg";
	size_t i;

	if (strcmp(a->root, "/") != 0) {
		/* The distribution's own tool: Fedora has no update-grub. */
		if (strstr(cfg, "grub2"))
			act_say(a, SAY_RUN_GRUB2_MKCONFIG, cfg, SAY_END);
		else
			act_say(a, SAY_RUN_UPDATE_GRUB, cfg, SAY_END);
		return 0;
	}
	for (i = 0; i < 3; i++) {
		char tool[64], check[64];
		char *run[] = { tool, "-o", (char *)cfg_of[i], NULL };
		char *script_check[] = { "grub-script-check", (char *)cfg,
					 NULL };

		snprintf(tool, sizeof(tool), "%s", names[i]);
		if (!act_have_tool(tool))
			continue;
		if (i == 0)
			run[1] = NULL; /* update-grub takes no arguments */
		if (act_run(a, run, tools[i]) != 0)
			return act_fail(a, "%s failed", tools[i]);
		snprintf(check, sizeof(check), "grub-script-check %s", cfg);
		if (act_run(a, script_check, check) != 0)
			return act_fail(a, "grub-script-check rejects %s", cfg);
		act_change(a, cfg, CHANGE_MODIFIED);
		return 0;
	}
	return act_fail(a,
			"found no update-grub, grub-mkconfig or "
			"grub2-mkconfig to regenerate %s",
			cfg);
}

static int resolve_grubenv(struct act *a, struct tsctui_conf *c)
{
	struct mount_info m;
	struct grubenv env;
	const char *bad;
	bool exists;

	if (!detect_grubenv(a->root, c->grubenv, sizeof(c->grubenv)))
		return act_fail(a, "no /boot/grub or /boot/grub2 directory: "
				   "is GRUB installed?");
	bad = detect_grubenv_unwritable(a->root, c->grubenv);
	if (bad)
		return act_fail_hint(
			a, ACT_HINT_EFI_ENTRY,
			"%s, so the hang guard cannot work there; ", bad);
	if (grub_env_read(a, c, &env, &exists) != 0)
		return -1;
	grubenv_free(&env);
	if (detect_mount_of(a->root, c->grubenv, &m)) {
		size_t n = strcmp(m.dir, "/") ? strlen(m.dir) : 0;

		detect_uuid_of(a->root, m.dev, c->grubenv_fs_uuid,
			       sizeof(c->grubenv_fs_uuid));
		snprintf(c->grubenv_in_fs, sizeof(c->grubenv_in_fs), "%s",
			 c->grubenv + n);
	} else {
		snprintf(c->grubenv_in_fs, sizeof(c->grubenv_in_fs), "%s",
			 c->grubenv);
	}
	if (!c->grubenv_fs_uuid[0] || !c->esp_uuid[0])
		return act_fail(a,
				"cannot find the file system UUID of %s "
				"(/dev/disk/by-uuid), which GRUB needs to find "
				"it at boot",
				c->grubenv_fs_uuid[0] ? c->esp : c->grubenv);
	return 0;
}

/* The same variables with the same values, in any order. */
static bool same_vars(const struct grubenv *x, const struct grubenv *y)
{
	size_t i;

	if (x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++) {
		const char *v = grubenv_get(y, x->name[i]);

		if (!v || strcmp(x->value[i], v))
			return false;
	}
	return true;
}

/* Zanasin/tscsync's variables that install --migrate took out (the
 * backup has them, now does not): back, as uninstall puts back the rest
 * of tscsync (migrate.h).  false when the block is full. */
static bool put_back_tscsync(struct grubenv *now, const struct grubenv *before)
{
	size_t i;
	bool ok = true;

	for (i = 0; i < before->n; i++)
		if (!strncmp(before->name[i], "tscsync_", 8) &&
		    !grubenv_get(now, before->name[i]))
			ok = ok && grubenv_set(now, before->name[i],
					       before->value[i]);
	return ok;
}

/*
 * The grubenv as it is now, for uninstall.  GRUB rewrites this file
 * itself, so a damaged one is a real case, and uninstall has to be the
 * way out: a regular file that is not a valid block is salvaged (every
 * variable that can still be read) and written back as GRUB's 1024-byte
 * block.  Anything else in its place is refused with what fixes it.
 */
static int grubenv_now(struct act *a, const struct tsctui_conf *c,
		       struct grubenv *now, bool *salvaged)
{
	char err[STAGE_STATE_ERR_MAX];
	const char *p = act_path(a, c->grubenv);
	struct stat st;
	bool exists, got;
	size_t len;
	char *d;

	*salvaged = false;
	if (stage_state_grubenv(a->root, c, now, &exists, err) == 0)
		return 0;
	got = fsx_stat(p, &st) == 0;
	if (!got || !S_ISREG(st.st_mode))
		return act_fail(a,
				"%s is not GRUB's environment block (%s): "
				"remove it, run `grub-editenv %s create` "
				"inside the system, then uninstall again",
				c->grubenv,
				got ? "not a regular file" : strerror(errno),
				c->grubenv);
	d = fsx_read(p, &len);
	if (!d)
		return act_fail(a, "cannot read %s: %s", c->grubenv,
				strerror(errno));
	grubenv_salvage(d, len, now);
	free(d);
	*salvaged = true;
	return 0;
}

/* Settles the grubenv by hand and drops its backup entry; the generic
 * replay then has nothing left to do for it. */
static int settle_grubenv(struct act *a, const struct tsctui_conf *c)
{
	char bsys[PATH_UNDER_MAX], block[GRUBENV_SIZE];
	struct grubenv now, before;
	const char *why;
	size_t i, len;
	bool salvaged;
	char *orig;

	if (!act_ledger_has(a, L_BACKUP, c->grubenv))
		return 0;
	act_backup_of(c->grubenv, bsys, sizeof(bsys));
	orig = fsx_read_own(act_path_nofollow(a, bsys), &len);
	if (!orig && errno != ENOENT)
		act_say(a, SAY_GRUBENV_BACKUP_UNREADABLE, bsys, strerror(errno),
			c->grubenv, SAY_END);
	if (orig && !grubenv_parse(orig, len, &before, &why)) {
		act_say(a, SAY_GRUBENV_BACKUP_CORRUPT, bsys, why, c->grubenv,
			SAY_END);
		free(orig);
		orig = NULL;
	} else if (orig) {
		grubenv_free(&before);
	}
	if (!orig) {
		/* Removed once the grubenv was settled, by a run killed
		 * before it could drop the entry (or lost): tsctui's
		 * variables go, if any are left, and nothing else. */
		size_t had;
		int rc = 0;

		if (grubenv_now(a, c, &now, &salvaged) != 0)
			return -1;
		had = now.n;
		for (i = 0; stage_state_grub_vars[i]; i++)
			grubenv_unset(&now, stage_state_grub_vars[i]);
		if (salvaged)
			act_detail(a, c->grubenv,
				   "rebuilt as GRUB's 1024-byte block (it was "
				   "corrupt), keeping %zu variables",
				   now.n);
		if ((now.n != had || salvaged) &&
		    (!grubenv_format(&now, block) ||
		     act_write(a, c->grubenv, block, sizeof(block), 0644)))
			rc = act_fail(a, "cannot write %s", c->grubenv);
		grubenv_free(&now);
		if (rc == 0)
			act_ledger_drop_backup(a, c->grubenv);
		return rc;
	}
	grubenv_parse(orig, len, &before, &why); /* checked above */
	if (grubenv_now(a, c, &now, &salvaged) != 0) {
		free(orig);
		grubenv_free(&before);
		return -1;
	}
	for (i = 0; stage_state_grub_vars[i]; i++)
		grubenv_unset(&now, stage_state_grub_vars[i]);
	if (!put_back_tscsync(&now, &before))
		goto fail;
	if (same_vars(&now, &before)) {
		if (act_write(a, c->grubenv, orig, len, 0644))
			goto fail;
		act_detail(a, c->grubenv, "restored from %s", bsys);
	} else {
		if (!grubenv_format(&now, block) ||
		    act_write(a, c->grubenv, block, sizeof(block), 0644))
			goto fail;
		act_detail(a, c->grubenv,
			   salvaged ? "rebuilt as GRUB's 1024-byte block (it "
				      "was corrupt), without tsctui's "
				      "variables"
				    : "tsctui's variables removed (others were "
				      "set since install)");
	}
	free(orig);
	grubenv_free(&now);
	grubenv_free(&before);
	/* The backup and its ledger entry are done with. */
	act_ledger_drop_backup(a, c->grubenv);
	return 0;
fail:
	free(orig);
	grubenv_free(&now);
	grubenv_free(&before);
	return act_fail(a, "cannot write %s: %s", c->grubenv, strerror(errno));
}

static int place(struct act *a, struct tsctui_conf *c,
		 const struct install_opts *o, const char *image, size_t len,
		 bool fresh)
{
	char sys[PATH_UNDER_MAX];

	(void)o;
	path_join(c->esp, loader_grub.image, sys, sizeof(sys));
	if (act_put(a, sys, image, len, 0644) != 0)
		return -1;
	if (fresh && grub_state_write(a, c, TSC_MODE_MEASURE, "", true) != 0)
		return -1;
	return 0;
}

const struct loader_writing grub_writing = {
	.prepare = resolve_grubenv,
	.place = place,
	.regenerate = grub_regenerate,
	.settle = settle_grubenv,
	.state_write = grub_state_write,
	.boot_ok = grub_boot_ok,
	.firmware_checks = false,
	.mok_refused = false,
};

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../format/grubenv.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "loader_writing.h"
#include "stagecfg.h"

int stagecfg_grubenv(struct act *a, const struct tsctui_conf *c,
		     struct grubenv *env, bool *exists)
{
	char err[STAGE_STATE_ERR_MAX];

	if (stage_state_grubenv(a->root, c, env, exists, err) != 0)
		return act_fail(a, "%s", err);
	return 0;
}

int stagecfg_grubenv_write(struct act *a, const struct tsctui_conf *c,
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

static int esp_marks(struct act *a, const struct tsctui_conf *c,
		     struct guard_marks *m, char boot[BOOT_ID_MAX])
{
	char err[STAGE_STATE_ERR_MAX];

	if (stage_state_esp_marks(a->root, c, m, boot, err) != 0)
		return act_fail(a, "%s", err);
	return 0;
}

/* A state file the stage made (pending, disabled, ...): not in the
 * ledger. */
static int remove_state(struct act *a, const struct tsctui_conf *c,
			const char *name)
{
	char sys[PATH_UNDER_MAX];

	stage_state_esp_file(c, name, sys, sizeof(sys));
	return act_remove(a, sys);
}

/* A state file boot-ok writes (strikes, disabled): atomic, not in the
 * ledger either. */
static int put_state(struct act *a, const struct tsctui_conf *c,
		     const char *name, const char *text)
{
	char sys[PATH_UNDER_MAX];

	stage_state_esp_file(c, name, sys, sizeof(sys));
	return act_write(a, sys, text, strlen(text), 0644);
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

int stagecfg_grub_write(struct act *a, const struct tsctui_conf *c,
			enum tsc_mode m, const char *options, bool reset)
{
	const char *mode = tsc_mode_name(m);
	struct grubenv env;
	bool exists;
	int rc;

	if (stagecfg_grubenv(a, c, &env, &exists) != 0)
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
	rc = stagecfg_grubenv_write(a, c, &env);
	grubenv_free(&env);
	act_detail(a, c->grubenv, "%stsctui_mode=%s tsctui_options=%s%s",
		   reset ? "tsctui_pending=0 tsctui_tripped=0 " : "", mode,
		   options,
		   reset ? " (and synced, probation, strikes, lost to 0 where "
			   "set)"
			 : "");
	return rc;
}

int stagecfg_esp_write(struct act *a, const struct tsctui_conf *c,
		       enum tsc_mode mode, const char *options, bool reset)
{
	char sys[PATH_UNDER_MAX], line[512];
	size_t i;

	snprintf(line, sizeof(line), "mode=%s%s%s\n", tsc_mode_name(mode),
		 options[0] ? " " : "", options);
	stage_state_esp_file(c, "options", sys, sizeof(sys));
	if (act_put(a, sys, line, strlen(line), 0644) != 0)
		return -1;
	line[strcspn(line, "\n")] = '\0';
	act_detail(a, sys, "%s", line);
	for (i = 0; reset && stage_state_guard_files[i]; i++)
		if (remove_state(a, c, stage_state_guard_files[i]) != 0)
			return -1;
	return 0;
}

int stagecfg_write(struct act *a, const struct tsctui_conf *c,
		   enum tsc_mode mode, const char *options, bool reset)
{
	return loader_writing(c->loader)->state_write(a, c, mode, options,
						      reset);
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

int stagecfg_grub_boot_ok(struct act *a, const struct tsctui_conf *c,
			  int *strikes_out)
{
	struct guard_marks m;
	struct grubenv env;
	char count[16];
	bool exists, ok = true;
	int rc = 0;

	uncache(act_path(a, c->grubenv));
	if (stagecfg_grubenv(a, c, &env, &exists) != 0)
		return -1;
	if (grub_marks(a, c, &env, &m) != 0) {
		grubenv_free(&env);
		return -1;
	}
	/* The sleep hook's marker is on the ESP on this path too (the block
	 * and the stage test it): a hibernation never resumed leaves none. */
	if (remove_state(a, c, "hibernated") != 0) {
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
		rc = stagecfg_grubenv_write(a, c, &env);
	grubenv_free(&env);
	return rc;
}

int stagecfg_esp_boot_ok(struct act *a, const struct tsctui_conf *c,
			 int *strikes_out)
{
	struct guard_marks m;
	char boot[BOOT_ID_MAX], counted[BOOT_ID_MAX], text[128];

	if (esp_marks(a, c, &m, counted) != 0)
		return -1;
	boot_id_read(a->root, boot);
	if (m.synced) {
		/* Confirmed: strikes first, synced last, so a kill between
		 * leaves synced for the next run to confirm again. */
		if (remove_state(a, c, "strikes") != 0 ||
		    remove_state(a, c, "probation") != 0 ||
		    remove_state(a, c, "synced") != 0)
			return -1;
		*strikes_out = 0;
	} else if (m.probation) {
		int n = m.strikes;

		/* The count carries the boot it last counted: run again in
		 * the same boot (after a kill), it does not count twice. */
		if (!boot[0] || strcmp(boot, counted)) {
			n++;
			snprintf(text, sizeof(text), "%d\n%s%s%s", n,
				 boot[0] ? "boot " : "", boot,
				 boot[0] ? "\n" : "");
			if (put_state(a, c, "strikes", text) != 0)
				return -1;
		}
		if (n >= GUARD_MAX_STRIKES && !m.tripped &&
		    put_state(a, c, "disabled", "") != 0)
			return -1;
		if (remove_state(a, c, "probation") != 0)
			return -1;
		*strikes_out = n;
	}
	if (remove_state(a, c, "hibernated") != 0)
		return -1;
	/* This boot reached Linux: the lost probation boots' count ends. */
	for (int i = 0; i < GUARD_LOST_FLAGS; i++)
		if (remove_state(a, c, stage_state_lost_files[i]) != 0)
			return -1;
	return remove_state(a, c, "pending");
}

int stagecfg_boot_ok(struct act *a, const struct tsctui_conf *c,
		     int *strikes_out)
{
	*strikes_out = -1;
	return loader_writing(c->loader)->boot_ok(a, c, strikes_out);
}

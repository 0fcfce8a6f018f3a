/* SPDX-License-Identifier: MIT */
/* The stage's mode and hang guard in the ESP's tsctui directory (the
 * systemd-boot driver's and the firmware entry's place), and the two
 * entries that go to the installed loader's own (stagecfg.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "loader_writing.h"
#include "stagecfg.h"

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

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "grubenv.h"
#include "stagecfg.h"

void stagecfg_esp_file(const struct tsctui_conf *c, const char *name,
		       char *out, size_t cap)
{
	snprintf(out, cap, "%s%s/%s", strcmp(c->esp, "/") ? c->esp : "",
		 ESP_STATE_DIR, name);
}

static bool is_grub(const struct tsctui_conf *c)
{
	return strcmp(c->loader, "grub") == 0;
}

int stagecfg_grubenv(struct act *a, const struct tsctui_conf *c,
		     struct grubenv *env, bool *exists)
{
	const char *why;
	size_t len;
	char *data = fsx_read(act_path(a, c->grubenv), &len);

	memset(env, 0, sizeof(*env));
	*exists = data != NULL;
	if (!data) {
		if (errno == ENOENT)
			return 0;
		return act_fail(a, "cannot read %s: %s", c->grubenv,
				strerror(errno));
	}
	if (!grubenv_parse(data, len, env, &why)) {
		free(data);
		return act_fail(a, "%s is corrupt (%s); leaving it alone",
				c->grubenv, why);
	}
	free(data);
	return 0;
}

int stagecfg_grubenv_write(struct act *a, const struct tsctui_conf *c,
			   const struct grubenv *env)
{
	char block[GRUBENV_SIZE];

	if (!grubenv_format(env, block))
		return act_fail(a, "%s is full: the variables do not fit in "
				"1024 bytes", c->grubenv);
	return act_modify(a, c->grubenv, block, sizeof(block), 0644);
}

static void since_of(const char *path, char *out, size_t cap)
{
	struct stat st;
	struct tm tm;

	out[0] = '\0';
	if (stat(path, &st) == 0 && gmtime_r(&st.st_mtime, &tm))
		strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int stagecfg_read(const char *root, const struct tsctui_conf *c,
		  struct stage_state *s, const char **why)
{
	struct act a;
	char sys[4096];

	memset(s, 0, sizeof(*s));
	snprintf(s->guard, sizeof(s->guard), "clear");
	act_init(&a, root, "read");
	if (is_grub(c)) {
		struct grubenv env;
		const char *v;
		bool exists;

		if (stagecfg_grubenv(&a, c, &env, &exists) != 0) {
			static char err[1024];

			snprintf(err, sizeof(err), "%s", a.error);
			*why = err;
			return -1;
		}
		v = grubenv_get(&env, "tsctui_mode");
		snprintf(s->mode, sizeof(s->mode), "%s", v ? v : "off");
		v = grubenv_get(&env, "tsctui_options");
		snprintf(s->options, sizeof(s->options), "%s", v ? v : "");
		if ((v = grubenv_get(&env, "tsctui_tripped")) && !strcmp(v, "1"))
			snprintf(s->guard, sizeof(s->guard), "tripped");
		else if ((v = grubenv_get(&env, "tsctui_pending")) &&
			 !strcmp(v, "1"))
			snprintf(s->guard, sizeof(s->guard), "pending");
		since_of(act_path(&a, c->grubenv), s->since, sizeof(s->since));
		if (!strcmp(s->guard, "clear"))
			s->since[0] = '\0';
		grubenv_free(&env);
		return 0;
	}
	{
		size_t len;
		char *opt, *tok, *save = NULL;

		stagecfg_esp_file(c, "options", sys, sizeof(sys));
		opt = fsx_read(act_path(&a, sys), &len);
		snprintf(s->mode, sizeof(s->mode), "measure");
		for (tok = opt ? strtok_r(opt, " \t\n", &save) : NULL; tok;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			if (!strncmp(tok, "mode=", 5))
				snprintf(s->mode, sizeof(s->mode), "%s", tok + 5);
			else {
				size_t n = strlen(s->options);

				snprintf(s->options + n, sizeof(s->options) - n,
					 "%s%s", n ? " " : "", tok);
			}
		}
		free(opt);
		stagecfg_esp_file(c, "disabled", sys, sizeof(sys));
		if (fsx_exists(act_path(&a, sys))) {
			snprintf(s->guard, sizeof(s->guard), "tripped");
			since_of(act_path(&a, sys), s->since, sizeof(s->since));
			return 0;
		}
		stagecfg_esp_file(c, "pending", sys, sizeof(sys));
		if (fsx_exists(act_path(&a, sys))) {
			snprintf(s->guard, sizeof(s->guard), "pending");
			since_of(act_path(&a, sys), s->since, sizeof(s->since));
		}
	}
	return 0;
}

/* A state file the stage made (pending, disabled): not in the ledger. */
static int remove_state(struct act *a, const struct tsctui_conf *c,
			const char *name)
{
	char sys[4096];

	stagecfg_esp_file(c, name, sys, sizeof(sys));
	if (!fsx_exists(act_path(a, sys)))
		return 0;
	if (fsx_remove(act_path(a, sys)) != 0)
		return act_fail(a, "cannot remove %s: %s", sys,
				strerror(errno));
	act_changed(a, sys, "removed");
	return 0;
}

int stagecfg_write(struct act *a, const struct tsctui_conf *c,
		   const char *mode, const char *options, bool reset)
{
	if (is_grub(c)) {
		struct grubenv env;
		bool exists;
		int rc;

		if (stagecfg_grubenv(a, c, &env, &exists) != 0)
			return -1;
		if (!grubenv_set(&env, "tsctui_mode", mode) ||
		    !grubenv_set(&env, "tsctui_options", options) ||
		    (reset && !grubenv_set(&env, "tsctui_pending", "0")) ||
		    (reset && !grubenv_set(&env, "tsctui_tripped", "0"))) {
			grubenv_free(&env);
			return act_fail(a, "%s has no room for tsctui's "
					"variables", c->grubenv);
		}
		rc = stagecfg_grubenv_write(a, c, &env);
		grubenv_free(&env);
		return rc;
	}
	{
		char sys[4096], line[512];

		snprintf(line, sizeof(line), "mode=%s%s%s\n", mode,
			 options[0] ? " " : "", options);
		stagecfg_esp_file(c, "options", sys, sizeof(sys));
		if (act_put(a, sys, line, strlen(line), 0644) != 0)
			return -1;
		if (reset && (remove_state(a, c, "pending") != 0 ||
			      remove_state(a, c, "disabled") != 0))
			return -1;
	}
	return 0;
}

int stagecfg_clear_pending(struct act *a, const struct tsctui_conf *c)
{
	if (is_grub(c)) {
		struct grubenv env;
		bool exists;
		const char *v;
		int rc = 0;

		if (stagecfg_grubenv(a, c, &env, &exists) != 0)
			return -1;
		v = grubenv_get(&env, "tsctui_pending");
		if (v && strcmp(v, "0") != 0) {
			grubenv_set(&env, "tsctui_pending", "0");
			rc = stagecfg_grubenv_write(a, c, &env);
		}
		grubenv_free(&env);
		return rc;
	}
	return remove_state(a, c, "pending");
}

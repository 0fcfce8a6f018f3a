/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

const char *const stagecfg_guard_files[] = { "pending",   "disabled",
					      "synced",    "probation",
					      "strikes",   "hibernated",
					      NULL };
const char *const stagecfg_grub_vars[] = {
	"tsctui_mode",	 "tsctui_options",   "tsctui_pending", "tsctui_tripped",
	"tsctui_synced", "tsctui_probation", "tsctui_strikes", NULL
};

static void since_of(const char *path, char *out, size_t cap)
{
	struct stat st;
	struct tm tm;

	out[0] = '\0';
	if (stat(path, &st) == 0 && gmtime_r(&st.st_mtime, &tm))
		strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A strike count: a small decimal number, nothing else on its line. */
static bool parse_strikes(const char *s, size_t len, int *n)
{
	size_t i = 0;

	*n = 0;
	if (len == 0 || s[0] < '0' || s[0] > '9')
		return false;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		*n = *n * 10 + (s[i] - '0');
		if (*n > 999)
			return false;
	}
	return i == len || s[i] == '\n';
}

static bool is_one(const struct grubenv *env, const char *name)
{
	const char *v = grubenv_get(env, name);

	return v && !strcmp(v, "1");
}

static int grub_marks(struct act *a, const struct tsctui_conf *c,
		      const struct grubenv *env, struct guard_marks *m)
{
	const char *v = grubenv_get(env, "tsctui_strikes");

	memset(m, 0, sizeof(*m));
	m->pending = is_one(env, "tsctui_pending");
	m->tripped = is_one(env, "tsctui_tripped");
	m->synced = is_one(env, "tsctui_synced");
	m->probation = is_one(env, "tsctui_probation");
	if (v && v[0] && !parse_strikes(v, strlen(v), &m->strikes))
		return act_fail(a, "%s: tsctui_strikes=%s is not a count; "
				"`tsctui guard reset` clears it", c->grubenv,
				v);
	return 0;
}

/* The ESP's strikes file: the count, then "boot <boot_id>" of the boot
 * whose strike it includes (so a boot-ok killed and run again in the same
 * boot counts once). */
static int esp_strikes(struct act *a, const struct tsctui_conf *c, int *n,
		       char boot[64])
{
	char sys[4096];
	const char *nl;
	size_t len;
	char *d;

	*n = 0;
	boot[0] = '\0';
	stagecfg_esp_file(c, "strikes", sys, sizeof(sys));
	d = fsx_read(act_path(a, sys), &len);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return act_fail(a, "cannot read %s: %s", sys, strerror(errno));
	}
	nl = memchr(d, '\n', len);
	if (!parse_strikes(d, nl ? (size_t)(nl - d) : len, n) ||
	    (nl && nl[1] && sscanf(nl + 1, "boot %63s", boot) != 1)) {
		free(d);
		return act_fail(a, "%s is not a strike count; `tsctui guard "
				"reset` clears it", sys);
	}
	free(d);
	return 0;
}

static bool esp_has(struct act *a, const struct tsctui_conf *c,
		    const char *name)
{
	char sys[4096];

	stagecfg_esp_file(c, name, sys, sizeof(sys));
	return fsx_exists(act_path(a, sys));
}

static int esp_marks(struct act *a, const struct tsctui_conf *c,
		     struct guard_marks *m, char boot[64])
{
	memset(m, 0, sizeof(*m));
	m->pending = esp_has(a, c, "pending");
	m->tripped = esp_has(a, c, "disabled");
	m->synced = esp_has(a, c, "synced");
	m->probation = esp_has(a, c, "probation");
	m->hibernated = esp_has(a, c, "hibernated");
	return esp_strikes(a, c, &m->strikes, boot);
}

static void guard_word(struct stage_state *s)
{
	const struct guard_marks *m = &s->marks;

	snprintf(s->guard, sizeof(s->guard), "%s",
		 m->tripped ? "tripped"
		 : m->pending || m->synced || m->probation ? "pending"
							     : "clear");
}

static int read_failed(struct act *a, const char **why)
{
	static char err[1024];

	snprintf(err, sizeof(err), "%s", a->error);
	*why = err;
	act_free(a);
	return -1;
}

int stagecfg_read(const char *root, const struct tsctui_conf *c,
		  struct stage_state *s, const char **why)
{
	struct act a;
	char sys[4096], boot[64];

	memset(s, 0, sizeof(*s));
	snprintf(s->guard, sizeof(s->guard), "clear");
	act_init(&a, root, "read");
	if (is_grub(c)) {
		struct grubenv env;
		const char *v;
		bool exists;

		if (stagecfg_grubenv(&a, c, &env, &exists) != 0)
			return read_failed(&a, why);
		v = grubenv_get(&env, "tsctui_mode");
		snprintf(s->mode, sizeof(s->mode), "%s", v ? v : "off");
		v = grubenv_get(&env, "tsctui_options");
		snprintf(s->options, sizeof(s->options), "%s", v ? v : "");
		if (grub_marks(&a, c, &env, &s->marks) != 0) {
			grubenv_free(&env);
			return read_failed(&a, why);
		}
		guard_word(s);
		since_of(act_path(&a, c->grubenv), s->since, sizeof(s->since));
		if (!strcmp(s->guard, "clear"))
			s->since[0] = '\0';
		grubenv_free(&env);
		act_free(&a);
		return 0;
	}
	{
		size_t len;
		char *opt, *tok, *save = NULL;
		const char *marker;

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
		if (esp_marks(&a, c, &s->marks, boot) != 0)
			return read_failed(&a, why);
		guard_word(s);
		marker = s->marks.tripped     ? "disabled"
			 : s->marks.pending   ? "pending"
			 : s->marks.probation ? "probation"
			 : s->marks.synced    ? "synced"
					      : NULL;
		if (marker) {
			stagecfg_esp_file(c, marker, sys, sizeof(sys));
			since_of(act_path(&a, sys), s->since, sizeof(s->since));
		}
	}
	act_free(&a);
	return 0;
}

/* A state file the stage made (pending, disabled, ...): not in the
 * ledger. */
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

/* A state file boot-ok writes (strikes, disabled): atomic, not in the
 * ledger either. */
static int put_state(struct act *a, const struct tsctui_conf *c,
		     const char *name, const char *text)
{
	char sys[4096];
	bool had;

	stagecfg_esp_file(c, name, sys, sizeof(sys));
	had = fsx_exists(act_path(a, sys));
	if (fsx_write_atomic(act_path(a, sys), text, strlen(text), 0644) != 0)
		return act_fail(a, "cannot write %s: %s", sys,
				strerror(errno));
	act_changed(a, sys, had ? "modified" : "created");
	return 0;
}

/* Sets a grubenv variable tsctui owns to "0" where it is set otherwise;
 * absent stays absent (GRUB's block defaults it). */
static bool zero_if_set(struct grubenv *env, const char *name)
{
	const char *v = grubenv_get(env, name);

	return !v || !strcmp(v, "0") || grubenv_set(env, name, "0");
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
		    (reset && !grubenv_set(&env, "tsctui_tripped", "0")) ||
		    (reset && !zero_if_set(&env, "tsctui_synced")) ||
		    (reset && !zero_if_set(&env, "tsctui_probation")) ||
		    (reset && !zero_if_set(&env, "tsctui_strikes"))) {
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
		size_t i;

		snprintf(line, sizeof(line), "mode=%s%s%s\n", mode,
			 options[0] ? " " : "", options);
		stagecfg_esp_file(c, "options", sys, sizeof(sys));
		if (act_put(a, sys, line, strlen(line), 0644) != 0)
			return -1;
		for (i = 0; reset && stagecfg_guard_files[i]; i++)
			if (remove_state(a, c, stagecfg_guard_files[i]) != 0)
				return -1;
	}
	return 0;
}

static void this_boot(struct act *a, char out[64])
{
	char path[4096];
	size_t len;
	char *d;

	out[0] = '\0';
	path_under(a->root, "/proc/sys/kernel/random/boot_id", path,
		   sizeof(path));
	if ((d = fsx_read(path, &len))) {
		if (sscanf(d, "%63s", out) != 1)
			out[0] = '\0';
		free(d);
	}
}

/*
 * GRUB rewrote the grubenv's blocks underneath a system that may have been
 * running all along (a resume from hibernation): drop the cached pages, so
 * that boot-ok reads what is on the disk.
 */
static void uncache(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

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
	if (!m.pending && !m.synced && !m.probation) {
		grubenv_free(&env);
		return 0;
	}
	ok = grubenv_set(&env, "tsctui_pending", "0");
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

static int esp_boot_ok(struct act *a, const struct tsctui_conf *c,
		       int *strikes_out)
{
	struct guard_marks m;
	char boot[64], counted[64], text[128];

	if (esp_marks(a, c, &m, counted) != 0)
		return -1;
	this_boot(a, boot);
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
	return remove_state(a, c, "pending");
}

int stagecfg_boot_ok(struct act *a, const struct tsctui_conf *c,
		     int *strikes_out)
{
	*strikes_out = -1;
	if (is_grub(c))
		return grub_boot_ok(a, c, strikes_out);
	return esp_boot_ok(a, c, strikes_out);
}

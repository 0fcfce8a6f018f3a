/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "../../common/string_table.h"
#include "../format/grubenv.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "../util/words.h"
#include "efivar.h"
#include "../../common/report_var.h"
#include "stage_state.h"

/* A strike count above this is not one tsctui wrote (it trips at
 * GUARD_MAX_STRIKES): the file is damaged. */
#define STRIKES_MAX 999

const char *const stage_state_guard_files[] = {
	"pending", "disabled", "synced", "probation", "strikes", "hibernated",
	"lost1",   "lost2",    "lost3",	 "lost4",     NULL
};
const char *const stage_state_run_files[] = { STAGE_STATE_RUN_DIR "/ran-ok",
					      STAGE_STATE_RUN_DIR "/wrote",
					      STAGE_STATE_RUN_DIR "/tripped",
					      NULL };
const char *const stage_state_grub_vars[] = {
	"tsctui_mode",	 "tsctui_options",   "tsctui_pending", "tsctui_tripped",
	"tsctui_synced", "tsctui_probation", "tsctui_strikes", "tsctui_lost1",
	"tsctui_lost2",	 "tsctui_lost3",     "tsctui_lost4",   NULL
};
const char *const stage_state_lost_files[GUARD_LOST_FLAGS] = { "lost1", "lost2",
							       "lost3",
							       "lost4" };
const char *const stage_state_lost_vars[GUARD_LOST_FLAGS] = {
	"tsctui_lost1", "tsctui_lost2", "tsctui_lost3", "tsctui_lost4"
};

void stage_state_esp_file(const struct tsctui_conf *c, const char *name,
			  char *out, size_t cap)
{
	char rel[256];

	snprintf(rel, sizeof(rel), ESP_STATE_DIR "/%s", name);
	path_join(c->esp, rel, out, cap);
}

/* The sentence for err; returns -1. */
static int fail(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, STAGE_STATE_ERR_MAX, fmt, ap);
	va_end(ap);
	return -1;
}

/* root + sys, or "" when that does not fit (then nothing is found). */
static const char *under(const char *root, const char *sys, char *buf,
			 size_t cap)
{
	if (!path_under(root, sys, buf, cap))
		buf[0] = '\0';
	return buf;
}

int stage_state_grubenv(const char *root, const struct tsctui_conf *c,
			struct grubenv *env, bool *exists, char *err)
{
	char path[PATH_UNDER_MAX];
	const char *why;
	size_t len;
	char *data =
		fsx_read(under(root, c->grubenv, path, sizeof(path)), &len);

	memset(env, 0, sizeof(*env));
	*exists = data != NULL;
	if (!data) {
		if (errno == ENOENT)
			return 0;
		return fail(err,
			    "cannot read %s: %s (if it is not a file, remove "
			    "it and run `grub-editenv %s create`)",
			    c->grubenv, strerror(errno), c->grubenv);
	}
	if (!grubenv_parse(data, len, env, &why)) {
		free(data);
		return fail(err,
			    "%s is corrupt (%s); leaving it alone (a plain "
			    "`tsctui uninstall` rebuilds it)",
			    c->grubenv, why);
	}
	free(data);
	return 0;
}

static void since_of(const char *path, char *out, size_t cap)
{
	struct stat st;
	struct tm tm;

	out[0] = '\0';
	if (fsx_stat(path, &st) == 0 && gmtime_r(&st.st_mtime, &tm))
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
		if (*n > STRIKES_MAX)
			return false;
	}
	return i == len || s[i] == '\n';
}

static bool is_one(const struct grubenv *env, const char *name)
{
	const char *v = grubenv_get(env, name);

	return v && !strcmp(v, "1");
}

int stage_state_grub_marks(const struct tsctui_conf *c,
			   const struct grubenv *env, struct guard_marks *m,
			   char *err)
{
	const char *v = grubenv_get(env, "tsctui_strikes");

	memset(m, 0, sizeof(*m));
	m->pending = is_one(env, "tsctui_pending");
	m->tripped = is_one(env, "tsctui_tripped");
	m->synced = is_one(env, "tsctui_synced");
	m->probation = is_one(env, "tsctui_probation");
	for (int i = 0; i < GUARD_LOST_FLAGS; i++)
		m->lost += is_one(env, stage_state_lost_vars[i]);
	if (v && v[0] && !parse_strikes(v, strlen(v), &m->strikes)) {
		return fail(err,
			    "%s: tsctui_strikes=%s is not a count; `tsctui "
			    "guard reset` clears it",
			    c->grubenv, v);
	}
	return 0;
}

/* The ESP's strikes file: the count, then "boot <boot_id>" of the boot
 * whose strike it includes (so a boot-ok killed and run again in the same
 * boot counts once). */
static int esp_strikes(const char *root, const struct tsctui_conf *c, int *n,
		       char boot[BOOT_ID_MAX], char *err)
{
	char sys[PATH_UNDER_MAX], path[PATH_UNDER_MAX];
	const char *nl;
	size_t len;
	char *d;

	*n = 0;
	boot[0] = '\0';
	stage_state_esp_file(c, "strikes", sys, sizeof(sys));
	d = fsx_read(under(root, sys, path, sizeof(path)), &len);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return fail(err, "cannot read %s: %s", sys, strerror(errno));
	}
	nl = memchr(d, '\n', len);
	/* %63s: BOOT_ID_MAX - 1 */
	if (!parse_strikes(d, nl ? (size_t)(nl - d) : len, n) ||
	    (nl && nl[1] && sscanf(nl + 1, "boot %63s", boot) != 1)) {
		free(d);
		return fail(err,
			    "%s is not a strike count; `tsctui guard reset` "
			    "clears it",
			    sys);
	}
	free(d);
	return 0;
}

static bool esp_has(const char *root, const struct tsctui_conf *c,
		    const char *name)
{
	char sys[PATH_UNDER_MAX], path[PATH_UNDER_MAX];

	stage_state_esp_file(c, name, sys, sizeof(sys));
	return fsx_exists(under(root, sys, path, sizeof(path)));
}

int stage_state_esp_marks(const char *root, const struct tsctui_conf *c,
			  struct guard_marks *m, char boot[BOOT_ID_MAX],
			  char *err)
{
	memset(m, 0, sizeof(*m));
	m->pending = esp_has(root, c, "pending");
	m->tripped = esp_has(root, c, "disabled");
	m->synced = esp_has(root, c, "synced");
	m->probation = esp_has(root, c, "probation");
	m->hibernated = esp_has(root, c, "hibernated");
	for (int i = 0; i < GUARD_LOST_FLAGS; i++)
		m->lost += esp_has(root, c, stage_state_lost_files[i]);
	return esp_strikes(root, c, &m->strikes, boot, err);
}

/* The one table of the guard's words: index = enum guard_state. */
static const char *const guard_names[] = {
	[GUARD_CLEAR] = "clear",
	[GUARD_PENDING] = "pending",
	[GUARD_TRIPPED] = "tripped",
};

STRING_TABLE_TO(stage_state_guard_name, enum guard_state, guard_names,
		guard_names[GUARD_CLEAR])

static void guard_of(struct stage_state *s)
{
	const struct guard_marks *m = &s->marks;

	s->guard = m->tripped				     ? GUARD_TRIPPED
		   : m->pending || m->synced || m->probation ? GUARD_PENDING
							     : GUARD_CLEAR;
}

int stage_state_read_grub(const char *root, const struct tsctui_conf *c,
			  struct stage_state *s, char *err)
{
	char path[PATH_UNDER_MAX];
	struct grubenv env;
	const char *v;
	bool exists;

	if (stage_state_grubenv(root, c, &env, &exists, err) != 0)
		return -1;
	v = grubenv_get(&env, "tsctui_mode");
	snprintf(s->mode_word, sizeof(s->mode_word), "%s", v ? v : "off");
	v = grubenv_get(&env, "tsctui_options");
	snprintf(s->options, sizeof(s->options), "%s", v ? v : "");
	if (stage_state_grub_marks(c, &env, &s->marks, err) != 0) {
		grubenv_free(&env);
		return -1;
	}
	guard_of(s);
	since_of(under(root, c->grubenv, path, sizeof(path)), s->since,
		 sizeof(s->since));
	if (s->guard == GUARD_CLEAR)
		s->since[0] = '\0';
	grubenv_free(&env);
	return 0;
}

/* The options file: "mode=M" and the other tokens, in any order. */
static void parse_options(char *text, struct stage_state *s)
{
	const char *w = text;
	size_t n;

	snprintf(s->mode_word, sizeof(s->mode_word), "measure");
	while ((w = words_next(w, &n))) {
		if (n >= strlen("mode=") &&
		    !strncmp(w, "mode=", strlen("mode=")))
			snprintf(s->mode_word, sizeof(s->mode_word), "%.*s",
				 (int)(n - strlen("mode=")),
				 w + strlen("mode="));
		else
			words_append(s->options, sizeof(s->options), w, n);
		w += n;
	}
}

int stage_state_read_esp(const char *root, const struct tsctui_conf *c,
			 struct stage_state *s, char *err)
{
	char sys[PATH_UNDER_MAX], path[PATH_UNDER_MAX];
	char boot[BOOT_ID_MAX];
	const char *marker;
	size_t len;
	char *opt;

	stage_state_esp_file(c, "options", sys, sizeof(sys));
	opt = fsx_read(under(root, sys, path, sizeof(path)), &len);
	parse_options(opt ? opt : "", s);
	free(opt);
	if (stage_state_esp_marks(root, c, &s->marks, boot, err) != 0)
		return -1;
	guard_of(s);
	marker = s->marks.tripped     ? "disabled"
		 : s->marks.pending   ? "pending"
		 : s->marks.probation ? "probation"
		 : s->marks.synced    ? "synced"
				      : NULL;
	if (marker) {
		stage_state_esp_file(c, marker, sys, sizeof(sys));
		since_of(under(root, sys, path, sizeof(path)), s->since,
			 sizeof(s->since));
	}
	return 0;
}

static const char *const hib_names[] = {
	[HIB_NONE] = "none",
	[HIB_CURRENT] = "current",
	[HIB_STALE] = "stale",
};

STRING_TABLE_TO(stage_state_hib_name, enum hib_location, hib_names, "none")

/* Read on every loader: the hook's marker is on the ESP on all three. */
static enum hib_location hib_location(const char *root,
				      const struct tsctui_conf *c)
{
	size_t len;
	uint8_t *v = efivar_read(root, "HibernateLocation",
				 GUID_SYSTEMD_HIBERNATE, &len, NULL);

	if (!v)
		return HIB_NONE;
	free(v);
	return esp_has(root, c, "hibernated") ? HIB_CURRENT : HIB_STALE;
}

/* The resume guard's variable (common/report_var.h), on every loader. */
static bool resume_armed(const char *root)
{
	size_t len;
	uint8_t *v = efivar_read(root, TSC_RESUME_VAR_NAME,
				 TSC_REPORT_VAR_GUID_TEXT, &len, NULL);
	bool set = v != NULL;

	free(v);
	return set;
}

/* The value of the last `GRUB_SAVEDEFAULT=` line of a shell fragment into
 * val (quotes dropped); val untouched when there is none. */
static void savedefault_in(const char *text, char *val, size_t cap)
{
	static const char key[] = "GRUB_SAVEDEFAULT=";
	const char *p = text, *e;

	while (p && *p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, "export ", 7))
			p += 7;
		if (!strncmp(p, key, strlen(key))) {
			p += strlen(key);
			if (*p == '"' || *p == '\'')
				p++;
			e = p + strcspn(p, "\"' \t\n#;");
			snprintf(val, cap, "%.*s", (int)(e - p), p);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

static void savedefault_file(const char *root, const char *sys, char *val,
			     size_t cap)
{
	char path[PATH_UNDER_MAX];
	size_t len;
	char *d = fsx_read(under(root, sys, path, sizeof(path)), &len);

	if (d)
		savedefault_in(d, val, cap);
	free(d);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* GRUB_SAVEDEFAULT as grub-mkconfig would see it: /etc/default/grub, then
 * /etc/default/grub.d/ *.cfg in name order. */
static bool grub_savedefault(const char *root)
{
	char path[PATH_UNDER_MAX], sys[PATH_UNDER_MAX], val[16] = "";
	char *names[64];
	size_t n = 0, i, len;
	struct dirent *de;
	DIR *d;

	savedefault_file(root, "/etc/default/grub", val, sizeof(val));
	d = fsx_opendir(under(root, "/etc/default/grub.d", path, sizeof(path)));
	while (d && n < sizeof(names) / sizeof(names[0]) && (de = readdir(d))) {
		len = strlen(de->d_name);
		if (len > 4 && !strcmp(de->d_name + len - 4, ".cfg"))
			names[n++] = strdup(de->d_name);
		if (n && !names[n - 1])
			n--;
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), by_name);
	for (i = 0; i < n; i++) {
		snprintf(sys, sizeof(sys), "/etc/default/grub.d/%s", names[i]);
		savedefault_file(root, sys, val, sizeof(val));
		free(names[i]);
	}
	return !strcmp(val, "true");
}

/* `default @saved` in the ESP's loader/loader.conf (systemd-boot's own
 * rule: the first word is the key, the rest of the line its value). */
static bool sdboot_saved(const char *root, const struct tsctui_conf *c)
{
	char sys[PATH_UNDER_MAX], path[PATH_UNDER_MAX];
	const char *p;
	bool saved = false;
	size_t len, n;
	char *d;

	path_join(c->esp, "/loader/loader.conf", sys, sizeof(sys));
	d = fsx_read(under(root, sys, path, sizeof(path)), &len);
	for (p = d; p && *p;) {
		p += strspn(p, " \t");
		if (!strncmp(p, "default", 7) &&
		    (p[7] == ' ' || p[7] == '\t')) {
			p += 7 + strspn(p + 7, " \t");
			n = strcspn(p, " \t\r\n");
			saved = n == 6 && !strncmp(p, "@saved", 6);
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	free(d);
	return saved;
}

static enum last_boot last_boot_of(const char *root,
				   const struct tsctui_conf *c)
{
	if (c->loader == LOADER_GRUB)
		return grub_savedefault(root) ? LAST_BOOT_SET : LAST_BOOT_UNSET;
	if (c->loader == LOADER_SDBOOT)
		return sdboot_saved(root, c) ? LAST_BOOT_SET : LAST_BOOT_UNSET;
	return LAST_BOOT_NO_SETTING;
}

int stage_state_read(const char *root, const struct tsctui_conf *c,
		     struct stage_state *s, const char **why)
{
	static char err[STAGE_STATE_ERR_MAX];

	memset(s, 0, sizeof(*s));
	if (loader_reading(c->loader)->state_read(root, c, s, err) != 0) {
		*why = err;
		return -1;
	}
	s->mode_known =
		tsc_mode_from(s->mode_word, strlen(s->mode_word), &s->mode);
	s->hibernate_location = hib_location(root, c);
	s->marks.resume = resume_armed(root);
	s->last_boot = last_boot_of(root, c);
	if (s->marks.resume && s->guard == GUARD_CLEAR)
		s->guard = GUARD_PENDING;
	return 0;
}

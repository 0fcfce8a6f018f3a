/* SPDX-License-Identifier: MIT */
/* The act every action carries: its paths, messages and list of changes,
 * the tools it runs (act.h; the rest of the core: act_core.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../common/string_table.h"
#include "../source/config.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "act.h"

static const char *const change_kind_table[] = {
	[CHANGE_CREATED] = "created",
	[CHANGE_MODIFIED] = "modified",
	[CHANGE_REMOVED] = "removed",
};
STRING_TABLE_TO(change_kind_name, enum change_kind, change_kind_table, "?")

/* The plan's verb for each kind (a dry run's "create /boot/..."). */
static const char *const change_verb_table[] = {
	[CHANGE_CREATED] = "create",
	[CHANGE_MODIFIED] = "modify",
	[CHANGE_REMOVED] = "remove",
};
STRING_TABLE_TO(act_verb, enum change_kind, change_verb_table, "modify")

static const char *const hint_table[] = {
	[ACT_HINT_NONE] = "",
	[ACT_HINT_ESP] = "mount the ESP or give --esp",
	[ACT_HINT_LOADER] = "; give --loader",
	[ACT_HINT_NEXT] = "; give --next BootXXXX",
	[ACT_HINT_DB_KEY] =
		"and pass --key KEY --cert CERT, or use --loader grub",
	[ACT_HINT_EFI_ENTRY] =
		"use `tsctui install --loader efi-entry` instead",
};
_Static_assert(STRING_TABLE_SIZE(hint_table) == ACT_HINTS,
	       "every hint has its command-line words");
STRING_TABLE_TO(act_hint_words, enum act_hint, hint_table, "")

void act_init(struct act *a, const char *root, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->root = root;
	a->name = name;
	a->lock_fd = -1;
}

void act_free(struct act *a)
{
	size_t i;

	for (i = 0; i < a->nchanges; i++)
		free(a->changes[i].path);
	for (i = 0; i < a->nledger; i++)
		free(a->ledger[i].path);
	for (i = 0; i < a->nruns; i++)
		free(a->runs[i]);
	for (i = 0; i < a->ngone; i++)
		free(a->gone[i]);
	act_unsay(a, 0);
	a->nchanges = a->nledger = a->nruns = a->ngone = 0;
	if (a->lock_fd >= 0)
		close(a->lock_fd);
	a->lock_fd = -1;
}

/* The result lives until 7 more calls; copy it to keep it longer. */
const char *act_path(struct act *a, const char *sys)
{
	static char bufs[8][PATH_UNDER_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	if (!path_under(a->root, sys, b, sizeof(bufs[0])))
		b[0] = '\0';
	return b;
}

const char *act_path_nofollow(struct act *a, const char *sys)
{
	static char bufs[4][PATH_UNDER_MAX];
	static int next;
	char *b = bufs[next++ % 4];

	if (!path_under_nofollow(a->root, sys, b, sizeof(bufs[0])))
		b[0] = '\0';
	return b;
}

/* The first error of an action is the one it reports: later ones (an
 * undo failing after it) do not overwrite it.  false when one was set. */
static bool first_error(struct act *a, const char *fmt, va_list ap)
{
	int e = errno;

	if (a->error[0])
		return false;
	vsnprintf(a->error, sizeof(a->error), fmt, ap);
	a->error_errno = e;
	return true;
}

int act_fail(struct act *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	first_error(a, fmt, ap);
	va_end(ap);
	return -1;
}

int act_fail_hint(struct act *a, enum act_hint h, const char *fmt, ...)
{
	const char *words = act_hint_words(h);
	size_t n, w = strlen(words);
	va_list ap;

	bool set;

	va_start(ap, fmt);
	set = first_error(a, fmt, ap);
	va_end(ap);
	if (!set)
		return -1;
	n = strlen(a->error);
	if (n + w >= sizeof(a->error))
		return -1; /* no room for the words: no way out marked */
	memcpy(a->error + n, words, w + 1);
	a->hint = h;
	a->hint_at = n;
	a->hint_end = n + w;
	return -1;
}

static void say(struct act *a, enum act_say code, va_list ap)
{
	struct act_said *s;
	size_t want = act_say_nvals(code);
	const char *v;

	/* The last place says how many more there were, never a silent
	 * cut (a failed action lists every change it left). */
	if (a->nsaid >= ACT_MAX_SAID - 1) {
		char n[24];

		s = &a->said[ACT_MAX_SAID - 1];
		if (a->nsaid == ACT_MAX_SAID - 1) {
			memset(s, 0, sizeof(*s));
			s->code = SAY_MORE;
			s->nval = 1;
			a->nsaid = ACT_MAX_SAID;
			a->said_more = 0;
		}
		snprintf(n, sizeof(n), "%zu", ++a->said_more);
		free(s->val[0]);
		s->val[0] = strdup(n);
		return;
	}
	s = &a->said[a->nsaid++];
	memset(s, 0, sizeof(*s));
	s->code = code;
	while ((v = va_arg(ap, const char *)) && s->nval < ACT_SAY_VALS)
		s->val[s->nval++] = strdup(v);
#ifdef __SANITIZE_ADDRESS__
	/* A caller that gives other than the code's count is a bug: the
	 * sanitizer build every action suite runs stops at once (a user's
	 * build says what it has, its missing values empty). */
	if (s->nval != want)
		abort();
#else
	(void)want;
#endif
}

void act_say(struct act *a, enum act_say code, ...)
{
	va_list ap;

	va_start(ap, code);
	say(a, code, ap);
	va_end(ap);
}

void act_done(struct act *a, enum act_say code, ...)
{
	va_list ap;

	if (a->dry_run)
		return;
	va_start(ap, code);
	say(a, code, ap);
	va_end(ap);
}

void act_unsay(struct act *a, size_t from)
{
	size_t i, k;

	for (i = from; i < a->nsaid; i++)
		for (k = 0; k < a->said[i].nval; k++)
			free(a->said[i].val[k]);
	if (from < a->nsaid) {
		a->nsaid = from;
		a->said_more = 0;
	}
}

void act_detail(struct act *a, const char *sys, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	for (i = 0; i < a->nchanges; i++) {
		if (strcmp(a->changes[i].path, sys))
			continue;
		va_start(ap, fmt);
		vsnprintf(a->changes[i].detail, sizeof(a->changes[i].detail),
			  fmt, ap);
		va_end(ap);
		return;
	}
}

void act_change(struct act *a, const char *sys, enum change_kind what)
{
	size_t i;

	for (i = 0; i < a->nchanges; i++) {
		if (strcmp(a->changes[i].path, sys) == 0) {
			/* created then modified is still created; created
			 * then removed is nothing at all */
			if (what == CHANGE_REMOVED &&
			    a->changes[i].what == CHANGE_CREATED) {
				free(a->changes[i].path);
				a->changes[i] = a->changes[--a->nchanges];
			} else if (a->changes[i].what != CHANGE_CREATED) {
				a->changes[i].what = what;
			}
			return;
		}
	}
	if (a->nchanges < ACT_MAX_CHANGES)
		a->changes[a->nchanges++] =
			(struct change){ strdup(sys), what, "" };
}

bool act_have_tool(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char full[PATH_UNDER_MAX];

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	for (p = path && path[0] ? path : "/usr/sbin:/usr/bin:/sbin:/bin";;
	     p = end + 1) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (snprintf(full, sizeof(full), "%.*s/%s", (int)(end - p), p,
			     name) < (int)sizeof(full) &&
		    access(full, X_OK) == 0)
			return true;
		if (!*end)
			return false;
	}
}

int act_run(struct act *a, char *const argv[], const char *shown)
{
	int status, null;
	pid_t pid;

	if (a->nruns < ACT_MAX_RUNS)
		a->runs[a->nruns++] = strdup(shown);
	if (a->dry_run)
		return 0;
	fsx_fault_point();
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		null = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int act_installed(struct act *a, struct tsctui_conf *c)
{
	const char *why = NULL;
	int have = config_read(a->root, c, &why);

	if (have < 0)
		return act_fail(a, "%s", why);
	if (have == 0)
		return act_fail(a, "tsctui is not installed (run `tsctui "
				   "install` first)");
	return 0;
}

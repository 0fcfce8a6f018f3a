/* SPDX-License-Identifier: MIT */
/*
 * tsctui kernel-arg nowatchdog on|off: tsc=nowatchdog for the next boot,
 * through the distribution's own mechanism:
 *   - grubby, where it exists (Fedora family): --update-kernel=ALL
 *     --args/--remove-args (TSCTUI_GRUBBY names another binary: tests use a
 *     double that records its arguments);
 *   - Debian's GRUB: a drop-in in /etc/default/grub.d/, then grub.cfg is
 *     regenerated;
 *   - BLS entries (systemd-boot, or a Fedora root edited from outside):
 *     /etc/kernel/cmdline (seeded from /proc/cmdline, since creating it ends
 *     kernel-install's fallback) and the options of every entry (the
 *     token after the last options line's words; BLS joins the lines).
 * Lines of any length, every other byte kept: no fixed buffer holds them.
 * The setting itself is kept in NOWATCHDOG_SETTING for the
 * kernel-install plugin.  tsc=reliable is never added; where the user's
 * configuration has it, the message warns, and `kernel-arg reliable off`
 * takes it out (reliable_off).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "../util/words.h"
#include "actions.h"
#include "kernel_arg.h"
#include "loader_writing.h"
#include "../source/config.h"
#include "../source/detect.h"
#include "../source/kernel_cmdline.h"

#define TOKEN ACT_GRUBBY_ARG
#define DROPIN KERNEL_ARG_DROPIN
#define KERNEL_CMDLINE "/etc/kernel/cmdline"
/* x86's COMMAND_LINE_SIZE: Linux reads at most this many bytes of its
 * command line, NUL included.  Files hold longer lines (nothing here cuts
 * one); a line whose token would land past it gets a warning. */
#define KERNEL_CMDLINE_SIZE 2048

/* A BLS entry's kernel arguments: "options" and a blank, then the words. */
#define BLS_OPTIONS "options"

/* Words boot loaders add to the running kernel's command line, which are
 * not the user's: seeding KERNEL_CMDLINE from /proc/cmdline drops them. */
static const char *const loader_words[] = { "BOOT_IMAGE=", "initrd=", NULL };

#ifndef TSCTUI_DATADIR
#define TSCTUI_DATADIR "/usr/local/share/tsctui"
#endif
/* The drop-in as grub.d/ ships it (make install puts it here). */
#define DROPIN_TEMPLATE TSCTUI_DATADIR "/grub-nowatchdog.cfg"

/* Every BLS entry directory tsctui knows of, on the managed system. */
static size_t entry_dirs(struct act *a, const struct tsctui_conf *c,
			 char dirs[3][512])
{
	size_t n = 0;

	if (c->esp[0]) {
		path_join(c->esp, "/loader/entries", dirs[n], 512);
		if (fsx_is_dir(act_path(a, dirs[n])))
			n++;
	}
	snprintf(dirs[n], 512, "/boot/loader/entries");
	if (fsx_is_dir(act_path(a, dirs[n])) &&
	    (n == 0 || strcmp(dirs[0], dirs[n])))
		n++;
	return n;
}

/* Is line (n bytes, no newline) a BLS options line? */
static bool is_options(const char *line, size_t n)
{
	const size_t k = strlen(BLS_OPTIONS);

	return n > k && !memcmp(line, BLS_OPTIONS, k) &&
	       (line[k] == ' ' || line[k] == '\t');
}

/* The words after "options" on the line at p (n bytes): a new string. */
static char *options_words(const char *p, size_t n)
{
	const size_t k = strlen(BLS_OPTIONS) + 1;

	return strndup(p + k, n - k);
}

/* What edit_entry saw of an entry's options lines. */
struct options_seen {
	size_t lines;	/* options lines */
	size_t last;	/* offset of the last one */
	size_t words;	/* bytes of their words joined by single spaces */
	bool has_token; /* on one of them */
};

static int options_scan(const char *d, size_t len, const char *tok,
			struct options_seen *o)
{
	size_t at, n;

	memset(o, 0, sizeof(*o));
	for (at = 0; at < len; at += n + (at + n < len)) {
		const char *nl = memchr(d + at, '\n', len - at);
		const char *w;
		char *words;
		size_t wn;

		n = nl ? (size_t)(nl - (d + at)) : len - at;
		if (!is_options(d + at, n))
			continue;
		words = options_words(d + at, n);
		if (!words)
			return -1;
		o->has_token |= words_has(words, tok);
		for (w = words; (w = words_next(w, &wn)); w += wn)
			o->words += wn + (o->words ? 1 : 0);
		o->last = at;
		o->lines++;
		free(words);
	}
	return 0;
}

/* Rewrites the options of one BLS entry, every other byte as it was: on,
 * the token after the words of the last options line (the lines are
 * joined into one command line), unless one has it; off, every copy out
 * of every line.  *carries: the entry has the token afterwards. */
static int edit_entry(struct act *a, const char *sys, const char *tok, bool on,
		      bool *carries)
{
	struct options_seen o;
	size_t len, at, n, i = 0, cap;
	char *d = fsx_read(act_path(a, sys), &len), *out;
	int rc;

	if (!d)
		return act_fail(a, "cannot read %s: %s", sys, strerror(errno));
	if (memchr(d, '\0', len)) {
		free(d);
		return act_fail(a,
				"%s has a NUL byte: not a BLS entry; "
				"nothing changed",
				sys);
	}
	if (options_scan(d, len, tok, &o) != 0) {
		free(d);
		return act_fail(a, "out of memory");
	}
	*carries = on ? o.has_token || o.lines > 0 : false;
	if (on == o.has_token || o.lines == 0) {
		free(d);
		return 0; /* nothing to change */
	}
	/* Only the edited lines change; on adds a blank and the token to one
	 * line, and single spaces between words never make a line longer. */
	cap = len + strlen(tok) + 2;
	out = malloc(cap);
	if (!out) {
		free(d);
		return act_fail(a, "out of memory");
	}
	for (at = 0; at < len; at += n) {
		const char *nl = memchr(d + at, '\n', len - at);
		char *words, *edited = NULL;
		size_t e, need;

		n = nl ? (size_t)(nl - (d + at)) + 1 : len - at;
		e = nl ? n - 1 : n;
		if (!is_options(d + at, e) || (on && at != o.last)) {
			memcpy(out + i, d + at, n);
			i += n;
			continue;
		}
		words = options_words(d + at, e);
		if (words)
			edited = on ? words_add(words, tok)
				    : words_remove(words, tok);
		free(words);
		need = edited ? strlen(BLS_OPTIONS) + 1 + strlen(edited) : 0;
		if (!edited || i + need + (n - e) >= cap) {
			free(edited);
			free(out);
			free(d);
			return act_fail(a, "out of memory");
		}
		i += (size_t)sprintf(out + i, "%s%s%s", BLS_OPTIONS,
				     edited[0] ? " " : "", edited);
		memcpy(out + i, d + at + e, n - e);
		i += n - e;
		free(edited);
	}
	free(d);
	if (on && o.words + 1 + strlen(tok) >= KERNEL_CMDLINE_SIZE) {
		char bytes[24], limit[24];

		snprintf(bytes, sizeof(bytes), "%zu",
			 o.words + 1 + strlen(tok));
		snprintf(limit, sizeof(limit), "%d", KERNEL_CMDLINE_SIZE - 1);
		act_say(a, SAY_OPTIONS_TOO_LONG, sys, bytes, limit, tok,
			SAY_END);
	}
	rc = act_modify(a, sys, out, i, 0644);
	free(out);
	return rc;
}

/* Every entry of every entry directory; *carrying: how many have the
 * token afterwards. */
int kernel_arg_edit_entries(struct act *a, const struct tsctui_conf *c,
			    const char *tok, bool on, size_t *carrying)
{
	char dirs[3][512], sys[1100];
	size_t n = entry_dirs(a, c, dirs), k;
	struct dirent *e;
	DIR *d;

	*carrying = 0;
	for (k = 0; k < n; k++) {
		d = fsx_opendir(act_path(a, dirs[k]));
		if (!d)
			continue;
		while ((e = readdir(d))) {
			size_t l = strlen(e->d_name);
			bool carries = false;

			if (l < 6 || strcmp(e->d_name + l - 5, ".conf"))
				continue;
			snprintf(sys, sizeof(sys), "%s/%s", dirs[k], e->d_name);
			if (edit_entry(a, sys, tok, on, &carries) != 0) {
				closedir(d);
				return -1;
			}
			*carrying += carries;
		}
		closedir(d);
	}
	return 0;
}

/* /etc/kernel/cmdline: seeded from /proc/cmdline the first time.  Its
 * words are the command line, whatever the lines (kernel-install joins
 * them); a file that needs no change is left as it is, one that does is
 * written as one line. */
int kernel_arg_edit_cmdline(struct act *a, const char *tok, bool on)
{
	char path[PATH_UNDER_MAX], *edited, *line;
	size_t len;
	char *d = fsx_read(act_path(a, KERNEL_CMDLINE), &len);
	bool seeded = false;
	int rc;

	if (!d) {
		path_under(a->root, "/proc/cmdline", path, sizeof(path));
		d = fsx_read(path, &len);
		/* off: tsc=nowatchdog was never put there by tsctui, and
		 * stays where it is; a tsc=reliable only the running kernel
		 * has would come back with the next kernel kernel-install
		 * makes from /proc/cmdline, so the seed goes without it. */
		if (!on && (!d || !words_has(d, tok) || !strcmp(tok, TOKEN))) {
			free(d);
			return 0;
		}
		if (!d)
			return act_fail(a, "cannot read /proc/cmdline to "
					   "seed " KERNEL_CMDLINE);
		/* The running kernel's own arguments are not for the entry. */
		edited = words_remove_prefixed(d, loader_words);
		free(d);
		if (!edited)
			return act_fail(a, "out of memory");
		d = edited;
		len = strlen(d);
		seeded = true;
	}
	if (memchr(d, '\0', len)) {
		free(d);
		return act_fail(a,
				"%s has a NUL byte: not a command line; "
				"nothing changed",
				KERNEL_CMDLINE);
	}
	if (!seeded && words_has(d, tok) == on) {
		free(d);
		return 0;
	}
	edited = on ? words_add(d, tok) : words_remove(d, tok);
	free(d);
	if (!edited || asprintf(&line, "%s\n", edited) < 0) {
		free(edited);
		return act_fail(a, "out of memory");
	}
	if (on && strlen(edited) >= KERNEL_CMDLINE_SIZE) {
		char bytes[24], limit[24];

		snprintf(bytes, sizeof(bytes), "%zu", strlen(edited));
		snprintf(limit, sizeof(limit), "%d", KERNEL_CMDLINE_SIZE - 1);
		act_say(a, SAY_CMDLINE_TOO_LONG, bytes, limit, tok, SAY_END);
	}
	free(edited);
	rc = act_modify(a, KERNEL_CMDLINE, line, strlen(line), 0644);
	free(line);
	return rc;
}

/* Warn about tsc=reliable wherever the user's configuration has it. */
static void warn_reliable(struct act *a)
{
	static const char *const files[] = { "/etc/default/grub",
					     KERNEL_CMDLINE, "/proc/cmdline" };
	size_t i, len;

	for (i = 0; i < 3; i++) {
		char *d = fsx_read(act_path(a, files[i]), &len);

		if (d && strstr(d, "tsc=reliable"))
			act_say(a, SAY_RELIABLE_TOO, files[i], SAY_END);
		free(d);
	}
}

/* Where the Fedora family's GRUB reads BLS entries (blscfg). */
#define GRUB_BLS_DIR "/boot/loader/entries"

/* Does dir hold a BLS entry (a .conf file)?  An empty or absent one is no
 * sign that GRUB reads entries: Debian's does not. */
static bool has_entries(struct act *a, const char *dir)
{
	DIR *d = fsx_opendir(act_path(a, dir));
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		size_t l = strlen(e->d_name);

		found = l > 5 && !strcmp(e->d_name + l - 5, ".conf");
	}
	if (d)
		closedir(d);
	return found;
}

int kernel_arg_method(struct act *a, struct tsctui_conf *c, enum karg_method *m,
		      const char **why, enum act_hint *hint)
{
	int have = config_read(a->root, c, why);

	if (have < 0)
		return -1;
	if (have == 0) {
		c->loader = detect_loader(a->root, why);
		if (c->loader == LOADER_NONE) {
			*hint = ACT_HINT_LOADER;
			return -1;
		}
		if (!detect_esp(a->root, c->esp, sizeof(c->esp), why))
			c->esp[0] = '\0';
	}
	/* Where Linux's arguments live: with the stage in its own firmware
	 * entry, in the loader that entry starts (loader.h). */
	c->loader = loader_starts_linux(a->root, c->loader);
	if (c->loader == LOADER_GRUB && act_grubby_tool(a))
		*m = KARG_GRUBBY;
	else if (c->loader == LOADER_GRUB && !has_entries(a, GRUB_BLS_DIR))
		*m = KARG_GRUB_DROPIN;
	else
		*m = KARG_BLS;
	return 0;
}

/* Every change kernel-arg makes is under /etc: refused, with why, when it
 * cannot be written there. */
static bool etc_writable(struct act *a)
{
	if (fsx_dir_writable(act_path(a, "/etc")))
		return true;
	act_fail(a, "/etc is not writable (%s); nothing changed",
		 strerror(errno));
	return false;
}

int kernel_arg_set(struct act *a, const char *name, const char *onoff)
{
	bool on;

	if (!strcmp(name, "reliable") && strcmp(onoff, "off"))
		return act_fail(a, "kernel-arg reliable takes only off: "
				   "tsc=reliable is never offered");
	if (strcmp(name, "nowatchdog") && strcmp(name, "reliable"))
		return act_fail(a,
				"unknown kernel argument '%s' (nowatchdog "
				"on|off, or reliable off; tsc=reliable is "
				"never offered)",
				name);
	if (strcmp(onoff, "on") && strcmp(onoff, "off"))
		return act_fail(a, "say on or off, not '%s'", onoff);
	on = !strcmp(onoff, "on");
	if (!strcmp(name, "reliable"))
		return etc_writable(a) ? kernel_arg_reliable_off(a) : -1;
	return kernel_arg_nowatchdog(a, on);
}

int kernel_arg_nowatchdog(struct act *a, bool on)
{
	struct tsctui_conf c;
	enum karg_method method;
	enum act_hint hint = ACT_HINT_NONE;
	const char *why = NULL;

	if (!etc_writable(a))
		return -1;
	if (act_begin(a, "kernel-arg", 0) != 0)
		return -1;
	if (kernel_arg_method(a, &c, &method, &why, &hint) != 0) {
		act_fail_hint(a, hint, "%s", why);
		goto undo;
	}
	if (act_put(a, NOWATCHDOG_SETTING, on ? "on\n" : "off\n", on ? 3 : 4,
		    0644) != 0)
		goto undo;
	if (method == KARG_GRUBBY) {
		/* grubby edits what the ledger cannot copy: its entry says
		 * how to take the argument back, before it is added. */
		if ((on && act_record(a, L_GRUBBY, NOWATCHDOG_SETTING) != 0) ||
		    act_grubby_run(a, act_grubby_tool(a), on) != 0)
			goto undo;
		if (!on)
			act_forget(a, L_GRUBBY, NOWATCHDOG_SETTING);
	} else if (method == KARG_GRUB_DROPIN) {
		if (on) {
			size_t tlen;
			char *text =
				fsx_read(act_path(a, DROPIN_TEMPLATE), &tlen);
			int rc;

			if (!text) {
				act_fail(a,
					 "cannot read %s (make install "
					 "puts it there)",
					 DROPIN_TEMPLATE);
				goto undo;
			}
			rc = act_mkdirs(a, "/etc/default/grub.d", 0755) ||
			     act_put(a, DROPIN, text, tlen, 0644);
			free(text);
			if (rc)
				goto undo;
		} else if (act_drop(a, DROPIN) != 0) {
			goto undo;
		}
		/* grub.cfg from the distribution's tool, as install does;
		 * if that fails, the drop-in change is undone. */
		if (grub_regenerate(a) != 0)
			goto undo;
	} else {
		size_t carrying;

		if (c.loader == LOADER_SDBOOT &&
		    kernel_arg_edit_cmdline(a, TOKEN, on) != 0)
			goto undo;
		if (kernel_arg_edit_entries(a, &c, TOKEN, on, &carrying) != 0)
			goto undo;
		/* An argument no entry carries reaches no kernel: say so
		 * rather than report it added. */
		if (on && carrying == 0 && c.loader != LOADER_SDBOOT) {
			act_fail(a,
				 "%s starts Linux here, and no BLS entry in "
				 "/boot/loader/entries%s%s%s has an options "
				 "line to take " TOKEN ": nothing changed",
				 loader_name(c.loader), c.esp[0] ? " or " : "",
				 c.esp, c.esp[0] ? "/loader/entries" : "");
			goto undo;
		}
	}
	if (act_commit(a) != 0)
		goto undo;
	act_done(a, on ? SAY_NOWATCHDOG_ADDED : SAY_NOWATCHDOG_REMOVED,
		 SAY_END);
	warn_reliable(a);
	return 0;
undo:
	act_abort(a);
	return -1;
}

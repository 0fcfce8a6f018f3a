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
 *     kernel-install's fallback) and the options line of every entry.
 * The setting itself is kept in NOWATCHDOG_SETTING for the
 * kernel-install plugin.  tsc=reliable is never added; where the user's
 * configuration has it, the message warns.
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
#include "../source/config.h"
#include "../source/detect.h"
#include "../source/kernel_cmdline.h"

#define TOKEN "tsc=nowatchdog"
#define DROPIN "/etc/default/grub.d/tsctui-nowatchdog.cfg"
#define KERNEL_CMDLINE "/etc/kernel/cmdline"
/* Room for a kernel command line: x86's COMMAND_LINE_SIZE is 2048, and a
 * BLS options line or /etc/kernel/cmdline is no longer than what it
 * becomes. */
#define KERNEL_CMDLINE_MAX 4096

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

/* grubby to run, or NULL: $TSCTUI_GRUBBY, else the live system's own. */
static const char *grubby(struct act *a)
{
	const char *env = getenv("TSCTUI_GRUBBY");

	if (env && env[0])
		return env;
	if (strcmp(a->root, "/") != 0)
		return NULL; /* the target's tool cannot run from here */
	if (access("/usr/sbin/grubby", X_OK) == 0)
		return "/usr/sbin/grubby";
	if (access("/usr/bin/grubby", X_OK) == 0)
		return "/usr/bin/grubby";
	return NULL;
}

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

/* Rewrites the options line(s) of one BLS entry. */
static int edit_entry(struct act *a, const char *sys, bool on)
{
	size_t len, i;
	char *d = fsx_read(act_path(a, sys), &len), *out, *line, *save = NULL;
	size_t cap;
	int rc;

	if (!d)
		return act_fail(a, "cannot read %s: %s", sys, strerror(errno));
	cap = len + sizeof(TOKEN) + 16;
	out = calloc(1, cap + len);
	if (!out) {
		free(d);
		return act_fail(a, "out of memory");
	}
	for (line = strtok_r(d, "\n", &save), i = 0; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char edited[KERNEL_CMDLINE_MAX];

		const size_t n = strlen(BLS_OPTIONS);

		if (!strncmp(line, BLS_OPTIONS, n) &&
		    (line[n] == ' ' || line[n] == '\t')) {
			if (on)
				words_add(line + n + 1, TOKEN, edited,
					  sizeof(edited));
			else
				words_remove(line + n + 1, TOKEN, edited,
					     sizeof(edited));
			i += (size_t)snprintf(out + i, cap + len - i,
					      BLS_OPTIONS " %s\n", edited);
		} else {
			i += (size_t)snprintf(out + i, cap + len - i, "%s\n",
					      line);
		}
	}
	free(d);
	rc = act_modify(a, sys, out, i, 0644);
	free(out);
	return rc;
}

static int edit_entries(struct act *a, const struct tsctui_conf *c, bool on)
{
	char dirs[3][512], sys[1100];
	size_t n = entry_dirs(a, c, dirs), k;
	struct dirent *e;
	DIR *d;

	for (k = 0; k < n; k++) {
		d = opendir(act_path(a, dirs[k]));
		if (!d)
			continue;
		while ((e = readdir(d))) {
			size_t l = strlen(e->d_name);

			if (l < 6 || strcmp(e->d_name + l - 5, ".conf"))
				continue;
			snprintf(sys, sizeof(sys), "%s/%s", dirs[k], e->d_name);
			if (edit_entry(a, sys, on) != 0) {
				closedir(d);
				return -1;
			}
		}
		closedir(d);
	}
	return 0;
}

/* /etc/kernel/cmdline: seeded from /proc/cmdline the first time. */
static int edit_kernel_cmdline(struct act *a, bool on)
{
	char edited[KERNEL_CMDLINE_MAX], path[PATH_UNDER_MAX];
	size_t len;
	char *d = fsx_read(act_path(a, KERNEL_CMDLINE), &len);

	if (!d) {
		if (!on)
			return 0;
		path_under(a->root, "/proc/cmdline", path, sizeof(path));
		d = fsx_read(path, &len);
		if (!d)
			return act_fail(a, "cannot read /proc/cmdline to "
					   "seed " KERNEL_CMDLINE);
		/* The running kernel's own arguments are not for the entry;
		 * the words left are never longer than the line was. */
		d[strcspn(d, "\n")] = '\0';
		words_remove_prefixed(d, loader_words, edited, sizeof(edited));
		strcpy(d, edited);
	}
	d[strcspn(d, "\n")] = '\0';
	if (on)
		words_add(d, TOKEN, edited, sizeof(edited) - 1);
	else
		words_remove(d, TOKEN, edited, sizeof(edited) - 1);
	free(d);
	strcat(edited, "\n");
	return act_modify(a, KERNEL_CMDLINE, edited, strlen(edited), 0644);
}

static int run_grubby(struct act *a, const char *tool, bool on)
{
	char cmd[1024], shown[64];

	snprintf(cmd, sizeof(cmd), "'%s' --update-kernel=ALL %s=%s", tool,
		 on ? "--args" : "--remove-args", TOKEN);
	snprintf(shown, sizeof(shown), "grubby --update-kernel=ALL %s=%s",
		 on ? "--args" : "--remove-args", TOKEN);
	if (act_run(a, cmd, shown) != 0)
		return act_fail(a, "%s failed", cmd);
	act_done(a, "ran: %s", cmd);
	return 0;
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
			act_note(a,
				 "warning: %s has tsc=reliable, which skips "
				 "the boot-time warp test too and hides a real "
				 "offset; tsc=nowatchdog is the targeted "
				 "option",
				 files[i]);
		free(d);
	}
}

/* How kernel-arg changes the command line here: grubby (Fedora family),
 * Debian's grub.d drop-in plus update-grub, or BLS entries plus
 * /etc/kernel/cmdline, by the loader that starts Linux.  Fills c (the
 * configuration, or the detected loader and ESP); -1 with *why when
 * neither is known. */
enum karg_method { KARG_GRUBBY, KARG_GRUB_DROPIN, KARG_BLS };

static int kernel_arg_method(struct act *a, struct tsctui_conf *c,
			     enum karg_method *m, const char **why)
{
	int have = config_read(a->root, c, why);

	if (have < 0)
		return -1;
	if (have == 0) {
		c->loader = detect_loader(a->root, why);
		if (c->loader == LOADER_NONE)
			return -1;
		if (!detect_esp(a->root, c->esp, sizeof(c->esp), why))
			c->esp[0] = '\0';
	}
	/* Where Linux's arguments live: with the stage in its own firmware
	 * entry, in the loader that entry starts (loader.h). */
	c->loader = loader_starts_linux(a->root, c->loader);
	if (c->loader == LOADER_GRUB && grubby(a))
		*m = KARG_GRUBBY;
	else if (c->loader == LOADER_GRUB &&
		 !fsx_is_dir(act_path(a, "/boot/loader/entries")))
		*m = KARG_GRUB_DROPIN;
	else
		*m = KARG_BLS;
	return 0;
}

int kernel_arg_set(struct act *a, const char *name, const char *onoff)
{
	struct tsctui_conf c;
	enum karg_method method;
	const char *why = NULL;
	bool on;

	if (strcmp(name, "nowatchdog"))
		return act_fail(a,
				"unknown kernel argument '%s' (only "
				"nowatchdog; tsc=reliable is never offered)",
				name);
	if (strcmp(onoff, "on") && strcmp(onoff, "off"))
		return act_fail(a, "say on or off, not '%s'", onoff);
	on = !strcmp(onoff, "on");
	if (!fsx_dir_writable(act_path(a, "/etc")))
		return act_fail(a,
				"/etc is not writable (%s); nothing "
				"changed",
				strerror(errno));
	if (act_begin(a, "kernel-arg", 0) != 0)
		return -1;
	if (kernel_arg_method(a, &c, &method, &why) != 0) {
		act_fail(a, "%s", why);
		goto undo;
	}
	if (act_put(a, NOWATCHDOG_SETTING, on ? "on\n" : "off\n", on ? 3 : 4,
		    0644) != 0)
		goto undo;
	if (method == KARG_GRUBBY) {
		if (run_grubby(a, grubby(a), on) != 0)
			goto undo;
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
		if (install_regenerate_grub(a) != 0)
			goto undo;
	} else {
		if (c.loader == LOADER_SDBOOT &&
		    edit_kernel_cmdline(a, on) != 0)
			goto undo;
		if (edit_entries(a, &c, on) != 0)
			goto undo;
	}
	if (act_commit(a) != 0)
		goto undo;
	act_done(a, "%s %s from the next boot", TOKEN,
		 on ? "added" : "removed");
	warn_reliable(a);
	return 0;
undo:
	act_abort(a);
	return -1;
}

int kernel_arg_undo_external(struct act *a, const struct tsctui_conf *conf)
{
	const char *tool;

	if (!kernel_cmdline_nowatchdog(a->root) ||
	    loader_starts_linux(a->root, conf->loader) != LOADER_GRUB ||
	    !(tool = grubby(a)))
		return 0;
	/* grubby's edits are not in the ledger: take the argument out the
	 * way it went in. */
	return run_grubby(a, tool, false);
}

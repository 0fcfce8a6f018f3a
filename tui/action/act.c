/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <efivar/efivar.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../source/config.h"
#include "../source/efivar.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "act.h"

static const char *const kind_names[] = {
	"dir", "file", "link", "backup", "var", "varbackup", "begin", "grubby"
};
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))
#define LOCK_FILE "/run/tsctui.lock"
#define LOCK_WAIT_DEFAULT 10

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

int act_fail(struct act *a, const char *fmt, ...)
{
	va_list ap;

	if (a->error[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(a->error, sizeof(a->error), fmt, ap);
	va_end(ap);
	return -1;
}

void act_note(struct act *a, const char *fmt, ...)
{
	size_t n = strlen(a->message);
	va_list ap;

	if (n && n + 1 < sizeof(a->message))
		a->message[n++] = '\n';
	va_start(ap, fmt);
	vsnprintf(a->message + n, sizeof(a->message) - n, fmt, ap);
	va_end(ap);
}

void act_done(struct act *a, const char *fmt, ...)
{
	char line[sizeof(a->message)];
	va_list ap;

	if (a->dry_run)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	act_note(a, "%s", line);
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

const char *act_verb(const char *what)
{
	if (!strcmp(what, "created"))
		return "create";
	if (!strcmp(what, "removed"))
		return "remove";
	return "modify";
}

void act_changed(struct act *a, const char *sys, const char *what)
{
	size_t i;

	for (i = 0; i < a->nchanges; i++) {
		if (strcmp(a->changes[i].path, sys) == 0) {
			/* created then modified is still created; created
			 * then removed is nothing at all */
			if (strcmp(what, "removed") == 0 &&
			    strcmp(a->changes[i].what, "created") == 0) {
				free(a->changes[i].path);
				a->changes[i] = a->changes[--a->nchanges];
			} else if (strcmp(a->changes[i].what, "created")) {
				a->changes[i].what = what;
			}
			return;
		}
	}
	if (a->nchanges < ACT_MAX_CHANGES)
		a->changes[a->nchanges++] =
			(struct change){ strdup(sys), what, "" };
}

/* ---- the ledger ---- */

/* An efivarfs path of the global GUID: "/sys/firmware/efi/efivars/" +
 * name + "-" + GUID, the name letters and digits. */
static const char *var_name(const char *sys, char *name, size_t cap)
{
	size_t d = strlen(EFIVARS_DIR "/"), g = strlen("-" GUID_EFI_GLOBAL);
	size_t n = strlen(sys);

	if (n <= d + g || strncmp(sys, EFIVARS_DIR "/", d) ||
	    strcmp(sys + n - g, "-" GUID_EFI_GLOBAL) || n - d - g >= cap)
		return NULL;
	memcpy(name, sys + d, n - d - g);
	name[n - d - g] = '\0';
	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789") != strlen(name))
		return NULL;
	return name;
}

/* Every line of the ledger is checked before any is used: the root may be
 * another machine's disk, and its ledger may say anything. */
static bool entry_valid(enum ledger_kind k, const char *p)
{
	char name[64];

	if (k == L_BEGIN)
		return p[0] && strlen(p) < 32 &&
		       strspn(p, "abcdefghijklmnopqrstuvwxyz-") == strlen(p);
	if (!path_is_clean(p) || !strcmp(p, "/"))
		return false;
	if (k == L_VAR || k == L_VARBACKUP)
		return var_name(p, name, sizeof(name)) != NULL;
	return true;
}

/*
 * A ledger line is "KIND PATH".  The path is the disk's (a BLS entry's
 * name may hold any byte but '/' and NUL), so a control character, DEL or
 * a backslash in it is written C-style: \\, \t, \n, else \xHH.  Then a
 * line is one line whatever the name, and every path reads back as it was
 * written.
 */
static void put_escaped(FILE *f, const char *p)
{
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* put_escaped's reverse, in place.  An escape it never writes is damage:
 * so no escape can make a '/', a '.' or a NUL, and a line that passed
 * path_is_clean before unescaping has the same components after. */
static bool unescape(char *s)
{
	char *w = s;
	int hi, lo, v;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		s++;
		if (*s == '\\') {
			*w++ = '\\';
		} else if (*s == 't') {
			*w++ = '\t';
		} else if (*s == 'n') {
			*w++ = '\n';
		} else if (*s == 'x' && (hi = hex(s[1])) >= 0 &&
			   (lo = hex(s[2])) >= 0) {
			v = hi << 4 | lo;
			if (v == 0 || v == '\t' || v == '\n' ||
			    (v >= 0x20 && v != 0x7f))
				return false;
			*w++ = (char)v;
			s += 2;
		} else {
			return false;
		}
	}
	*w = '\0';
	return true;
}

int act_ledger_load(struct act *a)
{
	char *data, *line, *save = NULL, *sp;
	size_t len;
	unsigned k;

	data = fsx_read_own(act_path_nofollow(a, TSCTUI_LEDGER), &len);
	if (!data)
		return errno == ENOENT
			       ? 0
			       : act_fail(a, "cannot read %s: %s",
					  TSCTUI_LEDGER, strerror(errno));
	/* A NUL would end the text early and drop every line after it. */
	if (memchr(data, '\0', len)) {
		free(data);
		return act_fail(a,
				"%s is damaged (a NUL byte); not touching "
				"anything",
				TSCTUI_LEDGER);
	}
	for (line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sp = strchr(line, ' ');
		k = NKINDS;
		if (sp && a->nledger < ACT_MAX_LEDGER) {
			*sp = '\0';
			for (k = 0; k < NKINDS; k++)
				if (strcmp(line, kind_names[k]) == 0)
					break;
		}
		if (k == NKINDS || !entry_valid((enum ledger_kind)k, sp + 1) ||
		    !unescape(sp + 1)) {
			free(data);
			return act_fail(a,
					"%s is damaged; not touching "
					"anything",
					TSCTUI_LEDGER);
		}
		a->ledger[a->nledger++] =
			(struct ledger_entry){ (enum ledger_kind)k,
					       strdup(sp + 1) };
	}
	free(data);
	return 0;
}

/* A new entry; once act_begin has run, on the disk before the caller
 * makes the change it describes. */
static int add(struct act *a, enum ledger_kind k, const char *sys)
{
	if (k != L_BEGIN && act_ledger_has(a, k, sys))
		return 0;
	if (a->nledger == ACT_MAX_LEDGER)
		return act_fail(a, "too many changes to record");
	a->ledger[a->nledger++] = (struct ledger_entry){ k, strdup(sys) };
	a->ledger_dirty = true;
	return a->journal ? act_ledger_save(a) : 0;
}

bool act_ledger_has(const struct act *a, enum ledger_kind k, const char *sys)
{
	size_t i;

	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind == k &&
		    strcmp(a->ledger[i].path, sys) == 0)
			return true;
	return false;
}

static void forget(struct act *a, size_t i)
{
	free(a->ledger[i].path);
	memmove(&a->ledger[i], &a->ledger[i + 1],
		(a->nledger - i - 1) * sizeof(a->ledger[0]));
	a->nledger--;
	a->ledger_dirty = true;
}

int act_ledger_save(struct act *a)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *f;
	int rc;

	if (!a->ledger_dirty || a->dry_run)
		return 0;
	if (a->nledger == 0) {
		a->ledger_dirty = false;
		return fsx_remove(act_path_nofollow(a, TSCTUI_LEDGER));
	}
	f = open_memstream(&out, &len);
	if (!f)
		return act_fail(a, "out of memory");
	for (i = 0; i < a->nledger; i++) {
		fprintf(f, "%s ", kind_names[a->ledger[i].kind]);
		put_escaped(f, a->ledger[i].path);
		fputc('\n', f);
	}
	fclose(f);
	rc = fsx_write_atomic(act_path_nofollow(a, TSCTUI_LEDGER), out, len,
			      0644);
	free(out);
	if (rc != 0)
		return act_fail(a, "cannot write %s: %s", TSCTUI_LEDGER,
				strerror(errno));
	a->ledger_dirty = false;
	return 0;
}

const char *act_backup_of(const char *sys, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s%s", TSCTUI_BACKUP, sys);
	return buf;
}

/* Is sys the ledger's own directory, or one above it?  Those go last,
 * after the ledger file itself. */
static bool holds_ledger(const char *sys)
{
	size_t n = strlen(sys);

	return !strncmp(TSCTUI_LEDGER, sys, n) && TSCTUI_LEDGER[n] == '/';
}

/* Is sys a file the ledger keeps for itself that is gone by now: the
 * ledger file once uninstall took it, a backup once its entry was
 * settled? */
static bool bookkeeping_gone(struct act *a, const char *sys)
{
	size_t n = strlen(TSCTUI_BACKUP), i;

	for (i = 0; i < a->ngone; i++)
		if (!strcmp(a->gone[i], sys))
			return true;
	if (!strcmp(sys, TSCTUI_LEDGER))
		return a->ledger_removed;
	return !strncmp(sys, TSCTUI_BACKUP, n) && sys[n] == '/' &&
	       !fsx_is_dir(act_path(a, sys)) &&
	       !act_ledger_has(a, L_BACKUP, sys + n) &&
	       !act_ledger_has(a, L_VARBACKUP, sys + n);
}

/* Would the directory sys be empty once the changes planned so far are
 * made?  (A dry run removes nothing, so the replay asks this instead of
 * trying rmdir.) */
static bool emptied(struct act *a, const char *sys)
{
	char child[PATH_UNDER_MAX];
	struct dirent *e;
	bool empty = true;
	size_t i;
	DIR *d = fsx_opendir(act_path(a, sys));

	if (!d)
		return false;
	while (empty && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(child, sizeof(child), "%s/%s", sys, e->d_name);
		empty = bookkeeping_gone(a, child);
		for (i = 0; i < a->nchanges && !empty; i++)
			empty = !strcmp(a->changes[i].path, child) &&
				!strcmp(a->changes[i].what, "removed");
	}
	closedir(d);
	return empty;
}

/* One ledger entry's undoing, as a plan. */
static void undo_planned(struct act *a, const struct ledger_entry *e)
{
	switch (e->kind) {
	case L_FILE:
	case L_LINK:
	case L_VAR:
		if (fsx_exists(act_path_nofollow(a, e->path)))
			act_changed(a, e->path, "removed");
		break;
	case L_DIR:
		if (!bookkeeping_gone(a, e->path) && emptied(a, e->path))
			act_changed(a, e->path, "removed");
		break;
	case L_BACKUP:
	case L_VARBACKUP: {
		char b[PATH_UNDER_MAX];

		act_backup_of(e->path, b, sizeof(b));
		if (!fsx_exists(act_path_nofollow(a, b)))
			break;
		act_changed(a, e->path, "modified");
		act_detail(a, e->path, "restored from %s", b);
		break;
	}
	case L_GRUBBY:
		kernel_arg_grubby_undo(a); /* a dry run: names the run */
		break;
	case L_BEGIN:
		break;
	}
}

/* What a killed atomic write leaves next to its file. */
static void drop_temp(const char *real)
{
	char t[PATH_UNDER_MAX];

	if (real[0] &&
	    snprintf(t, sizeof(t), "%s.tsctui-new", real) < (int)sizeof(t))
		fsx_remove(t);
}

static int var_set(struct act *a, const char *name, uint32_t attrs,
		   const uint8_t *data, size_t len);
static int var_del(struct act *a, const char *name);

/* The bytes of a backup entry's file or variable back where they were,
 * if they differ (a change killed before it was made, or undone before a
 * kill, needs nothing), then the backup goes.  A missing backup is a
 * change never made or already undone.  -1 with errno. */
static int restore(struct act *a, const struct ledger_entry *e)
{
	char bsys[PATH_UNDER_MAX], b[PATH_UNDER_MAX], p[PATH_UNDER_MAX],
		name[64];
	size_t have, nowlen = 0;
	char *old, *now = NULL;
	struct stat st;
	int rc = 0;

	act_backup_of(e->path, bsys, sizeof(bsys));
	snprintf(b, sizeof(b), "%s", act_path_nofollow(a, bsys));
	/* A link now at the path is replaced, never written through: what
	 * the backup holds is the file that was there (the grubenv, the
	 * one file distributions make a link, is settled by grub.c). */
	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, e->path));
	drop_temp(b);
	drop_temp(p);
	old = fsx_read_own(b, &have);
	if (!old)
		return errno == ENOENT ? 0 : -1;
	if (e->kind == L_VARBACKUP) {
		uint32_t attrs;

		var_name(e->path, name, sizeof(name));
		now = (char *)efivar_read(a->root, name, GUID_EFI_GLOBAL,
					  &nowlen, &attrs);
		if (have < 4) {
			free(old);
			free(now);
			errno = EINVAL;
			return -1;
		}
		memcpy(&attrs, old, 4);
		if (!now || nowlen != have - 4 ||
		    memcmp(now, old + 4, nowlen)) {
			rc = var_set(a, name, attrs, (uint8_t *)old + 4,
				     have - 4);
			if (rc == 0)
				act_changed(a, e->path, "modified");
		}
	} else {
		now = fsx_read_own(p, &nowlen);
		if (!now || nowlen != have || memcmp(now, old, have)) {
			rc = fsx_write_atomic(
				p, old, have,
				fsx_lstat(p, &st) == 0 && S_ISREG(st.st_mode)
					? st.st_mode & 07777
					: 0644);
			if (rc == 0)
				act_changed(a, e->path, "modified");
		}
	}
	if (rc == 0) {
		act_detail(a, e->path, "restored from %s", bsys);
		rc = fsx_remove(b);
	}
	free(old);
	free(now);
	return rc;
}

/* One entry undone for real: 0, or -1 with errno. */
static int undo_one(struct act *a, const struct ledger_entry *e)
{
	char p[PATH_UNDER_MAX], name[64];
	bool had;

	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, e->path));
	switch (e->kind) {
	case L_FILE:
	case L_LINK:
		drop_temp(p);
		had = fsx_exists(p);
		if (fsx_remove(p) != 0)
			return -1;
		if (had)
			act_changed(a, e->path, "removed");
		return 0;
	case L_DIR:
		/* Only when empty: someone else may have put files in a
		 * directory we made. */
		fsx_fault_point();
		if (fsx_rmdir(p) == 0) {
			act_changed(a, e->path, "removed");
			return 0;
		}
		return errno == ENOENT || errno == ENOTEMPTY || errno == EEXIST
			       ? 0
			       : -1;
	case L_VAR:
		drop_temp(p);
		had = fsx_exists(p);
		if (var_del(a, var_name(e->path, name, sizeof(name))) != 0)
			return -1;
		if (had)
			act_changed(a, e->path, "removed");
		return 0;
	case L_BACKUP:
	case L_VARBACKUP:
		return restore(a, e);
	case L_GRUBBY:
		if (kernel_arg_grubby_undo(a) != 0) {
			errno = EIO;
			return -1;
		}
		return 0;
	case L_BEGIN:
		return 0;
	}
	return 0;
}

int act_ledger_undo(struct act *a, size_t from)
{
	char left[512] = "";
	size_t i = a->nledger, nleft = 0, other = 0;
	int saved;

	while (i-- > from) {
		struct ledger_entry *e = &a->ledger[i];

		/* A begin entry goes with its action (act_commit,
		 * act_abort); the ledger's own directories go last. */
		if (e->kind == L_BEGIN ||
		    (e->kind == L_DIR && holds_ledger(e->path)))
			continue;
		if (a->dry_run) {
			/* planned once the entry is gone, as its file is */
			struct ledger_entry was = { e->kind, strdup(e->path) };

			forget(a, i);
			undo_planned(a, &was);
			free(was.path);
			continue;
		}
		if (undo_one(a, e) != 0) {
			saved = errno;
			if (nleft++ < 4)
				snprintf(left + strlen(left),
					 sizeof(left) - strlen(left),
					 "%s%s (%s)", nleft > 1 ? ", " : "",
					 e->path, strerror(saved));
			continue;
		}
		forget(a, i);
		if (act_ledger_save(a) != 0)
			return -1;
	}
	if (nleft)
		return act_fail(a,
				"could not undo %zu change%s, left as they "
				"are and still in %s for the next run: %s%s",
				nleft, nleft > 1 ? "s" : "", TSCTUI_LEDGER,
				left, nleft > 4 ? ", ..." : "");
	/* Nothing left but begin entries and the ledger's own directories:
	 * the ledger file goes, then they do, deepest first.  (A kill
	 * between leaves an empty /var/lib/tsctui, which act_begin and
	 * uninstall take as tsctui's.) */
	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind != L_BEGIN &&
		    !(a->ledger[i].kind == L_DIR &&
		      holds_ledger(a->ledger[i].path)))
			other++;
	if (other)
		return 0;
	if (!a->dry_run) {
		if (fsx_remove(act_path_nofollow(a, TSCTUI_LEDGER)) != 0)
			return act_fail(a, "cannot remove %s: %s",
					TSCTUI_LEDGER, strerror(errno));
	}
	a->ledger_removed = true;
	for (i = a->nledger; i-- > 0;) {
		struct ledger_entry e = a->ledger[i];

		if (e.kind == L_DIR && a->dry_run)
			undo_planned(a, &e);
		else if (e.kind == L_DIR)
			undo_one(a, &e);
		free(e.path);
	}
	a->nledger = 0;
	a->ledger_dirty = false;
	return 0;
}

/* ---- one action at a time ---- */

int act_lock(struct act *a, bool forever)
{
	char p[PATH_UNDER_MAX];
	const char *env = getenv("TSCTUI_LOCK_WAIT");
	double wait = env && env[0] ? strtod(env, NULL) : LOCK_WAIT_DEFAULT;
	struct timespec step = { 0, 50 * 1000 * 1000 };
	bool dir = strcmp(a->root, "/") != 0 || !fsx_is_dir("/run");
	double waited = 0;
	int fd;

	if (a->dry_run || a->lock_fd >= 0)
		return 0;
	/* /run/tsctui.lock on the running system; another root (a disk
	 * from a live USB, whose /run holds anything at all) is locked as
	 * a whole, by its own directory, so the lock is never a device
	 * node or a link of the disk's making. */
	snprintf(p, sizeof(p), "%s",
		 dir ? act_path(a, "/") : act_path_nofollow(a, LOCK_FILE));
	fd = dir ? fsx_open_dir(p) : fsx_open_lock(p);
	if (fd < 0)
		return act_fail(a, "cannot open the lock %s: %s",
				dir ? a->root : LOCK_FILE, strerror(errno));
	while (flock(fd, LOCK_EX | (forever ? 0 : LOCK_NB)) != 0) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK || waited >= wait) {
			close(fd);
			return act_fail(a,
					"another tsctui is changing this "
					"system (it holds %s); try again when "
					"it has finished",
					dir ? a->root : LOCK_FILE);
		}
		nanosleep(&step, NULL);
		waited += 0.05;
	}
	a->lock_fd = fd;
	return 0;
}

static bool dir_is_empty(struct act *a, const char *sys)
{
	DIR *d = fsx_opendir(act_path(a, sys));
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

static ssize_t find_begin(const struct act *a)
{
	size_t i;

	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind == L_BEGIN)
			return (ssize_t)i;
	return -1;
}

int act_begin(struct act *a, const char *action, unsigned flags)
{
	char name[32];
	ssize_t mark;
	size_t i;

	/* The entry's word: the action's name, a-z and '-' ("guard
	 * reset" is guard-reset). */
	snprintf(name, sizeof(name), "%s", action);
	for (i = 0; name[i]; i++)
		if (name[i] < 'a' || name[i] > 'z')
			name[i] = '-';

	if (act_lock(a, flags & ACT_BOOT_OK) != 0 || act_ledger_load(a) != 0)
		return -1;
	a->begun_with = a->nledger;
	if (flags & ACT_BOOT_OK) {
		/* its changes are a backup entry at most, saved ahead */
		a->journal = a->nledger > 0;
		return 0;
	}
	if (!a->dry_run)
		drop_temp(act_path_nofollow(a, TSCTUI_LEDGER));
	mark = find_begin(a);
	if (mark >= 0 && !strcmp(a->ledger[mark].path, "uninstall")) {
		if (!(flags & ACT_UNINSTALL))
			return act_fail(a, "an uninstall was interrupted; run "
					   "`tsctui uninstall` to finish it");
		a->journal = true;
		return 0; /* it goes on from where it stopped */
	}
	if (mark >= 0) {
		/* Killed half way: what it did is undone first (uninstall
		 * undoes it with the rest). */
		a->journal = true;
		act_note(a, "an interrupted %s was undone first",
			 a->ledger[mark].path);
		if (!(flags & ACT_UNINSTALL) &&
		    act_ledger_undo(a, (size_t)mark + 1) != 0)
			return -1;
		mark = find_begin(a);
		if (mark >= 0)
			forget(a, (size_t)mark);
		if (act_ledger_save(a) != 0)
			return -1;
		a->journal = false;
	}
	/* An empty state directory and no ledger: an earlier run's, killed
	 * between making it and the first entry (or uninstall's last
	 * step). */
	if (a->nledger == 0 && dir_is_empty(a, TSCTUI_STATE_DIR)) {
		if (add(a, L_DIR, TSCTUI_STATE_DIR) != 0)
			return -1;
		a->adopted = true;
	}
	{
		/* Where the ledger goes must take it, before anything
		 * else is done. */
		const char *d = fsx_is_dir(act_path(a, TSCTUI_STATE_DIR))
					? TSCTUI_STATE_DIR
					: "/var/lib";

		if (!a->dry_run && fsx_is_dir(act_path(a, d)) &&
		    !fsx_dir_writable(act_path(a, d)))
			return act_fail(a,
					"%s is not writable (%s); nothing "
					"changed",
					d, strerror(errno));
	}
	/* The start first, then the directory the ledger lives in: the
	 * first entries are saved together once it exists. */
	if (add(a, L_BEGIN, name) != 0 ||
	    act_mkdirs(a, TSCTUI_STATE_DIR, 0755) != 0 ||
	    act_ledger_save(a) != 0)
		return -1;
	a->journal = true;
	return 0;
}

int act_commit(struct act *a)
{
	size_t i = a->nledger;

	while (i-- > 0)
		if (a->ledger[i].kind == L_BEGIN) {
			forget(a, i);
			break;
		}
	return act_ledger_save(a);
}

void act_abort(struct act *a)
{
	ssize_t mark = -1;
	size_t i = a->nledger;
	char err[sizeof(a->error)];

	while (i-- > 0)
		if (a->ledger[i].kind == L_BEGIN) {
			mark = (ssize_t)i;
			break;
		}
	if (mark < 0)
		return;
	/* The error that made it fail comes first; what could not be
	 * undone is said after it. */
	snprintf(err, sizeof(err), "%s", a->error);
	a->error[0] = '\0';
	if (act_ledger_undo(a, (size_t)mark + 1) == 0) {
		mark = find_begin(a);
		if (mark >= 0)
			forget(a, (size_t)mark);
		act_ledger_save(a);
	} else {
		char more[sizeof(a->error)];

		snprintf(more, sizeof(more), "%s", a->error);
		snprintf(a->error, sizeof(a->error), "%.500s; %.500s", err,
			 more);
		return;
	}
	snprintf(a->error, sizeof(a->error), "%s", err);
}

/* ---- recorded operations ---- */

int act_mkdirs(struct act *a, const char *sys, mode_t mode)
{
	char part[PATH_UNDER_MAX];
	size_t i, n = strlen(sys);

	if (n >= sizeof(part))
		return act_fail(a, "path too long: %s", sys);
	for (i = 1; i <= n; i++) {
		if (i < n && sys[i] != '/')
			continue;
		memcpy(part, sys, i);
		part[i] = '\0';
		if (fsx_exists(act_path(a, part))) {
			if (!fsx_is_dir(act_path(a, part)))
				return act_fail(a, "%s is not a directory",
						part);
			continue;
		}
		if (add(a, L_DIR, part) != 0)
			return -1;
		if (!a->dry_run) {
			fsx_fault_point();
			/* A creation is recorded ahead, and forgotten again
			 * when it did not happen (a read-only parent, a
			 * dangling link in the way: EEXIST, yet no
			 * directory), so no later undo trips over it. */
			int e = fsx_mkdir(act_path_nofollow(a, part), mode)
					? errno
					: 0;

			if (e == EEXIST && !fsx_is_dir(act_path(a, part)))
				e = ENOTDIR;
			if (e && e != EEXIST) {
				act_forget(a, L_DIR, part);
				return act_fail(a, "cannot create %s: %s", part,
						strerror(e));
			}
		}
		act_changed(a, part, "created");
	}
	return 0;
}

static int parent_dirs(struct act *a, const char *sys)
{
	char dir[PATH_UNDER_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", sys);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	return act_mkdirs(a, dir, 0755);
}

bool act_foreign(struct act *a, const char *sys)
{
	return fsx_exists(act_path_nofollow(a, sys)) &&
	       !act_ledger_has(a, L_FILE, sys) &&
	       !act_ledger_has(a, L_LINK, sys);
}

int act_put(struct act *a, const char *sys, const void *data, size_t len,
	    mode_t mode)
{
	char p[PATH_UNDER_MAX];
	bool existed;

	if (act_foreign(a, sys))
		return act_fail(a,
				"%s exists and was not installed by "
				"tsctui; not overwriting it",
				sys);
	if (parent_dirs(a, sys) != 0)
		return -1;
	/* tsctui's own file: a link there is replaced, never followed. */
	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, sys));
	existed = fsx_exists(p);
	if (existed) {
		size_t have;
		char *old = fsx_read_own(p, &have);
		bool same = old && have == len && memcmp(old, data, len) == 0;

		free(old);
		if (same)
			return 0; /* idempotent: nothing to do */
	}
	if (add(a, L_FILE, sys) != 0)
		return -1;
	if (!a->dry_run && fsx_write_atomic(p, data, len, mode) != 0)
		return act_fail(a, "cannot write %s: %s", sys, strerror(errno));
	act_changed(a, sys, existed ? "modified" : "created");
	return 0;
}

int act_modify(struct act *a, const char *sys, const void *data, size_t len,
	       mode_t mode)
{
	char p[PATH_UNDER_MAX], bsys[PATH_UNDER_MAX];
	struct stat st;
	size_t have;
	char *old;
	bool same;

	if (act_ledger_has(a, L_FILE, sys))
		return act_put(a, sys, data, len, mode);
	/* Someone else's file: a link is kept, and the file it points to
	 * (inside the root) is the one changed. */
	snprintf(p, sizeof(p), "%s", act_path(a, sys));
	old = fsx_read(p, &have);
	if (!old && errno != ENOENT)
		return act_fail(a, "cannot read %s: %s", sys, strerror(errno));
	if (!old) {
		/* Absent: tsctui creates it, and uninstall removes it. */
		return act_put(a, sys, data, len, mode);
	}
	same = have == len && memcmp(old, data, len) == 0;
	if (same) {
		free(old);
		return 0;
	}
	if (fsx_stat(p, &st) == 0)
		mode = st.st_mode & 07777;
	if (!act_ledger_has(a, L_BACKUP, sys)) {
		/* The entry, then the copy, then the change. */
		act_backup_of(sys, bsys, sizeof(bsys));
		if (parent_dirs(a, bsys) != 0 || add(a, L_BACKUP, sys) != 0) {
			free(old);
			return -1;
		}
		if (!a->dry_run && fsx_write_atomic(act_path_nofollow(a, bsys),
						    old, have, 0600) != 0) {
			free(old);
			return act_fail(a, "cannot back up %s: %s", sys,
					strerror(errno));
		}
	}
	free(old);
	if (!a->dry_run && fsx_write_atomic(p, data, len, mode) != 0)
		return act_fail(a, "cannot write %s: %s", sys, strerror(errno));
	act_changed(a, sys, "modified");
	return 0;
}

/* ---- EFI variables ---- */

#define NV_BS_RT                                                               \
	(EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS |         \
	 EFI_VARIABLE_RUNTIME_ACCESS)

static const char *var_sys(const char *name, char *buf, size_t cap)
{
	snprintf(buf, cap, EFIVARS_DIR "/%s-" GUID_EFI_GLOBAL, name);
	return buf;
}

/* NVRAM's one writer: libefivar on the live system, the efivarfs file
 * (attributes, then data) under another root. */
static int var_set(struct act *a, const char *name, uint32_t attrs,
		   const uint8_t *data, size_t len)
{
	char sys[256];
	uint8_t *buf;
	int rc;

	if (a->dry_run)
		return 0;
	fsx_fault_point();
	if (strcmp(a->root, "/") == 0) {
		efi_guid_t g;

		efi_str_to_guid(GUID_EFI_GLOBAL, &g);
		return efi_set_variable(g, name, (uint8_t *)data, len, attrs,
					0644) < 0
			       ? -1
			       : 0;
	}
	buf = malloc(len + 4);
	if (!buf)
		return -1;
	memcpy(buf, &attrs, 4);
	memcpy(buf + 4, data, len);
	rc = fsx_write_atomic(
		act_path_nofollow(a, var_sys(name, sys, sizeof(sys))), buf,
		len + 4, 0644);
	free(buf);
	return rc;
}

static int var_del(struct act *a, const char *name)
{
	char sys[256];

	if (a->dry_run || !name)
		return name ? 0 : -1;
	if (strcmp(a->root, "/") == 0) {
		efi_guid_t g;

		efi_str_to_guid(GUID_EFI_GLOBAL, &g);
		fsx_fault_point();
		return efi_del_variable(g, name) < 0 && errno != ENOENT ? -1
									: 0;
	}
	return fsx_remove(
		act_path_nofollow(a, var_sys(name, sys, sizeof(sys))));
}

int act_var_create(struct act *a, const char *name, const void *data,
		   size_t len)
{
	char sys[256];

	var_sys(name, sys, sizeof(sys));
	if (add(a, L_VAR, sys) != 0)
		return -1;
	if (var_set(a, name, NV_BS_RT, data, len) != 0)
		return act_fail(a, "cannot write the EFI variable %s: %s", name,
				strerror(errno));
	act_changed(a, sys, "created");
	return 0;
}

int act_var_modify(struct act *a, const char *name, const void *data,
		   size_t len)
{
	char sys[256], bsys[PATH_UNDER_MAX];
	uint32_t attrs = NV_BS_RT;
	size_t have;
	uint8_t *old =
		efivar_read(a->root, name, GUID_EFI_GLOBAL, &have, &attrs);

	var_sys(name, sys, sizeof(sys));
	if (!old && !act_ledger_has(a, L_VARBACKUP, sys))
		return act_var_create(a, name, data, len);
	if (old && have == len && !memcmp(old, data, len)) {
		free(old);
		return 0;
	}
	if (!act_ledger_has(a, L_VARBACKUP, sys) &&
	    !act_ledger_has(a, L_VAR, sys)) {
		uint8_t *copy = malloc(have + 4);
		int rc;

		act_backup_of(sys, bsys, sizeof(bsys));
		if (!copy || parent_dirs(a, bsys) != 0 ||
		    add(a, L_VARBACKUP, sys) != 0) {
			free(copy);
			free(old);
			return act_fail(a, "cannot back up %s", name);
		}
		memcpy(copy, &attrs, 4);
		memcpy(copy + 4, old, have);
		rc = a->dry_run ? 0
				: fsx_write_atomic(act_path_nofollow(a, bsys),
						   copy, have + 4, 0600);
		free(copy);
		if (rc != 0) {
			free(old);
			return act_fail(a, "cannot back up %s: %s", name,
					strerror(errno));
		}
	}
	free(old);
	if (var_set(a, name, attrs, data, len) != 0)
		return act_fail(a, "cannot write the EFI variable %s: %s", name,
				strerror(errno));
	act_changed(a, sys, "modified");
	return 0;
}

int act_record(struct act *a, enum ledger_kind k, const char *sys)
{
	return add(a, k, sys);
}

void act_forget(struct act *a, enum ledger_kind k, const char *sys)
{
	size_t i;

	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind == k && !strcmp(a->ledger[i].path, sys)) {
			forget(a, i);
			if (a->journal)
				act_ledger_save(a);
			return;
		}
}

int act_link(struct act *a, const char *sys, const char *target)
{
	char have[PATH_UNDER_MAX], p[PATH_UNDER_MAX];
	ssize_t n;

	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, sys));
	n = fsx_readlink(p, have, sizeof(have) - 1);
	if (n >= 0) {
		have[n] = '\0';
		if (strcmp(have, target) == 0 && act_ledger_has(a, L_LINK, sys))
			return 0;
	}
	if (act_foreign(a, sys))
		return act_fail(a, "%s exists and was not made by tsctui", sys);
	if (parent_dirs(a, sys) != 0 || add(a, L_LINK, sys) != 0)
		return -1;
	if (!a->dry_run) {
		if (fsx_remove(p) != 0)
			return act_fail(a, "cannot replace %s: %s", sys,
					strerror(errno));
		fsx_fault_point();
		if (fsx_symlink(target, p) != 0)
			return act_fail(a, "cannot link %s: %s", sys,
					strerror(errno));
	}
	act_changed(a, sys, "created");
	return 0;
}

int act_drop(struct act *a, const char *sys)
{
	size_t i;

	for (i = 0; i < a->nledger; i++) {
		if ((a->ledger[i].kind == L_FILE ||
		     a->ledger[i].kind == L_LINK) &&
		    strcmp(a->ledger[i].path, sys) == 0) {
			/* The file, then its entry: a kill between leaves an
			 * entry whose undoing is a no-op. */
			if (!a->dry_run &&
			    fsx_remove(act_path_nofollow(a, sys)) != 0)
				return act_fail(a, "cannot remove %s: %s", sys,
						strerror(errno));
			forget(a, i);
			act_changed(a, sys, "removed");
			return a->journal ? act_ledger_save(a) : 0;
		}
	}
	return 0;
}

/* ---- files outside the ledger, and tools ---- */

int act_write(struct act *a, const char *sys, const void *data, size_t len,
	      mode_t mode)
{
	char p[PATH_UNDER_MAX];
	bool had;

	snprintf(p, sizeof(p), "%s", act_path(a, sys));
	had = fsx_exists(p);
	if (!a->dry_run && fsx_write_atomic(p, data, len, mode) != 0)
		return act_fail(a, "cannot write %s: %s", sys, strerror(errno));
	act_changed(a, sys, had ? "modified" : "created");
	return 0;
}

int act_append(struct act *a, const char *sys, const char *text)
{
	bool had = fsx_exists(act_path(a, sys));

	if (!a->dry_run) {
		fsx_fault_point();
		if (fsx_append(act_path(a, sys), text) != 0)
			return act_fail(a, "cannot append to %s: %s", sys,
					strerror(errno));
	}
	act_changed(a, sys, had ? "modified" : "created");
	return 0;
}

int act_remove(struct act *a, const char *sys)
{
	char p[PATH_UNDER_MAX];

	snprintf(p, sizeof(p), "%s", act_path_nofollow(a, sys));
	if (!a->dry_run)
		drop_temp(p);
	if (!fsx_exists(p))
		return 0;
	if (!a->dry_run && fsx_remove(p) != 0)
		return act_fail(a, "cannot remove %s: %s", sys,
				strerror(errno));
	act_changed(a, sys, "removed");
	return 0;
}

int act_mkdir(struct act *a, const char *sys, mode_t mode)
{
	if (fsx_is_dir(act_path(a, sys)) || a->dry_run)
		return 0;
	fsx_fault_point();
	if (fsx_mkdir(act_path_nofollow(a, sys), mode) != 0 && errno != EEXIST)
		return act_fail(a, "cannot create %s: %s", sys,
				strerror(errno));
	return 0;
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

void act_ledger_drop_backup(struct act *a, const char *sys)
{
	char b[PATH_UNDER_MAX];
	size_t i;

	act_backup_of(sys, b, sizeof(b));
	if (!a->dry_run) {
		drop_temp(act_path_nofollow(a, b));
		fsx_remove(act_path_nofollow(a, b));
	}
	for (i = 0; i < a->nledger; i++) {
		if (a->ledger[i].kind == L_BACKUP &&
		    !strcmp(a->ledger[i].path, sys)) {
			forget(a, i);
			if (a->journal)
				act_ledger_save(a);
			return;
		}
	}
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

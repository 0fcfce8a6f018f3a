/* SPDX-License-Identifier: MIT */
/*
 * What every action shares: the --root resolver, the list of changes it
 * reports (--json "changed"), the lock, and the ledger,
 * /var/lib/tsctui/ledger, which records every directory, file and link
 * tsctui created, every file it modified (backed up once, before the first
 * change, under /var/lib/tsctui/backup/) and every EFI variable it created
 * or changed.  Uninstall replays the ledger backwards.  Nothing is
 * overwritten that the ledger does not say tsctui created.
 *
 * The ledger is written ahead: an entry is on the disk before the change
 * it describes, so a kill at any instant leaves a ledger that covers
 * everything done (and perhaps a little that was not: undoing that is a
 * no-op).  An action that changes the ledger opens with a "begin" entry
 * (act_begin) and closes it when it is complete (act_commit); one that
 * fails undoes its own entries (act_abort).  A begin entry found at the
 * start of the next run is an action that was killed: the next action
 * undoes it first, except that an interrupted uninstall can only be
 * finished, by uninstall.  Undoing goes on past what cannot be undone, and
 * says what is left (the entries stay, for the next run).
 *
 * A dry run (act.dry_run) goes through the same action code: every write,
 * removal and tool run below records what it would do and does nothing,
 * so the list of changes and a->runs are the plan, decided by the code
 * that would carry it out.  Reads still happen; nothing is written, and no
 * lock is taken.
 *
 * This is the action core's one header for the actions; its files (one
 * concern each, act_core.h) call nothing of the actions.
 */
#ifndef TSCTUI_ACTION_ACT_H
#define TSCTUI_ACTION_ACT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "act_say.h"

#define TSCTUI_STATE_DIR "/var/lib/tsctui"
#define TSCTUI_LEDGER TSCTUI_STATE_DIR "/ledger"
#define TSCTUI_BACKUP TSCTUI_STATE_DIR "/backup"
#define ACT_MAX_CHANGES 128
#define ACT_MAX_LEDGER 256
#define ACT_MAX_RUNS 8
/* Things an action says: uninstall's "left:" lines (24) and the rest. */
#define ACT_MAX_SAID 48
#define ACT_MAX_GONE 32
#define ACT_DETAIL_MAX 160

/* dir, file, link: created; backup: a file modified, its bytes from
 * before under TSCTUI_BACKUP; var: an EFI variable created; varbackup: one
 * changed, its bytes from before under TSCTUI_BACKUP too; begin: an action
 * under way (its name in place of a path); grubby: grubby added
 * tsc=nowatchdog to every kernel (the path is the setting's, a fixed key:
 * a ledger line never names a command to run); unlinked: someone else's
 * link removed (install --migrate), its target kept under TSCTUI_BACKUP,
 * and made again by the undo. */
enum ledger_kind {
	L_DIR,
	L_FILE,
	L_LINK,
	L_BACKUP,
	L_VAR,
	L_VARBACKUP,
	L_BEGIN,
	L_GRUBBY,
	L_UNLINKED,
	LEDGER_KINDS /* how many: the name and undo tables' size */
};
/* The kind's word in the ledger file. */
const char *ledger_kind_name(enum ledger_kind k);
bool ledger_kind_from(const char *s, enum ledger_kind *out);

/* What an action did to a path (--json "what"). */
enum change_kind { CHANGE_CREATED, CHANGE_MODIFIED, CHANGE_REMOVED };
/* "created", "modified", "removed". */
const char *change_kind_name(enum change_kind k);

struct ledger_entry {
	enum ledger_kind kind;
	char *path; /* path on the managed system; an action's name */
};

/* A way out of a refusal that each front end words its own way (the
 * command line names an option, the dashboard a key or a menu): a code,
 * its command-line words in act.c's table, the dashboard's in
 * ui/hint.c's.  The error holds the command line's words, so the CLI
 * prints it as it is; error[hint_at, hint_end) are those words. */
enum act_hint {
	ACT_HINT_NONE,
	ACT_HINT_ESP,	    /* no ESP found: mount it, or name it */
	ACT_HINT_LOADER,    /* no boot loader found: name it */
	ACT_HINT_NEXT,	    /* efi-entry: no loader to start next */
	ACT_HINT_DB_KEY,    /* Secure Boot and a MOK key: a db key, or GRUB */
	ACT_HINT_EFI_ENTRY, /* GRUB's grubenv unusable: the firmware entry */
	ACT_HINTS
};
/* The command line's words for h ("; give --loader"). */
const char *act_hint_words(enum act_hint h);

struct change {
	char *path;
	enum change_kind what;
	/* What changes inside it (grubenv variables, the options line),
	 * for the plan; empty when the path says it all. */
	char detail[ACT_DETAIL_MAX];
};

struct act {
	const char *root;
	const char *name; /* "install", "mode", ... */
	bool dry_run;	  /* record, do not write or run (see above) */
	size_t nruns;
	char *runs[ACT_MAX_RUNS]; /* tools run (or, dry, to be run) */
	size_t nchanges;
	struct change changes[ACT_MAX_CHANGES];
	size_t nledger;
	struct ledger_entry ledger[ACT_MAX_LEDGER];
	bool ledger_dirty;
	bool ledger_removed; /* the ledger file is gone (uninstall's end) */
	bool journal;	     /* act_begin ran: every entry is saved at once */
	bool adopted;	     /* act_begin took a leftover state directory */
	size_t begun_with;   /* entries the ledger had when act_begin ran */
	int lock_fd;	     /* -1: not held */
	/* A dry run's directories that go unreported (a backup's, with
	 * it), as the real replay's rmdir makes them go. */
	size_t ngone;
	char *gone[ACT_MAX_GONE];
	/* What it said, in order (act_say.h): its notes and its summary. */
	size_t nsaid;
	struct act_said said[ACT_MAX_SAID];
	size_t said_more; /* past the last place: SAY_MORE counts them */
	char error[1024];
	/* errno when the error was recorded (right after the call that
	 * failed): what is asked of a failure (was the disk full?) is asked
	 * of this code, never of the error's words. */
	int error_errno;
	enum act_hint hint; /* the error's way out, if it has one */
	size_t hint_at, hint_end;
};

void act_init(struct act *a, const char *root, const char *name);
void act_free(struct act *a);
/* root + system path, in one of a few rotating buffers. */
const char *act_path(struct act *a, const char *sys);
/* Records an error (first one wins); returns -1. */
int act_fail(struct act *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* act_fail with a way out: the sentence, then h's command-line words,
 * marked for the front ends to word (the sentence ends where they
 * follow: a reader's never holds them). */
int act_fail_hint(struct act *a, enum act_hint h, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Records what the action says (a code and its values, as many as
 * act_say_nvals says, then SAY_END); the values are copied. */
void act_say(struct act *a, enum act_say code, ...) __attribute__((sentinel));
/* The success summary ("installed for grub ..."): said, but left out of
 * a dry run, which has done nothing to summarise. */
void act_done(struct act *a, enum act_say code, ...) __attribute__((sentinel));
/* Forgets what was said from the from-th thing on. */
void act_unsay(struct act *a, size_t from);
void act_change(struct act *a, const char *sys, enum change_kind what);
/* Says what changes inside sys, when the change list has it. */
void act_detail(struct act *a, const char *sys, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "create", "modify" or "remove" for a change's what: the plan's verb. */
const char *act_verb(enum change_kind what);

/* The ledger file's entries added to a's: 0 (a missing file has none);
 * -1 with why when it cannot be read, or is damaged (then *damaged), a
 * reason without a way out, nothing recorded in a->error. */
int act_ledger_read(struct act *a, bool *damaged, char *why, size_t cap);
/* act_ledger_read, its reason the action's error (a damaged ledger:
 * "not touching anything"). */
int act_ledger_load(struct act *a);
int act_ledger_save(struct act *a);
bool act_ledger_has(const struct act *a, enum ledger_kind k, const char *sys);
/* A damaged ledger's lines that still read as entries, added to a's
 * (uninstall --force); how many, or -1. */
int act_ledger_salvage(struct act *a);
/* Undoes the entries from index `from` on, newest first, going on past
 * an entry that cannot be undone (it stays, and the error says what is
 * left); when nothing but the ledger's own directories is left, the
 * ledger file goes with them.  0, or -1. */
int act_ledger_undo(struct act *a, size_t from);

/* How act_begin starts an action. */
enum act_begin_flags {
	/* boot-ok: wait for the lock however long it takes (a boot-ok that
	 * gives up makes the next boot look hung), leave an interrupted
	 * action for the next action to settle, and mark nothing. */
	ACT_BOOT_OK = 1,
	/* uninstall: finishes an interrupted uninstall, and undoes any other
	 * interrupted action with the rest. */
	ACT_UNINSTALL = 2,
};
/* Takes the lock (at most TSCTUI_LOCK_WAIT seconds, 10 by default),
 * loads the ledger, settles what a killed run left and records the start
 * of `action` (its name in the begin entry, whoever runs it: the CLI or
 * the dashboard). 0, or -1 with the error. */
int act_begin(struct act *a, const char *action, unsigned flags);
/* The action is complete: its begin entry goes. */
int act_commit(struct act *a);
/* The action failed: its own entries are undone, newest first. */
void act_abort(struct act *a);
/* The lock, by itself (act_begin takes it): 0 or -1 with the error. */
int act_lock(struct act *a, bool forever);

/* Reads the configuration install wrote (act_begin has read the ledger):
 * 0, or -1 with the error when tsctui is not installed or the file is
 * unreadable. */
struct tsctui_conf;
int act_installed(struct act *a, struct tsctui_conf *c);

/* Creates the missing directories of sys (and sys itself), recorded. */
int act_mkdirs(struct act *a, const char *sys, mode_t mode);
/* Creates or replaces a file tsctui owns; refuses a foreign one. */
int act_put(struct act *a, const char *sys, const void *data, size_t len,
	    mode_t mode);
/* Changes a file that is not tsctui's: backed up once, then replaced. */
int act_modify(struct act *a, const char *sys, const void *data, size_t len,
	       mode_t mode);
/* EFI variables (the global GUID's): one tsctui creates, removed by
 * uninstall, and one it changes (BootOrder), restored by uninstall.
 * Through libefivar on the live system, as efivarfs files under another
 * root. */
int act_var_create(struct act *a, const char *name, const void *data,
		   size_t len);
int act_var_modify(struct act *a, const char *name, const void *data,
		   size_t len);
/* A variable of the stage's own (not the ledger's: the stage writes it,
 * like its files on the ESP) deleted when it is there, the change
 * recorded; absent is fine.  0, or -1 with the error. */
int act_var_remove(struct act *a, const char *name, const char *guid);
/* A change a tool makes, recorded before it runs (act_record), and
 * forgotten once the tool has taken it back (act_forget). */
int act_record(struct act *a, enum ledger_kind k, const char *sys);
void act_forget(struct act *a, enum ledger_kind k, const char *sys);
/* grubby (Fedora family), the one tool whose change the ledger records
 * by a fixed key (L_GRUBBY): the tool to run, $TSCTUI_GRUBBY or the live
 * system's own, NULL under another root; and its one edit, tsc=nowatchdog
 * added to (on) or removed from every kernel, run and recorded as a tool.
 * kernel-arg sets it; the ledger's undo takes it back. */
#define ACT_GRUBBY_ARG "tsc=nowatchdog"
const char *act_grubby_tool(struct act *a);
int act_grubby_run(struct act *a, const char *tool, bool on);
/* kernel-arg reliable off's grubby run takes tsc=reliable out of every
 * kernel: its L_GRUBBY entry, under this key, puts it back. */
#define ACT_GRUBBY_RELIABLE_KEY "/etc/tsctui/reliable-removed"
#define ACT_GRUBBY_RELIABLE "tsc=reliable"
/* grubby adding (on) or removing arg on every kernel. */
int act_grubby_edit(struct act *a, const char *tool, const char *arg, bool on);
/* Removes someone else's file or link (install --migrate taking over
 * another tool's job), recorded ahead so that the ledger's undo puts it
 * back: a file's bytes as a backup (L_BACKUP), a link's target
 * (L_UNLINKED).  Absent: nothing to do. */
int act_take(struct act *a, const char *sys);
/* Creates a symlink tsctui owns. */
int act_link(struct act *a, const char *sys, const char *target);
/* Removes a file tsctui created (and its ledger entry). */
int act_drop(struct act *a, const char *sys);
/* Would writing sys overwrite something tsctui did not create? */
bool act_foreign(struct act *a, const char *sys);

/* Files outside the ledger (the stage's state files, the history, /run):
 * an atomic write, an append, a removal (absent is fine), a directory. */
int act_write(struct act *a, const char *sys, const void *data, size_t len,
	      mode_t mode);
int act_append(struct act *a, const char *sys, const char *text);
int act_remove(struct act *a, const char *sys);
int act_mkdir(struct act *a, const char *sys, mode_t mode);
/* Runs a tool, argv[0] looked up in PATH, with its arguments as a vector
 * (no shell: a path with a quote in it is only a path), its output to
 * /dev/null: 0 if it exited 0, else -1.  Recorded as shown; a dry run
 * records it and returns 0. */
int act_run(struct act *a, char *const argv[], const char *shown);
/* Is there an executable `name` in PATH? */
bool act_have_tool(const char *name);
/* Removes sys's backup and its ledger entry (the file was settled by
 * other means: uninstall's grubenv): the backup first, so that a kill
 * between leaves an entry without a backup, which the next run takes as
 * settled, never a backup no entry names. */
void act_ledger_drop_backup(struct act *a, const char *sys);
/* The backup of sys, as a system path (TSCTUI_BACKUP + sys). */
const char *act_backup_of(const char *sys, char *buf, size_t cap);
/* The backup of a link act_take removed: its target, under a name of its
 * own (TSCTUI_BACKUP + sys + ACT_LINK_SUFFIX), so that uninstall --force,
 * without a ledger, makes a link of it again, never a file. */
#define ACT_LINK_SUFFIX ".tsctui-link"
const char *act_link_backup_of(const char *sys, char *buf, size_t cap);
/* root + system path, a link as its last component left alone: for what
 * tsctui creates, replaces or removes itself (act_path follows it, inside
 * the root, as a reader would). */
const char *act_path_nofollow(struct act *a, const char *sys);

#endif

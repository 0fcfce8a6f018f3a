/* SPDX-License-Identifier: MIT */
/*
 * What an action says when it succeeds, and on its way there (its notes
 * and its summary): a code from one table plus its values, never English
 * that a front end reads back.  act_say.c holds the command line's words
 * for each code (what `tsctui install` prints, text and JSON); the
 * dashboard words a code its own way where the command line's words name
 * a command or an option (ui/hint.c), and takes the command line's
 * elsewhere.  A template names its values by position, {0} to {3}; {0s}
 * is "s" unless value 0 is "1" (a plural).
 */
#ifndef TSCTUI_ACTION_ACT_SAY_H
#define TSCTUI_ACTION_ACT_SAY_H

#include <stdbool.h>
#include <stddef.h>

enum act_say {
	SAY_UNDONE_FIRST,    /* action */
	SAY_PENDING_CLEARED, /* boot-ok's summary */
	SAY_SYNC_CONFIRMED,
	SAY_STRIKES_OUT,	       /* strikes, their limit */
	SAY_STRIKE,		       /* strikes, their limit */
	SAY_ENTRY_CREATED,	       /* BootNNNN, BootMMMM, why that one */
	SAY_RUN_GRUB2_MKCONFIG,	       /* grub.cfg */
	SAY_RUN_UPDATE_GRUB,	       /* grub.cfg */
	SAY_GRUBENV_BACKUP_UNREADABLE, /* backup, why, grubenv */
	SAY_GRUBENV_BACKUP_CORRUPT,    /* backup, why, grubenv */
	SAY_GUARD_CLEARED,	       /* mode */
	SAY_MOK_UNTRUSTED,	       /* loader */
	SAY_WOULD_SIGN,		       /* key */
	SAY_SIGNED,		       /* key */
	SAY_STAGE_FROM,		       /* which, the file */
	SAY_TSCSYNC_SYNC_OFF,
	SAY_TSCSYNC_SYNC_REFUSED, /* why */
	SAY_TSCSYNC_SYNC_KEPT,
	SAY_INSTALLED,	      /* loader, mode, ESP */
	SAY_OPTIONS_TOO_LONG, /* entry, bytes, the limit, word */
	SAY_CMDLINE_TOO_LONG, /* bytes, the limit, word */
	SAY_RELIABLE_TOO,     /* file */
	SAY_NOWATCHDOG_ADDED,
	SAY_NOWATCHDOG_REMOVED,
	SAY_RELIABLE_REMOVED,
	SAY_RELIABLE_LIVE_ONLY,
	SAY_RELIABLE_NONE,
	SAY_TSCSYNC_TAKEN_OVER, /* how tscsync was signed */
	SAY_MODE_SET,		/* mode */
	SAY_GUARD_WATCHES,
	SAY_LEFT,	       /* path */
	SAY_LEFT_GRUBENV,      /* grubenv */
	SAY_LEFT_ENTRY,	       /* BootNNNN */
	SAY_LEFT_ENTRY_TARGET, /* BootNNNN */
	SAY_LEFT_BACKUPS,      /* the backup directory */
	SAY_LEFT_CREATED,      /* path */
	SAY_LEFT_CHANGED,      /* path, its backup */
	SAY_REPLAY_STOPPED,    /* why */
	SAY_FORCE_SWEEPS,
	SAY_REMOVED,
	SAY_REMOVED_HISTORY,
	SAY_CMDLINE_KEPT,    /* file */
	SAY_CONF_UNREADABLE, /* why */
	SAY_LEDGER_DAMAGED,  /* why */
	SAY_ENTRY_ON_TARGET, /* entries */
	SAY_SWEPT,	     /* files put back, removed */
	SAY_SWEPT_HISTORY,   /* files put back, removed */
	SAY_RAN,	     /* command */
	SAY_MORE,	     /* how many more were said */
	ACT_SAYS
};

#define ACT_SAY_VALS 4
/* The end of act_say's and act_done's values: a null pointer of the
 * values' own type (a bare NULL may be an int through "..."). */
#define SAY_END ((const char *)0)

/* One thing said: its code and its values (copies, freed by act_free). */
struct act_said {
	enum act_say code;
	size_t nval;
	char *val[ACT_SAY_VALS];
};

/* The command line's words for code: a template. */
const char *act_say_words(enum act_say code);
/* How many values code takes. */
size_t act_say_nvals(enum act_say code);
/* template with s's values in their places, into out (cut at cap). */
void act_say_format(const char *tmpl, const struct act_said *s, char *out,
		    size_t cap);

/* The n things said, each in words(code) with its values, one per line,
 * into out (cut at cap): words is act_say_words for the command line. */
void act_say_join(const struct act_said *said, size_t n,
		  const char *(*words)(enum act_say), char *out, size_t cap);

#endif

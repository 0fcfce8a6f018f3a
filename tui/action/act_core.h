/* SPDX-License-Identifier: MIT */
/*
 * Inside the action core (act.h), what its files share and no action
 * sees: act.c (the change list, messages, tools), act_ledger.c (the
 * ledger's format), act_undo.c (its replay, one undo per kind),
 * act_backup.c, act_files.c, act_var.c (EFI variables), act_lock.c (one
 * action at a time: begin, commit, abort), act_grubby.c.  The core calls
 * nothing in the action files (tests/build/rooms.t): a ledger entry is
 * undone by the core's own table, never by the action that made it.
 */
#ifndef TSCTUI_ACTION_ACT_CORE_H
#define TSCTUI_ACTION_ACT_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "act.h"

/* A new ledger entry; once act_begin has run, on the disk before the
 * caller makes the change it describes. */
int act_ledger_add(struct act *a, enum ledger_kind k, const char *sys);
/* Entry i goes (in memory; saved with the next act_ledger_save). */
void act_ledger_forget_at(struct act *a, size_t i);
/* The first begin entry, or -1. */
ssize_t act_ledger_find_begin(const struct act *a);

/* An efivarfs path of the global GUID back to the variable's name, or
 * NULL when sys is not one. */
const char *act_var_name(const char *sys, char *name, size_t cap);
/* NVRAM's one writer and remover (dry run: nothing). */
int act_var_set(struct act *a, const char *name, uint32_t attrs,
		const uint8_t *data, size_t len);
int act_var_del(struct act *a, const char *name);

/* What a killed atomic write leaves next to its file goes. */
void act_drop_temp(const char *real);
/* The missing parent directories of sys, recorded. */
int act_parent_dirs(struct act *a, const char *sys);

/* A backup entry (L_BACKUP, L_VARBACKUP) undone: the bytes back, then the
 * backup goes; -1 with errno.  And its plan, for a dry run. */
int act_backup_restore(struct act *a, const struct ledger_entry *e);
void act_backup_plan(struct act *a, const struct ledger_entry *e);

#endif

/* SPDX-License-Identifier: MIT */
#ifndef TSCTUI_ACTION_EFI_ENTRY_H
#define TSCTUI_ACTION_EFI_ENTRY_H

#include "act.h"
#include "../source/config.h"

/* Creates the entry, first in BootOrder (both in the ledger, which
 * uninstall replays); fills c->efi_entry and c->efi_next.  next: --next,
 * or NULL to choose. */
int efi_entry_install(struct act *a, struct tsctui_conf *c, const char *next);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Zanasin/tscsync, the reference design's own installation, found on the
 * managed system, and `install --migrate` taking over its job (migrate.c).
 * Its scripts put down: a block in GRUB's custom.cfg that chain-loads
 * EFI/tscsync/tscsync.efi, grubenv variables tscsync_enable, tscsync_mode
 * and tscsync_pending (its hang guard); or, for systemd-boot, the driver
 * EFI/systemd/drivers/tscsyncx64.efi with its options in
 * EFI/tscsync/options; and tscsync-report.service, wanted by
 * multi-user.target and system-update.target.  Two stages before Linux
 * would fight, so install refuses while any of it is there; --migrate
 * removes what would run (recorded in the ledger: uninstall puts it
 * back) and carries the mode over.
 */
#ifndef TSCTUI_ACTION_MIGRATE_H
#define TSCTUI_ACTION_MIGRATE_H

#include <stdbool.h>
#include <stddef.h>

#include "../../common/tsc.h"
#include "../source/config.h"
#include "act.h"

#define TSCSYNC_MAX_TAKE 12

struct tscsync {
	char sign[512]; /* the first sign of it found, for the refusal */
	/* custom.cfg holding its block, and that file without it */
	char custom[64];
	char *custom_without;
	size_t custom_without_len;
	/* the grubenv holding tscsync_* variables */
	char grubenv[64];
	/* files and links removed whole: the driver, a boot entry, the
	 * service and its links */
	size_t ntake;
	char take[TSCSYNC_MAX_TAKE][512];
	/* its setting, where it means what tsctui's does; off: it was not
	 * running (turned off, or its guard found a hung boot) */
	bool mode_known, off;
	enum tsc_mode mode;
};

/* Looks for tscsync under a's root, the ESP in esp (may be empty): 1
 * found (t filled, t->sign says what), 0 not, -1 with the error when what
 * is found cannot be taken over safely (its block has no end, a file of it
 * belongs to a package).  migrate_free releases t. */
int migrate_find(struct act *a, const char *esp, struct tscsync *t);
void migrate_free(struct tscsync *t);
/* Removes what migrate_find found, every change in the ledger first;
 * 0 or -1 with the error. */
int migrate_take(struct act *a, const struct tscsync *t);

#endif

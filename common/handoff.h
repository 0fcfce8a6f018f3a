/* SPDX-License-Identifier: MIT */
/*
 * The end of a guarded run on the ESP paths (docs/DESIGN.md 7.1): what the
 * hang guard records once the stage's work returned, and when its pending
 * marker goes.  Written against a few operations (the ESP's files and the
 * next loader, in efi/main.c and efi/chain.c), so that the order, which no
 * boot under OVMF can show whole, is tested on the host
 * (tests/unit/test_handoff.c).
 */
#ifndef TSCTUI_COMMON_HANDOFF_H
#define TSCTUI_COMMON_HANDOFF_H

#include "tsc.h"

/* Why pending stays (then only Linux's boot-ok clears it). */
enum {
	TSC_KEEP_UNMARKED = 1u,	  /* the run wrote; synced could not be made */
	TSC_KEEP_UNKNOWN_AP = 2u, /* an AP stopped, or still in our code */
	TSC_KEEP_OTHER = 4u,	  /* the caller's own (tsc_handoff_keep) */
};

struct tsc_handoff_ops {
	void *ctx;
	/* Creates the synced marker; true only when it was made (the
	 * firmware said EFI_SUCCESS: a warning is a failure too). */
	bool (*mark_synced)(void *ctx);
	/* The guard's part of this boot is over: pending goes. */
	void (*release)(void *ctx);
	/* After the release, or in its place when pending stays: the
	 * guard's file handles are closed.  May be NULL. */
	void (*close)(void *ctx);
	/* Finds, connects and loads the next loader; 0 once it is loaded. */
	uint64_t (*load)(void *ctx);
	/* Starts the loaded loader; its status. */
	uint64_t (*start)(void *ctx);
};

struct tsc_handoff {
	const struct tsc_handoff_ops *ops;
	unsigned keep; /* TSC_KEEP_*: why pending stays */
	bool released;
};

void tsc_handoff_init(struct tsc_handoff *h, const struct tsc_handoff_ops *ops);
/* pending stays, for a reason of the caller's. */
void tsc_handoff_keep(struct tsc_handoff *h);
/*
 * The stage's work returned: synced is made first when the run wrote (so
 * that no moment has neither marker), and pending stays when it could not
 * be made or an AP's state is unknown.  Returns the TSC_KEEP_* this added.
 */
unsigned tsc_handoff_returned(struct tsc_handoff *h, bool wrote,
			      bool aps_unknown);
/* pending goes, once, unless something keeps it; the handles close. */
void tsc_handoff_release(struct tsc_handoff *h);
/*
 * The firmware-entry path: the next loader is loaded, then pending goes,
 * then the loader starts (the connects and the load are still the stage's
 * part of the boot).  A load that fails releases too: nothing was started,
 * and the stage returns the failure.  Returns the load's or the start's
 * status.
 */
uint64_t tsc_handoff_chain(struct tsc_handoff *h);

#endif

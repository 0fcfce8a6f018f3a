/* SPDX-License-Identifier: MIT */
/* The end of a guarded run: see handoff.h and docs/DESIGN.md 7.1. */
#include "handoff.h"

void tsc_handoff_init(struct tsc_handoff *h, const struct tsc_handoff_ops *ops)
{
	h->ops = ops;
	h->keep = 0;
	h->released = false;
}

void tsc_handoff_keep(struct tsc_handoff *h)
{
	h->keep |= TSC_KEEP_OTHER;
}

unsigned tsc_handoff_returned(struct tsc_handoff *h, bool wrote,
			      bool aps_unknown)
{
	unsigned keep = 0;

	/* A write nobody recorded: a kernel that hangs after it would never
	 * be counted, so the boot is left to Linux to confirm. */
	if (wrote && !h->ops->mark_synced(h->ops->ctx))
		keep |= TSC_KEEP_UNMARKED;
	if (aps_unknown)
		keep |= TSC_KEEP_UNKNOWN_AP;
	h->keep |= keep;
	return keep;
}

void tsc_handoff_release(struct tsc_handoff *h)
{
	if (h->released)
		return;
	h->released = true;
	if (!h->keep)
		h->ops->release(h->ops->ctx);
	if (h->ops->close)
		h->ops->close(h->ops->ctx);
}

uint64_t tsc_handoff_chain(struct tsc_handoff *h)
{
	uint64_t st = h->ops->load(h->ops->ctx);

	/* Only now is the stage's part of this boot over: fast-boot firmware
	 * may start drivers in the connects it left alone on purpose. */
	tsc_handoff_release(h);
	if (st)
		return st;
	return h->ops->start(h->ops->ctx);
}

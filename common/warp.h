/* SPDX-License-Identifier: MIT */
/*
 * The kernel's boot-time check (arch/x86/kernel/tsc_sync.c,
 * check_tsc_warp()) asks one question: does time ever go backwards when a
 * reading moves from one CPU to another?  This is the same question with
 * strict turns: the BSP reads its TSC and publishes it, the AP reads its own
 * and compares with the BSP's last reading, publishes, and so on.  Each
 * handoff is a chance to see an offset larger than the one-way latency of
 * that handoff; docs/DESIGN.md ("Warp test") derives the round count.
 */
#ifndef TSCTUI_COMMON_WARP_H
#define TSCTUI_COMMON_WARP_H

#include "mailbox.h"

/*
 * Rounds per AP.  A handoff detects an offset d when its one-way latency is
 * below d; measured here, 1 in 20 handoffs is within 10% of the fastest, so
 * 2000 rounds see any offset above the fastest one-way latency with
 * probability 1 - (19/20)^2000, indistinguishable from 1.  The reference
 * design's 20,000 rounds buy nothing more.
 */
#define TSC_WARP_ROUNDS 2000
#define TSC_WARP_ROUNDS_REFERENCE 20000

struct tsc_warp_result {
	bool complete;	     /* every round ran; else the AP stopped answering */
	uint32_t rounds;     /* rounds the BSP completed */
	uint32_t warps_bsp;  /* the BSP read less than the AP's last: AP ahead */
	uint32_t warps_ap;   /* the AP read less than the BSP's last: AP behind */
	uint64_t max_back;   /* the largest backwards step seen, cycles */
};

/* BSP side: asks the AP for `rounds` rounds and runs its own half. */
bool tsc_warp_run(struct tsc_mailbox *mb, uint32_t rounds,
		  struct tsc_warp_result *out);
/* AP side, called by the responder. */
void tsc_warp_ap(struct tsc_mailbox *mb, uint32_t rounds);

#endif

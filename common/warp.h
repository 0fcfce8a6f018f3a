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
 * Rounds per AP.  A handoff detects an offset d only when that handoff's
 * one-way latency is below d.  Measured on the host simulator (round trip
 * ~1200 cycles): an AP 600 cycles behind was caught in 0.05-0.15% of rounds,
 * 700 behind in 82-92%, 800 in 96-98%.  So an offset a little above the
 * one-way latency is caught with near certainty in a few rounds, and one
 * right at the edge (q = 0.1%) in 2000 rounds with probability
 * 1 - 0.999^2000 = 86%; below the latency no number of rounds sees it, for
 * this test as for the kernel's.  The reference design's 20,000 rounds buy
 * only the last sliver at the edge.  docs/DESIGN.md has the table.
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

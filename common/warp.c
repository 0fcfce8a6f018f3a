/* SPDX-License-Identifier: MIT */
#include "warp.h"

#define LOAD(p) atomic_load_explicit((p), memory_order_acquire)
#define STORE(p, v) atomic_store_explicit((p), (v), memory_order_release)

/* Waits until *word differs from last, i.e. the other side took its turn;
 * false if it fell silent. */
static bool wait_change(struct tsc_mailbox *mb, uint32_t cpu,
			_Atomic uint64_t *word, uint64_t last, uint64_t *out)
{
	const struct tsc_platform *pf = mb->pf;
	uint64_t deadline = 0, v;
	uint32_t spins = 0;

	while ((v = LOAD(word)) == last) {
		if (++spins % TSC_SPIN_CHECK)
			continue;
		if (!deadline)
			deadline = pf->read(pf->ctx, cpu) + mb->timeout_cycles;
		else if (pf->read(pf->ctx, cpu) > deadline)
			return false;
	}
	*out = v;
	return true;
}

/* One turn: read, compare with the other side's latest reading (taken
 * before ours, causally), publish. */
static uint64_t take_turn(const struct tsc_platform *pf, uint32_t cpu,
			  uint64_t theirs, _Atomic uint64_t *mine,
			  uint32_t *warps, uint64_t *max_back)
{
	uint64_t now = pf->read(pf->ctx, cpu);

	if (now < theirs) {
		(*warps)++;
		if (theirs - now > *max_back)
			*max_back = theirs - now;
	}
	STORE(mine, now);
	return now;
}

void tsc_warp_ap(struct tsc_mailbox *mb, uint32_t rounds)
{
	struct tsc_warp_area *w = &mb->warp;
	uint64_t bsp_last = 0, max_back = 0;
	uint32_t warps = 0, i;

	for (i = 0; i < rounds; i++) {
		if (!wait_change(mb, mb->cpu, &w->bsp_read, bsp_last, &bsp_last))
			break;
		take_turn(mb->pf, mb->cpu, bsp_last, &w->ap_read, &warps,
			  &max_back);
	}
	atomic_store(&w->ap_warps, warps);
	atomic_store(&w->ap_max_back, max_back);
	atomic_store(&w->ap_rounds, i);
}

bool tsc_warp_run(struct tsc_mailbox *mb, uint32_t rounds,
		  struct tsc_warp_result *out)
{
	const struct tsc_platform *pf = mb->pf;
	struct tsc_warp_area *w = &mb->warp;
	uint64_t seq, ap_back, ap_last = 0, deadline;
	uint32_t i;

	*out = (struct tsc_warp_result){ 0 };
	atomic_store(&w->bsp_read, 0);
	atomic_store(&w->ap_read, 0);
	atomic_store(&w->ap_warps, 0);
	atomic_store(&w->ap_max_back, 0);
	atomic_store(&w->ap_rounds, 0);
	seq = tsc_mb_post(mb, TSC_CMD_WARP, (int64_t)rounds);

	for (i = 0; i < rounds; i++) {
		/* The first reading has nothing to compare with. */
		take_turn(pf, pf->bsp, ap_last, &w->bsp_read, &out->warps_bsp,
			  &out->max_back);
		if (!wait_change(mb, pf->bsp, &w->ap_read, ap_last, &ap_last))
			break;
	}
	out->rounds = i;
	/* The AP publishes its counts, then answers the command. */
	deadline = pf->read(pf->ctx, pf->bsp) + mb->timeout_cycles;
	while (LOAD(&mb->resp) != seq) {
		if (pf->read(pf->ctx, pf->bsp) > deadline)
			return false;
	}
	out->warps_ap = atomic_load(&w->ap_warps);
	ap_back = atomic_load(&w->ap_max_back);
	if (ap_back > out->max_back)
		out->max_back = ap_back;
	out->complete = out->rounds == rounds &&
			atomic_load(&w->ap_rounds) == rounds;
	return out->complete;
}

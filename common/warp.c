/* SPDX-License-Identifier: MIT */
#include "warp.h"

#define LOAD(p) atomic_load_explicit((p), memory_order_acquire)
#define STORE(p, v) atomic_store_explicit((p), (v), memory_order_release)

/* Waits for our turn; false if the other side fell silent. */
static bool wait_turn(struct tsc_mailbox *mb, uint32_t cpu, uint32_t want)
{
	const struct tsc_platform *pf = mb->pf;
	uint64_t deadline = 0;
	uint32_t spins = 0;

	while (LOAD(&mb->warp.turn) != want) {
		if (++spins % TSC_SPIN_CHECK)
			continue;
		if (!deadline)
			deadline = pf->read(pf->ctx, cpu) + mb->timeout_cycles;
		else if (pf->read(pf->ctx, cpu) > deadline)
			return false;
	}
	return true;
}

/* One read, compared with the other side's last read. */
static void take_turn(const struct tsc_platform *pf, uint32_t cpu,
		      _Atomic uint64_t *mine, _Atomic uint64_t *theirs,
		      uint32_t *warps, uint64_t *max_back)
{
	uint64_t prev = LOAD(theirs);
	uint64_t now = pf->read(pf->ctx, cpu);

	if (now < prev) {
		(*warps)++;
		if (prev - now > *max_back)
			*max_back = prev - now;
	}
	atomic_store_explicit(mine, now, memory_order_relaxed);
}

void tsc_warp_ap(struct tsc_mailbox *mb, uint32_t rounds)
{
	struct tsc_warp_area *w = &mb->warp;
	uint32_t warps = 0, i;
	uint64_t max_back = 0;

	for (i = 0; i < rounds; i++) {
		if (!wait_turn(mb, mb->cpu, 1))
			break;
		take_turn(mb->pf, mb->cpu, &w->last_ap, &w->last_bsp, &warps,
			  &max_back);
		STORE(&w->turn, 0);
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
	uint64_t seq, ap_back;
	uint32_t i;

	*out = (struct tsc_warp_result){ 0 };
	atomic_store(&w->turn, 0);
	atomic_store(&w->last_bsp, 0);
	atomic_store(&w->last_ap, 0);
	atomic_store(&w->ap_warps, 0);
	atomic_store(&w->ap_max_back, 0);
	atomic_store(&w->ap_rounds, 0);

	seq = atomic_load(&mb->req) + 1;
	atomic_store(&mb->cmd, TSC_CMD_WARP);
	atomic_store(&mb->arg, (int64_t)rounds);
	STORE(&mb->req, seq);

	for (i = 0; i < rounds; i++) {
		if (!wait_turn(mb, pf->bsp, 0))
			break;
		take_turn(pf, pf->bsp, &w->last_bsp, &w->last_ap,
			  &out->warps_bsp, &out->max_back);
		STORE(&w->turn, 1);
	}
	out->rounds = i;
	/* The AP publishes its counts, then answers the command. */
	{
		uint64_t deadline = pf->read(pf->ctx, pf->bsp) +
				    mb->timeout_cycles;
		while (LOAD(&mb->resp) != seq) {
			if (pf->read(pf->ctx, pf->bsp) > deadline)
				return false;
		}
	}
	out->warps_ap = atomic_load(&w->ap_warps);
	ap_back = atomic_load(&w->ap_max_back);
	if (ap_back > out->max_back)
		out->max_back = ap_back;
	out->complete = out->rounds == rounds &&
			atomic_load(&w->ap_rounds) == rounds;
	return out->complete;
}

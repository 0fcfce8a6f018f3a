/* SPDX-License-Identifier: MIT */
#include "mailbox.h"
#include "warp.h"

#define LOAD(p) atomic_load_explicit((p), memory_order_acquire)
#define STORE(p, v) atomic_store_explicit((p), (v), memory_order_release)

void tsc_write_at_edge(const struct tsc_platform *pf, uint32_t cpu,
		       int64_t delta, uint64_t tick)
{
	uint64_t start, spins = 0;

	if (tick > 1) {
		start = pf->read(pf->ctx, cpu);
		/* A tick is a few dozen cycles; the bound only guards against
		 * a counter that does not move at all. */
		while (pf->read(pf->ctx, cpu) == start && ++spins < 100000)
			tsc_cpu_relax();
	}
	pf->write(pf->ctx, cpu, delta);
}

static void respond(struct tsc_mailbox *mb, uint64_t seq)
{
	STORE(&mb->resp, seq);
}

void tsc_responder(void *arg)
{
	struct tsc_mailbox *mb = arg;
	const struct tsc_platform *pf = mb->pf;
	uint32_t cpu = mb->cpu;
	uint64_t seen = LOAD(&mb->req), last = LOAD(&mb->value), deadline, seq;
	uint64_t now;
	uint32_t spins = 0;

	STORE(&mb->started, 1);
	deadline = pf->read(pf->ctx, cpu) + mb->idle_cycles;
	for (;;) {
		seq = LOAD(&mb->req);
		if (seq == seen) {
			/* No PAUSE and a rare clock check: both would delay
			 * noticing a ping, which skews the estimate. */
			if (++spins % TSC_SPIN_CHECK == 0 &&
			    pf->read(pf->ctx, cpu) > deadline)
				return;
			continue;
		}
		seen = seq;
		switch (seq & 0xff) {
		case TSC_CMD_PING:
			/* One read, one store: the answer is the reading. It
			 * must differ from the last answer to be seen; two
			 * reads a round trip apart never match, but a write in
			 * between could make them, and a cycle is noise. */
			now = pf->read(pf->ctx, cpu);
			if (now == last)
				now++;
			last = now;
			atomic_store_explicit(&mb->value, now,
					      memory_order_release);
			break;
		case TSC_CMD_WRITE:
			if (pf->write) {
				tsc_write_at_edge(pf, cpu,
						  atomic_load(&mb->arg),
						  mb->tick);
				atomic_fetch_add(&mb->writes, 1);
			}
			respond(mb, seq);
			break;
		case TSC_CMD_WARP:
			tsc_warp_ap(mb, (uint64_t)atomic_load(&mb->arg));
			respond(mb, seq);
			break;
		case TSC_CMD_EXIT:
		default:
			respond(mb, seq);
			return;
		}
		/* A write moves this CPU's counter: measure idleness anew. */
		deadline = pf->read(pf->ctx, cpu) + mb->idle_cycles;
	}
}

void tsc_mb_reset(struct tsc_mailbox *mb, const struct tsc_platform *pf,
		  uint32_t cpu, uint64_t timeout_cycles, uint64_t tick)
{
	atomic_store(&mb->req, 0);
	atomic_store(&mb->resp, 0);
	atomic_store(&mb->value, 0);
	atomic_store(&mb->arg, 0);
	atomic_store(&mb->started, 0);
	atomic_store(&mb->writes, 0);
	mb->pf = pf;
	mb->cpu = cpu;
	mb->timeout_cycles = timeout_cycles;
	/* An abandoned responder lingers at most this long. */
	mb->idle_cycles = 4 * timeout_cycles;
	mb->tick = tick ? tick : 1;
}

static bool wait_resp(struct tsc_mailbox *mb, uint64_t seq, uint64_t timeout)
{
	const struct tsc_platform *pf = mb->pf;
	uint64_t deadline = pf->read(pf->ctx, pf->bsp) + timeout;
	uint32_t spins = 0;

	while (LOAD(&mb->resp) != seq) {
		if (++spins % TSC_SPIN_CHECK == 0 &&
		    pf->read(pf->ctx, pf->bsp) > deadline)
			return false;
	}
	return true;
}

/* The request word: a fresh sequence number with the command in its low
 * byte; the only store a ping makes. */
static uint64_t post(struct tsc_mailbox *mb, enum tsc_cmd cmd, int64_t arg)
{
	uint64_t seq = ((atomic_load_explicit(&mb->req, memory_order_relaxed) >>
			 8) + 1) << 8 | (uint64_t)cmd;

	if (cmd != TSC_CMD_PING)
		atomic_store_explicit(&mb->arg, arg, memory_order_relaxed);
	STORE(&mb->req, seq);
	return seq;
}

uint64_t tsc_mb_post(struct tsc_mailbox *mb, enum tsc_cmd cmd, int64_t arg)
{
	return post(mb, cmd, arg);
}

bool tsc_mb_wait_started(struct tsc_mailbox *mb, uint64_t timeout_cycles)
{
	const struct tsc_platform *pf = mb->pf;
	uint64_t deadline = pf->read(pf->ctx, pf->bsp) + timeout_cycles;

	while (!LOAD(&mb->started)) {
		if (pf->read(pf->ctx, pf->bsp) > deadline)
			return false;
		tsc_cpu_relax();
	}
	return true;
}

bool tsc_mb_ping(struct tsc_mailbox *mb, uint64_t *t0, uint64_t *a,
		 uint64_t *t2)
{
	const struct tsc_platform *pf = mb->pf;
	uint64_t before = atomic_load_explicit(&mb->value, memory_order_relaxed);
	uint64_t v;
	uint32_t spins = 0;

	*t0 = pf->read(pf->ctx, pf->bsp);
	post(mb, TSC_CMD_PING, 0);
	while ((v = LOAD(&mb->value)) == before) {
		if (++spins % TSC_SPIN_CHECK == 0 &&
		    pf->read(pf->ctx, pf->bsp) - *t0 > mb->timeout_cycles)
			return false;
	}
	*t2 = pf->read(pf->ctx, pf->bsp);
	*a = v;
	return true;
}

bool tsc_mb_write(struct tsc_mailbox *mb, int64_t delta)
{
	return wait_resp(mb, post(mb, TSC_CMD_WRITE, delta), mb->timeout_cycles);
}

void tsc_mb_post_exit(struct tsc_mailbox *mb)
{
	post(mb, TSC_CMD_EXIT, 0);
}

bool tsc_mb_exit(struct tsc_mailbox *mb)
{
	return wait_resp(mb, post(mb, TSC_CMD_EXIT, 0), mb->timeout_cycles);
}

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

static bool on_own_cpu(const struct tsc_platform *pf, uint32_t cpu)
{
	return !pf->on_cpu || pf->on_cpu(pf->ctx, cpu);
}

void tsc_responder(void *arg)
{
	struct tsc_ticket *t = arg;
	struct tsc_mailbox *mb = t->mb;
	const struct tsc_platform *pf = mb->pf;
	uint32_t cpu = t->cpu, spins = 0, session;
	uint64_t seen, last, deadline, seq, now;
	int64_t operand;

	/* The ticket is armed once the firmware accepted this run; a run
	 * that starts at once may get here first. */
	deadline = pf->read(pf->ctx, cpu) + mb->timeout_cycles;
	while ((session = LOAD(&t->session)) == 0) {
		if (++spins % TSC_SPIN_CHECK == 0 &&
		    pf->read(pf->ctx, cpu) > deadline)
			return;
		tsc_cpu_relax();
	}
	/* The request word first, then the session: the BSP changes the
	 * session before anything else, so a request of a later session is
	 * never taken for ours. */
	seen = LOAD(&mb->req);
	if (LOAD(&mb->session) != session)
		return; /* started after its session ended */
	if ((seen & 0xff) == TSC_CMD_EXIT)
		return; /* the BSP gave up on us before we started */
	if (!on_own_cpu(pf, cpu)) {
		STORE(&mb->refused, session);
		return;
	}
	last = LOAD(&mb->value);
	STORE(&mb->started, session);
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
		if (LOAD(&mb->session) != session)
			return; /* the BSP closed this session */
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
			if (!on_own_cpu(pf, cpu)) {
				STORE(&mb->refused, session);
				return;
			}
			operand = LOAD(&mb->arg);
			/* Seqlock-style: the operand counts only if the
			 * request is still this one (a responder that stalled
			 * since reading it may find the BSP gone on). */
			if (LOAD(&mb->req) != seq)
				continue;
			if (pf->write) {
				tsc_write_at_edge(pf, cpu, operand, mb->tick);
				atomic_fetch_add(&mb->writes, 1);
			}
			respond(mb, seq);
			break;
		case TSC_CMD_WARP:
			operand = LOAD(&mb->arg);
			if (LOAD(&mb->req) != seq)
				continue;
			tsc_warp_ap(mb, cpu, (uint64_t)operand);
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
		  struct tsc_ticket *t, uint32_t cpu, uint64_t timeout_cycles,
		  uint64_t tick)
{
	uint32_t session = atomic_load(&mb->session) + 1;

	if (session == 0)
		session = 1; /* 0 is "no responder" in started and refused */
	/* First, so that a responder of an earlier session that wakes now
	 * sees the change before any request of this one. */
	atomic_store(&mb->session, session);
	atomic_store(&mb->req, 0);
	atomic_store(&mb->resp, 0);
	atomic_store(&mb->value, 0);
	atomic_store(&mb->arg, 0);
	atomic_store(&mb->started, 0);
	atomic_store(&mb->refused, 0);
	atomic_store(&mb->writes, 0);
	mb->pf = pf;
	mb->timeout_cycles = timeout_cycles;
	/* An abandoned responder lingers at most this long. */
	mb->idle_cycles = 4 * timeout_cycles;
	mb->tick = tick ? tick : 1;
	t->mb = mb;
	t->cpu = cpu;
	atomic_store(&t->session, 0);
}

void tsc_mb_arm(struct tsc_mailbox *mb, struct tsc_ticket *t)
{
	atomic_store(&t->session, atomic_load(&mb->session));
}

bool tsc_mb_refused(struct tsc_mailbox *mb)
{
	return LOAD(&mb->refused) == atomic_load(&mb->session);
}

static bool wait_resp(struct tsc_mailbox *mb, uint64_t seq, uint64_t timeout)
{
	const struct tsc_platform *pf = mb->pf;
	uint64_t deadline = pf->read(pf->ctx, pf->bsp) + timeout;
	uint32_t spins = 0;

	while (LOAD(&mb->resp) != seq) {
		if (++spins % TSC_SPIN_CHECK == 0 &&
		    (pf->read(pf->ctx, pf->bsp) > deadline ||
		     tsc_mb_refused(mb)))
			return false;
	}
	return true;
}

/* The request word: a fresh sequence number with the command in its low
 * byte; the only store a ping makes. */
static uint64_t post(struct tsc_mailbox *mb, enum tsc_cmd cmd, int64_t arg)
{
	uint64_t seq =
		((atomic_load_explicit(&mb->req, memory_order_relaxed) >> 8) +
		 1) << 8 |
		(uint64_t)cmd;

	/* Only the commands that take one: an EXIT must not overwrite the
	 * operand of a request a stalled responder is about to act on. */
	if (cmd == TSC_CMD_WRITE || cmd == TSC_CMD_WARP)
		atomic_store_explicit(&mb->arg, arg, memory_order_relaxed);
	STORE(&mb->req, seq);
	return seq;
}

uint64_t tsc_mb_post(struct tsc_mailbox *mb, enum tsc_cmd cmd, int64_t arg)
{
	return post(mb, cmd, arg);
}

enum tsc_mb_start tsc_mb_wait_started(struct tsc_mailbox *mb,
				      uint64_t timeout_cycles)
{
	const struct tsc_platform *pf = mb->pf;
	uint64_t deadline = pf->read(pf->ctx, pf->bsp) + timeout_cycles;
	uint32_t session = atomic_load(&mb->session);

	while (LOAD(&mb->started) != session) {
		if (LOAD(&mb->refused) == session)
			return TSC_MB_WRONG_CPU;
		if (pf->read(pf->ctx, pf->bsp) > deadline)
			return TSC_MB_SILENT;
		tsc_cpu_relax();
	}
	return TSC_MB_STARTED;
}

bool tsc_mb_ping(struct tsc_mailbox *mb, uint64_t *t0, uint64_t *a,
		 uint64_t *t2)
{
	const struct tsc_platform *pf = mb->pf;
	uint64_t before =
		atomic_load_explicit(&mb->value, memory_order_relaxed);
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
	return wait_resp(mb, post(mb, TSC_CMD_WRITE, delta),
			 mb->timeout_cycles);
}

void tsc_mb_post_exit(struct tsc_mailbox *mb)
{
	post(mb, TSC_CMD_EXIT, 0);
}

bool tsc_mb_exit(struct tsc_mailbox *mb)
{
	return wait_resp(mb, post(mb, TSC_CMD_EXIT, 0), mb->timeout_cycles);
}

/* SPDX-License-Identifier: MIT */
#include "driver.h"
#include "fmt.h"
#include "madt.h"
#include "verdict.h"

/* 100 ms: MP services start an AP in well under a millisecond, and a ping
 * round trip is a microsecond; an AP silent this long is not coming. */
#define TSC_ANSWER_TIMEOUT_US 100000

/* Development and test_driver only (never in a release build):
 * -DTSC_TRACE passes the run's decisions to a hook the platform sets, to
 * be read against the TSC rig's oracle lines (or, in test_driver, to act
 * at one of them). */
#ifdef TSC_TRACE
void (*tsc_trace_hook)(const char *tag, int64_t a, int64_t b, int64_t c);
#define TR(t, a, b, c)                                                         \
	do {                                                                   \
		if (tsc_trace_hook)                                            \
			tsc_trace_hook(t, (int64_t)(a), (int64_t)(b),          \
				       (int64_t)(c));                          \
	} while (0)
#else
#define TR(t, a, b, c) ((void)0)
#endif

void tsc_run_params_default(struct tsc_run_params *p, enum tsc_mode mode)
{
	p->mode = mode;
	p->est = tsc_est_adaptive;
	p->warp_us = TSC_WARP_US;
	p->warp_shared_us = TSC_WARP_US_SHARED;
	p->answer_timeout_us = TSC_ANSWER_TIMEOUT_US;
}

struct run {
	const struct tsc_platform *pf;
	const struct tsc_run_params *p;
	struct tsc_workspace *ws;
	struct tsc_report *r;
	struct tsc_mailbox *mb; /* the session's: its AP's own */
	uint64_t timeout_cycles;
	uint64_t warp_cycles;  /* an AP alone in its package */
	uint64_t short_cycles; /* one sharing it; every steering test */
	uint64_t tick;
	uint64_t added; /* cycles deliberately added to the BSP's counter */
	/* The landing error of writes, pooled over every counter: only from
	 * kernel-style tests (their offsets err by tens of cycles where a
	 * ping-pong estimate errs by hundreds), and only once a write was
	 * measured by one; the BSP's big move, measured against the survey,
	 * stands in until then (prior). */
	struct tsc_shortfall shortfall;
	struct tsc_shortfall prior;
	uint64_t prior_noise; /* the survey estimate's own noise in it */
	uint32_t limit;	 /* processors 0..limit-1 have state (TSC_MAX_CPUS) */
	bool too_many;	 /* more processors than that: measure only */
	bool unsettled;	 /* an AP run was outstanding before the BSP's move */
	uint32_t writes; /* TSC writes so far, anywhere */
	/* Counters left where they were because their writes landed further
	 * apart than the correction they still needed, and that spread. */
	uint32_t noisy;
	uint64_t noise;
	/* The MADT lists a CPU that was not measured. */
	bool madt_missing;
	uint32_t madt_id;
	/* The estimate the BSP's move was to aim at did not repeat: that
	 * CPU, and its two estimates. */
	bool unrepeated;
	uint32_t unrepeated_cpu;
	int64_t unrepeated_est[2];
};

/*
 * The BSP's counter moved by delta (a write on the BSP): account for it,
 * and move every AP's last known offset with it, so that an AP that is not
 * measured again (beyond a cap, or silent later) reports its offset after
 * the move, not before.
 */
static void bsp_moved(struct run *R, int64_t delta)
{
	uint32_t i;

	R->added += (uint64_t)delta;
	R->r->bsp_shift += delta;
	R->r->msr_writes++;
	R->writes++;
	for (i = 0; i < R->r->nap; i++)
		R->r->ap[i].final_offset -= delta;
}

/*
 * Steering: a counter is moved by the offset the kernel-style test saw,
 * and tested again (bsp_fine for the BSP, the verify for an AP; which APs:
 * tsc_plan_steer).  Never beyond the fine-tuning cap: a large offset there
 * means the coarse steps did not do their job, and a warp test is no reason
 * to move a counter far.  The landing error is learned per counter from
 * these writes alone (each one's effect is the next test's offset minus
 * the last one's); until then the run's figure stands in.
 */
struct steering {
	struct tsc_shortfall landing;
	int64_t requested;
	int64_t before;
	bool wrote; /* since the last test */
	/* The last write was aimed with no landing error known anywhere:
	 * that it landed off is expected, not a sign of noise. */
	bool blind;
	uint32_t steps;
};

/*
 * The landing error to add to a request: the run's pooled figure, else the
 * BSP's big move's, else none (the write is aimed blind).  The big move's
 * figure stands in only where it is larger than the survey estimate's
 * noise it carries (tsc_ahead_noise): a smaller one may be that noise
 * alone, and adding it put the first fine write off by it.  On the host
 * simulator under TCG (writes exact to +-20) the big move taught -20 to
 * -28 cycles, the BSP's fine write landed that far off, and the landing
 * then learned from it aimed the APs' writes off by as much.
 */
static const struct tsc_shortfall *landing_model(const struct run *R)
{
	static const struct tsc_shortfall none = { .n = 0 };

	if (R->shortfall.n)
		return &R->shortfall;
	if (tsc_shortfall_beyond(&R->prior, R->prior_noise))
		return &R->prior;
	return &none;
}

/*
 * Writes do not land like hardware's: a landing error learned anywhere in
 * the run (the BSP's big move included) beyond TSC_LANDING_PLAUSIBLE.
 * Then no fine correction is made anywhere: each would land as far off
 * as that, and the counters would end worse than after the first move
 * (under TCG's timing: 1013 cycles against 763).  Returns that landing.
 */
static uint64_t writes_wild(const struct run *R)
{
	uint64_t a = tsc_shortfall_worst(&R->shortfall);
	uint64_t b = tsc_shortfall_worst(&R->prior);

	/* The big move's landing is measured against a ping-pong survey
	 * estimate (off by up to its tsc_ahead_noise: 189 cycles on the
	 * host simulator under load), the others between two tests. */
	if (a > TSC_LANDING_PLAUSIBLE)
		return a;
	if (b > TSC_LANDING_PLAUSIBLE + R->prior_noise)
		return b;
	return 0;
}

/* The BSP's big move, measured against the AP's survey offset. */
static void learn_prior(struct run *R, const struct tsc_report_cpu *ap,
			int64_t offset_now)
{
	tsc_shortfall_learn(&R->prior, R->r->bsp_shift,
			    tsc_sub_sat(ap->survey_offset, offset_now));
	R->prior_noise = tsc_ahead_noise(ap->rtt);
}

/* Half the range of a counter's landing errors: how far off a write
 * aimed with their mean lands (tsc_shortfall_worth). */
static uint64_t landing_noise(const struct tsc_shortfall *landing)
{
	return ((uint64_t)landing->hi - (uint64_t)landing->lo) / 2;
}

/*
 * Whether a correction of `offset` is not worth a write, and if so how far
 * off writes land (for the reason): the counter's own landings, or the
 * run's pooled ones (every counter's, for one `rdtsc; add; wrmsr` lands
 * alike on one machine), spread further than twice the correction
 * (tsc_shortfall_worth), or a landing beyond the plausible (writes_wild).
 * The pool sees it sooner: under TCG's timing two writes anywhere, where
 * one counter alone needed two of its own (and had ended 539 cycles off
 * by then, against 229 after the BSP's move).
 */
static uint64_t unworthy(const struct run *R, const struct steering *S,
			 int64_t offset)
{
	if (writes_wild(R))
		return writes_wild(R);
	if (!tsc_shortfall_worth(&S->landing, offset))
		return landing_noise(&S->landing) ? landing_noise(&S->landing)
						  : 1;
	if (!tsc_shortfall_worth(&R->shortfall, offset))
		return landing_noise(&R->shortfall)
			       ? landing_noise(&R->shortfall)
			       : 1;
	return 0;
}

/* A write measured by a trusted kernel-style test: its landing error
 * joins the counter's own record (its spread) and the run's pool. */
static void learn_landing(struct run *R, struct tsc_shortfall *own,
			  int64_t requested, int64_t achieved)
{
	tsc_shortfall_learn(own, requested, achieved);
	tsc_shortfall_learn(&R->shortfall, requested, achieved);
	TR("learn", requested, achieved, tsc_shortfall_comp(&R->shortfall));
}

static uint64_t bsp_now(const struct run *R)
{
	return R->pf->read(R->pf->ctx, R->pf->bsp) - R->added;
}

static uint64_t cycles_to_us(const struct run *R, uint64_t c)
{
	uint64_t hz = R->pf->tsc_hz ? R->pf->tsc_hz : 1000000000ull;

	return c / hz * 1000000ull + c % hz * 1000000ull / hz;
}

static void quiet(struct run *R, bool on)
{
	if (R->pf->quiet)
		R->pf->quiet(R->pf->ctx, on);
}

/* Copies what the platform knows about a failed or odd start. */
static void note_status(const struct run *R, struct tsc_report_cpu *ap)
{
	uint64_t st = R->pf->status ? R->pf->status(R->pf->ctx, ap->index) : 0;

	if (st)
		ap->fw_status = st;
}

/*
 * Starts the responder; on success the BSP is quiet until session_close.
 * On failure the AP's note says why (unless it has one already).
 */
static bool session_open(struct run *R, struct tsc_report_cpu *ap)
{
	uint32_t cpu = ap->index;
	struct tsc_mailbox *mb = &R->ws->mb[cpu];
	struct tsc_ticket *t = &R->ws->ticket[cpu];
	enum tsc_ap_note why = TSC_NOTE_NO_ANSWER;

	R->mb = mb;
	/* Its last run may still read this mailbox and ticket: not until
	 * it has returned (or the firmware stopped it, which join says). */
	if (R->ws->outstanding[cpu] && R->pf->join(R->pf->ctx, cpu, 0) == 0)
		R->ws->outstanding[cpu] = false;
	if (R->ws->outstanding[cpu]) {
		if (ap->note == TSC_NOTE_NONE ||
		    ap->note == TSC_NOTE_NOT_CONVERGED)
			ap->note = TSC_NOTE_NO_ANSWER;
		return false;
	}
	tsc_mb_reset(mb, R->pf, t, cpu, R->timeout_cycles, R->tick);
	if (R->pf->start(R->pf->ctx, cpu, tsc_responder, t) != 0) {
		why = TSC_NOTE_START_FAILED;
	} else {
		R->ws->outstanding[cpu] = true;
		/* Only now: a run the firmware refused never had a ticket. */
		tsc_mb_arm(mb, t);
		switch (tsc_mb_wait_started(mb, R->timeout_cycles)) {
		case TSC_MB_STARTED:
			quiet(R, true);
			return true;
		case TSC_MB_WRONG_CPU:
			why = TSC_NOTE_WRONG_CPU;
			break;
		case TSC_MB_SILENT:
			break;
		}
	}
	note_status(R, ap);
	if (ap->note == TSC_NOTE_NONE || ap->note == TSC_NOTE_NOT_CONVERGED)
		ap->note = why;
	return false;
}

/*
 * For an AP that never started: leave an EXIT waiting in the mailbox (should
 * it start late within this session, it leaves at once; after it, the
 * session number sends it away) and do not wait for an answer.
 */
static void session_abandon(struct run *R, uint32_t cpu)
{
	if (!R->ws->outstanding[cpu])
		return; /* never started: nothing to tell */
	tsc_mb_post_exit(&R->ws->mb[cpu]);
	if (R->pf->join(R->pf->ctx, cpu, 0) == 0)
		R->ws->outstanding[cpu] = false;
}

static uint32_t session_close(struct run *R, uint32_t cpu)
{
	struct tsc_mailbox *mb = &R->ws->mb[cpu];

	tsc_mb_exit(mb);
	quiet(R, false);
	if (R->pf->join(R->pf->ctx, cpu, R->p->answer_timeout_us) == 0)
		R->ws->outstanding[cpu] = false;
	return atomic_load(&mb->writes);
}

/* Writes to this AP so far, the open session's included. */
static uint32_t ap_writes(const struct run *R, const struct tsc_report_cpu *ap)
{
	return ap->writes + atomic_load(&R->ws->mb[ap->index].writes);
}

/* Does CPU cpu share its package with another processor?  The kernel
 * tests such a CPU for 2 ms, one alone in its package for 20. */
static bool shares_package(const struct run *R, uint32_t cpu)
{
	const struct tsc_platform *pf = R->pf;
	uint32_t pkg, i;

	if (!pf->package)
		return true;
	pkg = pf->package(pf->ctx, cpu);
	for (i = 0; i < R->limit; i++)
		if (i != cpu && (!pf->enabled || pf->enabled(pf->ctx, i)) &&
		    pf->package(pf->ctx, i) == pkg)
			return true;
	return false;
}

/* The kernel's own duration for this AP's test (loop_timeout()). */
static uint64_t kernel_cycles(const struct run *R,
			      const struct tsc_report_cpu *ap)
{
	return shares_package(R, ap->index) ? R->short_cycles : R->warp_cycles;
}

/* Why a write was not acknowledged. */
static enum tsc_ap_note write_failure(struct tsc_mailbox *mb)
{
	return tsc_mb_refused(mb) ? TSC_NOTE_WRONG_CPU : TSC_NOTE_NO_ANSWER;
}

/* Offset of the AP in session; false if it stopped answering. */
static bool measure(struct run *R, struct tsc_report_cpu *ap,
		    struct tsc_estimate *out)
{
	struct tsc_estimator e;
	uint64_t t0, a, t2;

	tsc_est_init(&e, &R->p->est);
	while (!tsc_est_done(&e)) {
		if (!tsc_mb_ping(R->mb, &t0, &a, &t2)) {
			ap->exchanges += e.rounds;
			return false;
		}
		tsc_est_add(&e, t0, a, t2);
	}
	tsc_est_result(&e, out);
	ap->exchanges += e.rounds;
	/* The tick only ever shrinks as more deltas are seen. */
	if (out->tick < R->tick || R->tick == 0)
		R->tick = out->tick;
	return out->valid;
}

static void survey(struct run *R)
{
	const struct tsc_platform *pf = R->pf;
	struct tsc_report *r = R->r;
	struct tsc_estimate est;
	uint32_t cpu;

	for (cpu = 0; cpu < R->limit && r->nap < TSC_MAX_CPUS; cpu++) {
		struct tsc_report_cpu *ap;

		if (cpu == pf->bsp)
			continue;
		ap = &r->ap[r->nap++];
		*ap = (struct tsc_report_cpu){ .index = cpu };
		ap->apic_id = pf->apic_id ? pf->apic_id(pf->ctx, cpu) : cpu;
		R->ws->usable[cpu] = false;
		if (pf->enabled && !pf->enabled(pf->ctx, cpu)) {
			ap->note = TSC_NOTE_DISABLED;
			continue;
		}
		if (!session_open(R, ap)) {
			session_abandon(R, cpu);
			continue;
		}
		if (measure(R, ap, &est)) {
			ap->survey_offset = ap->final_offset = est.offset;
			ap->rtt = est.rtt;
			R->ws->survey[cpu] = est.offset;
			R->ws->usable[cpu] = true;
		} else {
			ap->note = TSC_NOTE_NO_ANSWER;
		}
		session_close(R, cpu);
	}
}

static bool all_measured(const struct run *R)
{
	uint32_t i;

	for (i = 0; i < R->r->nap; i++)
		if (!R->ws->usable[R->r->ap[i].index] &&
		    R->r->ap[i].note != TSC_NOTE_DISABLED)
			return false;
	return true;
}

/* The first estimate that did not repeat, for the reason. */
static void not_repeated(struct run *R, uint32_t cpu, int64_t first,
			 int64_t second)
{
	if (R->unrepeated)
		return;
	R->unrepeated = true;
	R->unrepeated_cpu = cpu;
	R->unrepeated_est[0] = first;
	R->unrepeated_est[1] = second;
}

/*
 * The BSP's move, planned on estimates that repeat.  A move of up to
 * seconds of counter rests on one AP's survey estimate (the median or the
 * furthest ahead), so that AP is measured once more before anything is
 * written, and the two estimates must be the same offset seen twice
 * (tsc_plan_repeats).  The smaller then stands: the BSP moves no further
 * forward than both allow (too short a move, bsp_fine steers on; too long
 * a one on a healthy machine is a write that should not have been).  The
 * plan is made again with it: it may now aim at another AP, which is
 * measured again in turn, or at no move.  Estimates that do not repeat,
 * or an AP that stops answering, end the plan: false, and nothing may be
 * written.  On true, *aim is the AP to move to (its survey_offset the
 * estimate the move is aimed with), or NULL for no move, and *target the
 * shift before quantising.
 */
static bool plan_bsp(struct run *R, struct tsc_report_cpu **aim,
		     int64_t *target)
{
	bool reachable[TSC_MAX_CPUS], repeated[TSC_MAX_CPUS] = { false };
	int64_t offs[TSC_MAX_CPUS];
	uint64_t rtts[TSC_MAX_CPUS];
	enum tsc_bsp_rule rule;
	struct tsc_estimate again;
	struct tsc_report_cpu *ap;
	uint32_t i, k;
	bool answered;

	*aim = NULL;
	for (i = 0; i < R->r->nap; i++) {
		offs[i] = R->r->ap[i].survey_offset;
		rtts[i] = R->r->ap[i].rtt;
		/* A disabled AP (Linux does not start it) has no offset:
		 * its zero must not pull the median. */
		reachable[i] = R->ws->usable[R->r->ap[i].index] &&
			       tsc_plan_reachable(offs[i]);
		if (R->ws->usable[R->r->ap[i].index] && !reachable[i])
			R->r->ap[i].note = TSC_NOTE_BEYOND_CAP;
	}
	for (;;) {
		*target = tsc_plan_bsp(offs, rtts, reachable, R->r->nap, &rule);
		if (*target <= 0)
			return true;
		for (k = 0; k < R->r->nap; k++)
			if (reachable[k] && offs[k] == *target)
				break;
		if (k == R->r->nap)
			return true;
		ap = &R->r->ap[k];
		if (repeated[k]) {
			*aim = ap;
			return true;
		}
		answered = session_open(R, ap);
		if (answered) {
			answered = measure(R, ap, &again);
			session_close(R, ap->index);
		} else {
			session_abandon(R, ap->index);
		}
		if (!answered) {
			if (ap->note == TSC_NOTE_NONE)
				ap->note = TSC_NOTE_NO_ANSWER;
			R->ws->usable[ap->index] = false;
			return false;
		}
		TR("bsprepeat", offs[k], again.offset, (int64_t)again.rtt);
		if (!tsc_plan_repeats(offs[k], rtts[k], again.offset, again.rtt,
				      R->tick)) {
			not_repeated(R, ap->index, offs[k], again.offset);
			return false;
		}
		repeated[k] = true;
		if (again.offset < offs[k]) {
			offs[k] = again.offset;
			rtts[k] = again.rtt;
			ap->survey_offset = ap->final_offset = again.offset;
			ap->rtt = again.rtt;
			R->ws->survey[ap->index] = again.offset;
		}
	}
}

/* Moves the BSP forward by the shift plan_bsp found. */
static void move_bsp(struct run *R, int64_t target)
{
	const struct tsc_platform *pf = R->pf;
	int64_t shift = tsc_quantise(target, R->tick);
	uint32_t i;

	TR("bspmove", target, shift, 0);
	quiet(R, true);
	tsc_write_at_edge(pf, pf->bsp, shift, R->tick);
	quiet(R, false);
	bsp_moved(R, shift);
	/* Every offset changed: the verify measures each one afresh. */
	for (i = 0; i < R->r->nap; i++)
		R->ws->stale[R->r->ap[i].index] = true;
}

/* The test's fastest handoff as a round trip (the report's rtt is 2F); a
 * floor below 0 (a warp seen) is 0, never a huge unsigned figure. */
static uint64_t warp_rtt(const struct tsc_warp_result *w)
{
	int64_t floor = tsc_warp_floor(w);

	return floor > 0 ? (uint64_t)floor * 2u : 0;
}

/* The verdict rule (verdict.h) on one kernel-style test. */
static enum tsc_verdict warp_verdict(const struct tsc_warp_result *w,
				     bool complete)
{
	struct tsc_measurement m = {
		.measured = true,
		.offset = w->offset,
		.rtt = warp_rtt(w),
		.warps = w->warps_bsp + w->warps_ap,
		.warp_complete = complete,
		.kernel_test = tsc_warp_two_way(w),
		.spread = w->spread,
		.worst = w->worst,
		.margin = tsc_warp_margin(w),
	};

	return tsc_verdict_of(&m);
}

/* The test's windows agree: its offset may steer and teach.  A test with
 * half its windows or fewer, or too few handoffs, was starved
 * (tsc_plan_test_fed): with
 * 2 ms tests a side descheduled for a while leaves the others empty, and
 * stock TCG under load wrote 362,000 cycles from a one-window test. */
static bool warp_trusted(const struct run *R, const struct tsc_warp_result *w)
{
	return tsc_plan_test_fed(w->windows, w->rounds) &&
	       tsc_plan_offset_trusted(w->spread, warp_rtt(w) / 2) &&
	       tsc_plan_offset_steady(w->spread, warp_rtt(w) / 2, R->tick);
}

/* A counter is left where it is: its writes land `off` cycles from where
 * they were aimed, more than the correction it still needs. */
static void too_noisy(struct run *R, uint64_t off)
{
	R->noisy++;
	if (off > R->noise)
		R->noise = off;
}

/*
 * A correction that left its counter further off than before it, and
 * further than a hardware landing can miss (tsc_plan_landing_missed), did
 * not land where aimed: the next would be as much a lottery.  The stage
 * stops writing to it.
 */
static bool landed_worse(const struct tsc_warp_result *w,
			 const struct steering *S)
{
	/* A write aimed blind (no landing error known yet) lands off by
	 * the latency itself; that is learned, not a reason to stop. */
	return !S->blind && tsc_plan_landing_missed(S->before, w->offset);
}

/*
 * One kernel-style test of the AP in session.  One that saw too few
 * handoffs both ways in more than half its windows (a side descheduled
 * for much of it: stock TCG on a
 * loaded 2-core host gave tests of 1 to 3 handoffs, and a pinned rig vCPU
 * once none in 20 ms) is run again, up to TSC_RETEST_MAX times: once as
 * long (most such stalls are brief: on the host simulator under load a
 * retest at 20 ms each time cost 14.5 ms of verify per AP), then for the
 * kernel's longer duration.  Before, such a test ended the BSP's
 * correction and left an AP's verdict to the ping-pong estimate.
 */
static bool run_test(struct run *R, uint64_t cycles, struct tsc_warp_result *w)
{
	bool complete = tsc_warp_run(R->mb, cycles, w);
	uint32_t again;

	for (again = 0; complete && !tsc_plan_test_fed(w->windows, w->rounds) &&
			again < TSC_RETEST_MAX;
	     again++)
		complete = tsc_warp_run(R->mb,
					again == 0 || cycles >= R->warp_cycles
						? cycles
						: R->warp_cycles,
					w);
	return complete;
}

/*
 * The BSP's fine correction, in the pattern this tool exists for: the APs
 * agree and the BSP alone was off, so after its big move the BSP is the
 * one counter left to correct.  It is steered against the AP it aimed at,
 * with the kernel-style test (the short duration), until the verdict rule
 * calls the pair `ok`: one counter steered instead of every AP, because
 * each write can land off (under TCG hundreds of cycles; docs/DESIGN.md)
 * and every AP steered is another chance to land badly.  The same trust
 * gate as the verify: a test whose windows disagree is run again, never
 * written or learned from.  Small steps only, either way
 * (TSC_BACKWARD_CAP), at most TSC_BSP_STEER_MAX of them, and none once
 * the writes land further apart than the correction needed.  The big
 * move's own landing error (from the aimed AP's survey offset to this
 * test's) stands in until a correction's is known; the landing error
 * learned here seeds the APs'.
 */
static void bsp_fine(struct run *R, struct tsc_report_cpu *ref)
{
	const struct tsc_platform *pf = R->pf;
	struct steering S = { .steps = 0 };
	struct tsc_warp_result w;
	uint32_t retests = 0;
	bool first = true;
	int64_t delta;

	TR("bfine0", ref ? (int64_t)ref->index : -1, 0, 0);
	if (!ref || !session_open(R, ref)) {
		TR("bfine-noopen", 0, 0, 0);
		if (ref)
			session_abandon(R, ref->index);
		return;
	}
	for (;;) {
		bool complete = run_test(R, R->short_cycles, &w);

		TR("bfine-t", complete, w.windows, w.rounds);
		if (!complete || !tsc_warp_two_way(&w))
			break;
		if (!warp_trusted(R, &w)) {
			if (retests++ >= TSC_RETEST_MAX)
				break;
			continue;
		}
		TR("bfine", w.offset, w.spread, tsc_warp_floor(&w));
		TR("bfine2", w.worst, tsc_warp_margin(&w), w.windows);
		if (first)
			learn_prior(R, ref, w.offset);
		else if (S.wrote)
			learn_landing(R, &S.landing, S.requested,
				      tsc_sub_sat(S.before, w.offset));
		first = false;
		if (S.wrote && landed_worse(&w, &S)) {
			too_noisy(R, (uint64_t)tsc_abs64(w.offset));
			break;
		}
		if (warp_verdict(&w, complete) == TSC_VERDICT_OK ||
		    S.steps >= TSC_BSP_STEER_MAX)
			break;
		if (unworthy(R, &S, w.offset)) {
			too_noisy(R, unworthy(R, &S, w.offset));
			break;
		}
		/* offset = AP - BSP: the BSP moves by +offset. */
		delta = tsc_quantise(w.offset, R->tick);
		if (delta == 0 || tsc_abs64(delta) > TSC_BACKWARD_CAP)
			break;
		S.requested = delta + tsc_shortfall_comp(landing_model(R));
		S.blind = landing_model(R)->n == 0;
		S.before = w.offset;
		TR("bwrite", delta, S.requested, S.landing.n);
		tsc_write_at_edge(pf, pf->bsp, S.requested, R->tick);
		bsp_moved(R, S.requested);
		S.wrote = true;
		S.steps++;
	}
	session_close(R, ref->index);
}

/* Measures the AP in session into ap; false if it stopped answering. */
static bool remeasure(struct run *R, struct tsc_report_cpu *ap,
		      struct tsc_estimate *est)
{
	if (!measure(R, ap, est)) {
		ap->note = TSC_NOTE_NO_ANSWER;
		R->ws->usable[ap->index] = false;
		return false;
	}
	ap->final_offset = est->offset;
	ap->rtt = est->rtt;
	R->ws->stale[ap->index] = false;
	return true;
}

/*
 * The ping-pong estimate's band.  An AP written to is brought within the
 * estimate's own noise (tsc_ahead_noise) and no closer: the kernel-style
 * test in the verify sees finer and steers the rest, and every estimate
 * and write spent chasing the estimate's bias is time and landing error.
 */
static enum tsc_ap_action plan_for(const struct run *R,
				   const struct tsc_estimate *est, bool touched,
				   int64_t *delta)
{
	uint64_t band = touched ? tsc_ahead_noise(est->rtt)
				: tsc_sync_band_untouched(est->rtt, R->tick);

	return tsc_plan_ap(est->offset, band, R->tick, delta);
}

/*
 * Every correction the AP pass writes is confirmed by a second,
 * independent estimate, nothing written between (docs/DESIGN.md 3.3,
 * "Confirming corrections" and "A move on estimates that repeat").
 * The two must be the same offset seen twice (tsc_plan_repeats), or the
 * AP pass writes nothing to it (`not-converged`, the reason names it;
 * the verify's own test, behind its trust gate, may still steer it): a
 * move aimed by an estimate that does not repeat could put a counter
 * millions of cycles off, beyond what a backward step may take back.
 * And the second must call for a step in the same direction (one
 * estimate can be off by a good part of its round trip: below
 * TSC_SURVEY_NOISE that is the whole correction); the smaller step is
 * taken.
 */
static enum tsc_ap_action confirm(struct run *R, struct tsc_report_cpu *ap,
				  struct tsc_estimate *est, bool touched,
				  enum tsc_ap_action act, int64_t *delta)
{
	struct tsc_estimate again;
	enum tsc_ap_action act2;
	int64_t delta2;

	if (act != TSC_AP_FORWARD && act != TSC_AP_BACKWARD)
		return act;
	if (!remeasure(R, ap, &again))
		return TSC_AP_DONE;
	if (!tsc_plan_repeats(est->offset, est->rtt, again.offset, again.rtt,
			      R->tick)) {
		not_repeated(R, ap->index, est->offset, again.offset);
		ap->note = TSC_NOTE_NOT_CONVERGED;
		return TSC_AP_DONE;
	}
	act2 = plan_for(R, &again, touched, &delta2);
	if (act2 != act)
		return TSC_AP_DONE;
	if (tsc_abs64(delta2) < tsc_abs64(*delta)) {
		*delta = delta2;
		*est = again;
	}
	return act;
}

/* Brings one AP within the estimate's reach; returns with it measured or
 * marked. */
static void tune_ap(struct run *R, struct tsc_report_cpu *ap)
{
	struct tsc_mailbox *mb = R->mb;
	struct tsc_estimate est;
	int64_t delta, requested;
	enum tsc_ap_action act;
	bool wrote = false;
	uint32_t iter;

	for (iter = 0;; iter++) {
		if (!remeasure(R, ap, &est))
			return;
		/* Nothing is learned here: a ping-pong estimate errs by up to
		 * a quarter of its round trip (hundreds of cycles on a shared
		 * host), and one such landing taught the host simulator's run
		 * a latency of 178 cycles where writes land exactly, which the
		 * steering then added to every AP's correction. */
		TR("tune", ap->index, est.offset, est.rtt);
		act = plan_for(R, &est, wrote, &delta);
		act = confirm(R, ap, &est, wrote, act, &delta);
		if (act == TSC_AP_DONE)
			return;
		if (act == TSC_AP_TOO_FAR_BEHIND ||
		    act == TSC_AP_TOO_FAR_AHEAD) {
			ap->note = TSC_NOTE_BEYOND_CAP;
			return;
		}
		/* Leave the verify's steering a write at least. */
		if (iter == TSC_MAX_ITER ||
		    ap_writes(R, ap) + 1 >= TSC_AP_WRITES_MAX) {
			ap->note = TSC_NOTE_NOT_CONVERGED;
			return;
		}
		requested = delta + tsc_shortfall_comp(landing_model(R));
		TR("twrite", ap->index, delta, requested);
		if (!tsc_mb_write(mb, requested)) {
			ap->note = write_failure(mb);
			R->ws->stale[ap->index] = true;
			return;
		}
		R->writes++;
		wrote = true;
		R->ws->stale[ap->index] = true;
	}
}

static void ap_pass(struct run *R)
{
	uint32_t i, writes;

	for (i = 0; i < R->r->nap; i++) {
		struct tsc_report_cpu *ap = &R->r->ap[i];

		if (ap->note == TSC_NOTE_BEYOND_CAP)
			continue; /* left alone, in either direction */
		if (!tsc_plan_needs_tuning(ap->survey_offset, ap->rtt,
					   R->r->bsp_shift))
			continue; /* the verify's warp test judges it */
		if (!session_open(R, ap)) {
			R->ws->usable[ap->index] = false;
			session_abandon(R, ap->index);
			continue;
		}
		tune_ap(R, ap);
		writes = session_close(R, ap->index);
		ap->writes += writes;
		R->r->msr_writes += writes;
	}
}

/* What the kernel-style test found, into the AP's record. */
static void record_warp(struct tsc_report_cpu *ap,
			const struct tsc_warp_result *w)
{
	ap->warps_bsp = w->warps_bsp;
	ap->warps_ap = w->warps_ap;
	ap->max_warp = w->max_back;
	ap->warp_rounds = w->rounds;
	/* A starved test's offset is no kernel-style figure: the verdict
	 * falls back to what was measured before (its warps still count). */
	ap->kernel_test = tsc_plan_test_fed(w->windows, w->rounds);
	if (ap->kernel_test) {
		/* The offset and round trip the kernel's check sees. */
		ap->final_offset = w->offset;
		ap->rtt = warp_rtt(w);
		ap->margin = tsc_warp_margin(w);
		ap->spread = w->spread;
		ap->worst = w->worst;
	}
}

static enum tsc_verdict judge(const struct tsc_report_cpu *ap, bool measured,
			      bool complete)
{
	struct tsc_measurement m = {
		.measured = measured,
		.offset = ap->final_offset,
		.rtt = ap->rtt,
		.warps = ap->warps_bsp + ap->warps_ap,
		.warp_complete = complete,
		.kernel_test = ap->kernel_test,
		.spread = ap->spread,
		.worst = ap->worst,
		.margin = ap->margin,
	};
	enum tsc_verdict v = tsc_verdict_of(&m);

	/* The stage's `ok` is the kernel-style test's: a ping-pong estimate
	 * errs by up to half its round trip, and on the TSC rig a run whose
	 * tests saw too few handoffs (a starved vCPU, rtt 1400) called two
	 * APs ok from their estimates of 7 and 10 cycles while the rig's
	 * oracle had them at 53 and 33. */
	if (v == TSC_VERDICT_OK && !ap->kernel_test)
		v = TSC_VERDICT_UNSURE;
	return v;
}

/* Does this test's verdict call for a write (tsc_plan_steer)? */
static bool wants_steering(const struct run *R, const struct tsc_report_cpu *ap,
			   const struct tsc_warp_result *w,
			   const struct steering *S)
{
	bool touched = R->r->bsp_shift != 0 || ap->writes || S->steps;

	return tsc_warp_two_way(w) &&
	       tsc_plan_steer(ap->verdict, touched,
			      w->warps_bsp + w->warps_ap > 0);
}

static bool steer(struct run *R, struct tsc_report_cpu *ap,
		  const struct tsc_warp_result *w, struct steering *S)
{
	int64_t delta = tsc_sub_sat(0, tsc_quantise(w->offset, R->tick));

	if (delta == 0 || tsc_abs64(delta) > TSC_BACKWARD_CAP)
		return false;
	S->requested = delta + tsc_shortfall_comp(landing_model(R));
	S->blind = landing_model(R)->n == 0;
	S->before = w->offset;
	TR("steer", ap->index, delta, S->requested);
	if (!tsc_mb_write(R->mb, S->requested)) {
		ap->note = write_failure(R->mb);
		return false;
	}
	R->writes++;
	S->wrote = true;
	S->steps++;
	return true;
}

/* One kernel-style test into the AP's record; false if it was cut short. */
static bool test_ap(struct run *R, struct tsc_report_cpu *ap,
		    struct tsc_warp_result *w, uint64_t cycles,
		    struct steering *S)
{
	bool complete = run_test(R, cycles, w);

	record_warp(ap, w);
	TR("test", ap->index, w->offset, w->spread);
	TR("test2", w->worst, tsc_warp_margin(w), tsc_warp_floor(w));
	TR("test3", w->windows, w->rounds, 0);
	R->ws->tested_at[ap->index] = R->writes;
	/* A write is measured by the first test after it that may teach:
	 * one disturbed test must not lose it (under TCG's timing an AP's
	 * write landed 846 cycles late unlearned, and the next AP was
	 * written as blindly). */
	if (S->wrote && tsc_warp_two_way(w) && warp_trusted(R, w)) {
		learn_landing(R, &S->landing, S->requested,
			      w->offset - S->before);
		S->wrote = false;
	}
	ap->verdict = judge(ap, true, complete);
	if (!complete && ap->note == TSC_NOTE_NONE)
		ap->note = TSC_NOTE_WARP_CUT;
	return complete;
}

/*
 * The verdict always comes from a test of the kernel's own duration for
 * this AP (kernel_cycles).  In sync mode, an AP that needs moving is
 * steered with tests of the shorter duration, and where the kernel's is
 * longer a test of that length confirms the end.  At most
 * TSC_AP_WRITES_MAX writes an AP, and none once its writes land further
 * apart than the correction it needs: a write's landing error can be large
 * (under TCG hundreds of cycles, different every time; docs/DESIGN.md).
 */
static void verify_session(struct run *R, struct tsc_report_cpu *ap,
			   bool may_write)
{
	struct steering S = { .steps = 0 };
	struct tsc_warp_result w;
	uint64_t whole_cycles = kernel_cycles(R, ap);
	uint32_t retests = 0;
	bool whole = true, stuck = false, wrote;

	for (;;) {
		wrote = S.wrote;
		if (!test_ap(R, ap, &w, whole ? whole_cycles : R->short_cycles,
			     &S))
			return;
		if (tsc_warp_two_way(&w) && !warp_trusted(R, &w)) {
			/* Disturbed: test again, never write from it. */
			if (retests++ >= TSC_RETEST_MAX)
				return;
			whole = true;
			continue;
		}
		/* The BSP's big move not measured in bsp_fine (its tests
		 * disturbed): the first AP the move alone touched measures
		 * it, so that no correction is aimed blind. */
		if (R->r->bsp_shift && !R->prior.n && !R->shortfall.n &&
		    !ap->writes && !S.steps && tsc_warp_two_way(&w))
			learn_prior(R, ap, w.offset);
		if (wrote && !stuck && tsc_warp_two_way(&w) &&
		    landed_worse(&w, &S)) {
			too_noisy(R, (uint64_t)tsc_abs64(w.offset));
			stuck = true;
		}
		if (!may_write || stuck || !wants_steering(R, ap, &w, &S)) {
			if (whole)
				break;
			whole = true; /* a short test said ok: confirm */
			continue;
		}
		if (ap_writes(R, ap) >= TSC_AP_WRITES_MAX ||
		    unworthy(R, &S, w.offset)) {
			if (unworthy(R, &S, w.offset))
				too_noisy(R, unworthy(R, &S, w.offset));
			stuck = true;
			if (whole)
				break;
			whole = true; /* out of writes: the verdict */
			continue;
		}
		if (!steer(R, ap, &w, &S))
			return;
		whole = whole_cycles == R->short_cycles;
	}
	if (stuck && ap->verdict != TSC_VERDICT_OK && ap->note == TSC_NOTE_NONE)
		ap->note = TSC_NOTE_NOT_CONVERGED;
}

static void verify_ap(struct run *R, struct tsc_report_cpu *ap, bool may_write)
{
	struct tsc_estimate est;
	bool measured = false;
	uint32_t writes;

	if (R->ws->usable[ap->index] && session_open(R, ap)) {
		measured = true;
		if (R->ws->stale[ap->index]) {
			measured = measure(R, ap, &est);
			TR("vmeas", ap->index, est.offset, est.rtt);
			ap->final_offset = est.offset;
			ap->rtt = est.rtt;
		}
		if (measured)
			verify_session(R, ap, may_write);
		/* The AP pass ran out of iterations, the steering did not. */
		if (ap->note == TSC_NOTE_NOT_CONVERGED &&
		    ap->verdict == TSC_VERDICT_OK)
			ap->note = TSC_NOTE_NONE;
		writes = session_close(R, ap->index);
		ap->writes += writes;
		R->r->msr_writes += writes;
	} else if (R->ws->usable[ap->index]) {
		session_abandon(R, ap->index);
	}
	if (!measured) {
		ap->verdict = TSC_VERDICT_UNMEASURED;
		if (ap->note == TSC_NOTE_NONE)
			ap->note = TSC_NOTE_NO_ANSWER;
	}
}

static void verify(struct run *R, bool may_write)
{
	uint32_t i;

	for (i = 0; i < R->r->nap; i++) {
		struct tsc_report_cpu *ap = &R->r->ap[i];

		if (ap->note == TSC_NOTE_DISABLED)
			continue; /* stays unmeasured, and out of the result */
		verify_ap(R, ap, may_write && ap->note != TSC_NOTE_BEYOND_CAP);
	}
}

/*
 * After the last write anywhere, every AP whose test came before it is
 * tested once more, for the kernel's own duration, and that test is its
 * verdict: a counter can move after its own test (an SMT sibling sharing
 * it, a write landing late), and the kernel will see it as it is now.
 */
static void final_pass(struct run *R)
{
	struct steering none = { .steps = 0 };
	struct tsc_warp_result w;
	uint32_t i, k, writes;

	for (i = 0; i < R->r->nap; i++) {
		struct tsc_report_cpu *ap = &R->r->ap[i];

		if (ap->note == TSC_NOTE_DISABLED ||
		    ap->verdict == TSC_VERDICT_UNMEASURED ||
		    R->ws->tested_at[ap->index] == R->writes)
			continue;
		if (!session_open(R, ap)) {
			session_abandon(R, ap->index);
			ap->verdict = TSC_VERDICT_UNMEASURED;
			continue;
		}
		/* A disturbed test (windows apart) is run again, as in the
		 * verify: its verdict would only say `unsure`. */
		for (k = 0; test_ap(R, ap, &w, kernel_cycles(R, ap), &none) &&
			    tsc_warp_two_way(&w) && !warp_trusted(R, &w) &&
			    k < TSC_RETEST_MAX;
		     k++)
			;
		writes = session_close(R, ap->index);
		ap->writes += writes;
		R->r->msr_writes += writes;
	}
}

/* The APs the sync left as they are, bad by their tests but unproven
 * (tsc_plan_unproven): their note says so.  After the final pass, whose
 * tests are the verdicts. */
static void mark_unproven(struct run *R)
{
	uint32_t i;

	for (i = 0; i < R->r->nap; i++) {
		struct tsc_report_cpu *ap = &R->r->ap[i];

		if (ap->note == TSC_NOTE_NONE &&
		    tsc_plan_unproven(ap->verdict,
				      R->r->bsp_shift != 0 || ap->writes,
				      ap->warps_bsp + ap->warps_ap > 0))
			ap->note = TSC_NOTE_UNPROVEN;
	}
}

static void clause(struct tsc_buf *b, uint32_t n, const char *what)
{
	if (!n)
		return;
	tsc_buf_puts(b, b->len ? "; " : "");
	tsc_buf_u64(b, n);
	tsc_buf_puts(b, what);
}

/*
 * The result and its reason.  Disabled processors are left out (Linux
 * does not start them).  A processor that could not be measured makes the
 * result unsure at best, and out-of-sync once the BSP has moved: its
 * counter was not seen after a move of up to seconds.  Nor is a run that
 * measured only part of a larger machine ever in-sync, nor one that missed
 * a CPU the MADT lists, nor one that measured no AP at all.
 */
static void explain(struct run *R, bool wrote_nothing_by_rule)
{
	struct tsc_report *r = R->r;
	enum tsc_verdict v[TSC_MAX_CPUS];
	enum tsc_result res;
	char text[sizeof(r->reason)];
	struct tsc_buf b;
	uint32_t i, n = 0, silent = 0, far = 0, stuck = 0, off = 0,
		    unproven = 0;

	tsc_buf_init(&b, text, sizeof(text));
	if (R->too_many) {
		tsc_buf_u64(&b, R->pf->ncpus);
		tsc_buf_puts(&b, " processors, more than the stage can hold; "
				 "measured the first ");
		tsc_buf_u64(&b, R->limit);
		tsc_buf_puts(&b, " only and wrote nothing");
	}
	if (R->madt_missing) {
		tsc_buf_puts(&b, b.len ? "; the MADT lists APIC ID "
				       : "the MADT lists APIC ID ");
		tsc_buf_u64(&b, R->madt_id);
		tsc_buf_puts(&b, ", not measured");
	}
	for (i = 0; i < r->nap; i++) {
		if (r->ap[i].note == TSC_NOTE_DISABLED) {
			off++;
			continue;
		}
		v[n++] = r->ap[i].verdict;
		if (r->ap[i].verdict == TSC_VERDICT_UNMEASURED) {
			tsc_buf_puts(&b, silent++ ? ", "
					 : b.len  ? "; CPU "
						  : "CPU ");
			tsc_buf_u64(&b, r->ap[i].index);
		}
		far += r->ap[i].note == TSC_NOTE_BEYOND_CAP;
		stuck += r->ap[i].note == TSC_NOTE_NOT_CONVERGED;
		unproven += r->ap[i].note == TSC_NOTE_UNPROVEN;
	}
	if (silent)
		tsc_buf_puts(&b, r->bsp_shift ? " did not answer after the BSP "
						"moved"
					      : " did not answer");
	if (R->unsettled)
		tsc_buf_puts(&b, b.len ? "; an AP run was still outstanding"
				       : "an AP run was still outstanding");
	if (R->unrepeated) {
		tsc_buf_puts(&b, b.len ? "; CPU " : "CPU ");
		tsc_buf_u64(&b, R->unrepeated_cpu);
		tsc_buf_puts(&b, "'s estimate did not repeat (");
		tsc_buf_i64(&b, R->unrepeated_est[0]);
		tsc_buf_puts(&b, ", then ");
		tsc_buf_i64(&b, R->unrepeated_est[1]);
		tsc_buf_puts(&b, " cycles)");
	}
	if ((silent || R->unsettled || R->madt_missing || R->unrepeated) &&
	    wrote_nothing_by_rule)
		tsc_buf_puts(&b, "; no TSC was written");
	clause(&b, far, " CPU(s) further off than a write may move");
	clause(&b, stuck, " CPU(s) did not converge");
	clause(&b, unproven,
	       " CPU(s) read off with no warp seen: not written without proof");
	if (R->noisy) {
		tsc_buf_puts(&b, b.len ? "; writes landed up to "
				       : "writes landed up to ");
		tsc_buf_u64(&b, R->noise);
		tsc_buf_puts(&b, " cycles off their aim, more than the "
				 "correction left: stopped");
	}
	clause(&b, off, " CPU(s) disabled by the firmware, skipped");
	if (n == 0)
		tsc_buf_puts(&b, b.len ? "; no AP was measured"
				       : "no AP was measured");
	res = tsc_result_of(v, n);
	if (res == TSC_RESULT_UNSURE && silent && r->bsp_shift)
		res = TSC_RESULT_OUT_OF_SYNC;
	if (res == TSC_RESULT_IN_SYNC && (R->too_many || R->madt_missing))
		res = TSC_RESULT_UNSURE;
	tsc_report_set_result(r, res, b.len ? text : 0);
}

/*
 * Linux starts every CPU the ACPI MADT lists as enabled, whatever MP
 * services said: one the survey did not measure blocks every write.
 */
static bool madt_complete(struct run *R)
{
	const struct tsc_madt *m = R->pf->madt ? R->pf->madt(R->pf->ctx) : 0;
	uint32_t ids[TSC_MAX_CPUS], n = 0, i;

	if (!m)
		return true;
	ids[n++] = R->r->bsp_apic_id;
	for (i = 0; i < R->r->nap && n < TSC_MAX_CPUS; i++)
		if (R->ws->usable[R->r->ap[i].index])
			ids[n++] = R->r->ap[i].apic_id;
	R->madt_missing = tsc_madt_missing(m, ids, n, &R->madt_id);
	return !R->madt_missing;
}

void tsc_run(const struct tsc_platform *pf, const struct tsc_run_params *p,
	     struct tsc_workspace *ws, struct tsc_report *r)
{
	struct run R = { .pf = pf, .p = p, .ws = ws, .r = r };
	struct tsc_report_cpu *aim = NULL;
	int64_t target = 0;
	uint64_t t_start, t, per_us;
	bool sync = p->mode == TSC_MODE_SYNC && pf->write;
	bool blocked = false;
	uint32_t i;

	/* State exists for TSC_MAX_CPUS processors: a larger machine is
	 * measured as far as that goes, and nothing is written (a plan that
	 * leaves CPUs unseen could move the BSP away from them). */
	R.limit = pf->ncpus < TSC_MAX_CPUS ? pf->ncpus : TSC_MAX_CPUS;
	R.too_many = pf->ncpus > TSC_MAX_CPUS;
	if (R.too_many)
		sync = false;

	R.timeout_cycles = p->answer_timeout_us * (pf->tsc_hz / 1000000);
	if (R.timeout_cycles == 0)
		R.timeout_cycles = p->answer_timeout_us * 1000;
	per_us = pf->tsc_hz ? pf->tsc_hz / 1000000 : 1000;
	R.warp_cycles = p->warp_us * per_us;
	R.short_cycles = (p->warp_shared_us && p->warp_shared_us < p->warp_us
				  ? p->warp_shared_us
				  : p->warp_us) *
			 per_us;
	R.tick = 0;
	r->nap = 0;
	r->ncpus = pf->ncpus;
	r->bsp_index = pf->bsp;
	r->bsp_apic_id = pf->apic_id ? pf->apic_id(pf->ctx, pf->bsp) : pf->bsp;
	r->tsc_hz = pf->tsc_hz;
	for (i = 0; i < TSC_MAX_CPUS; i++) {
		ws->usable[i] = false;
		ws->stale[i] = false;
		ws->outstanding[i] = false;
		ws->tested_at[i] = 0;
	}

	t_start = t = bsp_now(&R);
	survey(&R);
	if (R.tick == 0)
		R.tick = 1;
	r->phase_us[TSC_PHASE_SURVEY] = cycles_to_us(&R, bsp_now(&R) - t);

	if (sync && !all_measured(&R))
		blocked = true;
	if (!madt_complete(&R))
		blocked = true;
	t = bsp_now(&R);
	if (sync && !blocked && !plan_bsp(&R, &aim, &target))
		blocked = true;
	/* The guard's markers durable before the first write (platform.h). */
	if (sync && !blocked && pf->flush)
		pf->flush(pf->ctx);
	/* No AP run may be outstanding across the BSP's move (platform.h). */
	if (sync && !blocked && pf->settle && !pf->settle(pf->ctx)) {
		blocked = true;
		R.unsettled = true;
	}
	if (sync && !blocked) {
		if (aim)
			move_bsp(&R, target);
		bsp_fine(&R, aim);
		r->phase_us[TSC_PHASE_BSP] = cycles_to_us(&R, bsp_now(&R) - t);
		t = bsp_now(&R);
		ap_pass(&R);
		r->phase_us[TSC_PHASE_AP_PASS] =
			cycles_to_us(&R, bsp_now(&R) - t);
	}
	t = bsp_now(&R);
	verify(&R, sync && !blocked);
	if (R.writes)
		final_pass(&R);
	if (sync && !blocked)
		mark_unproven(&R);
	r->phase_us[TSC_PHASE_VERIFY] = cycles_to_us(&R, bsp_now(&R) - t);
	r->total_us = cycles_to_us(&R, bsp_now(&R) - t_start);
	r->tick = R.tick;

	if (pf->true_offset)
		for (i = 0; i < r->nap; i++)
			r->ap[i].has_true_offset = pf->true_offset(
				pf->ctx, r->ap[i].index, &r->ap[i].true_offset);
	explain(&R, blocked);
}

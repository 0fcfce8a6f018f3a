/* SPDX-License-Identifier: MIT */
#include "driver.h"
#include "fmt.h"
#include "verdict.h"

/* 100 ms: MP services start an AP in well under a millisecond, and a ping
 * round trip is a microsecond; an AP silent this long is not coming. */
#define TSC_ANSWER_TIMEOUT_US 100000

void tsc_run_params_default(struct tsc_run_params *p, enum tsc_mode mode)
{
	p->mode = mode;
	p->est = tsc_est_adaptive;
	p->warp_us = TSC_WARP_US;
	p->answer_timeout_us = TSC_ANSWER_TIMEOUT_US;
}

struct run {
	const struct tsc_platform *pf;
	const struct tsc_run_params *p;
	struct tsc_workspace *ws;
	struct tsc_report *r;
	uint64_t timeout_cycles;
	uint64_t warp_cycles;
	uint64_t tick;
	uint64_t added; /* cycles deliberately added to the BSP's counter */
	struct tsc_shortfall shortfall;
	uint32_t limit; /* processors 0..limit-1 have state (TSC_MAX_CPUS) */
	bool too_many;	/* more processors than that: measure only */
	bool unsettled; /* an AP run was outstanding before the BSP's move */
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
	uint32_t steps;
};

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
	struct tsc_mailbox *mb = &R->ws->mb;
	struct tsc_ticket *t = &R->ws->ticket[ap->index];
	enum tsc_ap_note why = TSC_NOTE_NO_ANSWER;

	tsc_mb_reset(mb, R->pf, t, ap->index, R->timeout_cycles, R->tick);
	if (R->pf->start(R->pf->ctx, ap->index, tsc_responder, t) != 0) {
		why = TSC_NOTE_START_FAILED;
	} else {
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
	tsc_mb_post_exit(&R->ws->mb);
	R->pf->join(R->pf->ctx, cpu, 0);
}

static uint32_t session_close(struct run *R, uint32_t cpu)
{
	struct tsc_mailbox *mb = &R->ws->mb;

	tsc_mb_exit(mb);
	quiet(R, false);
	R->pf->join(R->pf->ctx, cpu, R->p->answer_timeout_us);
	return atomic_load(&mb->writes);
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
		if (!tsc_mb_ping(&R->ws->mb, &t0, &a, &t2)) {
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

/* Moves the BSP forward by the plan; returns the AP it aimed at (the
 * median, or the furthest ahead), or NULL when it did not move. */
static struct tsc_report_cpu *move_bsp(struct run *R)
{
	const struct tsc_platform *pf = R->pf;
	bool reachable[TSC_MAX_CPUS];
	int64_t offs[TSC_MAX_CPUS], target, shift;
	uint64_t rtts[TSC_MAX_CPUS];
	enum tsc_bsp_rule rule;
	uint32_t i;

	for (i = 0; i < R->r->nap; i++) {
		offs[i] = R->r->ap[i].survey_offset;
		rtts[i] = R->r->ap[i].rtt;
		reachable[i] = tsc_plan_reachable(offs[i]);
		if (!reachable[i])
			R->r->ap[i].note = TSC_NOTE_BEYOND_CAP;
	}
	target = tsc_plan_bsp(offs, rtts, reachable, R->r->nap, &rule);
	if (target <= 0)
		return NULL;
	shift = tsc_quantise(target, R->tick);
	quiet(R, true);
	tsc_write_at_edge(pf, pf->bsp, shift, R->tick);
	quiet(R, false);
	bsp_moved(R, shift);
	/* Every offset changed: the verify measures each one afresh. */
	for (i = 0; i < R->r->nap; i++)
		R->ws->stale[R->r->ap[i].index] = true;
	for (i = 0; i < R->r->nap; i++)
		if (reachable[i] && offs[i] == target)
			return &R->r->ap[i];
	return NULL;
}

/*
 * The BSP's fine correction, in the pattern this tool exists for: the APs
 * agree and the BSP alone was off, so after its big move the BSP is the
 * one counter left to correct.  It is steered against the AP it aimed at,
 * with the kernel-style test (short runs), until that test calls the pair
 * `ok`: one counter steered instead of every AP, because each write can
 * land hundreds of cycles off (under TCG; docs/DESIGN.md) and every AP
 * steered is another chance to land badly.  Small steps only, either way
 * (TSC_BACKWARD_CAP).  The landing error learned here seeds the APs'.
 */
static void bsp_fine(struct run *R, struct tsc_report_cpu *ref)
{
	const struct tsc_platform *pf = R->pf;
	struct steering S = { .steps = 0 };
	struct tsc_warp_result w;
	int64_t delta;

	if (!ref || !session_open(R, ref)) {
		if (ref)
			session_abandon(R, ref->index);
		return;
	}
	for (;;) {
		if (!tsc_warp_run(&R->ws->mb, R->warp_cycles / 4, &w) ||
		    !tsc_warp_two_way(&w))
			break;
		if (S.wrote)
			tsc_shortfall_learn(&S.landing, S.requested,
					    tsc_sub_sat(S.before, w.offset));
		if ((uint64_t)tsc_abs64(w.offset) <=
			    tsc_warp_ok_limit((uint64_t)tsc_warp_floor(&w)) ||
		    S.steps >= TSC_STEER_MAX)
			break;
		/* offset = AP - BSP: the BSP moves by +offset. */
		delta = tsc_quantise(w.offset, R->tick);
		if (tsc_abs64(delta) > TSC_BACKWARD_CAP)
			break;
		S.requested = delta + tsc_shortfall_comp(&S.landing);
		S.before = w.offset;
		tsc_write_at_edge(pf, pf->bsp, S.requested, R->tick);
		bsp_moved(R, S.requested);
		S.wrote = true;
		S.steps++;
	}
	session_close(R, ref->index);
	if (R->shortfall.n == 0)
		R->shortfall = S.landing;
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

static enum tsc_ap_action plan_for(const struct run *R,
				   const struct tsc_estimate *est, bool touched,
				   int64_t *delta)
{
	uint64_t band = touched ? tsc_sync_band(est->rtt, R->tick)
				: tsc_sync_band_untouched(est->rtt, R->tick);

	return tsc_plan_ap(est->offset, band, R->tick, delta);
}

/*
 * A small correction must be confirmed: one estimate can be off by a good
 * part of its round trip (docs/DESIGN.md, "Confirming small corrections"),
 * so below TSC_SURVEY_NOISE a second, independent estimate must call for a
 * step in the same direction, and the smaller step is taken.
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
	if (tsc_abs64(est->offset) > TSC_SURVEY_NOISE)
		return act;
	if (!remeasure(R, ap, &again))
		return TSC_AP_DONE;
	act2 = plan_for(R, &again, touched, &delta2);
	if (act2 != act)
		return TSC_AP_DONE;
	if (tsc_abs64(delta2) < tsc_abs64(*delta)) {
		*delta = delta2;
		*est = again;
	}
	return act;
}

/* Brings one AP into the band; returns with it measured or marked. */
static void tune_ap(struct run *R, struct tsc_report_cpu *ap)
{
	struct tsc_mailbox *mb = &R->ws->mb;
	struct tsc_estimate est;
	int64_t delta, requested = 0, before = 0;
	enum tsc_ap_action act;
	bool learn_bsp = R->r->bsp_shift != 0, wrote = false;
	uint32_t iter;

	for (iter = 0;; iter++) {
		if (!remeasure(R, ap, &est))
			return;
		if (learn_bsp) {
			/* The BSP's write moved every AP's offset down. */
			tsc_shortfall_learn(&R->shortfall, R->r->bsp_shift,
					    ap->survey_offset - est.offset);
			learn_bsp = false;
		}
		if (wrote)
			tsc_shortfall_learn(&R->shortfall, requested,
					    est.offset - before);
		act = plan_for(R, &est, wrote, &delta);
		act = confirm(R, ap, &est, wrote, act, &delta);
		if (act == TSC_AP_DONE)
			return;
		if (act == TSC_AP_TOO_FAR_BEHIND ||
		    act == TSC_AP_TOO_FAR_AHEAD) {
			ap->note = TSC_NOTE_BEYOND_CAP;
			return;
		}
		if (iter == TSC_MAX_ITER) {
			ap->note = TSC_NOTE_NOT_CONVERGED;
			return;
		}
		requested = delta + tsc_shortfall_comp(&R->shortfall);
		before = est.offset;
		if (!tsc_mb_write(mb, requested)) {
			ap->note = write_failure(mb);
			R->ws->stale[ap->index] = true;
			return;
		}
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
	ap->kernel_test = tsc_warp_two_way(w);
	if (ap->kernel_test) {
		/* The offset and round trip the kernel's check sees. */
		ap->final_offset = w->offset;
		ap->rtt = (uint64_t)tsc_warp_floor(w) * 2u;
		ap->margin = tsc_warp_margin(w);
		ap->spread = w->spread;
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
	};

	return tsc_verdict_of(&m);
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
	S->requested = delta + tsc_shortfall_comp(S->landing.n ? &S->landing
							       : &R->shortfall);
	S->before = w->offset;
	if (!tsc_mb_write(&R->ws->mb, S->requested)) {
		ap->note = write_failure(&R->ws->mb);
		return false;
	}
	S->wrote = true;
	S->steps++;
	return true;
}

/* The test's windows agree: its offset may steer and teach. */
static bool warp_trusted(const struct tsc_warp_result *w)
{
	int64_t floor = tsc_warp_floor(w);

	return tsc_plan_offset_trusted(w->spread,
				       floor > 0 ? (uint64_t)floor : 0);
}

/* One kernel-style test into the AP's record; false if it was cut short. */
static bool test_ap(struct run *R, struct tsc_report_cpu *ap,
		    struct tsc_warp_result *w, uint64_t cycles,
		    struct steering *S)
{
	bool complete = tsc_warp_run(&R->ws->mb, cycles, w);

	record_warp(ap, w);
	if (S->wrote && tsc_warp_two_way(w) && warp_trusted(w))
		tsc_shortfall_learn(&S->landing, S->requested,
				    w->offset - S->before);
	S->wrote = false;
	ap->verdict = judge(ap, true, complete);
	if (!complete && ap->note == TSC_NOTE_NONE)
		ap->note = TSC_NOTE_WARP_CUT;
	return complete;
}

/*
 * The verdict always comes from a whole test (TSC_WARP_US).  In sync mode,
 * an AP that needs moving is steered with short tests (a quarter as long),
 * and once a short one calls it `ok` a whole test confirms it; the steps
 * are bounded by TSC_STEER_MAX.  Short tests because a write's landing
 * error can be large: under TCG, hundreds of cycles and different every
 * time (docs/DESIGN.md), so several tries may be needed.
 */
static void verify_session(struct run *R, struct tsc_report_cpu *ap,
			   bool may_write)
{
	struct steering S = { .steps = 0 };
	struct tsc_warp_result w;
	uint32_t retests = 0;
	bool whole = true;

	for (;;) {
		if (!test_ap(R, ap, &w,
			     whole ? R->warp_cycles : R->warp_cycles / 4, &S))
			return;
		if (tsc_warp_two_way(&w) && !warp_trusted(&w)) {
			/* Disturbed: test again, never write from it. */
			if (retests++ >= TSC_RETEST_MAX)
				return;
			whole = true;
			continue;
		}
		if (!may_write || !wants_steering(R, ap, &w, &S)) {
			if (whole)
				return;
			whole = true; /* a short test said ok: confirm */
			continue;
		}
		if (S.steps >= TSC_STEER_MAX) {
			if (whole)
				return;
			whole = true; /* out of steps: the verdict */
			continue;
		}
		if (!steer(R, ap, &w, &S))
			return;
		whole = false;
	}
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
 * measured only part of a larger machine ever in-sync.
 */
static void explain(struct run *R, bool wrote_nothing_by_rule)
{
	struct tsc_report *r = R->r;
	enum tsc_verdict v[TSC_MAX_CPUS];
	enum tsc_result res;
	char text[sizeof(r->reason)];
	struct tsc_buf b;
	uint32_t i, n = 0, silent = 0, far = 0, stuck = 0, off = 0;

	tsc_buf_init(&b, text, sizeof(text));
	if (R->too_many) {
		tsc_buf_u64(&b, R->pf->ncpus);
		tsc_buf_puts(&b, " processors, more than the stage can hold; "
				 "measured the first ");
		tsc_buf_u64(&b, R->limit);
		tsc_buf_puts(&b, " only and wrote nothing");
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
	}
	if (silent)
		tsc_buf_puts(&b, r->bsp_shift ? " did not answer after the BSP "
						"moved"
					      : " did not answer");
	if (R->unsettled)
		tsc_buf_puts(&b, b.len ? "; an AP run was still outstanding"
				       : "an AP run was still outstanding");
	if ((silent || R->unsettled) && wrote_nothing_by_rule)
		tsc_buf_puts(&b, "; no TSC was written");
	clause(&b, far, " CPU(s) further off than a write may move");
	clause(&b, stuck, " CPU(s) did not converge");
	clause(&b, off, " CPU(s) disabled by the firmware, skipped");
	res = tsc_result_of(v, n);
	if (res == TSC_RESULT_UNSURE && silent && r->bsp_shift)
		res = TSC_RESULT_OUT_OF_SYNC;
	if (res == TSC_RESULT_IN_SYNC && R->too_many)
		res = TSC_RESULT_UNSURE;
	tsc_report_set_result(r, res, b.len ? text : 0);
}

void tsc_run(const struct tsc_platform *pf, const struct tsc_run_params *p,
	     struct tsc_workspace *ws, struct tsc_report *r)
{
	struct run R = { .pf = pf, .p = p, .ws = ws, .r = r };
	uint64_t t_start, t;
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
	R.warp_cycles = p->warp_us * (pf->tsc_hz ? pf->tsc_hz / 1000000 : 1000);
	R.tick = 0;
	r->nap = 0;
	r->ncpus = pf->ncpus;
	r->bsp_index = pf->bsp;
	r->bsp_apic_id = pf->apic_id ? pf->apic_id(pf->ctx, pf->bsp) : pf->bsp;
	r->tsc_hz = pf->tsc_hz;
	for (i = 0; i < TSC_MAX_CPUS; i++) {
		ws->usable[i] = false;
		ws->stale[i] = false;
	}

	t_start = t = bsp_now(&R);
	survey(&R);
	if (R.tick == 0)
		R.tick = 1;
	r->phase_us[TSC_PHASE_SURVEY] = cycles_to_us(&R, bsp_now(&R) - t);

	if (sync && !all_measured(&R))
		blocked = true;
	/* No AP run may be outstanding across the BSP's move (platform.h). */
	if (sync && !blocked && pf->settle && !pf->settle(pf->ctx)) {
		blocked = true;
		R.unsettled = true;
	}
	if (sync && !blocked) {
		t = bsp_now(&R);
		bsp_fine(&R, move_bsp(&R));
		r->phase_us[TSC_PHASE_BSP] = cycles_to_us(&R, bsp_now(&R) - t);
		t = bsp_now(&R);
		ap_pass(&R);
		r->phase_us[TSC_PHASE_AP_PASS] =
			cycles_to_us(&R, bsp_now(&R) - t);
	}
	t = bsp_now(&R);
	verify(&R, sync && !blocked);
	r->phase_us[TSC_PHASE_VERIFY] = cycles_to_us(&R, bsp_now(&R) - t);
	r->total_us = cycles_to_us(&R, bsp_now(&R) - t_start);
	r->tick = R.tick;

	if (pf->true_offset)
		for (i = 0; i < r->nap; i++)
			r->ap[i].has_true_offset = pf->true_offset(
				pf->ctx, r->ap[i].index, &r->ap[i].true_offset);
	explain(&R, blocked);
}

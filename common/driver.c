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
	p->warp_rounds = TSC_WARP_ROUNDS;
	p->answer_timeout_us = TSC_ANSWER_TIMEOUT_US;
}

struct run {
	const struct tsc_platform *pf;
	const struct tsc_run_params *p;
	struct tsc_workspace *ws;
	struct tsc_report *r;
	uint64_t timeout_cycles;
	uint64_t tick;
	uint64_t added; /* cycles deliberately added to the BSP's counter */
	struct tsc_shortfall shortfall;
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

/* Starts the responder; on success the BSP is quiet until session_close. */
static bool session_open(struct run *R, uint32_t cpu)
{
	struct tsc_mailbox *mb = &R->ws->mb;

	tsc_mb_reset(mb, R->pf, cpu, R->timeout_cycles, R->tick);
	if (R->pf->start(R->pf->ctx, cpu, tsc_responder, mb) != 0)
		return false;
	if (!tsc_mb_wait_started(mb, R->timeout_cycles))
		return false;
	quiet(R, true);
	return true;
}

/*
 * For an AP that never started: leave an EXIT waiting in the mailbox (should
 * it start late, it leaves at once) and do not wait for an answer.
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

	for (cpu = 0; cpu < pf->ncpus && r->nap < TSC_MAX_CPUS; cpu++) {
		struct tsc_report_cpu *ap;

		if (cpu == pf->bsp)
			continue;
		ap = &r->ap[r->nap++];
		*ap = (struct tsc_report_cpu){ .index = cpu };
		ap->apic_id = pf->apic_id ? pf->apic_id(pf->ctx, cpu) : cpu;
		R->ws->usable[cpu] = false;
		if (!session_open(R, cpu)) {
			ap->note = TSC_NOTE_NO_ANSWER;
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
		if (!R->ws->usable[R->r->ap[i].index])
			return false;
	return true;
}

static void move_bsp(struct run *R)
{
	const struct tsc_platform *pf = R->pf;
	bool reachable[TSC_MAX_CPUS];
	int64_t offs[TSC_MAX_CPUS], shift;
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
	shift = tsc_plan_bsp(offs, rtts, reachable, R->r->nap, &rule);
	if (shift <= 0)
		return;
	shift = tsc_quantise(shift, R->tick);
	quiet(R, true);
	tsc_write_at_edge(pf, pf->bsp, shift, R->tick);
	quiet(R, false);
	R->added += (uint64_t)shift;
	R->r->bsp_shift += shift;
	R->r->msr_writes++;
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
		if (act == TSC_AP_TOO_FAR_BEHIND || act == TSC_AP_TOO_FAR_AHEAD) {
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
			ap->note = TSC_NOTE_NO_ANSWER;
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
		if (!session_open(R, ap->index)) {
			ap->note = TSC_NOTE_NO_ANSWER;
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

static void verify(struct run *R)
{
	struct tsc_warp_result w;
	struct tsc_estimate est;
	uint32_t i;

	for (i = 0; i < R->r->nap; i++) {
		struct tsc_report_cpu *ap = &R->r->ap[i];
		struct tsc_measurement m = { 0 };

		bool opened = R->ws->usable[ap->index] &&
			      session_open(R, ap->index);

		if (opened) {
			m.measured = true;
			if (R->ws->stale[ap->index]) {
				m.measured = measure(R, ap, &est);
				ap->final_offset = est.offset;
				ap->rtt = est.rtt;
			}
			if (m.measured) {
				m.warp_complete = tsc_warp_run(
					&R->ws->mb, R->p->warp_rounds, &w);
				ap->warps_bsp = w.warps_bsp;
				ap->warps_ap = w.warps_ap;
				ap->max_warp = w.max_back;
				ap->warp_rounds = w.rounds;
				if (!m.warp_complete &&
				    ap->note == TSC_NOTE_NONE)
					ap->note = TSC_NOTE_WARP_CUT;
			}
			session_close(R, ap->index);
		} else if (R->ws->usable[ap->index]) {
			session_abandon(R, ap->index);
		}
		m.offset = ap->final_offset;
		m.rtt = ap->rtt;
		m.warps = ap->warps_bsp + ap->warps_ap;
		ap->verdict = tsc_verdict_of(&m);
		if (!m.measured && ap->note == TSC_NOTE_NONE)
			ap->note = TSC_NOTE_NO_ANSWER;
	}
}

static void explain(struct run *R, bool wrote_nothing_by_rule)
{
	struct tsc_report *r = R->r;
	enum tsc_verdict v[TSC_MAX_CPUS];
	char text[sizeof(r->reason)];
	struct tsc_buf b;
	uint32_t i, silent = 0, far = 0, stuck = 0;

	tsc_buf_init(&b, text, sizeof(text));
	for (i = 0; i < r->nap; i++) {
		v[i] = r->ap[i].verdict;
		if (r->ap[i].verdict == TSC_VERDICT_UNMEASURED) {
			tsc_buf_puts(&b, silent++ ? ", " : "CPU ");
			tsc_buf_u64(&b, r->ap[i].index);
		}
		far += r->ap[i].note == TSC_NOTE_BEYOND_CAP;
		stuck += r->ap[i].note == TSC_NOTE_NOT_CONVERGED;
	}
	if (silent)
		tsc_buf_puts(&b, " did not answer");
	if (silent && wrote_nothing_by_rule)
		tsc_buf_puts(&b, "; no TSC was written");
	if (far) {
		tsc_buf_puts(&b, b.len ? "; " : "");
		tsc_buf_u64(&b, far);
		tsc_buf_puts(&b, " CPU(s) further off than a write may move");
	}
	if (stuck) {
		tsc_buf_puts(&b, b.len ? "; " : "");
		tsc_buf_u64(&b, stuck);
		tsc_buf_puts(&b, " CPU(s) did not converge");
	}
	tsc_report_set_result(r, tsc_result_of(v, r->nap), b.len ? text : 0);
}

void tsc_run(const struct tsc_platform *pf, const struct tsc_run_params *p,
	     struct tsc_workspace *ws, struct tsc_report *r)
{
	struct run R = { .pf = pf, .p = p, .ws = ws, .r = r };
	uint64_t t_start, t;
	bool sync = p->mode == TSC_MODE_SYNC && pf->write;
	bool blocked = false;
	uint32_t i;

	R.timeout_cycles = p->answer_timeout_us * (pf->tsc_hz / 1000000);
	if (R.timeout_cycles == 0)
		R.timeout_cycles = p->answer_timeout_us * 1000;
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
	if (sync && !blocked) {
		t = bsp_now(&R);
		move_bsp(&R);
		r->phase_us[TSC_PHASE_BSP] = cycles_to_us(&R, bsp_now(&R) - t);
		t = bsp_now(&R);
		ap_pass(&R);
		r->phase_us[TSC_PHASE_AP_PASS] =
			cycles_to_us(&R, bsp_now(&R) - t);
	}
	t = bsp_now(&R);
	verify(&R);
	r->phase_us[TSC_PHASE_VERIFY] = cycles_to_us(&R, bsp_now(&R) - t);
	r->total_us = cycles_to_us(&R, bsp_now(&R) - t_start);
	r->tick = R.tick;

	if (pf->true_offset)
		for (i = 0; i < r->nap; i++)
			r->ap[i].has_true_offset = pf->true_offset(
				pf->ctx, r->ap[i].index, &r->ap[i].true_offset);
	explain(&R, blocked);
}

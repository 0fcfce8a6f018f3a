/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "sample.h"
#include "survey.h"

/* Clock cost changes only with the clocksource: every 30 surveys. */
#define COST_EVERY 30

struct engine {
	struct engine_config cfg;
	char simulate[1024];
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	/* Set with stop, read without the lock: a wait for the reference's
	 * edge (up to seconds) gives up at once (reftick.cancel). */
	atomic_bool cancel;
	struct engine_snapshot snap;
	struct tsc_report report; /* the worker's own */
	struct sampler sampler;	  /* the worker's; the rate is copied out */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

enum tsc_verdict engine_worst_verdict(const enum tsc_verdict *v, unsigned n)
{
	enum tsc_verdict w = TSC_VERDICT_UNMEASURED;
	unsigned i;

	/* The enum runs unmeasured, ok, unsure, bad: worse is larger. */
	for (i = 0; i < n; i++)
		if (v[i] > w)
			w = v[i];
	return w;
}

/* Folds a finished survey into the snapshot (lock held). */
static void publish(struct engine *e, double ms)
{
	struct engine_snapshot *s = &e->snap;
	uint32_t i;

	s->surveys++;
	s->survey_ms = ms;
	s->rate = e->sampler.rate;
	s->ncores = e->report.nap;
	for (i = 0; i < e->report.nap; i++) {
		const struct tsc_report_cpu *c = &e->report.ap[i];
		struct engine_core *k = &s->cores[i];

		if (k->cpu != c->index)
			memset(k, 0, sizeof(*k));
		k->cpu = c->index;
		k->measured = c->verdict != TSC_VERDICT_UNMEASURED;
		k->offset = c->final_offset;
		k->offset_ns = survey_cycles_ns(c->final_offset, &e->report);
		k->rtt = c->rtt;
		k->warps_bsp = c->warps_bsp;
		k->warps_ap = c->warps_ap;
		k->max_warp = c->max_warp;
		k->verdict = c->verdict;
		if (k->nverdicts == ENGINE_VERDICTS) {
			memmove(k->verdicts, k->verdicts + 1,
				sizeof(k->verdicts[0]) * (ENGINE_VERDICTS - 1));
			k->nverdicts--;
		}
		k->verdicts[k->nverdicts++] = c->verdict;
		/* A core that stopped answering says so at once. */
		k->shown = c->verdict == TSC_VERDICT_UNMEASURED
				   ? c->verdict
				   : engine_worst_verdict(k->verdicts,
							  k->nverdicts);
		k->note = c->note;
		k->kernel_test = c->kernel_test;
		k->spread = c->spread;
		k->worst = c->worst;
		k->margin = c->margin;
		if (k->nhist == ENGINE_HISTORY) {
			memmove(k->hist, k->hist + 1,
				sizeof(k->hist[0]) * (ENGINE_HISTORY - 1));
			k->nhist--;
		}
		k->hist[k->nhist++] = c->final_offset;
	}
}

static void *worker(void *arg)
{
	struct engine *e = arg;
	struct timespec until;
	struct clockcost cost;
	const char *err;
	double t0;
	int rc;

	for (;;) {
		pthread_mutex_lock(&e->lock);
		e->snap.busy = !e->stop;
		pthread_mutex_unlock(&e->lock);
		if (e->stop)
			break;
		t0 = now_ms();
		rc = sampler_survey(&e->sampler, &err);
		if (e->cfg.extra_ms)
			usleep(e->cfg.extra_ms * 1000u);
		pthread_mutex_lock(&e->lock);
		if (rc == 0)
			publish(e, now_ms() - t0);
		else
			snprintf(e->snap.error, sizeof(e->snap.error), "%s",
				 err);
		e->snap.busy = false;
		pthread_mutex_unlock(&e->lock);
		/* The survey is out before the wait for the reference's
		 * edge (up to a second). */
		sampler_tick(&e->sampler);
		pthread_mutex_lock(&e->lock);
		e->snap.rate = e->sampler.rate;
		/* The RTC may have turned out to be polled. */
		e->snap.ref = e->sampler.ref.kind;
		snprintf(e->snap.ref_why, sizeof(e->snap.ref_why), "%s",
			 e->sampler.ref.why);
		pthread_mutex_unlock(&e->lock);
		if (e->snap.surveys % COST_EVERY == 1 &&
		    clockcost_measure(50000, &cost) == 0) {
			pthread_mutex_lock(&e->lock);
			e->snap.cost = cost;
			e->snap.cost_valid = true;
			pthread_mutex_unlock(&e->lock);
		}
		/* Wait for the interval, a poke, or stop. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)e->cfg.interval_s;
		until.tv_nsec += (long)((e->cfg.interval_s -
					 (double)(time_t)e->cfg.interval_s) *
					1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&e->lock);
		while (!e->stop && pthread_cond_timedwait(&e->wake, &e->lock,
							  &until) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&e->lock);
	}
	return NULL;
}

struct engine *engine_start(const struct engine_config *c)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->cfg = *c;
	if (c->simulate) {
		snprintf(e->simulate, sizeof(e->simulate), "%s", c->simulate);
		e->cfg.simulate = e->simulate;
	}
	if (e->cfg.interval_s <= 0)
		e->cfg.interval_s = 2;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->wake, NULL);
	sampler_open(&e->sampler, e->cfg.simulate, c->kernel_mhz,
		     c->clocksource, &e->report);
	e->sampler.ref.cancel = &e->cancel;
	e->snap.rate = e->sampler.rate;
	e->snap.ref = e->sampler.ref.kind;
	snprintf(e->snap.ref_why, sizeof(e->snap.ref_why), "%s",
		 e->sampler.ref.why);
	if (pthread_create(&e->thread, NULL, worker, e) != 0) {
		sampler_close(&e->sampler);
		free(e);
		return NULL;
	}
	return e;
}

void engine_snapshot(struct engine *e, struct engine_snapshot *out)
{
	pthread_mutex_lock(&e->lock);
	*out = e->snap;
	pthread_mutex_unlock(&e->lock);
}

void engine_stop(struct engine *e)
{
	if (!e)
		return;
	atomic_store(&e->cancel, true);
	pthread_mutex_lock(&e->lock);
	e->stop = true;
	pthread_cond_signal(&e->wake);
	pthread_mutex_unlock(&e->lock);
	pthread_join(e->thread, NULL);
	sampler_close(&e->sampler);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->wake);
	free(e);
}

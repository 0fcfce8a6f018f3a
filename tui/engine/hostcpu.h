/* SPDX-License-Identifier: MIT */
/*
 * The common/ platform on Linux: each virtual CPU is a thread pinned to a
 * real core, and its TSC is the real TSC plus a virtual offset
 * (ARCHITECTURE 4.4).  A write changes only the virtual offset, so the host
 * simulator runs the real sync driver without touching a real MSR; the live
 * engine uses the same platform read-only, with zero offsets unless
 * --simulate gives some.
 */
#ifndef TSCTUI_ENGINE_HOSTCPU_H
#define TSCTUI_ENGINE_HOSTCPU_H

#include <pthread.h>
#include <stdatomic.h>

#include "../../common/options.h"
#include "../../common/platform.h"

/* What a started thread runs: one per virtual CPU. */
struct hostcpu_start {
	struct hostcpu *h;
	uint32_t cpu;
	void (*fn)(void *);
	void *arg;
	/* sim.late: run fn only once a later start has happened (the BSP's
	 * next session) or after HOSTCPU_LATE_MAX_MS. */
	bool late;
	uint32_t after;
};

struct hostcpu {
	uint32_t ncpus;
	int phys[TSC_MAX_CPUS]; /* real core each virtual CPU runs on */
	_Atomic int64_t virt[TSC_MAX_CPUS];
	bool dead[TSC_MAX_CPUS];
	uint8_t late_from[TSC_MAX_CPUS]; /* sim.late: from this start on */
	uint32_t nstart[TSC_MAX_CPUS];	 /* starts of each virtual CPU */
	_Atomic uint32_t starts_total;
	/* Writes each virtual CPU's own thread carried out (a write lands on
	 * the CPU that executes it, as a WRMSR does). */
	_Atomic uint32_t executed[TSC_MAX_CPUS];
	pthread_t thread[TSC_MAX_CPUS];
	struct hostcpu_start starts[TSC_MAX_CPUS];
	bool running[TSC_MAX_CPUS];
	uint32_t jitter;
	struct tsc_rng rng;
	pthread_mutex_t rng_lock;
	_Atomic uint32_t writes;
	uint64_t tsc_hz;
};

/*
 * Sets up ncpus virtual CPUs on the cores this process may run on; the
 * offsets, dead APs and jitter come from opts (may be NULL).  Fails (with
 * *err) when fewer than two cores are available: a responder and the BSP
 * spinning on one core would only measure the scheduler.
 */
int hostcpu_init(struct hostcpu *h, uint32_t ncpus,
		 const struct tsc_options *opts, uint64_t seed,
		 const char **err);
/* Fills pf; writable selects whether pf->write is set. */
void hostcpu_platform(struct hostcpu *h, struct tsc_platform *pf, bool writable,
		      bool ground_truth);
/* Pins the calling thread to the BSP's core; 0 on success. */
int hostcpu_pin_bsp(struct hostcpu *h);
/* TSC frequency from CLOCK_MONOTONIC_RAW over a short interval. */
uint64_t hostcpu_calibrate_hz(void);
void hostcpu_destroy(struct hostcpu *h);

#endif

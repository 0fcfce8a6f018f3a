/* SPDX-License-Identifier: MIT */
/*
 * The measurement and sync driver: one algorithm for the UEFI stage, the
 * host simulator and the tests, run against struct tsc_platform.
 *
 *   survey   read-only: every AP's offset against the BSP
 *   bsp      sync only: move the BSP forward when the APs are ahead, then
 *            steer it against the AP it aimed at with the warp test
 *   ap_pass  sync only: move each lagging AP forward to the BSP, fine-tune
 *   verify   every AP: the kernel's own warp test (warp.h), which gives
 *            the verdict; in sync mode an AP it does not call ok is moved
 *            by the offset it saw and tested again (tsc_plan_steer)
 *
 * The driver talks to one AP at a time.  If any AP could not be measured in
 * the survey, nothing is written at all: a plan built on a partial picture
 * could move the BSP away from a CPU nobody looked at.  In measure mode the
 * platform's write operation is never called.
 */
#ifndef TSCTUI_COMMON_DRIVER_H
#define TSCTUI_COMMON_DRIVER_H

#include "estimate.h"
#include "mailbox.h"
#include "plan.h"
#include "report.h"
#include "warp.h"

struct tsc_run_params {
	enum tsc_mode mode; /* measure or sync */
	struct tsc_est_policy est;
	/* The kernel-style warp test: warp_us for an AP alone in its
	 * package, warp_shared_us for one that shares it (the kernel's 20
	 * and 2 ms, loop_timeout()); steering tests are of the shorter. */
	uint64_t warp_us;
	uint64_t warp_shared_us;
	/* An AP must start, and answer each request, within this long. */
	uint64_t answer_timeout_us;
};

/* Sensible defaults: the adaptive estimator, TSC_WARP_US and
 * TSC_WARP_US_SHARED, 100 ms. */
void tsc_run_params_default(struct tsc_run_params *p, enum tsc_mode mode);

/* Memory shared with the APs, owned by the caller (no allocation here):
 * one mailbox per processor, so that nothing one AP reads can be meant for
 * another.  One run at a time per workspace. */
struct tsc_workspace {
	struct tsc_mailbox mb[TSC_MAX_CPUS];
	struct tsc_ticket ticket[TSC_MAX_CPUS];
	/* Started and not yet seen to return: its mailbox is not opened
	 * again until then. */
	bool outstanding[TSC_MAX_CPUS];
	uint32_t tested_at[TSC_MAX_CPUS]; /* writes before its last test */
	int64_t survey[TSC_MAX_CPUS];
	bool usable[TSC_MAX_CPUS];
	bool stale[TSC_MAX_CPUS]; /* written after its last measurement */
};

/*
 * Runs the driver and fills the measurement part of *r: bsp, ap[], phases,
 * writes, tick, result and reason.  The caller has initialised *r
 * (tsc_report_init) and filled what it knows: mode, config, cpu, options.
 */
void tsc_run(const struct tsc_platform *pf, const struct tsc_run_params *p,
	     struct tsc_workspace *ws, struct tsc_report *r);

#endif

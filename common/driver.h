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
	uint64_t warp_us; /* the kernel-style warp test, per AP and run */
	/* An AP must start, and answer each request, within this long. */
	uint64_t answer_timeout_us;
};

/* Sensible defaults: the adaptive estimator, TSC_WARP_US, 100 ms. */
void tsc_run_params_default(struct tsc_run_params *p, enum tsc_mode mode);

/* Memory shared with the APs, owned by the caller (no allocation here). */
struct tsc_workspace {
	struct tsc_mailbox mb;
	struct tsc_ticket ticket[TSC_MAX_CPUS];
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

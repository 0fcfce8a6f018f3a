/* SPDX-License-Identifier: MIT */
/*
 * One live survey of this machine's cores: the common driver in measure
 * mode (offset and warp test per CPU against CPU 0), read-only, one thread
 * pinned to each CPU.  With a --simulate SPEC, virtual offsets are added
 * to the reads, for demos and tests.
 */
#ifndef TSCTUI_ENGINE_SURVEY_H
#define TSCTUI_ENGINE_SURVEY_H

#include "../../common/report.h"

/* spec: NULL or sim.* tokens; ncpus 0: every CPU this process may use.
 * Returns 0, or -1 with *err. */
int survey_run(const char *spec, unsigned ncpus, struct tsc_report *r,
	       const char **err);

/* An offset in cycles as nanoseconds at the report's TSC rate; 0 when the
 * rate is unknown.  (Floating point: common/ is built without SSE for the
 * stage, so this lives with the Linux side's users of survey reports.) */
static inline double survey_cycles_ns(int64_t cycles,
				      const struct tsc_report *r)
{
	return r->tsc_hz ? (double)cycles * 1e9 / (double)r->tsc_hz : 0;
}

#endif

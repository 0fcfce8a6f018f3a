/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/cpuid.h"
#include "../../common/driver.h"
#include "hostcpu.h"
#include "survey.h"

int survey_run(const char *spec, unsigned ncpus, struct tsc_report *r,
	       const char **err)
{
	struct tsc_options *o = calloc(1, sizeof(*o));
	struct hostcpu *h = calloc(1, sizeof(*h));
	struct tsc_workspace *ws = aligned_alloc(64, sizeof(*ws));
	struct tsc_run_params p;
	struct tsc_platform pf;
	struct tsc_cpu_regs regs;
	cpu_set_t set;
	int rc = -1;

	if (!o || !h || !ws) {
		*err = "out of memory";
		goto out;
	}
	memset(ws, 0, sizeof(*ws));
	tsc_options_init(o);
	if (spec)
		tsc_options_parse(o, spec, strlen(spec), true);
	/* The caller's affinity, given back after the survey pinned it. */
	sched_getaffinity(0, sizeof(set), &set);
	if (ncpus == 0)
		ncpus = (unsigned)CPU_COUNT(&set);
	/* A simulated CPU beyond the real ones is one more virtual CPU
	 * (they share cores, as in the host simulator). */
	if (spec) {
		unsigned c;

		for (c = TSC_MAX_CPUS; c-- > ncpus;)
			if (o->sim_offset[c] || tsc_options_dead(o, c)) {
				ncpus = c + 1;
				break;
			}
	}
	/* With as many virtual CPUs as cores, CPU k runs on core k. */
	if (hostcpu_init(h, ncpus, o, 1, err) != 0)
		goto out;
	if (hostcpu_pin_bsp(h) != 0) {
		*err = "cannot pin to the first CPU";
		hostcpu_destroy(h);
		sched_setaffinity(0, sizeof(set), &set);
		goto out;
	}
	/* Read-only: the platform has no write operation at all. */
	hostcpu_platform(h, &pf, false, spec != NULL);
	tsc_report_init(r, "live", spec ? TSC_BUILD_SIM : TSC_BUILD_RELEASE);
	r->mode = TSC_MODE_MEASURE;
	r->config = TSC_CONFIG_HOST;
	tsc_cpu_read(&regs);
	tsc_cpu_decode(&regs, &r->cpu);
	tsc_run_params_default(&p, TSC_MODE_MEASURE);
	p.warp_us = TSC_WARP_US_LIVE;
	tsc_run(&pf, &p, ws, r);
	hostcpu_destroy(h);
	sched_setaffinity(0, sizeof(set), &set);
	rc = 0;
out:
	free(o);
	free(h);
	free(ws);
	return rc;
}

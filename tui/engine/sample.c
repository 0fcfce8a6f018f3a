/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "sample.h"
#include "survey.h"

void sampler_open(struct sampler *s, const char *simulate, double kernel_mhz,
		  const char *clocksource, struct tsc_report *report)
{
	memset(s, 0, sizeof(*s));
	s->simulate = simulate;
	s->kernel_mhz = kernel_mhz;
	s->report = report;
	rate_init(&s->rate, kernel_mhz);
	reftick_open(&s->ref, clocksource);
}

int sampler_survey(struct sampler *s, const char **err)
{
	uint32_t k;

	if (survey_run(s->simulate, 0, s->report, err) != 0)
		return -1;
	/* Once: the kernel's calibration, else the survey's own rate. */
	rate_set_reference(&s->rate, s->kernel_mhz, s->report->tsc_hz);
	s->warps = 0;
	for (k = 0; k < s->report->nap; k++)
		s->warps +=
			s->report->ap[k].warps_bsp + s->report->ap[k].warps_ap;
	return 0;
}

bool sampler_tick(struct sampler *s)
{
	uint64_t tsc;
	double t;

	if (!reftick_sample(&s->ref, &t, &tsc))
		return false;
	rate_tick(&s->rate, tsc, t);
	return true;
}

int sampler_take(struct sampler *s, const char **err)
{
	if (sampler_survey(s, err) != 0)
		return -1;
	sampler_tick(s);
	return 0;
}

void sampler_close(struct sampler *s)
{
	reftick_close(&s->ref);
}

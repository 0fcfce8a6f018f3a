/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "setup_check.h"

void setup_check_start(struct setup_check *c, unsigned surveys, time_t now)
{
	memset(c, 0, sizeof(*c));
	c->until = now + SETUP_CHECK_S;
	c->from_survey = surveys;
	c->seen = surveys;
}

bool setup_check_started(const struct setup_check *c)
{
	return c->until != 0;
}

bool setup_check_count(struct setup_check *c,
		       const struct engine_snapshot *snap, time_t now)
{
	bool fresh = snap->surveys != c->seen;
	unsigned i;

	c->seen = snap->surveys;
	if (!setup_check_started(c) || !fresh ||
	    snap->surveys <= c->from_survey || now > c->until)
		return false;
	c->surveys++;
	for (i = 0; i < snap->ncores; i++)
		c->warps += snap->cores[i].warps_bsp + snap->cores[i].warps_ap;
	return true;
}

long setup_check_left(const struct setup_check *c, time_t now)
{
	return (long)(c->until - now);
}

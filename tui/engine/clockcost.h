/* SPDX-License-Identifier: MIT */
/* What a clock read costs: ns per clock_gettime(CLOCK_MONOTONIC), on one
 * thread and on every CPU at once (a clocksource like hpet serialises). */
#ifndef TSCTUI_ENGINE_CLOCKCOST_H
#define TSCTUI_ENGINE_CLOCKCOST_H

struct clockcost {
	double ns_one;
	double ns_all;
	unsigned threads;
};

/* calls: per thread; 0 picks a default. */
int clockcost_measure(unsigned calls, struct clockcost *c);

#endif

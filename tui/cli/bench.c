/* SPDX-License-Identifier: MIT */
/* tsctui bench: what a clock read costs here, one thread and all CPUs. */
#include <getopt.h>
#include <string.h>

#include "../engine/clockcost.h"
#include "../source/system.h"
#include "cli.h"

int cmd_bench(const struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct clockcost cc;
	struct sysinfo s;
	bool json = g->json;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		if (c != 'j')
			return EXIT_USAGE;
		json = true;
	}
	if (cli_no_args(argc, argv))
		return EXIT_USAGE;
	/* The clocksource it names, from the one read (source/system.h). */
	system_read_parts(g->root, NULL, 0, &s);
	if (clockcost_measure(0, &cc) != 0) {
		system_free(&s);
		return app_fail("bench: out of memory");
	}
	if (json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj(&j, NULL);
		json_str(&j, "clocksource", s.cs.current);
		json_num(&j, "ns_per_read_one_thread", cc.ns_one, 1);
		json_num(&j, "ns_per_read_all_cpus", cc.ns_all, 1);
		json_u64(&j, "threads", cc.threads);
		json_obj_end(&j);
		json_end(&j);
	} else {
		printf("clock_gettime(CLOCK_MONOTONIC) on clocksource %s:\n"
		       "  %.1f ns per read on one thread\n"
		       "  %.1f ns per read on each of %u CPUs at once\n"
		       "(on tsc a read costs tens of ns; on hpet over a "
		       "microsecond)\n",
		       s.cs.current, cc.ns_one, cc.ns_all, cc.threads);
	}
	system_free(&s);
	return EXIT_OK;
}

/* SPDX-License-Identifier: MIT */
/* tsctui mode off|measure|sync [--allow-any-cpu] */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "cli.h"

int cmd_mode(const struct globals *g, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "allow-any-cpu", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	struct actions_flags fl = { .json = g->json };
	bool allow = false;
	struct act a;

	if (actions_parse(argc, argv, extra, &fl, actions_take_flag, &allow))
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return app_fail("mode: give one of off, measure, sync");
	actions_start(&a, g, "mode", &fl);
	return actions_finish(&a, fl.json, mode_set(&a, argv[optind], allow));
}

/* SPDX-License-Identifier: MIT */
/* tsctui uninstall [--purge] */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "cli.h"

int cmd_uninstall(const struct globals *g, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "purge", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct actions_flags fl = { .json = g->json };
	bool purge = false;
	struct act a;

	if (actions_parse(argc, argv, extra, &fl, actions_take_flag, &purge))
		return EXIT_USAGE;
	if (optind < argc)
		return app_fail("uninstall: unexpected argument '%s'",
				argv[optind]);
	actions_start(&a, g, "uninstall", &fl);
	return actions_finish(&a, fl.json, uninstall_run(&a, purge));
}

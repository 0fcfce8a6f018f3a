/* SPDX-License-Identifier: MIT */
/* tsctui uninstall [--purge] */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "cli.h"

static int take_purge(int c, const char *arg, void *ctx)
{
	(void)arg;
	if (c != 'p')
		return -1;
	*(bool *)ctx = true;
	return 0;
}


int cmd_uninstall(const struct globals *g, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "purge", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = g->json, purge = false;
	struct act a;

	if (actions_parse(argc, argv, extra, &json, take_purge, &purge))
		return EXIT_USAGE;
	if (optind < argc)
		return app_fail("uninstall: unexpected argument '%s'",
				argv[optind]);
	act_init(&a, g->root, "uninstall");
	return actions_finish(&a, json, uninstall_run(&a, purge));
}

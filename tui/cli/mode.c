/* SPDX-License-Identifier: MIT */
/* tsctui mode off|measure|sync [--allow-any-cpu] */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "cli.h"

static int take_allow(int c, const char *arg, void *ctx)
{
	(void)arg;
	if (c != 'a')
		return -1;
	*(bool *)ctx = true;
	return 0;
}


int cmd_mode(const struct globals *g, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "allow-any-cpu", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = g->json, allow = false;
	struct act a;

	if (actions_parse(argc, argv, extra, &json, take_allow, &allow))
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return app_fail("mode: give one of off, measure, sync");
	act_init(&a, g->root, "mode");
	return actions_finish(&a, json, mode_set(&a, argv[optind], allow));
}

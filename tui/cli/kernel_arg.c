/* SPDX-License-Identifier: MIT */
/* tsctui kernel-arg nowatchdog on|off, kernel-arg reliable off */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "cli.h"

int cmd_kernel_arg(const struct globals *g, int argc, char **argv)
{
	struct actions_flags fl = { .json = g->json };
	struct act a;

	if (actions_parse(argc, argv, NULL, &fl, NULL, NULL))
		return EXIT_USAGE;
	if (optind + 2 != argc)
		return app_fail(
			"kernel-arg: give nowatchdog on|off, or reliable off");
	actions_start(&a, g, "kernel-arg", &fl);
	return actions_finish(
		&a, fl.json,
		kernel_arg_set(&a, argv[optind], argv[optind + 1]));
}

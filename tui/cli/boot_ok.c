/* SPDX-License-Identifier: MIT */
/* tsctui boot-ok: run once per boot by tsctui-boot.service. */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "cli.h"

int cmd_boot_ok(const struct globals *g, int argc, char **argv)
{
	struct actions_flags fl = { .json = g->json };
	struct act a;

	if (actions_parse(argc, argv, NULL, &fl, NULL, NULL))
		return EXIT_USAGE;
	if (optind < argc)
		return app_fail("boot-ok: unexpected argument '%s'",
				argv[optind]);
	actions_start(&a, g, "boot-ok", &fl);
	return actions_finish(&a, fl.json, boot_ok_run(&a));
}

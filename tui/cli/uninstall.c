/* SPDX-License-Identifier: MIT */
/* tsctui uninstall [--purge] [--force] */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "cli.h"

struct uninstall_flags {
	bool purge, force;
};

static int take(int c, const char *arg, void *ctx)
{
	struct uninstall_flags *f = ctx;

	(void)arg;
	if (c == 'p')
		f->purge = true;
	else
		f->force = true;
	return 0;
}

int cmd_uninstall(const struct globals *g, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "purge", no_argument, NULL, 'p' },
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	struct actions_flags fl = { .json = g->json };
	struct uninstall_flags u = { false, false };
	struct act a;

	if (actions_parse(argc, argv, extra, &fl, take, &u))
		return EXIT_USAGE;
	if (optind < argc)
		return app_fail("uninstall: unexpected argument '%s'",
				argv[optind]);
	actions_start(&a, g, "uninstall", &fl);
	return actions_finish(&a, fl.json,
			      u.force ? uninstall_force(&a, u.purge)
				      : uninstall_run(&a, u.purge));
}

/* SPDX-License-Identifier: MIT */
/* tsctui install [--loader L] [--esp DIR] [--next BootXXXX] [--key K
 * --cert C] [--migrate] */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "cli.h"

static int take_install(int c, const char *arg, void *ctx)
{
	struct install_opts *o = ctx;

	switch (c) {
	case 'l':
		o->loader_word = arg;
		return 0;
	case 'e':
		o->esp = arg;
		return 0;
	case 'n':
		o->next = arg;
		return 0;
	case 'k':
		o->key = arg;
		return 0;
	case 'c':
		o->cert = arg;
		return 0;
	case 'm':
		o->migrate = true;
		return 0;
	}
	return -1;
}

int cmd_install(const struct globals *g, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "loader", required_argument, NULL, 'l' },
		{ "esp", required_argument, NULL, 'e' },
		{ "next", required_argument, NULL, 'n' },
		{ "key", required_argument, NULL, 'k' },
		{ "cert", required_argument, NULL, 'c' },
		{ "migrate", no_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct install_opts o = { 0 };
	struct actions_flags fl = { .json = g->json };
	struct act a;

	if (actions_parse(argc, argv, extra, &fl, take_install, &o))
		return EXIT_USAGE;
	if (optind < argc)
		return app_fail("install: unexpected argument '%s'",
				argv[optind]);
	if (!o.key != !o.cert)
		return app_fail("install: --key and --cert go together");
	actions_start(&a, g, "install", &fl);
	return actions_finish(&a, fl.json, install_run(&a, &o));
}

/* SPDX-License-Identifier: MIT */
/* The subcommands that change the system: install, uninstall, mode, guard,
 * boot-ok.  Each prints what it changed, or with --json the object of
 * ARCHITECTURE 4.3; a refusal is one line on stderr and exit status 2. */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "../source/config.h"
#include "../source/stage_state.h"
#include "cli.h"

static int finish(struct act *a, bool json, int rc)
{
	size_t i;

	if (json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj(&j, NULL);
		json_str(&j, "action", a->name);
		json_bool(&j, "ok", rc == 0);
		json_arr(&j, "changed");
		for (i = 0; i < a->nchanges; i++) {
			json_obj(&j, NULL);
			json_str(&j, "path", a->changes[i].path);
			json_str(&j, "what", a->changes[i].what);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_str(&j, "message", rc == 0 ? a->message : a->error);
		json_obj_end(&j);
		json_end(&j);
	} else if (rc == 0) {
		for (i = 0; i < a->nchanges; i++)
			printf("%-8s %s\n", a->changes[i].what,
			       a->changes[i].path);
		if (a->message[0])
			printf("%s\n", a->message);
	}
	if (rc != 0)
		app_fail("%s: %s", a->name, a->error);
	act_free(a);
	return rc == 0 ? EXIT_OK : EXIT_USAGE;
}

/* Options every action takes: --json, and for some one positional word. */
static int parse(int argc, char **argv, const struct option *extra,
		 bool *json, int (*take)(int c, const char *arg, void *ctx),
		 void *ctx)
{
	struct option opts[16];
	int n = 0, c;

	opts[n++] = (struct option){ "json", no_argument, NULL, 'j' };
	while (extra && extra->name && n < 15)
		opts[n++] = *extra++;
	opts[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'j') {
			*json = true;
			continue;
		}
		if (c == '?' || !take || take(c, optarg, ctx) != 0)
			return app_fail("%s: unknown option '%s'", argv[0],
					argv[optind - 1]);
	}
	return 0;
}

static int take_install(int c, const char *arg, void *ctx)
{
	struct install_opts *o = ctx;

	switch (c) {
	case 'l': o->loader = arg; return 0;
	case 'e': o->esp = arg; return 0;
	case 'n': o->next = arg; return 0;
	case 'k': o->key = arg; return 0;
	case 'c': o->cert = arg; return 0;
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
		{ NULL, 0, NULL, 0 },
	};
	struct install_opts o = { 0 };
	bool json = g->json;
	struct act a;

	if (parse(argc, argv, extra, &json, take_install, &o))
		return EXIT_USAGE;
	if (optind < argc)
		return app_fail("install: unexpected argument '%s'",
				argv[optind]);
	if (!o.key != !o.cert)
		return app_fail("install: --key and --cert go together");
	act_init(&a, g->root, "install");
	return finish(&a, json, install_run(&a, &o));
}

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

	if (parse(argc, argv, extra, &json, take_purge, &purge))
		return EXIT_USAGE;
	if (optind < argc)
		return app_fail("uninstall: unexpected argument '%s'",
				argv[optind]);
	act_init(&a, g->root, "uninstall");
	return finish(&a, json, uninstall_run(&a, purge));
}

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

	if (parse(argc, argv, extra, &json, take_allow, &allow))
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return app_fail("mode: give one of off, measure, sync");
	act_init(&a, g->root, "mode");
	return finish(&a, json, mode_set(&a, argv[optind], allow));
}

static int take_mode(int c, const char *arg, void *ctx)
{
	if (c != 'm')
		return -1;
	*(const char **)ctx = arg;
	return 0;
}

static int guard_status(const struct globals *g, bool json)
{
	struct tsctui_conf c;
	struct stage_state s;
	const char *why = NULL;
	int have = config_read(g->root, &c, &why);

	if (have < 0)
		return app_fail("guard: %s", why);
	if (have == 0)
		return app_fail("guard: tsctui is not installed");
	if (stage_state_read(g->root, &c, &s, &why) != 0)
		return app_fail("guard: %s", why);
	if (json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj(&j, NULL);
		json_str(&j, "guard", s.guard);
		json_str(&j, "loader", c.loader);
		if (s.since[0])
			json_str(&j, "since", s.since);
		else
			json_null(&j, "since");
		json_obj_end(&j);
		json_end(&j);
		return EXIT_OK;
	}
	if (s.marks.tripped && s.marks.strikes >= GUARD_MAX_STRIKES)
		printf("tripped%s%s: %d sync boots in a row were not confirmed "
		       "by Linux (each followed by a measure-only boot that "
		       "was), and the hang guard disabled the stage; `tsctui "
		       "guard reset` re-enables it in measure mode\n",
		       s.since[0] ? " since " : "", s.since, s.marks.strikes);
	else if (s.marks.tripped)
		printf("tripped%s%s: a boot never reached Linux, and the hang "
		       "guard disabled the stage; `tsctui guard reset` "
		       "re-enables it in measure mode\n",
		       s.since[0] ? " since " : "", s.since);
	else if (s.marks.pending)
		printf("pending: this boot has not been marked good yet (the "
		       "tsctui-boot service does that; a GRUB block or stage "
		       "of an earlier version leaves pending set until then)\n");
	else if (s.marks.probation)
		printf("pending: probation: the last sync boot was not "
		       "confirmed by Linux, so this boot measured only; the "
		       "tsctui-boot service counts a strike\n");
	else if (s.marks.synced)
		printf("pending: this sync boot has not been confirmed yet "
		       "(the tsctui-boot service does that)\n");
	else
		printf("clear\n");
	if (s.marks.strikes && !(s.marks.tripped &&
				 s.marks.strikes >= GUARD_MAX_STRIKES))
		printf("strikes: %d of %d (a sync boot not confirmed by Linux, "
		       "then a measure-only boot that was; a confirmed sync "
		       "boot resets them)\n", s.marks.strikes,
		       GUARD_MAX_STRIKES);
	if (s.marks.hibernated)
		printf("hibernated: the sleep hook marked the ESP; the stage "
		       "does nothing until the system resumes\n");
	return EXIT_OK;
}

int cmd_guard(const struct globals *g, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mode = "measure";
	bool json = g->json;
	struct act a;

	if (parse(argc, argv, extra, &json, take_mode, &mode))
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return app_fail("guard: give status or reset");
	if (!strcmp(argv[optind], "status"))
		return guard_status(g, json);
	if (strcmp(argv[optind], "reset"))
		return app_fail("guard: unknown word '%s' (status or reset)",
				argv[optind]);
	act_init(&a, g->root, "guard reset");
	return finish(&a, json, guard_reset(&a, mode));
}

int cmd_boot_ok(const struct globals *g, int argc, char **argv)
{
	bool json = g->json;
	struct act a;

	if (parse(argc, argv, NULL, &json, NULL, NULL))
		return EXIT_USAGE;
	if (optind < argc)
		return app_fail("boot-ok: unexpected argument '%s'",
				argv[optind]);
	act_init(&a, g->root, "boot-ok");
	return finish(&a, json, boot_ok_run(&a));
}

int cmd_kernel_arg(const struct globals *g, int argc, char **argv)
{
	bool json = g->json;
	struct act a;

	if (parse(argc, argv, NULL, &json, NULL, NULL))
		return EXIT_USAGE;
	if (optind + 2 != argc)
		return app_fail("kernel-arg: give nowatchdog on|off");
	act_init(&a, g->root, "kernel-arg");
	return finish(&a, json,
		      kernel_arg_set(&a, argv[optind], argv[optind + 1]));
}

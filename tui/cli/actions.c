/* SPDX-License-Identifier: MIT */
/* What the subcommands that change the system share (install.c,
 * uninstall.c, mode.c, guard.c, boot_ok.c, kernel_arg.c): their options
 * (--json, --dry-run), and the report of what changed, or with --json the
 * object of ARCHITECTURE 4.3; a refusal is one line on stderr and exit
 * status 2.  A dry run reports the plan the action made instead: the same
 * object with "dry_run": true, each change's "detail" and the tools it
 * would run ("run"). */
#include <getopt.h>
#include <string.h>

#include "../action/actions.h"
#include "../util/path.h"
#include "cli.h"

/* A path shown escaped (path_shown): at most 4 bytes for each of its. */
#define SHOWN_MAX (4 * PATH_UNDER_MAX + 1)

/* The plan, one line per change and per tool, then the notes. */
/* What the action said, in the command line's words (act_say.c). */
static char said[8192];

static const char *said_text(const struct act *a)
{
	act_say_join(a->said, a->nsaid, act_say_words, said, sizeof(said));
	return said;
}

static void plan_print(const struct act *a)
{
	char shown[SHOWN_MAX];
	size_t i;

	for (i = 0; i < a->nchanges; i++)
		printf("%-8s %s%s%s\n", act_verb(a->changes[i].what),
		       path_shown(a->changes[i].path, shown, sizeof(shown)),
		       a->changes[i].detail[0] ? ": " : "",
		       a->changes[i].detail);
	for (i = 0; i < a->nruns; i++)
		printf("%-8s %s\n", "run", a->runs[i]);
	if (said_text(a)[0])
		printf("%s\n", said);
	printf("dry run: nothing was changed\n");
}

static void plan_json(struct json *j, const struct act *a)
{
	size_t i;

	json_bool(j, "dry_run", true);
	json_arr(j, "run");
	for (i = 0; i < a->nruns; i++)
		json_str(j, NULL, a->runs[i]);
	json_arr_end(j);
}

int actions_finish(struct act *a, bool json, int rc)
{
	char shown[SHOWN_MAX];
	size_t i;

	if (rc != 0)
		uninstall_left_by_failure(a);
	if (json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj(&j, NULL);
		json_str(&j, "action", a->name);
		json_bool(&j, "ok", rc == 0);
		if (a->dry_run)
			plan_json(&j, a);
		json_arr(&j, "changed");
		for (i = 0; i < a->nchanges; i++) {
			json_obj(&j, NULL);
			json_str(&j, "path", a->changes[i].path);
			json_str(&j, "what",
				 change_kind_name(a->changes[i].what));
			if (a->dry_run && a->changes[i].detail[0])
				json_str(&j, "detail", a->changes[i].detail);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_str(&j, "message", rc == 0 ? said_text(a) : a->error);
		json_obj_end(&j);
		json_end(&j);
	} else if (rc == 0 && a->dry_run) {
		plan_print(a);
	} else if (rc == 0) {
		for (i = 0; i < a->nchanges; i++)
			printf("%-8s %s\n",
			       change_kind_name(a->changes[i].what),
			       path_shown(a->changes[i].path, shown,
					  sizeof(shown)));
		if (said_text(a)[0])
			printf("%s\n", said);
	}
	if (rc != 0 && !json && said_text(a)[0])
		printf("%s\n", said); /* what is left, for one */
	if (rc != 0)
		app_fail("%s: %s", a->name, a->error);
	act_free(a);
	return rc == 0 ? EXIT_OK : EXIT_USAGE;
}

int actions_take_flag(int c, const char *arg, void *ctx)
{
	(void)c;
	(void)arg;
	*(bool *)ctx = true;
	return 0;
}

/* Options every action takes: --json, --dry-run, and for some one
 * positional word. */
int actions_parse(int argc, char **argv, const struct option *extra,
		  struct actions_flags *f,
		  int (*take)(int c, const char *arg, void *ctx), void *ctx)
{
	struct option opts[16];
	int n = 0, c;

	opts[n++] = (struct option){ "json", no_argument, NULL, 'j' };
	opts[n++] = (struct option){ "dry-run", no_argument, NULL, 'D' };
	while (extra && extra->name && n < 15)
		opts[n++] = *extra++;
	opts[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		if (c == '?')
			return EXIT_USAGE;
		if (c == 'j') {
			f->json = true;
			continue;
		}
		if (c == 'D') {
			f->dry_run = true;
			continue;
		}
		if (!take || take(c, optarg, ctx) != 0)
			return app_fail("%s: unknown option '%s'", argv[0],
					argv[optind - 1]);
	}
	return 0;
}

void actions_start(struct act *a, const struct globals *g, const char *name,
		   const struct actions_flags *f)
{
	act_init(a, g->root, name);
	a->dry_run = f->dry_run;
}

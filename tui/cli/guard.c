/* SPDX-License-Identifier: MIT */
/* tsctui guard status|reset */
#include <getopt.h>
#include <string.h>

#include "../../common/report_var.h"
#include "../action/actions.h"
#include "../source/system.h"
#include "cli.h"

static int take_mode(int c, const char *arg, void *ctx)
{
	if (c != 'm')
		return -1;
	*(const char **)ctx = arg;
	return 0;
}

static int guard_status(const struct globals *g, bool json)
{
	struct sysinfo sys;
	struct tsctui_conf c;
	struct stage_state s;
	int have;

	system_read_parts(g->root, NULL, 0, &sys);
	/* What follows needs only the snapshot's own arrays: system_free
	 * releases the log, the report and the history. */
	system_free(&sys);
	have = sys.stage.conf_read;
	c = sys.stage.conf;
	s = sys.stage.state;
	if (have < 0)
		return app_fail("guard: %s", sys.stage.conf_why);
	if (have == 0)
		return app_fail("guard: tsctui is not installed");
	if (!sys.stage.has_state)
		return app_fail("guard: %s", sys.stage.state_why);
	if (json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj(&j, NULL);
		json_str(&j, "guard", stage_state_guard_name(s.guard));
		json_str(&j, "loader", loader_name(c.loader));
		if (s.since[0])
			json_str(&j, "since", s.since);
		else
			json_null(&j, "since");
		json_str(&j, "hibernate_location",
			 stage_state_hib_name(s.hibernate_location));
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
	else if (s.marks.tripped && s.marks.lost >= GUARD_LOST_FLAGS)
		printf("tripped%s%s: %d measure-only boots in a row after an "
		       "unconfirmed sync never reached Linux (another system "
		       "chosen or powered off at the menu each time, or a "
		       "hang), and the hang guard disabled the stage; `tsctui "
		       "guard reset` re-enables it in measure mode\n",
		       s.since[0] ? " since " : "", s.since, GUARD_MAX_LOST);
	else if (s.marks.tripped)
		printf("tripped%s%s: a boot never reached Linux, and the hang "
		       "guard disabled the stage; `tsctui guard reset` "
		       "re-enables it in measure mode\n",
		       s.since[0] ? " since " : "", s.since);
	else if (s.marks.pending)
		printf("pending: this boot has not been marked good yet (the "
		       "tsctui-boot service does that; a GRUB block or stage "
		       "of an earlier version leaves pending set until "
		       "then)\n");
	else if (s.marks.probation)
		printf("pending: probation: the last sync boot was not "
		       "confirmed by Linux, so this boot measured only; the "
		       "tsctui-boot service counts a strike\n");
	else if (s.marks.synced)
		printf("pending: this sync boot has not been confirmed yet "
		       "(the tsctui-boot service does that)\n");
	else
		printf("clear\n");
	if (s.marks.strikes &&
	    !(s.marks.tripped && s.marks.strikes >= GUARD_MAX_STRIKES))
		printf("strikes: %d of %d (a sync boot not confirmed by Linux, "
		       "then a measure-only boot that was; a confirmed sync "
		       "boot resets them)\n",
		       s.marks.strikes, GUARD_MAX_STRIKES);
	if (s.marks.lost && !s.marks.tripped)
		printf("lost: %d of %d (measure-only boots after an "
		       "unconfirmed sync that never reached Linux, in a row; a "
		       "boot that reaches Linux resets them)\n",
		       s.marks.lost, GUARD_MAX_LOST);
	if (s.marks.hibernated)
		printf("hibernated: the sleep hook marked the ESP; the next "
		       "boot is a resume: the stage runs without writing a "
		       "file system, its hang guard in an EFI variable\n");
	if (s.marks.resume)
		printf("resume: a resume boot's stage has not returned "
		       "cleanly (the " TSC_RESUME_VAR_NAME " EFI variable); "
		       "the next boot that is not a resume disables the "
		       "stage\n");
	if (s.hibernate_location == HIB_STALE)
		printf("hibernate_location: stale: systemd's HibernateLocation "
		       "variable is set but no hibernation is under way, and "
		       "while it is set the stage on %s takes every boot for "
		       "a resume (it writes nothing on the ESP, so no sync "
		       "boot is confirmed or counted); "
		       "clear it with `chattr -i " EFIVARS_DIR
		       "/HibernateLocation-" GUID_SYSTEMD_HIBERNATE
		       "` and `rm` of that file\n",
		       c.loader == LOADER_GRUB ? "the ESP paths (not this "
						 "GRUB path)"
					       : "this boot path");
	else if (s.hibernate_location == HIB_CURRENT)
		printf("hibernate_location: current: a hibernation is under "
		       "way; the stage runs the resume boot without writing "
		       "a file system\n");
	return EXIT_OK;
}

int cmd_guard(const struct globals *g, int argc, char **argv)
{
	static const struct option extra[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mode = NULL;
	struct actions_flags fl = { .json = g->json };
	struct act a;

	if (actions_parse(argc, argv, extra, &fl, take_mode, &mode))
		return EXIT_USAGE;
	if (optind + 1 != argc)
		return app_fail("guard: give status or reset");
	if (!strcmp(argv[optind], "status")) {
		if (mode || fl.dry_run)
			return app_fail("guard: %s is for guard reset, not "
					"guard status",
					mode ? "--mode" : "--dry-run");
		return guard_status(g, fl.json);
	}
	if (strcmp(argv[optind], "reset"))
		return app_fail("guard: unknown word '%s' (status or reset)",
				argv[optind]);
	actions_start(&a, g, "guard reset", &fl);
	return actions_finish(&a, fl.json,
			      guard_reset(&a, mode ? mode : "measure"));
}

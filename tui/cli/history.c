/* SPDX-License-Identifier: MIT */
/* tsctui history: one row per boot: date, BIOS, the stage's mode and
 * result, the kernel's warp and watchdog, the final clocksource.  From
 * /var/lib/tsctui/history (written by boot-ok), or, while that is empty,
 * from the systemd journal's past boots. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../source/system.h"
#include "cli.h"

static void print(struct json *j, bool json, const struct hist_row *r)
{
	char line[256];

	if (json) {
		json_obj(j, NULL);
		json_str(j, "boot_id", r->boot_id);
		json_i64(j, "time", r->time);
		json_str(j, "bios_version", r->bios);
		json_str(j, "stage_mode", r->mode);
		json_str(j, "stage_result", r->result);
		json_i64(j, "warp_cycles", r->warp);
		if (strcmp(r->ppm, "-") && r->ppm[0])
			json_num(j, "watchdog_ppm", atof(r->ppm), 1);
		else
			json_null(j, "watchdog_ppm");
		json_str(j, "clocksource", r->cs[0] ? r->cs : NULL);
		json_str(j, "source", r->source);
		json_obj_end(j);
		return;
	}
	history_row_text(r, line, sizeof(line));
	puts(line);
}

int cmd_history(const struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = g->json;
	struct sysinfo sys;
	struct json j;
	int c, n, i;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		if (c != 'j')
			return EXIT_USAGE;
		json = true;
	}
	if (cli_no_args(argc, argv))
		return EXIT_USAGE;
	system_read_parts(g->root, NULL, SYS_HISTORY, &sys);
	if (!sys.history) {
		system_free(&sys);
		return app_fail("history: out of memory");
	}
	if (sys.history_error[0]) {
		/* a record too large to read is not a missing one */
		app_fail("history: %s", sys.history_error);
		system_free(&sys);
		return EXIT_USAGE;
	}
	n = sys.nhistory;
	json_init(&j, stdout, true);
	if (json)
		json_arr(&j, NULL);
	else if (n) {
		char head[256];

		history_header(head, sizeof(head));
		puts(head);
	}
	for (i = 0; i < n; i++)
		print(&j, json, &sys.history[i]);
	if (json) {
		json_arr_end(&j);
		json_end(&j);
	} else if (sys.history_dropped) {
		/* the rows above are not all there is */
		printf("(%d older boot%s not shown: the newest %d are)\n",
		       sys.history_dropped, sys.history_dropped > 1 ? "s" : "",
		       HISTORY_MAX);
	} else if (!n) {
		printf("no boots recorded yet, and no kernel messages in the "
		       "systemd journal\n");
	}
	system_free(&sys);
	return EXIT_OK;
}

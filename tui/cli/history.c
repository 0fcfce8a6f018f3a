/* SPDX-License-Identifier: MIT */
/* tsctui history: one row per boot, from /var/lib/tsctui/history (written
 * by boot-ok). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/fileio.h"
#include "../util/path.h"
#include "cli.h"

static const char *const keys[] = { "boot_id", "time", "bios_version",
				    "stage_mode", "stage_result" };
#define NKEYS 5

static void fields(char *line, const char *out[NKEYS])
{
	char *tok, *save = NULL;
	int k;

	for (k = 0; k < NKEYS; k++)
		out[k] = "";
	for (tok = strtok_r(line, "\t", &save); tok;
	     tok = strtok_r(NULL, "\t", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			continue;
		*eq = '\0';
		for (k = 0; k < NKEYS; k++)
			if (!strcmp(tok, keys[k]))
				out[k] = eq + 1;
	}
}

int cmd_history(const struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	char path[4096], *data, *line, *save = NULL;
	const char *f[NKEYS];
	bool json = g->json;
	struct json j;
	size_t len;
	int c, k;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'j')
			return cli_fail("history: unknown option '%s'",
					argv[optind - 1]);
		json = true;
	}
	path_under(g->root, "/var/lib/tsctui/history", path, sizeof(path));
	data = read_all(path, 64u << 20, &len);
	if (!data) {
		data = strdup("");
		if (!json)
			printf("no boots recorded yet (tsctui-boot.service "
			       "records one per boot once the stage is "
			       "installed)\n");
	}
	if (json) {
		json_init(&j, stdout, true);
		json_arr(&j, NULL);
	} else if (len) {
		printf("%-20s %-22s %-8s %-14s %s\n", "date (UTC)", "BIOS",
		       "mode", "result", "boot");
	}
	for (line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char date[32] = "-";
		time_t t;
		struct tm tm;

		fields(line, f);
		t = (time_t)atoll(f[1]);
		if (t && gmtime_r(&t, &tm))
			strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
		if (json) {
			json_obj(&j, NULL);
			for (k = 0; k < NKEYS; k++) {
				if (k == 1)
					json_i64(&j, "time", (int64_t)t);
				else
					json_str(&j, keys[k], f[k]);
			}
			json_obj_end(&j);
		} else {
			printf("%-20s %-22s %-8s %-14s %.8s\n", date, f[2],
			       f[3], f[4], f[0]);
		}
	}
	if (json) {
		json_arr_end(&j);
		json_end(&j);
	}
	free(data);
	return EXIT_OK;
}

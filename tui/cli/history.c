/* SPDX-License-Identifier: MIT */
/* tsctui history: one row per boot: date, BIOS, the stage's mode and
 * result, the kernel's warp and watchdog, the final clocksource.  From
 * /var/lib/tsctui/history (written by boot-ok), or, while that is empty,
 * from the systemd journal's past boots. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../source/journal.h"
#include "../util/fileio.h"
#include "../util/path.h"
#include "cli.h"

struct row {
	char boot_id[40], bios[64], mode[16], result[24], ppm[24], cs[32];
	long long time, warp;
	const char *source;
};

static void from_record(char *line, struct row *r)
{
	char *tok, *save = NULL;

	memset(r, 0, sizeof(*r));
	r->source = "tsctui";
	for (tok = strtok_r(line, "\t", &save); tok;
	     tok = strtok_r(NULL, "\t", &save)) {
		char *v = strchr(tok, '=');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(tok, "boot_id"))
			snprintf(r->boot_id, sizeof(r->boot_id), "%s", v);
		else if (!strcmp(tok, "time"))
			r->time = atoll(v);
		else if (!strcmp(tok, "bios_version"))
			snprintf(r->bios, sizeof(r->bios), "%s", v);
		else if (!strcmp(tok, "stage_mode"))
			snprintf(r->mode, sizeof(r->mode), "%s", v);
		else if (!strcmp(tok, "stage_result"))
			snprintf(r->result, sizeof(r->result), "%s", v);
		else if (!strcmp(tok, "warp_cycles"))
			r->warp = atoll(v);
		else if (!strcmp(tok, "watchdog_ppm"))
			snprintf(r->ppm, sizeof(r->ppm), "%s", v);
		else if (!strcmp(tok, "clocksource"))
			snprintf(r->cs, sizeof(r->cs), "%s", v);
	}
}

static void from_journal(const struct journal_boot *b, struct row *r)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->source = "journal";
	snprintf(r->boot_id, sizeof(r->boot_id), "%s", b->boot_id);
	r->time = b->first_us / 1000000;
	snprintf(r->bios, sizeof(r->bios), "%s", b->bios);
	snprintf(r->mode, sizeof(r->mode), "-");
	snprintf(r->result, sizeof(r->result), "-");
	snprintf(r->ppm, sizeof(r->ppm), "-");
	for (i = 0; b->klog && i < b->klog->n; i++) {
		const struct klog_event *e = &b->klog->ev[i];

		if (e->kind == KLOG_WARP && !r->warp)
			r->warp = e->cycles;
		if (e->kind == KLOG_WATCHDOG_SKEW && e->has_intervals &&
		    !strcmp(r->ppm, "-"))
			snprintf(r->ppm, sizeof(r->ppm), "%.1f", klog_ppm(e));
		if (e->kind == KLOG_SWITCH)
			snprintf(r->cs, sizeof(r->cs), "%s", e->text);
	}
}

static void print(struct json *j, bool json, const struct row *r)
{
	char date[32] = "-";
	time_t t = (time_t)r->time;
	struct tm tm;

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
	if (t && gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M", &tm);
	printf("%-16s %-18s %-8s %-12s %14lld %9s %-10s\n", date, r->bios,
	       r->mode, r->result, r->warp, r->ppm[0] ? r->ppm : "-",
	       r->cs[0] ? r->cs : "-");
}

int cmd_history(const struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	char path[4096], *data, *line, *save = NULL;
	bool json = g->json, any = false;
	struct journal_boot *boots = NULL;
	size_t len = 0, nb = 0, i;
	const char *err;
	struct json j;
	struct row r;
	int c;

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
	if (!data || !len) {
		/* Nothing recorded yet: the journal's past boots. */
		char dir[4096];

		path_under(g->root, "/var/log/journal", dir, sizeof(dir));
		if (journal_boots(strcmp(g->root, "/") ? dir : NULL, &boots,
				  &nb, &err) != 0)
			nb = 0;
	}
	json_init(&j, stdout, true);
	if (json)
		json_arr(&j, NULL);
	else
		printf("%-16s %-18s %-8s %-12s %14s %9s %-10s\n", "date (UTC)",
		       "BIOS", "mode", "result", "warp cycles", "wd ppm",
		       "clocksource");
	for (line = data ? strtok_r(data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		from_record(line, &r);
		print(&j, json, &r);
		any = true;
	}
	for (i = 0; i < nb; i++) {
		from_journal(&boots[i], &r);
		print(&j, json, &r);
		any = true;
	}
	if (json) {
		json_arr_end(&j);
		json_end(&j);
	} else if (!any) {
		printf("no boots recorded yet, and no kernel messages in the "
		       "systemd journal\n");
	}
	journal_free(boots, nb);
	free(data);
	return EXIT_OK;
}

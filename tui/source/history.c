/* SPDX-License-Identifier: MIT */
/* The boot history as rows: tsctui's own record (/var/lib/tsctui/history,
 * written by boot-ok), or while that is empty the systemd journal's past
 * boots.  For `tsctui history` and the dashboard. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/fileio.h"
#include "../util/path.h"
#include "history.h"
#include "journal.h"

static void from_record(char *line, struct hist_row *r)
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

static void from_journal(const struct journal_boot *b, struct hist_row *r)
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

void history_last_sync_bios(const char *root, char *bios, size_t cap)
{
	char path[4096], *data, *line, *save = NULL;
	struct hist_row r;
	size_t len = 0;

	bios[0] = '\0';
	path_under(root, "/var/lib/tsctui/history", path, sizeof(path));
	data = read_all(path, 64u << 20, &len);
	for (line = data ? strtok_r(data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		from_record(line, &r);
		if (!strcmp(r.mode, "sync") && r.bios[0])
			snprintf(bios, cap, "%s", r.bios);
	}
	free(data);
}

int history_rows(const char *root, struct hist_row *rows, int max)
{
	char path[4096], *data, *line, *save = NULL;
	struct journal_boot *boots = NULL;
	size_t len = 0, nb = 0, i;
	const char *err;
	int n = 0;

	path_under(root, "/var/lib/tsctui/history", path, sizeof(path));
	data = read_all(path, 64u << 20, &len);
	for (line = data ? strtok_r(data, "\n", &save) : NULL;
	     line && n < max; line = strtok_r(NULL, "\n", &save))
		from_record(line, &rows[n++]);
	free(data);
	if (n == 0) {
		char dir[4096];

		path_under(root, "/var/log/journal", dir, sizeof(dir));
		if (journal_boots(strcmp(root, "/") ? dir : NULL, &boots, &nb,
				  &err) == 0)
			for (i = 0; i < nb && n < max; i++)
				from_journal(&boots[i], &rows[n++]);
		journal_free(boots, nb);
	}
	return n;
}

void history_header(char *out, size_t cap)
{
	snprintf(out, cap, "%-16s %-18s %-8s %-12s %14s %9s %s", "date (UTC)",
		 "BIOS", "mode", "result", "warp cycles", "wd ppm",
		 "clocksource");
}

void history_row_text(const struct hist_row *r, char *out, size_t cap)
{
	char date[32] = "-";
	time_t t = (time_t)r->time;
	struct tm tm;

	if (t && gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M", &tm);
	snprintf(out, cap, "%-16s %-18s %-8s %-12s %14lld %9s %s", date,
		 r->bios, r->mode[0] ? r->mode : "-",
		 r->result[0] ? r->result : "-", r->warp,
		 r->ppm[0] ? r->ppm : "-", r->cs[0] ? r->cs : "-");
}

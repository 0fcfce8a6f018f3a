/* SPDX-License-Identifier: MIT */
/* The boot history as rows: tsctui's own record (/var/lib/tsctui/history,
 * written by boot-ok), or while that is empty the systemd journal's past
 * boots.  For `tsctui history` and the dashboard. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../common/tsc.h"
#include "../format/history_record.h"
#include "../util/fileio.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "history.h"
#include "journal.h"

/* A record is about 250 bytes: 64 MiB is some 250,000 boots, a machine
 * booted 20 times a day for 30 years.  A larger file is not one tsctui
 * wrote, and is said to be too large: never read in part (its newest rows
 * are at its end), never taken for a missing one. */
#define HISTORY_READ_MAX (64u << 20)

/* The record file's bytes, or NULL: absent (why left empty), or not
 * readable, too large included (why says so in one line). */
static char *read_record(const char *root, size_t *len, char *why, size_t cap)
{
	char path[PATH_UNDER_MAX];
	struct stat st;
	char *data;

	why[0] = '\0';
	path_under(root, HISTORY_RECORD_FILE, path, sizeof(path));
	data = fsx_read_max(path, HISTORY_READ_MAX, len);
	if (data || errno == ENOENT)
		return data;
	if (errno == EFBIG)
		snprintf(why, cap,
			 "%s is too large to be tsctui's record (%llu MiB; "
			 "at most %u MiB is read): move it aside, and "
			 "boot-ok starts a new one",
			 HISTORY_RECORD_FILE,
			 fsx_stat(path, &st) == 0
				 ? (unsigned long long)st.st_size >> 20
				 : 0ull,
			 HISTORY_READ_MAX >> 20);
	else
		snprintf(why, cap, "cannot read %s: %s", HISTORY_RECORD_FILE,
			 errno == EINVAL ? "not a regular file"
					 : strerror(errno));
	return NULL;
}

static void from_record(char *line, struct hist_row *r)
{
	struct history_record rec;

	history_record_parse(line, &rec);
	memset(r, 0, sizeof(*r));
	r->source = "tsctui";
	snprintf(r->boot_id, sizeof(r->boot_id), "%s", rec.boot_id);
	r->time = rec.time;
	snprintf(r->bios, sizeof(r->bios), "%s", rec.bios_version);
	snprintf(r->mode, sizeof(r->mode), "%s", rec.stage_mode);
	snprintf(r->result, sizeof(r->result), "%s", rec.stage_result);
	r->warp = rec.warp_cycles;
	snprintf(r->ppm, sizeof(r->ppm), "%s", rec.watchdog_ppm);
	snprintf(r->cs, sizeof(r->cs), "%s", rec.clocksource);
}

void history_kernel_facts(const struct klog *k, long long *warp, char *ppm,
			  size_t cap)
{
	size_t i;

	*warp = 0;
	snprintf(ppm, cap, "-");
	for (i = 0; k && i < k->n; i++) {
		const struct klog_event *e = &k->ev[i];

		if (e->kind == KLOG_WARP && !*warp)
			*warp = e->cycles;
		if (e->kind == KLOG_WATCHDOG_SKEW && e->has_intervals &&
		    !strcmp(ppm, "-"))
			snprintf(ppm, cap, "%.1f", kernlog_ppm(e));
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
	history_kernel_facts(b->klog, &r->warp, r->ppm, sizeof(r->ppm));
	for (i = 0; b->klog && i < b->klog->n; i++) {
		const struct klog_event *e = &b->klog->ev[i];

		if (e->kind == KLOG_SWITCH)
			snprintf(r->cs, sizeof(r->cs), "%s", e->text);
	}
}

void history_last_sync_bios(const char *root, char *bios, size_t cap, char *why,
			    size_t wcap)
{
	char *data, *line, *save = NULL;
	struct hist_row r;
	enum tsc_mode m;
	size_t len = 0;

	bios[0] = '\0';
	data = read_record(root, &len, why, wcap);
	for (line = data ? strtok_r(data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		from_record(line, &r);
		if (tsc_mode_from(r.mode, strlen(r.mode), &m) &&
		    m == TSC_MODE_SYNC && r.bios[0])
			snprintf(bios, cap, "%s", r.bios);
	}
	free(data);
}

static void reverse(struct hist_row *rows, size_t a, size_t b)
{
	struct hist_row t;

	while (a + 1 < b) {
		t = rows[a];
		rows[a++] = rows[--b];
		rows[b] = t;
	}
}

int history_rows(const char *root, struct hist_row *rows, int max, int *dropped,
		 char *why, size_t wcap)
{
	char *data, *line, *save = NULL;
	struct journal_boot *boots = NULL;
	size_t len = 0, nb = 0, i, seen = 0, cap;
	const char *err;
	int n = 0;

	*dropped = 0;
	why[0] = '\0';
	if (max <= 0)
		return 0;
	cap = (size_t)max;
	data = read_record(root, &len, why, wcap);
	if (!data && why[0])
		return 0; /* there, and not readable: not the journal's turn */
	/* The newest max records: a ring, record k at k % max, turned
	 * oldest first at the end. */
	for (line = data ? strtok_r(data, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		from_record(line, &rows[seen++ % cap]);
	free(data);
	if (seen > cap) {
		reverse(rows, 0, seen % cap);
		reverse(rows, seen % cap, cap);
		reverse(rows, 0, cap);
	}
	n = (int)(seen < cap ? seen : cap);
	*dropped = (int)(seen - (size_t)n);
	if (n == 0) {
		char dir[PATH_UNDER_MAX];

		path_under(root, "/var/log/journal", dir, sizeof(dir));
		if (journal_boots(strcmp(root, "/") ? dir : NULL, &boots, &nb,
				  &err) == 0)
			for (i = nb > cap ? nb - cap : 0; i < nb; i++)
				from_journal(&boots[i], &rows[n++]);
		*dropped = nb > cap ? (int)(nb - cap) : 0;
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

/* SPDX-License-Identifier: MIT */
/* This boot's changes of power source (powerlog.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "boot_id.h"
#include "journal.h"
#include "powerlog.h"

#define UPOWER_DIR "/var/lib/upower"
/* upower keeps a week of history; a file far larger is not upower's. */
#define UPOWER_FILE_MAX (4u << 20)
/* Two journal entries whose clocks differ by no more than this (wall
 * clock minus boot clock) saw no suspend between them. */
#define SAME_OFFSET_US 2000000LL

int powerlog_upower_state(const char *w, size_t n)
{
	static const struct {
		const char *word;
		int state;
	} words[] = {
		{ "charging", 1 },	 { "fully-charged", 1 },
		{ "pending-charge", 1 }, { "discharging", 0 },
		{ "empty", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].word) == n && !memcmp(words[i].word, w, n))
			return words[i].state;
	return -1;
}

size_t powerlog_upower_changes(const char *text, size_t len, int64_t *when,
			       bool *to_mains, size_t cap)
{
	const char *p = text, *end = text + len;
	size_t n = 0;
	int last = -1;

	while (p < end && n < cap) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *tab1, *tab2, *q;
		int64_t t = 0;
		int state;

		tab1 = memchr(p, '\t', (size_t)(e - p));
		tab2 = tab1 ? memchr(tab1 + 1, '\t', (size_t)(e - tab1 - 1))
			    : NULL;
		for (q = p; tab2 && q < tab1 && *q >= '0' && *q <= '9' &&
			    t < (INT64_MAX - 9) / 10;
		     q++)
			t = t * 10 + (*q - '0');
		if (tab2 && q == tab1 && q > p) {
			state = powerlog_upower_state(tab2 + 1,
						      (size_t)(e - tab2 - 1));
			if (state >= 0 && last >= 0 && state != last) {
				when[n] = t;
				to_mains[n++] = state == 1;
			}
			if (state >= 0)
				last = state;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

int powerlog_journal_state(const char *ident, const char *msg)
{
	if (!strcmp(ident, "tlp")) {
		if (strstr(msg, "power_source=ac"))
			return 1;
		if (strstr(msg, "power_source=bat"))
			return 0;
	} else if (!strcmp(ident, "upowerd")) {
		if (strstr(msg, "on_battery = no"))
			return 1;
		if (strstr(msg, "on_battery = yes"))
			return 0;
	}
	return -1;
}

void powerlog_upower_id(const char *model, char *out, size_t cap)
{
	size_t i;

	snprintf(out, cap, "%s", model);
	for (i = 0; out[i]; i++)
		if (strchr("\\\t\"?' /,.", out[i]))
			out[i] = '_';
}

bool powerlog_upower_file(const char *name, const char *id)
{
	static const char *const kinds[] = { "history-rate-",
					     "history-charge-" };
	size_t i, k, n = strlen(name), idn = strlen(id);

	if (!idn || n < 4 || strcmp(name + n - 4, ".dat"))
		return false;
	for (i = 0; i < 2; i++) {
		k = strlen(kinds[i]);
		if (strncmp(name, kinds[i], k) || strncmp(name + k, id, idn))
			continue;
		if (!strcmp(name + k + idn, ".dat") || name[k + idn] == '-')
			return true;
	}
	return false;
}

const struct power_change *powerlog_last_before(const struct power_log *l,
						double t)
{
	const struct power_change *best = NULL;
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->ch[i].time <= t &&
		    (!best || l->ch[i].time >= best->time))
			best = &l->ch[i];
	return best;
}

/* Keeps the change; the list stays in time order, the latest kept. */
static void add(struct power_log *l, double time, bool to_mains,
		const char *source)
{
	size_t i = l->n;

	if (l->n == POWERLOG_MAX) {
		if (time < l->ch[0].time)
			return;
		memmove(l->ch, l->ch + 1, sizeof(l->ch) - sizeof(l->ch[0]));
		i = --l->n;
	}
	while (i > 0 && l->ch[i - 1].time > time) {
		l->ch[i] = l->ch[i - 1];
		i--;
	}
	l->ch[i] = (struct power_change){ time, to_mains, source };
	l->n++;
}

/* The opt-in lines of this boot. */
static void journal_lines(sd_journal *j, const char *match, struct power_log *l)
{
	int last[2] = { -1, -1 }; /* TLP's, upowerd's */

	sd_journal_flush_matches(j);
	if (sd_journal_add_match(j, match, 0) < 0 ||
	    sd_journal_add_match(j, "SYSLOG_IDENTIFIER=tlp", 0) < 0 ||
	    sd_journal_add_match(j, "SYSLOG_IDENTIFIER=upowerd", 0) < 0)
		return;
	SD_JOURNAL_FOREACH(j)
	{
		char ident[16], msg[512];
		uint64_t mono;
		sd_id128_t b;
		int state, k;

		if (journal_field(j, "SYSLOG_IDENTIFIER", ident,
				  sizeof(ident)) < 0 ||
		    journal_field(j, "MESSAGE", msg, sizeof(msg)) < 0 ||
		    sd_journal_get_monotonic_usec(j, &mono, &b) < 0)
			continue;
		state = powerlog_journal_state(ident, msg);
		if (state < 0)
			continue;
		k = strcmp(ident, "tlp") ? 1 : 0;
		if (last[k] >= 0 && state != last[k])
			add(l, (double)mono / 1e6, state == 1,
			    k ? "upowerd" : "TLP");
		last[k] = state;
	}
}

/* One entry's two clocks, the one the journal stands at. */
static bool clocks(sd_journal *j, int64_t *real, int64_t *mono)
{
	uint64_t r, m;
	sd_id128_t b;

	if (sd_journal_get_realtime_usec(j, &r) < 0 ||
	    sd_journal_get_monotonic_usec(j, &m, &b) < 0 || r > INT64_MAX ||
	    m > INT64_MAX)
		return false;
	*real = (int64_t)r;
	*mono = (int64_t)m;
	return true;
}

/*
 * A wall-clock time of this boot on the boot's clock, through this boot's
 * journal entries around it: their wall clock minus their boot clock is
 * constant between suspends.  Entries on both sides with one offset: that
 * offset.  A suspend between them: the offset that puts the time between
 * the two entries on the boot's clock (the nearer entry's if both do).
 * Only entries before it (the time is this boot's latest): the last one's.
 * Only entries after it: the time is not this boot's.
 */
static bool boot_clock(sd_journal *j, int64_t real_us, double *out)
{
	int64_t r0 = 0, m0 = 0, r1 = 0, m1 = 0, pre, post;
	bool before, after;

	if (sd_journal_seek_realtime_usec(j, (uint64_t)real_us) < 0)
		return false;
	after = sd_journal_next(j) > 0 && clocks(j, &r1, &m1) && r1 >= real_us;
	before = sd_journal_previous(j) > 0 && clocks(j, &r0, &m0) &&
		 r0 <= real_us;
	if (before && after && r0 == r1)
		before = sd_journal_previous(j) > 0 && clocks(j, &r0, &m0) &&
			 r0 <= real_us;
	if (!before)
		return false;
	pre = real_us - (r0 - m0);
	if (!after || llabs((r1 - m1) - (r0 - m0)) <= SAME_OFFSET_US) {
		*out = (double)pre / 1e6;
		return true;
	}
	post = real_us - (r1 - m1);
	if (pre >= m0 && pre <= m1 &&
	    !(post >= m0 && post <= m1 && r1 - real_us < real_us - r0)) {
		*out = (double)pre / 1e6;
		return true;
	}
	if (post >= m0 && post <= m1) {
		*out = (double)post / 1e6;
		return true;
	}
	return false;
}

#define UPOWER_CHANGES_MAX 256

struct timed {
	double t;
	bool to_mains;
};

static int by_time(const void *a, const void *b)
{
	double x = ((const struct timed *)a)->t,
	       y = ((const struct timed *)b)->t;

	return (x > y) - (x < y);
}

/* One history file's changes, on the boot's clock, into all[*n]. */
static void upower_file(const char *root, const char *name, sd_journal *j,
			struct timed *all, size_t *n)
{
	char rel[400], path[PATH_UNDER_MAX];
	int64_t when[UPOWER_CHANGES_MAX];
	bool to_mains[UPOWER_CHANGES_MAX];
	size_t len, k, i;
	char *text;

	snprintf(rel, sizeof(rel), UPOWER_DIR "/%.300s", name);
	path_under(root, rel, path, sizeof(path));
	text = fsx_read_max(path, UPOWER_FILE_MAX, &len);
	if (!text)
		return;
	k = powerlog_upower_changes(text, len, when, to_mains,
				    UPOWER_CHANGES_MAX);
	free(text);
	for (i = 0; i < k && *n < 2 * UPOWER_CHANGES_MAX; i++)
		if (when[i] <= INT64_MAX / 1000000 &&
		    boot_clock(j, when[i] * 1000000, &all[*n].t))
			all[(*n)++].to_mains = to_mains[i];
}

/*
 * upower's history of the system battery, on the boot's clock.  Its rate
 * and charge files each see a change when their value next moves, so one
 * change can show in both, a little apart: in time order, a change to the
 * state the one before already went to is that change seen again.
 */
static void upower_history(const char *root, const char *model, sd_journal *j,
			   const char *match, struct power_log *l)
{
	struct timed all[2 * UPOWER_CHANGES_MAX];
	char id[64], dir[PATH_UNDER_MAX];
	struct dirent *e;
	size_t n = 0, i;
	int last = -1;
	DIR *d;

	/* upower leaves a model of two characters or fewer out of the
	 * id: then nothing tells the battery's files from a mouse's. */
	if (strlen(model) <= 2)
		return;
	powerlog_upower_id(model, id, sizeof(id));
	sd_journal_flush_matches(j);
	if (sd_journal_add_match(j, match, 0) < 0)
		return;
	path_under(root, UPOWER_DIR, dir, sizeof(dir));
	d = fsx_opendir(dir);
	while (d && (e = readdir(d)))
		if (powerlog_upower_file(e->d_name, id))
			upower_file(root, e->d_name, j, all, &n);
	if (d)
		closedir(d);
	qsort(all, n, sizeof(all[0]), by_time);
	for (i = 0; i < n; i++) {
		if (last == (int)all[i].to_mains)
			continue;
		last = all[i].to_mains;
		add(l, all[i].t, all[i].to_mains, "upower's history");
	}
}

/* "01234567-89ab-..." -> 32 hex digits, lower case. */
static bool journal_boot_id(const char *uuid, char out[33])
{
	size_t n = 0;

	for (; *uuid && n < 32; uuid++) {
		if (*uuid == '-')
			continue;
		if (!strchr("0123456789abcdefABCDEF", *uuid))
			return false;
		out[n++] = (char)(*uuid | 0x20);
	}
	out[n] = '\0';
	return n == 32 && !*uuid;
}

void powerlog_read(const char *root, const char *battery_model, double until,
		   struct power_log *out)
{
	char boot[BOOT_ID_MAX], hex[33], match[48], dir[PATH_UNDER_MAX];
	bool live = !strcmp(root, "/");
	sd_journal *j;
	int dfd;

	memset(out, 0, sizeof(*out));
	if (!boot_id_read(root, boot) || !journal_boot_id(boot, hex))
		return;
	snprintf(match, sizeof(match), "_BOOT_ID=%s", hex);
	path_under(root, "/var/log/journal", dir, sizeof(dir));
	if (journal_open(live ? NULL : dir, &j, &dfd) < 0)
		return;
	journal_lines(j, match, out);
	upower_history(root, battery_model, j, match, out);
	journal_close(j, dfd);
	while (until >= 0 && out->n && out->ch[out->n - 1].time > until)
		out->n--;
}

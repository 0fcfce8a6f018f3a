/* SPDX-License-Identifier: MIT */
/* This boot's changes of power source (powerlog.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "boot_id.h"
#include "journal.h"
#include "powerlog.h"

#define UPOWER_DIR "/var/lib/upower"
/* upower keeps a week of history; a file far larger is not upower's. */
#define UPOWER_FILE_MAX (4u << 20)
/* Two kernel lines whose clocks (received, wall clock, minus the
 * kernel's time of them) differ by no more than this saw no jump of one
 * clock against the other between them. */
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

	while (p < end && cap) {
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
				/* The history is oldest first and this
				 * boot's are the last: keep the newest. */
				if (n == cap) {
					memmove(when, when + 1,
						(cap - 1) * sizeof(*when));
					memmove(to_mains, to_mains + 1,
						(cap - 1) * sizeof(*to_mains));
					n--;
				}
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

/* A change read, at its wall-clock time, before it is put on the boot's
 * clock. */
struct seen {
	int64_t real_us;
	bool to_mains;
	bool upower; /* upower's history; else an opt-in journal line */
	const char *source;
};

#define SEEN_MAX 512

struct seen_list {
	size_t n;
	struct seen s[SEEN_MAX];
};

/* Keeps the newest SEEN_MAX: each source hands its changes oldest first. */
static void keep(struct seen_list *l, struct seen c)
{
	if (l->n == SEEN_MAX) {
		memmove(l->s, l->s + 1, sizeof(l->s) - sizeof(l->s[0]));
		l->n--;
	}
	l->s[l->n++] = c;
}

/* The opt-in lines of this boot, each program's states in turn. */
static void journal_lines(sd_journal *j, const char *match, struct seen_list *l)
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
		uint64_t real;
		int state, k;

		if (journal_field(j, "SYSLOG_IDENTIFIER", ident,
				  sizeof(ident)) < 0 ||
		    journal_field(j, "MESSAGE", msg, sizeof(msg)) < 0 ||
		    sd_journal_get_realtime_usec(j, &real) < 0 ||
		    real > INT64_MAX)
			continue;
		state = powerlog_journal_state(ident, msg);
		if (state < 0)
			continue;
		k = strcmp(ident, "tlp") ? 1 : 0;
		if (last[k] >= 0 && state != last[k])
			keep(l, (struct seen){ (int64_t)real, state == 1, false,
					       k ? "upowerd" : "TLP" });
		last[k] = state;
	}
}

/* A kernel entry's two clocks: when the journal received it, and the
 * kernel's own time of it (the kernel log's clock). */
static bool clocks(sd_journal *j, int64_t *real, int64_t *klog)
{
	char v[32];
	uint64_t r;
	char *end;
	unsigned long long k;

	if (sd_journal_get_realtime_usec(j, &r) < 0 || r > INT64_MAX ||
	    journal_field(j, "_SOURCE_MONOTONIC_TIMESTAMP", v, sizeof(v)) < 0)
		return false;
	k = strtoull(v, &end, 10);
	if (end == v || *end || k > INT64_MAX)
		return false;
	*real = (int64_t)r;
	*klog = (int64_t)k;
	return true;
}

/*
 * A wall-clock time of this boot on the kernel log's clock, through this
 * boot's kernel lines in the journal: each has the kernel's time of it
 * and the wall-clock time the journal received it, and their difference
 * is constant while neither clock jumps.  The kernel's clock may run on
 * through a sleep (s2idle, the TSC counting on) or not (a deep sleep or a
 * hibernation moves it against the wall clock); and a line the
 * kernel wrote as it went to sleep is received only after the wake, so
 * its difference is too large by the sleep.  So: entries on both sides
 * with one difference, that; with two, the one that puts the time
 * between the two entries on the kernel's clock, and where both do, the
 * smaller (a line received late only ever makes it larger).  Only lines
 * before it (the time is this boot's latest): the last one's.  Only lines
 * after it: the time is not this boot's.
 */
static bool boot_clock(sd_journal *j, int64_t real_us, double *out)
{
	int64_t r0 = 0, k0 = 0, r1 = 0, k1 = 0, o0, o1, pre, post;
	bool before, after, pre_ok, post_ok;

	if (sd_journal_seek_realtime_usec(j, (uint64_t)real_us) < 0)
		return false;
	after = sd_journal_next(j) > 0 && clocks(j, &r1, &k1) && r1 >= real_us;
	before = sd_journal_previous(j) > 0 && clocks(j, &r0, &k0) &&
		 r0 <= real_us;
	if (before && after && r0 == r1)
		before = sd_journal_previous(j) > 0 && clocks(j, &r0, &k0) &&
			 r0 <= real_us;
	if (!before)
		return false;
	o0 = r0 - k0;
	pre = real_us - o0;
	if (!after || llabs((r1 - k1) - o0) <= SAME_OFFSET_US) {
		*out = (double)pre / 1e6;
		return true;
	}
	o1 = r1 - k1;
	post = real_us - o1;
	pre_ok = pre >= k0 && pre <= k1;
	post_ok = post >= k0 && post <= k1;
	if (pre_ok && (!post_ok || o0 <= o1))
		*out = (double)pre / 1e6;
	else if (post_ok)
		*out = (double)post / 1e6;
	else
		return false;
	return true;
}

#define UPOWER_CHANGES_MAX 256

/* One history file's changes, at their wall-clock times. */
static void upower_file(const char *root, const char *name, struct seen_list *l)
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
	for (i = 0; i < k; i++)
		if (when[i] >= 0 && when[i] <= INT64_MAX / 1000000)
			keep(l, (struct seen){ when[i] * 1000000, to_mains[i],
					       true, "upower's history" });
}

/* upower's history of the system battery. */
static void upower_history(const char *root, const char *model,
			   struct seen_list *l)
{
	char id[64], dir[PATH_UNDER_MAX];
	struct dirent *e;
	DIR *d;

	/* upower leaves a model of two characters or fewer out of the
	 * id: then nothing tells the battery's files from a mouse's. */
	if (strlen(model) <= 2)
		return;
	powerlog_upower_id(model, id, sizeof(id));
	path_under(root, UPOWER_DIR, dir, sizeof(dir));
	d = fsx_opendir(dir);
	while (d && (e = readdir(d)))
		if (powerlog_upower_file(e->d_name, id))
			upower_file(root, e->d_name, l);
	if (d)
		closedir(d);
}

struct timed {
	double t;
	const struct seen *c;
};

static int by_time(const void *a, const void *b)
{
	double x = ((const struct timed *)a)->t,
	       y = ((const struct timed *)b)->t;

	return (x > y) - (x < y);
}

/*
 * The changes on the kernel log's clock, up to `until`, into out.
 * upower's rate and charge files each see a change when their value next
 * moves, so one change can show in both, a little apart: in time order,
 * a change of upower's to the state its one before already went to is
 * that change seen again.
 */
static void place(sd_journal *j, const char *match, const struct seen_list *l,
		  double until, struct power_log *out)
{
	struct timed t[SEEN_MAX];
	size_t n = 0, i;
	int last = -1;

	sd_journal_flush_matches(j);
	if (sd_journal_add_match(j, match, 0) < 0 ||
	    sd_journal_add_match(j, "_TRANSPORT=kernel", 0) < 0)
		return;
	for (i = 0; i < l->n; i++)
		if (boot_clock(j, l->s[i].real_us, &t[n].t) &&
		    (until < 0 || t[n].t <= until))
			t[n++].c = &l->s[i];
	qsort(t, n, sizeof(t[0]), by_time);
	for (i = 0; i < n; i++) {
		if (t[i].c->upower) {
			if (last == (int)t[i].c->to_mains)
				continue;
			last = t[i].c->to_mains;
		}
		add(out, t[i].t, t[i].c->to_mains, t[i].c->source);
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
	struct seen_list *seen;
	sd_journal *j;
	int dfd;

	memset(out, 0, sizeof(*out));
	if (!boot_id_read(root, boot) || !journal_boot_id(boot, hex))
		return;
	snprintf(match, sizeof(match), "_BOOT_ID=%s", hex);
	path_under(root, "/var/log/journal", dir, sizeof(dir));
	if (journal_open(live ? NULL : dir, &j, &dfd) < 0)
		return;
	seen = calloc(1, sizeof(*seen));
	if (seen) {
		journal_lines(j, match, seen);
		upower_history(root, battery_model, seen);
		place(j, match, seen, until, out);
		free(seen);
	}
	journal_close(j, dfd);
}

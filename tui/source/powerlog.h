/* SPDX-License-Identifier: MIT */
/*
 * This boot's changes of power source, on the kernel log's clock, for the
 * diagnosis to set beside a watchdog drop (the Framework 13/16 AMD
 * pattern: docs/DESIGN.md 9.2).  No program writes such a change to the
 * journal or the kernel log by default (DESIGN 9.2 has the survey, with
 * sources).  What does have them:
 *
 *   - upower's history, which upowerd keeps by default wherever it runs:
 *     /var/lib/upower/history-{rate,charge}-<battery>.dat, one line per
 *     change of value, "unix-seconds<TAB>value<TAB>state".  The state
 *     going from discharging to charging (or fully-charged,
 *     pending-charge), or back, is a change of power source.  Only the
 *     system battery's files are read (their name starts with its model
 *     from /sys/class/power_supply; a model of two characters or fewer,
 *     which upower leaves out, reads none): a mouse charged over USB keeps
 *     a history too.
 *   - opt-in journal lines: TLP with TLP_DEBUG="run" logs
 *     "power_source=ac(...)" or "power_source=bat(...)" at each run, and
 *     upowerd run with -v "on_battery = yes|no"; each says a state, and a
 *     change is a state that differs from the one before.
 *
 * Both are wall-clock times; the kernel log's are the kernel's own clock,
 * which may run on through a sleep (s2idle, the TSC counting on) or not
 * (a deep sleep, a hibernation).  Each kernel line in this boot's journal
 * carries both (the kernel's time of it, and when the journal received it), so
 * a change is put on the kernel's clock by the lines around it (powerlog.c,
 * boot_clock).
 *
 * "This boot" is the one /proc/sys/kernel/random/boot_id under the root
 * names; nothing is read without it.
 */
#ifndef TSCTUI_SOURCE_POWERLOG_H
#define TSCTUI_SOURCE_POWERLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct power_change {
	double time;	    /* seconds since boot, the kernel log's clock */
	bool to_mains;	    /* to mains power; false: to the battery */
	const char *source; /* "upower's history", "TLP", "upowerd" */
};

#define POWERLOG_MAX 16

struct power_log {
	size_t n; /* the last POWERLOG_MAX of this boot, oldest first */
	struct power_change ch[POWERLOG_MAX];
};

/* Reads this boot's changes under root (the live system's own journal
 * when root is "/"), those up to `until` (seconds since boot; < 0: all):
 * the watchdog's drop, after which none can have caused it.
 * battery_model is the system battery's (sys_power.battery_model).
 * Nothing found or nothing to read: n = 0. */
void powerlog_read(const char *root, const char *battery_model, double until,
		   struct power_log *out);

/* The last change at or before t (seconds since boot), or NULL. */
const struct power_change *powerlog_last_before(const struct power_log *l,
						double t);

/* The pure parts, for the tests. */

/* An upower state word: 1 on mains (charging, fully-charged,
 * pending-charge), 0 on the battery (discharging, empty), -1 neither
 * (unknown, pending-discharge, anything else). */
int powerlog_upower_state(const char *word, size_t len);

/* The changes of power source in one upower history text, in its order:
 * up to cap of them, each its unix time and direction.  Lines that do not
 * parse, and states that say neither, are passed over. */
size_t powerlog_upower_changes(const char *text, size_t len, int64_t *when,
			       bool *to_mains, size_t cap);

/* A journal message's state: 1 on mains, 0 on the battery, -1 none.
 * ident is its SYSLOG_IDENTIFIER. */
int powerlog_journal_state(const char *ident, const char *msg);

/* upower's own name for a battery model: the characters it replaces in
 * an id ("\\\t\"?' /,.") made '_'. */
void powerlog_upower_id(const char *model, char *out, size_t cap);

/* Whether a history file name is one of the battery whose upower id
 * starts with `id`: "history-rate-<id>.dat", "history-rate-<id>-...". */
bool powerlog_upower_file(const char *name, const char *id);

#endif

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/string_table.h"
#include "kernlog.h"

static const char *const names[KLOG_KINDS] = {
	"warp",
	"warp-random",
	"unstable",
	"watchdog-skew",
	"frequency-skew",
	"watchdog-timeout",
	"readback-delay",
	"switch",
	"found-unstable",
	"fw-bug-tsc-adjust",
	"tsc-adjust-compensate",
	"tsc-adjust-differs",
	"fw-bug-tsc-p0",
	"long-readout",
	"hypervisor",
	"paravirt",
	"cpus-apart",
	"inter-cpu-skew",
	"directsync",
};

STRING_TABLE_TO(kernlog_kind_name, enum klog_kind, names, "?")

/* The reasons mark_tsc_unstable() has been given since 3.x, by the words
 * that tell them apart ("TSC halts in idle" has grown a tail in
 * intel_idle: "... states deeper than C2"). */
/* Each cause's name (status JSON), and the words of the kernel's reason
 * that say it. */
static const char *const cause_names[] = {
	[KLOG_CAUSE_OTHER] = "other",
	[KLOG_CAUSE_SYNC_CHECK] = "sync-check",
	[KLOG_CAUSE_WATCHDOG] = "watchdog",
	[KLOG_CAUSE_UNSYNCHRONIZED] = "unsynchronized",
	[KLOG_CAUSE_HYPERV] = "hyper-v",
	[KLOG_CAUSE_CPUFREQ] = "cpufreq",
	[KLOG_CAUSE_IDLE] = "halts-in-idle",
	[KLOG_CAUSE_PARAMETER] = "boot-parameter",
};
_Static_assert(STRING_TABLE_SIZE(cause_names) == KLOG_CAUSES,
	       "every cause has its name");
STRING_TABLE_TO(kernlog_cause_name, enum klog_cause, cause_names, "other")

static const char *const cause_words[] = {
	[KLOG_CAUSE_SYNC_CHECK] = "check_tsc_sync_source",
	[KLOG_CAUSE_WATCHDOG] = "clocksource watchdog",
	[KLOG_CAUSE_UNSYNCHRONIZED] = "TSCs unsynchronized",
	[KLOG_CAUSE_HYPERV] = "running on Hyper-V",
	[KLOG_CAUSE_CPUFREQ] = "cpufreq changes",
	[KLOG_CAUSE_IDLE] = "TSC halts in idle",
	[KLOG_CAUSE_PARAMETER] = "boot parameter",
};

static enum klog_cause cause_of(const char *reason)
{
	size_t i;

	for (i = 0; i < STRING_TABLE_SIZE(cause_words); i++)
		if (cause_words[i] && strstr(reason, cause_words[i]))
			return (enum klog_cause)i;
	return KLOG_CAUSE_OTHER;
}

/* Hypervisors' clocks: KVM's pvclock, Hyper-V's reference TSC page and
 * its MSR fallback, Xen's pvclock. */
bool kernlog_paravirt_clock(const char *name)
{
	return !strcmp(name, "kvm-clock") || !strcmp(name, "xen") ||
	       !strncmp(name, "hyperv_clocksource", 18);
}

double kernlog_tsc_mhz(const struct klog *k)
{
	if (k->refined_mhz > 0)
		return k->refined_mhz;
	if (k->detected_tsc_mhz > 0)
		return k->detected_tsc_mhz;
	return k->detected_mhz;
}

double kernlog_ppm(const struct klog_event *e)
{
	if (!e->has_intervals || e->wd_ns <= 0)
		return 0;
	return (double)(e->cs_ns - e->wd_ns) / (double)e->wd_ns * 1e6;
}

/* The first mainline release taken to carry the 2026 watchdog: the
 * rewrite sits in the tip tree's timers/core on top of v7.0-rc, so the
 * merge window after 7.0.  Not confirmed (REFERENCE); used only where no
 * wording decides. */
#define WATCHDOG_2026_MAJOR 7
#define WATCHDOG_2026_MINOR 1

static enum klog_watchdog by_version(int major, int minor)
{
	if (major <= 0)
		return KLOG_WATCHDOG_UNKNOWN;
	if (major > WATCHDOG_2026_MAJOR ||
	    (major == WATCHDOG_2026_MAJOR && minor >= WATCHDOG_2026_MINOR))
		return KLOG_WATCHDOG_2026;
	return KLOG_WATCHDOG_CLASSIC;
}

enum klog_watchdog kernlog_watchdog(const struct klog *k,
				    const char *running_release,
				    enum klog_watchdog_by *by)
{
	int major = 0, minor = 0;
	enum klog_watchdog w;

	*by = KLOG_WATCHDOG_BY_WORDING;
	if (k->wd_2026_words && !k->wd_classic_words)
		return KLOG_WATCHDOG_2026;
	if (k->wd_classic_words && !k->wd_2026_words)
		return KLOG_WATCHDOG_CLASSIC;
	*by = KLOG_WATCHDOG_BY_VERSION;
	if (k->version_major > 0)
		w = by_version(k->version_major, k->version_minor);
	else if (running_release &&
		 sscanf(running_release, "%d.%d", &major, &minor) == 2)
		w = by_version(major, minor);
	else
		w = KLOG_WATCHDOG_UNKNOWN;
	if (w == KLOG_WATCHDOG_UNKNOWN)
		*by = KLOG_WATCHDOG_BY_NONE;
	return w;
}

static const char *const watchdog_names[] = {
	[KLOG_WATCHDOG_UNKNOWN] = "unknown",
	[KLOG_WATCHDOG_CLASSIC] = "classic",
	[KLOG_WATCHDOG_2026] = "2026",
};
STRING_TABLE_TO(kernlog_watchdog_name, enum klog_watchdog, watchdog_names,
		"unknown")

static const char *const watchdog_by_names[] = {
	[KLOG_WATCHDOG_BY_NONE] = "none",
	[KLOG_WATCHDOG_BY_WORDING] = "wording",
	[KLOG_WATCHDOG_BY_VERSION] = "version",
};
STRING_TABLE_TO(kernlog_watchdog_by_name, enum klog_watchdog_by,
		watchdog_by_names, "none")

/* 2026: |wd - cs| >= interval / 2048 calibrated, / 256 before.  Classic:
 * two margins of at least 2 * 62.5 us over the 0.5 s interval. */
#define WATCHDOG_2026_SHIFT_CALIBRATED 11
#define WATCHDOG_2026_SHIFT_UNCALIBRATED 8
#define WATCHDOG_CLASSIC_MARGIN_NS (2 * 2 * 62500.0)
#define WATCHDOG_INTERVAL_NS 500000000.0

double kernlog_watchdog_limit_ppm(enum klog_watchdog w, bool tsc_calibrated)
{
	if (w == KLOG_WATCHDOG_2026)
		return 1e6 /
		       (double)(1u
				<< (tsc_calibrated
					    ? WATCHDOG_2026_SHIFT_CALIBRATED
					    : WATCHDOG_2026_SHIFT_UNCALIBRATED));
	if (w == KLOG_WATCHDOG_CLASSIC)
		return WATCHDOG_CLASSIC_MARGIN_NS / WATCHDOG_INTERVAL_NS * 1e6;
	return 0;
}

static struct klog_event *add(struct klog_parser *s, enum klog_kind kind,
			      double t)
{
	struct klog_event *e;

	if (s->k->n == KLOG_MAX_EVENTS)
		return NULL;
	e = &s->k->ev[s->k->n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->time = t;
	e->cpus[0] = e->cpus[1] = -1;
	return e;
}

static void copy_text(struct klog_event *e, const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '.' || s[n - 1] == '\r'))
		n--;
	if (n >= sizeof(e->text))
		n = sizeof(e->text) - 1;
	memcpy(e->text, s, n);
	e->text[n] = '\0';
}

/* What journalctl puts between the host name and the message. */
#define JOURNAL_KERNEL " kernel: "

/* After short-monotonic's "[ t]": the host name (at most 64 characters,
 * HOST_NAME_MAX) and JOURNAL_KERNEL, with room to spare.  Further away,
 * " kernel: " is part of the message. */
#define JOURNAL_HOST_SPAN 80

/* Where a search in [p, end) may look: up to the first NUL, as the
 * string functions this replaced stopped there. */
static const char *nul_or(const char *p, const char *end)
{
	const char *z = memchr(p, '\0', (size_t)(end - p));

	return z ? z : end;
}

/* The first needle in [p, end), or NULL.  Never reads past end. */
static const char *find_in(const char *p, const char *end, const char *needle)
{
	size_t m = strlen(needle);

	if (end - p < (ptrdiff_t)m)
		return NULL;
	return memmem(p, (size_t)(end - p), needle, m);
}

/* The /dev/kmsg prefix "prio,seq,usec,flags;" at line, semi its ';'.
 * Returns its length (0: not one) and *usec.  sscanf reads a NUL-terminated
 * copy of the prefix alone: on the text itself it would measure the whole
 * rest of the buffer first (glibc does a strlen), line after line. */
static int kmsg_prefix(const char *line, const char *semi, long long *usec)
{
	size_t n = (size_t)(semi + 1 - line);
	char small[128], *c = n < sizeof(small) ? small : malloc(n + 1);
	int got = 0;

	if (!c)
		return 0;
	memcpy(c, line, n);
	c[n] = '\0';
	if (sscanf(c, "%*d,%*u,%lld,%*[^;];%n", usec, &got) < 1)
		got = 0;
	if (c != small)
		free(c);
	return got;
}

/* A message's time: kmsg's, or where the "[ t]" text is, read only for
 * the lines that matter (strtod is a good part of a line's cost). */
struct stamp {
	double t; /* < 0: none, or in text */
	const char *text;
	size_t n;
};

static double stamp_time(const struct stamp *st)
{
	char buf[32];

	if (!st->text)
		return st->t;
	memcpy(buf, st->text, st->n);
	buf[st->n] = '\0';
	return strtod(buf, NULL);
}

/* Where " kernel: " may end a syslog-style prefix: a date (journalctl's
 * "Nov 29 10:00:00", rsyslog's ISO "2013-07-16T05:00:05.181538-04:00",
 * OpenWrt logread's "Tue Mar  8 13:19:34 2022 kern.info"), a host name
 * of at most 64 characters (HOST_NAME_MAX), with room to spare.  Further
 * in, " kernel: " is part of the message. */
#define SYSLOG_PREFIX_SPAN 160

/* How far a bracketed prefix may reach for its "]". */
#define BRACKET_SPAN 40

/* A dmesg time, "    3.149285": blanks, digits, one dot, digits. */
static bool is_boot_time(const char *s, size_t n)
{
	size_t i = 0, digits = 0, dots = 0;

	while (i < n && s[i] == ' ')
		i++;
	for (; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else if (s[i] == '.' && dots++ == 0)
			continue;
		else
			return false;
	}
	return digits > 0;
}

/* A wall clock in brackets: "[Mon Aug 31 11:03:01 2020]" (dmesg -T) or
 * "[01:13:22.717]" (Docker Desktop's "[time][Moby][Info]" prefix): a
 * "d:dd:" in it.  Not a boot time, and not the message: "[Firmware Bug]"
 * has no such thing. */
static bool is_wall_clock(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i + 3 < n; i++)
		if (s[i] >= '0' && s[i] <= '9' && s[i + 1] == ':' &&
		    s[i + 2] >= '0' && s[i + 2] <= '9' && s[i + 3] >= '0' &&
		    s[i + 3] <= '9')
			return true;
	return false;
}

/* Strips the prefixes: "[ t] ", "<6>[ t] ", a syslog date, host and
 * "kernel: " (journalctl short and short-monotonic, kern.log with or
 * without its date, rsyslog ISO, OpenWrt logread), dmesg -T's and Docker
 * Desktop's bracketed wall clocks (never taken for a boot time), kmsg
 * "6,123,4567890,-;".  Returns the message; *t the time.  Reads
 * line[0 .. *len) only. */
static const char *message(const char *line, size_t *len, struct stamp *t)
{
	const char *p = line, *end = line + *len, *q, *lim;
	size_t klen = strlen(JOURNAL_KERNEL);
	bool boot_time = false;
	int groups;

	t->t = -1;
	t->text = NULL;
	t->n = 0;
	/* /dev/kmsg: prio,seq,usec,flags;message */
	if (p < end && p[0] >= '0' && p[0] <= '9' &&
	    (q = memchr(p, ';', (size_t)(end - p)))) {
		long long usec;
		int n = kmsg_prefix(p, q, &usec);

		if (n > 0) {
			t->t = (double)usec / 1e6;
			p += n;
			*len = (size_t)(end - p);
			return p;
		}
	}
	if (p < end && p[0] == '<' && (q = memchr(p, '>', (size_t)(end - p))))
		p = q + 1;
	/* A dmesg time first (most lines): no other prefix to look for.
	 * Else a wall clock in brackets, and the tags chained to it with no
	 * blank between ("[01:13:22.717][Moby][Info] "). */
	if (p < end && *p == '[' &&
	    (q = memchr(p, ']',
			(size_t)(end - p) < BRACKET_SPAN ? (size_t)(end - p)
							 : BRACKET_SPAN))) {
		if (q - p < 32 && is_boot_time(p + 1, (size_t)(q - p - 1))) {
			boot_time = true;
		} else if (is_wall_clock(p, (size_t)(q - p))) {
			p = q + 1;
			for (groups = 0; groups < 4 && p < end && *p == '[';
			     groups++) {
				q = memchr(p, ']', (size_t)(end - p));
				if (!q || q - p > BRACKET_SPAN)
					break;
				p = q + 1;
			}
			while (p < end && *p == ' ')
				p++;
		}
	}
	/* A syslog prefix ends in " kernel: " (or starts with "kernel: ",
	 * kern.log without its date), unless the line starts with a time. */
	if (boot_time) {
		/* the time is read below */
	} else if (end - p >= (ptrdiff_t)klen - 1 &&
		   !memcmp(p, JOURNAL_KERNEL + 1, klen - 1)) {
		p += klen - 1;
	} else if (p < end && *p != '[') {
		lim = nul_or(p, end);
		if (lim - p > SYSLOG_PREFIX_SPAN)
			lim = p + SYSLOG_PREFIX_SPAN;
		if ((q = find_in(p, lim, JOURNAL_KERNEL)))
			p = q + klen;
	}
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '[' && (q = memchr(p, ']', (size_t)(end - p))) &&
	    (size_t)(q - p) < 32 && is_boot_time(p + 1, (size_t)(q - p - 1))) {
		t->text = p + 1;
		t->n = (size_t)(q - p - 1);
		p = q + 1;
		/* short-monotonic: "[ t] host kernel: ", starting within
		 * JOURNAL_HOST_SPAN of the "]" */
		lim = nul_or(p, end);
		if (lim - p > JOURNAL_HOST_SPAN - 1 + (ptrdiff_t)klen)
			lim = p + JOURNAL_HOST_SPAN - 1 + klen;
		if ((q = find_in(p, lim, JOURNAL_KERNEL)))
			p = q + klen;
	}
	while (p < end && *p == ' ')
		p++;
	*len = (size_t)(end - p);
	return p;
}

static const char *find(const char *s, size_t n, const char *needle)
{
	return find_in(s, s + n, needle);
}

/* Just past needle in s, or NULL: where a message's number starts. */
static const char *after(const char *s, size_t n, const char *needle)
{
	const char *p = find(s, n, needle);

	return p ? p + strlen(needle) : NULL;
}

static double mhz_after(const char *s, size_t n, const char *needle)
{
	const char *p = after(s, n, needle);

	return p ? strtod(p, NULL) : 0;
}

/* The words a message names (words()), which decide the wordings
 * line() tries. */
enum {
	W_TSC = 1u << 0,
	W_TSC_LOWER = 1u << 1,
	W_NSEC = 1u << 2,
	W_WATCHDOG = 1u << 3,
	W_READBACK = 1u << 4,
	W_CLOCKSOURCE = 1u << 5,
	W_MHZ = 1u << 6,
	W_CLOCKSOURCE_UPPER = 1u << 7,
	W_WD_NOW = 1u << 8,
	W_GUEST = 1u << 9,    /* DMI:, Hypervisor detected, Booting
				 paravirtualized, kvm-clock */
	W_VERSION = 1u << 10, /* Linux version, at the message's start */
	W_PM = 1u << 11,      /* PM: at the message's start */
};

/* src into dst[cap], cut to fit. */
static void put(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool is_tsc(const char *cs)
{
	return !strcmp(cs, "tsc") || !strcmp(cs, "tsc-early");
}

/* The name in quotes right after needle ("Marking clocksource 'tsc-early'
 * as ..."), into out[32]; false when there is none. */
static bool quoted(const char *m, size_t n, const char *needle, char *out)
{
	const char *p = after(m, n, needle);

	return p && sscanf(p, "%31[^']'", out) == 1;
}

/* The quoted name that starts the watchdog's continuation lines
 * ("'hpet' wd_nsec: ..."), when field follows it. */
static bool leading_name(const char *m, size_t n, const char *field, char *out)
{
	const char *q = memchr(m, '\'', n);
	char name[32];
	int got = 0;

	if (!q || sscanf(q, "'%31[^']'%n", name, &got) != 1 || !got)
		return false;
	q += got;
	while (*q == ' ')
		q++;
	if (strncmp(q, field, strlen(field)))
		return false;
	memcpy(out, name, sizeof(name));
	return true;
}

static void set_watchdog(struct klog_parser *s, struct klog_event *e,
			 const char *name)
{
	put(e->watchdog, sizeof(e->watchdog), name);
	put(s->k->watchdog, sizeof(s->k->watchdog), name);
}

/* The watchdog's lines after its "skew is too large" line: the
 * watchdog's interval (5.x, 6.x: wd_nsec) or its name alone (4.x:
 * wd_now), the clocksource's.  True when the line was one. */
static bool skew_detail(struct klog_parser *s, const char *m, size_t n)
{
	struct klog_event *e = s->skew;
	const char *p;
	char name[32];
	long long v;

	if (leading_name(m, n, "wd_nsec: ", name)) {
		p = after(m, n, "wd_nsec: ");
		if (sscanf(p, "%lld", &v) == 1)
			e->wd_ns = v;
		set_watchdog(s, e, name);
		return true;
	}
	if (leading_name(m, n, "wd_now: ", name)) {
		set_watchdog(s, e, name);
		return true;
	}
	if (leading_name(m, n, "cs_nsec: ", name)) {
		p = after(m, n, "cs_nsec: ");
		if (sscanf(p, "%lld", &v) == 1) {
			e->cs_ns = v;
			e->has_intervals = e->wd_ns > 0;
		}
		return true;
	}
	return leading_name(m, n, "cs_now: ", name);
}

/* The read-back family of the watchdog (5.14 on): a slow read of the
 * watchdog's reference, not a skew of the TSC.  True when the line was
 * one. */
static bool readback(struct klog_parser *s, const char *m, size_t n, double t)
{
	struct klog_event *e;
	const char *p;
	char name[32];
	long long v;

	/* The second line of a skipped round (5.15.y, 5.16 on):
	 * "wd-tsc-wd read-back delay of N ns, clock-skew test skipped!" */
	if (find(m, n, "clock-skew test skipped")) {
		e = s->delay ? s->delay : add(s, KLOG_READBACK_DELAY, t);
		s->delay = NULL;
		if (!e)
			return true;
		e->skipped = true;
		if ((p = after(m, n, "read-back delay of ")) &&
		    sscanf(p, "%lld", &v) == 1)
			e->delay_ns = v;
		return true;
	}
	if (!find(m, n, "read-back delay") &&
	    !find(m, n, "times before success"))
		return false;
	if (!(e = add(s, KLOG_READBACK_DELAY, t)))
		return true;
	s->delay = NULL;
	copy_text(e, m, n);
	if ((p = after(m, n, "watchdog on CPU")))
		sscanf(p, "%d", &e->cpus[0]);
	if ((p = after(m, n, "delay of ")) && sscanf(p, "%lld", &v) == 1)
		e->delay_ns = v;
	if ((p = after(m, n, "limit of ")) && sscanf(p, "%lld", &v) == 1)
		e->limit_ns = v;
	if ((p = after(m, n, "attempt ")))
		sscanf(p, "%d", &e->attempt);
	else if ((p = after(m, n, " retried ")))
		sscanf(p, "%d", &e->attempt);
	/* 6.x names the clocksource it marks ("marking tsc unstable");
	 * 5.14-5.15 marks the one under test, on x86 the TSC. */
	if ((p = after(m, n, "marking ")))
		e->dropped = !strncmp(p, "unstable", 8) ||
			     (sscanf(p, "%31s", name) == 1 && is_tsc(name));
	/* "on CPUn: hpet read-back delay", "on CPUn: acpi_pm wd-wd ..." */
	if ((p = after(m, n, "watchdog on CPU")) && (p = strstr(p, ": ")) &&
	    sscanf(p + 2, "%31s", name) == 1 && strncmp(name, "wd-", 3) &&
	    strcmp(name, "read-back"))
		set_watchdog(s, e, name);
	if (find(m, n, "wd-wd read-back delay of"))
		s->delay = e; /* its "clock-skew test skipped" line follows */
	return true;
}

/* A clocksource the kernel registered ("clocksource: kvm-clock: mask:",
 * 3.x "clocksource kvm-clock: mask:") or switched to, if paravirtual. */
static void note_clock(struct klog_parser *s, const char *name)
{
	if (!s->k->paravirt_cs[0] && kernlog_paravirt_clock(name))
		put(s->k->paravirt_cs, sizeof(s->k->paravirt_cs), name);
}

/* The watchdog dropped the TSC at t: the first such line's time. */
static void dropped(struct klog *k, double t)
{
	if (!k->wd_dropped)
		k->wd_dropped_at = t;
	k->wd_dropped = true;
}

/* The wordings that say TSC: tsc.c, tsc_sync.c, the AMD firmware line. */
static bool line_tsc(struct klog_parser *s, const char *m, size_t n, double t)
{
	struct klog_event *e;
	const char *p;
	long long v;
	int a, b;

	if ((p = find(m, n, "TSC synchronization [CPU#")) &&
	    sscanf(p, "TSC synchronization [CPU#%d -> CPU#%d]", &a, &b) == 2) {
		s->sync_from = a;
		s->sync_to = b;
		return true;
	}
	if ((p = after(m, n, "Measured ")) && find(m, n, "cycles TSC warp") &&
	    sscanf(p, "%lld", &v) == 1 && (e = add(s, KLOG_WARP, t))) {
		e->cycles = v;
		e->cpus[0] = s->sync_from;
		e->cpus[1] = s->sync_to;
		return true;
	}
	/* The out-of-tree tsc=directsync sync retries its warp test and
	 * prints each correction (pr_info in the posted patch, pr_debug in
	 * SteamOS's): up to 1000 lines a CPU, so one event a CPU. */
	if ((p = after(m, n, "TSC direct sync: CPU")) &&
	    sscanf(p, "%d observed %lld warp", &a, &v) == 2) {
		long long o = 0;
		const char *q = after(m, n, "Overhead: ");
		size_t i;

		for (i = 0, e = NULL; i < s->k->n; i++)
			if (s->k->ev[i].kind == KLOG_DIRECTSYNC &&
			    s->k->ev[i].cpus[0] == a)
				e = &s->k->ev[i];
		if (!e && (e = add(s, KLOG_DIRECTSYNC, t)))
			e->cpus[0] = a;
		if (e) {
			e->corrections++;
			e->cycles += v;
			if (q && sscanf(q, "%lld", &o) == 1)
				e->overhead += o;
		}
		return true;
	}
	if (find(m, n, "TSC warped randomly between CPUs")) {
		add(s, KLOG_WARP_RANDOM, t);
		return true;
	}
	if ((p = after(m, n, "Marking TSC unstable due to ")) &&
	    (e = add(s, KLOG_UNSTABLE, t))) {
		copy_text(e, p, n - (size_t)(p - m));
		e->cause = cause_of(e->text);
		if (e->cause == KLOG_CAUSE_WATCHDOG)
			dropped(s->k, t);
		return true;
	}

	if (find(m, n, "TSC found unstable after boot")) {
		add(s, KLOG_FOUND_UNSTABLE, t);
		return true;
	}
	if (find(m, n, "TSC doesn't count with P0 frequency")) {
		add(s, KLOG_FW_BUG_P0, t);
		return true;
	}
	/* "[Firmware Bug]: TSC ADJUST differs: Reference CPU0: ..." (4.10)
	 * and "... differs: CPU3 0 --> 78394770. Restoring" (4.11 on) */
	if (find(m, n, "TSC ADJUST differs")) {
		if ((e = add(s, KLOG_ADJUST_DIFFERS, t))) {
			copy_text(e, m, n);
			p = after(m, n, "differs: ");
			if (p && !strncmp(p, "Reference CPU", 13) &&
			    (p = strstr(p + 13, " CPU")))
				sscanf(p + 4, "%d", &e->cpus[0]);
			else if (p && !strncmp(p, "CPU", 3))
				sscanf(p + 3, "%d", &e->cpus[0]);
		}
		return true;
	}
	if (find(m, n, "TSC ADJUST: CPU") && find(m, n, "force to 0")) {
		if ((e = add(s, KLOG_FW_BUG_ADJUST, t))) {
			copy_text(e, m, n);
			if ((p = after(m, n, "TSC ADJUST: CPU")))
				sscanf(p, "%d", &e->cpus[0]);
		}
		return true;
	}
	if ((p = after(m, n, "TSC ADJUST compensate: CPU")) &&
	    (e = add(s, KLOG_ADJUST_COMPENSATE, t))) {
		if (sscanf(p, "%d observed %lld", &e->cpus[0], &v) == 2)
			e->cycles = v;
		return true;
	}
	return false;
}

/* The wordings of the clocksource watchdog and the clocksource core. */
static bool line_watchdog(struct klog_parser *s, const char *m, size_t n,
			  double t)
{
	struct klog_event *e;
	const char *p, *q0;
	char name[32];
	long long v;

	/* 4.1-4.2 wrote "as unstable, because the skew is too large" */
	if (quoted(m, n, "Marking clocksource '", name) &&
	    find(m, n, "' as unstable") &&
	    find(m, n, "because the skew is too large")) {
		s->k->wd_classic_words = true;
		if (is_tsc(name) && (e = add(s, KLOG_WATCHDOG_SKEW, t))) {
			put(e->clocksource, sizeof(e->clocksource), name);
			if ((p = after(m, n, "watchdog on CPU")))
				sscanf(p, "%d", &e->cpus[0]);
			s->skew = e;
		}
		return true;
	}
	/* 5.x/6.x: one line with the skew and the watchdog interval. */
	if (quoted(m, n, "Clocksource '", name) && is_tsc(name) &&
	    (p = find(m, n, "' skewed ")) &&
	    sscanf(p + strlen("' skewed "), "%lld", &v) == 1) {
		const char *q = after(m, n, "interval of ");
		long long wd;

		s->k->wd_classic_words = true;
		e = s->skew ? s->skew : add(s, KLOG_WATCHDOG_SKEW, t);
		if (e && !e->clocksource[0])
			put(e->clocksource, sizeof(e->clocksource), name);
		if (e && q && sscanf(q, "%lld", &wd) == 1) {
			e->wd_ns = wd;
			e->cs_ns = wd + v;
			e->has_intervals = true;
		}
		if (e && quoted(m, n, "over watchdog '", name))
			set_watchdog(s, e, name);
		return true;
	}
	/* 3.x and RHEL 6/7: "Clocksource tsc unstable (delta = N ns)",
	 * sometimes with RHEL's clocksource_failover advice after it. */
	if ((p = after(m, n, "Clocksource tsc unstable (delta = ")) &&
	    sscanf(p, "%lld", &v) == 1 && (e = add(s, KLOG_WATCHDOG_SKEW, t))) {
		s->k->wd_classic_words = true;
		put(e->clocksource, sizeof(e->clocksource), "tsc");
		e->delta_ns = v;
		e->has_delta = true;
		s->skew = NULL;
		return true;
	}
	/* The 2026 watchdog's own time-out: "Watchdog hpet read timed out.
	 * Readout sequence took: N ns" (retried; the check goes on). */
	if ((p = after(m, n, "Watchdog ")) && find(m, n, " read timed out") &&
	    (q0 = after(m, n, "Readout sequence took: ")) &&
	    (e = add(s, KLOG_WATCHDOG_TIMEOUT, t))) {
		s->k->wd_2026_words = true;
		if (sscanf(p, "%31s", name) == 1)
			put(e->watchdog, sizeof(e->watchdog), name);
		if (sscanf(q0, "%lld", &v) == 1)
			e->delay_ns = v;
		return true;
	}
	/* The 2026 watchdog's frequency check: "Watchdog %20s interval:
	 * %16lluns" then "Clocksource %20s interval: %16lluns" (the field
	 * report's pair; names right-aligned, so spaces before them). */
	if ((p = after(m, n, "Watchdog ")) && find(m, n, " interval: ") &&
	    !find(m, n, "remote")) {
		const char *q = after(m, n, " interval: ");

		s->k->wd_2026_words = true;
		e = s->skew;
		if (!e || e->wd_ns) {
			e = add(s, KLOG_WATCHDOG_SKEW, t);
			s->skew = e;
		}
		if (e && sscanf(q, "%lld", &v) == 1)
			e->wd_ns = v;
		if (e && sscanf(p, "%31s", name) == 1)
			set_watchdog(s, e, name);
		return true;
	}
	if ((p = after(m, n, "Clocksource ")) && find(m, n, " interval: ") &&
	    sscanf(p, "%31s interval: %lld", name, &v) == 2) {
		s->k->wd_2026_words = true;
		if (is_tsc(name) && s->skew) {
			s->skew->cs_ns = v;
			s->skew->has_intervals = s->skew->wd_ns > 0;
			put(s->skew->clocksource, sizeof(s->skew->clocksource),
			    name);
		}
		return true;
	}
	if (find(m, n,
		 "Marking clocksource tsc unstable due to frequency "
		 "skew") ||
	    find(m, n,
		 "Marking clocksource 'tsc' unstable due to frequency "
		 "skew")) {
		s->k->wd_2026_words = true;
		dropped(s->k, t);
		add(s, KLOG_FREQUENCY_SKEW, t);
		return true;
	}
	/* The 2026 watchdog's inter-CPU test: the marking line, then
	 * "CPU1 1234 < CPU0 5678 (cycles)": CPU 1 read its counter after
	 * CPU 0 and got less (both right-aligned in 16 columns). */
	if (find(m, n, "unstable due to inter CPU skew")) {
		s->k->wd_2026_words = true;
		dropped(s->k, t);
		if (quoted(m, n, "Marking clocksource '", name) ||
		    ((p = after(m, n, "Marking clocksource ")) &&
		     sscanf(p, "%31s", name) == 1)) {
			if (is_tsc(name) &&
			    (e = add(s, KLOG_INTER_CPU_SKEW, t))) {
				put(e->clocksource, sizeof(e->clocksource),
				    name);
				s->inter = e;
			}
		}
		return true;
	}
	if (s->inter && find(m, n, "(cycles)") && (p = after(m, n, "CPU"))) {
		unsigned a, b;
		unsigned long long ca, cb;

		if (sscanf(p, "%u %llu < CPU%u %llu", &a, &ca, &b, &cb) == 4) {
			e = s->inter;
			e->cpus[0] = (int)a;
			e->cpus[1] = (int)b;
			e->counter[0] = ca;
			e->counter[1] = cb;
			e->cycles = cb > ca ? (int64_t)(cb - ca) : 0;
		}
		s->inter = NULL;
		return true;
	}
	if ((p = after(m, n, "Watchdog remote CPU ")) &&
	    find(m, n, "read timed out") &&
	    (e = add(s, KLOG_WATCHDOG_TIMEOUT, t))) {
		sscanf(p, "%d", &e->cpus[0]);
		return true;
	}
	if (readback(s, m, n, t)) {
		s->k->wd_classic_words = true;
		return true;
	}
	/* 5.14 on, the classic watchdog's cross-CPU check announcing itself
	 * (no event: "CPUs ... ahead of/behind" says what it found). */
	if (find(m, n, "Checking clocksource ") &&
	    find(m, n, " synchronization from CPU ")) {
		s->k->wd_classic_words = true;
		return true;
	}
	/* 6.2: "Watchdog clocksource 'hpet' advanced an excessive N ns
	 * during 500-jiffy time interval, ... skipping watchdog check." */
	if (find(m, n, "advanced an excessive") &&
	    (e = add(s, KLOG_LONG_READOUT, t))) {
		s->k->wd_classic_words = true;
		if ((p = after(m, n, "advanced an excessive ")) &&
		    sscanf(p, "%lld", &v) == 1)
			e->wd_ns = v;
		if (quoted(m, n, "Watchdog clocksource '", name))
			put(e->watchdog, sizeof(e->watchdog), name);
		return true;
	}
	if ((p = after(m, n, "Long readout interval")) &&
	    (e = add(s, KLOG_LONG_READOUT, t))) {
		s->k->wd_classic_words = true;
		if ((p = after(m, n, "cs_nsec: ")) &&
		    sscanf(p, "%lld", &v) == 1)
			e->cs_ns = v;
		if ((p = after(m, n, "wd_nsec: ")) &&
		    sscanf(p, "%lld", &v) == 1)
			e->wd_ns = v;
		return true;
	}
	if (((p = after(m, n, "Switched to clocksource ")) ||
	     (p = after(m, n, "Switching to clocksource "))) &&
	    (e = add(s, KLOG_SWITCH, t))) {
		sscanf(p, "%95s", e->text);
		note_clock(s, e->text);
		s->skew = NULL;
		return true;
	}

	/* "clocksource: CPUs 1-3,7 ahead of CPU 0 for clocksource tsc." */
	p = strncmp(m, "clocksource: ", 13) ? m : m + 13;
	if (!strncmp(p, "CPUs ", 5) &&
	    (find(m, n, " ahead of CPU ") || find(m, n, " behind CPU "))) {
		const char *c = p, *q = after(m, n, "for clocksource ");

		s->k->wd_classic_words = true;
		if (q && sscanf(q, "%31[^. ]", name) == 1 && is_tsc(name) &&
		    (e = add(s, KLOG_CPUS_APART, t))) {
			copy_text(e, c, n - (size_t)(c - m));
			if ((q = after(m, n, " CPU ")))
				sscanf(q, "%d", &e->cpus[0]);
		}
		return true;
	}

	/* "clocksource: kvm-clock: mask: ..." (4.x on), "clocksource
	 * kvm-clock: mask: ..." (3.x) */
	if (((p = after(m, n, "clocksource: ")) ||
	     (p = after(m, n, "clocksource "))) &&
	    sscanf(p, "%31[^: ]: mask:", name) == 1 && find(m, n, ": mask:")) {
		note_clock(s, name);
		return true;
	}
	return false;
}

/* What a guest's log says of its hypervisor. */
static bool line_guest(struct klog_parser *s, const char *m, size_t n, double t)
{
	struct klog_event *e;
	const char *p;

	if ((p = after(m, n, "Hypervisor detected: ")) &&
	    (e = add(s, KLOG_HYPERVISOR, t))) {
		copy_text(e, p, n - (size_t)(p - m));
		return true;
	}
	if ((p = after(m, n, "Booting paravirtualized kernel on ")) &&
	    (e = add(s, KLOG_PARAVIRT, t))) {
		copy_text(e, p, n - (size_t)(p - m));
		return true;
	}

	if (!strncmp(m, "DMI: ", 5) && !s->k->dmi[0]) {
		put(s->k->dmi, sizeof(s->k->dmi), m + 5);
		return true;
	}
	if (!strncmp(m, "kvm-clock: ", 11)) {
		note_clock(s, "kvm-clock");
		return true;
	}
	return false;
}

static const char *const transition_names[] = {
	[KLOG_SUSPEND_ENTRY] = "suspend-entry",
	[KLOG_SUSPEND_EXIT] = "suspend-exit",
	[KLOG_HIBERNATE_ENTRY] = "hibernate-entry",
	[KLOG_HIBERNATE_EXIT] = "hibernate-exit",
};
STRING_TABLE_TO(kernlog_transition_name, enum klog_transition_kind,
		transition_names, "?")

/* "PM: suspend entry (s2idle)", "PM: suspend exit" (5.x on; 4.x wrote
 * "PM: suspend entry (deep)" too), "PM: hibernation: hibernation entry"
 * / "... exit" (5.x on; "PM: hibernation entry" before).  Kept until the
 * watchdog drops the TSC, the last KLOG_MAX_TRANSITIONS of them. */
static bool transition(struct klog_parser *s, const char *m, size_t n, double t)
{
	struct klog *k = s->k;
	struct klog_transition *tr;
	enum klog_transition_kind kind;
	const char *p;

	if ((p = after(m, n, "suspend entry")))
		kind = KLOG_SUSPEND_ENTRY;
	else if (find(m, n, "suspend exit"))
		kind = KLOG_SUSPEND_EXIT;
	else if ((p = after(m, n, "hibernation entry")))
		kind = KLOG_HIBERNATE_ENTRY;
	else if (find(m, n, "hibernation exit"))
		kind = KLOG_HIBERNATE_EXIT;
	else
		return false;
	if (k->wd_dropped)
		return true;
	if (k->ntr == KLOG_MAX_TRANSITIONS) {
		memmove(k->tr, k->tr + 1, sizeof(k->tr) - sizeof(k->tr[0]));
		k->ntr--;
	}
	tr = &k->tr[k->ntr++];
	memset(tr, 0, sizeof(*tr));
	tr->kind = kind;
	tr->time = t;
	if ((kind == KLOG_SUSPEND_ENTRY || kind == KLOG_HIBERNATE_ENTRY) &&
	    (p = memchr(m, '(', n)))
		sscanf(p, "(%15[^)])", tr->what);
	k->tr_total++;
	return true;
}

const struct klog_transition *kernlog_last_transition(const struct klog *k)
{
	return k->ntr ? &k->tr[k->ntr - 1] : NULL;
}

/* One message (NUL-terminated copy in m), whose words are w: only the
 * wordings that name one of them are tried. */
static void line(struct klog_parser *s, const char *m, size_t n, double t,
		 unsigned w)
{
	if (s->skew && (w & (W_NSEC | W_WD_NOW | W_TSC_LOWER)) &&
	    skew_detail(s, m, n))
		return;
	if ((w & W_TSC) && line_tsc(s, m, n, t))
		return;
	if ((w &
	     (W_CLOCKSOURCE | W_CLOCKSOURCE_UPPER | W_WATCHDOG | W_READBACK)) &&
	    line_watchdog(s, m, n, t))
		return;
	if ((w & W_GUEST) && line_guest(s, m, n, t))
		return;
	if ((w & W_PM) && transition(s, m, n, t))
		return;
	if ((w & W_VERSION) && !s->k->version_major &&
	    !strncmp(m, "Linux version ", 14) &&
	    sscanf(m + 14, "%d.%d", &s->k->version_major,
		   &s->k->version_minor) != 2)
		s->k->version_major = s->k->version_minor = 0;
	if ((w & W_VERSION))
		return;
	if (!(w & W_MHZ))
		return;
	if (find(m, n, "Refined TSC clocksource calibration: "))
		s->k->refined_mhz = mhz_after(m, n, "calibration: ");
	else if (find(m, n, "MHz TSC") && find(m, n, "Detected "))
		s->k->detected_tsc_mhz = mhz_after(m, n, "Detected ");
	else if (find(m, n, "MHz processor") && find(m, n, "Detected "))
		s->k->detected_mhz = mhz_after(m, n, "Detected ");
}

/* Every message line() acts on names one of these words: a line without
 * any is passed by after one look (most of a log), and line() tries only
 * the wordings whose word the line has.  One pass, by the word's first
 * letter. */
static unsigned words(const char *m, size_t n)
{
	unsigned w = 0;
	size_t i;

#define AT(x) (n - i >= sizeof(x) - 1 && memcmp(m + i, x, sizeof(x) - 1) == 0)
	for (i = 0; i < n; i++) {
		switch (m[i]) {
		case 'T':
			if (AT("TSC"))
				w |= W_TSC;
			break;
		case 't':
			if (AT("tsc"))
				w |= W_TSC_LOWER;
			break;
		case 'n':
			if (AT("nsec"))
				w |= W_NSEC;
			break;
		case 'W':
			if (AT("Watchdog"))
				w |= W_WATCHDOG;
			break;
		case 'r':
			if (AT("read-back"))
				w |= W_READBACK;
			break;
		case 'c':
			if (AT("clocksource"))
				w |= W_CLOCKSOURCE;
			break;
		case 'M':
			if (AT("MHz"))
				w |= W_MHZ;
			break;
		case 'C':
			if (AT("Clocksource"))
				w |= W_CLOCKSOURCE_UPPER;
			break;
		case 'w':
			/* every watchdog line says clocksource (its prefix
			 * since 4.x, its text before), but 4.2's wd_now line */
			if (AT("wd_now"))
				w |= W_WD_NOW;
			break;
		case 'D':
			if (AT("DMI: "))
				w |= W_GUEST;
			break;
		case 'H':
			if (AT("Hypervisor detected"))
				w |= W_GUEST;
			break;
		case 'B':
			if (AT("Booting paravirtualized"))
				w |= W_GUEST;
			break;
		case 'k':
			if (AT("kvm-clock"))
				w |= W_GUEST;
			break;
		case 'L':
			if (i == 0 && AT("Linux version "))
				w |= W_VERSION;
			break;
		case 'P':
			if (i == 0 && AT("PM: "))
				w |= W_PM;
			break;
		default:
			break;
		}
	}
#undef AT
	return w;
}

void kernlog_begin(struct klog_parser *p, struct klog *out)
{
	memset(out, 0, sizeof(*out));
	p->k = out;
	p->sync_from = p->sync_to = -1;
	p->skew = NULL;
	p->delay = NULL;
	p->inter = NULL;
}

void kernlog_line(struct klog_parser *p, const char *text, size_t len)
{
	size_t n = len;
	struct stamp t;
	const char *m = message(text, &n, &t);
	char copy[512];
	unsigned w;

	if (n >= sizeof(copy))
		n = sizeof(copy) - 1;
	if (!(w = words(m, n)))
		return;
	memcpy(copy, m, n);
	copy[n] = '\0';
	/* A NUL inside garbage ends the message early: fine. */
	line(p, copy, strlen(copy), stamp_time(&t), w);
}

void kernlog_parse(const char *text, size_t len, struct klog *out)
{
	struct klog_parser p;
	const char *end = text + len, *eol;

	kernlog_begin(&p, out);
	/* Each line once, each search within its line: linear in len. */
	while (text < end) {
		eol = memchr(text, '\n', (size_t)(end - text));
		if (!eol)
			eol = end;
		kernlog_line(&p, text, (size_t)(eol - text));
		text = eol + 1;
	}
}

const struct klog_event *kernlog_first(const struct klog *k,
				       enum klog_kind kind)
{
	size_t i;

	for (i = 0; k && i < k->n; i++)
		if (k->ev[i].kind == kind)
			return &k->ev[i];
	return NULL;
}

/* /dev/kmsg returns one record per read() and refuses a buffer smaller
 * than the record: the kernel formats a record into at most 8 KiB
 * (CONSOLE_EXT_LOG_MAX), and one byte is kept for a newline. */
#define KMSG_RECORD_MAX 8192
/* What the log is read into, at most: 8 times the default kernel log
 * buffer (CONFIG_LOG_BUF_SHIFT=17, 128 KiB).  Reading stops when full, so
 * the boot's first records, where the TSC messages are, are kept. */
#define KMSG_READ_MAX (1u << 20)

char *kernlog_read_kmsg(size_t *len)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	size_t cap = KMSG_READ_MAX, n = 0;
	char *buf;
	ssize_t r;

	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	while (buf && n + KMSG_RECORD_MAX < cap) {
		r = read(fd, buf + n, KMSG_RECORD_MAX - 1);
		if (r < 0 && errno == EPIPE)
			continue; /* overwritten records: skip */
		if (r <= 0)
			break;
		n += (size_t)r;
		if (buf[n - 1] != '\n')
			buf[n++] = '\n';
	}
	close(fd);
	*len = n;
	return buf;
}

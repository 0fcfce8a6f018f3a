/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
};

const char *kernlog_kind_name(enum klog_kind k)
{
	return (unsigned)k < KLOG_KINDS ? names[k] : "?";
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

struct state {
	struct klog *k;
	int sync_from, sync_to;	 /* the last TSC synchronization [a -> b] */
	struct klog_event *skew; /* a watchdog event still taking lines */
};

static struct klog_event *add(struct state *s, enum klog_kind kind, double t)
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

/* journalctl's short date, "Nov 29 10:00:00 ", before the host name. */
#define JOURNAL_DATE_LEN 16
/* After short-monotonic's "[ t]": the host name (at most 64 characters,
 * HOST_NAME_MAX) and JOURNAL_KERNEL, with room to spare.  Further away,
 * " kernel: " is part of the message. */
#define JOURNAL_HOST_SPAN 80

/* Strips the prefixes: "[ t] ", "<6>[ t] ", journal "Mon dd hh:mm:ss host
 * kernel: ", kmsg "6,123,4567890,-;".  Returns the message; *t the time. */
static const char *message(const char *line, size_t *len, double *t)
{
	const char *p = line, *end = line + *len, *q;
	char buf[32];

	*t = -1;
	/* /dev/kmsg: prio,seq,usec,flags;message */
	q = memchr(p, ';', (size_t)(end - p));
	if (q && p[0] >= '0' && p[0] <= '9') {
		long long usec;
		int n = 0;

		if (sscanf(p, "%*d,%*u,%lld,%*[^;];%n", &usec, &n) >= 1 &&
		    n > 0) {
			*t = (double)usec / 1e6;
			p += n;
			*len = (size_t)(end - p);
			return p;
		}
	}
	if (p[0] == '<' && (q = memchr(p, '>', (size_t)(end - p))))
		p = q + 1;
	/* journalctl short: "Nov 29 10:00:00 host kernel: " */
	if (end - p > JOURNAL_DATE_LEN && p[3] == ' ' && p[6] == ' ' &&
	    p[9] == ':' && (q = strstr(p, JOURNAL_KERNEL)) && q < end)
		p = q + strlen(JOURNAL_KERNEL);
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '[' && (q = memchr(p, ']', (size_t)(end - p))) &&
	    (size_t)(q - p) < sizeof(buf)) {
		memcpy(buf, p + 1, (size_t)(q - p - 1));
		buf[q - p - 1] = '\0';
		*t = strtod(buf, NULL);
		p = q + 1;
		/* short-monotonic: "[ t] host kernel: " */
		q = strstr(p, JOURNAL_KERNEL);
		if (q && q < end && q - p < JOURNAL_HOST_SPAN)
			p = q + strlen(JOURNAL_KERNEL);
	}
	while (p < end && *p == ' ')
		p++;
	*len = (size_t)(end - p);
	return p;
}

static const char *find(const char *s, size_t n, const char *needle)
{
	size_t m = strlen(needle), i;

	for (i = 0; i + m <= n; i++)
		if (memcmp(s + i, needle, m) == 0)
			return s + i;
	return NULL;
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

/* One message (NUL-terminated copy in m). */
static void line(struct state *s, const char *m, size_t n, double t)
{
	struct klog_event *e;
	const char *p;
	long long v;
	int a, b;

	/* The watchdog's lines after its "skew is too large" line. */
	if (s->skew) {
		if ((p = after(m, n, "wd_nsec: ")) &&
		    sscanf(p, "%lld", &v) == 1) {
			const char *q = memchr(m, '\'', n);

			s->skew->wd_ns = v;
			if (!q || sscanf(q, "'%31[^']'", s->k->watchdog) != 1)
				s->k->watchdog[0] = '\0';
			return;
		}
		if ((p = after(m, n, "cs_nsec: ")) &&
		    sscanf(p, "%lld", &v) == 1) {
			s->skew->cs_ns = v;
			s->skew->has_intervals = s->skew->wd_ns > 0;
			return;
		}
	}
	if ((p = find(m, n, "TSC synchronization [CPU#")) &&
	    sscanf(p, "TSC synchronization [CPU#%d -> CPU#%d]", &a, &b) == 2) {
		s->sync_from = a;
		s->sync_to = b;
		return;
	}
	if ((p = after(m, n, "Measured ")) && find(m, n, "cycles TSC warp") &&
	    sscanf(p, "%lld", &v) == 1 && (e = add(s, KLOG_WARP, t))) {
		e->cycles = v;
		e->cpus[0] = s->sync_from;
		e->cpus[1] = s->sync_to;
		return;
	}
	if (find(m, n, "TSC warped randomly between CPUs")) {
		add(s, KLOG_WARP_RANDOM, t);
		return;
	}
	if ((p = after(m, n, "Marking TSC unstable due to ")) &&
	    (e = add(s, KLOG_UNSTABLE, t))) {
		copy_text(e, p, n - (size_t)(p - m));
		return;
	}
	if ((p = find(m, n,
		      "Marking clocksource 'tsc' as unstable because "
		      "the skew is too large")) &&
	    (e = add(s, KLOG_WATCHDOG_SKEW, t))) {
		if ((p = after(m, n, "watchdog on CPU")))
			sscanf(p, "%d", &e->cpus[0]);
		s->skew = e;
		return;
	}
	/* Newer kernels: one line with the skew and the watchdog interval. */
	if ((p = after(m, n, "Clocksource 'tsc' skewed ")) &&
	    sscanf(p, "%lld", &v) == 1) {
		const char *q = after(m, n, "interval of ");
		long long wd;

		e = s->skew ? s->skew : add(s, KLOG_WATCHDOG_SKEW, t);
		if (e && q && sscanf(q, "%lld", &wd) == 1) {
			e->wd_ns = wd;
			e->cs_ns = wd + v;
			e->has_intervals = true;
		}
		if ((q = after(m, n, "over watchdog '")))
			sscanf(q, "%31[^']", s->k->watchdog);
		return;
	}
	/* The field report's pair. */
	if ((p = after(m, n, "Watchdog ")) && find(m, n, " interval: ") &&
	    !find(m, n, "remote")) {
		const char *q = after(m, n, " interval: ");

		e = s->skew;
		if (!e || e->wd_ns) {
			e = add(s, KLOG_WATCHDOG_SKEW, t);
			s->skew = e;
		}
		if (e && sscanf(q, "%lld", &v) == 1)
			e->wd_ns = v;
		sscanf(p, "%31s", s->k->watchdog);
		return;
	}
	if ((p = after(m, n, "Clocksource tsc interval: ")) && s->skew &&
	    sscanf(p, "%lld", &v) == 1) {
		s->skew->cs_ns = v;
		s->skew->has_intervals = s->skew->wd_ns > 0;
		return;
	}
	if (find(m, n,
		 "Marking clocksource tsc unstable due to frequency "
		 "skew") ||
	    find(m, n,
		 "Marking clocksource 'tsc' unstable due to frequency "
		 "skew")) {
		add(s, KLOG_FREQUENCY_SKEW, t);
		return;
	}
	if ((p = after(m, n, "Watchdog remote CPU ")) &&
	    find(m, n, "read timed out") &&
	    (e = add(s, KLOG_WATCHDOG_TIMEOUT, t))) {
		sscanf(p, "%d", &e->cpus[0]);
		return;
	}
	if (find(m, n, "excessive read-back delay") &&
	    (e = add(s, KLOG_READBACK_DELAY, t))) {
		copy_text(e, m, n);
		return;
	}
	if ((p = after(m, n, "Switched to clocksource ")) &&
	    (e = add(s, KLOG_SWITCH, t))) {
		sscanf(p, "%95s", e->text);
		s->skew = NULL;
		return;
	}
	if (find(m, n, "TSC found unstable after boot")) {
		add(s, KLOG_FOUND_UNSTABLE, t);
		return;
	}
	if ((p = find(m, n, "[FW BUG] TSC ADJUST")) ||
	    find(m, n, "[Firmware Bug]: TSC ADJUST") ||
	    find(m, n, "TSC ADJUST differs")) {
		if ((e = add(s, KLOG_FW_BUG_ADJUST, t))) {
			copy_text(e, m, n);
			if ((p = after(m, n, "CPU")))
				sscanf(p, "%d", &e->cpus[0]);
		}
		return;
	}
	if ((p = after(m, n, "TSC ADJUST compensate: CPU")) &&
	    (e = add(s, KLOG_ADJUST_COMPENSATE, t))) {
		if (sscanf(p, "%d observed %lld", &e->cpus[0], &v) == 2)
			e->cycles = v;
		return;
	}
	if (find(m, n, "Refined TSC clocksource calibration: "))
		s->k->refined_mhz = mhz_after(m, n, "calibration: ");
	else if (find(m, n, "MHz TSC") && find(m, n, "Detected "))
		s->k->detected_tsc_mhz = mhz_after(m, n, "Detected ");
	else if (find(m, n, "MHz processor") && find(m, n, "Detected "))
		s->k->detected_mhz = mhz_after(m, n, "Detected ");
}

void kernlog_parse(const char *text, size_t len, struct klog *out)
{
	struct state s = { .k = out, .sync_from = -1, .sync_to = -1 };
	size_t pos = 0;

	memset(out, 0, sizeof(*out));
	while (pos < len) {
		size_t eol = pos, n;
		const char *m;
		double t;
		char copy[512];

		while (eol < len && text[eol] != '\n')
			eol++;
		n = eol - pos;
		m = message(text + pos, &n, &t);
		if (n >= sizeof(copy))
			n = sizeof(copy) - 1;
		memcpy(copy, m, n);
		copy[n] = '\0';
		/* A NUL inside garbage ends the message early: fine. */
		line(&s, copy, strlen(copy), t);
		pos = eol + 1;
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

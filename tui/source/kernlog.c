/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>
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

/* journalctl's short date, "Nov 29 10:00:00 ", before the host name. */
#define JOURNAL_DATE_LEN 16
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

/* Strips the prefixes: "[ t] ", "<6>[ t] ", journal "Mon dd hh:mm:ss host
 * kernel: ", kmsg "6,123,4567890,-;".  Returns the message; *t the time.
 * Reads line[0 .. *len) only. */
static const char *message(const char *line, size_t *len, struct stamp *t)
{
	const char *p = line, *end = line + *len, *q;
	size_t klen = strlen(JOURNAL_KERNEL);

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
	/* journalctl short: "Nov 29 10:00:00 host kernel: " */
	if (end - p > JOURNAL_DATE_LEN && p[3] == ' ' && p[6] == ' ' &&
	    p[9] == ':' && (q = find_in(p, nul_or(p, end), JOURNAL_KERNEL)))
		p = q + klen;
	while (p < end && *p == ' ')
		p++;
	if (p < end && *p == '[' && (q = memchr(p, ']', (size_t)(end - p))) &&
	    (size_t)(q - p) < 32) {
		const char *lim;

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

/* One message (NUL-terminated copy in m). */
static void line(struct klog_parser *s, const char *m, size_t n, double t)
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

/* Every message line() acts on names one of these words: a line without
 * any is passed by after one look (most of a log).  One pass, by the
 * word's first letter. */
static bool may_matter(const char *m, size_t n)
{
	size_t i;

#define AT(w) (n - i >= sizeof(w) - 1 && memcmp(m + i, w, sizeof(w) - 1) == 0)
	for (i = 0; i < n; i++) {
		switch (m[i]) {
		case 'T':
			if (AT("TSC"))
				return true;
			break;
		case 't':
			if (AT("tsc"))
				return true;
			break;
		case 'n':
			if (AT("nsec"))
				return true;
			break;
		case 'W':
			if (AT("Watchdog"))
				return true;
			break;
		case 'r':
			if (AT("read-back"))
				return true;
			break;
		case 'c':
			if (AT("clocksource"))
				return true;
			break;
		case 'M':
			if (AT("MHz"))
				return true;
			break;
		default:
			break;
		}
	}
#undef AT
	return false;
}

void kernlog_begin(struct klog_parser *p, struct klog *out)
{
	memset(out, 0, sizeof(*out));
	p->k = out;
	p->sync_from = p->sync_to = -1;
	p->skew = NULL;
}

void kernlog_line(struct klog_parser *p, const char *text, size_t len)
{
	size_t n = len;
	struct stamp t;
	const char *m = message(text, &n, &t);
	char copy[512];

	if (n >= sizeof(copy))
		n = sizeof(copy) - 1;
	if (!may_matter(m, n))
		return;
	memcpy(copy, m, n);
	copy[n] = '\0';
	/* A NUL inside garbage ends the message early: fine. */
	line(p, copy, strlen(copy), stamp_time(&t));
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

/* The kernel-log parser on logs built from real message formats. */
#include "cm.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../tui/source/kernlog.h"
#include "../../tui/util/fileio.h"

static struct klog k;

static void parse_file(const char *name)
{
	char path[512];
	size_t len;
	char *d;

	snprintf(path, sizeof(path), "%s/tests/fixtures/kernlog/%s",
		 getenv("TOP") ? getenv("TOP") : ".", name);
	d = fileio_read_all(path, 1u << 20, &len);
	assert_non_null(d);
	kernlog_parse(d, len, &k);
	free(d);
}

static const struct klog_event *first(enum klog_kind kind)
{
	size_t i;

	for (i = 0; i < k.n; i++)
		if (k.ev[i].kind == kind)
			return &k.ev[i];
	return NULL;
}

static void e595_warp(void **s)
{
	const struct klog_event *w, *u, *sw;

	(void)s;
	parse_file("e595-bios128-warp.dmesg");
	w = first(KLOG_WARP);
	assert_non_null(w);
	assert_int_equal(w->cycles, 6601281288LL);
	assert_int_equal(w->cpus[0], 0);
	assert_int_equal(w->cpus[1], 2);
	assert_true(fabs(w->time - 0.174311) < 1e-9);
	assert_true(fabs(kernlog_tsc_mhz(&k) - 2096.066) < 1e-9);
	/* 6601281288 cycles at 2096.066 MHz: 3.149 s. */
	assert_true(fabs(w->cycles / (kernlog_tsc_mhz(&k) * 1e6) - 3.149) <
		    5e-4);
	u = first(KLOG_UNSTABLE);
	assert_non_null(u);
	assert_string_equal(u->text, "check_tsc_sync_source failed");
	sw = first(KLOG_SWITCH);
	assert_string_equal(sw->text, "hpet");
}

static void e595_watchdog_journal(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_file("e595-bios130-watchdog.journal");
	assert_null(first(KLOG_WARP));
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_true(w->has_intervals);
	assert_int_equal(w->wd_ns, 495136113);
	assert_int_equal(w->cs_ns, 496026671);
	assert_int_equal(w->cpus[0], 3);
	assert_true(fabs(kernlog_ppm(w) - 1798.6) < 0.05);
	assert_string_equal(k.watchdog, "hpet");
	assert_true(fabs(kernlog_tsc_mhz(&k) - 2096.073) < 1e-9);
	assert_non_null(first(KLOG_FOUND_UNSTABLE));
	assert_string_equal(first(KLOG_UNSTABLE)->text, "clocksource watchdog");
	/* journalctl short lines carry no boot time */
	assert_true(w->time < 0);
}

static void e595_watchdog_pair(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_file("e595-bios130-watchdog2.dmesg");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_int_equal(w->wd_ns, 495426793);
	assert_int_equal(w->cs_ns, 495006210);
	assert_true(fabs(kernlog_ppm(w) - (-848.9)) < 0.05);
	assert_non_null(first(KLOG_FREQUENCY_SKEW));
	assert_true(fabs(w->time - 4.218722) < 1e-9);
}

static void newer_wordings(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_file("newer-kernel.journal");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	/* The skewed-by line agrees with the nsec lines. */
	assert_int_equal(w->cs_ns - w->wd_ns, 890558);
	assert_true(fabs(w->time - 5.842001) < 1e-9);
	assert_int_equal(first(KLOG_WATCHDOG_TIMEOUT)->cpus[0], 4);
	assert_non_null(first(KLOG_READBACK_DELAY));
	assert_non_null(first(KLOG_WARP_RANDOM));
}

static void intel_adjust(void **s)
{
	const struct klog_event *f, *c;

	(void)s;
	parse_file("intel-tsc-adjust.dmesg");
	f = first(KLOG_FW_BUG_ADJUST);
	assert_non_null(f);
	assert_int_equal(f->cpus[0], 0);
	c = first(KLOG_ADJUST_COMPENSATE);
	assert_int_equal(c->cpus[0], 2);
	assert_int_equal(c->cycles, 86522);
	assert_int_equal(first(KLOG_WARP)->cycles, 3072);
	assert_true(fabs(kernlog_tsc_mhz(&k) - 2899.886) < 1e-9);
}

static void kvm_and_healthy(void **s)
{
	(void)s;
	parse_file("kvm-guest.dmesg");
	assert_string_equal(first(KLOG_UNSTABLE)->text, "TSCs unsynchronized");
	assert_string_equal(first(KLOG_SWITCH)->text, "kvm-clock");
	parse_file("healthy-synced.dmesg");
	assert_null(first(KLOG_WARP));
	assert_null(first(KLOG_UNSTABLE));
	assert_string_equal(k.ev[k.n - 1].text, "tsc");
}

static void kmsg_records(void **s)
{
	static const char kmsg[] =
		"6,512,174311,-;TSC synchronization [CPU#0 -> CPU#2]:\n"
		"4,513,174311,-;Measured 6601281288 cycles TSC warp between "
		"CPUs, turning off TSC clock.\n"
		" SUBSYSTEM=cpu\n";

	(void)s;
	kernlog_parse(kmsg, sizeof(kmsg) - 1, &k);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.ev[0].cycles, 6601281288LL);
	assert_true(fabs(k.ev[0].time - 0.174311) < 1e-9);
}

static void garbage(void **s)
{
	static const char junk[] = "Measured cycles TSC warp\n[ 1.0\n"
				   "TSC synchronization [CPU#x\n\0\0\n"
				   "Marking TSC unstable due to \n";

	(void)s;
	kernlog_parse(junk, sizeof(junk) - 1, &k);
	assert_int_equal(k.n, 1); /* only the empty-reason unstable line */
	kernlog_parse("", 0, &k);
	assert_int_equal(k.n, 0);
}

/* n bytes of text ending where an unreadable page begins, with no NUL and
 * no newline after them: a read past the end faults.  *map, *maplen: for
 * munmap. */
static char *guarded(const char *text, size_t n, void **map, size_t *maplen)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t data = (n + pg - 1) / pg * pg;
	char *m;

	*maplen = data + pg;
	m = mmap(NULL, *maplen, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + data, pg, PROT_NONE), 0);
	*map = m;
	memcpy(m + data - n, text, n);
	return m + data - n;
}

static const char *const fixtures[] = {
	"e595-bios128-warp.dmesg",	"e595-bios130-watchdog.journal",
	"e595-bios130-watchdog2.dmesg", "healthy-synced.dmesg",
	"intel-tsc-adjust.dmesg",	"kvm-guest.dmesg",
	"newer-kernel.journal",
};

static char *read_fixture(const char *name, size_t *len)
{
	char path[512];
	char *d;

	snprintf(path, sizeof(path), "%s/tests/fixtures/kernlog/%s",
		 getenv("TOP") ? getenv("TOP") : ".", name);
	d = fileio_read_all(path, 1u << 20, len);
	assert_non_null(d);
	return d;
}

static bool same_klog(const struct klog *a, const struct klog *b)
{
	size_t i;

	if (a->n != b->n || a->detected_mhz != b->detected_mhz ||
	    a->detected_tsc_mhz != b->detected_tsc_mhz ||
	    a->refined_mhz != b->refined_mhz ||
	    strcmp(a->watchdog, b->watchdog) || strcmp(a->dmi, b->dmi) ||
	    strcmp(a->paravirt_cs, b->paravirt_cs))
		return false;
	for (i = 0; i < a->n; i++) {
		const struct klog_event *x = &a->ev[i], *y = &b->ev[i];

		if (x->kind != y->kind || x->time != y->time ||
		    x->cpus[0] != y->cpus[0] || x->cpus[1] != y->cpus[1] ||
		    x->cycles != y->cycles || x->wd_ns != y->wd_ns ||
		    x->cs_ns != y->cs_ns ||
		    x->has_intervals != y->has_intervals ||
		    x->delta_ns != y->delta_ns ||
		    x->has_delta != y->has_delta ||
		    x->delay_ns != y->delay_ns || x->limit_ns != y->limit_ns ||
		    x->attempt != y->attempt || x->dropped != y->dropped ||
		    x->skipped != y->skipped || x->cause != y->cause ||
		    strcmp(x->watchdog, y->watchdog) ||
		    strcmp(x->clocksource, y->clocksource) ||
		    strcmp(x->text, y->text))
			return false;
	}
	return true;
}

/* The parser reads its text and nothing after it: every fixture, parsed
 * from memory that ends at an unreadable page with no NUL, gives what it
 * gives from a NUL-terminated copy.  Searches that ran on to the end of
 * the buffer, line after line (the quadratic parser's strstr and sscanf),
 * fault here. */
static void reads_only_its_text(void **s)
{
	static struct klog ref;
	size_t i, len, maplen;
	void *map;
	char *d, *g;

	(void)s;
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		d = read_fixture(fixtures[i], &len);
		kernlog_parse(d, len, &ref);
		assert_true(ref.n > 0);
		/* without its last newline too */
		while (len && d[len - 1] == '\n')
			len--;
		g = guarded(d, len, &map, &maplen);
		kernlog_parse(g, len, &k);
		assert_true(same_klog(&ref, &k));
		munmap(map, maplen);
		free(d);
	}
}

/* Each line, handed alone, is read within itself: every line of every
 * fixture ends at an unreadable page, and line by line gives what the
 * whole text gives.  So the work is one look at each line, whatever
 * follows it. */
static void each_line_within_itself(void **s)
{
	static struct klog ref;
	struct klog_parser p;
	size_t i, len, maplen, n;
	void *map;
	char *d, *g, *line, *eol;

	(void)s;
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		d = read_fixture(fixtures[i], &len);
		kernlog_parse(d, len, &ref);
		kernlog_begin(&p, &k);
		for (line = d; line < d + len; line = eol + 1) {
			eol = memchr(line, '\n', (size_t)(d + len - line));
			if (!eol)
				eol = d + len;
			n = (size_t)(eol - line);
			g = guarded(line, n, &map, &maplen);
			kernlog_line(&p, g, n);
			munmap(map, maplen);
		}
		assert_true(same_klog(&ref, &k));
		free(d);
	}
}

/* The real logs (tests/fixtures/kernlog/real/), each line handed alone at
 * the end of readable memory, give what the whole text gives: every new
 * wording reads within its line too. */
static void real_logs_within_their_lines(void **s)
{
	static struct klog ref;
	struct klog_parser p;
	char dir[512], name[600];
	struct dirent *de;
	size_t len, maplen, n;
	int files = 0;
	void *map;
	char *d, *g, *line, *eol;
	DIR *dh;

	(void)s;
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/kernlog/real",
		 getenv("TOP") ? getenv("TOP") : ".");
	dh = opendir(dir);
	assert_non_null(dh);
	while ((de = readdir(dh))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "README") ||
		    strstr(de->d_name, ".json"))
			continue;
		snprintf(name, sizeof(name), "real/%s", de->d_name);
		d = read_fixture(name, &len);
		kernlog_parse(d, len, &ref);
		kernlog_begin(&p, &k);
		for (line = d; line < d + len; line = eol + 1) {
			eol = memchr(line, '\n', (size_t)(d + len - line));
			if (!eol)
				eol = d + len;
			n = (size_t)(eol - line);
			g = guarded(line, n, &map, &maplen);
			kernlog_line(&p, g, n);
			munmap(map, maplen);
		}
		assert_true(same_klog(&ref, &k));
		free(d);
		files++;
	}
	closedir(dh);
	assert_true(files >= 20);
}

/* What one line says is its own: a message cut by a newline does not
 * match across it, and a later line's words are not given an earlier
 * line's time (nor taken for its prefix). */
static void lines_do_not_run_together(void **s)
{
	static const char split[] =
		"[    0.174311] TSC synchronization [CPU#0 -> CPU#2]:\n"
		"[    0.174311] Measured 6601281288 cycles TSC\n"
		" warp between CPUs, turning off TSC clock.\n"
		"[    1.000000] tsc: Marking TSC unstable due\n"
		" to check_tsc_sync_source failed\n"
		"[    2.000000] clocksource: Switched to\n"
		"clocksource hpet\n";
	static const char later[] =
		"[    5.842001] e595\n"
		" kernel: TSC warped randomly between CPUs\n"
		"[    6.000000] e595 kernel: done\n";

	(void)s;
	kernlog_parse(split, sizeof(split) - 1, &k);
	assert_int_equal(k.n, 0);
	kernlog_parse(later, sizeof(later) - 1, &k);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.ev[0].kind, KLOG_WARP_RANDOM);
	/* the line has no time of its own: not the line before's 5.842001 */
	assert_true(k.ev[0].time < 0);
}

/* A big log (4 MiB of ordinary lines) with its TSC messages at the very
 * end, the last line cut off by the end of the text: found, and nothing
 * is read past it.  Not timed: a parser that scanned ahead from every
 * line would fault on the unreadable page. */
static void big_log_late_messages(void **s)
{
	static const char chatter[] =
		"[ 1234.567890] usb 1-2: new high-speed USB device number 7 "
		"using xhci_hcd\n";
	static const char tail[] =
		"[99999.000001] TSC synchronization [CPU#0 -> CPU#5]:\n"
		"[99999.000002] Measured 4242 cycles TSC warp between CPUs, "
		"turning off TSC clock.\n"
		"[99999.500000] clocksource: Switched to clocksource hpet";
	size_t size = 4u << 20, n = 0, maplen;
	char *text = malloc(size), *g;
	void *map;

	(void)s;
	assert_non_null(text);
	while (n + sizeof(chatter) - 1 <= size - sizeof(tail)) {
		memcpy(text + n, chatter, sizeof(chatter) - 1);
		n += sizeof(chatter) - 1;
	}
	memcpy(text + n, tail, sizeof(tail) - 1);
	n += sizeof(tail) - 1;
	g = guarded(text, n, &map, &maplen);
	kernlog_parse(g, n, &k);
	assert_int_equal(k.n, 2);
	assert_int_equal(k.ev[0].kind, KLOG_WARP);
	assert_int_equal(k.ev[0].cycles, 4242);
	assert_int_equal(k.ev[0].cpus[1], 5);
	assert_true(fabs(k.ev[0].time - 99999.000002) < 1e-9);
	assert_string_equal(k.ev[1].text, "hpet");
	munmap(map, maplen);
	free(text);
}

/* One log from lines, parsed into k. */
static void parse_text(const char *text)
{
	kernlog_parse(text, strlen(text), &k);
}

/* The watchdog names the clocksource it drops; early in boot that is
 * tsc-early (4.16 on), in every form of the message. */
static void watchdog_tsc_early(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_text("[    4.019019] clocksource: timekeeping watchdog on CPU3: "
		   "Marking clocksource 'tsc-early' as unstable because the "
		   "skew is too large:\n"
		   "[    4.019025] clocksource:                       "
		   "'hpet' wd_nsec: 500294126 wd_now: 4c6fb9a wd_last: "
		   "4551262 mask: ffffffff\n"
		   "[    4.019025] clocksource:                       "
		   "'tsc-early' cs_nsec: 501194232 cs_now: 4208573b47b76a "
		   "cs_last: 42085716e25bb4 mask: ffffffffffffffff\n"
		   "[    4.019025] tsc: Marking TSC unstable due to "
		   "clocksource watchdog\n");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_string_equal(w->clocksource, "tsc-early");
	assert_int_equal(w->cpus[0], 3);
	assert_true(w->has_intervals);
	assert_int_equal(w->cs_ns - w->wd_ns, 900106);
	assert_string_equal(w->watchdog, "hpet");
	assert_int_equal(first(KLOG_UNSTABLE)->cause, KLOG_CAUSE_WATCHDOG);
	/* 6.x's one-line form names tsc-early too */
	parse_text("[    1.5] clocksource:                       Clocksource "
		   "'tsc-early' skewed 900106 ns (0 ms) over watchdog 'hpet' "
		   "interval of 500294126 ns (500 ms)\n");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_int_equal(w->wd_ns, 500294126);
	assert_int_equal(w->cs_ns, 500294126 + 900106);
	assert_string_equal(k.watchdog, "hpet");
	/* another clocksource dropped is not the TSC's trouble */
	parse_text("[ 9.0] clocksource: timekeeping watchdog on CPU1: Marking "
		   "clocksource 'kvm-clock' as unstable because the skew is "
		   "too large:\n");
	assert_null(first(KLOG_WATCHDOG_SKEW));
}

/* 4.x to 5.x before the nsec lines: the watchdog's name and raw counter
 * values, no interval: a skew whose ppm is not known (not 0, not made
 * up).  4.3's first form had no "on CPUn". */
static void watchdog_without_intervals(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_text("kernel: [  384.258940] clocksource: timekeeping watchdog: "
		   "Marking clocksource 'tsc' as unstable because the skew is "
		   "too large:\n"
		   "kernel: [  384.261201] clocksource: 'acpi_pm' wd_now: "
		   "8d5199 wd_last: 60e92e mask: ffffff\n"
		   "kernel: [  384.263168] clocksource: 'tsc' cs_now: "
		   "1981c973dc9 cs_last: 1940283c820 mask: ffffffffffffffff\n");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_false(w->has_intervals);
	assert_false(w->has_delta);
	assert_int_equal(w->cpus[0], -1);
	assert_string_equal(w->watchdog, "acpi_pm");
	assert_true(fabs(w->time - 384.258940) < 1e-9);
	assert_int_equal(k.n, 1);
	/* 4.1-4.2: a comma, and no "clocksource: " prefix */
	parse_text(
		"[271095.072610] timekeeping watchdog: Marking clocksource "
		"'tsc' as unstable, because the skew is too large:\n"
		"[271095.072619]         'xen' wd_now: f6aa707c0c8f wd_last: "
		"f6a8d4762faa mask: ffffffffffffffff\n");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_string_equal(w->watchdog, "xen");
}

/* 3.x, RHEL 6 and 7: the old message, with or without RHEL's suffix. */
static void watchdog_old_delta(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_text("[ 1.0] Clocksource tsc unstable (delta = -131624372 ns)\n");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_true(w->has_delta);
	assert_int_equal(w->delta_ns, -131624372);
	assert_false(w->has_intervals);
	assert_string_equal(w->clocksource, "tsc");
	parse_text(
		"2013-07-16T05:00:05.181538-04:00 xxxxxx kernel: "
		"Clocksource tsc unstable (delta = -95170507948 ns).  Enable "
		"clocksource failover by adding clocksource_failover kernel "
		"parameter.\n");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_int_equal(w->delta_ns, -95170507948LL);
	assert_true(w->time < 0); /* a wall clock, not a boot time */
	/* another clocksource's old message is not the TSC's */
	parse_text("[ 1.0] Clocksource hpet unstable (delta = 4242 ns)\n");
	assert_int_equal(k.n, 0);
}

/* The read-back family: a slow read of the watchdog's reference, its
 * own kind, never a skew; dropped where the kernel marked the TSC for
 * it (5.14-5.15, 6.x "marking tsc unstable"), skipped otherwise. */
static void readback_family(void **s)
{
	const struct klog_event *r;

	(void)s;
	/* 5.14-5.15 */
	parse_text("[ 6.1] clocksource: timekeeping watchdog on CPU2: hpet "
		   "read-back delay of 174213ns, attempt 4, marking unstable\n"
		   "[ 6.1] tsc: Marking TSC unstable due to clocksource "
		   "watchdog\n");
	r = first(KLOG_READBACK_DELAY);
	assert_non_null(r);
	assert_null(first(KLOG_WATCHDOG_SKEW));
	assert_true(r->dropped);
	assert_false(r->skipped);
	assert_int_equal(r->delay_ns, 174213);
	assert_int_equal(r->attempt, 4);
	assert_int_equal(r->cpus[0], 2);
	assert_string_equal(r->watchdog, "hpet");
	/* 5.15.y and 5.16 on: informational, the round skipped; one event
	 * for the pair of lines */
	parse_text("Tue Mar  8 13:19:34 2022 kern.info kernel: [14669.048261] "
		   "clocksource: timekeeping watchdog on CPU1: acpi_pm wd-wd "
		   "read-back delay of 144431ns\n"
		   "Tue Mar  8 13:19:34 2022 kern.info kernel: [14669.056895] "
		   "clocksource: wd-tsc-wd read-back delay of 124876ns, "
		   "clock-skew test skipped!\n");
	assert_int_equal(k.n, 1);
	r = first(KLOG_READBACK_DELAY);
	assert_true(r->skipped);
	assert_false(r->dropped);
	assert_int_equal(r->delay_ns, 124876);
	assert_string_equal(r->watchdog, "acpi_pm");
	assert_true(fabs(r->time - 14669.048261) < 1e-9);
	/* 6.x: excessive, with the limit, marking the TSC */
	parse_text("[ 6.2] clocksource: timekeeping watchdog on CPU2: "
		   "wd-tsc-wd excessive read-back delay of 251043ns vs. limit "
		   "of 125000ns, wd-wd read-back delay only 41ns, attempt 3, "
		   "marking tsc unstable\n");
	r = first(KLOG_READBACK_DELAY);
	assert_true(r->dropped);
	assert_int_equal(r->delay_ns, 251043);
	assert_int_equal(r->limit_ns, 125000);
	assert_int_equal(r->attempt, 3);
	/* ... or another clocksource */
	parse_text("[ 6.2] clocksource: timekeeping watchdog on CPU2: "
		   "wd-hpet-wd excessive read-back delay of 251043ns vs. limit "
		   "of 125000ns, wd-wd read-back delay only 41ns, attempt 3, "
		   "marking hpet unstable\n");
	assert_false(first(KLOG_READBACK_DELAY)->dropped);
	/* 5.16 to 6.2: the clocksource named in "wd-tsc-wd" */
	parse_text("[ 6.3] clocksource: timekeeping watchdog on CPU13: "
		   "wd-tsc-wd read-back delay of 1000614ns, attempt 3, "
		   "marking unstable\n");
	r = first(KLOG_READBACK_DELAY);
	assert_true(r->dropped);
	assert_int_equal(r->delay_ns, 1000614);
	assert_string_equal(r->watchdog, "");
	/* retried and succeeded (5.14 on) */
	parse_text("[ 7.0] clocksource: timekeeping watchdog on CPU0: hpet "
		   "retried 2 times before success\n");
	r = first(KLOG_READBACK_DELAY);
	assert_non_null(r);
	assert_false(r->dropped);
	assert_int_equal(r->attempt, 2);
	/* 6.x: a stretched interval, the check skipped */
	parse_text("[ 8.0] clocksource: Long readout interval, skipping "
		   "watchdog check: cs_nsec: 1123456789 wd_nsec: 1123450000\n");
	r = first(KLOG_LONG_READOUT);
	assert_non_null(r);
	assert_int_equal(r->cs_ns, 1123456789);
	assert_int_equal(r->wd_ns, 1123450000);
	assert_null(first(KLOG_WATCHDOG_SKEW));
	/* 6.2's form of it */
	parse_text("[ 9.0] clocksource: timekeeping watchdog on CPU3: Watchdog "
		   "clocksource 'hpet' advanced an excessive 7000000000 ns "
		   "during 500-jiffy time interval, probable CPU "
		   "overutilization, skipping watchdog check.\n");
	r = first(KLOG_LONG_READOUT);
	assert_non_null(r);
	assert_int_equal(r->wd_ns, 7000000000LL);
	assert_string_equal(r->watchdog, "hpet");
	assert_int_equal(k.n, 1);
}

/* Firmware lines: typed, with their CPU. */
static void firmware_lines(void **s)
{
	const struct klog_event *e;

	(void)s;
	parse_text("[    0.000000] [Firmware Bug]: TSC doesn't count with P0 "
		   "frequency!\n");
	assert_non_null(first(KLOG_FW_BUG_P0));
	parse_text("[  327.445302] [Firmware Bug]: TSC ADJUST differs: CPU15 "
		   "45960750 --> 78394770. Restoring\n");
	e = first(KLOG_ADJUST_DIFFERS);
	assert_non_null(e);
	assert_int_equal(e->cpus[0], 15);
	assert_null(first(KLOG_FW_BUG_ADJUST));
	/* 4.10's wording */
	parse_text("[ 0.2] [Firmware Bug]: TSC ADJUST differs: Reference CPU0: "
		   "-2147483648 CPU4: 0\n");
	assert_int_equal(first(KLOG_ADJUST_DIFFERS)->cpus[0], 4);
	parse_text("[ 0.1] [Firmware Bug]: TSC ADJUST: CPU3: -1073741824 force "
		   "to 0\n");
	e = first(KLOG_FW_BUG_ADJUST);
	assert_non_null(e);
	assert_int_equal(e->cpus[0], 3);
}

/* Every reason mark_tsc_unstable() has been given, typed. */
static void unstable_causes(void **s)
{
	static const struct {
		const char *reason;
		enum klog_cause cause;
	} c[] = {
		{ "check_tsc_sync_source failed", KLOG_CAUSE_SYNC_CHECK },
		{ "clocksource watchdog", KLOG_CAUSE_WATCHDOG },
		{ "TSCs unsynchronized", KLOG_CAUSE_UNSYNCHRONIZED },
		{ "running on Hyper-V", KLOG_CAUSE_HYPERV },
		{ "cpufreq changes", KLOG_CAUSE_CPUFREQ },
		{ "TSC halts in idle", KLOG_CAUSE_IDLE },
		{ "TSC halts in idle states deeper than C2", KLOG_CAUSE_IDLE },
		{ "boot parameter", KLOG_CAUSE_PARAMETER },
		{ "something new", KLOG_CAUSE_OTHER },
	};
	char line[160];
	size_t i;

	(void)s;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(line, sizeof(line),
			 "[    0.5] tsc: Marking TSC unstable due to %s\n",
			 c[i].reason);
		parse_text(line);
		assert_int_equal(k.n, 1);
		assert_string_equal(k.ev[0].text, c[i].reason);
		assert_int_equal(k.ev[0].cause, c[i].cause);
	}
	assert_string_equal(kernlog_cause_name(KLOG_CAUSE_HYPERV), "hyper-v");
}

/* What a guest's log says of its hypervisor: the detection line, the
 * paravirt banner (bare hardware too: it is not a hypervisor), the DMI
 * line, the paravirtual clocks it registered (3.x and 4.x forms). */
static void guest_lines(void **s)
{
	(void)s;
	parse_text(
		"[    0.000000] DMI: QEMU Standard PC (Q35 + ICH9, 2009), "
		"BIOS 1.16.2-debian-1.16.2-1 04/01/2014\n"
		"[    0.000000] Hypervisor detected: KVM\n"
		"[    0.000000] kvm-clock: Using msrs 4b564d01 and 4b564d00\n"
		"[    0.000000] Booting paravirtualized kernel on KVM\n");
	assert_string_equal(first(KLOG_HYPERVISOR)->text, "KVM");
	assert_string_equal(first(KLOG_PARAVIRT)->text, "KVM");
	assert_string_equal(k.dmi, "QEMU Standard PC (Q35 + ICH9, 2009), "
				   "BIOS 1.16.2-debian-1.16.2-1 04/01/2014");
	assert_string_equal(k.paravirt_cs, "kvm-clock");
	parse_text("[    0.000000] clocksource: hyperv_clocksource_tsc_page: "
		   "mask: 0xffffffffffffffff max_cycles: 0x24e6a1710, "
		   "max_idle_ns: 440795202120 ns\n");
	assert_string_equal(k.paravirt_cs, "hyperv_clocksource_tsc_page");
	parse_text("[    0.000000] clocksource xen: mask: 0xffffffffffffffff "
		   "max_cycles: 0x1cd42e4dffb, max_idle_ns: 881590591483 ns\n");
	assert_string_equal(k.paravirt_cs, "xen");
	parse_text("[    0.000000] Booting paravirtualized kernel on bare "
		   "hardware\n"
		   "[    0.000000] clocksource: tsc-early: mask: "
		   "0xffffffffffffffff max_cycles: 0x2e09cc5255e, max_idle_ns: "
		   "440795261586 ns\n"
		   "[    0.000000] DMI not present or invalid.\n");
	assert_string_equal(first(KLOG_PARAVIRT)->text, "bare hardware");
	assert_string_equal(k.paravirt_cs, "");
	assert_string_equal(k.dmi, "");
	/* 3.x's "Switching to clocksource" is a switch too */
	parse_text("[    2.1] Switching to clocksource kvm-clock\n");
	assert_string_equal(first(KLOG_SWITCH)->text, "kvm-clock");
	assert_string_equal(k.paravirt_cs, "kvm-clock");
}

/* Prefixes that carry a wall clock are passed, and never read as a time
 * since boot; prefixes with a boot time give it. */
static void prefixes_and_times(void **s)
{
	static const struct {
		const char *line;
		double t; /* < 0: none */
	} c[] = {
		/* kern.log, with and without its date */
		{ "Feb  2 17:33:32 proxmox kernel: [    0.182097] TSC warped "
		  "randomly between CPUs",
		  0.182097 },
		{ "kernel: [  384.258940] TSC warped randomly between CPUs",
		  384.258940 },
		/* OpenWrt logread */
		{ "Tue Mar  8 13:19:34 2022 kern.warn kernel: [14669.048261] "
		  "TSC warped randomly between CPUs",
		  14669.048261 },
		/* rsyslog ISO */
		{ "2013-07-16T05:00:05.181538-04:00 host kernel: TSC warped "
		  "randomly between CPUs",
		  -1 },
		/* journalctl without a host name */
		{ "Jan 04 10:11:04 kernel: TSC warped randomly between CPUs",
		  -1 },
		/* Docker Desktop's Moby log, with and without the guest's
		 * dmesg time */
		{ "[01:13:22.717][Moby           ][Info   ] TSC warped "
		  "randomly between CPUs",
		  -1 },
		{ "[00:21:38.868][Moby           ][Info   ] [  257.323856] TSC "
		  "warped randomly between CPUs",
		  257.323856 },
		/* dmesg -T */
		{ "[Mon Aug 31 11:03:01 2020] TSC warped randomly between CPUs",
		  -1 },
		{ "<4>[    2.5] TSC warped randomly between CPUs", 2.5 },
	};
	size_t i;

	(void)s;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		parse_text(c[i].line);
		assert_int_equal(k.n, 1);
		assert_int_equal(k.ev[0].kind, KLOG_WARP_RANDOM);
		if (c[i].t < 0)
			assert_true(k.ev[0].time < 0);
		else
			assert_true(fabs(k.ev[0].time - c[i].t) < 1e-9);
	}
	/* a message that starts with a bracket is kept whole */
	parse_text("[Firmware Bug]: TSC ADJUST: CPU1: 5 force to 0");
	assert_int_equal(first(KLOG_FW_BUG_ADJUST)->cpus[0], 1);
	assert_true(first(KLOG_FW_BUG_ADJUST)->time < 0);
}

/* The watchdog's cross-CPU check (5.14 on): CPUs whose TSC is ahead of
 * or behind the CPU it ran on. */
static void cpus_apart(void **s)
{
	(void)s;
	parse_text(
		"[18921.469191] clocksource: Checking clocksource tsc "
		"synchronization from CPU 5 to CPUs 0,2-3,6,8,10.\n"
		"[18921.469200] clocksource: CPUs 0,2-3 ahead of CPU 5 for "
		"clocksource tsc.\n"
		"[18921.469201] clocksource: CPUs 6 behind CPU 5 for "
		"clocksource tsc.\n"
		"[18921.469202] clocksource: CPU 5 check durations 1ns - 2ns "
		"for clocksource tsc.\n"
		"[18921.469203] clocksource: CPUs 6 ahead of CPU 5 for "
		"clocksource hpet.\n");
	assert_int_equal(k.n, 2);
	assert_int_equal(k.ev[0].kind, KLOG_CPUS_APART);
	assert_int_equal(k.ev[0].cpus[0], 5);
	assert_string_equal(k.ev[0].text,
			    "CPUs 0,2-3 ahead of CPU 5 for clocksource tsc");
	assert_int_equal(k.ev[1].kind, KLOG_CPUS_APART);
}

/* The 2026 watchdog's inter-CPU test (REFERENCE: no kernel the project
 * can fetch carries it; the lines are its printk formats): the CPU pair
 * in Linux numbers, both counters, how far back, and the wording decides
 * which watchdog wrote the log. */
static void watchdog2026_inter_cpu(void **s)
{
	const struct klog_event *e;
	enum klog_watchdog_by by;

	(void)s;
	parse_file("watchdog2026-inter-cpu.dmesg");
	e = first(KLOG_INTER_CPU_SKEW);
	assert_non_null(e);
	assert_int_equal(e->cpus[0], 3);
	assert_int_equal(e->cpus[1], 0);
	assert_true(e->counter[0] == 80712345678ULL);
	assert_true(e->counter[1] == 80712345716ULL);
	assert_int_equal(e->cycles, 38);
	assert_string_equal(e->clocksource, "tsc");
	assert_true(fabs(e->time - 38.502113) < 1e-9);
	/* not a frequency skew, and no warp at boot */
	assert_null(first(KLOG_WATCHDOG_SKEW));
	assert_null(first(KLOG_FREQUENCY_SKEW));
	assert_null(first(KLOG_WARP));
	assert_string_equal(first(KLOG_UNSTABLE)->text, "clocksource watchdog");
	assert_int_equal(k.version_major, 7);
	assert_int_equal(k.version_minor, 1);
	assert_int_equal(kernlog_watchdog(&k, "6.1.0-18-amd64", &by),
			 KLOG_WATCHDOG_2026);
	assert_int_equal(by, KLOG_WATCHDOG_BY_WORDING);
	/* its second line alone (no marking line before it) is no event */
	parse_text("[ 38.5] clocksource: CPU3 80712345678 < CPU0 80712345716 "
		   "(cycles)\n");
	assert_null(first(KLOG_INTER_CPU_SKEW));
	/* a marking line whose pair line never came: an event without a
	 * pair (cpus -1), not a made-up one */
	parse_text("[ 38.5] clocksource: Marking clocksource tsc unstable due "
		   "to inter CPU skew\n[ 38.6] clocksource: Switched to "
		   "clocksource hpet\n");
	e = first(KLOG_INTER_CPU_SKEW);
	assert_non_null(e);
	assert_int_equal(e->cpus[0], -1);
	assert_int_equal(e->cycles, 0);
}

/* Its frequency check prints both names right-aligned in 20 columns and
 * both intervals in 16; its own read time-out names the watchdog. */
static void watchdog2026_padded_intervals(void **s)
{
	const struct klog_event *w, *to;
	enum klog_watchdog_by by;

	(void)s;
	parse_file("watchdog2026-frequency.dmesg");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_true(w->has_intervals);
	assert_int_equal(w->wd_ns, 495426793);
	assert_int_equal(w->cs_ns, 495006210);
	assert_string_equal(w->clocksource, "tsc");
	assert_string_equal(k.watchdog, "hpet");
	assert_true(fabs(kernlog_ppm(w) - (-848.9)) < 0.05);
	assert_non_null(first(KLOG_FREQUENCY_SKEW));
	to = first(KLOG_WATCHDOG_TIMEOUT);
	assert_non_null(to);
	assert_string_equal(to->watchdog, "hpet");
	assert_int_equal(to->delay_ns, 61234);
	assert_int_equal(to->cpus[0], -1);
	/* no version line: the wording alone decides */
	assert_int_equal(k.version_major, 0);
	assert_int_equal(kernlog_watchdog(&k, NULL, &by), KLOG_WATCHDOG_2026);
	assert_int_equal(by, KLOG_WATCHDOG_BY_WORDING);
}

/* A skew needs both intervals: the watchdog's line alone, or the
 * clocksource's alone, gives no ppm (a skew computed from one logged
 * interval would be made up). */
static void skew_needs_both_intervals(void **s)
{
	const struct klog_event *w;

	(void)s;
	parse_text("[ 4.2] clocksource: Watchdog                 hpet "
		   "interval:        495426793ns\n"
		   "[ 4.3] clocksource: Marking clocksource tsc unstable due "
		   "to frequency skew\n");
	w = first(KLOG_WATCHDOG_SKEW);
	assert_non_null(w);
	assert_false(w->has_intervals);
	assert_true(kernlog_ppm(w) == 0);
	parse_text("[ 4.2] clocksource: Clocksource                  tsc "
		   "interval:        495006210ns\n");
	assert_null(first(KLOG_WATCHDOG_SKEW));
	/* a second watchdog line starts a new skew: the first one's
	 * interval is not paired with the second's clocksource */
	parse_text(
		"[ 4.2] clocksource: Watchdog hpet interval: 495426793ns\n"
		"[ 4.7] clocksource: Watchdog hpet interval: 500000000ns\n"
		"[ 4.7] clocksource: Clocksource tsc interval: 500100000ns\n");
	assert_int_equal(k.n, 2);
	assert_false(k.ev[0].has_intervals);
	assert_true(k.ev[1].has_intervals);
	assert_true(fabs(kernlog_ppm(&k.ev[1]) - 200.0) < 1e-6);
}

/* Which watchdog: a wording only one of them prints; where none does (or
 * both do), the log's "Linux version", else the running kernel's
 * release; else unknown.  The limits follow. */
static void watchdog_generation(void **s)
{
	enum klog_watchdog_by by;

	(void)s;
	parse_file("e595-bios130-watchdog.journal");
	assert_int_equal(kernlog_watchdog(&k, "7.3.0", &by),
			 KLOG_WATCHDOG_CLASSIC);
	assert_int_equal(by, KLOG_WATCHDOG_BY_WORDING);
	parse_file("healthy-synced.dmesg");
	assert_int_equal(kernlog_watchdog(&k, "7.1.0-rc2", &by),
			 KLOG_WATCHDOG_2026);
	assert_int_equal(by, KLOG_WATCHDOG_BY_VERSION);
	assert_int_equal(kernlog_watchdog(&k, "7.0.9-arch1", &by),
			 KLOG_WATCHDOG_CLASSIC);
	assert_int_equal(kernlog_watchdog(&k, "6.12.48+deb13-amd64", &by),
			 KLOG_WATCHDOG_CLASSIC);
	assert_int_equal(kernlog_watchdog(&k, "", &by), KLOG_WATCHDOG_UNKNOWN);
	assert_int_equal(by, KLOG_WATCHDOG_BY_NONE);
	assert_int_equal(kernlog_watchdog(&k, NULL, &by),
			 KLOG_WATCHDOG_UNKNOWN);
	/* the log's own version wins over the running kernel's */
	parse_text("[ 0.0] Linux version 6.1.0-18-amd64 (debian) #1\n");
	assert_int_equal(kernlog_watchdog(&k, "7.2.0", &by),
			 KLOG_WATCHDOG_CLASSIC);
	assert_int_equal(by, KLOG_WATCHDOG_BY_VERSION);
	/* both wordings in one log (two boots pasted together): the
	 * version decides */
	parse_text("[ 0.0] Linux version 7.1.3 (x) #1\n"
		   "[ 3.0] clocksource: CPUs 6 behind CPU 5 for clocksource "
		   "tsc.\n"
		   "[ 4.0] clocksource: Marking clocksource tsc unstable due "
		   "to inter CPU skew\n");
	assert_true(k.wd_classic_words && k.wd_2026_words);
	assert_int_equal(kernlog_watchdog(&k, NULL, &by), KLOG_WATCHDOG_2026);
	assert_int_equal(by, KLOG_WATCHDOG_BY_VERSION);
	/* "Linux version" inside another message is not the banner */
	parse_text("[ 9.0] foo: Linux version 9.9 is great\n");
	assert_int_equal(k.version_major, 0);
	assert_true(fabs(kernlog_watchdog_limit_ppm(KLOG_WATCHDOG_2026, true) -
			 488.28125) < 1e-9);
	assert_true(fabs(kernlog_watchdog_limit_ppm(KLOG_WATCHDOG_2026, false) -
			 3906.25) < 1e-9);
	assert_true(
		fabs(kernlog_watchdog_limit_ppm(KLOG_WATCHDOG_CLASSIC, true) -
		     500.0) < 1e-9);
	assert_true(kernlog_watchdog_limit_ppm(KLOG_WATCHDOG_UNKNOWN, true) ==
		    0);
	assert_string_equal(kernlog_watchdog_name(KLOG_WATCHDOG_2026), "2026");
	assert_string_equal(kernlog_watchdog_by_name(KLOG_WATCHDOG_BY_VERSION),
			    "version");
}

/* tsc=directsync kernels print a line a correction, up to 1000 a CPU:
 * one event a CPU, its corrections counted and summed. */
static void directsync_lines(void **s)
{
	const struct klog_event *e;
	size_t i, n = 0;

	(void)s;
	parse_file("directsync-steamos.dmesg");
	for (i = 0; i < k.n; i++)
		if (k.ev[i].kind == KLOG_DIRECTSYNC)
			n++;
	assert_int_equal(n, 3);
	e = first(KLOG_DIRECTSYNC);
	assert_int_equal(e->cpus[0], 1);
	assert_int_equal(e->corrections, 2);
	assert_int_equal(e->cycles, 6815086010LL + 41);
	assert_int_equal(e->overhead, 424);
	assert_true(fabs(e->time - 0.171002) < 1e-9);
	assert_int_equal(k.ev[2].cpus[0], 3);
	assert_int_equal(k.ev[2].cycles, 6815086033LL - 12);
	assert_null(first(KLOG_WARP));
	/* a thousand lines for one CPU are still one event, and leave room
	 * for what follows */
	{
		size_t cap = 1200 * 64, len = 0;
		char *big = malloc(cap);

		assert_non_null(big);
		for (i = 0; i < 1000; i++)
			len += (size_t)snprintf(big + len, cap - len,
						"[ 0.2] TSC direct sync: CPU7 "
						"observed %d warp. Overhead: "
						"200\n",
						(int)i % 7 - 3);
		len += (size_t)snprintf(big + len, cap - len,
					"[ 9.0] clocksource: Switched to "
					"clocksource hpet\n");
		kernlog_parse(big, len, &k);
		free(big);
	}
	assert_int_equal(k.n, 2);
	assert_int_equal(k.ev[0].corrections, 1000);
	assert_int_equal(k.ev[1].kind, KLOG_SWITCH);
}

/* Suspend and hibernation before the watchdog's drop are kept (the
 * Framework laptops' drops follow s2idle); the ones after it are not:
 * they cannot have caused it. */
static void power_transitions(void **s)
{
	const struct klog_transition *tr;
	int i;

	(void)s;
	parse_file("framework-s2idle-watchdog.dmesg");
	assert_int_equal(k.ntr, 4);
	assert_int_equal(k.tr_total, 4);
	tr = kernlog_last_transition(&k);
	assert_non_null(tr);
	assert_int_equal(tr->kind, KLOG_SUSPEND_EXIT);
	assert_true(fabs(tr->time - 5466.201399) < 1e-9);
	assert_int_equal(k.tr[2].kind, KLOG_SUSPEND_ENTRY);
	assert_string_equal(k.tr[2].what, "s2idle");
	assert_true(fabs(first(KLOG_WATCHDOG_SKEW)->time - 5466.713020) < 1e-9);
	assert_string_equal(kernlog_transition_name(KLOG_SUSPEND_EXIT),
			    "suspend-exit");
	/* more than fit: the last ones are kept, the count goes on */
	{
		char big[4096];
		size_t len = 0;

		for (i = 0; i < 12; i++)
			len += (size_t)snprintf(
				big + len, sizeof(big) - len,
				"[ %d.0] PM: hibernation: hibernation entry\n"
				"[ %d.5] PM: hibernation: hibernation exit\n",
				10 * i + 1, 10 * i + 1);
		kernlog_parse(big, len, &k);
	}
	assert_int_equal(k.ntr, KLOG_MAX_TRANSITIONS);
	assert_int_equal(k.tr_total, 24);
	assert_int_equal(kernlog_last_transition(&k)->kind,
			 KLOG_HIBERNATE_EXIT);
	assert_true(fabs(kernlog_last_transition(&k)->time - 111.5) < 1e-9);
	/* "PM:" elsewhere in a line is not a transition */
	parse_text("[ 1.0] foo: PM: suspend entry (s2idle)\n");
	assert_int_equal(k.ntr, 0);
	assert_null(kernlog_last_transition(&k));
}

/* Every kind has its own word (status prints it; a kind added without
 * one would print nothing). */
static void every_kind_named(void **s)
{
	int i, j;

	(void)s;
	for (i = 0; i < KLOG_KINDS; i++) {
		assert_non_null(kernlog_kind_name(i));
		assert_string_not_equal(kernlog_kind_name(i), "?");
		for (j = 0; j < i; j++)
			assert_string_not_equal(kernlog_kind_name(i),
						kernlog_kind_name(j));
	}
	assert_string_equal(kernlog_kind_name(KLOG_CPUS_APART), "cpus-apart");
	assert_string_equal(kernlog_kind_name(KLOG_KINDS), "?");
}

/* Lines of the same files that tsctui passes by on purpose: context,
 * not events. */
static void context_lines_are_not_events(void **s)
{
	(void)s;
	parse_text(
		"[ 8996.145058] clocksource: Checking clocksource tsc "
		"synchronization from CPU 5.\n"
		"[ 9.0] clocksource: Checking clocksource tsc "
		"synchronization from CPU 0 to CPUs 1-3,7.\n"
		"[ 9.1] clocksource: Override clocksource tsc is unstable "
		"and not HRT compatible - cannot switch while in HRT/NOHZ "
		"mode\n"
		"[ 9.2] clocksource:                       'tsc' is current "
		"clocksource.\n"
		"[ 9.2] clocksource:                       'hpet' (not 'tsc') "
		"is current clocksource.\n"
		"[ 9.2] Override clocksource tsc is not HRT compatible. "
		"Cannot switch while in HRT/NOHZ mode\n"
		"[ 0.2] TSC ADJUST synchronize: Reference CPU0: 0 CPU1: 5\n"
		"[ 9.3] sched_clock: Marking unstable (8996101633485, "
		"42749061)<-(8996259532949, -115136521)\n"
		"[ 0.0] tsc: Fast TSC calibration using PIT\n"
		"[ 0.0] TSC deadline timer enabled\n");
	assert_int_equal(k.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(e595_warp),
		cmocka_unit_test(e595_watchdog_journal),
		cmocka_unit_test(e595_watchdog_pair),
		cmocka_unit_test(newer_wordings),
		cmocka_unit_test(intel_adjust),
		cmocka_unit_test(kvm_and_healthy),
		cmocka_unit_test(kmsg_records),
		cmocka_unit_test(garbage),
		cmocka_unit_test(reads_only_its_text),
		cmocka_unit_test(each_line_within_itself),
		cmocka_unit_test(real_logs_within_their_lines),
		cmocka_unit_test(lines_do_not_run_together),
		cmocka_unit_test(big_log_late_messages),
		cmocka_unit_test(watchdog_tsc_early),
		cmocka_unit_test(watchdog_without_intervals),
		cmocka_unit_test(watchdog_old_delta),
		cmocka_unit_test(readback_family),
		cmocka_unit_test(firmware_lines),
		cmocka_unit_test(unstable_causes),
		cmocka_unit_test(guest_lines),
		cmocka_unit_test(prefixes_and_times),
		cmocka_unit_test(cpus_apart),
		cmocka_unit_test(watchdog2026_inter_cpu),
		cmocka_unit_test(watchdog2026_padded_intervals),
		cmocka_unit_test(skew_needs_both_intervals),
		cmocka_unit_test(watchdog_generation),
		cmocka_unit_test(directsync_lines),
		cmocka_unit_test(power_transitions),
		cmocka_unit_test(every_kind_named),
		cmocka_unit_test(context_lines_are_not_events),
	};
	return cmocka_run_group_tests_name("kernlog", tests, NULL, NULL);
}

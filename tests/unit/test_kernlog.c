/* The kernel-log parser on logs built from real message formats. */
#include "cm.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	    strcmp(a->watchdog, b->watchdog))
		return false;
	for (i = 0; i < a->n; i++) {
		const struct klog_event *x = &a->ev[i], *y = &b->ev[i];

		if (x->kind != y->kind || x->time != y->time ||
		    x->cpus[0] != y->cpus[0] || x->cpus[1] != y->cpus[1] ||
		    x->cycles != y->cycles || x->wd_ns != y->wd_ns ||
		    x->cs_ns != y->cs_ns ||
		    x->has_intervals != y->has_intervals ||
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
		cmocka_unit_test(lines_do_not_run_together),
		cmocka_unit_test(big_log_late_messages),
	};
	return cmocka_run_group_tests_name("kernlog", tests, NULL, NULL);
}

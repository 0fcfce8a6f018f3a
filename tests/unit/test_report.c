/* The report format: write -> parse round trip, and strict structure with
 * tolerance for what a newer stage may add. */
#include "cm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/report.h"
#include "../../tui/util/fileio.h"

static char text[TSC_REPORT_MAX_TEXT];

static void sample(struct tsc_report *r)
{
	uint32_t i;

	tsc_report_init(r, "1.2.3", TSC_BUILD_SIM);
	r->mode = TSC_MODE_SYNC;
	r->config = TSC_CONFIG_ESP;
	tsc_report_set_result(r, TSC_RESULT_UNSURE, "CPU 7\tdid not answer\n");
	r->cpu = (struct tsc_cpu_info){ .vendor = TSC_VENDOR_AMD,
					.family = 0x17,
					.model = 0x18,
					.invariant_tsc = true,
					.rdtscp = true };
	r->tick = 21;
	r->tsc_hz = 2096066000;
	r->bsp_index = 0;
	r->bsp_apic_id = 16;
	r->bsp_shift = 6815086010LL;
	r->msr_writes = 3;
	r->phase_us[TSC_PHASE_SURVEY] = 12000;
	r->phase_us[TSC_PHASE_VERIFY] = 49123;
	r->total_us = 121000;
	strcpy(r->next, "Boot0003");
	tsc_report_ignore(r, "foo=bar", 7);
	tsc_report_ignore(r, "sim.offset.1=5", 14);
	r->ncpus = 8;
	r->nap = 7;
	for (i = 0; i < 7; i++) {
		r->ap[i] = (struct tsc_report_cpu){
			.index = i + 1,
			.apic_id = i + 1,
			.survey_offset = 6815086011LL - i,
			.final_offset = -(int64_t)i,
			.rtt = 126 + i,
			.warps_bsp = i,
			.warps_ap = 2 * i,
			.max_warp = 99,
			.verdict = (enum tsc_verdict)(i % 4),
			.note = (enum tsc_ap_note)(i % 9),
			.exchanges = 300,
			/* A named EFI error, an unnamed one, none. */
			.fw_status = i == 1   ? 0x8000000000000006ull
				     : i == 4 ? 0x8000000000000063ull
					      : 0,
			.warp_rounds = 2000,
			.writes = 1,
			.has_true_offset = i % 2,
			.true_offset = i % 2 ? -3 : 0,
			/* The kernel-style test's figures on some APs. */
			.kernel_test = i % 3 != 0,
			.margin = i % 3 ? 240 - 100 * (int64_t)i : 0,
			.spread = i % 3 ? 17 * i : 0
		};
	}
}

/* sample() and two more APs with the notes it lacks, an EFI status that is
 * neither the first nor the last name, and a fitted copy's omitted count:
 * every record and every optional key of format 1. */
static void full_sample(struct tsc_report *r)
{
	sample(r);
	r->ap[7] =
		(struct tsc_report_cpu){ .index = 9,
					 .apic_id = 18,
					 .verdict = TSC_VERDICT_UNMEASURED,
					 .note = TSC_NOTE_STOPPED,
					 .fw_status = 0x8000000000000012ull };
	r->ap[8] = (struct tsc_report_cpu){ .index = 11,
					    .apic_id = 20,
					    .verdict = TSC_VERDICT_UNMEASURED,
					    .note = TSC_NOTE_DISABLED };
	r->nap = 9;
	r->ncpus = 12;
	r->omitted = 2;
	r->nvram_writes = 2;
}

/* The shared fixture (tests/fixtures/report/, which the CLI's JSON test
 * reads too), NUL-terminated. */
static char *fixture(const char *name, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/tests/fixtures/report/%s",
		 getenv("TOP") ? getenv("TOP") : ".", name);
	return fileio_read_all(path, 1u << 20, len);
}

/* The text is a contract (stages in the field write it, scripts and older
 * tsctui read it): pinned byte for byte, both ways. */
static void exact_text(void **s)
{
	struct tsc_report *a = calloc(1, sizeof(*a)),
			  *b = calloc(1, sizeof(*b));
	const char *err;
	uint32_t line;
	size_t len, n;
	char *want = fixture("full.report", &len);

	(void)s;
	assert_non_null(want);
	full_sample(a);
	n = tsc_report_write(a, text, sizeof(text));
	assert_int_equal(n, len);
	assert_memory_equal(text, want, len);
	assert_true(tsc_report_parse(want, len, b, &err, &line));
	assert_memory_equal(a, b, sizeof(*a));
	free(want);

	/* A report where nothing happened: "-" for every empty text. */
	tsc_report_init(a, "", TSC_BUILD_RELEASE);
	n = tsc_report_write(a, text, sizeof(text));
	assert_string_equal(text, "tsctui-report 1\n"
				  "stage version=- build=release mode=measure "
				  "config=load-options\n"
				  "result error\n"
				  "reason -\n"
				  "cpu vendor=other family=0 model=0 "
				  "invariant_tsc=0 tsc_adjust=0 "
				  "hypervisor=0 rdtscp=0 tick=1 tsc_hz=0\n"
				  "bsp index=0 apic=0 shift=0 writes=0 cpus=0\n"
				  "phase survey_us=0 bsp_us=0 ap_pass_us=0 "
				  "verify_us=0 total_us=0\n"
				  "next -\n"
				  "ignored -\n"
				  "end\n");
	assert_int_equal(n, strlen(text));
	assert_true(tsc_report_parse(text, n, b, &err, &line));
	assert_memory_equal(a, b, sizeof(*a));
	free(a);
	free(b);
}

static void round_trip(void **s)
{
	struct tsc_report *a = calloc(1, sizeof(*a)),
			  *b = calloc(1, sizeof(*b));
	const char *err;
	uint32_t line;
	size_t n;

	(void)s;
	sample(a);
	n = tsc_report_write(a, text, sizeof(text));
	assert_true(n > 0);
	assert_int_equal(n, strlen(text));
	assert_true(tsc_report_parse(text, n, b, &err, &line));
	/* The reason was made one printable line. */
	assert_string_equal(b->reason, "CPU 7 did not answer");
	assert_string_equal(a->reason, b->reason);
	/* Everything else survives exactly. */
	assert_memory_equal(a, b, sizeof(*a));
	assert_non_null(strstr(text, " efi=EFI_NOT_READY"));
	assert_non_null(strstr(text, " efi=0x8000000000000063"));
	assert_non_null(strstr(text, " rdtscp=1"));
	free(a);
	free(b);
}

static void writer_refuses_small_buffer(void **s)
{
	struct tsc_report *a = calloc(1, sizeof(*a));

	(void)s;
	sample(a);
	assert_int_equal(tsc_report_write(a, text, 100), 0);
	free(a);
}

static bool parses(const char *t, const char **err)
{
	static struct tsc_report r;
	uint32_t line;

	return tsc_report_parse(t, strlen(t), &r, err, &line);
}

#define MIN                                                                    \
	"tsctui-report 1\nstage build=release mode=measure\n"                  \
	"result in-sync\ncpu vendor=amd\nbsp index=0\n"

static void minimal_and_unknown(void **s)
{
	const char *err;

	(void)s;
	assert_true(parses(MIN "end\n", &err));
	/* Unknown records and keys from a newer stage are skipped. */
	assert_true(parses(
		MIN "newrecord x=1\nap 1 colour=blue verdict=ok\nend\n", &err));
	/* CRLF line ends, as a serial console writes them. */
	assert_true(
		parses("tsctui-report 1\r\nstage build=sim mode=sync\r\n"
		       "result unsure\r\ncpu vendor=intel\r\nbsp index=0\r\n"
		       "end\r\n",
		       &err));
}

static void strict_structure(void **s)
{
	const char *err;

	(void)s;
	assert_false(parses("", &err));
	assert_false(parses("hello\n", &err));
	assert_string_equal(err, "not a tsctui report");
	assert_false(parses("tsctui-report 2\n"
			    "end\n",
			    &err));
	assert_string_equal(err, "unsupported report format");
	assert_false(parses(MIN, &err)); /* cut short */
	assert_non_null(strstr(err, "cut short"));
	assert_false(parses("tsctui-report 1\nresult in-sync\nend\n", &err));
	assert_false(parses(MIN "ap x\nend\n", &err));
	assert_false(parses(MIN "ap 1 rtt=-5\nend\n", &err));
	assert_false(parses(MIN "ap 1\nap 1\nend\n", &err));
	assert_false(parses(MIN "ap 999\nend\n", &err));
	assert_false(parses(MIN "ap 1 verdict=maybe\nend\n", &err));
	assert_false(parses(MIN "ap 1 warps=3\nend\n", &err));
	/* A spread belongs to the kernel-style test's figures, which the
	 * margin introduces: alone it could not be written back. */
	assert_false(parses(MIN "ap 1 spread=5\nend\n", &err));
	assert_true(parses(MIN "ap 1 spread=5 margin=-3\nend\n", &err));
	assert_false(
		parses(MIN "ap 1 survey=99999999999999999999\nend\n", &err));
	assert_false(
		parses("tsctui-report 1\nstage mode=sometimes\nend\n", &err));
	assert_false(parses("tsctui-report 1\nresult fine\nend\n", &err));
	assert_false(parses(MIN "cpu tick=0\nend\n", &err));
	assert_false(parses(MIN "bsp shift=12x\nend\n", &err));
}

static void binary_garbage(void **s)
{
	static const char junk[] = "tsctui-report 1\nstage \x01\x02\nend\n";
	static struct tsc_report r;
	const char *err;
	uint32_t line;

	(void)s;
	assert_false(tsc_report_parse(junk, sizeof(junk) - 1, &r, &err, &line));
	assert_string_equal(err, "not ASCII text");
	assert_int_equal(line, 2);
	/* An embedded NUL is not text either; after the end line it is
	 * harmless (a variable may carry a terminator). */
	assert_false(tsc_report_parse(MIN "\0end\n", sizeof(MIN) + 4, &r, &err,
				      &line));
	assert_true(tsc_report_parse(MIN "end\n", sizeof(MIN "end\n"), &r, &err,
				     &line));
}

/* Under a firmware's variable size limit: the worst APs first, in index
 * order, "omitted N" for the rest, and a parse that says so. */
static void fit_within_a_limit(void **s)
{
	struct tsc_report *a = calloc(1, sizeof(*a)),
			  *b = calloc(1, sizeof(*b));
	static char small[TSC_REPORT_MAX_TEXT];
	const char *err;
	uint32_t line, omitted = 99, i, prev = 0;
	size_t full, n, head;

	(void)s;
	sample(a);
	/* Fits whole: the same text as the plain writer. */
	full = tsc_report_write(a, text, sizeof(text));
	n = tsc_report_write_fit(a, small, sizeof(small), &omitted);
	assert_int_equal(n, full);
	assert_int_equal(omitted, 0);
	assert_memory_equal(small, text, n);

	/* Room for the records around the APs and two AP lines: kept are the
	 * bad one (CPU 4), then the first unmeasured (CPU 1; CPU 5 too would
	 * not fit); ok (CPUs 2, 6) and unsure (3, 7) go. */
	a->nap = 0;
	head = tsc_report_write(a, text, sizeof(text)) - strlen("end\n");
	a->nap = 7;
	n = tsc_report_write_fit(a, small, head + 24 + 2 * 120, &omitted);
	assert_true(n > 0 && n < head + 24 + 2 * 120);
	assert_true(tsc_report_parse(small, n, b, &err, &line));
	assert_int_equal(b->nap + b->omitted, 7);
	assert_int_equal(b->omitted, omitted);
	assert_int_equal(b->nap, 2);
	assert_int_equal(b->ap[0].index, 1);
	assert_int_equal(b->ap[1].index, 4);
	assert_int_equal(b->ap[1].verdict, TSC_VERDICT_BAD);
	for (i = 0; i < b->nap; i++) {
		assert_true(b->ap[i].verdict == TSC_VERDICT_BAD ||
			    b->ap[i].verdict == TSC_VERDICT_UNMEASURED);
		assert_true(b->ap[i].index > prev); /* index order */
		prev = b->ap[i].index;
	}
	assert_non_null(strstr(small, "\nomitted "));
	assert_int_equal(b->ncpus, 8);
	assert_int_equal(b->bsp_shift, a->bsp_shift);

	/* The parsed copy writes back the same text, omitted record too. */
	assert_int_equal(tsc_report_write(b, text, sizeof(text)), n);
	assert_memory_equal(text, small, n);

	/* Not even the records around the APs: nothing. */
	assert_int_equal(tsc_report_write_fit(a, small, 100, &omitted), 0);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(exact_text),
		cmocka_unit_test(writer_refuses_small_buffer),
		cmocka_unit_test(fit_within_a_limit),
		cmocka_unit_test(minimal_and_unknown),
		cmocka_unit_test(strict_structure),
		cmocka_unit_test(binary_garbage),
	};
	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}

/* The "why" line restates the verdict's own rule: the clause that decided
 * it, with the limits of the test that measured, and the note. */
#include <string.h>

#include "cm.h"

#include "../../common/verdict.h"
#include "../../tui/view/why.h"

static char line[256];

static const char *why(struct engine_core c)
{
	c.cpu = 3;
	c.measured = true;
	why_line(&c, line, sizeof(line));
	return line;
}

#define has(s, sub) assert_non_null(strstr((s), (sub)))
#define lacks(s, sub) assert_null(strstr((s), (sub)))

/* 10 cycles, well within 25: unsure only because the warp test was cut.
 * A second `rtt / 2` called this "beyond 25". */
static void cut_warp_test_is_explained_as_cut(void **s)
{
	const char *l = why((struct engine_core){ .offset = 10,
						  .rtt = 200,
						  .verdict = TSC_VERDICT_UNSURE,
						  .note = TSC_NOTE_WARP_CUT });

	(void)s;
	has(l, "CPU 3: unsure: 10 cycles is within 25");
	has(l, "warp test was cut short");
	lacks(l, "beyond");
	lacks(l, "note:");
}

/* Cut while an earlier note stood: the verdict tells, the note is said. */
static void cut_under_another_note(void **s)
{
	const char *l =
		why((struct engine_core){ .offset = -3,
					  .rtt = 200,
					  .verdict = TSC_VERDICT_UNSURE,
					  .note = TSC_NOTE_NOT_CONVERGED });

	(void)s;
	has(l, "cut short");
	has(l, "(note: not-converged)");
}

/* The estimate's rule: beyond 25 but within half the round trip. */
static void estimate_near_the_limit(void **s)
{
	const char *l = why((struct engine_core){
		.offset = 45, .rtt = 357, .verdict = TSC_VERDICT_UNSURE });

	(void)s;
	has(l, "unsure: 45 cycles is beyond 25, but within the estimate's "
	       "error of 178 cycles");
}

static void estimate_beyond(void **s)
{
	const char *l = why((struct engine_core){
		.offset = -500, .rtt = 100, .verdict = TSC_VERDICT_BAD });

	(void)s;
	has(l, "bad: -500 cycles is beyond the 25-cycle limit plus the "
	       "estimate's error (50, half the round trip)");
}

/* The kernel-style test's rule: a floor of 200 cycles (rtt 400) gives ok
 * within 20 (F/8 = 25, capped at TSC_WARP_OK_ABS), bad beyond 50 plus half
 * the spread (10). */
static void kernel_test_limits(void **s)
{
	struct engine_core c = { .rtt = 400,
				 .kernel_test = true,
				 .spread = 20 };
	const char *l;

	(void)s;
	c.offset = 40;
	c.verdict = TSC_VERDICT_UNSURE;
	l = why(c);
	has(l, "unsure: 40 cycles is beyond 20");
	has(l, "within 60");
	c.offset = 61;
	c.verdict = TSC_VERDICT_BAD;
	l = why(c);
	has(l, "bad: 61 cycles is beyond the kernel-style test's limit of 60");
}

/* The clause that decided comes first; a cut test beside it is a note. */
static void near_and_cut(void **s)
{
	const char *l = why((struct engine_core){ .offset = 40,
						  .rtt = 100,
						  .verdict = TSC_VERDICT_UNSURE,
						  .note = TSC_NOTE_WARP_CUT });

	(void)s;
	has(l, "beyond 25, but within the estimate's error of 50");
	has(l, "(note: warp-cut)");
}

static void warps_and_unmeasured(void **s)
{
	struct engine_core c = { .offset = -5000,
				 .rtt = 300,
				 .warps_ap = 4,
				 .max_warp = 4900,
				 .verdict = TSC_VERDICT_BAD };

	(void)s;
	has(why(c), "CPU 3: bad: time went backwards 4 times (it read less "
		    "than CPU 0: it is behind), by up to 4900 cycles");
	c = (struct engine_core){ .cpu = 5,
				  .verdict = TSC_VERDICT_UNMEASURED,
				  .note = TSC_NOTE_NO_ANSWER };
	why_line(&c, line, sizeof(line));
	assert_string_equal(line, "CPU 5: unmeasured: it did not answer");
}

/* The rule's own verdict is the verdict: explain agrees with verdict_of. */
static void explain_agrees_with_verdict_of(void **s)
{
	struct tsc_verdict_why w;
	int64_t off;
	int k, cut;

	(void)s;
	for (k = 0; k < 2; k++)
		for (cut = 0; cut < 2; cut++)
			for (off = -200; off <= 200; off += 7) {
				struct tsc_measurement m = { .measured = true,
							     .offset = off,
							     .rtt = 300,
							     .warp_complete =
								     !cut,
							     .kernel_test = k,
							     .spread = 30 };

				tsc_verdict_explain(&m, &w);
				assert_int_equal(w.verdict, tsc_verdict_of(&m));
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cut_warp_test_is_explained_as_cut),
		cmocka_unit_test(cut_under_another_note),
		cmocka_unit_test(estimate_near_the_limit),
		cmocka_unit_test(estimate_beyond),
		cmocka_unit_test(kernel_test_limits),
		cmocka_unit_test(near_and_cut),
		cmocka_unit_test(warps_and_unmeasured),
		cmocka_unit_test(explain_agrees_with_verdict_of),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

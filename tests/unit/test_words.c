/* Blank-separated words (tui/util/words.c): the tokeniser every reader
 * uses, and the editor kernel-arg changes a command line with. */
#include "cm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tui/util/words.h"

static void walks_words(void **s)
{
	const char *line = "  ro\tquiet\n tsc=nowatchdog  ", *w;
	const char *want[] = { "ro", "quiet", "tsc=nowatchdog" };
	size_t n, i = 0;

	(void)s;
	for (w = line; (w = words_next(w, &n)); w += n) {
		assert_true(i < 3);
		assert_int_equal(n, strlen(want[i]));
		assert_memory_equal(w, want[i], n);
		i++;
	}
	assert_int_equal(i, 3);
	assert_null(words_next(" \t\n", &n));
	assert_true(words_starts("tsc=reliable", 12, "tsc="));
	assert_false(words_starts("tsc", 3, "tsc="));
}

/* Whole words only: tsc=nowatchdog is not in tsc=nowatchdogx. */
static void has_whole_words(void **s)
{
	(void)s;
	assert_true(words_has("ro tsc=nowatchdog quiet", "tsc=nowatchdog"));
	assert_false(words_has("ro tsc=nowatchdogx", "tsc=nowatchdog"));
	assert_false(words_has("", "ro"));
}

/* The editors' results are malloc'd: each is checked and freed. */
static void expect(char *got, const char *want)
{
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void adds_once(void **s)
{
	(void)s;
	expect(words_add("ro  quiet", "tsc=nowatchdog"),
	       "ro quiet tsc=nowatchdog");
	expect(words_add("ro tsc=nowatchdog quiet", "tsc=nowatchdog"),
	       "ro tsc=nowatchdog quiet");
	expect(words_add("", "tsc=nowatchdog"), "tsc=nowatchdog");
	expect(words_add(" \t\n", "tsc=nowatchdog"), "tsc=nowatchdog");
}

static void removes_every_copy(void **s)
{
	(void)s;
	expect(words_remove("tsc=nowatchdog ro tsc=nowatchdog quiet",
			    "tsc=nowatchdog"),
	       "ro quiet");
	expect(words_remove("ro", "ro"), "");
	expect(words_remove("", "ro"), "");
}

/* What boot loaders add to /proc/cmdline is not the user's. */
static void removes_prefixed(void **s)
{
	static const char *const loader[] = { "BOOT_IMAGE=", "initrd=", NULL };

	(void)s;
	expect(words_remove_prefixed("BOOT_IMAGE=/vmlinuz ro initrd=/i quiet",
				     loader),
	       "ro quiet");
	expect(words_remove_prefixed("ro quiet", NULL), "ro quiet");
}

/* A line of n words "a0000 a0001 ...", single spaces, in a new buffer. */
static char *long_line(size_t n, const char *sep)
{
	char *line = malloc(n * (5 + strlen(sep)) + 1);
	size_t i, o = 0;

	assert_non_null(line);
	for (i = 0; i < n; i++)
		o += (size_t)sprintf(line + o, "%sa%04zu", i ? sep : "", i);
	return line;
}

/* No line is too long: a 6 KB line (1000 words, where the editors used
 * to stop at 4 KB and drop the rest) keeps every word, and the added word
 * lands after them. */
static void never_cuts(void **s)
{
	static const char *const none[] = { "b", NULL };
	char *line = long_line(1000, " "), *spread = long_line(1000, " \t "),
	     *want = malloc(strlen(line) + 32), *got;

	(void)s;
	assert_non_null(want);
	assert_int_equal(strlen(line), 5999);
	sprintf(want, "%s tsc=nowatchdog", line);
	expect(words_add(line, "tsc=nowatchdog"), want);
	expect(words_add(spread, "tsc=nowatchdog"), want);
	expect(words_remove(want, "tsc=nowatchdog"), line);
	expect(words_remove(spread, "x"), line);
	expect(words_remove_prefixed(spread, none), line);
	got = words_remove(line, "a0999");
	assert_non_null(got);
	assert_int_equal(strlen(got), 5993);
	assert_memory_equal(got, line, 5993);
	free(got);
	free(line);
	free(spread);
	free(want);
}

static void appends(void **s)
{
	char buf[16] = "";

	(void)s;
	words_append(buf, sizeof(buf), "allow=any-cpu", 13);
	assert_string_equal(buf, "allow=any-cpu");
	words_append(buf, sizeof(buf), "x", 1);
	assert_string_equal(buf, "allow=any-cpu x");
	words_append(buf, sizeof(buf), "y", 1);
	assert_string_equal(buf, "allow=any-cpu x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walks_words),
		cmocka_unit_test(has_whole_words),
		cmocka_unit_test(adds_once),
		cmocka_unit_test(removes_every_copy),
		cmocka_unit_test(removes_prefixed),
		cmocka_unit_test(never_cuts),
		cmocka_unit_test(appends),
	};

	return cmocka_run_group_tests_name("words", tests, NULL, NULL);
}

/* Blank-separated words (tui/util/words.c): the tokeniser every reader
 * uses, and the editor kernel-arg changes a command line with. */
#include "cm.h"
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

static void adds_once(void **s)
{
	char out[64];

	(void)s;
	words_add("ro  quiet", "tsc=nowatchdog", out, sizeof(out));
	assert_string_equal(out, "ro quiet tsc=nowatchdog");
	words_add("ro tsc=nowatchdog quiet", "tsc=nowatchdog", out,
		  sizeof(out));
	assert_string_equal(out, "ro tsc=nowatchdog quiet");
	words_add("", "tsc=nowatchdog", out, sizeof(out));
	assert_string_equal(out, "tsc=nowatchdog");
}

static void removes_every_copy(void **s)
{
	char out[64];

	(void)s;
	words_remove("tsc=nowatchdog ro tsc=nowatchdog quiet", "tsc=nowatchdog",
		     out, sizeof(out));
	assert_string_equal(out, "ro quiet");
	words_remove("ro", "ro", out, sizeof(out));
	assert_string_equal(out, "");
}

/* What boot loaders add to /proc/cmdline is not the user's. */
static void removes_prefixed(void **s)
{
	static const char *const loader[] = { "BOOT_IMAGE=", "initrd=", NULL };
	char out[64];

	(void)s;
	words_remove_prefixed("BOOT_IMAGE=/vmlinuz ro initrd=/i quiet", loader,
			      out, sizeof(out));
	assert_string_equal(out, "ro quiet");
}

/* A line that does not fit is cut at a word, never mid-word. */
static void never_overflows(void **s)
{
	char out[8];

	(void)s;
	words_add("aaa bbb", "ccc", out, sizeof(out));
	assert_string_equal(out, "aaa bbb");
	words_remove("aaa bbbbbb", "x", out, sizeof(out));
	assert_string_equal(out, "aaa");
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
		cmocka_unit_test(never_overflows),
		cmocka_unit_test(appends),
	};

	return cmocka_run_group_tests_name("words", tests, NULL, NULL);
}

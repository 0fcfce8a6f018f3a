/* The screens' one wrapping rule (tui/view/wrap.c): at the widths of a
 * 60- and an 80-column terminal, every word of a message comes back in
 * order, no row is wider than the screen, and the rows after the first
 * start under the text. */
#include "cm.h"
#include <stdio.h>
#include <string.h>

#include "../../tui/view/draw.h"
#include "../../tui/view/wrap.h"

/* Long messages the screens show: the guided setup's advice for a guest
 * (cut at 159 characters before), a diagnosis, and one unbroken word. */
static const char *const messages[] = {
	"   On the host: run tsctui there (its clocksource should be tsc; a "
	"boot warp there is what to fix); check the guest is given an "
	"invariant TSC (QEMU/KVM: -cpu host or +invtsc) and uses kvm-clock "
	"or tsc.",
	"2. This is a virtual machine (a guest): its TSC is the host's, and "
	"the stage never syncs in a guest. Nothing to install here.",
	"The kernel trusts the TSC (tsc=reliable is set), so its own checks "
	"are off: a warp would go unseen. Warning: remove tsc=reliable "
	"unless the stage has synced every core and `tsctui check` showed no "
	"warp.",
	"- installed: run update-grub so that GRUB's menu starts the stage",
	"/boot/efi/EFI/tsctui/a-path-longer-than-any-row-of-a-small-screen-"
	"so-it-has-to-be-split-somewhere-and-still-be-all-there",
};

/* Rows of text at width w, checked, their words appended to out. */
static void wrap_into(const char *text, int w, char *out, size_t cap)
{
	int hang = wrap_indent(text, w), rows = 0;
	const char *p = text, *next;

	out[0] = '\0';
	while (*p) {
		int width = rows ? w - hang : w;
		int cut = wrap_row(p, width, &next);

		assert_true(cut <= width);
		assert_true(cut > 0);
		snprintf(out + strlen(out), cap - strlen(out), "%.*s", cut, p);
		/* What was between the rows: blanks only, or nothing where
		 * a word was split. */
		if (next > p + cut)
			snprintf(out + strlen(out), cap - strlen(out), " ");
		p = next;
		rows++;
	}
	assert_int_equal(rows ? rows : 1, wrap_rows(text, w));
}

static void nothing_is_lost_at_60_and_80_columns(void **st)
{
	static const int widths[] = { 58, 78, 60, 80 };
	char out[1024], want[1024];
	size_t i, k, len;

	(void)st;
	for (i = 0; i < sizeof(messages) / sizeof(messages[0]); i++)
		for (k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
			wrap_into(messages[i], widths[k], out, sizeof(out));
			snprintf(want, sizeof(want), "%s", messages[i]);
			len = strlen(out);
			while (len && out[len - 1] == ' ')
				out[--len] = '\0';
			assert_string_equal(out, want);
		}
}

static void continuation_rows_start_under_the_text(void **st)
{
	(void)st;
	assert_int_equal(wrap_hang("2. This is"), 3);
	assert_int_equal(wrap_hang("   On the host"), 3);
	assert_int_equal(wrap_hang("- installed"), 2);
	assert_int_equal(wrap_hang("Plain text"), 0);
	assert_int_equal(wrap_hang("12. Twelve"), 4);
	/* "2.5 GHz" is no list marker. */
	assert_int_equal(wrap_hang("2.5 GHz"), 0);
	/* Too narrow for the indent: none. */
	assert_int_equal(wrap_indent("          deep", 25), 0);
	assert_int_equal(wrap_indent("2. step", 60), 3);
}

static void a_word_wider_than_the_row_is_split(void **st)
{
	const char *next;

	(void)st;
	assert_int_equal(wrap_row("abcdefghij", 4, &next), 4);
	assert_string_equal(next, "efghij");
	assert_int_equal(wrap_rows("abcdefghij", 4), 3);
	assert_int_equal(wrap_rows("", 10), 1);
}

/* A screen's lines (draw_addl) hold UI_MAX_LINES; past them the last one
 * says there were more, never a silent cut (a plan of many files lost its
 * end unsaid). */
static void full_lines_say_so(void **st)
{
	static char lines[UI_MAX_LINES][UI_LINE];
	int n = 0, i;

	(void)st;
	for (i = 0; i < UI_MAX_LINES; i++)
		draw_addl(lines, &n, "line %d", i);
	assert_int_equal(n, UI_MAX_LINES);
	assert_string_equal(lines[UI_MAX_LINES - 1], "line 23");
	draw_addl(lines, &n, "line %d", UI_MAX_LINES);
	assert_int_equal(n, UI_MAX_LINES);
	assert_string_equal(lines[UI_MAX_LINES - 2], "line 22");
	assert_string_equal(lines[UI_MAX_LINES - 1], DRAW_MORE_LINES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_is_lost_at_60_and_80_columns),
		cmocka_unit_test(continuation_rows_start_under_the_text),
		cmocka_unit_test(a_word_wider_than_the_row_is_split),
		cmocka_unit_test(full_lines_say_so),
	};

	return cmocka_run_group_tests_name("wrap", tests, NULL, NULL);
}

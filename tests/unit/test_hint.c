/* An action's way out, as the dashboard says it (tui/ui/hint.c): every
 * code of the table has its words, they take the place of the command
 * line's, and the longest sentence each one ends comes out whole at a
 * 60x15 and an 80x24 terminal, within the rows the confirmation screen
 * has there, and on the status line. */
#include "cm.h"
#include <stdio.h>
#include <string.h>

#include "../../tui/ui/hint.h"
#include "../../tui/view/wrap.h"

/* The sentence each way out ends in the actions, before the command
 * line's words (the longest of each: a key path, a grubenv reason). */
static const char *const before[ACT_HINTS] = {
	[ACT_HINT_ESP] = "no vfat file system mounted at /boot/efi, /efi or "
			 "/boot; ",
	[ACT_HINT_LOADER] = "no LoaderInfo variable from systemd-boot and no "
			    "/boot/grub/grub.cfg or /boot/grub2/grub.cfg",
	[ACT_HINT_NEXT] = "no boot entry starts a loader from a disk",
	[ACT_HINT_DB_KEY] = "Secure Boot is on and the signing key "
			    "(/root/secureboot/keys/db/db.key) is a MOK key, "
			    "which the firmware never trusts for its own boot "
			    "entry (only shim does): enroll a key in db ",
	[ACT_HINT_EFI_ENTRY] = "/boot/grub/grubenv is on btrfs, where GRUB "
			       "cannot write at boot, so the hang guard "
			       "cannot work there; ",
};

/* The rows the confirmation screen has for the message at a terminal's
 * height without scrolling (draw_lines: from row 2, above the key bar and
 * a one-row status line), after "This cannot be done now:". */
static int rows_free(int lines)
{
	return lines - 4 - 1;
}

static void every_code_has_words(void **st)
{
	int h;

	(void)st;
	assert_string_equal(hint_words(ACT_HINT_NONE), "");
	for (h = ACT_HINT_NONE + 1; h < ACT_HINTS; h++)
		assert_true(strlen(hint_words((enum act_hint)h)) > 10);
	assert_string_equal(hint_words(ACT_HINTS), "");
}

static void the_dashboard_words_replace_the_command_line_words(void **st)
{
	const char *err = "no boot entry starts a loader from a disk; give "
			  "--next BootXXXX";
	size_t at = strlen("no boot entry starts a loader from a disk");
	char out[512];

	(void)st;
	hint_say(err, ACT_HINT_NEXT, at, strlen(err), out, sizeof(out));
	assert_string_equal(out, "no boot entry starts a loader from a disk: "
				 "choose GRUB or systemd-boot in the install "
				 "menu instead");
	/* No code, or marks outside the text: the error as it is. */
	hint_say(err, ACT_HINT_NONE, 0, 0, out, sizeof(out));
	assert_string_equal(out, err);
	hint_say(err, ACT_HINT_NEXT, at, strlen(err) + 5, out, sizeof(out));
	assert_string_equal(out, err);
}

/* The model's advice (model/diagnosis.h's enum diag_advice): every code
 * has the dashboard's words, and they take the place of the command
 * line's, found by the span the diagnosis marks, not by their English. */
static void the_dashboard_words_the_diagnosis_advice(void **st)
{
	struct diagnosis d;
	char out[1024];
	int a;

	(void)st;
	for (a = DIAG_ADVICE_NONE + 1; a < DIAG_ADVICES; a++) {
		assert_true(strlen(hint_advice_words((enum diag_advice)a)) >
			    10);
		assert_true(strlen(diagnosis_advice_words(
				    (enum diag_advice)a)) > 10);
	}
	memset(&d, 0, sizeof(d));
	snprintf(d.summary, sizeof(d.summary),
		 "The clocksource is hpet, not tsc, and without the kernel "
		 "log tsctui cannot say why %s. More.",
		 diagnosis_advice_words(DIAG_ADVICE_KERNEL_LOG));
	d.advice = DIAG_ADVICE_KERNEL_LOG;
	d.advice_at = strlen("The clocksource is hpet, not tsc, and without "
			     "the kernel log tsctui cannot say why ");
	d.advice_end = d.advice_at +
		       strlen(diagnosis_advice_words(DIAG_ADVICE_KERNEL_LOG));
	hint_diagnosis(&d, out, sizeof(out));
	assert_string_equal(out, "The clocksource is hpet, not tsc, and "
				 "without the kernel log tsctui cannot say why "
				 "(run tsctui as root: reading the kernel log "
				 "needs it). More.");
	/* no advice: the summary as it is */
	d.advice = DIAG_ADVICE_NONE;
	hint_diagnosis(&d, out, sizeof(out));
	assert_string_equal(out, d.summary);
}

/* Every word of text, in order, in the rows of width w: nothing cut. */
static int render(const char *text, int w, char *out, size_t cap)
{
	int hang = wrap_indent(text, w), rows = 0;
	const char *p = text, *next;

	out[0] = '\0';
	while (*p) {
		int width = rows ? w - hang : w;
		int cut = wrap_row(p, width, &next);

		assert_true(cut > 0 && cut <= width);
		snprintf(out + strlen(out), cap - strlen(out), "%.*s%s", cut, p,
			 next > p + cut ? " " : "");
		p = next;
		rows++;
	}
	return rows;
}

static void every_message_fits_60x15_and_80x24(void **st)
{
	static const int size[][2] = { { 60, 15 }, { 80, 24 } };
	char said[1024], out[1024];
	size_t k, len;
	int h, rows;

	(void)st;
	for (h = ACT_HINT_NONE + 1; h < ACT_HINTS; h++)
		for (k = 0; k < 2; k++) {
			const char *b = before[h];

			assert_non_null(b);
			hint_say(b, (enum act_hint)h, strlen(b), strlen(b),
				 said, sizeof(said));
			assert_true(strlen(said) > strlen(b));
			rows = render(said, size[k][0], out, sizeof(out));
			len = strlen(out);
			while (len && out[len - 1] == ' ')
				out[--len] = '\0';
			assert_string_equal(out, said);
			assert_true(rows <= rows_free(size[k][1]));
			/* and on the status line, after a run that failed */
			assert_int_equal(
				wrap_status_rows(said, size[k][0], size[k][1]),
				rows);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_code_has_words),
		cmocka_unit_test(
			the_dashboard_words_replace_the_command_line_words),
		cmocka_unit_test(every_message_fits_60x15_and_80x24),
		cmocka_unit_test(the_dashboard_words_the_diagnosis_advice),
	};

	return cmocka_run_group_tests_name("hint", tests, NULL, NULL);
}

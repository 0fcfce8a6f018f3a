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

/* What an action said (act_say.h), formatted from its code with values
 * that show where each one went: all ACT_SAY_VALS of them, so that a
 * placeholder past the code's own count shows too. */
static void format_marked(const char *words, enum act_say c, char *out,
			  size_t cap)
{
	static char vals[ACT_SAY_VALS][24];
	struct act_said s = { .code = c, .nval = ACT_SAY_VALS };
	size_t k;

	for (k = 0; k < s.nval; k++) {
		snprintf(vals[k], sizeof(vals[k]), "<V%zu>", k);
		s.val[k] = vals[k];
	}
	act_say_format(words, &s, out, cap);
}

/* Every code has the command line's words and takes every value it is
 * given, once or more, in both front ends' words; no placeholder is
 * left unfilled. */
static void every_said_code_places_its_values(void **st)
{
	const char *(*const words[])(enum act_say) = { act_say_words,
						       hint_say_words };
	char out[1024], mark[24];
	size_t k, w;
	int c;

	(void)st;
	for (c = 0; c < ACT_SAYS; c++)
		for (w = 0; w < 2; w++) {
			const char *t = words[w]((enum act_say)c);

			assert_true(strlen(t) > 5);
			format_marked(t, (enum act_say)c, out, sizeof(out));
			assert_null(strchr(out, '{'));
			for (k = 0; k < ACT_SAY_VALS; k++) {
				snprintf(mark, sizeof(mark), "<V%zu>", k);
				if (k < act_say_nvals((enum act_say)c))
					assert_non_null(strstr(out, mark));
				else
					assert_null(strstr(out, mark));
			}
		}
	/* The formatter: values by position, a plural, a value repeated. */
	{
		struct act_said s = { .code = SAY_SWEPT,
				      .nval = 2,
				      .val = { "1", "3" } };

		act_say_format(act_say_words(SAY_SWEPT), &s, out, sizeof(out));
		assert_string_equal(out, "tsctui removed, going by what was "
					 "on the disk: 1 file put back, 3 "
					 "removed");
		s.val[0] = "2";
		act_say_format("{0} file{0s}, {1}; {0}", &s, out, sizeof(out));
		assert_string_equal(out, "2 files, 3; 2");
		act_say_format("{0} file{0s}, {1}", &s, out, 6);
		assert_string_equal(out, "2 fil");
	}
}

/* The dashboard never hands its user a command line where it has a key:
 * a "`tsctui ...`" in its words says it is for the command line, and no
 * option or command-line subcommand stands alone. */
static void the_dashboard_says_keys_not_commands(void **st)
{
	char out[1024];
	const char *p;
	int c;

	(void)st;
	for (c = 0; c < ACT_SAYS; c++) {
		format_marked(hint_say_words((enum act_say)c), (enum act_say)c,
			      out, sizeof(out));
		for (p = strstr(out, "`tsctui "); p;
		     p = strstr(p + 1, "`tsctui "))
			assert_non_null(strstr(p, "from the command line"));
		assert_false(out[0] == '-' && out[1] == '-');
		assert_null(strstr(out, " kernel-arg "));
	}
}

/* Every code in the dashboard's words, its first value the longest the
 * actions give (a path of 60 bytes) and the others a grubenv's path,
 * comes out whole on the status line at 60x15 and 80x24. */
static void every_said_code_fits_the_status_line(void **st)
{
	static const int size[][2] = { { 60, 15 }, { 80, 24 } };
	static const char path[] = "/boot/efi/EFI/tsctui/backup/boot/grub/"
				   "grubenv.tsctui-orig";
	char said[1024], out[1024];
	struct act_said s;
	size_t k, v, len;
	int c, rows;

	(void)st;
	for (c = 0; c < ACT_SAYS; c++)
		for (k = 0; k < 2; k++) {
			memset(&s, 0, sizeof(s));
			s.code = (enum act_say)c;
			s.nval = act_say_nvals(s.code);
			for (v = 0; v < s.nval; v++)
				s.val[v] = (char *)(v ? "/boot/grub/grubenv"
						      : path);
			act_say_format(hint_say_words(s.code), &s, said,
				       sizeof(said));
			rows = render(said, size[k][0], out, sizeof(out));
			len = strlen(out);
			while (len && out[len - 1] == ' ')
				out[--len] = '\0';
			assert_string_equal(out, said);
			assert_int_equal(
				wrap_status_rows(said, size[k][0], size[k][1]),
				rows);
		}
}

/* Every advice code of the diagnosis, in the dashboard's words inside
 * the longest summary sentence it ends, wraps at 60 and 80 columns with
 * nothing lost. */
static void every_advice_wraps_whole(void **st)
{
	static const int cols[] = { 60, 80 };
	const char *lead = "The clocksource is hpet, not tsc, and without the "
			   "kernel log tsctui cannot say why ";
	struct diagnosis d;
	char out[1024], back[1024];
	size_t k, len;
	int a;

	(void)st;
	for (a = DIAG_ADVICE_NONE + 1; a < DIAG_ADVICES; a++)
		for (k = 0; k < 2; k++) {
			const char *w =
				diagnosis_advice_words((enum diag_advice)a);

			memset(&d, 0, sizeof(d));
			snprintf(d.summary, sizeof(d.summary), "%s%s. More.",
				 lead, w);
			d.advice = (enum diag_advice)a;
			d.advice_at = strlen(lead);
			d.advice_end = d.advice_at + strlen(w);
			hint_diagnosis(&d, out, sizeof(out));
			assert_non_null(strstr(
				out, hint_advice_words((enum diag_advice)a)));
			render(out, cols[k], back, sizeof(back));
			len = strlen(back);
			while (len && back[len - 1] == ' ')
				back[--len] = '\0';
			assert_string_equal(back, out);
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
		cmocka_unit_test(every_said_code_places_its_values),
		cmocka_unit_test(the_dashboard_says_keys_not_commands),
		cmocka_unit_test(every_said_code_fits_the_status_line),
		cmocka_unit_test(every_advice_wraps_whole),
	};

	return cmocka_run_group_tests_name("hint", tests, NULL, NULL);
}

/* The grubenv block editor (tui/format/grubenv.c): exactly 1024 bytes in
 * and out, lines it does not own kept byte for byte, corrupt blocks
 * refused. */
#include "cm.h"
#include <stdio.h>
#include <string.h>

#include "../../tui/format/grubenv.h"

/* A block as grub-editenv writes it: header, lines, '#' padding. */
static void block(char out[GRUBENV_SIZE], const char *lines)
{
	size_t n = strlen(GRUBENV_HEADER) + strlen(lines);

	memcpy(out, GRUBENV_HEADER, strlen(GRUBENV_HEADER));
	memcpy(out + strlen(GRUBENV_HEADER), lines, strlen(lines));
	memset(out + n, '#', GRUBENV_SIZE - n);
}

static void round_trip_keeps_foreign_lines(void **s)
{
	char in[GRUBENV_SIZE], out[GRUBENV_SIZE];
	struct grubenv env;
	const char *why;

	(void)s;
	block(in, "saved_entry=gnulinux-advanced\nnext_entry=\n");
	assert_true(grubenv_parse(in, sizeof(in), &env, &why));
	assert_int_equal(env.n, 2);
	assert_string_equal(grubenv_get(&env, "saved_entry"),
			    "gnulinux-advanced");
	assert_string_equal(grubenv_get(&env, "next_entry"), "");
	assert_null(grubenv_get(&env, "tsctui_mode"));
	assert_true(grubenv_format(&env, out));
	assert_memory_equal(in, out, GRUBENV_SIZE);
	grubenv_free(&env);
}

/* New variables go after the last one; a changed value stays in place. */
static void set_appends_and_replaces(void **s)
{
	char in[GRUBENV_SIZE], want[GRUBENV_SIZE], out[GRUBENV_SIZE];
	struct grubenv env;
	const char *why;

	(void)s;
	block(in, "tsctui_mode=measure\nsaved_entry=0\n");
	assert_true(grubenv_parse(in, sizeof(in), &env, &why));
	assert_true(grubenv_set(&env, "tsctui_mode", "sync"));
	assert_true(grubenv_set(&env, "tsctui_pending", "0"));
	assert_true(grubenv_format(&env, out));
	block(want, "tsctui_mode=sync\nsaved_entry=0\ntsctui_pending=0\n");
	assert_memory_equal(want, out, GRUBENV_SIZE);
	grubenv_unset(&env, "tsctui_mode");
	grubenv_unset(&env, "absent");
	assert_true(grubenv_format(&env, out));
	block(want, "saved_entry=0\ntsctui_pending=0\n");
	assert_memory_equal(want, out, GRUBENV_SIZE);
	grubenv_free(&env);
}

/* What GRUB could not read back is never written. */
static void refuses_bad_values(void **s)
{
	struct grubenv env = { 0 };

	(void)s;
	assert_false(grubenv_set(&env, "tsctui_options", "a\nb"));
	assert_false(grubenv_set(&env, "tsctui_options", "a\\b"));
	assert_false(grubenv_set(&env, "a=b", "1"));
	assert_int_equal(env.n, 0);
}

static void refuses_corrupt_blocks(void **s)
{
	char in[GRUBENV_SIZE];
	struct grubenv env;
	const char *why;

	(void)s;
	block(in, "a=1\n");
	assert_false(grubenv_parse(in, sizeof(in) - 1, &env, &why));
	assert_non_null(strstr(why, "1024"));
	in[0] = 'X';
	assert_false(grubenv_parse(in, sizeof(in), &env, &why));
	block(in, "no equals sign\n");
	assert_false(grubenv_parse(in, sizeof(in), &env, &why));
	block(in, "a=1\n");
	in[GRUBENV_SIZE - 1] = ' ';
	assert_false(grubenv_parse(in, sizeof(in), &env, &why));
	assert_int_equal(env.n, 0);
}

/* A block that would overflow 1024 bytes is not produced. */
static void full_block_is_refused(void **s)
{
	char out[GRUBENV_SIZE], big[GRUBENV_SIZE];
	struct grubenv env = { 0 };

	(void)s;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_true(grubenv_set(&env, "big", big));
	assert_false(grubenv_format(&env, out));
	grubenv_free(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip_keeps_foreign_lines),
		cmocka_unit_test(set_appends_and_replaces),
		cmocka_unit_test(refuses_bad_values),
		cmocka_unit_test(refuses_corrupt_blocks),
		cmocka_unit_test(full_block_is_refused),
	};

	return cmocka_run_group_tests_name("grubenv", tests, NULL, NULL);
}

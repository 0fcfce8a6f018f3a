/* The JSON writer (tui/util/json.c): nesting, commas, escapes, and the
 * values JSON has no spelling for. */
#include "cm.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../tui/util/json.h"

/* The document a function writes, compact. */
static char *written(void (*fill)(struct json *j))
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct json j;

	assert_non_null(f);
	json_init(&j, f, false);
	fill(&j);
	json_end(&j);
	fclose(f);
	return out;
}

static void nested(struct json *j)
{
	json_obj(j, NULL);
	json_str(j, "action", "mode");
	json_bool(j, "ok", true);
	json_arr(j, "changed");
	json_obj(j, NULL);
	json_str(j, "path", "/boot/grub/grubenv");
	json_obj_end(j);
	json_arr_end(j);
	json_arr(j, "empty");
	json_arr_end(j);
	json_null(j, "message");
	json_obj_end(j);
}

static void writes_nesting_and_commas(void **s)
{
	char *out = written(nested);

	(void)s;
	assert_string_equal(out, "{\"action\":\"mode\",\"ok\":true,\"changed\":"
				 "[{\"path\":\"/boot/grub/grubenv\"}],"
				 "\"empty\":[],\"message\":null}\n");
	free(out);
}

static void strings(struct json *j)
{
	json_arr(j, NULL);
	json_str(j, NULL, "a\"b\\c\nd\te\x01");
	json_str(j, NULL, NULL);
	json_strn(j, NULL, "abcdef", 3);
	json_arr_end(j);
}

static void escapes_strings(void **s)
{
	char *out = written(strings);

	(void)s;
	assert_string_equal(out,
			    "[\"a\\\"b\\\\c\\nd\\te\\u0001\",null,\"abc\"]\n");
	free(out);
}

static void numbers(struct json *j)
{
	json_arr(j, NULL);
	json_i64(j, NULL, -6815086010LL);
	json_u64(j, NULL, 18446744073709551615ULL);
	json_num(j, NULL, 2096.0734, 3);
	json_num(j, NULL, NAN, 1);
	json_num(j, NULL, INFINITY, 1);
	json_arr_end(j);
}

/* NaN and infinity have no JSON spelling: null. */
static void writes_numbers(void **s)
{
	char *out = written(numbers);

	(void)s;
	assert_string_equal(out, "[-6815086010,18446744073709551615,2096.073,"
				 "null,null]\n");
	free(out);
}

static void pretty_fill(struct json *j)
{
	json_obj(j, NULL);
	json_i64(j, "a", 1);
	json_obj_end(j);
}

static void pretty_indents(void **s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct json j;

	(void)s;
	json_init(&j, f, true);
	pretty_fill(&j);
	json_end(&j);
	fclose(f);
	assert_string_equal(out, "{\n  \"a\": 1\n}\n");
	free(out);
}

/* Any bytes make valid UTF-8 JSON: a character that is not UTF-8 is one
 * U+FFFD per maximal broken part (overlong, surrogate, cut short, stray
 * continuation, past U+10FFFF), C1 controls are escaped, UTF-8 stays. */
static void any_bytes(struct json *j)
{
	json_arr(j, NULL);
	json_str(j, NULL, "\xff\xfe");
	json_str(j, NULL, "a\xe2\x82");
	json_str(j, NULL, "\xe2\x82z");
	json_str(j, NULL, "\xc0\xaf");
	json_str(j, NULL, "\xed\xa0\x80");
	json_str(j, NULL, "\xf4\x90\x80\x80");
	json_str(j, NULL, "\x80");
	json_str(j, NULL, "\xc2\x9b\xc2\xa0");
	json_str(j, NULL, "\xe2\x82\xac\xf0\x9f\x98\x80");
	json_arr_end(j);
}

static void invalid_utf8(void **s)
{
	char *out;

	(void)s;
	out = written(any_bytes);
	assert_string_equal(out, "[\"\\ufffd\\ufffd\",\"a\\ufffd\","
				 "\"\\ufffdz\",\"\\ufffd\\ufffd\","
				 "\"\\ufffd\\ufffd\\ufffd\","
				 "\"\\ufffd\\ufffd\\ufffd\\ufffd\","
				 "\"\\ufffd\",\"\\u009b\xc2\xa0\","
				 "\"\xe2\x82\xac\xf0\x9f\x98\x80\"]\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(writes_nesting_and_commas),
		cmocka_unit_test(escapes_strings),
		cmocka_unit_test(writes_numbers),
		cmocka_unit_test(pretty_indents),
		cmocka_unit_test(invalid_utf8),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}

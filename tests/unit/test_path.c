/* The --root resolver and the ESP join (tui/util/path.c): every system
 * path goes through them, so a root of "/" and a test tree must both
 * come out right, and a path that does not fit must not be cut. */
#include "cm.h"
#include <string.h>

#include "../../tui/util/path.h"

static void under_root(void **s)
{
	char buf[64];

	(void)s;
	assert_string_equal(path_under("/", "/etc/tsctui", buf, sizeof(buf)),
			    "/etc/tsctui");
	assert_string_equal(path_under("/mnt", "/etc", buf, sizeof(buf)),
			    "/mnt/etc");
	/* Trailing slashes on the root are not doubled. */
	assert_string_equal(path_under("/mnt//", "/etc", buf, sizeof(buf)),
			    "/mnt/etc");
	assert_string_equal(path_under("//", "/etc", buf, sizeof(buf)), "/etc");
}

static void under_root_too_long(void **s)
{
	char buf[sizeof("/mnt/etc")];

	(void)s;
	assert_null(path_under("/mnt", "/etc/x", buf, sizeof(buf)));
	assert_non_null(path_under("/mnt", "/etc", buf, sizeof(buf)));
}

/* The ESP mounted at "/" (a test tree's) adds nothing to the path. */
static void join(void **s)
{
	char buf[64];

	(void)s;
	assert_string_equal(
		path_join("/boot/efi", "/EFI/tsctui/options", buf, sizeof(buf)),
		"/boot/efi/EFI/tsctui/options");
	assert_string_equal(path_join("/", "/EFI/tsctui", buf, sizeof(buf)),
			    "/EFI/tsctui");
	assert_string_equal(path_join("", "/loader/entries", buf, sizeof(buf)),
			    "/loader/entries");
	assert_null(path_join("/boot/efi", "/EFI/tsctui", buf, 8));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(under_root),
		cmocka_unit_test(under_root_too_long),
		cmocka_unit_test(join),
	};

	return cmocka_run_group_tests_name("path", tests, NULL, NULL);
}

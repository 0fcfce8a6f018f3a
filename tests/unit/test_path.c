/* The --root resolver and the ESP join (tui/util/path.c): every system
 * path goes through them, so a root of "/" and a test tree must both
 * come out right, and a path that does not fit must not be cut. */
#include "cm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A root with links that point out of it, as a hostile or simply foreign
 * disk has them: every one resolves inside the root. */
static char tree[64];

static void mk(const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void ln(const char *target, const char *rel)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", tree, rel);
	assert_int_equal(symlink(target, p), 0);
}

static const char *in(const char *rel)
{
	static char p[256];

	snprintf(p, sizeof(p), "%s%s", tree, rel);
	return p;
}

static void links_stay_inside(void **s)
{
	char buf[256], want[256];

	(void)s;
	snprintf(tree, sizeof(tree), "/tmp/tsctui-path-XXXXXX");
	assert_non_null(mkdtemp(tree));
	mk("boot");
	mk("boot/efi");
	mk("boot/grub2");
	mk("etc");
	/* an absolute link: the root's /boot/efi, not the host's */
	ln("/boot/efi", "esp");
	/* Fedora's grubenv link, relative */
	ln("../efi/EFI/fedora/grubenv", "boot/grub2/grubenv");
	/* ".." as far as it goes, and beyond */
	ln("../../../../../../etc", "boot/up");
	ln("loop2", "loop1");
	ln("loop1", "loop2");

	snprintf(want, sizeof(want), "%s", in("/boot/efi/EFI"));
	assert_string_equal(path_under(tree, "/esp/EFI", buf, sizeof(buf)),
			    want);
	assert_string_equal(
		path_under(tree, "/boot/grub2/grubenv", buf, sizeof(buf)),
		in("/boot/efi/EFI/fedora/grubenv"));
	assert_string_equal(
		path_under(tree, "/boot/up/shadow", buf, sizeof(buf)),
		in("/etc/shadow"));
	assert_string_equal(
		path_under(tree, "/../../../etc/passwd", buf, sizeof(buf)),
		in("/etc/passwd"));
	assert_string_equal(
		path_under(tree, "/boot/efi/../../..", buf, sizeof(buf)),
		in("/"));
	/* the link itself, for replacing or removing it */
	assert_string_equal(path_under_nofollow(tree, "/boot/grub2/grubenv",
						buf, sizeof(buf)),
			    in("/boot/grub2/grubenv"));
	/* but not a link on the way to it */
	assert_string_equal(
		path_under_nofollow(tree, "/esp/x", buf, sizeof(buf)),
		in("/boot/efi/x"));
	assert_null(path_under(tree, "/loop1/x", buf, sizeof(buf)));
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
		assert_int_equal(system(cmd), 0);
	}
}

static void clean_paths(void **s)
{
	(void)s;
	assert_true(path_is_clean("/"));
	assert_true(path_is_clean("/boot/efi"));
	assert_true(path_is_clean("/EFI/tsctui/tsctui.efi"));
	assert_false(path_is_clean(""));
	assert_false(path_is_clean("boot/efi"));
	assert_false(path_is_clean("/../../.."));
	assert_false(path_is_clean("/boot/../etc"));
	assert_false(path_is_clean("/boot/./efi"));
	assert_false(path_is_clean("/boot//efi"));
	assert_false(path_is_clean("/boot/efi/"));
	assert_false(path_is_clean("/boot/efi/.."));
	assert_false(path_is_clean("/boot/\nefi"));
	assert_true(path_is_clean("/boot/..efi"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(under_root),
		cmocka_unit_test(under_root_too_long),
		cmocka_unit_test(join),
		cmocka_unit_test(links_stay_inside),
		cmocka_unit_test(clean_paths),
	};

	return cmocka_run_group_tests_name("path", tests, NULL, NULL);
}

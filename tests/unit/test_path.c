/* The --root resolver and the ESP join (tui/util/path.c): every system
 * path goes through them, so a root of "/" and a test tree must both
 * come out right, and a path that does not fit must not be cut. */
#include "cm.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tui/util/fsx.h"
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
	/* a loop: the path as it is, so that the access fails with ELOOP
	 * (never "", which the working directory would take) */
	assert_string_equal(path_under(tree, "/loop1/x", buf, sizeof(buf)),
			    in("/loop1/x"));
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
		assert_int_equal(system(cmd), 0);
	}
}

/*
 * The resolver itself (path_parent, through fsx): with the tree
 * registered as the root, nothing leads out of it, nothing special is
 * opened, and a loop is ELOOP; once with openat2 and once with the walk.
 */
static void resolver(bool walk)
{
	char outside[64], p[512], victim[128];
	size_t len;
	struct stat st;
	char *d;
	FILE *f;

	snprintf(tree, sizeof(tree), "/tmp/tsctui-root-XXXXXX");
	assert_non_null(mkdtemp(tree));
	snprintf(outside, sizeof(outside), "/tmp/tsctui-out-XXXXXX");
	assert_non_null(mkdtemp(outside));
	snprintf(victim, sizeof(victim), "%s/victim", outside);
	f = fopen(victim, "w");
	assert_non_null(f);
	fputs("secret\n", f);
	fclose(f);
	assert_int_equal(chmod(victim, 0600), 0);
	mk("etc");
	ln(victim, "etc/abs"); /* absolute, out */
	snprintf(p, sizeof(p), "../../../../../..%s", victim);
	ln(p, "etc/up");		   /* relative, out */
	ln(outside, "outdir");		   /* a parent, out */
	ln(victim, "etc/conf.tsctui-new"); /* a planted temp */
	ln("l2", "etc/l1");
	ln("l1", "etc/l2");
	snprintf(p, sizeof(p), "%s/etc/fifo", tree);
	assert_int_equal(mkfifo(p, 0600), 0);

	if (walk)
		setenv("TSCTUI_TEST_NO_OPENAT2", "1", 1);
	assert_int_equal(path_root_set(tree), 0);
	unsetenv("TSCTUI_TEST_NO_OPENAT2");

	/* reads: a link out is the root's own path, absent there */
	assert_null(fsx_read(in("/etc/abs"), &len));
	assert_int_equal(errno, ENOENT);
	assert_null(fsx_read(in("/etc/up"), &len));
	assert_int_equal(errno, ENOENT);
	assert_null(fsx_read(in("/outdir/victim"), &len));
	assert_int_equal(errno, ENOENT);
	/* a FIFO is refused by its type, never opened (would block) */
	assert_null(fsx_read(in("/etc/fifo"), &len));
	assert_int_equal(errno, EINVAL);
	/* a loop is an error, and so is "" */
	assert_null(fsx_read(in("/etc/l1"), &len));
	assert_int_equal(errno, ELOOP);
	assert_int_equal(fsx_write_atomic("", "x", 1, 0644), -1);
	assert_int_equal(errno, ELOOP);
	/* writes: the planted temp is replaced, the victim untouched */
	assert_int_equal(fsx_write_atomic(in("/etc/conf"), "new\n", 4, 0600),
			 0);
	d = fsx_read(in("/etc/conf"), &len);
	assert_non_null(d);
	assert_string_equal(d, "new\n");
	free(d);
	assert_int_equal(lstat(in("/etc/conf.tsctui-new"), &st), -1);
	/* a link at the file itself is replaced, not written through */
	assert_int_equal(fsx_write_atomic(in("/etc/abs"), "x", 1, 0644), 0);
	assert_int_equal(lstat(in("/etc/abs"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* a parent that leads out: looked up inside the root (absent) */
	assert_int_equal(fsx_mkdir(in("/outdir/x"), 0755), -1);
	snprintf(p, sizeof(p), "%s/x", outside);
	assert_int_equal(lstat(p, &st), -1);
	/* the victim, after all that: its bytes and its mode */
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 7);
	assert_int_equal(st.st_mode & 0777, 0600);
	path_root_set("/");
	snprintf(p, sizeof(p), "rm -rf '%s' '%s'", tree, outside);
	assert_int_equal(system(p), 0);
}

static void resolver_openat2(void **s)
{
	(void)s;
	resolver(false);
}

static void resolver_walk(void **s)
{
	(void)s;
	resolver(true);
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

/* Every byte 1-255 escapes to one line without a control character and
 * reads back as it was; path_shown writes what path_put_escaped does,
 * cut to fit; an escape the writer never makes is refused. */
static void escaped_paths(void **s)
{
	char name[256], shown[1100], back[1100], *mem = NULL;
	size_t len = 0, i;
	FILE *f;
	int c;

	(void)s;
	for (c = 1; c < 256; c++)
		name[c - 1] = (char)c;
	name[255] = '\0';
	f = open_memstream(&mem, &len);
	assert_non_null(f);
	path_put_escaped(f, name);
	fclose(f);
	path_shown(name, shown, sizeof(shown));
	assert_string_equal(shown, mem);
	for (i = 0; shown[i]; i++)
		assert_false((unsigned char)shown[i] < 0x20 ||
			     shown[i] == 0x7f);
	snprintf(back, sizeof(back), "%s", shown);
	assert_true(path_unescape(back));
	assert_string_equal(back, name);
	free(mem);
	assert_string_equal(path_shown("a\tb\nc\x1b[31m", shown, sizeof(shown)),
			    "a\\tb\\nc\\x1b[31m");
	/* cut to fit, never inside an escape */
	assert_string_equal(path_shown("ab\tc", shown, 4), "ab");
	snprintf(back, sizeof(back), "%s", "a\\x2fb");
	assert_false(path_unescape(back));
	snprintf(back, sizeof(back), "%s", "a\\x00");
	assert_false(path_unescape(back));
	snprintf(back, sizeof(back), "%s", "a\\q");
	assert_false(path_unescape(back));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(under_root),
		cmocka_unit_test(under_root_too_long),
		cmocka_unit_test(join),
		cmocka_unit_test(links_stay_inside),
		cmocka_unit_test(resolver_openat2),
		cmocka_unit_test(resolver_walk),
		cmocka_unit_test(clean_paths),
		cmocka_unit_test(escaped_paths),
	};

	return cmocka_run_group_tests_name("path", tests, NULL, NULL);
}

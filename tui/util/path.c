/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "path.h"

/* Linux's own limit on links followed in one lookup. */
#define MAX_LINKS 40

static size_t root_len(const char *root)
{
	size_t rl = strlen(root);

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (rl == 1 && root[0] == '/')
		rl = 0;
	return rl;
}

/* Drops the last component of the resolved part buf[rl..*n]. */
static void up(char *buf, size_t rl, size_t *n)
{
	while (*n > rl && buf[*n - 1] != '/')
		(*n)--;
	if (*n > rl)
		(*n)--;
	buf[*n] = '\0';
}

/* The root registered by path_root_set: its string as given (trailing
 * slashes dropped, "" for "/") and a directory fd every lookup starts at. */
static struct {
	char dir[PATH_UNDER_MAX];
	size_t len;
	int fd;
	bool walk; /* no openat2 here (or forced by the tests) */
} root_reg = { "", 0, -1, false };

/* The registered root's fd when root (of length rl) is that root, else
 * -1: the walk then looks a component up from that fd, never by the
 * root's name again. */
static int root_fd_of(const char *root, size_t rl)
{
	if (root_reg.fd < 0 || rl != root_reg.len ||
	    strncmp(root, root_reg.dir, rl) != 0)
		return -1;
	return root_reg.fd;
}

/* lstat and readlink of buf (root's rl bytes, then the part below). */
static int lookup(const char *root, size_t rl, const char *buf, struct stat *st)
{
	int fd = root_fd_of(root, rl);

	if (fd < 0)
		return lstat(buf, st);
	return fstatat(fd, buf + rl + 1, st, AT_SYMLINK_NOFOLLOW);
}

static ssize_t look_link(const char *root, size_t rl, const char *buf,
			 char *out, size_t cap)
{
	int fd = root_fd_of(root, rl);

	if (fd < 0)
		return readlink(buf, out, cap);
	return readlinkat(fd, buf + rl + 1, out, cap);
}

/*
 * The walk: `todo` holds what is left to resolve; each component is
 * appended to buf (root + resolved part) and, if it names a link under the
 * root, replaced by the link's text, an absolute one restarting at the
 * root.  A component that does not exist cannot be a link: the rest is
 * appended as it is, ".." still clamped.
 */
static char *resolve(const char *root, const char *abs, char *buf, size_t cap,
		     bool follow_last)
{
	char todo[PATH_UNDER_MAX], link[PATH_UNDER_MAX], rest[PATH_UNDER_MAX];
	size_t rl = root_len(root), n, links = 0;
	bool missing = false;
	char *p;

	if (rl + 1 > cap || strlen(abs) >= sizeof(todo))
		return NULL;
	memcpy(buf, root, rl);
	buf[rl] = '\0';
	n = rl;
	snprintf(todo, sizeof(todo), "%s", abs);
	p = todo;
	for (;;) {
		size_t len;
		char *comp;
		bool last;
		struct stat st;
		ssize_t k;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		len = strcspn(p, "/");
		p += len;
		last = strspn(p, "/") == strlen(p);
		if (len == 1 && comp[0] == '.')
			continue;
		if (len == 2 && comp[0] == '.' && comp[1] == '.') {
			up(buf, rl, &n);
			continue;
		}
		if (n + 1 + len + 1 > cap)
			return NULL;
		buf[n++] = '/';
		memcpy(buf + n, comp, len);
		n += len;
		buf[n] = '\0';
		if (missing || (last && !follow_last) || rl == 0)
			continue;
		if (lookup(root, rl, buf, &st) != 0) {
			missing = true;
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		k = look_link(root, rl, buf, link, sizeof(link) - 1);
		if (k <= 0 || ++links > MAX_LINKS)
			return NULL;
		link[k] = '\0';
		/* The link's text, then what was left after it. */
		if (snprintf(rest, sizeof(rest), "%s/%s", link, p) >=
		    (int)sizeof(rest))
			return NULL;
		memcpy(todo, rest, strlen(rest) + 1);
		p = todo;
		if (link[0] == '/') {
			n = rl;
			buf[n] = '\0';
		} else {
			up(buf, rl, &n);
		}
	}
	if (n == rl) {
		if (n + 2 > cap)
			return NULL;
		buf[n++] = '/';
		buf[n] = '\0';
	}
	return buf;
}

/* ---- the resolver: every file access under the root ---- */

int path_root_adopt(const char *root, int fd)
{
	size_t rl = root_len(root);
	const char *env = getenv("TSCTUI_TEST_NO_OPENAT2");

	if (rl >= sizeof(root_reg.dir)) {
		close(fd);
		errno = ENAMETOOLONG;
		return -1;
	}
	if (root_reg.fd >= 0)
		close(root_reg.fd);
	memcpy(root_reg.dir, root, rl);
	root_reg.dir[rl] = '\0';
	root_reg.len = rl;
	root_reg.fd = fd;
	root_reg.walk = env && env[0] == '1';
	return 0;
}

int path_root_set(const char *root)
{
	size_t rl = root_len(root);
	int fd;

	if (rl >= sizeof(root_reg.dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(rl ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	return path_root_adopt(root, fd);
}

bool path_root_is_host(void)
{
	return root_reg.len == 0;
}

static int root_fd(void)
{
	if (root_reg.fd < 0 && path_root_set("/") != 0)
		return -1;
	return root_reg.fd;
}

/* The part of path below the root ("" for the root itself), or NULL when
 * path is not under it (a file the user named, a temporary file). */
static const char *in_root(const char *path)
{
	size_t rl = root_reg.len;

	if (rl == 0)
		return path[0] == '/' ? path : NULL;
	if (strncmp(path, root_reg.dir, rl) == 0 &&
	    (path[rl] == '/' || path[rl] == '\0'))
		return path + rl;
	return NULL;
}

/*
 * Without openat2: the walk above (path_under's) says where the links
 * lead, then every component of the answer is opened from the root's fd
 * with O_NOFOLLOW, so a link that appeared meanwhile fails the lookup
 * instead of leading anywhere.
 */
static int walk_dir(const char *rel)
{
	char buf[PATH_UNDER_MAX], *p, *comp;
	int cur, next;

	if (root_reg.len == 0)
		return open(rel[0] ? rel : "/",
			    O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!resolve(root_reg.dir, rel[0] ? rel : "/", buf, sizeof(buf),
		     true)) {
		errno = ELOOP;
		return -1;
	}
	cur = dup(root_fd());
	for (p = buf + root_reg.len; cur >= 0 && *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		p += strcspn(p, "/");
		if (*p)
			*p++ = '\0';
		next = openat(cur, comp,
			      O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		cur = next;
	}
	return cur;
}

/* The directory rel names under the root, as an O_PATH fd: every link
 * on the way resolved with the root as "/", ".." stopping at it. */
static int open_dir_in_root(const char *rel)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	const char *r = rel;
	long fd;

	if (root_fd() < 0)
		return -1;
	while (*r == '/')
		r++;
	if (!root_reg.walk) {
		fd = syscall(SYS_openat2, root_reg.fd, r[0] ? r : ".", &how,
			     sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != E2BIG))
			return (int)fd;
		root_reg.walk = true; /* a kernel before 5.6 */
	}
	return walk_dir(rel);
}

int path_parent(const char *path, char *leaf, size_t cap)
{
	char dir[PATH_UNDER_MAX], *slash;
	const char *rel = path[0] ? in_root(path) : NULL;
	size_t n;
	bool whole;

	if (!path[0]) {
		/* what path_under leaves when the links loop */
		errno = ELOOP;
		return -1;
	}
	if (root_fd() < 0)
		return -1;
	n = strlen(rel ? rel : path);
	if (n >= sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(dir, rel ? rel : path, n + 1);
	while (n > 1 && dir[n - 1] == '/')
		dir[--n] = '\0';
	slash = strrchr(dir, '/');
	snprintf(leaf, cap, "%s", slash ? slash + 1 : dir);
	whole = !leaf[0] || !strcmp(leaf, ".") || !strcmp(leaf, "..");
	if (whole)
		snprintf(leaf, cap, ".");
	else if (slash)
		slash[slash == dir ? 1 : 0] = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (strlen(leaf) >= cap) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (rel)
		return open_dir_in_root(dir);
	/* The user's own file: taken as given. */
	return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

char *path_link_target(const char *path, const char *text, char *out,
		       size_t cap)
{
	char dir[PATH_UNDER_MAX], *slash;
	int n;

	if (text[0] == '/') {
		n = snprintf(out, cap, "%s%s",
			     in_root(path) ? root_reg.dir : "", text);
	} else {
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash)
			slash[1] = '\0';
		else
			dir[0] = '\0';
		n = snprintf(out, cap, "%s%s", dir, text);
	}
	if (n < 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return out;
}

/*
 * Where the walk gave up (its links loop, or their texts make the path too
 * long): root + abs as it is, so that the file access itself, through the
 * resolver, fails with the kernel's reason (ELOOP), instead of an empty
 * string that means the working directory.  NULL only if that won't fit.
 */
static char *unresolved(const char *root, const char *abs, char *buf,
			size_t cap)
{
	int n = snprintf(buf, cap, "%.*s%s", (int)root_len(root), root, abs);

	if (n < 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return buf;
}

char *path_under(const char *root, const char *abs, char *buf, size_t cap)
{
	size_t rl = root_len(root);
	int n;

	if (rl == 0) {
		/* The running system: the kernel resolves it. */
		n = snprintf(buf, cap, "%s", abs);
		return n < 0 || (size_t)n >= cap ? NULL : buf;
	}
	if (resolve(root, abs, buf, cap, true))
		return buf;
	return unresolved(root, abs, buf, cap);
}

char *path_under_nofollow(const char *root, const char *abs, char *buf,
			  size_t cap)
{
	if (root_len(root) == 0)
		return path_under(root, abs, buf, cap);
	if (resolve(root, abs, buf, cap, false))
		return buf;
	return unresolved(root, abs, buf, cap);
}

char *path_join(const char *dir, const char *rel, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s%s", strcmp(dir, "/") ? dir : "", rel);

	return n < 0 || (size_t)n >= cap ? NULL : out;
}

bool path_is_clean(const char *p)
{
	const char *c;
	size_t len;

	if (p[0] != '/' || strlen(p) >= PATH_UNDER_MAX / 2)
		return false;
	for (c = p; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return false;
	if (!strcmp(p, "/"))
		return true;
	for (c = p + 1;; c += len + 1) {
		len = strcspn(c, "/");
		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!c[len])
			return true;
	}
}

/* The escape of one byte of a path ("" when it stands as it is). */
static const char *escape_of(unsigned char c, char buf[5])
{
	if (c == '\\')
		return "\\\\";
	if (c == '\t')
		return "\\t";
	if (c == '\n')
		return "\\n";
	if (c < 0x20 || c == 0x7f) {
		snprintf(buf, 5, "\\x%02x", c);
		return buf;
	}
	return "";
}

void path_put_escaped(FILE *f, const char *p)
{
	char buf[5];
	const char *e;

	for (; *p; p++) {
		e = escape_of((unsigned char)*p, buf);
		if (e[0])
			fputs(e, f);
		else
			fputc(*p, f);
	}
}

char *path_shown(const char *p, char *out, size_t cap)
{
	char buf[5], one[2] = "";
	const char *e;
	size_t n = 0, l;

	out[0] = '\0';
	for (; *p; p++) {
		e = escape_of((unsigned char)*p, buf);
		if (!e[0]) {
			one[0] = *p;
			e = one;
		}
		l = strlen(e);
		if (n + l >= cap)
			break;
		memcpy(out + n, e, l + 1);
		n += l;
	}
	return out;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool path_unescape(char *s)
{
	char *w = s;
	int hi, lo, v;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		s++;
		if (*s == '\\') {
			*w++ = '\\';
		} else if (*s == 't') {
			*w++ = '\t';
		} else if (*s == 'n') {
			*w++ = '\n';
		} else if (*s == 'x' && (hi = hex_digit(s[1])) >= 0 &&
			   (lo = hex_digit(s[2])) >= 0) {
			v = hi << 4 | lo;
			if (v == 0 || v == '\t' || v == '\n' ||
			    (v >= 0x20 && v != 0x7f))
				return false;
			*w++ = (char)v;
			s += 2;
		} else {
			return false;
		}
	}
	*w = '\0';
	return true;
}

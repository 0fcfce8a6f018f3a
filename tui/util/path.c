/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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
		if (lstat(buf, &st) != 0) {
			missing = true;
			continue;
		}
		if (!S_ISLNK(st.st_mode))
			continue;
		k = readlink(buf, link, sizeof(link) - 1);
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

char *path_under(const char *root, const char *abs, char *buf, size_t cap)
{
	size_t rl = root_len(root);
	int n;

	if (rl == 0) {
		/* The running system: the kernel resolves it. */
		n = snprintf(buf, cap, "%s", abs);
		return n < 0 || (size_t)n >= cap ? NULL : buf;
	}
	return resolve(root, abs, buf, cap, true);
}

char *path_under_nofollow(const char *root, const char *abs, char *buf,
			  size_t cap)
{
	if (root_len(root) == 0)
		return path_under(root, abs, buf, cap);
	return resolve(root, abs, buf, cap, false);
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

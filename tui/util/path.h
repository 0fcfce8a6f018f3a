/* SPDX-License-Identifier: MIT */
/*
 * Every system path goes through here, so that --root DIR applies to all,
 * and nothing found under the root leads out of it.  The root may be
 * another machine's disk (`--root /mnt`, a rescue): its symbolic links are
 * resolved as that machine would, with DIR as "/", and ".." never climbs
 * above DIR, as openat2(2) does with RESOLVE_IN_ROOT.  A root of "/" is
 * the running system: the kernel resolves its paths itself.
 */
#ifndef TSCTUI_UTIL_PATH_H
#define TSCTUI_UTIL_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Room for any path tsctui builds: Linux's PATH_MAX, the longest path the
 * kernel accepts in one call. */
#define PATH_UNDER_MAX 4096

/*
 * The resolver (DESIGN.md 8.1).  path_root_set registers the root (main,
 * from --root; "/" until then) and opens it once; from then on every file
 * access to a path under it (fsx.h) starts at that directory fd and
 * resolves inside it: openat2(RESOLVE_IN_ROOT) where the kernel has it,
 * else a walk of O_NOFOLLOW opens from the root's fd.  A path that is not
 * under the root is one the user named (or a temporary file) and is taken
 * as given.
 */
int path_root_set(const char *root);
/* The same for a root already open: fd (an O_PATH fd of the directory
 * root names, opened once by the caller that checked it) is registered
 * with root's string and owned from then on, closed on failure.  Checking
 * the directory by one path lookup and opening it by another would let a
 * component swapped in between (a link turned to "/") make the resolver
 * start somewhere the check never saw. */
int path_root_adopt(const char *root, int fd);
/* Is the registered root the running system ("/")?  Under any other root
 * the machine's own devices (/dev/rtc0, /dev/kmsg) are not the target's
 * and are never opened (DESIGN.md 8.1). */
bool path_root_is_host(void);
/* The directory holding path's last component, resolved inside the root,
 * as an O_PATH fd; the component goes to leaf ("." when path names a
 * directory by "", "." or "..").  -1 with errno: ELOOP for a link loop,
 * and for "" (what path_under's callers hold when its links looped). */
int path_parent(const char *path, char *leaf, size_t cap);
/* Where a link at path with the text `text` leads: an absolute text is
 * taken from the root, a relative one from path's directory.  NULL with
 * ENAMETOOLONG if it won't fit. */
char *path_link_target(const char *path, const char *text, char *out,
		       size_t cap);

/* root + abs (abs starts with '/'), every link in it resolved inside root;
 * returns buf, or NULL if it won't fit.  Where the links loop, root + abs
 * unresolved: accessing it then fails with ELOOP, in the resolver. */
char *path_under(const char *root, const char *abs, char *buf, size_t cap);
/* The same, but a link as the last component is left as it is: for
 * creating, replacing or removing the link itself. */
char *path_under_nofollow(const char *root, const char *abs, char *buf,
			  size_t cap);
/* dir + rel (rel starts with '/'), where a dir of "/" adds nothing: the
 * ESP mounted at "/" gives "/EFI/tsctui", not "//EFI/tsctui".  Returns
 * out, or NULL if it won't fit (out then holds what fitted). */
char *path_join(const char *dir, const char *rel, char *out, size_t cap);
/* Is p a path tsctui accepts from a file or a user: absolute, no empty,
 * "." or ".." component, no control character, shorter than
 * PATH_UNDER_MAX / 2?  ("/" itself is clean.) */
bool path_is_clean(const char *p);

/*
 * A path as one line: a name on the disk may hold any byte but '/' and
 * NUL, so a backslash, a control character or DEL is written C-style
 * (\\, \t, \n, else \xHH) and every other byte as it is.  The ledger's
 * format (DESIGN.md 8.1), and how a path is shown in text output, so that
 * a name cannot break a line or reach a terminal as a control character.
 */
void path_put_escaped(FILE *f, const char *p);
/* The same into out; returns out, cut to fit (cap >= 1). */
char *path_shown(const char *p, char *out, size_t cap);
/* path_put_escaped's reverse, in place.  An escape it never writes is
 * damage (false): so no escape can make a '/', a '.' or a NUL, and a line
 * that passed path_is_clean before unescaping has the same components
 * after. */
bool path_unescape(char *s);

#endif

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

/* Room for any path tsctui builds: Linux's PATH_MAX, the longest path the
 * kernel accepts in one call. */
#define PATH_UNDER_MAX 4096

/* root + abs (abs starts with '/'), every link in it resolved inside root;
 * returns buf, or NULL if it won't fit or the links loop. */
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

#endif

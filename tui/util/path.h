/* SPDX-License-Identifier: MIT */
/* Every system path goes through here, so that --root DIR applies to all. */
#ifndef TSCTUI_UTIL_PATH_H
#define TSCTUI_UTIL_PATH_H

#include <stddef.h>

/* Room for any path tsctui builds: Linux's PATH_MAX, the longest path the
 * kernel accepts in one call. */
#define PATH_UNDER_MAX 4096

/* root + abs (abs starts with '/'); returns buf, or NULL if it won't fit. */
char *path_under(const char *root, const char *abs, char *buf, size_t cap);
/* dir + rel (rel starts with '/'), where a dir of "/" adds nothing: the
 * ESP mounted at "/" gives "/EFI/tsctui", not "//EFI/tsctui".  Returns
 * out, or NULL if it won't fit (out then holds what fitted). */
char *path_join(const char *dir, const char *rel, char *out, size_t cap);

#endif

/* SPDX-License-Identifier: MIT */
/* Every system path goes through here, so that --root DIR applies to all. */
#ifndef TSCTUI_UTIL_PATH_H
#define TSCTUI_UTIL_PATH_H

#include <stddef.h>

/* root + abs (abs starts with '/'); returns buf, or NULL if it won't fit. */
char *path_under(const char *root, const char *abs, char *buf, size_t cap);

#endif

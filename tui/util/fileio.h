/* SPDX-License-Identifier: MIT */
#ifndef TSCTUI_UTIL_FILEIO_H
#define TSCTUI_UTIL_FILEIO_H

#include <stddef.h>

/* Reads a whole file ("-": standard input), at most max bytes, into a
 * malloc'd buffer with a NUL after the data.  Returns NULL with errno set;
 * EFBIG when the input is larger than max, EINVAL when a named path is a
 * device or a socket (it would block or never end).  A FIFO nobody writes
 * to reads as empty. */
char *fileio_read_all(const char *path, size_t max, size_t *len);

#endif

/* SPDX-License-Identifier: MIT */
#ifndef TSCTUI_UTIL_FILEIO_H
#define TSCTUI_UTIL_FILEIO_H

#include <stddef.h>

/* Reads a file the user named ("-": standard input; --kernel-log,
 * report --file), at most max bytes, into a malloc'd buffer with a NUL
 * after the data.  Returns NULL with errno set; EFBIG when the input is
 * larger than max, EINVAL when the path is a device or a socket (it would
 * block or never end).  A FIFO nobody writes to reads as empty.  Files
 * under --root are read with fsx_read (fsx.h), never with this. */
char *fileio_read_all(const char *path, size_t max, size_t *len);
/* The rest of an open fd, the same way; the fd stays open. */
char *fileio_read_fd(int fd, size_t max, size_t *len);

#endif

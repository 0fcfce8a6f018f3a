/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

/*
 * A named path is read only if it is a regular file, a directory (which
 * fails at the read) or a pipe: a device would block (a terminal) or never
 * end (/dev/zero), and another machine's tree under --root may hold one
 * anywhere.  Opened without blocking, so a FIFO no one writes to does not
 * hang the open; its read then ends at once, with nothing, while a pipe
 * with a writer (`<(...)`) is read to its end.
 */
static int open_readable(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 ||
	    !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
	      S_ISFIFO(st.st_mode)) ||
	    fcntl(fd, F_SETFL, 0) != 0) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

char *fileio_read_all(const char *path, size_t max, size_t *len)
{
	int fd = strcmp(path, "-") == 0 ? 0 : open_readable(path);
	size_t cap = 4096, n = 0;
	char *buf = NULL, *nb;
	ssize_t r;
	int saved;

	if (fd < 0)
		return NULL;
	buf = malloc(cap + 1);
	if (!buf)
		goto fail;
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				errno = EFBIG;
				goto fail;
			}
			cap = cap * 2 > max ? max : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb)
				goto fail;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (fd != 0)
		close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	saved = errno;
	free(buf);
	if (fd > 0)
		close(fd);
	errno = saved;
	return NULL;
}

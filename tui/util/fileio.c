/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"

/*
 * A named path is read only if it is a regular file or a pipe: a device
 * would block (a terminal) or never end (/dev/zero), so its type is asked
 * before it is opened (its driver's open() never runs).  Opened without
 * blocking, so a FIFO no one writes to does not hang the open; its read
 * then ends at once, with nothing, while a pipe with a writer (`<(...)`)
 * is read to its end.
 */
static int open_readable(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) != 0)
		return -1;
	if (!(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 ||
	    !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) ||
	    fcntl(fd, F_SETFL, 0) != 0) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

char *fileio_read_all(const char *path, size_t max, size_t *len)
{
	int fd = strcmp(path, "-") == 0 ? 0 : open_readable(path), saved;
	char *d;

	if (fd < 0)
		return NULL;
	d = fileio_read_fd(fd, max, len);
	saved = errno;
	if (fd != 0)
		close(fd);
	errno = saved;
	return d;
}

char *fileio_read_fd(int fd, size_t max, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = NULL, *nb;
	ssize_t r;
	int saved;

	buf = malloc(cap + 1);
	if (!buf)
		return NULL;
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
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	saved = errno;
	free(buf);
	errno = saved;
	return NULL;
}

/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fileio.h"
#include "fsx.h"
#include "path.h"

/* Files the actions touch are small; this only stops a runaway. */
#define FSX_MAX (256u << 20)

bool fsx_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

bool fsx_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *fsx_read(const char *path, size_t *len)
{
	return fileio_read_all(path, FSX_MAX, len);
}

static int sync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int fd, rc = -1;

	if (!copy)
		return -1;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		rc = fsync(fd);
		/* Some file systems (vfat under some kernels) refuse a
		 * directory fsync; the rename itself is what matters. */
		if (rc != 0 && (errno == EINVAL || errno == EROFS))
			rc = 0;
		close(fd);
	}
	free(copy);
	return rc;
}

int fsx_write_atomic(const char *path, const void *data, size_t len,
		     mode_t mode)
{
	char tmp[PATH_UNDER_MAX];
	const char *p = data;
	size_t done = 0;
	int fd, saved;
	ssize_t w;

	if (snprintf(tmp, sizeof(tmp), "%s.tsctui-new", path) >=
	    (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fsx_fault_point();
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	while (done < len) {
		w = write(fd, p + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			goto fail;
		done += (size_t)w;
	}
	if (fchmod(fd, mode) != 0 || fsync(fd) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	fsx_fault_point();
	if (rename(tmp, path) != 0)
		goto fail;
	return sync_dir_of(path);
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = saved;
	return -1;
}

int fsx_remove(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -1;
	fsx_fault_point();
	if (unlink(path) != 0)
		return errno == ENOENT ? 0 : -1;
	return sync_dir_of(path);
}

bool fsx_dir_writable(const char *dir)
{
	struct statvfs sv;

	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
		return false;
	if (statvfs(dir, &sv) != 0)
		return false;
	if (sv.f_flag & ST_RDONLY) {
		errno = EROFS;
		return false;
	}
	return true;
}

void fsx_fault_point(void)
{
	static long count, at = -1;

	if (at < 0) {
		const char *env = getenv("TSCTUI_TEST_KILL_AT");

		at = env && env[0] ? strtol(env, NULL, 10) : 0;
	}
	if (at > 0 && ++count == at)
		raise(SIGKILL);
}

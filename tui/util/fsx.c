/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fileio.h"
#include "fsx.h"
#include "path.h"

/* Files the actions touch are small; this only stops a runaway. */
#define FSX_MAX (256u << 20)
/* Linux's own limit on links followed in one lookup. */
#define FSX_MAX_LINKS 40
#define TEMP_SUFFIX ".tsctui-new"

/*
 * The directory holding path's last component and that component's name;
 * with follow, a link there is followed (inside the root, as the disk's
 * own system would) until the name is not a link.  -1 with errno.
 */
static int locate(const char *path, bool follow, char leaf[NAME_MAX + 1])
{
	char cur[PATH_UNDER_MAX], text[PATH_UNDER_MAX], next[PATH_UNDER_MAX];
	int dfd, links = 0;
	struct stat st;
	ssize_t k;

	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (;;) {
		dfd = path_parent(cur, leaf, NAME_MAX + 1);
		if (dfd < 0 || !follow)
			return dfd;
		if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISLNK(st.st_mode))
			return dfd;
		k = readlinkat(dfd, leaf, text, sizeof(text) - 1);
		close(dfd);
		if (k <= 0 || ++links > FSX_MAX_LINKS) {
			errno = ELOOP;
			return -1;
		}
		text[k] = '\0';
		if (!path_link_target(cur, text, next, sizeof(next)))
			return -1;
		memcpy(cur, next, strlen(next) + 1);
	}
}

static int stat_at(const char *path, bool follow, struct stat *st)
{
	char leaf[NAME_MAX + 1];
	int dfd = locate(path, follow, leaf), rc;

	if (dfd < 0)
		return -1;
	rc = fstatat(dfd, leaf, st, AT_SYMLINK_NOFOLLOW);
	close(dfd);
	return rc;
}

int fsx_lstat(const char *path, struct stat *st)
{
	return stat_at(path, false, st);
}

int fsx_stat(const char *path, struct stat *st)
{
	return stat_at(path, true, st);
}

bool fsx_exists(const char *path)
{
	struct stat st;

	return fsx_lstat(path, &st) == 0;
}

bool fsx_is_dir(const char *path)
{
	struct stat st;

	return fsx_stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Why a file of this type is not what was asked for. */
static int wrong_type(mode_t have, mode_t want)
{
	if (S_ISLNK(have))
		return ELOOP;
	if (want == S_IFREG && S_ISDIR(have))
		return EISDIR;
	if (want == S_IFDIR)
		return ENOTDIR;
	return EINVAL;
}

/*
 * The one real open of a file under the root: its type is read first,
 * from the directory entry (no open, so a device's driver never runs and
 * a FIFO never blocks), and only a file of the wanted type is opened,
 * without following a link, without blocking and without becoming a
 * terminal; the file opened must be the one looked at.
 */
static int open_typed(const char *path, bool follow, mode_t want, int flags)
{
	char leaf[NAME_MAX + 1];
	struct stat st, got;
	int dfd = locate(path, follow, leaf), fd, e;

	if (dfd < 0)
		return -1;
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		e = errno;
		goto fail;
	}
	if ((st.st_mode & S_IFMT) != want) {
		e = wrong_type(st.st_mode, want);
		goto fail;
	}
	fd = openat(dfd, leaf,
		    flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	e = errno;
	close(dfd);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	if (fstat(fd, &got) != 0 || got.st_dev != st.st_dev ||
	    got.st_ino != st.st_ino) {
		close(fd);
		errno = EAGAIN; /* replaced while we looked */
		return -1;
	}
	return fd;
fail:
	close(dfd);
	errno = e;
	return -1;
}

static char *read_typed(const char *path, bool follow, size_t max, size_t *len)
{
	int fd = open_typed(path, follow, S_IFREG, O_RDONLY);
	char *d;

	if (fd < 0)
		return NULL;
	d = fileio_read_fd(fd, max, len);
	if (!d) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	close(fd);
	return d;
}

char *fsx_read(const char *path, size_t *len)
{
	return read_typed(path, true, FSX_MAX, len);
}

char *fsx_read_max(const char *path, size_t max, size_t *len)
{
	return read_typed(path, true, max, len);
}

char *fsx_read_own(const char *path, size_t *len)
{
	return read_typed(path, false, FSX_MAX, len);
}

int fsx_open_read(const char *path)
{
	return open_typed(path, true, S_IFREG, O_RDONLY);
}

int fsx_open_dir(const char *path)
{
	return open_typed(path, true, S_IFDIR, O_RDONLY | O_DIRECTORY);
}

int fsx_open_lock(const char *path)
{
	char leaf[NAME_MAX + 1];
	struct stat st;
	int dfd = locate(path, false, leaf), fd = -1, e = 0;

	if (dfd < 0)
		return -1;
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISREG(st.st_mode)) {
		e = wrong_type(st.st_mode, S_IFREG);
	} else {
		fd = openat(dfd, leaf,
			    O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
				    O_NOCTTY | O_CLOEXEC,
			    0600);
		e = errno;
		if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -1;
			e = EINVAL;
		}
	}
	close(dfd);
	errno = e;
	return fd;
}

DIR *fsx_opendir(const char *path)
{
	int fd = fsx_open_dir(path);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

static int sync_dir(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	/* Some file systems (vfat under some kernels) refuse a
	 * directory fsync; the rename itself is what matters. */
	if (rc != 0 && (errno == EINVAL || errno == EROFS))
		rc = 0;
	close(fd);
	return rc;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	size_t done = 0;
	ssize_t w;

	while (done < len) {
		w = write(fd, p + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

int fsx_write_atomic(const char *path, const void *data, size_t len,
		     mode_t mode)
{
	char leaf[NAME_MAX + 1], tmp[NAME_MAX + 1];
	struct stat st;
	int dfd, fd = -1, e;

	dfd = locate(path, false, leaf);
	if (dfd < 0)
		return -1;
	if (snprintf(tmp, sizeof(tmp), "%s" TEMP_SUFFIX, leaf) >=
	    (int)sizeof(tmp)) {
		e = ENAMETOOLONG;
		goto out;
	}
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		e = wrong_type(st.st_mode, S_IFREG);
		goto out;
	}
	/* A killed run's temporary file, or anything planted under its
	 * name, goes first: O_EXCL below then creates a new file or fails. */
	if (unlinkat(dfd, tmp, 0) != 0 && errno != ENOENT) {
		e = errno;
		goto out;
	}
	fsx_fault_point();
	fd = openat(dfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY |
			    O_CLOEXEC,
		    mode);
	if (fd < 0) {
		e = errno;
		goto out;
	}
	if (write_all(fd, data, len) != 0 || fchmod(fd, mode) != 0 ||
	    fsync(fd) != 0) {
		e = errno;
		close(fd);
		goto unlink;
	}
	if (close(fd) != 0) {
		e = errno;
		goto unlink;
	}
	fsx_fault_point();
	if (renameat(dfd, tmp, dfd, leaf) != 0) {
		e = errno;
		goto unlink;
	}
	e = sync_dir(dfd) == 0 ? 0 : errno;
	goto out;
unlink:
	unlinkat(dfd, tmp, 0);
out:
	close(dfd);
	errno = e;
	return e ? -1 : 0;
}

int fsx_append(const char *path, const char *text)
{
	char leaf[NAME_MAX + 1];
	struct stat st;
	int dfd = locate(path, true, leaf), fd, e = 0;

	if (dfd < 0)
		return -1;
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISREG(st.st_mode)) {
		close(dfd);
		errno = wrong_type(st.st_mode, S_IFREG);
		return -1;
	}
	fd = openat(dfd, leaf,
		    O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
			    O_NOCTTY | O_CLOEXEC,
		    0644);
	if (fd < 0)
		e = errno;
	else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		e = EINVAL;
	else if (write_all(fd, text, strlen(text)) != 0)
		e = errno;
	if (fd >= 0 && close(fd) != 0 && !e)
		e = errno;
	close(dfd);
	errno = e;
	return e ? -1 : 0;
}

int fsx_remove(const char *path)
{
	char leaf[NAME_MAX + 1];
	struct stat st;
	int dfd = locate(path, false, leaf), e = 0;

	if (dfd < 0)
		return -1;
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		e = errno == ENOENT ? 0 : errno;
	} else {
		fsx_fault_point();
		if (unlinkat(dfd, leaf, 0) != 0)
			e = errno == ENOENT ? 0 : errno;
		else if (sync_dir(dfd) != 0)
			e = errno;
	}
	close(dfd);
	errno = e;
	return e ? -1 : 0;
}

int fsx_mkdir(const char *path, mode_t mode)
{
	char leaf[NAME_MAX + 1];
	int dfd = locate(path, false, leaf), rc, e;

	if (dfd < 0)
		return -1;
	rc = mkdirat(dfd, leaf, mode);
	e = errno;
	close(dfd);
	errno = e;
	return rc;
}

int fsx_rmdir(const char *path)
{
	char leaf[NAME_MAX + 1];
	int dfd = locate(path, false, leaf), rc, e;

	if (dfd < 0)
		return -1;
	rc = unlinkat(dfd, leaf, AT_REMOVEDIR);
	e = errno;
	close(dfd);
	errno = e;
	return rc;
}

int fsx_symlink(const char *target, const char *path)
{
	char leaf[NAME_MAX + 1];
	int dfd = locate(path, false, leaf), rc, e;

	if (dfd < 0)
		return -1;
	rc = symlinkat(target, dfd, leaf);
	e = errno;
	close(dfd);
	errno = e;
	return rc;
}

ssize_t fsx_readlink(const char *path, char *buf, size_t cap)
{
	char leaf[NAME_MAX + 1];
	int dfd = locate(path, false, leaf), e;
	ssize_t n;

	if (dfd < 0)
		return -1;
	n = readlinkat(dfd, leaf, buf, cap);
	e = errno;
	close(dfd);
	errno = e;
	return n;
}

bool fsx_dir_writable(const char *dir)
{
	char leaf[NAME_MAX + 1];
	struct statvfs sv;
	int dfd = locate(dir, true, leaf), fd;
	bool ok;

	if (dfd < 0)
		return false;
	ok = faccessat(dfd, leaf, W_OK | X_OK, AT_EACCESS) == 0;
	fd = ok ? openat(dfd, leaf,
			 O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		: -1;
	close(dfd);
	if (fd < 0)
		return false;
	ok = fstatvfs(fd, &sv) == 0;
	close(fd);
	if (ok && (sv.f_flag & ST_RDONLY)) {
		errno = EROFS;
		ok = false;
	}
	return ok;
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

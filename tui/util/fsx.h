/* SPDX-License-Identifier: MIT */
/*
 * File operations for everything under --root: each path goes through the
 * resolver (path.h), so no link, "..", device node or FIFO on the disk
 * leads outside the root or into a driver.  The type of a file is found
 * without opening it (fstatat on the resolved parent, no follow) before
 * any real open, which is then O_NOFOLLOW|O_NONBLOCK|O_NOCTTY; nothing is
 * chmod'ed or chown'ed through a path.  Every write is atomic (a temporary
 * file made with O_EXCL|O_NOFOLLOW in the same directory, fsync, rename,
 * fsync of the directory), so a crash or a full disk leaves either the old
 * file or the new one, never half.  Paths are the strings path_under
 * returns; "" (its answer to a link loop) fails with ELOOP.
 */
#ifndef TSCTUI_UTIL_FSX_H
#define TSCTUI_UTIL_FSX_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Is there anything at path (a link is something)? */
bool fsx_exists(const char *path);
/* A directory, a link to one (inside the root) included. */
bool fsx_is_dir(const char *path);
/* lstat / stat, resolved inside the root. */
int fsx_lstat(const char *path, struct stat *st);
int fsx_stat(const char *path, struct stat *st);
/* Reads a whole regular file, a link to one inside the root followed;
 * NULL with errno on failure (EINVAL: not a regular file; EISDIR).
 * malloc'd, NUL added. */
char *fsx_read(const char *path, size_t *len);
char *fsx_read_max(const char *path, size_t max, size_t *len);
/* A regular file opened read-only (a link inside the root followed). */
int fsx_open_read(const char *path);
/* The same for tsctui's own files (ledger, backups): a link there is not
 * followed (ELOOP). */
char *fsx_read_own(const char *path, size_t *len);
/* Atomic write with the given mode; 0 or -1 with errno.  A link at path
 * is replaced, never written through; anything but a regular file or a
 * link there is refused (EISDIR, EINVAL). */
int fsx_write_atomic(const char *path, const void *data, size_t len,
		     mode_t mode);
/* Appends to a regular file (created 0644 if absent). */
int fsx_append(const char *path, const char *text);
/* Removes a file (or link) and syncs its directory; 0 if it is gone. */
int fsx_remove(const char *path);
int fsx_mkdir(const char *path, mode_t mode);
int fsx_rmdir(const char *path);
int fsx_symlink(const char *target, const char *path);
ssize_t fsx_readlink(const char *path, char *buf, size_t cap);
/* A regular file opened read-write for flock, created 0600 if absent. */
int fsx_open_lock(const char *path);
/* A directory opened for reading (its entries, flock, fsync). */
int fsx_open_dir(const char *path);
DIR *fsx_opendir(const char *path);
/* Is the directory writable by us: permission for this user and a file
 * system not mounted read-only (asked, not probed: a probe file is a
 * write a kill could leave behind)? */
bool fsx_dir_writable(const char *dir);

/*
 * Called before every change tsctui makes to the system (each file
 * created, rename, unlink, mkdir, rmdir, symlink, NVRAM write, tool run):
 * with TSCTUI_TEST_KILL_AT=N in the environment, the Nth call kills the
 * process with SIGKILL, so the tests can interrupt an action at every
 * write in turn.  Without it, nothing.
 */
void fsx_fault_point(void);

#endif

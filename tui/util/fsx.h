/* SPDX-License-Identifier: MIT */
/*
 * File operations for the actions: every write is atomic (a temporary file
 * in the same directory, fsync, rename, fsync of the directory), so a crash
 * or a full disk leaves either the old file or the new one, never half.
 * Paths here are real paths (already resolved under --root).
 */
#ifndef TSCTUI_UTIL_FSX_H
#define TSCTUI_UTIL_FSX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

bool fsx_exists(const char *path);
bool fsx_is_dir(const char *path);
/* Reads a whole file; NULL with errno on failure (malloc'd, NUL added). */
char *fsx_read(const char *path, size_t *len);
/* Atomic write with the given mode; 0 or -1 with errno. */
int fsx_write_atomic(const char *path, const void *data, size_t len,
		     mode_t mode);
/* Removes a file and syncs its directory; 0 if it is gone. */
int fsx_remove(const char *path);
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

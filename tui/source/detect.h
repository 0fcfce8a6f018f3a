/* SPDX-License-Identifier: MIT */
/* What install needs to know about the system it manages, all under
 * --root: the boot loader, the ESP, file system UUIDs, where the grubenv
 * lives and whether GRUB can write it at boot. */
#ifndef TSCTUI_SOURCE_DETECT_H
#define TSCTUI_SOURCE_DETECT_H

#include <stdbool.h>
#include <stddef.h>

#include "loader.h"

struct mount_info {
	char dev[256];
	char dir[256];
	char type[32];
};

/* The mount holding sys (longest prefix); false if unknown. */
bool detect_mount_of(const char *root, const char *sys, struct mount_info *m);
/* Is u a UUID as /dev/disk/by-uuid and by-partuuid name one, and as the
 * GRUB generator takes it (grub.d/05_tsctui): 1 to 63 of [0-9A-Za-z-]?
 * Names in those directories are the disk's: anything else (a newline
 * would break tsctui.conf's lines) is not a UUID. */
bool detect_uuid_is_clean(const char *u);
/* The name of the link in dirsys (/dev/disk/by-uuid, by-partuuid) that
 * points at dev, a clean UUID (above); false if none. */
bool detect_link_to(const char *root, const char *dirsys, const char *dev,
		    char *name, size_t cap);
/* The device an fstab names as UUID=x (or PARTUUID=x), from the link x in
 * /dev/disk/by-uuid (by-partuuid) under the root: "/dev/" and the link's
 * last component into dev.  False when spec is neither, x is not a clean
 * UUID, or there is no such link. */
bool detect_dev_by_uuid(const char *root, const char *spec, char *dev,
			size_t cap);
/* The file system UUID of a device from /dev/disk/by-uuid; false if none. */
bool detect_uuid_of(const char *root, const char *dev, char *uuid, size_t cap);
/* LOADER_SDBOOT, LOADER_GRUB, or LOADER_NONE (then *why says what was
 * looked at, and the way out, ACT_HINT_LOADER's "; give --loader" in
 * words of each front end, follows it). */
enum loader detect_loader(const char *root, const char **why);
/* The ESP's mount point on the system (e.g. "/boot/efi"); false if none,
 * with *why ending where the way out (ACT_HINT_ESP: "mount the ESP or
 * give --esp" on the command line) follows, its separator included. */
bool detect_esp(const char *root, char *esp, size_t cap, const char **why);
/* Every vfat mount in the root's mount table (ESP candidates, when none
 * is at the usual places), up to max; how many. */
int detect_vfat_mounts(const char *root, struct mount_info *out, int max);
/* Does the system have EFI variables (booted with UEFI)? */
bool detect_efivars(const char *root);
/* The grubenv the distribution's grub.cfg loads ("/boot/grub/grubenv" on
 * Debian, "/boot/grub2/grubenv" on Fedora); false if no GRUB directory. */
bool detect_grubenv(const char *root, char *path, size_t cap);
/* NULL when GRUB can save_env to the file system holding sys; else why not
 * (btrfs, ZFS, LVM, LUKS, RAID). */
const char *detect_grubenv_unwritable(const char *root, const char *sys);

#endif

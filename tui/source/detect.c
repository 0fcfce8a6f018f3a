/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "efivar.h"
#include "../util/fileio.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "detect.h"

/* Mount table fields escape space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] &&
		    s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

static char *mounts(const char *root)
{
	char path[PATH_UNDER_MAX];
	size_t n;
	char *d;

	path_under(root, "/proc/self/mounts", path, sizeof(path));
	d = fsx_read_max(path, 1u << 22, &n);
	if (!d) {
		path_under(root, "/proc/mounts", path, sizeof(path));
		d = fsx_read_max(path, 1u << 22, &n);
	}
	return d;
}

static char *fstab(const char *root)
{
	char path[PATH_UNDER_MAX];
	size_t n;

	path_under(root, "/etc/fstab", path, sizeof(path));
	return fsx_read_max(path, 1u << 20, &n);
}

/* One mount table or fstab line: device, directory, type; false for a
 * comment or a line without them. */
static bool parse_line(const char *line, struct mount_info *m)
{
	if (line[strspn(line, " \t")] == '#' ||
	    sscanf(line, "%255s %255s %31s", m->dev, m->dir, m->type) != 3)
		return false;
	unescape(m->dev);
	unescape(m->dir);
	return true;
}

/* Is dir (a path of the system under root) a mount point there: on
 * another device than its parent?  The root itself always is. */
static bool mounted_under(const char *root, const char *dir)
{
	char p[PATH_UNDER_MAX], up[PATH_UNDER_MAX], parent[PATH_UNDER_MAX];
	char *slash;
	struct stat a, b;

	if (!strcmp(dir, "/"))
		return true;
	path_under(root, dir, p, sizeof(p));
	snprintf(up, sizeof(up), "%s", dir);
	slash = strrchr(up, '/');
	if (!slash)
		return false;
	if (slash == up)
		slash[1] = '\0';
	else
		*slash = '\0';
	path_under(root, up, parent, sizeof(parent));
	return fsx_stat(p, &a) == 0 && S_ISDIR(a.st_mode) &&
	       fsx_stat(parent, &b) == 0 && a.st_dev != b.st_dev;
}

bool detect_mount_of(const char *root, const char *sys, struct mount_info *m)
{
	char *data = mounts(root), *line, *save = NULL;
	size_t best = 0;
	bool found = false, from_fstab = false;

	/* A disk mounted from a live system has no mount table of its own
	 * (no /proc in it): its fstab says what goes where, and each entry
	 * counts where it is mounted under the root. */
	if (!data && strcmp(root, "/")) {
		data = fstab(root);
		from_fstab = true;
	}
	if (!data)
		return false;
	for (line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct mount_info cur;
		size_t n;

		if (!parse_line(line, &cur) ||
		    (from_fstab &&
		     (cur.dir[0] != '/' || !mounted_under(root, cur.dir))))
			continue;
		n = strlen(cur.dir);
		if (strcmp(cur.dir, "/") != 0 &&
		    (strncmp(sys, cur.dir, n) != 0 ||
		     (sys[n] != '/' && sys[n] != '\0')))
			continue;
		if (strcmp(cur.dir, "/") == 0)
			n = 0;
		/* The last of equal mount points is the one on top. */
		if (!found || n >= best) {
			*m = cur;
			best = n;
			found = true;
		}
	}
	free(data);
	return found;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The longest UUID GRUB's `search --fs-uuid` and by-partuuid give is 36
 * characters; 63 leaves room, and a longer name is no UUID. */
#define UUID_NAME_MAX 63

bool detect_uuid_is_clean(const char *u)
{
	size_t n = strspn(u, "0123456789abcdefghijklmnopqrstuvwxyz"
			     "ABCDEFGHIJKLMNOPQRSTUVWXYZ-");

	return n > 0 && n <= UUID_NAME_MAX && u[n] == '\0';
}

bool detect_link_to(const char *root, const char *dirsys, const char *dev,
		    char *name, size_t cap)
{
	char dir[PATH_UNDER_MAX], link[4400], target[PATH_UNDER_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;
	ssize_t n;

	path_under(root, dirsys, dir, sizeof(dir));
	d = fsx_opendir(dir);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		if (!detect_uuid_is_clean(e->d_name))
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
		n = fsx_readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (strcmp(base(target), base(dev)) == 0) {
			snprintf(name, cap, "%s", e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

bool detect_dev_by_uuid(const char *root, const char *spec, char *dev,
			size_t cap)
{
	char sys[128], link[PATH_UNDER_MAX], target[PATH_UNDER_MAX];
	const char *dir, *uuid;
	ssize_t n;

	if (!strncmp(spec, "UUID=", 5)) {
		dir = "/dev/disk/by-uuid";
		uuid = spec + 5;
	} else if (!strncmp(spec, "PARTUUID=", 9)) {
		dir = "/dev/disk/by-partuuid";
		uuid = spec + 9;
	} else {
		return false;
	}
	if (!detect_uuid_is_clean(uuid))
		return false;
	snprintf(sys, sizeof(sys), "%s/%s", dir, uuid);
	if (!path_under_nofollow(root, sys, link, sizeof(link)))
		return false;
	n = fsx_readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	/* the kernel's name of the device: one component, never . or .. */
	if (!base(target)[0] || !strcmp(base(target), ".") ||
	    !strcmp(base(target), ".."))
		return false;
	return snprintf(dev, cap, "/dev/%s", base(target)) < (int)cap;
}

bool detect_uuid_of(const char *root, const char *dev, char *uuid, size_t cap)
{
	/* an fstab names it by its UUID already */
	if (!strncmp(dev, "UUID=", 5) && detect_uuid_is_clean(dev + 5)) {
		snprintf(uuid, cap, "%s", dev + 5);
		return true;
	}
	return detect_link_to(root, "/dev/disk/by-uuid", dev, uuid, cap);
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum loader detect_loader(const char *root, const char **why)
{
	char *info = efivar_string(root, "LoaderInfo", GUID_SD_LOADER);
	char p1[PATH_UNDER_MAX], p2[PATH_UNDER_MAX];
	bool sd = info && starts(info, "systemd-boot");

	free(info);
	if (sd)
		return LOADER_SDBOOT;
	/* Debian 12's GRUB sets no LoaderInfo; its configuration says it. */
	path_under(root, "/boot/grub/grub.cfg", p1, sizeof(p1));
	path_under(root, "/boot/grub2/grub.cfg", p2, sizeof(p2));
	if (fsx_exists(p1) || fsx_exists(p2))
		return LOADER_GRUB;
	*why = "no LoaderInfo variable from systemd-boot and no "
	       "/boot/grub/grub.cfg or /boot/grub2/grub.cfg";
	return LOADER_NONE;
}

int detect_vfat_mounts(const char *root, struct mount_info *out, int max)
{
	char *data = mounts(root), *line, *save = NULL;
	int n = 0;

	if (!data)
		return 0;
	for (line = strtok_r(data, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		struct mount_info *m = &out[n];

		if (sscanf(line, "%255s %255s %31s", m->dev, m->dir, m->type) !=
			    3 ||
		    strcmp(m->type, "vfat") != 0)
			continue;
		unescape(m->dev);
		unescape(m->dir);
		n++;
	}
	free(data);
	return n;
}

bool detect_efivars(const char *root)
{
	char p[PATH_UNDER_MAX];

	path_under(root, "/sys/firmware/efi/efivars", p, sizeof(p));
	return fsx_is_dir(p);
}

/* The reason detect_esp gives when it names the fstab's entry. */
static _Thread_local char esp_why[4 * PATH_UNDER_MAX + 8 * 256 + 700];

/* One word a shell takes as it is: no blank, quote, $, ;, |, & or other
 * character it gives a meaning (what a device name like UUID=..., LABEL=
 * or /dev/... is made of). */
static bool shell_plain(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("/_.,:=+@%-", *s)))
			return false;
	return true;
}

/* The target's fstab entry for a vfat file system at one of the ESP's
 * usual places (the first), mounted or not. */
static bool esp_in_fstab(const char *root, struct mount_info *m)
{
	char *data = fstab(root), *line, *save = NULL;
	bool found = false;

	for (line = data ? strtok_r(data, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = parse_line(line, m) && !strcmp(m->type, "vfat") &&
			(!strcmp(m->dir, "/boot/efi") ||
			 !strcmp(m->dir, "/efi") || !strcmp(m->dir, "/boot"));
	free(data);
	return found;
}

bool detect_esp(const char *root, char *esp, size_t cap, const char **why)
{
	static const char *const places[] = { "/boot/efi", "/efi", "/boot" };
	struct mount_info m;
	size_t i;

	/* bootctl knows best, but only about the system it runs on. */
	if (strcmp(root, "/") == 0 && access("/usr/bin/bootctl", X_OK) == 0) {
		FILE *p = popen("bootctl --print-esp-path 2>/dev/null", "r");
		char line[512] = "";

		if (p) {
			if (!fgets(line, sizeof(line), p))
				line[0] = '\0';
			if (pclose(p) == 0 && line[0] == '/') {
				line[strcspn(line, "\n")] = '\0';
				snprintf(esp, cap, "%s", line);
				return true;
			}
		}
	}
	for (i = 0; i < 3; i++) {
		if (detect_mount_of(root, places[i], &m) &&
		    strcmp(m.dir, places[i]) == 0 &&
		    strcmp(m.type, "vfat") == 0) {
			snprintf(esp, cap, "%s", places[i]);
			return true;
		}
	}
	if (strcmp(root, "/") && esp_in_fstab(root, &m)) {
		/* The target says where its ESP goes, and nothing is mounted
		 * there under the root: the one step left is the user's.  The
		 * device is the disk's words: shown escaped, and put in a
		 * command to paste only when it is one plain word (a device
		 * "x;rm\040-rf\040/" would otherwise hand the user a second
		 * command to run as root). */
		char dev[4 * sizeof(m.dev)], at[2 * PATH_UNDER_MAX];

		path_shown(m.dev, dev, sizeof(dev));
		path_shown(root, at, sizeof(at));
		if (shell_plain(m.dev) && shell_plain(root))
			snprintf(esp_why, sizeof(esp_why),
				 "the ESP (%s in the target's /etc/fstab, at "
				 "%s) is not mounted under %s (mount -o "
				 "nodev,nosuid %s %s%s): ",
				 dev, m.dir, at, dev, at, m.dir);
		else
			snprintf(esp_why, sizeof(esp_why),
				 "the ESP (%s in the target's /etc/fstab, at "
				 "%s) is not mounted under %s (mount it at "
				 "%s%s with nodev,nosuid): ",
				 dev, m.dir, at, at, m.dir);
		*why = esp_why;
		return false;
	}
	*why = "no vfat file system mounted at /boot/efi, /efi or /boot; ";
	return false;
}

bool detect_grubenv(const char *root, char *path, size_t cap)
{
	char p[PATH_UNDER_MAX];

	path_under(root, "/boot/grub", p, sizeof(p));
	if (fsx_is_dir(p)) {
		snprintf(path, cap, "/boot/grub/grubenv");
		return true;
	}
	path_under(root, "/boot/grub2", p, sizeof(p));
	if (fsx_is_dir(p)) {
		snprintf(path, cap, "/boot/grub2/grubenv");
		return true;
	}
	return false;
}

const char *detect_grubenv_unwritable(const char *root, const char *sys)
{
	struct mount_info m;

	if (!detect_mount_of(root, sys, &m))
		return NULL; /* unknown: GRUB will tell at boot */
	if (strcmp(m.type, "btrfs") == 0)
		return "the grubenv is on btrfs, which GRUB cannot write";
	if (strcmp(m.type, "zfs") == 0)
		return "the grubenv is on ZFS, which GRUB cannot write";
	if (starts(m.dev, "/dev/mapper/") || starts(m.dev, "/dev/dm-"))
		return "the grubenv is on a device-mapper volume (LVM or "
		       "LUKS), which GRUB cannot write";
	if (starts(m.dev, "/dev/md"))
		return "the grubenv is on software RAID, which GRUB cannot "
		       "write";
	return NULL;
}

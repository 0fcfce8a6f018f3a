/* SPDX-License-Identifier: MIT */
/* Other TSC fixers, by their files (fixers.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "fixers.h"

static const char *const unit_dirs[] = { "/etc/systemd/system",
					 "/usr/local/lib/systemd/system",
					 "/usr/lib/systemd/system",
					 "/lib/systemd/system", NULL };
/* Zanasin/tscsync: its GRUB block, its systemd-boot driver, its service. */
static const char *const zanasin_files[] = {
	"/boot/grub/custom.cfg",
	"/boot/grub2/custom.cfg",
	"/boot/efi/EFI/systemd/drivers/tscsyncx64.efi",
	"/efi/EFI/systemd/drivers/tscsyncx64.efi",
	"/boot/EFI/systemd/drivers/tscsyncx64.efi",
	"/etc/systemd/system/tscsync-report.service",
	NULL
};
/* limenode/tscsync: its binary, and its two units (ExecStart runs the
 * binary with --apply: that tells its tscsync.service from others). */
#define LIMENODE_BIN "/usr/local/sbin/tscsync"
static const char *const limenode_units[] = { "tscsync.service",
					      "tscsync-resume.service", NULL };

static bool has(const char *root, const char *sys, const char *what)
{
	char p[PATH_UNDER_MAX];
	size_t len;
	char *d;
	bool found;

	path_under(root, sys, p, sizeof(p));
	d = fsx_read_max(p, 1u << 20, &len);
	found = d && (!what || strstr(d, what));
	free(d);
	return found;
}

/* Is unit linked from any .wants directory of /etc/systemd/system? */
static bool enabled(const char *root, const char *unit)
{
	char p[PATH_UNDER_MAX], link[PATH_UNDER_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	path_under(root, "/etc/systemd/system", p, sizeof(p));
	d = fsx_opendir(p);
	while (d && !found && (e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l < 7 || strcmp(e->d_name + l - 6, ".wants"))
			continue;
		snprintf(link, sizeof(link), "/etc/systemd/system/%.200s/%s",
			 e->d_name, unit);
		path_under(root, link, p, sizeof(p));
		found = fsx_exists(p);
	}
	if (d)
		closedir(d);
	return found;
}

void fixers_read(const char *root, struct sys_fixers *f)
{
	char sys[256];
	size_t i, k;

	memset(f, 0, sizeof(*f));
	for (i = 0; zanasin_files[i] && !f->zanasin; i++) {
		/* custom.cfg is the user's too: only its tscsync lines count */
		bool cfg = strstr(zanasin_files[i], "custom.cfg") != NULL;

		if (has(root, zanasin_files[i], cfg ? "tscsync.efi" : NULL)) {
			f->zanasin = true;
			snprintf(f->zanasin_at, sizeof(f->zanasin_at), "%s",
				 zanasin_files[i]);
		}
	}
	for (i = 0; limenode_units[i]; i++)
		for (k = 0; unit_dirs[k]; k++) {
			snprintf(sys, sizeof(sys), "%s/%s", unit_dirs[k],
				 limenode_units[i]);
			if (!has(root, sys, LIMENODE_BIN " --apply") ||
			    f->nunits >= FIXERS_MAX_UNITS)
				continue;
			snprintf(f->units[f->nunits], sizeof(f->units[0]), "%s",
				 limenode_units[i]);
			f->unit_enabled[f->nunits++] =
				enabled(root, limenode_units[i]);
			break;
		}
	path_under(root, LIMENODE_BIN, sys, sizeof(sys));
	f->limenode = f->nunits > 0 || fsx_exists(sys);
}

/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "boot_id.h"

bool boot_id_read(const char *root, char out[BOOT_ID_MAX])
{
	char path[PATH_UNDER_MAX];
	size_t len;
	char *d;

	out[0] = '\0';
	if (!path_under(root, "/proc/sys/kernel/random/boot_id", path,
			sizeof(path)))
		return false;
	if ((d = fsx_read(path, &len))) {
		/* %63s: BOOT_ID_MAX - 1 */
		if (sscanf(d, "%63s", out) != 1)
			out[0] = '\0';
		free(d);
	}
	return out[0] != '\0';
}

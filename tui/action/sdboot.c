/* SPDX-License-Identifier: MIT */
/*
 * systemd-boot, written: the stage is a driver systemd-boot loads before
 * its menu; its mode and guard are files in the ESP's tsctui directory.
 */
#include "../util/path.h"
#include "loader_writing.h"
#include "stagecfg.h"

static int place(struct act *a, struct tsctui_conf *c,
		 const struct install_opts *o, const char *image, size_t len,
		 bool fresh)
{
	char sys[PATH_UNDER_MAX];

	(void)o;
	/* The options first, the driver last: a driver without its options
	 * would run with defaults. */
	if (fresh && stagecfg_esp_write(a, c, TSC_MODE_MEASURE, "", true) != 0)
		return -1;
	path_join(c->esp, loader_sdboot.image, sys, sizeof(sys));
	return act_put(a, sys, image, len, 0644);
}

const struct loader_writing sdboot_writing = {
	.prepare = NULL,
	.place = place,
	.regenerate = NULL,
	.settle = NULL,
	.state_write = stagecfg_esp_write,
	.boot_ok = stagecfg_esp_boot_ok,
	.firmware_checks = true,
	.mok_refused = false,
};

/* SPDX-License-Identifier: MIT */
/*
 * systemd-boot, read: the stage is a driver systemd-boot loads from the
 * ESP; its mode and guard are files in the ESP's tsctui directory
 * (stage_state_read_esp).  systemd-boot starts Linux itself.
 */
#include "loader.h"
#include "stage_state.h"

const struct loader_reading loader_sdboot = {
	.image = SD_DRIVERS_DIR "/tsctuix64.efi",
	.image_build = "tsctui-driver.efi",
	.state_read = stage_state_read_esp,
	.starts_linux = NULL,
};

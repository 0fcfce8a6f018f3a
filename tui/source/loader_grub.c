/* SPDX-License-Identifier: MIT */
/*
 * GRUB, read: the stage is a chainloaded image in the ESP's tsctui
 * directory; its mode and guard are grubenv variables
 * (stage_state_read_grub).  GRUB starts Linux itself.
 */
#include "loader.h"
#include "stage_state.h"

const struct loader_reading loader_grub = {
	.image = ESP_STATE_DIR "/tsctui.efi",
	.image_build = "tsctui.efi",
	.state_read = stage_state_read_grub,
	.starts_linux = NULL,
};

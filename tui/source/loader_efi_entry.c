/* SPDX-License-Identifier: MIT */
/*
 * The stage in its own firmware boot entry, read: the image and its state
 * files in the ESP's tsctui directory (stage_state_read_esp).  It starts
 * the loader that was first in BootOrder, and that loader starts Linux:
 * the one the system shows (detect_loader).
 */
#include "detect.h"
#include "loader.h"
#include "stage_state.h"

static enum loader starts_linux(const char *root)
{
	const char *why = NULL;

	return detect_loader(root, &why);
}

const struct loader_reading loader_efi_entry = {
	.image = ESP_STATE_DIR "/tsctui.efi",
	.image_build = "tsctui.efi",
	.state_read = stage_state_read_esp,
	.starts_linux = starts_linux,
};

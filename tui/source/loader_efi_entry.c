/* SPDX-License-Identifier: MIT */
/*
 * The stage in its own firmware boot entry, read: the image and its state
 * files in the ESP's tsctui directory (stage_state_read_esp).  It starts
 * the entry install recorded as next= (tsctui.conf's efi_next), and the
 * loader that entry's file is starts Linux; when the entry or its file
 * says nothing, the one the system shows (detect_loader).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "detect.h"
#include "efivar.h"
#include "loader.h"
#include "stage_state.h"

/* A load option: attributes (4 bytes), the device path's length (2),
 * the description (UTF-16, NUL-ended), the device path. */
#define LOADOPT_HEAD 6
/* Device path node: type, subtype, length (2 bytes, header included). */
#define DP_MEDIA 4
#define DP_MEDIA_FILE 4
#define DP_END 0x7f
#define DP_NODE_HEAD 4

/* The file path of the load option in data (len bytes), lower-cased
 * ASCII ('?' for the rest), into out; false when it has none. */
static bool option_file(const uint8_t *data, size_t len, char *out, size_t cap)
{
	size_t at = LOADOPT_HEAD, end, o = 0, k;
	uint16_t plen;

	if (len < LOADOPT_HEAD || cap == 0)
		return false;
	plen = (uint16_t)(data[4] | data[5] << 8);
	while (at + 1 < len && (data[at] || data[at + 1]))
		at += 2;
	at += 2;
	if (at > len || plen > len - at)
		return false;
	for (end = at + plen; at + DP_NODE_HEAD <= end;) {
		uint16_t n = (uint16_t)(data[at + 2] | data[at + 3] << 8);

		if (data[at] == DP_END || n < DP_NODE_HEAD || n > end - at)
			return false;
		if (data[at] == DP_MEDIA && data[at + 1] == DP_MEDIA_FILE) {
			for (k = at + DP_NODE_HEAD;
			     k + 1 < at + n && o + 1 < cap; k += 2) {
				uint16_t c =
					(uint16_t)(data[k] | data[k + 1] << 8);

				if (!c)
					break;
				out[o++] = c < 0x80 ? (char)tolower(c) : '?';
			}
			out[o] = '\0';
			return o > 0;
		}
		at += n;
	}
	return false;
}

/* The loader the entry named next= starts: from its file's name
 * (grubx64.efi, shimx64.efi, systemd-bootx64.efi), or LOADER_NONE. */
static enum loader next_loader(const char *root)
{
	struct tsctui_conf c;
	const char *why = NULL;
	char file[256];
	enum loader l = LOADER_NONE;
	uint8_t *data;
	size_t len;

	if (config_read(root, &c, &why) <= 0 || !c.efi_next[0])
		return LOADER_NONE;
	data = efivar_read(root, c.efi_next, GUID_EFI_GLOBAL, &len, NULL);
	if (data && option_file(data, len, file, sizeof(file))) {
		if (strstr(file, "systemd-boot") || strstr(file, "\\systemd\\"))
			l = LOADER_SDBOOT;
		else if (strstr(file, "grub") || strstr(file, "shim"))
			l = LOADER_GRUB;
	}
	free(data);
	return l;
}

static enum loader starts_linux(const char *root)
{
	const char *why = NULL;
	enum loader l = next_loader(root);

	return l != LOADER_NONE ? l : detect_loader(root, &why);
}

const struct loader_reading loader_efi_entry = {
	.image = ESP_STATE_DIR "/tsctui.efi",
	.image_build = "tsctui.efi",
	.state_read = stage_state_read_esp,
	.starts_linux = starts_linux,
};

/* SPDX-License-Identifier: MIT */
/*
 * /etc/tsctui/tsctui.conf: what `tsctui install` found, read by every later
 * action, `boot-ok` and the GRUB generator.  One key=value per line, '#'
 * comments.  Keys:
 *   loader            grub | systemd-boot | efi-entry
 *   esp               mount point of the ESP (a path on the system)
 *   esp_uuid          its file system UUID (what GRUB searches for)
 *   grubenv           the grubenv the distribution's grub.cfg loads
 *   grubenv_fs_uuid   UUID of the file system holding it
 *   grubenv_in_fs     its path inside that file system (GRUB's view)
 *   efi_entry         Boot#### created for the efi-entry path
 *   efi_next          Boot#### the efi entry starts next
 */
#ifndef TSCTUI_SOURCE_CONFIG_H
#define TSCTUI_SOURCE_CONFIG_H

#include <stdbool.h>

#include "loader.h"

#define TSCTUI_CONF "/etc/tsctui/tsctui.conf"

struct tsctui_conf {
	enum loader loader; /* the file's name for it: loader_name() */
	char esp[256];
	char esp_uuid[64];
	char grubenv[256];
	char grubenv_fs_uuid[64];
	char grubenv_in_fs[256];
	char efi_entry[16];
	char efi_next[16];
};

/* 1 read, 0 absent (not installed), -1 unreadable or malformed (*why). */
int config_read(const char *root, struct tsctui_conf *c, const char **why);
/* The file's text. */
char *config_format(const struct tsctui_conf *c);

#endif

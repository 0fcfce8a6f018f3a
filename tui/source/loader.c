/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <string.h>

#include "loader.h"

/* The one table of names: index = enum loader. */
static const char *const names[] = {
	[LOADER_NONE] = "none",
	[LOADER_GRUB] = "grub",
	[LOADER_SDBOOT] = "systemd-boot",
	[LOADER_EFI_ENTRY] = "efi-entry",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

const char *loader_name(enum loader l)
{
	return (size_t)l < NNAMES ? names[l] : names[LOADER_NONE];
}

bool loader_from(const char *name, enum loader *l)
{
	size_t i;

	for (i = LOADER_NONE + 1; name && i < NNAMES; i++) {
		if (strcmp(name, names[i]) == 0) {
			*l = (enum loader)i;
			return true;
		}
	}
	return false;
}

const struct loader_reading *loader_reading(enum loader l)
{
	switch (l) {
	case LOADER_GRUB:
		return &loader_grub;
	case LOADER_SDBOOT:
		return &loader_sdboot;
	case LOADER_EFI_ENTRY:
		return &loader_efi_entry;
	case LOADER_NONE:
		break;
	}
	return NULL;
}

enum loader loader_starts_linux(const char *root, enum loader l)
{
	const struct loader_reading *r = loader_reading(l);
	enum loader found;

	if (!r || !r->starts_linux)
		return l;
	found = r->starts_linux(root);
	return found != LOADER_NONE ? found : l;
}

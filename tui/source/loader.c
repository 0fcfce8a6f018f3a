/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <string.h>

#include "../../common/string_table.h"
#include "loader.h"

/* The one table of names: index = enum loader. */
static const char *const names[] = {
	[LOADER_NONE] = "none",
	[LOADER_GRUB] = "grub",
	[LOADER_SDBOOT] = "systemd-boot",
	[LOADER_EFI_ENTRY] = "efi-entry",
};
STRING_TABLE_TO(loader_name, enum loader, names, names[LOADER_NONE])
/* "none" is no loader to install for: the lookup starts after it. */
STRING_TABLE_FROM(loader_from, enum loader, names, LOADER_NONE + 1)

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

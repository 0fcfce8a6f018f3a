/* SPDX-License-Identifier: MIT */
#include <stddef.h>

#include "loader_writing.h"

const struct loader_writing *loader_writing(enum loader l)
{
	switch (l) {
	case LOADER_GRUB:
		return &grub_writing;
	case LOADER_SDBOOT:
		return &sdboot_writing;
	case LOADER_EFI_ENTRY:
		return &efi_entry_writing;
	case LOADER_NONE:
		break;
	}
	return NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * The boot loader the stage is installed for: a type, decided where the
 * configuration is read (config.c) or given (install --loader); its name
 * only at the edges (tsctui.conf, JSON, text), from one table both ways.
 * Each loader has a table of operations: the reading half here, one file
 * each (loader_grub.c, loader_sdboot.c, loader_efi_entry.c); the writing
 * half in action/ (action/loader_writing.h).
 */
#ifndef TSCTUI_SOURCE_LOADER_H
#define TSCTUI_SOURCE_LOADER_H

#include <stdbool.h>

/* Where systemd-boot loads drivers from, on the ESP. */
#define SD_DRIVERS_DIR "/EFI/systemd/drivers"

enum loader {
	LOADER_NONE, /* not installed, or not found */
	LOADER_GRUB,
	LOADER_SDBOOT,
	LOADER_EFI_ENTRY,
};

/* "grub", "systemd-boot", "efi-entry"; "none" for LOADER_NONE. */
const char *loader_name(enum loader l);
/* The loader a name says; false (and *l untouched) for any other word,
 * "none" included. */
bool loader_from(const char *name, enum loader *l);

struct tsctui_conf;
struct stage_state;

/* What differs between the loaders when tsctui reads the system. */
struct loader_reading {
	/* Where on the ESP the stage's image sits, and the build's file it
	 * is made from. */
	const char *image;
	const char *image_build;
	/* The mode and guard, where this loader's boot path keeps them;
	 * 0, or -1 with the sentence in err (STAGE_STATE_ERR_MAX). */
	int (*state_read)(const char *root, const struct tsctui_conf *c,
			  struct stage_state *s, char *err);
	/* The loader that starts Linux (where its arguments live), when it
	 * is not this one: NULL, or the one the system shows. */
	enum loader (*starts_linux)(const char *root);
};

extern const struct loader_reading loader_grub, loader_sdboot, loader_efi_entry;

/* The reading half of an installed loader (not LOADER_NONE). */
const struct loader_reading *loader_reading(enum loader l);
/* The loader that starts Linux on a system where the stage is installed
 * for l: l itself, except for the firmware entry (the loader the system
 * shows, or l when none is found). */
enum loader loader_starts_linux(const char *root, enum loader l);

#endif

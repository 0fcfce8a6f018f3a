/* SPDX-License-Identifier: MIT */
/* EFI variables through efivarfs under --root: 4 bytes of attributes, then
 * the data. */
#ifndef TSCTUI_SOURCE_EFIVAR_H
#define TSCTUI_SOURCE_EFIVAR_H

#include <stddef.h>
#include <stdint.h>

#define GUID_EFI_GLOBAL "8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define GUID_SD_LOADER "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
#define EFIVARS_DIR "/sys/firmware/efi/efivars"

/* The variable's data (malloc'd), or NULL; *attrs may be NULL. */
uint8_t *efivar_read(const char *root, const char *name, const char *guid,
		     size_t *len, uint32_t *attrs);
/* A UTF-16 string variable as ASCII ('?' for the rest); NULL if absent. */
char *efivar_string(const char *root, const char *name, const char *guid);
/* Secure Boot: 1 on, 0 off, -1 unknown (no variable). */
int efivar_secure_boot(const char *root);
/* BootCurrent, or -1; BootOrder into order (at most max), its length. */
int efivar_boot_current(const char *root);
size_t efivar_boot_order(const char *root, uint16_t *order, size_t max);
/* Is there any variable whose name starts with prefix? */
int efivar_any(const char *root, const char *prefix);

#endif

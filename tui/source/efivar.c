/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <efivar/efivar.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "efivar.h"

/*
 * On the live system, through libefivar, as efibootmgr does.  Under another
 * root, the efivarfs files themselves (4 bytes of attributes, then the
 * data): libefivar 37 picks its backend by the efivarfs magic number
 * (statfs), so EFIVARFS_PATH pointing at a plain directory, a fixture or a
 * copy taken for rescue, finds nothing (measured: efi_get_variable fails).
 */
static uint8_t *read_file(const char *root, const char *name, const char *guid,
			  size_t *len, uint32_t *attrs)
{
	char sys[512], path[PATH_UNDER_MAX];
	uint8_t *data;
	size_t n;

	snprintf(sys, sizeof(sys), EFIVARS_DIR "/%s-%s", name, guid);
	if (!path_under(root, sys, path, sizeof(path)))
		return NULL;
	data = (uint8_t *)fsx_read_max(path, 1u << 20, &n);
	if (!data || n < 4) {
		free(data);
		return NULL;
	}
	if (attrs)
		*attrs = (uint32_t)data[0] | (uint32_t)data[1] << 8 |
			 (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
	memmove(data, data + 4, n - 4);
	*len = n - 4;
	return data;
}

static uint8_t *read_libefivar(const char *name, const char *guid, size_t *len,
			       uint32_t *attrs)
{
	uint8_t *data = NULL, *copy;
	uint32_t at = 0;
	efi_guid_t g;
	size_t n = 0;

	/* Without EFI variables libefivar has nothing to read (and some of
	 * its calls crash): ask first. */
	if (!efi_variables_supported() || efi_str_to_guid(guid, &g) < 0 ||
	    efi_get_variable(g, name, &data, &n, &at) < 0)
		return NULL;
	/* A copy the caller frees with free(), with room for a NUL. */
	copy = malloc(n + 1);
	if (copy) {
		memcpy(copy, data, n);
		copy[n] = 0;
	}
	free(data);
	if (attrs)
		*attrs = at;
	*len = n;
	return copy;
}

uint8_t *efivar_read(const char *root, const char *name, const char *guid,
		     size_t *len, uint32_t *attrs)
{
	if (strcmp(root, "/") == 0)
		return read_libefivar(name, guid, len, attrs);
	return read_file(root, name, guid, len, attrs);
}

char *efivar_string(const char *root, const char *name, const char *guid)
{
	size_t n, i, k = 0;
	uint8_t *d = efivar_read(root, name, guid, &n, NULL);
	char *s;

	if (!d)
		return NULL;
	s = malloc(n / 2 + 1);
	for (i = 0; s && i + 1 < n; i += 2) {
		uint16_t u = (uint16_t)(d[i] | d[i + 1] << 8);

		if (!u)
			break;
		s[k++] = (u >= 0x20 && u < 0x7f) ? (char)u : '?';
	}
	if (s)
		s[k] = '\0';
	free(d);
	return s;
}

int efivar_secure_boot(const char *root)
{
	size_t n;
	uint8_t *d = efivar_read(root, "SecureBoot", GUID_EFI_GLOBAL, &n, NULL);
	int on;

	if (!d)
		return -1;
	on = n >= 1 && d[0] == 1;
	free(d);
	return on;
}

int efivar_any(const char *root, const char *prefix)
{
	char path[PATH_UNDER_MAX];
	struct dirent *e;
	DIR *d;
	int found = 0;

	if (!path_under(root, EFIVARS_DIR, path, sizeof(path)))
		return 0;
	d = fsx_opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			found = 1;
	closedir(d);
	return found;
}

int efivar_boot_current(const char *root)
{
	size_t n;
	uint8_t *d =
		efivar_read(root, "BootCurrent", GUID_EFI_GLOBAL, &n, NULL);
	int v = -1;

	if (d && n == 2)
		v = d[0] | d[1] << 8;
	free(d);
	return v;
}

size_t efivar_boot_order(const char *root, uint16_t *order, size_t max)
{
	size_t n, i, k = 0;
	uint8_t *d = efivar_read(root, "BootOrder", GUID_EFI_GLOBAL, &n, NULL);

	for (i = 0; d && i + 1 < n && k < max; i += 2)
		order[k++] = (uint16_t)(d[i] | d[i + 1] << 8);
	free(d);
	return k;
}

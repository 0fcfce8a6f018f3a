/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fsx.h"
#include "../util/path.h"
#include "config.h"
#include "detect.h"

struct key {
	const char *name;
	size_t off, size;
};

#define K(f)                                                                   \
	{                                                                      \
#f, offsetof(struct tsctui_conf, f),                           \
			sizeof(((struct tsctui_conf *)0)->f)                   \
	}
/* The text keys; "loader" (first in the file) is read and written by
 * name (loader.h). */
#define LOADER_KEY "loader"
static const struct key keys[] = {
	K(esp),		  K(esp_uuid),	K(grubenv),  K(grubenv_fs_uuid),
	K(grubenv_in_fs), K(efi_entry), K(efi_next),
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* "" or BootXXXX, four hex digits. */
static bool boot_entry_ok(const char *e)
{
	return !e[0] || (strlen(e) == 8 && !strncmp(e, "Boot", 4) &&
			 strspn(e + 4, "0123456789abcdefABCDEF") == 4);
}

int config_read(const char *root, struct tsctui_conf *c, const char **why)
{
	char path[PATH_UNDER_MAX], *data, *line, *save = NULL, *eq;
	char loader[16] = "";
	size_t len, i;

	memset(c, 0, sizeof(*c));
	if (!path_under(root, TSCTUI_CONF, path, sizeof(path))) {
		*why = "--root is too long";
		return -1;
	}
	data = fsx_read(path, &len);
	if (!data) {
		static char msg[128];

		if (errno == ENOENT)
			return 0;
		snprintf(msg, sizeof(msg), "cannot read " TSCTUI_CONF ": %s",
			 strerror(errno));
		*why = msg;
		return -1;
	}
	for (line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || line[0] == '\0')
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			free(data);
			*why = TSCTUI_CONF " has a line that is not key=value";
			return -1;
		}
		*eq = '\0';
		if (strcmp(line, LOADER_KEY) == 0)
			snprintf(loader, sizeof(loader), "%s", eq + 1);
		for (i = 0; i < NKEYS; i++) {
			if (strcmp(line, keys[i].name) == 0) {
				snprintf((char *)c + keys[i].off, keys[i].size,
					 "%s", eq + 1);
				break;
			}
		}
	}
	free(data);
	if (!loader_from(loader, &c->loader)) {
		*why = TSCTUI_CONF " names no known loader";
		return -1;
	}
	/* The root may be another machine's disk: a path it gives is used
	 * only if it is a plain absolute one, and a boot entry only as
	 * BootXXXX. */
	if ((c->esp[0] && !path_is_clean(c->esp)) ||
	    (c->grubenv[0] && !path_is_clean(c->grubenv)) ||
	    (c->grubenv_in_fs[0] && !path_is_clean(c->grubenv_in_fs)) ||
	    !boot_entry_ok(c->efi_entry) || !boot_entry_ok(c->efi_next) ||
	    (c->esp_uuid[0] && !detect_uuid_is_clean(c->esp_uuid)) ||
	    (c->grubenv_fs_uuid[0] &&
	     !detect_uuid_is_clean(c->grubenv_fs_uuid))) {
		*why = TSCTUI_CONF
			" has a path, UUID or boot entry that is not "
			"valid (a path must be absolute, without . or ..)";
		return -1;
	}
	return 1;
}

char *config_format(const struct tsctui_conf *c)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	fputs("# Written by `tsctui install`; read by tsctui and its GRUB "
	      "generator.\n# See tsctui(8).  Edit with care.\n",
	      f);
	fprintf(f, LOADER_KEY "=%s\n", loader_name(c->loader));
	for (i = 0; i < NKEYS; i++) {
		const char *v = (const char *)c + keys[i].off;

		if (v[0])
			fprintf(f, "%s=%s\n", keys[i].name, v);
	}
	fclose(f);
	return out;
}

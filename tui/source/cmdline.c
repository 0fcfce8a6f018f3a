/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "../util/path.h"
#include "system.h"

/* /proc/cmdline: every tsc=, clocksource= and tsc_early_khz=. */

void parse_cmdline(const char *text, struct sys_cmdline *c)
{
	char copy[4096], *tok, *save = NULL;

	memset(c, 0, sizeof(*c));
	snprintf(copy, sizeof(copy), "%s", text);
	for (tok = strtok_r(copy, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(tok, "tsc=", 4) && c->ntsc < 4)
			snprintf(c->tsc[c->ntsc++], 32, "%s", tok + 4);
		else if (!strncmp(tok, "clocksource=", 12))
			snprintf(c->clocksource, 32, "%s", tok + 12);
		else if (!strncmp(tok, "tsc_early_khz=", 14))
			snprintf(c->tsc_early_khz, 32, "%s", tok + 14);
	}
}


static void next_tokens(struct sys_cmdline *c, const char *text)
{
	const char *p = text;
	int i;

	while ((p = strstr(p, "tsc="))) {
		char v[32];

		if (p > text && p[-1] != ' ' && p[-1] != '"' && p[-1] != '\n' &&
		    p[-1] != '\t') {
			p += 4;
			continue;
		}
		if (sscanf(p + 4, "%31[^ \t\n\"]", v) == 1) {
			for (i = 0; i < c->nnext; i++)
				if (!strcmp(c->next_tsc[i], v))
					break;
			if (i == c->nnext && c->nnext < 4)
				snprintf(c->next_tsc[c->nnext++], 32, "%s", v);
		}
		p += 4;
	}
}

void read_next_cmdline(const char *root, struct sys_cmdline *c)
{
	static const char *const files[] = { "/etc/kernel/cmdline",
					     "/etc/default/grub" };
	char path[4096], file[4400];
	struct dirent *e;
	size_t len, i;
	char *d;
	DIR *dir;

	c->nnext = 0;
	for (i = 0; i < 2; i++) {
		path_under(root, files[i], path, sizeof(path));
		if ((d = read_all(path, 1 << 20, &len))) {
			next_tokens(c, d);
			free(d);
		}
	}
	path_under(root, "/etc/default/grub.d", path, sizeof(path));
	dir = opendir(path);
	while (dir && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);

		if (n < 5 || strcmp(e->d_name + n - 4, ".cfg"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
		if ((d = read_all(file, 1 << 20, &len))) {
			next_tokens(c, d);
			free(d);
		}
	}
	if (dir)
		closedir(dir);
}

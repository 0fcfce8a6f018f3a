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

/* /etc/default/grub and its drop-ins are shell: only the assignments to
 * GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT reach the command line,
 * and a comment ("never tsc=reliable") or another variable must not count. */
static void next_tokens_shell(struct sys_cmdline *c, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = line + strspn(line, " \t"), *hash;

		if (!strncmp(p, "export", 6) && (p[6] == ' ' || p[6] == '\t'))
			p += 6 + strspn(p + 6, " \t");
		if (strncmp(p, "GRUB_CMDLINE_LINUX=", 19) &&
		    strncmp(p, "GRUB_CMDLINE_LINUX_DEFAULT=", 27))
			continue;
		/* A trailing comment: '#' after a blank, outside quotes. */
		for (hash = p; (hash = strchr(hash, '#')); hash++) {
			const char *q;
			int quotes = 0;

			for (q = p; q < hash; q++)
				quotes += *q == '"' || *q == '\'';
			if ((hash[-1] == ' ' || hash[-1] == '\t') && !(quotes % 2)) {
				*hash = '\0';
				break;
			}
		}
		next_tokens(c, strchr(p, '=') + 1);
	}
}

void read_next_cmdline(const char *root, struct sys_cmdline *c)
{
	char path[4096], file[4400];
	struct dirent *e;
	size_t len;
	char *d;
	DIR *dir;

	c->nnext = 0;
	path_under(root, "/etc/kernel/cmdline", path, sizeof(path));
	if ((d = read_all(path, 1 << 20, &len))) {
		next_tokens(c, d);
		free(d);
	}
	path_under(root, "/etc/default/grub", path, sizeof(path));
	if ((d = read_all(path, 1 << 20, &len))) {
		next_tokens_shell(c, d);
		free(d);
	}
	path_under(root, "/etc/default/grub.d", path, sizeof(path));
	dir = opendir(path);
	while (dir && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);

		if (n < 5 || strcmp(e->d_name + n - 4, ".cfg"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
		if ((d = read_all(file, 1 << 20, &len))) {
			next_tokens_shell(c, d);
			free(d);
		}
	}
	if (dir)
		closedir(dir);
}

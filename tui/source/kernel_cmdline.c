/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "../util/words.h"
#include "kernel_cmdline.h"

/* A boot configuration file is a few KiB; 1 MiB is not one. */
#define CONFIG_READ_MAX (1u << 20)
/* The setting is "on\n" or "off\n"; a longer file is not one. */
#define SETTING_READ_MAX 64

#define TSC_ARG "tsc="
#define CLOCKSOURCE_ARG "clocksource="
#define TSC_EARLY_KHZ_ARG "tsc_early_khz="

/* The word w (n bytes) after its prefix, into a value buffer. */
static void value_of(const char *w, size_t n, const char *prefix, char *out)
{
	size_t p = strlen(prefix);

	snprintf(out, CMDLINE_VALUE_MAX, "%.*s", (int)(n - p), w + p);
}

void kernel_cmdline_parse(const char *text, struct sys_cmdline *c)
{
	const char *w;
	size_t n;

	memset(c, 0, sizeof(*c));
	for (w = text; (w = words_next(w, &n)); w += n) {
		if (words_starts(w, n, TSC_ARG) && c->ntsc < CMDLINE_MAX_TSC)
			value_of(w, n, TSC_ARG, c->tsc[c->ntsc++]);
		else if (words_starts(w, n, CLOCKSOURCE_ARG))
			value_of(w, n, CLOCKSOURCE_ARG, c->clocksource);
		else if (words_starts(w, n, TSC_EARLY_KHZ_ARG))
			value_of(w, n, TSC_EARLY_KHZ_ARG, c->tsc_early_khz);
	}
}

static void next_tokens(struct sys_cmdline *c, const char *text)
{
	const char *p = text;
	int i;

	while ((p = strstr(p, TSC_ARG))) {
		char v[CMDLINE_VALUE_MAX];

		if (p > text && p[-1] != ' ' && p[-1] != '"' && p[-1] != '\n' &&
		    p[-1] != '\t') {
			p += strlen(TSC_ARG);
			continue;
		}
		/* %31: CMDLINE_VALUE_MAX - 1 */
		if (sscanf(p + strlen(TSC_ARG), "%31[^ \t\n\"]", v) == 1) {
			for (i = 0; i < c->nnext; i++)
				if (!strcmp(c->next_tsc[i], v))
					break;
			if (i == c->nnext && c->nnext < CMDLINE_MAX_TSC)
				snprintf(c->next_tsc[c->nnext++],
					 CMDLINE_VALUE_MAX, "%s", v);
		}
		p += strlen(TSC_ARG);
	}
}

/* /etc/default/grub and its drop-ins are shell: only the assignments to
 * GRUB_CMDLINE_LINUX and GRUB_CMDLINE_LINUX_DEFAULT reach the command line,
 * and a comment ("never tsc=reliable") or another variable must not count. */
#define EXPORT "export"
#define GRUB_LINUX "GRUB_CMDLINE_LINUX="
#define GRUB_LINUX_DEFAULT "GRUB_CMDLINE_LINUX_DEFAULT="

static void next_tokens_shell(struct sys_cmdline *c, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p = line + strspn(line, " \t"), *hash;

		if (!strncmp(p, EXPORT, strlen(EXPORT)) &&
		    (p[strlen(EXPORT)] == ' ' || p[strlen(EXPORT)] == '\t'))
			p += strlen(EXPORT) + strspn(p + strlen(EXPORT), " \t");
		if (strncmp(p, GRUB_LINUX, strlen(GRUB_LINUX)) &&
		    strncmp(p, GRUB_LINUX_DEFAULT, strlen(GRUB_LINUX_DEFAULT)))
			continue;
		/* A trailing comment: '#' after a blank, outside quotes. */
		for (hash = p; (hash = strchr(hash, '#')); hash++) {
			const char *q;
			int quotes = 0;

			for (q = p; q < hash; q++)
				quotes += *q == '"' || *q == '\'';
			if ((hash[-1] == ' ' || hash[-1] == '\t') &&
			    !(quotes % 2)) {
				*hash = '\0';
				break;
			}
		}
		next_tokens(c, strchr(p, '=') + 1);
	}
}

void kernel_cmdline_read_next(const char *root, struct sys_cmdline *c)
{
	char path[PATH_UNDER_MAX], file[PATH_UNDER_MAX + 256];
	struct dirent *e;
	size_t len;
	char *d;
	DIR *dir;

	c->nnext = 0;
	path_under(root, "/etc/kernel/cmdline", path, sizeof(path));
	if ((d = fsx_read_max(path, CONFIG_READ_MAX, &len))) {
		next_tokens(c, d);
		free(d);
	}
	path_under(root, "/etc/default/grub", path, sizeof(path));
	if ((d = fsx_read_max(path, CONFIG_READ_MAX, &len))) {
		next_tokens_shell(c, d);
		free(d);
	}
	path_under(root, "/etc/default/grub.d", path, sizeof(path));
	dir = fsx_opendir(path);
	while (dir && (e = readdir(dir))) {
		size_t n = strlen(e->d_name);

		if (n < 5 || strcmp(e->d_name + n - 4, ".cfg"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
		if ((d = fsx_read_max(file, CONFIG_READ_MAX, &len))) {
			next_tokens_shell(c, d);
			free(d);
		}
	}
	if (dir)
		closedir(dir);
}

bool kernel_cmdline_nowatchdog(const char *root)
{
	char path[PATH_UNDER_MAX];
	bool on = false;
	size_t len;
	char *d;

	if (!path_under(root, NOWATCHDOG_SETTING, path, sizeof(path)))
		return false;
	if ((d = fsx_read_max(path, SETTING_READ_MAX, &len))) {
		on = !strncmp(d, "on", strlen("on"));
		free(d);
	}
	return on;
}

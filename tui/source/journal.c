/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <systemd/sd-journal.h>

#include "../util/fsx.h"
#include "journal.h"

struct acc {
	char *text;
	size_t len, cap;
};

static void append(struct acc *a, const char *s, size_t n)
{
	if (a->len + n + 1 > a->cap) {
		size_t cap = (a->cap ? a->cap * 2 : 8192) + n;
		char *t = realloc(a->text, cap);

		if (!t)
			return;
		a->text = t;
		a->cap = cap;
	}
	memcpy(a->text + a->len, s, n);
	a->len += n;
	a->text[a->len] = '\0';
}

/* The kernel's DMI line: "DMI: <vendor> <product>, BIOS <version> <date>". */
#define DMI_LINE "DMI: "
#define DMI_BIOS ", BIOS "

void journal_dmi_bios_version(const char *msg, char *out, size_t cap)
{
	const char *p = strstr(msg, DMI_BIOS);
	size_t n;

	out[0] = '\0';
	if (!p)
		return;
	p += strlen(DMI_BIOS);
	n = strcspn(p, "\n");
	/* The release date comes last, " mm/dd/yyyy"; what precedes it is the
	 * version as DMI has it, "(1.28 )" and all, the same string as
	 * /sys/class/dmi/id/bios_version. */
	if (n >= 11 && p[n - 11] == ' ' && p[n - 8] == '/' && p[n - 5] == '/')
		n -= 11;
	snprintf(out, cap, "%.*s", (int)n, p);
}

int journal_field(sd_journal *j, const char *name, char *out, size_t cap)
{
	const void *d;
	size_t l, k = strlen(name) + 1;

	if (sd_journal_get_data(j, name, &d, &l) < 0 || l < k)
		return -1;
	snprintf(out, cap, "%.*s", (int)(l - k), (const char *)d + k);
	return 0;
}

int journal_open(const char *dir, sd_journal **j, int *dfd)
{
	int r;

	/* Another root's journal: its directory opened by the resolver,
	 * so a link there does not lead to this machine's journal. */
	*dfd = dir ? fsx_open_dir(dir) : -1;
	r = dir ? (*dfd < 0 ? -1 : sd_journal_open_directory_fd(j, *dfd, 0))
		: sd_journal_open(j, SD_JOURNAL_LOCAL_ONLY);
	if (r < 0 && *dfd >= 0) {
		close(*dfd);
		*dfd = -1;
	}
	return r < 0 ? -1 : 0;
}

void journal_close(sd_journal *j, int dfd)
{
	sd_journal_close(j);
	if (dfd >= 0)
		close(dfd);
}

int journal_boots(const char *dir, struct journal_boot **boots, size_t *n,
		  const char **err)
{
	struct journal_boot *b = NULL;
	struct acc *acc = NULL;
	size_t nb = 0, i;
	sd_journal *j;
	int dfd;

	*boots = NULL;
	*n = 0;
	if (journal_open(dir, &j, &dfd) < 0) {
		*err = "cannot open the systemd journal";
		return -1;
	}
	sd_journal_add_match(j, "_TRANSPORT=kernel", 0);
	SD_JOURNAL_FOREACH(j)
	{
		char boot[40], msg[1024], line[1100];
		uint64_t mono = 0, real = 0;
		sd_id128_t bid;

		if (journal_field(j, "_BOOT_ID", boot, sizeof(boot)) < 0 ||
		    journal_field(j, "MESSAGE", msg, sizeof(msg)) < 0)
			continue;
		for (i = 0; i < nb; i++)
			if (!strcmp(b[i].boot_id, boot))
				break;
		if (i == nb) {
			struct journal_boot *nbp =
				realloc(b, (nb + 1) * sizeof(*b));
			struct acc *nac = realloc(acc, (nb + 1) * sizeof(*acc));

			if (!nbp || !nac) {
				free(nbp ? nbp : b);
				free(nac ? nac : acc);
				journal_close(j, dfd);
				*err = "out of memory";
				return -1;
			}
			b = nbp;
			acc = nac;
			memset(&b[nb], 0, sizeof(b[nb]));
			memset(&acc[nb], 0, sizeof(acc[nb]));
			snprintf(b[nb].boot_id, sizeof(b[nb].boot_id), "%s",
				 boot);
			sd_journal_get_realtime_usec(j, &real);
			b[nb].first_us = (long long)real;
			nb++;
		}
		if (!b[i].bios[0] &&
		    strncmp(msg, DMI_LINE, strlen(DMI_LINE)) == 0)
			journal_dmi_bios_version(msg, b[i].bios,
						 sizeof(b[i].bios));
		{
			char src[32];

			if (journal_field(j, "_SOURCE_MONOTONIC_TIMESTAMP", src,
					  sizeof(src)) == 0)
				mono = strtoull(src, NULL, 10);
			else
				sd_journal_get_monotonic_usec(j, &mono, &bid);
		}
		snprintf(line, sizeof(line), "[%5llu.%06llu] %s\n",
			 (unsigned long long)(mono / 1000000),
			 (unsigned long long)(mono % 1000000), msg);
		append(&acc[i], line, strlen(line));
	}
	journal_close(j, dfd);
	for (i = 0; i < nb; i++) {
		b[i].klog = calloc(1, sizeof(*b[i].klog));
		if (b[i].klog && acc[i].text)
			kernlog_parse(acc[i].text, acc[i].len, b[i].klog);
		free(acc[i].text);
	}
	free(acc);
	*boots = b;
	*n = nb;
	return 0;
}

void journal_free(struct journal_boot *boots, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(boots[i].klog);
	free(boots);
}

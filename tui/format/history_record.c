/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_record.h"

static const char *text(const char *s)
{
	return s[0] ? s : "-";
}

void history_record_format(const struct history_record *r, char *line,
			   size_t cap)
{
	snprintf(line, cap,
		 "boot_id=%s\ttime=%lld\tbios_version=%s\tbios_date=%s\t"
		 "bootloader_launch_ns=%lld\tstage_mode=%s\tstage_result=%s\t"
		 "warp_cycles=%lld\twatchdog_ppm=%s\tclocksource=%s\n",
		 text(r->boot_id), r->time, text(r->bios_version),
		 text(r->bios_date), r->bootloader_launch_ns,
		 text(r->stage_mode), text(r->stage_result), r->warp_cycles,
		 text(r->watchdog_ppm), text(r->clocksource));
}

#define TEXT(f)                                                                \
	{                                                                      \
#f, offsetof(struct history_record, f),                        \
			sizeof(((struct history_record *)0)->f), 0             \
	}
#define NUMBER(f)                                                              \
	{                                                                      \
#f, offsetof(struct history_record, f), 0, 1                   \
	}
static const struct field {
	const char *key;
	size_t off, size;
	int number;
} fields[] = {
	TEXT(boot_id),
	NUMBER(time),
	TEXT(bios_version),
	TEXT(bios_date),
	NUMBER(bootloader_launch_ns),
	TEXT(stage_mode),
	TEXT(stage_result),
	NUMBER(warp_cycles),
	TEXT(watchdog_ppm),
	TEXT(clocksource),
};

void history_record_parse(char *line, struct history_record *r)
{
	char *tok, *save = NULL;
	size_t i;

	memset(r, 0, sizeof(*r));
	for (tok = strtok_r(line, "\t", &save); tok;
	     tok = strtok_r(NULL, "\t", &save)) {
		char *v = strchr(tok, '=');

		if (!v)
			continue;
		*v++ = '\0';
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			const struct field *f = &fields[i];

			if (strcmp(tok, f->key))
				continue;
			if (f->number)
				*(long long *)((char *)r + f->off) = atoll(v);
			else
				snprintf((char *)r + f->off, f->size, "%s", v);
			break;
		}
	}
}

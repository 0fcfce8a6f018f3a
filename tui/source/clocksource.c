/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "../util/path.h"
#include "../util/words.h"
#include "system.h"

/* The kernel's clocksource, current and available (sysfs). */

#define CS_DIR "/sys/devices/system/clocksource/clocksource0/"

void clocksource_read(const char *root, struct sys_clocksource *cs)
{
	char line[512];
	const char *w;
	size_t n;

	memset(cs, 0, sizeof(*cs));
	system_read_line(root, CS_DIR "current_clocksource", cs->current,
			 sizeof(cs->current));
	if (!system_read_line(root, CS_DIR "available_clocksource", line,
			      sizeof(line)))
		return;
	for (w = line; (w = words_next(w, &n)) && cs->navailable < CS_MAX;
	     w += n)
		snprintf(cs->available[cs->navailable++],
			 sizeof(cs->available[0]), "%.*s", (int)n, w);
}

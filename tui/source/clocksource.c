/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/fileio.h"
#include "../util/path.h"
#include "system.h"

/* The kernel's clocksource, current and available (sysfs). */

#define CS_DIR "/sys/devices/system/clocksource/clocksource0/"

void clocksource_read(const char *root, struct sys_clocksource *cs)
{
	char line[512], *tok, *save = NULL;

	memset(cs, 0, sizeof(*cs));
	system_read_line(root, CS_DIR "current_clocksource", cs->current,
		  sizeof(cs->current));
	if (!system_read_line(root, CS_DIR "available_clocksource", line,
		       sizeof(line)))
		return;
	for (tok = strtok_r(line, " ", &save); tok && cs->navailable < 8;
	     tok = strtok_r(NULL, " ", &save))
		snprintf(cs->available[cs->navailable++], 32, "%s", tok);
}


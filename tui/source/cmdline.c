/* SPDX-License-Identifier: MIT */
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


/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "app.h"

int app_fail(const char *fmt, ...)
{
	char line[4096], *p;
	va_list ap;

	/* One line, whatever the values in it hold (a newline given on the
	 * command line, a path's): the rest of the filtering is stderr's
	 * own (cli/textout.c). */
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = '?';
	fprintf(stderr, "tsctui: %s\n", line);
	return EXIT_USAGE;
}

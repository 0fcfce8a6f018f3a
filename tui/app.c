/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>

#include "app.h"

int app_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("tsctui: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

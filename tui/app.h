/* SPDX-License-Identifier: MIT */
/*
 * What the two front ends share, the command line (cli/) and the
 * dashboard (ui/): the global options, the exit statuses, the one-line
 * error.  Neither front end includes the other; both include this.
 */
#ifndef TSCTUI_APP_H
#define TSCTUI_APP_H

#include <stdbool.h>

#define TSCTUI_VERSION "0.1.0"

/* Exit statuses (ARCHITECTURE 4.3). */
enum { EXIT_OK = 0, EXIT_UNHEALTHY = 1, EXIT_USAGE = 2 };

struct globals {
	const char *root;	/* "/" unless --root */
	const char *kernel_log; /* --kernel-log FILE or NULL */
	const char *simulate;	/* --simulate SPEC or NULL */
	bool json;
};

/* A one-line error on stderr ("tsctui: ..."); returns EXIT_USAGE. */
int app_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The dashboard (ui/dashboard.c): what `tsctui` without a command runs. */
int dashboard_run(const struct globals *g);

#endif

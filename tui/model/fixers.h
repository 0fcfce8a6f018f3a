/* SPDX-License-Identifier: MIT */
/* What other TSC fixers found on the system (source/fixers.h) mean, in
 * words: one copy, for status (text and JSON) and the dashboard. */
#ifndef TSCTUI_MODEL_FIXERS_H
#define TSCTUI_MODEL_FIXERS_H

#include <stdbool.h>

#include "../source/system.h"

#define FIXERS_MAX 2

struct fixer_words {
	const char *name; /* "Zanasin/tscsync", "limenode/tscsync" */
	const char *kind; /* "uefi-stage", "user-space" */
	char found[128];  /* where, and its units */
	char advice[512]; /* what it means, and the way to tsctui */
};

struct fixers_out {
	int n;
	struct fixer_words f[FIXERS_MAX];
};

/* The fixers s found (s->fixers), in words. */
void fixers_explain(const struct sysinfo *s, struct fixers_out *out);

#endif

/* SPDX-License-Identifier: MIT */
/* grubby (Fedora family): kernel-arg's tool where it exists, and the
 * undoing of its L_GRUBBY entry (act.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act_core.h"

const char *act_grubby_tool(struct act *a)
{
	const char *env = getenv("TSCTUI_GRUBBY");

	if (env && env[0])
		return env;
	if (strcmp(a->root, "/") != 0)
		return NULL; /* the target's tool cannot run from here */
	if (access("/usr/sbin/grubby", X_OK) == 0)
		return "/usr/sbin/grubby";
	if (access("/usr/bin/grubby", X_OK) == 0)
		return "/usr/bin/grubby";
	return NULL;
}

int act_grubby_run(struct act *a, const char *tool, bool on)
{
	return act_grubby_edit(a, tool, ACT_GRUBBY_ARG, on);
}

int act_grubby_edit(struct act *a, const char *tool, const char *what, bool on)
{
	char shown[96], arg[64];
	char *argv[] = { (char *)tool, "--update-kernel=ALL", arg, NULL };

	snprintf(arg, sizeof(arg), "%s=%s", on ? "--args" : "--remove-args",
		 what);
	snprintf(shown, sizeof(shown), "grubby --update-kernel=ALL %s", arg);
	if (act_run(a, argv, shown) != 0)
		return act_fail(a, "%s failed", shown);
	act_done(a, SAY_RAN, shown, SAY_END);
	return 0;
}

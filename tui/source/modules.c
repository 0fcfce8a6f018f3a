/* SPDX-License-Identifier: MIT */
#include <libkmod.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "modules.h"

/* The modules that matter, and the flag each sets. */
#define MODULE(f)                                                              \
	{                                                                      \
#f, offsetof(struct sys_modules, f)                            \
	}
static const struct {
	const char *name;
	size_t flag;
} known[] = { MODULE(msr), MODULE(rtc_cmos), MODULE(kvm_amd),
	      MODULE(kvm_intel) };
#define NKNOWN (sizeof(known) / sizeof(known[0]))

static void mark(struct sys_modules *m, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < NKNOWN; i++)
		if (n == strlen(known[i].name) &&
		    !memcmp(name, known[i].name, n))
			*(bool *)((char *)m + known[i].flag) = true;
}

void modules_parse_proc(const char *text, struct sys_modules *m)
{
	const char *line = text;

	while (line && *line) {
		mark(m, line, strcspn(line, " \n"));
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

/* Built into the kernel: /sys/module/<name> without a /proc/modules line. */
static void builtins(const char *root, struct sys_modules *m)
{
	char sys[64], path[PATH_UNDER_MAX];
	size_t i;

	for (i = 0; i < NKNOWN; i++) {
		snprintf(sys, sizeof(sys), "/sys/module/%s", known[i].name);
		if (path_under(root, sys, path, sizeof(path)) &&
		    fsx_is_dir(path))
			mark(m, known[i].name, strlen(known[i].name));
	}
}

void modules_read(const char *root, struct sys_modules *m)
{
	char path[PATH_UNDER_MAX];
	size_t len;
	char *d;

	memset(m, 0, sizeof(*m));
	path_under(root, "/proc/modules", path, sizeof(path));
	if (!fsx_exists(path)) {
		builtins(root, m);
		return; /* supported stays false */
	}
	m->supported = true;
	if (strcmp(root, "/") == 0) {
		struct kmod_ctx *ctx = kmod_new(NULL, NULL);
		struct kmod_list *list = NULL, *it;

		if (ctx && kmod_module_new_from_loaded(ctx, &list) == 0) {
			kmod_list_foreach(it, list)
			{
				struct kmod_module *mod =
					kmod_module_get_module(it);
				const char *name = kmod_module_get_name(mod);

				mark(m, name, strlen(name));
				kmod_module_unref(mod);
			}
			kmod_module_unref_list(list);
		}
		kmod_unref(ctx);
	} else if ((d = fsx_read_max(path, 1 << 20, &len))) {
		modules_parse_proc(d, m);
		free(d);
	}
	builtins(root, m);
}

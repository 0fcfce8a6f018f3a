/* SPDX-License-Identifier: MIT */
#include <libkmod.h>
#include <stddef.h>

#include "module_load.h"

int module_load(const char *name, const char **err)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);
	struct kmod_module *mod = NULL;
	int rc = -1;

	if (!ctx) {
		*err = "libkmod could not start";
		return -1;
	}
	if (kmod_module_new_from_name(ctx, name, &mod) == 0 &&
	    kmod_module_probe_insert_module(mod, 0, NULL, NULL, NULL, NULL) ==
		    0)
		rc = 0;
	else
		*err = "modprobe failed";
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return rc;
}

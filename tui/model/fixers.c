/* SPDX-License-Identifier: MIT */
/* Other TSC fixers, explained (fixers.h). */
#include <stdio.h>
#include <string.h>

#include "fixers.h"

static void units(const struct sys_fixers *in, char *out, size_t cap)
{
	size_t at = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < in->nunits && at < cap; i++)
		at += (size_t)snprintf(out + at, cap - at, "%s%s (%s)",
				       i ? ", " : "units ", in->units[i],
				       in->unit_enabled[i] ? "enabled"
							   : "not enabled");
}

void fixers_explain(const struct sysinfo *s, struct fixers_out *out)
{
	const struct sys_fixers *in = &s->fixers;
	struct fixer_words *w;
	bool reliable_now = false;
	int i;

	for (i = 0; i < s->cmdline.ntsc; i++)
		reliable_now =
			reliable_now || !strcmp(s->cmdline.tsc[i], "reliable");
	memset(out, 0, sizeof(*out));
	if (in->zanasin) {
		w = &out->f[out->n++];
		w->name = "Zanasin/tscsync";
		w->kind = "uefi-stage";
		snprintf(w->found, sizeof(w->found), "%s", in->zanasin_at);
		snprintf(w->advice, sizeof(w->advice),
			 "its stage runs before Linux, as tsctui's does; two "
			 "would fight, so `tsctui install` refuses and `tsctui "
			 "install --migrate` takes over its job (its mode "
			 "carried over; `tsctui uninstall` puts it back)");
	}
	if (in->limenode) {
		w = &out->f[out->n++];
		w->name = "limenode/tscsync";
		w->kind = "user-space";
		units(in, w->found, sizeof(w->found));
		if (!w->found[0])
			snprintf(w->found, sizeof(w->found),
				 "/usr/local/sbin/tscsync, no units");
		snprintf(w->advice, sizeof(w->advice),
			 "it writes the TSC MSRs from user space at boot and "
			 "after each resume, and needs tsc=reliable%s, which "
			 "turns off the kernel's warp test and watchdog: a "
			 "warp it misses, or a drift after it, stays hidden. "
			 "tsctui's stage syncs before Linux with both left on: "
			 "`systemctl disable` its units, `tsctui kernel-arg "
			 "reliable off`, then `tsctui install`",
			 reliable_now ? " (set now)" : " (not set now)");
	}
}

/* SPDX-License-Identifier: MIT */
/* tsctui mode off|measure|sync: the stage's mode where the installed path
 * keeps it, sync only where the stage itself would allow it. */
#include <stdio.h>
#include <string.h>

#include "../../common/cpuid.h"
#include "../../common/tsc.h"
#include "../source/cpu.h"
#include "actions.h"
#include "stagecfg.h"

/*
 * The stage's sync gate (common/cpuid.c), applied to the managed system's
 * /proc/cpuinfo: the one rule, so `mode sync` refuses exactly what the
 * stage would; when the list is the only objection, say that
 * --allow-any-cpu lifts it.
 */
bool mode_sync_allowed(const char *root, bool allow_any, char *why, size_t cap)
{
	struct tsc_cpu_info ci = { .vendor = TSC_VENDOR_OTHER };
	struct sys_cpu cpu = { 0 };
	const char *reason;

	cpu_read(root, &cpu);
	ci.vendor = cpu.vendor_id;
	ci.family = cpu.family;
	ci.invariant_tsc = cpu.invariant_tsc;
	ci.tsc_adjust = cpu.tsc_adjust;
	ci.hypervisor = cpu.hypervisor;
	if (tsc_sync_allowed(&ci, allow_any, &reason))
		return true;
	if (!allow_any && tsc_sync_allowed(&ci, true, &reason))
		snprintf(why, cap,
			 "sync is tested on AMD families 17h/19h/1Ah "
			 "and Hygon 18h, not on %s family %xh; add "
			 "--allow-any-cpu to try it anyway",
			 cpu_vendor_word(&cpu, "an unknown CPU"), cpu.family);
	else
		snprintf(why, cap, "sync refused: %s", reason);
	return false;
}

int mode_set(struct act *a, const char *mode, bool allow_any)
{
	enum tsc_mode m;

	if (!tsc_mode_from(mode, strlen(mode), &m))
		return act_fail(a, "unknown mode '%s' (off, measure or sync)",
				mode);
	return mode_set_to(a, m, allow_any);
}

int mode_set_to(struct act *a, enum tsc_mode m, bool allow_any)
{
	struct tsctui_conf c;
	char why[256];
	int rc;

	if (act_begin(a, "mode", 0) != 0)
		return -1;
	if (act_installed(a, &c) != 0)
		goto abort;
	if (m == TSC_MODE_SYNC &&
	    !mode_sync_allowed(a->root, allow_any, why, sizeof(why))) {
		act_fail(a, "%s", why);
		goto abort;
	}
	rc = stagecfg_write(a, &c, m, allow_any ? "allow=any-cpu" : "", false);
	if (rc != 0)
		goto abort;
	rc = act_commit(a);
	if (rc == 0) {
		act_done(a, SAY_MODE_SET, tsc_mode_name(m), SAY_END);
		if (m == TSC_MODE_SYNC)
			act_say(a, SAY_GUARD_WATCHES, SAY_END);
	}
	return rc;
abort:
	act_abort(a);
	return -1;
}

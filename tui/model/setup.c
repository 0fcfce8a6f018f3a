/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "setup.h"

static void step(struct setup *out, enum setup_step st, int number,
		 enum setup_enter enter)
{
	out->step = st;
	out->number = number;
	out->enter = enter;
}

/* Synced: the check when it has started; before it, tsc=nowatchdog when
 * the watchdog (not a warp) dropped the TSC; else the check, offered. */
static void synced(const struct diagnosis *d, bool nowatchdog, bool checking,
		   struct setup *out)
{
	if (checking)
		step(out, SETUP_CHECKING, 5, SETUP_ENTER_NOTHING);
	else if (d->code == DIAG_WATCHDOG_SKEW && !nowatchdog)
		step(out, SETUP_NOWATCHDOG, 5, SETUP_ENTER_NOWATCHDOG);
	else
		step(out, SETUP_VERIFY, 5, SETUP_ENTER_CHECK);
}

const char *setup_last_boot_advice(enum loader l)
{
	if (l == LOADER_GRUB)
		return "Dual boot: GRUB_SAVEDEFAULT=true in /etc/default/grub "
		       "(then update-grub) lets GRUB's block see that the last "
		       "boot was another system's, and the stage syncs the "
		       "next Linux boot anyway. It changes: every boot saves "
		       "its entry in the grubenv (saved_entry), and with "
		       "GRUB_DEFAULT=saved the menu's default follows the last "
		       "choice.";
	if (l == LOADER_SDBOOT)
		return "Dual boot: `default @saved` in loader/loader.conf on "
		       "the ESP lets the stage see that the last boot was "
		       "another system's, and it syncs the next Linux boot "
		       "anyway. It changes: systemd-boot's menu then starts "
		       "the "
		       "entry booted last by default, not a fixed one.";
	return NULL;
}

/* A probation boot (sync set, this boot's report measured only, not a
 * resume) on a loader that keeps no record of the entry booted last. */
static const char *last_boot(const struct sys_stage *st)
{
	if (!st->has_state || st->state.last_boot != LAST_BOOT_UNSET ||
	    !st->has_report || !st->mode_known || st->mode != TSC_MODE_SYNC ||
	    st->report->mode != TSC_MODE_MEASURE || st->report->nvram_writes)
		return NULL;
	return setup_last_boot_advice(st->loader);
}

void setup_decide(const struct sysinfo *s, const struct diagnosis *d,
		  bool nowatchdog, bool checking, struct setup *out)
{
	const struct tsc_report *r =
		s->stage.has_report ? s->stage.report : NULL;
	bool measure = s->stage.mode_known && s->stage.mode == TSC_MODE_MEASURE;

	out->behind = 0;
	out->last_boot = last_boot(&s->stage);
	if (s->cpu.hypervisor)
		step(out, SETUP_GUEST, 2, SETUP_ENTER_NOTHING);
	else if (d->directsync && !strcmp(s->cs.current, "tsc"))
		step(out, SETUP_DIRECTSYNC, 2, SETUP_ENTER_NOTHING);
	else if (d->after_power_transition)
		step(out, checking ? SETUP_CHECKING : SETUP_RUNTIME_SKEW, 2,
		     checking ? SETUP_ENTER_NOTHING : SETUP_ENTER_CHECK);
	else if (!s->stage.installed)
		step(out, SETUP_INSTALL, 2, SETUP_ENTER_INSTALL);
	else if (measure && !r)
		step(out, SETUP_MEASURE_BOOT, 3, SETUP_ENTER_NOTHING);
	else if (measure && diagnosis_bsp_behind(r, &out->behind))
		step(out, SETUP_SYNC, 4, SETUP_ENTER_SYNC);
	else if (s->stage.mode_known && s->stage.mode == TSC_MODE_SYNC)
		synced(d, nowatchdog, checking, out);
	else
		step(out, SETUP_NOTHING_TO_SYNC, 3, SETUP_ENTER_NOTHING);
}

/* SPDX-License-Identifier: MIT */
/*
 * The guided setup's step, a pure function of the system snapshot and the
 * diagnosis: a virtual machine -> check the host (the stage refuses to sync
 * in a guest, whose TSC the host makes); not installed -> install; measuring
 * without a report -> power off and boot; the boot CPU behind -> sync; synced
 * -> check that the kernel kept the TSC.  The setup keeps no state of its own,
 * so it resumes by itself after a reboot.
 */
#ifndef TSCTUI_MODEL_SETUP_H
#define TSCTUI_MODEL_SETUP_H

#include <stdbool.h>

#include "../source/system.h"
#include "diagnosis.h"

enum setup_step {
	SETUP_GUEST,	       /* 2: a virtual machine: check the host */
	SETUP_INSTALL,	       /* 2: install the stage in measure mode */
	SETUP_MEASURE_BOOT,    /* 3: measuring, no report: power off, boot */
	SETUP_SYNC,	       /* 4: the report has the boot CPU behind */
	SETUP_NOTHING_TO_SYNC, /* 3: the report has no lagging boot CPU */
	SETUP_NOWATCHDOG,      /* 5: synced; the watchdog dropped the TSC */
	SETUP_VERIFY,	       /* 5: synced; offer the five-minute check */
	SETUP_CHECKING,	       /* 5: synced; the five-minute check started */
	SETUP_DIRECTSYNC,      /* 2: the kernel syncs the TSCs itself and
				  keeps the TSC: no sync pushed */
	SETUP_RUNTIME_SKEW,    /* 2: the watchdog dropped the TSC after a
				  suspend: measure the rate, not the stage */
};

/* What Enter does on a step. */
enum setup_enter {
	SETUP_ENTER_NOTHING,
	SETUP_ENTER_INSTALL,	/* ask to install, for the loader found */
	SETUP_ENTER_SYNC,	/* ask to switch the stage to sync */
	SETUP_ENTER_NOWATCHDOG, /* ask to turn tsc=nowatchdog on */
	SETUP_ENTER_CHECK,	/* start the five-minute check */
};

struct setup {
	enum setup_step step;
	int number;	  /* the step's number, as the screen says it */
	long long behind; /* SETUP_SYNC: the boot CPU's smallest lag */
	enum setup_enter enter;
	/* This boot was a probation boot after an unconfirmed sync, and the
	 * loader has no record of the entry booted last: the setting that
	 * gives it one, and what it changes (a sentence); NULL otherwise. */
	const char *last_boot;
};

/* The sentence setup_decide hands out for loader l; NULL where no setting
 * exists (the firmware entry). */
const char *setup_last_boot_advice(enum loader l);

/* nowatchdog: the tsc=nowatchdog setting; checking: the five-minute check
 * has been started (model/setup_check.h). */
void setup_decide(const struct sysinfo *s, const struct diagnosis *d,
		  bool nowatchdog, bool checking, struct setup *out);

#endif

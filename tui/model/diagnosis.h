/* SPDX-License-Identifier: MIT */
/*
 * What is wrong, and the next step, as a pure function of what the sources
 * read (ARCHITECTURE 4.5).  Codes: healthy, boot-warp, watchdog-skew,
 * no-invariant-tsc, virtual-machine, unknown.  Recommendations:
 * install-measure, enable-sync, add-nowatchdog, measure-rate,
 * remeasure-after-bios-update, check-host, none.  tsc=reliable is never
 * recommended; add-nowatchdog only as watchdog_advice.h decides.
 */
#ifndef TSCTUI_MODEL_DIAGNOSIS_H
#define TSCTUI_MODEL_DIAGNOSIS_H

#include "../source/system.h"
#include "virt.h"
#include "watchdog_advice.h"

#define DIAG_MAX_RECS 4

/* What is wrong; its word (diagnosis_code_name) is what status prints. */
enum diag_code {
	DIAG_HEALTHY,
	DIAG_BOOT_WARP,
	DIAG_WATCHDOG_SKEW,
	DIAG_NO_INVARIANT_TSC,
	DIAG_VIRTUAL_MACHINE,
	DIAG_UNKNOWN,
	/* the 2026 watchdog's inter-CPU test saw one CPU's TSC behind
	 * another's at run time (after a sync boot: the stage's residual, or
	 * a drift since, was visible to the running kernel) */
	DIAG_INTER_CPU_SKEW,
};

/* "healthy", "boot-warp", ...: one table, by the enum.  Nothing reads a
 * code back from its word, so the reverse lookup is not written. */
const char *diagnosis_code_name(enum diag_code c);

/* A way out the summary names, which each front end words its own way
 * (the command line names an option, the dashboard says what to do
 * there): a code, its command-line words in diagnosis.c's table, the
 * dashboard's in ui/hint.c's.  The summary holds the command line's
 * words, so status prints it as it is; summary[advice_at, advice_end)
 * are those words. */
enum diag_advice {
	DIAG_ADVICE_NONE,
	DIAG_ADVICE_KERNEL_LOG, /* the kernel log would say why: root, or
				   a saved copy of it */
	DIAG_ADVICES
};
/* The command line's words for a ("(run as root, or give ...)"). */
const char *diagnosis_advice_words(enum diag_advice a);

struct diagnosis {
	enum diag_code code;
	char summary[768];
	enum diag_advice advice; /* DIAG_ADVICE_NONE: none in the summary */
	size_t advice_at, advice_end;
	int nrecs;
	const char *recs[DIAG_MAX_RECS];
	/* The kernel's verdict for this boot, in words, e.g. "TSC dropped at
	 * boot: warp of 6,601,281,288 cycles (3.15 s) CPU#0 -> CPU#2". */
	char kernel_verdict[192];
	/* The verdict only names the clocksource (no TSC event in the log):
	 * a screen that shows the clocksource already says it otherwise. */
	bool verdict_cs_only;
	bool unhealthy; /* status and check exit 1 */
	/* The BIOS version differs from the last sync boot's. */
	bool bios_changed;
	struct virt_evidence vm;  /* whether a guest, and why */
	bool has_watchdog_advice; /* the watchdog dropped the TSC */
	/* that drop came soon after a suspend: the runtime fault the stage
	 * cannot fix (the Framework laptops) */
	bool after_power_transition;
	/* the kernel syncs the TSCs itself (tsc=directsync) */
	bool directsync;
	struct watchdog_advice watchdog;
};

/* The stage measured the BSP behind every AP, beyond each estimate's
 * uncertainty: the E595/Legion pattern, which sync mode fixes.  *by: the
 * smallest such lead, in cycles. */
bool diagnosis_bsp_behind(const struct tsc_report *r, long long *by);

/* rate: the TSC's rate against the RTC as measured live (assess.h), or
 * an unmeasured one. */
void diagnosis_make(const struct sysinfo *s, const char *last_sync_bios,
		    const struct tsc_rate_check *rate, struct diagnosis *d);

#endif

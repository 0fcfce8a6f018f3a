/* SPDX-License-Identifier: MIT */
/*
 * The kernel's TSC and clocksource messages as typed events, from dmesg
 * text ("[    3.149285] ..."), journalctl -k text (short or
 * short-monotonic), or /dev/kmsg records.  The wordings are those of
 * arch/x86/kernel/tsc.c, tsc_sync.c, kernel/time/clocksource.c and the
 * hypervisor and AMD lines of arch/x86/kernel/cpu/ from 3.x to 6.x
 * (docs/DESIGN.md 9.2 lists them with their versions).  The parser is
 * pure, text in and events out; kernlog_read_kmsg reads the live log's
 * text.
 */
#ifndef TSCTUI_SOURCE_KERNLOG_H
#define TSCTUI_SOURCE_KERNLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum klog_kind {
	KLOG_WARP,	       /* Measured N cycles TSC warp [CPU#a -> CPU#b] */
	KLOG_WARP_RANDOM,      /* TSC warped randomly between CPUs */
	KLOG_UNSTABLE,	       /* Marking TSC unstable due to <reason> */
	KLOG_WATCHDOG_SKEW,    /* the watchdog's skew, with its intervals */
	KLOG_FREQUENCY_SKEW,   /* Marking clocksource tsc unstable due to
				  frequency skew */
	KLOG_WATCHDOG_TIMEOUT, /* Watchdog remote CPU n read timed out */
	KLOG_READBACK_DELAY,   /* excessive read-back delay */
	KLOG_SWITCH,	       /* Switched to clocksource X */
	KLOG_FOUND_UNSTABLE,   /* TSC found unstable after boot */
	KLOG_FW_BUG_ADJUST,    /* [FW BUG] TSC ADJUST ... */
	KLOG_ADJUST_COMPENSATE, /* TSC ADJUST compensate: CPUn observed N */
	KLOG_ADJUST_DIFFERS,	/* [Firmware Bug]: TSC ADJUST differs ... */
	KLOG_FW_BUG_P0,		/* [Firmware Bug]: TSC doesn't count with P0
				   frequency! (AMD; informational) */
	KLOG_LONG_READOUT,	/* Long readout interval, skipping watchdog
				   check (informational) */
	KLOG_HYPERVISOR,	/* Hypervisor detected: X */
	KLOG_PARAVIRT,		/* Booting paravirtualized kernel on X */
	KLOG_CPUS_APART,	/* CPUs L ahead of / behind CPU n for
				   clocksource tsc (the watchdog's
				   cross-CPU check, 5.14 on) */
	KLOG_INTER_CPU_SKEW,	/* the 2026 watchdog's inter-CPU test:
				   "Marking clocksource tsc unstable due to
				   inter CPU skew", then "CPUa A < CPUb B
				   (cycles)" */
	KLOG_DIRECTSYNC,	/* tsc=directsync kernels: "TSC direct sync:
				   CPUn observed N warp. Overhead: O", one
				   event per CPU, its corrections summed */
	KLOG_KINDS
};

/* A power transition the watchdog may have tripped on (s2idle and AC
 * changes on the Framework laptops: docs/DESIGN.md 9.2). */
enum klog_transition_kind {
	KLOG_SUSPEND_ENTRY, /* PM: suspend entry (s2idle|deep) */
	KLOG_SUSPEND_EXIT,  /* PM: suspend exit */
	KLOG_HIBERNATE_ENTRY,
	KLOG_HIBERNATE_EXIT,
};

struct klog_transition {
	enum klog_transition_kind kind;
	double time;   /* seconds since boot; < 0 unknown */
	char what[16]; /* s2idle, deep, ... */
};

/* The transitions kept: the last ones before the watchdog dropped the
 * TSC (after that they cannot have caused it). */
#define KLOG_MAX_TRANSITIONS 8

/* Which clocksource watchdog wrote a log.  The 2026 rewrite ("clocksource:
 * Rewrite watchdog code completely") has its own lines and its own
 * thresholds, and there tsc=nowatchdog also turns off its inter-CPU test
 * and tsc=watchdog means "force the watchdog on the TSC"
 * (docs/DESIGN.md 9.2). */
enum klog_watchdog {
	KLOG_WATCHDOG_UNKNOWN,
	KLOG_WATCHDOG_CLASSIC, /* 3.x to 7.0 */
	KLOG_WATCHDOG_2026,
};

/* What decided it: a wording only one of them prints, else the kernel's
 * version (the log's "Linux version", else the running kernel's). */
enum klog_watchdog_by {
	KLOG_WATCHDOG_BY_NONE,
	KLOG_WATCHDOG_BY_WORDING,
	KLOG_WATCHDOG_BY_VERSION,
};

/* Why the kernel marked the TSC unstable ("Marking TSC unstable due to
 * <reason>"), by the reasons the kernel has printed since 3.x. */
enum klog_cause {
	KLOG_CAUSE_OTHER,
	KLOG_CAUSE_SYNC_CHECK,	   /* check_tsc_sync_source failed */
	KLOG_CAUSE_WATCHDOG,	   /* clocksource watchdog */
	KLOG_CAUSE_UNSYNCHRONIZED, /* TSCs unsynchronized */
	KLOG_CAUSE_HYPERV,	   /* running on Hyper-V */
	KLOG_CAUSE_CPUFREQ,	   /* cpufreq changes (no constant TSC) */
	KLOG_CAUSE_IDLE,	   /* TSC halts in idle (no nonstop TSC) */
	KLOG_CAUSE_PARAMETER,	   /* boot parameter (tsc=unstable) */
	KLOG_CAUSES
};

struct klog_event {
	enum klog_kind kind;
	double time;	/* seconds since boot; < 0 unknown */
	int cpus[2];	/* warp: [from, to]; others: cpus[0] or -1 */
	int64_t cycles; /* warp, compensate; inter-CPU: how far back */
	/* inter-CPU skew: the counters of cpus[0] and cpus[1], the first
	 * read later and lower */
	uint64_t counter[2];
	/* directsync: its corrections on this CPU, their overheads summed */
	int corrections;
	int64_t overhead;
	int64_t wd_ns; /* watchdog interval */
	int64_t cs_ns; /* clocksource interval */
	bool has_intervals;
	/* The old watchdog ("Clocksource tsc unstable (delta = N ns)"): the
	 * difference alone, over an interval the line does not give. */
	int64_t delta_ns;
	bool has_delta;
	/* Read-back delay: the delay, the limit (6.x), the attempt; dropped
	 * when the kernel marked the clocksource unstable for it, skipped
	 * when it only skipped that round's skew test. */
	int64_t delay_ns, limit_ns;
	int attempt;
	bool dropped, skipped;
	enum klog_cause cause; /* unstable */
	char watchdog[32];     /* watchdog skew, read-back: the reference */
	char clocksource[32];  /* watchdog skew: tsc or tsc-early */
	char text[96];	       /* reason, clocksource name, or the line */
};

#define KLOG_MAX_EVENTS 128

struct klog {
	size_t n;
	struct klog_event ev[KLOG_MAX_EVENTS];
	double detected_mhz;	 /* Detected X MHz processor */
	double detected_tsc_mhz; /* Detected X MHz TSC */
	double refined_mhz;	 /* Refined TSC clocksource calibration */
	char watchdog[32];	 /* the watchdog clocksource named, if any */
	char dmi[128];		 /* the "DMI: " line's text, if any */
	/* A paravirtual clocksource the kernel registered or switched to
	 * (kvm-clock, hyperv_clocksource_*, xen), if any. */
	char paravirt_cs[32];
	/* Watchdog wordings seen: only the classic watchdog's, only the
	 * 2026 one's */
	bool wd_classic_words, wd_2026_words;
	/* "Linux version X.Y...": the kernel's release, 0.0 if not logged */
	int version_major, version_minor;
	/* the transitions before the watchdog's drop, oldest first, and
	 * how many there were in all before it */
	struct klog_transition tr[KLOG_MAX_TRANSITIONS];
	int ntr, tr_total;
	bool wd_dropped;      /* the watchdog dropped the TSC: stop keeping */
	double wd_dropped_at; /* ... at this time, < 0 unknown */
};

const char *kernlog_kind_name(enum klog_kind k);
const char *kernlog_cause_name(enum klog_cause c);
/* Whether a clocksource name is a hypervisor's paravirtual clock. */
bool kernlog_paravirt_clock(const char *name);
/* The whole text, line by line: kernlog_begin, then kernlog_line for each
 * line.  Linear in len: a line is looked at once and no search goes past
 * its end, nor needs a NUL after the text. */
void kernlog_parse(const char *text, size_t len, struct klog *out);

/* The same, a line at a time, for a log that comes in pieces. */
struct klog_parser {
	struct klog *k;
	int sync_from, sync_to;	  /* the last TSC synchronization [a -> b] */
	struct klog_event *skew;  /* a watchdog event still taking lines */
	struct klog_event *delay; /* a read-back delay its next line ends */
	struct klog_event *inter; /* an inter-CPU skew awaiting its CPUs */
};
void kernlog_begin(struct klog_parser *p, struct klog *out);
/* One line, without its newline; reads text[0 .. len) and nothing else. */
void kernlog_line(struct klog_parser *p, const char *text, size_t len);
/* The kernel's TSC rate: refined, else detected TSC, else processor. */
double kernlog_tsc_mhz(const struct klog *k);
/* A watchdog event's skew in ppm, (cs - wd) / wd; 0 without intervals
 * (the old and the 4.x wordings give none: the ppm is unknown then). */
double kernlog_ppm(const struct klog_event *e);
/* Which watchdog wrote the log: its wording where that decides, else the
 * kernel's version (the log's, else running_release, e.g. uname -r's;
 * NULL or "" when there is none to use); *by says which. */
enum klog_watchdog kernlog_watchdog(const struct klog *k,
				    const char *running_release,
				    enum klog_watchdog_by *by);
const char *kernlog_watchdog_name(enum klog_watchdog w);
const char *kernlog_watchdog_by_name(enum klog_watchdog_by by);
/* The skew at which that watchdog drops the TSC, in ppm over its 0.5 s
 * interval: the 2026 one fails at 1/2048 of the interval once both clocks
 * are calibrated (the TSC after "Refined TSC clocksource calibration"),
 * 1/256 before; the classic one at the sum of both clocks' uncertainty
 * margins, each at least 2 * WATCHDOG_MAX_SKEW (62.5 us): 250 us over
 * 0.5 s.  0 when unknown. */
double kernlog_watchdog_limit_ppm(enum klog_watchdog w, bool tsc_calibrated);

/* The last power transition in the log before the watchdog dropped the
 * TSC (or the last of all, without a drop), or NULL: kept in log order,
 * so a journal's lines without boot times are paired too. */
const struct klog_transition *kernlog_last_transition(const struct klog *k);
const char *kernlog_transition_name(enum klog_transition_kind kind);

/* The first event of a kind (the earliest in the log), or NULL. */
const struct klog_event *kernlog_first(const struct klog *k,
				       enum klog_kind kind);
/* The live log: every record /dev/kmsg still holds, without blocking,
 * one per line; malloc'd, NULL with errno when it cannot be opened. */
char *kernlog_read_kmsg(size_t *len);

#endif

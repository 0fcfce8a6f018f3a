/* SPDX-License-Identifier: MIT */
/*
 * The stage's report: what was measured and done before this boot.  One
 * writer and one parser, used by the UEFI stage, the host simulator and
 * `tsctui`.  The text form (format 1) is ASCII and line oriented:
 *
 *   tsctui-report 1
 *   stage version=0.1.0 build=release mode=sync config=esp
 *   result in-sync
 *   reason <free text to the end of the line, or ->
 *   cpu vendor=amd family=23 model=24 invariant_tsc=1 tsc_adjust=0 ...
 *   bsp index=0 apic=0 shift=6815086010 writes=3 cpus=8
 *   phase survey_us=... bsp_us=... ap_pass_us=... verify_us=... total_us=...
 *   next Boot0003            (or -)
 *   ignored <tokens>         (or -)
 *   ap 1 apic=1 survey=... final=3 rtt=126 warps=0/0 maxwarp=0 verdict=ok ...
 *        (... efi=EFI_NOT_READY when MP services refused or lost it)
 *   end
 *
 * The parser is strict about structure (the first and last lines, the
 * records a report must have, numbers that are numbers) and tolerant of
 * unknown records and keys, so a newer stage stays readable.
 */
#ifndef TSCTUI_COMMON_REPORT_H
#define TSCTUI_COMMON_REPORT_H

#include "cpuid.h"
#include "tsc.h"

#define TSC_REPORT_FORMAT 1
#define TSC_REPORT_MAGIC "tsctui-report"
/* Large enough for TSC_MAX_CPUS lines; the stage stores what it wrote. */
#define TSC_REPORT_MAX_TEXT 40960

enum tsc_build { TSC_BUILD_RELEASE, TSC_BUILD_SIM };
enum tsc_config { TSC_CONFIG_LOAD_OPTIONS, TSC_CONFIG_ESP, TSC_CONFIG_HOST };

enum tsc_phase {
	TSC_PHASE_SURVEY,
	TSC_PHASE_BSP,
	TSC_PHASE_AP_PASS,
	TSC_PHASE_VERIFY,
	TSC_PHASES
};

/* Why an AP was left as it is; shown with its verdict. */
enum tsc_ap_note {
	TSC_NOTE_NONE,
	TSC_NOTE_NO_ANSWER,	/* did not answer: unmeasured */
	TSC_NOTE_BEYOND_CAP,	/* further than a write may move */
	TSC_NOTE_NOT_CONVERGED, /* iterations ran out */
	TSC_NOTE_WARP_CUT,	/* the warp test stopped early */
	TSC_NOTE_START_FAILED,	/* MP services would not start it */
	TSC_NOTE_WRONG_CPU,	/* its code ran on another processor */
	TSC_NOTE_STOPPED,	/* overran; the firmware stopped it */
	TSC_NOTE_DISABLED,	/* disabled by the firmware: skipped */
	TSC_NOTE_UNPROVEN,	/* bad without a warp, nothing moved it: not
				 * written in sync mode (tsc_plan_unproven) */
};

struct tsc_report_cpu {
	uint32_t index;
	uint32_t apic_id;
	int64_t survey_offset;
	int64_t final_offset;
	uint64_t rtt;
	uint32_t warps_bsp;
	uint32_t warps_ap;
	uint64_t max_warp;
	enum tsc_verdict verdict;
	enum tsc_ap_note note;
	uint32_t exchanges;   /* ping-pong round trips, all phases */
	uint32_t warp_rounds; /* handoffs in the kernel-style warp test */
	bool kernel_test;     /* that test saw handoffs both ways: */
	int64_t margin;	      /* its smallest gap, min(to_ap, to_bsp) */
	uint64_t spread;      /* the range of its windows' offsets */
	/* Its window offset furthest from 0 (the verdict's input; not in
	 * format 1: a reader restates the rule from offset and spread). */
	uint64_t worst;
	uint32_t writes;
	uint64_t fw_status; /* the firmware's error for it (EFI_STATUS) */
	bool has_true_offset;
	int64_t true_offset; /* sim builds: exact residual vs the BSP */
};

struct tsc_report {
	uint32_t format;
	char stage_version[24];
	enum tsc_build build;
	enum tsc_mode mode;
	enum tsc_config config;
	enum tsc_result result;
	char reason[200]; /* empty: none */
	struct tsc_cpu_info cpu;
	uint64_t tick;
	uint64_t tsc_hz;
	uint32_t bsp_index;
	uint32_t bsp_apic_id;
	int64_t bsp_shift;
	uint32_t msr_writes;
	/* Writes of non-volatile EFI variables: the resume guard's arm and
	 * clear (DESIGN.md 7.1); 0 on every other boot. */
	uint32_t nvram_writes;
	uint64_t phase_us[TSC_PHASES];
	uint64_t total_us;
	char next[16];	   /* empty: none */
	char ignored[256]; /* space separated; empty: none */
	uint32_t ncpus;	   /* processors, the BSP included */
	uint32_t nap;	   /* entries in ap[] */
	uint32_t omitted;  /* APs left out of this copy (record "omitted") */
	struct tsc_report_cpu ap[TSC_MAX_CPUS];
};

const char *tsc_phase_name(enum tsc_phase p);
const char *tsc_build_name(enum tsc_build b);
const char *tsc_config_name(enum tsc_config c);
const char *tsc_note_name(enum tsc_ap_note n);
bool tsc_build_from(const char *s, size_t len, enum tsc_build *out);
bool tsc_config_from(const char *s, size_t len, enum tsc_config *out);
bool tsc_note_from(const char *s, size_t len, enum tsc_ap_note *out);
/* "EFI_UNSUPPORTED" and the like for an EFI_STATUS error; NULL for others. */
const char *tsc_efi_status_name(uint64_t st);

/* A report with every field at its "nothing happened" value. */
void tsc_report_init(struct tsc_report *r, const char *version,
		     enum tsc_build build);
/* Sets result and reason (reason may be NULL). */
void tsc_report_set_result(struct tsc_report *r, enum tsc_result res,
			   const char *reason);
/* Appends one token to the ignored list (silently drops what won't fit). */
void tsc_report_ignore(struct tsc_report *r, const char *tok, size_t len);

/* Writes the text; returns its length, or 0 if cap was too small.  The text
 * is NUL-terminated when it fits. */
size_t tsc_report_write(const struct tsc_report *r, char *buf, size_t cap);
/* The same, within cap bytes (NUL included) when the whole report does not
 * fit, as under a firmware's variable size limit: every record but the ap
 * ones, then as many ap records as fit, worst verdict first (bad,
 * unmeasured, unsure, ok), written in index order, and "omitted N" for the
 * rest.  *omitted: how many were left out.  0 when not even the records
 * around the APs fit. */
size_t tsc_report_write_fit(const struct tsc_report *r, char *buf, size_t cap,
			    uint32_t *omitted);

/* Parses text (not necessarily NUL-terminated).  On failure returns false
 * and sets *err to a static message and *err_line to its line (1-based). */
bool tsc_report_parse(const char *text, size_t len, struct tsc_report *r,
		      const char **err, uint32_t *err_line);

#endif

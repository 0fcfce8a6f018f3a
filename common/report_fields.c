/* SPDX-License-Identifier: MIT */
/* The report's fields, format 1: one table per record (report_fields.h). */
#include <stddef.h>

#include "report_fields.h"

/* Each enum through unsigned, for the tables. */
#define ENUM_NAMES(id, type, name_fn, from_fn)                                 \
	static const char *id##_name(unsigned v)                               \
	{                                                                      \
		return name_fn((type)v);                                       \
	}                                                                      \
	static bool id##_from(const char *s, size_t len, unsigned *out)        \
	{                                                                      \
		type e;                                                        \
		if (!from_fn(s, len, &e))                                      \
			return false;                                          \
		*out = (unsigned)e;                                            \
		return true;                                                   \
	}                                                                      \
	static const struct tsc_enum_names id##_names = { id##_name, id##_from }

ENUM_NAMES(build, enum tsc_build, tsc_build_name, tsc_build_from);
ENUM_NAMES(mode, enum tsc_mode, tsc_mode_name, tsc_mode_from);
ENUM_NAMES(config, enum tsc_config, tsc_config_name, tsc_config_from);
ENUM_NAMES(result, enum tsc_result, tsc_result_name, tsc_result_from);
ENUM_NAMES(vendor, enum tsc_vendor, tsc_vendor_name, tsc_vendor_from);
ENUM_NAMES(verdict, enum tsc_verdict, tsc_verdict_name, tsc_verdict_from);
ENUM_NAMES(note, enum tsc_ap_note, tsc_note_name, tsc_note_from);

/*
 * Where a field lives: offset and size of member m of struct T, refused at
 * compile time unless it is n bytes (n = 0: any, for char arrays).
 */
#define MEMBER(T, m, n)                                                        \
	.at = offsetof(T, m),                                                  \
	.size = sizeof(((T *)0)->m) +                                          \
		0 * sizeof(char[(n) == 0 || sizeof(((T *)0)->m) == (n) ? 1     \
								       : -1])
#define REP struct tsc_report
#define AP struct tsc_report_cpu

#define U32(T, m) .type = TSC_FT_U32, MEMBER(T, m, 4)
#define U64(T, m) .type = TSC_FT_U64, MEMBER(T, m, 8)
#define I64(T, m) .type = TSC_FT_I64, MEMBER(T, m, 8)
#define US(T, m) .type = TSC_FT_US, MEMBER(T, m, 8)
#define BOOL(T, m) .type = TSC_FT_BOOL, MEMBER(T, m, sizeof(bool))
#define ENUM(T, m, id)                                                         \
	.type = TSC_FT_ENUM, .names = &id##_names, MEMBER(T, m, 4)
#define TEXT(t, T, m) .type = (t), MEMBER(T, m, 0)
#define EFI(T, m) .type = TSC_FT_EFI, MEMBER(T, m, 8)
#define PAIR(T, m, m2)                                                         \
	.type = TSC_FT_PAIR, MEMBER(T, m, 4),                                  \
	.at2 = offsetof(T, m2) +                                               \
	       0 * sizeof(char[sizeof(((T *)0)->m2) == 4 ? 1 : -1])
#define IF_FLAG(T, f)                                                          \
	.when = TSC_WHEN_FLAG,                                                 \
	.at2 = offsetof(T, f) +                                                \
	       0 * sizeof(char[sizeof(((T *)0)->f) == sizeof(bool) ? 1 : -1])

#define RECORD(n, js, b, req, tab)                                             \
	{                                                                      \
		.name = n, .json = js, .base = b, .required = req,             \
		.err_kv = n ": expected key=value",                            \
		.err_value = n ": bad value", .fields = tab,                   \
		.nfields = sizeof(tab) / sizeof(tab[0])                        \
	}

static const struct tsc_report_field stage_fields[] = {
	{ .key = "version",
	  .json = "stage_version",
	  TEXT(TSC_FT_WORD, REP, stage_version) },
	{ .key = "build",
	  .json = "build",
	  ENUM(REP, build, build),
	  .err = "stage: unknown build" },
	{ .key = "mode",
	  .json = "mode",
	  ENUM(REP, mode, mode),
	  .err = "stage: unknown mode" },
	{ .key = "config",
	  .json = "config",
	  ENUM(REP, config, config),
	  .err = "stage: unknown config" },
};

static const struct tsc_report_field result_fields[] = {
	{ .json = "result",
	  ENUM(REP, result, result),
	  .err = "result: unknown value" },
};

static const struct tsc_report_field reason_fields[] = {
	{ .json = "reason", TEXT(TSC_FT_LINE, REP, reason) },
};

static const struct tsc_report_field cpu_fields[] = {
	{ .key = "vendor", .json = "vendor", ENUM(REP, cpu.vendor, vendor) },
	{ .key = "family", .json = "family", U32(REP, cpu.family) },
	{ .key = "model", .json = "model", U32(REP, cpu.model) },
	{ .key = "invariant_tsc",
	  .json = "invariant_tsc",
	  BOOL(REP, cpu.invariant_tsc) },
	{ .key = "tsc_adjust",
	  .json = "tsc_adjust",
	  BOOL(REP, cpu.tsc_adjust) },
	{ .key = "hypervisor",
	  .json = "hypervisor",
	  BOOL(REP, cpu.hypervisor) },
	{ .key = "rdtscp", .json = "rdtscp", BOOL(REP, cpu.rdtscp) },
	/* The unit of every offset: a tick of zero cannot be. */
	{ .key = "tick",
	  .json = "tick",
	  U64(REP, tick),
	  .flags = TSC_FIELD_POSITIVE },
	{ .key = "tsc_hz", .json = "tsc_hz", U64(REP, tsc_hz) },
};

static const struct tsc_report_field bsp_fields[] = {
	{ .key = "index", .json = "bsp_index", U32(REP, bsp_index) },
	{ .key = "apic",
	  .json = "bsp_apic_id",
	  U32(REP, bsp_apic_id),
	  .flags = TSC_FIELD_APIC_ID },
	{ .key = "shift", .json = "bsp_shift_cycles", I64(REP, bsp_shift) },
	{ .key = "writes", .json = "msr_writes", U32(REP, msr_writes) },
	/* Only resume boots write one (format 1 readers never saw it). */
	{ .key = "nvwrites",
	  .json = "nvram_writes",
	  U32(REP, nvram_writes),
	  .when = TSC_WHEN_NONZERO,
	  .flags = TSC_FIELD_JSON_ALWAYS },
	/* The JSON has always given the count ahead of the BSP's figures. */
	{ .key = "cpus",
	  .json = "cpus_total",
	  U32(REP, ncpus),
	  .flags = TSC_FIELD_JSON_FIRST },
};

/* In index order (enum tsc_phase); the JSON gives them by hand, in ms. */
static const struct tsc_report_field phase_fields[] = {
	{ .key = "survey", US(REP, phase_us[TSC_PHASE_SURVEY]) },
	{ .key = "bsp", US(REP, phase_us[TSC_PHASE_BSP]) },
	{ .key = "ap_pass", US(REP, phase_us[TSC_PHASE_AP_PASS]) },
	{ .key = "verify", US(REP, phase_us[TSC_PHASE_VERIFY]) },
	{ .key = "total", US(REP, total_us) },
};

static const struct tsc_report_field next_fields[] = {
	{ .json = "next", TEXT(TSC_FT_LINE, REP, next) },
};

static const struct tsc_report_field ignored_fields[] = {
	{ .json = "ignored_tokens", TEXT(TSC_FT_TOKENS, REP, ignored) },
};

static const struct tsc_report_field ap_fields[] = {
	{ .json = "index",
	  U32(AP, index),
	  .err = "ap: expected a processor number" },
	{ .key = "apic",
	  .json = "apic_id",
	  U32(AP, apic_id),
	  .flags = TSC_FIELD_APIC_ID },
	{ .key = "survey", .json = "survey_offset", I64(AP, survey_offset) },
	{ .key = "final", .json = "final_offset", I64(AP, final_offset) },
	{ .key = "rtt", .json = "rtt", U64(AP, rtt) },
	{ .key = "warps",
	  .json = "warps_bsp",
	  .json2 = "warps_ap",
	  PAIR(AP, warps_bsp, warps_ap) },
	{ .key = "maxwarp", .json = "max_warp", U64(AP, max_warp) },
	{ .key = "verdict", .json = "verdict", ENUM(AP, verdict, verdict) },
	{ .key = "note",
	  .json = "note",
	  ENUM(AP, note, note),
	  .when = TSC_WHEN_NONZERO },
	{ .key = "n", .json = "exchanges", U32(AP, exchanges) },
	{ .key = "w", .json = "warp_rounds", U32(AP, warp_rounds) },
	/* The kernel-style test's figures, when it saw handoffs both ways. */
	{ .key = "margin",
	  .json = "warp_margin",
	  I64(AP, margin),
	  IF_FLAG(AP, kernel_test),
	  .flags = TSC_FIELD_SETS_FLAG },
	{ .key = "spread",
	  .json = "warp_spread",
	  U64(AP, spread),
	  IF_FLAG(AP, kernel_test),
	  .err = "ap: spread without margin" },
	{ .key = "writes", .json = "writes", U32(AP, writes) },
	{ .key = "efi",
	  .json = "firmware_status",
	  EFI(AP, fw_status),
	  .when = TSC_WHEN_NONZERO },
	/* Sim builds only: the JSON leaves it out elsewhere. */
	{ .key = "true",
	  .json = "sim_true_offset",
	  I64(AP, true_offset),
	  IF_FLAG(AP, has_true_offset),
	  .flags = TSC_FIELD_SETS_FLAG | TSC_FIELD_JSON_OMIT },
};

static const struct tsc_report_field omitted_fields[] = {
	{ .json = "omitted_cpus",
	  .type = TSC_FT_U32,
	  .at = 0,
	  .size = 4,
	  .when = TSC_WHEN_NONZERO,
	  .flags = TSC_FIELD_JSON_ALWAYS,
	  .err = "omitted: not a number" },
};

const struct tsc_report_record tsc_record_stage =
	RECORD("stage", NULL, TSC_BASE_REPORT, true, stage_fields);
const struct tsc_report_record tsc_record_result =
	RECORD("result", NULL, TSC_BASE_REPORT, true, result_fields);
const struct tsc_report_record tsc_record_reason =
	RECORD("reason", NULL, TSC_BASE_REPORT, false, reason_fields);
const struct tsc_report_record tsc_record_cpu =
	RECORD("cpu", "cpu", TSC_BASE_REPORT, true, cpu_fields);
const struct tsc_report_record tsc_record_bsp =
	RECORD("bsp", NULL, TSC_BASE_REPORT, true, bsp_fields);
const struct tsc_report_record tsc_record_phase =
	RECORD("phase", NULL, TSC_BASE_REPORT, false, phase_fields);
const struct tsc_report_record tsc_record_next =
	RECORD("next", NULL, TSC_BASE_REPORT, false, next_fields);
const struct tsc_report_record tsc_record_ignored =
	RECORD("ignored", NULL, TSC_BASE_REPORT, false, ignored_fields);
const struct tsc_report_record tsc_record_ap =
	RECORD("ap", "cpus", TSC_BASE_AP, false, ap_fields);
const struct tsc_report_record tsc_record_omitted =
	RECORD("omitted", NULL, TSC_BASE_OMITTED, false, omitted_fields);

const struct tsc_report_record *const tsc_report_head[TSC_REPORT_NHEAD] = {
	&tsc_record_stage, &tsc_record_result,	&tsc_record_reason,
	&tsc_record_cpu,   &tsc_record_bsp,	&tsc_record_phase,
	&tsc_record_next,  &tsc_record_ignored,
};

const char *tsc_phase_name(enum tsc_phase p)
{
	return (unsigned)p < TSC_PHASES ? phase_fields[p].key : "?";
}

const struct tsc_report_record *tsc_report_record_of(const char *s, size_t len)
{
	uint32_t i;

	for (i = 0; i < TSC_REPORT_NHEAD; i++)
		if (tsc_streq_n(s, len, tsc_report_head[i]->name))
			return tsc_report_head[i];
	if (tsc_streq_n(s, len, tsc_record_ap.name))
		return &tsc_record_ap;
	if (tsc_streq_n(s, len, tsc_record_omitted.name))
		return &tsc_record_omitted;
	return NULL;
}

const void *tsc_report_base(const struct tsc_report *r,
			    const struct tsc_report_record *rec, uint32_t i)
{
	switch (rec->base) {
	case TSC_BASE_AP:
		return &r->ap[i];
	case TSC_BASE_OMITTED:
		return &r->omitted;
	default:
		return r;
	}
}

/* Members are read by their size, a byte at a time: an enum is read as
 * the unsigned int it is, without an lvalue of another type. */
static void copy_bytes(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
}

static uint64_t read_n(const void *base, uint16_t at, uint16_t size)
{
	const unsigned char *p = (const unsigned char *)base + at;
	uint64_t v64;
	uint32_t v32;

	switch (size) {
	case 8:
		copy_bytes(&v64, p, 8);
		return v64;
	case 4:
		copy_bytes(&v32, p, 4);
		return v32;
	case 1:
		/* A bool, read as its byte: loading a bool that holds
		 * anything but 0 or 1 is undefined. */
		return *p;
	default:
		return 0; /* text fields have no number */
	}
}

uint64_t tsc_field_u64(const struct tsc_report_field *f, const void *base)
{
	return read_n(base, f->at, f->size);
}

int64_t tsc_field_i64(const struct tsc_report_field *f, const void *base)
{
	return (int64_t)read_n(base, f->at, f->size);
}

uint64_t tsc_field_u64_2(const struct tsc_report_field *f, const void *base)
{
	return read_n(base, f->at2, 4);
}

bool tsc_field_written(const struct tsc_report_field *f, const void *base)
{
	switch (f->when) {
	case TSC_WHEN_NONZERO:
		return tsc_field_u64(f, base) != 0;
	case TSC_WHEN_FLAG:
		return read_n(base, f->at2, sizeof(bool)) != 0;
	default:
		return true;
	}
}

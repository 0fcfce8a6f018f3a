/* SPDX-License-Identifier: MIT */
/*
 * The fields of the report, format 1, listed once.  Each record (one line of
 * the text) is a table of fields: where the value lives in the struct, how
 * it is written and read, when it is left out, and its JSON name.  The text
 * writer and the parser (report.c) and the JSON (tui/cli/report_json.c)
 * walk these tables, so a new field is one line in report_fields.c.
 *
 * A line is the record's name, its positional values (fields without a
 * key: "result in-sync", "ap 3 ..."), then key=value for the others.
 */
#ifndef TSCTUI_COMMON_REPORT_FIELDS_H
#define TSCTUI_COMMON_REPORT_FIELDS_H

#include "report.h"

enum tsc_field_type {
	TSC_FT_U32,    /* uint32_t, decimal */
	TSC_FT_U64,    /* uint64_t, decimal */
	TSC_FT_I64,    /* int64_t, decimal with its sign */
	TSC_FT_US,     /* uint64_t microseconds: the key gets "_us" */
	TSC_FT_BOOL,   /* bool, 0 or 1 */
	TSC_FT_ENUM,   /* an enum, by the name .names gives it */
	TSC_FT_WORD,   /* char[]: one token, "-" when empty */
	TSC_FT_LINE,   /* char[]: the rest of the line, "-" when empty */
	TSC_FT_TOKENS, /* the same; in JSON an array of its tokens */
	TSC_FT_PAIR,   /* two uint32_t (.at and .at2) as a/b */
	TSC_FT_EFI,    /* uint64_t EFI_STATUS: its name, or 0x and 16 digits */
};

/* When a field is written.  A field left out reads back as zero. */
enum tsc_field_when {
	TSC_WHEN_ALWAYS,
	TSC_WHEN_NONZERO, /* only when its value is not zero */
	TSC_WHEN_FLAG,	  /* only when the bool at .at2 is set */
};

/* Flags of a field. */
enum {
	/* TSC_WHEN_FLAG: reading the field sets the flag.  A FLAG field
	 * without this one is written only beside the one that has it, so a
	 * value without the flag is refused (it could not be written back). */
	TSC_FIELD_SETS_FLAG = 1 << 0,
	TSC_FIELD_POSITIVE = 1 << 1, /* zero is refused */
	TSC_FIELD_APIC_ID = 1 << 2,  /* an APIC ID (the JSON adds the Linux
				      * CPU that has it) */
	/* JSON only.  A field the text leaves out is null there unless: */
	TSC_FIELD_JSON_ALWAYS = 1 << 3, /* its value (zero) is given, or */
	TSC_FIELD_JSON_OMIT = 1 << 4,	/* it is left out there too */
	TSC_FIELD_JSON_FIRST = 1 << 5,	/* ahead of its record's others */
};

/* An enum's names, through its own name and lookup functions. */
struct tsc_enum_names {
	const char *(*name)(unsigned v);
	bool (*from)(const char *s, size_t len, unsigned *out);
};

struct tsc_report_field {
	const char *key;   /* NULL: a positional value */
	const char *json;  /* NULL: not in the JSON (or written by hand) */
	const char *json2; /* TSC_FT_PAIR: the JSON name of the second */
	uint8_t type;	   /* enum tsc_field_type */
	uint8_t when;	   /* enum tsc_field_when */
	uint8_t flags;
	uint16_t at;   /* offsetof the member */
	uint16_t size; /* sizeof the member (char[]: the capacity) */
	uint16_t at2;  /* TSC_FT_PAIR: the second; TSC_WHEN_FLAG: the flag */
	const struct tsc_enum_names *names; /* TSC_FT_ENUM */
	/* The parser's message for a bad value (NULL: the record's); for a
	 * positional one also when it is missing; for a FLAG field without
	 * SETS_FLAG, when it comes without the flag. */
	const char *err;
};

/* What the offsets of a record's fields are relative to: the report, one
 * AP's entry, or the omitted count alone (a fitted copy writes its own). */
enum tsc_record_base { TSC_BASE_REPORT, TSC_BASE_AP, TSC_BASE_OMITTED };

struct tsc_report_record {
	const char *name;
	/* In the JSON: an object of its own (cpu), the array of the APs'
	 * objects (ap), or NULL: its fields sit in the report's object. */
	const char *json;
	uint8_t base;	       /* enum tsc_record_base */
	bool required;	       /* a report without it is refused */
	const char *err_kv;    /* "<name>: expected key=value" */
	const char *err_value; /* "<name>: bad value" */
	const struct tsc_report_field *fields;
	uint32_t nfields;
};

extern const struct tsc_report_record tsc_record_stage, tsc_record_result,
	tsc_record_reason, tsc_record_cpu, tsc_record_bsp, tsc_record_phase,
	tsc_record_next, tsc_record_ignored, tsc_record_ap, tsc_record_omitted;

/* The records before the APs, in the order they are written; then one
 * tsc_record_ap per AP, tsc_record_omitted when a fitted copy left some
 * out, and "end". */
#define TSC_REPORT_NHEAD 8
extern const struct tsc_report_record *const tsc_report_head[TSC_REPORT_NHEAD];

/* The record named s[0..len), or NULL ("end" and unknown records). */
const struct tsc_report_record *tsc_report_record_of(const char *s, size_t len);

/* What rec's offsets are relative to in r (TSC_BASE_AP: AP entry i). */
const void *tsc_report_base(const struct tsc_report *r,
			    const struct tsc_report_record *rec, uint32_t i);

/* A numeric field's value (an enum's number, a bool's 0 or 1); the text
 * ones are the char array at (const char *)base + f->at. */
uint64_t tsc_field_u64(const struct tsc_report_field *f, const void *base);
int64_t tsc_field_i64(const struct tsc_report_field *f, const void *base);
/* TSC_FT_PAIR's second value. */
uint64_t tsc_field_u64_2(const struct tsc_report_field *f, const void *base);
/* Whether the text writes f (TSC_WHEN_*). */
bool tsc_field_written(const struct tsc_report_field *f, const void *base);

#endif

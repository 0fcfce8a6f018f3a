/* SPDX-License-Identifier: MIT */
/*
 * The report as JSON (ARCHITECTURE 4.5): its fields, names and order come
 * from the format's tables (common/report_fields.c); what only the JSON
 * has (Linux CPU numbers, milliseconds, the format number) is written by
 * hand in the second half of this file.
 */
#include "../../common/report_fields.h"
#include "cli.h"

static void derived_after(struct json *j, const struct tsc_report_record *rec,
			  const struct tsc_report_field *f,
			  const struct tsc_report *r, const struct cpu_map *m,
			  uint32_t ap);
static void derived_record(struct json *j, const struct tsc_report_record *rec,
			   const struct tsc_report *r);

/* ---- from the tables ---- */

static void tokens(struct json *j, const char *key, const char *s)
{
	size_t i = 0, start;

	json_arr(j, key);
	while (s[i]) {
		while (s[i] == ' ')
			i++;
		start = i;
		while (s[i] && s[i] != ' ')
			i++;
		if (i > start)
			json_strn(j, NULL, s + start, i - start);
	}
	json_arr_end(j);
}

static double ms(uint64_t us)
{
	return (double)us / 1000.0;
}

static void field(struct json *j, const struct tsc_report_field *f,
		  const void *base)
{
	const char *text = (const char *)base + f->at;
	uint64_t v = tsc_field_u64(f, base);

	if (!tsc_field_written(f, base) &&
	    !(f->flags & TSC_FIELD_JSON_ALWAYS)) {
		if (f->flags & TSC_FIELD_JSON_OMIT)
			return;
		json_null(j, f->json);
		if (f->json2)
			json_null(j, f->json2);
		return;
	}
	switch (f->type) {
	case TSC_FT_I64:
		json_i64(j, f->json, tsc_field_i64(f, base));
		break;
	case TSC_FT_US:
		json_num(j, f->json, ms(v), 3);
		break;
	case TSC_FT_BOOL:
		json_bool(j, f->json, v != 0);
		break;
	case TSC_FT_ENUM:
		json_str(j, f->json, f->names->name((unsigned)v));
		break;
	case TSC_FT_WORD:
		json_str(j, f->json, text);
		break;
	case TSC_FT_LINE:
		if (text[0])
			json_str(j, f->json, text);
		else
			json_null(j, f->json);
		break;
	case TSC_FT_TOKENS:
		tokens(j, f->json, text);
		break;
	case TSC_FT_PAIR:
		json_u64(j, f->json, v);
		json_u64(j, f->json2, tsc_field_u64_2(f, base));
		break;
	case TSC_FT_EFI: {
		const char *name = tsc_efi_status_name(v);
		char hex[sizeof("0x") + 16];

		snprintf(hex, sizeof(hex), "0x%016llx", (unsigned long long)v);
		json_str(j, f->json, name ? name : hex);
		break;
	}
	default:
		json_u64(j, f->json, v);
		break;
	}
}

/* A record's fields with a JSON name, those marked first ahead of the
 * rest; ap: which AP, for TSC_BASE_AP. */
static void record(struct json *j, const struct tsc_report_record *rec,
		   const struct tsc_report *r, const struct cpu_map *m,
		   uint32_t ap)
{
	const void *base = tsc_report_base(r, rec, ap);
	int first;
	uint32_t i;

	for (first = 1; first >= 0; first--) {
		for (i = 0; i < rec->nfields; i++) {
			const struct tsc_report_field *f = &rec->fields[i];

			if (!f->json ||
			    !(f->flags & TSC_FIELD_JSON_FIRST) != !first)
				continue;
			field(j, f, base);
			derived_after(j, rec, f, r, m, ap);
		}
	}
}

void report_json(struct json *j, const char *key, const struct tsc_report *r,
		 const struct cpu_map *m)
{
	const struct tsc_report_record *rec;
	uint32_t i;

	json_obj(j, key);
	json_u64(j, "format", r->format);
	for (i = 0; i < TSC_REPORT_NHEAD; i++) {
		rec = tsc_report_head[i];
		if (rec->json)
			json_obj(j, rec->json);
		record(j, rec, r, m, 0);
		derived_record(j, rec, r);
		if (rec->json)
			json_obj_end(j);
	}
	json_arr(j, tsc_record_ap.json);
	for (i = 0; i < r->nap; i++) {
		json_obj(j, NULL);
		record(j, &tsc_record_ap, r, m, i);
		json_obj_end(j);
	}
	json_arr_end(j);
	/* APs the stage left out of the variable to fit the firmware's size
	 * limit (the console copy lists every one). */
	record(j, &tsc_record_omitted, r, m, 0);
	json_obj_end(j);
}

/* ---- only in the JSON ---- */

/* After an APIC ID: the Linux CPU that has it, or null (DESIGN 4, "CPU
 * numbers"), as bsp_linux_cpu and per AP linux_cpu. */
static void derived_after(struct json *j, const struct tsc_report_record *rec,
			  const struct tsc_report_field *f,
			  const struct tsc_report *r, const struct cpu_map *m,
			  uint32_t ap)
{
	bool is_ap = rec == &tsc_record_ap;
	int cpu;

	if (!(f->flags & TSC_FIELD_APIC_ID))
		return;
	cpu = cpu_map_report_linux(m, r,
				   is_ap ? r->ap[ap].index : r->bsp_index);
	if (cpu >= 0)
		json_i64(j, is_ap ? "linux_cpu" : "bsp_linux_cpu", cpu);
	else
		json_null(j, is_ap ? "linux_cpu" : "bsp_linux_cpu");
}

/* The phases in milliseconds: an object of the four, then the total. */
static void derived_record(struct json *j, const struct tsc_report_record *rec,
			   const struct tsc_report *r)
{
	uint32_t p;

	if (rec != &tsc_record_phase)
		return;
	json_obj(j, "phases_ms");
	for (p = 0; p < TSC_PHASES; p++)
		json_num(j, tsc_phase_name((enum tsc_phase)p),
			 ms(r->phase_us[p]), 3);
	json_obj_end(j);
	json_num(j, "total_ms", ms(r->total_us), 3);
}

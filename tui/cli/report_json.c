/* SPDX-License-Identifier: MIT */
#include "cli.h"

static void maybe_str(struct json *j, const char *key, const char *s)
{
	if (s[0])
		json_str(j, key, s);
	else
		json_null(j, key);
}

static void ignored_tokens(struct json *j, const char *s)
{
	size_t i = 0, start;

	json_arr(j, "ignored_tokens");
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

/* The Linux CPU number of the report's CPU `index`, or null. */
static void linux_cpu(struct json *j, const char *key,
		      const struct cpu_map *m, const struct tsc_report *r,
		      uint32_t index)
{
	int cpu = cpu_map_report_linux(m, r, index);

	if (cpu >= 0)
		json_i64(j, key, cpu);
	else
		json_null(j, key);
}

void report_json(struct json *j, const char *key, const struct tsc_report *r,
		 const struct cpu_map *m)
{
	uint32_t i, p;

	json_obj(j, key);
	json_u64(j, "format", r->format);
	json_str(j, "stage_version", r->stage_version);
	json_str(j, "build", tsc_build_name(r->build));
	json_str(j, "mode", tsc_mode_name(r->mode));
	json_str(j, "config", tsc_config_name(r->config));
	json_str(j, "result", tsc_result_name(r->result));
	maybe_str(j, "reason", r->reason);
	json_obj(j, "cpu");
	json_str(j, "vendor", tsc_vendor_name(r->cpu.vendor));
	json_u64(j, "family", r->cpu.family);
	json_u64(j, "model", r->cpu.model);
	json_bool(j, "invariant_tsc", r->cpu.invariant_tsc);
	json_bool(j, "tsc_adjust", r->cpu.tsc_adjust);
	json_bool(j, "hypervisor", r->cpu.hypervisor);
	json_bool(j, "rdtscp", r->cpu.rdtscp);
	json_u64(j, "tick", r->tick);
	json_u64(j, "tsc_hz", r->tsc_hz);
	json_obj_end(j);
	json_u64(j, "cpus_total", r->ncpus);
	json_u64(j, "bsp_index", r->bsp_index);
	json_u64(j, "bsp_apic_id", r->bsp_apic_id);
	linux_cpu(j, "bsp_linux_cpu", m, r, r->bsp_index);
	json_i64(j, "bsp_shift_cycles", r->bsp_shift);
	json_u64(j, "msr_writes", r->msr_writes);
	json_obj(j, "phases_ms");
	for (p = 0; p < TSC_PHASES; p++)
		json_num(j, tsc_phase_name((enum tsc_phase)p), ms(r->phase_us[p]),
			 3);
	json_obj_end(j);
	json_num(j, "total_ms", ms(r->total_us), 3);
	maybe_str(j, "next", r->next);
	ignored_tokens(j, r->ignored);
	json_arr(j, "cpus");
	for (i = 0; i < r->nap; i++) {
		const struct tsc_report_cpu *c = &r->ap[i];

		json_obj(j, NULL);
		json_u64(j, "index", c->index);
		json_u64(j, "apic_id", c->apic_id);
		linux_cpu(j, "linux_cpu", m, r, c->index);
		json_i64(j, "survey_offset", c->survey_offset);
		json_i64(j, "final_offset", c->final_offset);
		json_u64(j, "rtt", c->rtt);
		json_u64(j, "warps_bsp", c->warps_bsp);
		json_u64(j, "warps_ap", c->warps_ap);
		json_u64(j, "max_warp", c->max_warp);
		json_str(j, "verdict", tsc_verdict_name(c->verdict));
		if (c->note != TSC_NOTE_NONE)
			json_str(j, "note", tsc_note_name(c->note));
		else
			json_null(j, "note");
		json_u64(j, "exchanges", c->exchanges);
		json_u64(j, "warp_rounds", c->warp_rounds);
		if (c->kernel_test) {
			json_i64(j, "warp_margin", c->margin);
			json_u64(j, "warp_spread", c->spread);
		} else {
			json_null(j, "warp_margin");
			json_null(j, "warp_spread");
		}
		json_u64(j, "writes", c->writes);
		if (c->fw_status) {
			const char *name = tsc_efi_status_name(c->fw_status);
			char hex[24];

			snprintf(hex, sizeof(hex), "0x%016llx",
				 (unsigned long long)c->fw_status);
			json_str(j, "firmware_status", name ? name : hex);
		} else {
			json_null(j, "firmware_status");
		}
		if (c->has_true_offset)
			json_i64(j, "sim_true_offset", c->true_offset);
		json_obj_end(j);
	}
	json_arr_end(j);
	/* APs the stage left out of the variable to fit the firmware's size
	 * limit (the console copy lists every one). */
	json_u64(j, "omitted_cpus", r->omitted);
	json_obj_end(j);
}

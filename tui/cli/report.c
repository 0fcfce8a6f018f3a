/* SPDX-License-Identifier: MIT */
/* tsctui report: the stage's report of this boot, or from a file. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../source/system.h"
#include "../util/fileio.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "cli.h"

/* A console log of many boots is still small; this only stops a runaway. */
#define REPORT_MAX_INPUT (64u << 20)

/* A Linux CPU number, or "?" where the map cannot say. */
static const char *linux_cpu(const struct cpu_map *m,
			     const struct tsc_report *r, uint32_t index,
			     char buf[16])
{
	int cpu = cpu_map_report_linux(m, r, index);

	if (cpu < 0)
		return "?";
	snprintf(buf, 16, "%d", cpu);
	return buf;
}

static void print_text(const struct tsc_report *r, const struct cpu_map *m)
{
	char why[192], n[16];
	uint32_t i;

	printf("stage %s (%s build), mode %s, options from %s\n",
	       r->stage_version, tsc_build_name(r->build),
	       tsc_mode_name(r->mode), tsc_config_name(r->config));
	printf("result: %s%s%s\n", tsc_result_name(r->result),
	       r->reason[0] ? ": " : "", r->reason);
	printf("cpu: %s family %u model %u, invariant TSC %s, TSC_ADJUST %s, "
	       "RDTSCP %s, tick %llu, %.3f MHz\n",
	       tsc_vendor_name(r->cpu.vendor), r->cpu.family, r->cpu.model,
	       r->cpu.invariant_tsc ? "yes" : "no",
	       r->cpu.tsc_adjust ? "yes" : "no", r->cpu.rdtscp ? "yes" : "no",
	       (unsigned long long)r->tick, (double)r->tsc_hz / 1e6);
	printf("BSP: CPU %s (the stage's #%u, APIC ID %u), moved forward %lld "
	       "cycles; %u TSC writes\n",
	       linux_cpu(m, r, r->bsp_index, n), r->bsp_index, r->bsp_apic_id,
	       (long long)r->bsp_shift, r->msr_writes);
	printf("phases: survey %.1f ms, bsp %.1f ms, ap pass %.1f ms, verify "
	       "%.1f ms; total %.1f ms\n",
	       r->phase_us[0] / 1e3, r->phase_us[1] / 1e3, r->phase_us[2] / 1e3,
	       r->phase_us[3] / 1e3, r->total_us / 1e3);
	if (r->next[0])
		printf("next: %s\n", r->next);
	if (r->ignored[0])
		printf("ignored options: %s\n", r->ignored);
	/* CPU: Linux's number, as the kernel log and /proc use it; #: the
	 * stage's own (MP services order). */
	if (!cpu_map_covers(m, r, why, sizeof(why)))
		printf("Linux CPU numbers not known (%s): CPUs marked ? are "
		       "named only by the stage's # and APIC ID\n",
		       why);
	printf("%5s %5s %5s %16s %12s %8s %11s %8s %-10s %s\n", "CPU", "#",
	       "APIC", "survey", "final", "rtt", "warps b/a", "margin",
	       "verdict", "note");
	for (i = 0; i < r->nap; i++) {
		const struct tsc_report_cpu *c = &r->ap[i];
		const char *fw = tsc_efi_status_name(c->fw_status);
		char margin[24] = "-", note[64] = "";

		/* How far the kernel-style test found the pair from a warp. */
		if (c->kernel_test)
			snprintf(margin, sizeof(margin), "%lld",
				 (long long)c->margin);
		/* The firmware's own word for a processor it refused or
		 * stopped. */
		if (c->note)
			snprintf(note, sizeof(note), "%s",
				 tsc_note_name(c->note));
		if (c->fw_status && fw)
			snprintf(note + strlen(note),
				 sizeof(note) - strlen(note), " (%s)", fw);
		else if (c->fw_status)
			snprintf(note + strlen(note),
				 sizeof(note) - strlen(note),
				 " (EFI status 0x%llx)",
				 (unsigned long long)c->fw_status);
		printf("%5s %5u %5u %16lld %12lld %8llu %5u/%-5u %8s %-10s "
		       "%s\n",
		       linux_cpu(m, r, c->index, n), c->index, c->apic_id,
		       (long long)c->survey_offset, (long long)c->final_offset,
		       (unsigned long long)c->rtt, c->warps_bsp, c->warps_ap,
		       margin, tsc_verdict_name(c->verdict), note);
	}
	if (r->omitted)
		printf("%u more APs (none with a worse verdict than those "
		       "above) left out of the report variable to fit the "
		       "firmware's size limit; the stage's console output "
		       "lists them all\n",
		       r->omitted);
}

static int parse_one(const char *src, const char *text, size_t len,
		     struct tsc_report *r)
{
	const char *err;
	uint32_t line;

	if (!tsc_report_parse(text, len, r, &err, &line))
		return app_fail("%s: invalid report at line %u: %s", src, line,
				err);
	return EXIT_OK;
}

int cmd_report(const struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "file", required_argument, NULL, 'f' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_block *blocks;
	const char *file = NULL;
	char path[4096];
	bool json = g->json, all = false;
	size_t len, n, i;
	struct tsc_report *r;
	struct cpu_map *m;
	struct json j;
	char *data;
	int c, rc = EXIT_OK;

	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'f':
			file = optarg;
			break;
		case 'a':
			all = true;
			break;
		default:
			return EXIT_USAGE;
		}
	}
	if (cli_no_args(argc, argv))
		return EXIT_USAGE;
	if (!file) {
		if (!path_under(
			    g->root,
			    "/sys/firmware/efi/efivars/" TSC_REPORT_VAR_FILE,
			    path, sizeof(path)))
			return app_fail("report: --root is too long");
		file = path;
	}
	/* The user's --file as given; the report variable through the
	 * resolver, as every file under the root. */
	data = file == path ? fsx_read_max(file, REPORT_MAX_INPUT, &len)
			    : fileio_read_all(file, REPORT_MAX_INPUT, &len);
	if (!data) {
		if (errno == ENOENT && file == path)
			return app_fail("report: no stage report in this boot "
					"(%s is absent): the stage did not run",
					TSC_REPORT_VAR_FILE);
		return app_fail("report: cannot read %s: %s", file,
				strerror(errno));
	}
	/* The last block, or with --all room for every one there can be. */
	n = all ? len / REPORT_BLOCK_MIN + 1 : 1;
	blocks = calloc(n, sizeof(*blocks));
	r = malloc(sizeof(*r));
	m = malloc(sizeof(*m));
	if (!blocks || !r || !m) {
		free(blocks);
		free(r);
		free(m);
		free(data);
		return app_fail("report: out of memory");
	}
	n = report_find(data, &len, blocks, n);
	if (n == 0) {
		free(blocks);
		free(r);
		free(m);
		free(data);
		return app_fail("report: %s holds no tsctui report", file);
	}
	/* This boot's report meets this system's numbering; a file may come
	 * from another boot or machine, whose CPUs this one cannot name. */
	if (file == path)
		cpu_map_read(g->root, m);
	else
		cpu_map_none(m, "a report read from a file, not this boot's");
	/* Every block must parse before anything is printed. */
	for (i = all ? 0 : n - 1; i < n && rc == EXIT_OK; i++)
		rc = parse_one(file, data + blocks[i].pos, blocks[i].len, r);
	json_init(&j, stdout, true);
	if (rc == EXIT_OK && json && all)
		json_arr(&j, NULL);
	for (i = all ? 0 : n - 1; i < n && rc == EXIT_OK; i++) {
		parse_one(file, data + blocks[i].pos, blocks[i].len, r);
		if (json)
			report_json(&j, NULL, r, m);
		else
			print_text(r, m);
	}
	if (rc == EXIT_OK && json && all)
		json_arr_end(&j);
	if (rc == EXIT_OK && json)
		json_end(&j);
	free(blocks);
	free(r);
	free(m);
	free(data);
	return rc;
}

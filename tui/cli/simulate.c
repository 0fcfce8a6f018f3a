/* SPDX-License-Identifier: MIT */
/*
 * tsctui simulate: the sync driver of the UEFI stage, run on this machine's
 * real cores with virtual per-CPU offsets (ARCHITECTURE 4.4).  Prints a
 * format-1 report whose APs carry sim_true_offset, the exact residual.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../common/cpuid.h"
#include "../../common/driver.h"
#include "../engine/hostcpu.h"
#include "cli.h"

/* The driver's shared memory: one per process, like the stage's. */
static struct tsc_workspace workspace;

static int parse_cpus(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v < 1 || v > TSC_MAX_CPUS)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int cmd_simulate(const struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "mode", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "reference", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct tsc_options *o = calloc(1, sizeof(*o));
	struct tsc_report *r = calloc(1, sizeof(*r));
	struct hostcpu *h = calloc(1, sizeof(*h));
	static char text[TSC_REPORT_MAX_TEXT];
	enum tsc_mode mode = TSC_MODE_MEASURE;
	struct tsc_run_params params;
	struct tsc_platform pf;
	struct tsc_cpu_regs regs;
	uint64_t seed = (uint64_t)time(NULL);
	uint32_t ncpus = 0, k;
	bool reference = false;
	const char *err = NULL;
	int c, rc = EXIT_USAGE, i;

	(void)g;
	if (!o || !r || !h) {
		rc = app_fail("simulate: out of memory");
		goto out;
	}
	tsc_options_init(o);
	optind = 1;
	while ((c = cli_getopt(argc, argv, opts)) != -1) {
		switch (c) {
		case 'c':
			if (parse_cpus(optarg, &ncpus) != 0) {
				rc = app_fail("simulate: --cpus takes 1 to %d",
					      TSC_MAX_CPUS);
				goto out;
			}
			break;
		case 'm':
			if (!tsc_mode_from(optarg, strlen(optarg), &mode) ||
			    mode == TSC_MODE_OFF) {
				rc = app_fail("simulate: --mode is measure or "
					      "sync, not '%s'",
					      optarg);
				goto out;
			}
			break;
		case 's':
			if (!cli_parse_u64(optarg, 0, UINT64_MAX, &seed)) {
				rc = app_fail("simulate: --seed takes a "
					      "number, not '%s'",
					      optarg);
				goto out;
			}
			break;
		case 'r':
			reference = true;
			break;
		default:
			goto out;
		}
	}
	if (ncpus == 0) {
		rc = app_fail("simulate: --cpus N is required");
		goto out;
	}
	/* SPEC tokens: separate arguments, or one with spaces or commas.
	 * Typed by a user, so a bad one is refused (the stage only lists
	 * them: a typo must not stop a boot). */
	for (i = optind; i < argc; i++)
		if (cli_check_spec("simulate", argv[i], NULL))
			goto out;
	for (i = optind; i < argc; i++)
		tsc_options_parse(o, argv[i], strlen(argv[i]), true);
	/* CPU 0 is the BSP: it runs the driver and cannot be silent. */
	if (tsc_options_dead(o, 0)) {
		rc = app_fail("simulate: sim.dead=0 names the BSP, which runs "
			      "the driver; only an AP can be dead");
		goto out;
	}
	for (k = ncpus; k < TSC_MAX_CPUS; k++)
		if (o->sim_offset[k] || o->sim_late[k] ||
		    tsc_options_dead(o, k)) {
			rc = app_fail("simulate: a SPEC token names CPU %u, "
				      "but --cpus %u makes CPUs 0 to %u",
				      k, ncpus, ncpus - 1);
			goto out;
		}
	if (hostcpu_init(h, ncpus, o, seed, &err) != 0 ||
	    hostcpu_pin_bsp(h) != 0) {
		rc = app_fail("simulate: %s",
			      err ? err : "cannot pin to a CPU");
		goto out;
	}
	hostcpu_platform(h, &pf, true, true);

	tsc_report_init(r, TSCTUI_VERSION, TSC_BUILD_SIM);
	r->mode = mode;
	r->config = TSC_CONFIG_HOST;
	tsc_cpu_read(&regs);
	tsc_cpu_decode(&regs, &r->cpu);

	tsc_run_params_default(&params, mode);
	if (reference)
		params.est = tsc_est_reference;
	tsc_run(&pf, &params, &workspace, r);
	hostcpu_destroy(h);

	if (tsc_report_write(r, text, sizeof(text)) == 0) {
		rc = app_fail("simulate: report does not fit");
		goto out;
	}
	fputs(text, stdout);
	rc = EXIT_OK;
out:
	free(o);
	free(r);
	free(h);
	return rc;
}

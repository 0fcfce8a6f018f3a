/* SPDX-License-Identifier: MIT */
/* The subcommands and the options every one of them shares. */
#ifndef TSCTUI_CLI_CLI_H
#define TSCTUI_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../common/report.h"
#include "../app.h"
#include "../source/system.h"
#include "../util/json.h"

int cmd_report(const struct globals *g, int argc, char **argv);
int cmd_install(const struct globals *g, int argc, char **argv);
int cmd_uninstall(const struct globals *g, int argc, char **argv);
int cmd_mode(const struct globals *g, int argc, char **argv);
int cmd_guard(const struct globals *g, int argc, char **argv);
int cmd_boot_ok(const struct globals *g, int argc, char **argv);
int cmd_kernel_arg(const struct globals *g, int argc, char **argv);
int cmd_status(const struct globals *g, int argc, char **argv);
int cmd_check(const struct globals *g, int argc, char **argv);
int cmd_bench(const struct globals *g, int argc, char **argv);
int cmd_history(const struct globals *g, int argc, char **argv);
int cmd_simulate(const struct globals *g, int argc, char **argv);

/* Option parsing (cli/args.c).  cli_getopt: getopt_long with every error
 * (unknown option, missing value, a value for a flag) one line on stderr
 * and '?' returned; argv[0] names the subcommand.  cli_no_args: 0 when
 * getopt left no argument, else the one line and EXIT_USAGE. */
struct option;
int cli_getopt(int argc, char **argv, const struct option *opts);
int cli_no_args(int argc, char **argv);
/* Decimal digits only, within [min, max]. */
bool cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Seconds: digits and a point, 0 to max. */
bool cli_parse_seconds(const char *s, double max, double *out);

/* The global options' values (cli/input.c): 0, or the one line and
 * EXIT_USAGE.  A kernel log is a regular file of at most
 * CLI_KERNEL_LOG_MAX bytes holding kernel messages (never opened when it
 * is a FIFO or a device); SPEC tokens are those the host simulator
 * honours, offsets at most CLI_SIM_OFFSET_MAX cycles either way (beyond,
 * sums of a few offsets leave int64_t).  ntokens, when given, counts. */
#define CLI_KERNEL_LOG_MAX (64u << 20)
#define CLI_SIM_OFFSET_MAX (INT64_C(1) << 59)
/* --root names a directory; one that is the running system's "/" by
 * another spelling becomes "/". */
int cli_check_root(const char **root);
int cli_check_kernel_log(const char *path);
int cli_check_spec(const char *who, const char *spec, int *ntokens);

/* check: the time S seconds after t0 (an absolute CLOCK_MONOTONIC time
 * for clock_nanosleep), exact to the nanosecond for any S up to days. */
struct timespec;
void cli_deadline(const struct timespec *t0, double seconds,
		  struct timespec *out);

/* Standard output, and standard error, through the terminal-safe filter
 * (cli/textout.c). */
int cli_text_filter(void);
int cli_error_filter(void);

/* What the action subcommands share (cli/actions.c): what the action
 * changed, printed (or its --json object), and the exit status for rc;
 * and their options: --json, extra, each extra one handed to take. */
struct act;
struct actions_flags {
	bool json;    /* starts as the global --json */
	bool dry_run; /* --dry-run: the plan, nothing written */
};
int actions_finish(struct act *a, bool json, int rc);
int actions_parse(int argc, char **argv, const struct option *extra,
		  struct actions_flags *f,
		  int (*take)(int c, const char *arg, void *ctx), void *ctx);
/* act_init with the root, and the dry-run flag from f. */
void actions_start(struct act *a, const struct globals *g, const char *name,
		   const struct actions_flags *f);
/* A take for an action with one extra option, a flag: ctx is its bool. */
int actions_take_flag(int c, const char *arg, void *ctx);

/* The report as ARCHITECTURE 4.5's JSON object, at the writer's position. */
/* m: Linux CPU numbers by APIC ID (linux_cpu), or NULL when none apply. */
void report_json(struct json *j, const char *key, const struct tsc_report *r,
		 const struct cpu_map *m);

#endif

/* SPDX-License-Identifier: MIT */
/* The subcommands and the options every one of them shares. */
#ifndef TSCTUI_CLI_CLI_H
#define TSCTUI_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "../../common/report.h"
#include "../source/cpumap.h"
#include "../util/json.h"

#define TSCTUI_VERSION "0.1.0"

/* Exit statuses (ARCHITECTURE 4.3). */
enum { EXIT_OK = 0, EXIT_UNHEALTHY = 1, EXIT_USAGE = 2 };

struct globals {
	const char *root;	/* "/" unless --root */
	const char *kernel_log; /* --kernel-log FILE or NULL */
	const char *simulate;	/* --simulate SPEC or NULL */
	bool json;
};

/* A one-line error on stderr; returns EXIT_USAGE. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

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
/* The dashboard (tui/ui/dashboard.c). */
int dashboard_run(const struct globals *g);
int cmd_simulate(const struct globals *g, int argc, char **argv);

/* The report as ARCHITECTURE 4.5's JSON object, at the writer's position. */
/* m: Linux CPU numbers by APIC ID (linux_cpu), or NULL when none apply. */
void report_json(struct json *j, const char *key, const struct tsc_report *r,
		 const struct cpu_map *m);

#endif

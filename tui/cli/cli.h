/* SPDX-License-Identifier: MIT */
/* The subcommands and the options every one of them shares. */
#ifndef TSCTUI_CLI_CLI_H
#define TSCTUI_CLI_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "../../common/report.h"
#include "../app.h"
#include "../source/cpu_map.h"
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

/* The report as ARCHITECTURE 4.5's JSON object, at the writer's position. */
/* m: Linux CPU numbers by APIC ID (linux_cpu), or NULL when none apply. */
void report_json(struct json *j, const char *key, const struct tsc_report *r,
		 const struct cpu_map *m);

#endif

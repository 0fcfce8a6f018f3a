/* SPDX-License-Identifier: MIT */
/* tsctui: the command line.  Global options may stand anywhere; the first
 * other word names the subcommand, which parses the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/report_var.h"
#include "cli/cli.h"

static const char usage[] =
	"usage: tsctui [--root DIR] [--kernel-log FILE] [--simulate SPEC]\n"
	"       tsctui [--root DIR] [--json] COMMAND [OPTIONS]\n"
	"\n"
	"Without a command: the dashboard (needs a terminal; actions need\n"
	"root; at least 60x15).  Keys: ? or h help, w why each verdict,\n"
	"r stage report, y history, m mode, g hang guard, k tsc=nowatchdog,\n"
	"i install, u uninstall, s guided setup, l all text (what the main\n"
	"screen cut to fit), Up/Down/PgUp/PgDn scroll, Esc back, q quit.\n"
	"\n"
	"Commands available in this version:\n"
	"  status [--json|--prometheus|--quiet]\n"
	"        clocksource, CPU, the kernel's TSC events, the stage, and a\n"
	"        diagnosis with the next step (exit 1 when unhealthy);\n"
	"        --quiet prints nothing and exits 0 when programs that read\n"
	"        the TSC themselves can trust it this boot, 1 when they\n"
	"        cannot, 2 when it cannot be told (one line on stderr)\n"
	"  check [--interval S] [--samples N] [--load-rtc]\n"
	"        [--json|--prometheus]\n"
	"        every S seconds: each core's offset and warps against CPU 0,\n"
	"        the clocksource, the TSC rate against the RTC (exit 1 on any\n"
	"        warp or a clocksource other than tsc); --load-rtc loads\n"
	"        rtc_cmos first when there is no RTC (root only; not\n"
	"        under --root, where the rate has no reference);\n"
	"        --prometheus prints one exposition, after the last sample:\n"
	"        the survey's metrics (status --prometheus has the rest;\n"
	"        the two together are what tsctui-textfile.timer writes for\n"
	"        node_exporter)\n"
	"  bench [--json]\n"
	"        ns per clock read, one thread and all CPUs\n"
	"  history [--json]\n"
	"        one row per recorded boot\n"
	"  report [--json] [--file PATH|-] [--all]\n"
	"        the stage's report of this boot (the " TSC_REPORT_VAR_NAME
	" EFI\n"
	"        variable), or from PATH: a raw variable, an efivarfs file,\n"
	"        or a console log with report blocks (the last one, or all)\n"
	"  simulate --cpus N [--mode measure|sync] [--seed S] [--reference]\n"
	"           [SPEC...]\n"
	"        run the stage's measure/sync algorithm on this machine's\n"
	"        cores with virtual per-CPU offsets; SPEC tokens are\n"
	"        sim.offset.N=C sim.jitter=J sim.dead=N sim.late=N[@K]\n"
	"        (others, CPUs past N and offsets past 2^59 are refused);\n"
	"        --reference uses\n"
	"        the reference design's fixed estimator budget (4000 rounds\n"
	"        per measurement)\n"
	"  install [--loader grub|systemd-boot|efi-entry] [--esp DIR]\n"
	"          [--next BootXXXX] [--key K --cert C] [--migrate]\n"
	"        put the stage in the boot path, in measure mode; efi-entry\n"
	"        makes its own firmware boot entry, first in BootOrder, that\n"
	"        starts the loader that was first (or --next) afterwards;\n"
	"        --migrate takes over Zanasin/tscsync's job (its GRUB block,\n"
	"        driver, service and grubenv variables go; uninstall puts\n"
	"        them back)\n"
	"  uninstall [--purge] [--force]\n"
	"        remove everything install did, restoring every file it\n"
	"        changed (--purge: the boot history too); --force also\n"
	"        without a usable ledger: puts back the copies under\n"
	"        /var/lib/tsctui/backup and removes what is certainly\n"
	"        tsctui's\n"
	"  mode off|measure|sync [--allow-any-cpu]\n"
	"        what the stage does from the next boot\n"
	"  guard status|reset [--mode M]\n"
	"        the hang guard: clear, pending or tripped; it trips when the\n"
	"        stage hung in a boot, or after 3 sync boots Linux never\n"
	"        confirmed (each followed by a measure-only boot that it "
	"did),\n"
	"        or after 5 measure-only boots in a row that never reached "
	"Linux;\n"
	"        reset clears every marker and the strikes and re-enables the\n"
	"        stage (in measure mode unless --mode)\n"
	"  kernel-arg nowatchdog on|off\n"
	"        tsc=nowatchdog for the next boot, through the distribution's\n"
	"        mechanism (GRUB drop-in, grubby, or BLS entries and\n"
	"        /etc/kernel/cmdline); tsc=reliable is never offered\n"
	"  kernel-arg reliable off\n"
	"        take tsc=reliable (which hides a real warp) out of the boot\n"
	"        configuration, each file backed up for uninstall\n"
	"  boot-ok\n"
	"        mark this boot good: confirm a sync boot, or count a strike\n"
	"        after an unconfirmed one (run by tsctui-boot.service, and by\n"
	"        the sleep hook after a resume from hibernation)\n"
	"  --dry-run (after any action above, from install on): print what\n"
	"        it would create, modify and remove and the tools it would\n"
	"        run, and change nothing\n"
	"\n"
	"Global options:\n"
	"  --root DIR   resolve every system path under DIR (default /;\n"
	"               every command but simulate; this system's own /,\n"
	"               however spelled, is the running system)\n"
	"  --kernel-log FILE\n"
	"               a dmesg or journalctl -k text file (under 64 MiB)\n"
	"               instead of the live kernel log (status, check,\n"
	"               the dashboard)\n"
	"  --simulate SPEC\n"
	"               add virtual per-CPU offsets (sim.offset.N=C ...) to\n"
	"               the live engine's reads (check, the dashboard)\n"
	"  --json       machine-readable output (the commands but simulate)\n"
	"  --help       this text\n"
	"  --version    the version\n"
	"\n"
	"Exit status: 0 success, 1 unhealthy, 2 usage or input error (one\n"
	"line on stderr, nothing changed).\n";

/* The global options a command uses; any other one given is refused. */
enum { G_ROOT = 1, G_KLOG = 2, G_SIM = 4, G_JSON = 8 };
#define G_SYSTEM (G_ROOT | G_JSON)

struct command {
	const char *name;
	int (*run)(const struct globals *g, int argc, char **argv);
	unsigned globals;
};

static const struct command commands[] = {
	{ "status", cmd_status, G_SYSTEM | G_KLOG },
	{ "report", cmd_report, G_SYSTEM },
	{ "check", cmd_check, G_SYSTEM | G_KLOG | G_SIM },
	{ "bench", cmd_bench, G_SYSTEM },
	{ "history", cmd_history, G_SYSTEM },
	/* Its own cores and CPUID, nothing under a root; a report in the
	 * stage's format, no JSON. */
	{ "simulate", cmd_simulate, 0 },
	{ "install", cmd_install, G_SYSTEM },
	{ "uninstall", cmd_uninstall, G_SYSTEM },
	{ "mode", cmd_mode, G_SYSTEM },
	{ "guard", cmd_guard, G_SYSTEM },
	{ "boot-ok", cmd_boot_ok, G_SYSTEM },
	{ "kernel-arg", cmd_kernel_arg, G_SYSTEM },
};

/* The dashboard: no JSON. */
static const struct command dashboard = { "the dashboard", NULL,
					  G_ROOT | G_KLOG | G_SIM };

static const struct {
	unsigned bit;
	const char *name, *used_by;
} global_names[] = {
	{ G_ROOT, "--root", "every command but simulate" },
	{ G_KLOG, "--kernel-log", "status, check and the dashboard" },
	{ G_SIM, "--simulate", "check and the dashboard" },
	{ G_JSON, "--json", "the commands, not the dashboard or simulate" },
};

/* Takes a global option at argv[*i]; 1 if taken, 0 if not one, -1 error.
 * given collects the G_* bits of the options seen. */
static int take_global(struct globals *g, unsigned *given, int argc,
		       char **argv, int *i)
{
	const char *a = argv[*i];
	const char **dst = NULL;
	const char *name = NULL;
	unsigned bit = 0;

	if (strcmp(a, "--json") == 0) {
		g->json = true;
		*given |= G_JSON;
		return 1;
	}
	if (strcmp(a, "--root") == 0 || strncmp(a, "--root=", 7) == 0)
		dst = &g->root, name = "--root", bit = G_ROOT;
	else if (strcmp(a, "--kernel-log") == 0 ||
		 strncmp(a, "--kernel-log=", 13) == 0)
		dst = &g->kernel_log, name = "--kernel-log", bit = G_KLOG;
	else if (strcmp(a, "--simulate") == 0 ||
		 strncmp(a, "--simulate=", 11) == 0)
		dst = &g->simulate, name = "--simulate", bit = G_SIM;
	if (!dst)
		return 0;
	if (*given & bit) {
		app_fail("option %s given twice", name);
		return -1;
	}
	*given |= bit;
	if (strchr(a, '=')) {
		*dst = strchr(a, '=') + 1;
		return 1;
	}
	if (*i + 1 >= argc) {
		app_fail("option %s needs a value", name);
		return -1;
	}
	*dst = argv[++*i];
	return 1;
}

/* The global options given fit the command, and their values are good
 * (--root made "/" where it names the running system). */
static int check_globals(struct globals *g, unsigned given,
			 const struct command *c)
{
	size_t k;

	for (k = 0; k < sizeof(global_names) / sizeof(global_names[0]); k++)
		if ((given & global_names[k].bit) &&
		    !(c->globals & global_names[k].bit))
			return app_fail("%s does not apply to %s (it is for "
					"%s)",
					global_names[k].name, c->name,
					global_names[k].used_by);
	if ((given & G_ROOT) && cli_check_root(&g->root))
		return EXIT_USAGE;
	if ((given & G_KLOG) && cli_check_kernel_log(g->kernel_log))
		return EXIT_USAGE;
	if (given & G_SIM) {
		int n = 0;

		if (cli_check_spec("--simulate", g->simulate, &n))
			return EXIT_USAGE;
		if (n == 0)
			return app_fail("--simulate needs SPEC tokens "
					"(sim.offset.N=C ...)");
	}
	return 0;
}

/* `tsctui COMMAND --help`: that command's lines of the usage text (from
 * its line to the next command's), so there is one text to keep true. */
static int command_help(const char *cmd)
{
	size_t n = strlen(cmd);
	const char *p = usage, *end;

	for (; (p = strstr(p, "\n  ")); p++)
		if (!strncmp(p + 3, cmd, n) &&
		    (p[3 + n] == ' ' || p[3 + n] == '\n'))
			break;
	if (!p)
		return EXIT_OK;
	p++;
	for (end = strchr(p, '\n'); end && !strncmp(end + 1, "   ", 3);
	     end = strchr(end + 1, '\n'))
		;
	printf("usage: tsctui %.*s\n",
	       (int)(end ? end - p : (long)strlen(p)) - 2, p + 2);
	printf("\nGlobal options and the other commands: tsctui --help\n");
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct globals g = { .root = "/" };
	char **rest = calloc((size_t)argc + 1, sizeof(char *));
	const struct command *c = NULL;
	const char *cmd = NULL;
	unsigned given = 0;
	int nrest = 0, i, t, rc;
	size_t k;

	/* Errors repeat what was given (an unknown command, a value):
	 * control characters in it do not reach the terminal. */
	if (!rest || cli_error_filter() != 0)
		return app_fail("out of memory");
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 ||
		    strcmp(argv[i], "-h") == 0) {
			if (cmd)
				rc = command_help(cmd);
			else
				rc = fputs(usage, stdout) < 0;
			free(rest);
			return rc;
		}
		if (strcmp(argv[i], "--version") == 0) {
			printf("tsctui %s\n", TSCTUI_VERSION);
			free(rest);
			return EXIT_OK;
		}
		t = take_global(&g, &given, argc, argv, &i);
		if (t < 0) {
			free(rest);
			return EXIT_USAGE;
		}
		if (t > 0)
			continue;
		if (!cmd && argv[i][0] != '-') {
			cmd = argv[i];
			rest[nrest++] = argv[i];
			continue;
		}
		if (!cmd) {
			free(rest);
			return app_fail(
				"unknown option '%s' (see tsctui --help)",
				argv[i]);
		}
		rest[nrest++] = argv[i];
	}
	for (k = 0; cmd && k < sizeof(commands) / sizeof(commands[0]); k++)
		if (strcmp(cmd, commands[k].name) == 0)
			c = &commands[k];
	if (cmd && !c) {
		free(rest);
		return app_fail("unknown command '%s' (see tsctui --help)",
				cmd);
	}
	if (check_globals(&g, given, c ? c : &dashboard)) {
		free(rest);
		return EXIT_USAGE;
	}
	if (!c) {
		free(rest);
		return dashboard_run(&g);
	}
	/* What a command prints reaches a terminal: control characters from
	 * DMI strings or logs do not. */
	if (cli_text_filter() != 0) {
		free(rest);
		return app_fail("out of memory");
	}
	rc = c->run(&g, nrest, rest);
	free(rest);
	return rc;
}

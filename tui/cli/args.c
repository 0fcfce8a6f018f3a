/* SPDX-License-Identifier: MIT */
/* What every subcommand's option parsing shares: getopt_long that never
 * prints (opterr 0) and turns each of its errors into one line, and the
 * strict number and word checks (cli.h). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The option's entry, by the name in arg ("--name" or "--name=value"). */
static const struct option *entry(const struct option *opts, const char *arg)
{
	size_t n = strcspn(arg + 2, "=");

	for (; opts->name; opts++)
		if (strlen(opts->name) == n &&
		    strncmp(opts->name, arg + 2, n) == 0)
			return opts;
	return NULL;
}

int cli_getopt(int argc, char **argv, const struct option *opts)
{
	const char *arg;
	const struct option *o;
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, ":", opts, NULL);
	if (c != '?' && c != ':')
		return c;
	arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	if (strncmp(arg, "--", 2) != 0) {
		if (optopt)
			app_fail("%s: unknown option '-%c'", argv[0], optopt);
		else
			app_fail("%s: unknown option '%s'", argv[0], arg);
		return '?';
	}
	o = entry(opts, arg);
	if (c == ':')
		app_fail("%s: option --%s needs a value", argv[0],
			 o ? o->name : arg + 2);
	else if (o && o->has_arg == no_argument && strchr(arg, '='))
		app_fail("%s: option --%s takes no value", argv[0], o->name);
	else
		app_fail("%s: unknown option '%s'", argv[0], arg);
	return '?';
}

int cli_no_args(int argc, char **argv)
{
	if (optind < argc)
		return app_fail("%s: unexpected argument '%s'", argv[0],
				argv[optind]);
	return 0;
}

bool cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool cli_parse_seconds(const char *s, double max, double *out)
{
	double v;
	char *end;

	/* Digits and a point: no sign, blank, hex, exponent, inf or nan. */
	if (!*s || s[strspn(s, "0123456789.")] != '\0')
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !(v >= 0) || v > max)
		return false;
	*out = v;
	return true;
}

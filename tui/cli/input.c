/* SPDX-License-Identifier: MIT */
/*
 * The global options' values, checked before any command runs (cli.h):
 * a --root that is a directory, a --kernel-log that is a readable kernel
 * log (checked without blocking: a FIFO or a device is never opened), and
 * SPEC tokens the simulator honours.  Each failure is one line and exit
 * status 2, before anything is read or changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/options.h"
#include "../source/system.h"
#include "../util/path.h"
#include "cli.h"

static const char *kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISREG(m))
		return "a regular file";
	return "not a regular file";
}

int cli_check_root(const char **rootp)
{
	const char *root = *rootp;
	struct stat st, host;
	int fd;

	if (!root[0])
		return app_fail("--root is empty (give a directory, / for "
				"this system)");
	/* The root's name is looked up once: what is checked here is the
	 * directory the resolver starts at (path_root_adopt).  O_DIRECTORY
	 * also mounts an automount point there (an O_PATH open alone does
	 * not); what else the name is is asked only to say so. */
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOTDIR && stat(root, &st) == 0)
			return app_fail("--root %s is %s, not a directory",
					root, kind(st.st_mode));
		return app_fail("--root %s: %s", root, strerror(e));
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		return app_fail("--root %s: %s", root, strerror(e));
	}
	/* The running system by another name ("//", "/.", "/tmp/.."): the
	 * root is "/", so every rule that asks "is this the running
	 * system?" (its kernel log, /proc, efivarfs, the locks in /run)
	 * gets one answer however the user spelled it. */
	if (stat("/", &host) == 0 && st.st_dev == host.st_dev &&
	    st.st_ino == host.st_ino)
		*rootp = root = "/";
	/* From here on every file under the root goes through the
	 * resolver, which starts at this directory's fd (DESIGN.md 8.1);
	 * without --root it is "/". */
	if (path_root_adopt(root, fd) != 0)
		return app_fail("--root %s: %s", root, strerror(errno));
	return 0;
}

static bool digits(const char **p, const char *end)
{
	const char *s = *p;

	while (*p < end && **p >= '0' && **p <= '9')
		(*p)++;
	return *p > s;
}

/* A line with a kernel log's prefix: dmesg's "[    3.149285] " (after a
 * "<6>" priority or not), journalctl -k's "Oct 11 16:02:11 host kernel: "
 * or short-monotonic "[    3.149285] host kernel: ", or a /dev/kmsg
 * record "6,1234,3149285,-;". */
static bool kernel_line(const char *p, const char *end)
{
	const char *q;

	if (p < end && *p == '<') {
		p++;
		if (!digits(&p, end) || p == end || *p++ != '>')
			return false;
	}
	if (p < end && *p == '[') {
		for (p++; p < end && *p == ' '; p++)
			;
		return digits(&p, end) && p < end && *p++ == '.' &&
		       digits(&p, end) && p < end && *p == ']';
	}
	q = p;
	if (digits(&q, end) && q < end && *q == ',') {
		q++;
		if (digits(&q, end) && q < end && *q++ == ',' &&
		    digits(&q, end) && q < end && *q == ',')
			return memchr(q, ';', (size_t)(end - q)) != NULL;
		return false;
	}
	/* "Mmm dd hh:mm:ss host kernel: " */
	if (end - p > 16 && p[3] == ' ' && p[6] == ' ' && p[9] == ':' &&
	    p[12] == ':') {
		size_t span = (size_t)(end - p) < 100 ? (size_t)(end - p) : 100;

		return memmem(p, span, " kernel: ", 9) != NULL;
	}
	return false;
}

/* Some line is a kernel message, or the parser finds a TSC message in it
 * (a `dmesg -t` log has no prefixes). */
static bool holds_kernel_messages(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *eol;
	struct klog *k;
	bool any;

	while (p < end) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (kernel_line(p, eol))
			return true;
		p = eol + 1;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return true; /* the reader will say what it can */
	kernlog_parse(text, len, k);
	any = k->n > 0 || kernlog_tsc_mhz(k) > 0;
	free(k);
	return any;
}

int cli_check_kernel_log(const char *path)
{
	struct stat st;
	size_t len = 0;
	ssize_t r;
	char *buf;
	int fd;
	bool ok;

	if (!path[0])
		return app_fail("--kernel-log is empty (give a dmesg or "
				"journalctl -k text file)");
	/* stat first: a FIFO or a device is named, never opened. */
	if (stat(path, &st) != 0)
		return app_fail("--kernel-log %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return app_fail("--kernel-log %s is %s, not a kernel log file",
				path, kind(st.st_mode));
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return app_fail("--kernel-log %s: %s", path, strerror(errno));
	/* Again on what was opened: the path may have changed meanwhile. */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return app_fail("--kernel-log %s is not a regular file", path);
	}
	if ((unsigned long long)st.st_size > CLI_KERNEL_LOG_MAX) {
		close(fd);
		return app_fail("--kernel-log %s is larger than %u MiB: not a "
				"kernel log",
				path, CLI_KERNEL_LOG_MAX >> 20);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return app_fail("out of memory");
	}
	while (len < (size_t)st.st_size) {
		r = read(fd, buf + len, (size_t)st.st_size - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (len < (size_t)st.st_size) {
		int e = r < 0 ? errno : 0;

		free(buf);
		close(fd);
		return app_fail("--kernel-log %s: %s", path,
				e ? strerror(e) : "shorter than its size");
	}
	close(fd);
	ok = len > 0 && holds_kernel_messages(buf, len);
	free(buf);
	if (!ok)
		return app_fail("--kernel-log %s holds no kernel message (give "
				"the output of dmesg or journalctl -k)",
				path);
	return 0;
}

/* The tokens the host simulator honours (ARCHITECTURE 4.4). */
static const char *const sim_tokens[] = { "sim.offset.", "sim.jitter=",
					  "sim.dead=", "sim.late=" };

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t m = strlen(prefix);

	return n > m && strncmp(s, prefix, m) == 0;
}

int cli_check_spec(const char *who, const char *spec, int *ntokens)
{
	static const char sep[] = " \t,\r\n";
	struct tsc_options *o = malloc(sizeof(*o));
	const char *p = spec;
	size_t n, k;
	int rc = 0;

	if (!o)
		return app_fail("out of memory");
	while (rc == 0 && *(p += strspn(p, sep))) {
		bool known = false;

		n = strcspn(p, sep);
		for (k = 0; k < sizeof(sim_tokens) / sizeof(sim_tokens[0]); k++)
			known |= starts(p, n, sim_tokens[k]);
		tsc_options_init(o);
		if (known)
			tsc_options_parse(o, p, n, true);
		if (!known || o->nignored)
			rc = app_fail(
				"%s: invalid SPEC token '%.*s' (the tokens "
				"are sim.offset.N=C sim.jitter=J "
				"sim.dead=N sim.late=N[@K])",
				who, (int)n, p);
		for (k = 0; rc == 0 && k < TSC_MAX_CPUS; k++)
			if (o->sim_offset[k] > CLI_SIM_OFFSET_MAX ||
			    o->sim_offset[k] < -CLI_SIM_OFFSET_MAX)
				rc = app_fail("%s: '%.*s': a simulated offset "
					      "is at most %lld cycles either "
					      "way",
					      who, (int)n, p,
					      (long long)CLI_SIM_OFFSET_MAX);
		if (ntokens)
			++*ntokens;
		p += n;
	}
	free(o);
	return rc;
}

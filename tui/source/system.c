/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/cpuid.h"
#include "../util/fileio.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "efivar.h"
#include "system.h"

/* A small file under root, first line, trailing blanks trimmed. */
bool system_read_line(const char *root, const char *sys, char *out, size_t cap)
{
	char path[4096];
	size_t len;
	char *d;

	out[0] = '\0';
	if (!path_under(root, sys, path, sizeof(path)))
		return false;
	d = fsx_read_max(path, 1 << 16, &len);
	if (!d)
		return false;
	d[strcspn(d, "\n")] = '\0';
	len = strlen(d);
	while (len && (d[len - 1] == ' ' || d[len - 1] == '\t'))
		d[--len] = '\0';
	snprintf(out, cap, "%s", d);
	free(d);
	return true;
}

static void note(struct sysinfo *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nnotes == SYS_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(s->notes[s->nnotes++], sizeof(s->notes[0]), fmt, ap);
	va_end(ap);
}

bool system_read_klog(const char *root, const char *file, struct klog *k,
		      char *why, size_t cap)
{
	size_t len = 0;
	char *d = NULL;

	why[0] = '\0';
	memset(k, 0, sizeof(*k));
	if (file) {
		d = fileio_read_all(file, KERNLOG_FILE_MAX, &len);
		if (!d)
			snprintf(why, cap, "cannot read the kernel log %s: %s",
				 file, strerror(errno));
	} else if (!strcmp(root, "/")) {
		d = kernlog_read_kmsg(&len);
		if (!d)
			snprintf(why, cap,
				 "cannot read /dev/kmsg (%s): the kernel's TSC "
				 "messages need root or --kernel-log FILE",
				 strerror(errno));
	} else {
		snprintf(why, cap,
			 "no kernel log for another root: give --kernel-log");
	}
	if (!d)
		return false;
	kernlog_parse(d, len, k);
	free(d);
	return true;
}

void system_read_powerlog(const char *root, const char *kernel_log,
			  const struct klog *k, struct power_log *out)
{
	struct sys_power power;

	memset(out, 0, sizeof(*out));
	/* A log handed in on this machine may be another boot's. */
	if (!k->wd_dropped || (kernel_log && !strcmp(root, "/")))
		return;
	power_read(root, &power);
	powerlog_read(root, power.battery_model, k->wd_dropped_at, out);
}

static void read_klog(const char *root, const char *file, struct sysinfo *s)
{
	char why[sizeof(s->notes[0])];

	s->klog = calloc(1, sizeof(*s->klog));
	if (!s->klog)
		return;
	s->have_klog = system_read_klog(root, file, s->klog, why, sizeof(why));
	if (why[0])
		note(s, "%s", why);
}

const char *system_guard_word(const struct sys_stage *st)
{
	return st->has_state ? stage_state_guard_name(st->guard) : "";
}

const char *system_probation_note(const struct sys_stage *st)
{
	/* A resume boot (its report counts the guard variable's writes)
	 * measures after an unconfirmed sync too, but is no probation. */
	if (!st->has_report || !st->mode_known || st->mode != TSC_MODE_SYNC ||
	    st->report->mode != TSC_MODE_MEASURE || st->report->nvram_writes)
		return NULL;
	if (st->has_state && st->state.last_boot == LAST_BOOT_SET)
		return "a probation boot after an unconfirmed sync: the TSC "
		       "was not synced this boot (the loader recorded no "
		       "other system's boot since that sync)";
	if (st->loader == LOADER_SDBOOT)
		return "a probation boot after an unconfirmed sync: the TSC "
		       "was "
		       "not synced this boot (`default @saved` in "
		       "loader/loader.conf lets the stage tell another "
		       "system's boot from a failed Linux one)";
	if (st->loader == LOADER_GRUB)
		return "a probation boot after an unconfirmed sync: the TSC "
		       "was "
		       "not synced this boot (GRUB_SAVEDEFAULT=true in "
		       "/etc/default/grub, then update-grub, lets the block "
		       "tell another system's boot from a failed Linux one)";
	return "a probation boot after an unconfirmed sync: the TSC was not "
	       "synced this boot (the firmware entry cannot tell another "
	       "system's boot from a failed Linux one)";
}

const char *system_stage_note(const struct sys_stage *st, bool *bad)
{
	*bad = false;
	if (!st->installed)
		return NULL;
	/* Every boot of the ESP paths then runs as a resume (its guard in
	 * the resume variable, nothing written on the ESP): no sync is ever
	 * confirmed, and the probation sentence cannot apply. */
	if (st->hib == HIB_STALE) {
		*bad = true;
		/* Words a row can hold: the variable's full path is wider
		 * than 80 columns; there is only one HibernateLocation. */
		return "stale HibernateLocation: every boot runs as a resume "
		       "(nothing confirmed); remove it: cd " EFIVARS_DIR
		       " && chattr -i HibernateLocation-* && rm "
		       "HibernateLocation-*";
	}
	return system_probation_note(st);
}

static void read_stage(const char *root, struct sysinfo *s)
{
	struct sys_stage *st = &s->stage;
	struct stage_state *ss = &st->state;
	const char *why = NULL;
	int rc;

	st->loader = LOADER_NONE;
	st->conf_read = config_read(root, &st->conf, &why);
	if (st->conf_read > 0) {
		st->installed = true;
		st->loader = st->conf.loader;
		if (stage_state_read(root, &st->conf, ss, &why) == 0) {
			st->has_state = true;
			st->mode = ss->mode;
			st->mode_known = ss->mode_known;
			snprintf(st->mode_word, sizeof(st->mode_word), "%s",
				 ss->mode_word);
			st->guard = ss->guard;
			snprintf(st->since, sizeof(st->since), "%s", ss->since);
			st->probation = ss->marks.probation;
			st->strikes = ss->marks.strikes;
			st->hib = ss->hibernate_location;
		} else {
			/* Every such sentence names the way out: the
			 * grubenv's say which command; a state file on
			 * the ESP is tsctui's own to write again. */
			snprintf(st->state_why, sizeof(st->state_why), "%s%s",
				 why,
				 strchr(why, '`')
					 ? ""
					 : " (if it is not a regular file, "
					   "remove it; `tsctui guard reset` "
					   "then writes the stage's files "
					   "again)");
			note(s, "%s", st->state_why);
		}
	} else if (why) {
		snprintf(st->conf_why, sizeof(st->conf_why), "%s", why);
		note(s, "%s", why);
	}
	st->report = calloc(1, sizeof(*st->report));
	if (!st->report)
		return;
	rc = stage_report_read(root, st->report, NULL, NULL);
	if (rc > 0)
		st->has_report = true;
	else if (rc < 0)
		note(s, "this boot's " TSC_REPORT_VAR_NAME
			" variable is not a valid "
			"report");
}

static void read_boot(const char *root, struct sys_boot *b)
{
	char path[PATH_UNDER_MAX];
	const char *why = NULL;

	b->found = detect_loader(root, &b->found_why);
	b->has_esp = detect_esp(root, b->esp, sizeof(b->esp), &why);
	b->nvfat = detect_vfat_mounts(root, b->vfat, SYS_VFAT_MAX);
	b->grub = detect_grubenv(root, path, sizeof(path));
	b->efivars = detect_efivars(root);
}

static void read_history(const char *root, struct sysinfo *s)
{
	s->history = calloc(HISTORY_MAX, sizeof(*s->history));
	if (s->history)
		s->nhistory = history_rows(
			root, s->history, HISTORY_MAX, &s->history_dropped,
			s->history_error, sizeof(s->history_error));
}

int system_read_parts(const char *root, const char *kernel_log, unsigned parts,
		      struct sysinfo *s)
{
	char path[4096], why[sizeof(s->notes[0])], *d;
	size_t len;

	memset(s, 0, sizeof(*s));
	clocksource_read(root, &s->cs);
	if (!s->cs.current[0])
		note(s, "no clocksource in /sys under %s", root);
	if ((d = cpu_read_cpuinfo(root, &len))) {
		cpu_parse(d, &s->cpu);
		cpu_map_parse(d, &s->cpumap);
		free(d);
	} else {
		note(s, "cannot read /proc/cpuinfo");
		cpu_map_none(&s->cpumap, "cannot read /proc/cpuinfo");
	}
	if (!strcmp(root, "/")) {
		/* The live CPU: CPUID knows invariant TSC for certain. */
		struct tsc_cpu_regs regs;
		struct tsc_cpu_info ci;

		tsc_cpu_read(&regs);
		tsc_cpu_decode(&regs, &ci);
		s->cpu.invariant_tsc = ci.invariant_tsc || s->cpu.invariant_tsc;
		s->cpu.tsc_adjust = ci.tsc_adjust || s->cpu.tsc_adjust;
		s->cpu.hypervisor = ci.hypervisor || s->cpu.hypervisor;
	}
	path_under(root, "/proc/cmdline", path, sizeof(path));
	if ((d = fsx_read_max(path, 1 << 16, &len))) {
		kernel_cmdline_parse(d, &s->cmdline);
		free(d);
	}
	kernel_cmdline_read_next(root, &s->cmdline);
	s->cmdline.nowatchdog = kernel_cmdline_nowatchdog(root);
	machine_read(root, &s->machine);
	/* The running kernel's release decides which watchdog it has where
	 * the log's wording does not; a log handed in may be another
	 * kernel's, so then only its own "Linux version" counts. */
	if (!kernel_log)
		system_read_line(root, "/proc/sys/kernel/osrelease",
				 s->kernel_release, sizeof(s->kernel_release));
	if (parts & SYS_KLOG)
		read_klog(root, kernel_log, s);
	else
		s->klog = calloc(1, sizeof(*s->klog));
	read_stage(root, s);
	{
		char *li = efivar_string(root, "LoaderInfo", GUID_SD_LOADER);

		s->efi.secure_boot = efivar_secure_boot(root);
		snprintf(s->efi.loader_info, sizeof(s->efi.loader_info), "%s",
			 li ? li : "");
		free(li);
		s->efi.boot_current = efivar_boot_current(root);
		s->efi.nboot_order =
			efivar_boot_order(root, s->efi.boot_order, 32);
	}
	modules_read(root, &s->modules);
	if (!s->modules.supported)
		note(s, "this kernel has no module support (no /proc/modules): "
			"the modules tsctui would load must be built in");
	path_under(root, "/dev/kvm", path, sizeof(path));
	s->kvm_host =
		fsx_exists(path) || s->modules.kvm_amd || s->modules.kvm_intel;
	fixers_read(root, &s->fixers);
	power_read(root, &s->power);
	if (s->have_klog)
		system_read_powerlog(root, kernel_log, s->klog, &s->powerlog);
	history_last_sync_bios(root, s->last_sync_bios,
			       sizeof(s->last_sync_bios), why, sizeof(why));
	if (why[0])
		note(s, "%s", why);
	if (parts & SYS_BOOT) {
		s->have_boot = true;
		read_boot(root, &s->boot);
	}
	if (parts & SYS_HISTORY)
		read_history(root, s);
	return 0;
}

int system_read(const char *root, const char *kernel_log, struct sysinfo *s)
{
	return system_read_parts(root, kernel_log, SYS_KLOG, s);
}

void system_reread_clocksource(const char *root, struct sysinfo *s)
{
	clocksource_read(root, &s->cs);
}

const char *system_live_clocksource(const char *root, const struct sysinfo *s)
{
	return strcmp(root, "/") ? NULL : s->cs.current;
}

void system_free(struct sysinfo *s)
{
	free(s->klog);
	free(s->stage.report);
	free(s->history);
	s->klog = NULL;
	s->stage.report = NULL;
	s->history = NULL;
	s->nhistory = 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * Everything tsctui reads about a machine, as plain data: one reader per
 * source (clocksource.c, cpu.c, kernel_cmdline.c, machine.c, kernlog.c,
 * efivar.c, stage_report.c, config.c, stage_state.c, history.c,
 * detect.c), gathered by system_read() into one snapshot.  The front ends
 * (cli/, ui/) read the system through this header alone (tests/build/
 * rooms.t): what they need is in struct sysinfo, and the headers below
 * give its types.  Every path resolves under --root; with a root other
 * than "/", CPU facts come from that root's /proc/cpuinfo only, and there
 * is no live kernel log (give --kernel-log).  What a reader could not see
 * is said in `notes`.
 */
#ifndef TSCTUI_SOURCE_SYSTEM_H
#define TSCTUI_SOURCE_SYSTEM_H

#include <stdbool.h>

#include "../../common/report.h"
#include "config.h"
#include "cpu.h"
#include "cpu_map.h"
#include "detect.h"
#include "fixers.h"
#include "efivar.h"
#include "history.h"
#include "kernel_cmdline.h"
#include "kernlog.h"
#include "loader.h"
#include "modules.h"
#include "power.h"
#include "powerlog.h"
#include "stage_report.h"
#include "stage_state.h"

#define SYS_MAX_NOTES 8

/* x86 offers tsc, hpet, acpi_pm (and kvm-clock, hyperv_clocksource_tsc_page
 * in guests): eight is room for all of them. */
#define CS_MAX 8

struct sys_clocksource {
	char current[32];
	char available[CS_MAX][32];
	int navailable;
};

struct sys_machine {
	char vendor[64], product[96], product_version[96];
	char bios_version[64], bios_date[32];
	long long bootloader_launch_ns; /* FPDT; -1 unknown */
};

struct sys_efi {
	int secure_boot;      /* 1, 0, or -1 unknown */
	char loader_info[96]; /* systemd-boot's LoaderInfo, or "" */
	int boot_current;     /* Boot#### number, or -1 */
	size_t nboot_order;
	uint16_t boot_order[32];
};

struct sys_stage {
	bool installed;
	/* tsctui.conf: 1 read, 0 absent (not installed), -1 unreadable or
	 * malformed (conf_why says so); conf is valid when 1. */
	int conf_read;
	char conf_why[STAGE_STATE_ERR_MAX];
	struct tsctui_conf conf;
	enum loader loader; /* conf.loader; LOADER_NONE when not installed */
	bool has_state;	    /* mode and guard were read (stage_state.h) */
	struct stage_state state;	     /* all of it, when has_state */
	char state_why[STAGE_STATE_ERR_MAX]; /* installed, no state: why */
	enum tsc_mode mode; /* TSC_MODE_OFF too when mode_word names none */
	bool mode_known;
	char mode_word[16]; /* as the boot path keeps it: shown, not compared */
	enum guard_state guard;
	char since[32];
	bool probation; /* this boot measured only after an unconfirmed sync */
	int strikes;	/* of GUARD_MAX_STRIKES */
	enum hib_location hib; /* systemd's HibernateLocation (stage_state.h) */
	bool has_report;
	struct tsc_report *report; /* this boot's, or NULL */
};

/* The TSC's rate against the RTC, as ppm from the kernel's calibration:
 * what the watchdog advice goes by.  A live measurement, not a read:
 * whoever measured it (`status` when the watchdog dropped the TSC on the
 * running machine, the dashboard's engine) hands it to assess_make
 * (model/assess.h); left unmeasured, the advice asks for one.  The
 * snapshot's own rate_check stays unmeasured (tests state one there). */
struct tsc_rate_check {
	bool measured;
	double ppm;
	double mhz;	       /* the TSC's rate against the RTC */
	double seconds;	       /* RTC seconds it spanned */
	const char *source;    /* who measured: "status"; NULL if no one */
	const char *reference; /* "rtc" or "rtc_polled" */
	char why[160];	       /* tried, not measured: why */
};

/* Where the stage could go, for the dashboard's install (detect.h): the
 * loader found, the ESP, every vfat mount when the ESP is not at a usual
 * place, whether GRUB and EFI variables are there. */
#define SYS_VFAT_MAX 8
struct sys_boot {
	enum loader found; /* LOADER_NONE: found_why says what was seen */
	const char *found_why;
	bool has_esp;
	char esp[256];
	int nvfat;
	struct mount_info vfat[SYS_VFAT_MAX];
	bool grub;    /* a GRUB directory, so a grubenv to write */
	bool efivars; /* booted with UEFI */
};

struct sysinfo {
	struct sys_clocksource cs;
	struct sys_cpu cpu;
	/* Linux CPU numbers by APIC ID: how the stage's report (MP services
	 * order) meets the kernel's numbering. */
	struct cpu_map cpumap;
	struct sys_cmdline cmdline;
	struct sys_machine machine;
	/* uname -r of the kernel that wrote the live log (under the root's
	 * /proc); "" with --kernel-log or where there is none */
	char kernel_release[64];
	bool have_klog;
	bool klog_pending; /* the dashboard: still reading it */
	struct klog *klog;
	struct sys_stage stage;
	struct sys_modules modules;
	struct sys_efi efi;
	bool kvm_host; /* /dev/kvm present or kvm_amd/kvm_intel loaded */
	struct sys_fixers fixers; /* other TSC fixers installed */
	struct sys_power power;	  /* the live power source */
	/* This boot's changes of power source, read with the kernel log
	 * when the watchdog dropped the TSC (powerlog.h). */
	struct power_log powerlog;
	struct tsc_rate_check rate_check;
	/* The BIOS version of the most recent boot recorded in sync mode, ""
	 * when none: what the diagnosis compares this BIOS with. */
	char last_sync_bios[64];
	bool have_boot; /* SYS_BOOT was asked for */
	struct sys_boot boot;
	/* SYS_HISTORY: the newest HISTORY_MAX boots, oldest first. */
	int nhistory;
	int history_dropped; /* older boots past HISTORY_MAX, left out */
	/* "", or why the record is there and not read (too large, say) */
	char history_error[256];
	struct hist_row *history;
	int nnotes;
	char notes[SYS_MAX_NOTES][160];
};

/* The parts of the snapshot that cost more than a few small files, read
 * only when asked for.  Without SYS_KLOG, have_klog is false and klog
 * zeroed (the dashboard reads the log on a thread of its own,
 * klog_loader.c). */
enum sys_part {
	SYS_KLOG = 1 << 0,    /* the kernel log */
	SYS_HISTORY = 1 << 1, /* every recorded boot (and the journal's) */
	SYS_BOOT = 1 << 2,    /* the loader, ESP and mounts (sys_boot) */
};
/* This boot's changes of power source beside a kernel log (powerlog.h):
 * read when the log shows the watchdog dropping the TSC and is this
 * boot's (the machine's own, or another root's), up to the drop; else
 * none. */
void system_read_powerlog(const char *root, const char *kernel_log,
			  const struct klog *k, struct power_log *out);
int system_read_parts(const char *root, const char *kernel_log, unsigned parts,
		      struct sysinfo *s);
/* The snapshot with the kernel log (status, check, boot-ok). */
int system_read(const char *root, const char *kernel_log, struct sysinfo *s);
/* The one part of a snapshot that changes under a front end between two
 * samples, read again: the clocksource (the watchdog may switch it while
 * `check` runs). */
void system_reread_clocksource(const char *root, struct sysinfo *s);
/* The clocksource of the machine tsctui runs on, for the live engine's
 * reference (engine/reftick.c): the snapshot's, or NULL under another
 * root, whose clocksource says nothing of this machine (the rate would be
 * explained with the target's clock). */
const char *system_live_clocksource(const char *root, const struct sysinfo *s);
/* --kernel-log reads files under 64 MiB (a note says "File too large"
 * otherwise); /dev/kmsg is read up to 1 MiB (kernlog.c). */
#define KERNLOG_FILE_MAX (64u << 20)
/* The kernel log alone: --kernel-log FILE, else /dev/kmsg when root is
 * "/", parsed into k.  False with why (at most cap) when there is none. */
bool system_read_klog(const char *root, const char *file, struct klog *k,
		      char *why, size_t cap);
void system_free(struct sysinfo *s);
/* The guard's word for status and the dashboard, "" when the stage's state
 * was not read. */
const char *system_guard_word(const struct sys_stage *st);
/* This boot was a probation boot (the stage is set to sync, this boot's
 * report measured only): the sentence saying so and what would let the
 * loader tell another system's boot from a failed Linux one; NULL when
 * this boot was not one. */
const char *system_probation_note(const struct sys_stage *st);
/* The dashboard's line under the stage line, decided from what was read
 * (the view draws it, under --root too): a stale HibernateLocation first,
 * with the way to clear it (*bad: a fault), else the probation sentence;
 * NULL when there is nothing to say. */
const char *system_stage_note(const struct sys_stage *st, bool *bad);

/* The readers, one file each (clocksource.c, machine.c), for
 * system_read_parts and tests: cli/ and ui/ call none of them
 * (tests/build/rooms.t). */
/* First line of a small file under root, trailing blanks trimmed. */
bool system_read_line(const char *root, const char *sys, char *out, size_t cap);
void clocksource_read(const char *root, struct sys_clocksource *cs);
void machine_read(const char *root, struct sys_machine *m);

#endif

/* SPDX-License-Identifier: MIT */
/* The UEFI stage's parts, one file each. */
#ifndef TSCTUI_EFI_STAGE_H
#define TSCTUI_EFI_STAGE_H

#include <efi.h>
#include <efilib.h>

#include "../common/options.h"
#include "../common/platform.h"
#include "../common/report.h"

#define TSCTUI_STAGE_VERSION "0.1.0"

#ifdef TSCTUI_SIM
#define STAGE_SIM 1
#else
#define STAGE_SIM 0
#endif

#ifdef TSCTUI_DRIVER
#define STAGE_DRIVER 1
#else
#define STAGE_DRIVER 0
#endif

/* mp.c: the common/ platform over MP services. */
struct stage_mp;
struct tsc_madt;
/* Calibrates the TSC and fills pf; returns an error (and *why) when MP
 * services are unusable: EFI_NOT_FOUND when the firmware has none (then no
 * other processor can be measured).  rdtscp: order reads with RDTSCP. */
EFI_STATUS mp_init(struct tsc_platform *pf, const struct tsc_options *o,
		   BOOLEAN rdtscp, const char **why);
/* Waits until every run of ours has ended (its done flag set, plus a grace
 * for the epilogue) or MP services stopped it at its timeout (bounded by
 * that timeout); returns how many never did (the stage must not be
 * unloaded under a running AP). */
UINTN mp_unfinished(void);
/* Did MP services have to stop processor cpu's run at its timeout? */
BOOLEAN mp_was_stopped(UINTN cpu);
/* Did StartupThisAP turn out to block (no AP could be talked to)? */
BOOLEAN mp_blocking(void);

/* acpi.c: the firmware's ACPI MADT (common/madt.h), read once; the
 * platform's madt operation. */
void acpi_read_madt(void);
const struct tsc_madt *acpi_madt(void *ctx);

/* tsc.c: TSC rate against the firmware's Stall. */
UINT64 tsc_calibrate_hz(void);

/* esp.c: the ESP the image was loaded from, and the state files there. */
EFI_STATUS esp_open(EFI_HANDLE image, EFI_FILE_HANDLE *root);
/* Reads \EFI\tsctui\options into buf (NUL-terminated); EFI_NOT_FOUND when
 * absent, which is normal. */
EFI_STATUS esp_read_options(EFI_FILE_HANDLE root, char *buf, UINTN cap,
			    UINTN *len);
BOOLEAN esp_exists(EFI_FILE_HANDLE root, CHAR16 *name);
/* Creates a state file (empty, flushed); creates \EFI\tsctui if needed. */
EFI_STATUS esp_create(EFI_FILE_HANDLE root, CHAR16 *name);
EFI_STATUS esp_delete(EFI_FILE_HANDLE root, CHAR16 *name);
/* Deletes a state file if it exists; EFI_SUCCESS when it is gone. */
EFI_STATUS esp_remove(EFI_FILE_HANDLE root, CHAR16 *name);
/* Flushes every writable Block I/O; returns how many flushes failed. */
UINTN esp_flush_all_disks(void);
/* Whether a FlushBlocks after a create or delete failed (not fatal). */
BOOLEAN esp_flush_failed(void);
/* A hibernated system is being resumed: tsctui's sleep hook left
 * \EFI\tsctui\hibernated, or (unless marker_only: the GRUB path, whose
 * block can test only the marker) systemd's HibernateLocation variable
 * exists.  Only reads. */
BOOLEAN esp_hibernated(EFI_FILE_HANDLE root, BOOLEAN marker_only);
/* The strikes file holds a count above 0 (boot-ok's).  Only reads. */
BOOLEAN esp_has_strikes(EFI_FILE_HANDLE root);
/* The resume guard's non-volatile variable (TSC_RESUME_VAR_NAME): is it
 * there; set it (one write); delete it (one write). */
BOOLEAN esp_resume_armed(void);
EFI_STATUS esp_resume_arm(void);
EFI_STATUS esp_resume_clear(void);
/* systemd-boot with `default @saved` in loader.conf: LoaderEntryLastBooted
 * names an entry that is not Linux (one of its auto- entries, or a Type #1
 * entry with efi and no linux line).  FALSE where it cannot tell. */
BOOLEAN esp_last_boot_other_os(EFI_FILE_HANDLE root);

/* report.c: the volatile variable and the console copy. */
/* sim_varmax: sim.varmax=N, a smaller variable size limit (sim build). */
EFI_STATUS report_publish(const struct tsc_report *r, UINTN sim_varmax);

/* chain.c: the load option Boot#### after the stage's work, in two steps,
 * so that the hang guard's pending goes between them (common/handoff.h):
 * chain_load finds, connects and loads it (EFI_SUCCESS: loaded, its
 * load options set); chain_start starts what chain_load loaded. */
EFI_STATUS chain_load(EFI_HANDLE image, UINT16 option);
EFI_STATUS chain_start(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What the measurement and sync driver needs from the machine it runs on.
 * Three implementations: MP services in the UEFI stage (efi/mp.c), pinned
 * threads with virtual offsets in the host simulator and the live engine
 * (tui/engine/hostcpu.c), and scripted fakes in the unit tests.
 */
#ifndef TSCTUI_COMMON_PLATFORM_H
#define TSCTUI_COMMON_PLATFORM_H

#include "tsc.h"

struct tsc_madt;

struct tsc_platform {
	void *ctx;
	uint32_t ncpus; /* processors, the BSP included */
	uint32_t bsp;	/* processor number of the BSP */
	uint64_t tsc_hz;

	/* Ordered TSC read on the calling processor, which is `cpu`. */
	uint64_t (*read)(void *ctx, uint32_t cpu);
	/*
	 * TSC += delta on the calling processor (`cpu`), as
	 * wrmsr(0x10, rdtsc() + delta).  NULL on a read-only platform; the
	 * driver never calls it in measure mode either way.
	 */
	void (*write)(void *ctx, uint32_t cpu, int64_t delta);
	/* Starts fn(arg) on processor cpu without waiting; 0 on success. */
	int (*start)(void *ctx, uint32_t cpu, void (*fn)(void *), void *arg);
	/* The firmware's status of processor cpu's last start (an EFI_STATUS
	 * in the UEFI stage), 0 when there is nothing to say.  May be NULL. */
	uint64_t (*status)(void *ctx, uint32_t cpu);
	/* Is processor cpu enabled?  The firmware's disabled processors are
	 * skipped (Linux does not start them either).  NULL: all are. */
	bool (*enabled)(void *ctx, uint32_t cpu);
	/*
	 * Waits (bounded) until no AP run is outstanding, so that no firmware
	 * deadline (which may be kept on the TSC) spans the BSP's big move;
	 * false if one still is.  NULL where there is nothing to wait for.
	 */
	bool (*settle)(void *ctx);
	/*
	 * Called once on the BSP before the first write of a run, never in
	 * one that cannot write (measure mode, a sync stopped before its
	 * writes): whatever was written to disks before
	 * the run (the hang guard's markers, GRUB's save_env, which never
	 * flushes) is made durable, so a write that hangs the machine finds
	 * the guard armed on the disk.  A failure is the platform's to say;
	 * the run goes on.  NULL where there is nothing to flush.
	 */
	void (*flush)(void *ctx);
	/* Waits at most timeout_us for fn to return; 0 once it has. */
	int (*join)(void *ctx, uint32_t cpu, uint64_t timeout_us);
	/* APIC id of processor cpu (for the report). */
	uint32_t (*apic_id)(void *ctx, uint32_t cpu);
	/*
	 * Is the calling processor processor `cpu`?  Asked by a responder
	 * before it serves and before every write (the UEFI stage compares
	 * CPUID's APIC ID with MP services'; the host simulator its thread's
	 * identity).  NULL where it cannot be told (the unit tests' fakes).
	 */
	bool (*on_cpu)(void *ctx, uint32_t cpu);
	/*
	 * Enter (on) or leave a timing-critical stretch on the BSP: the UEFI
	 * stage raises to TPL_HIGH_LEVEL so no timer interrupt lands between
	 * t0 and t2.  Never on while join() waits (MP services notice an AP's
	 * completion from a timer).  NULL where there is nothing to do.
	 */
	void (*quiet)(void *ctx, bool on);
	/*
	 * The package (socket) processor cpu sits in, for the kernel's own
	 * test durations: 2 ms for a CPU that shares its package with
	 * another, 20 ms for one alone in it.  NULL: one package.
	 */
	uint32_t (*package)(void *ctx, uint32_t cpu);
	/*
	 * The firmware's ACPI MADT, parsed (madt.h): the CPUs Linux will
	 * start.  NULL, or NULL returned, where there is none to read.
	 */
	const struct tsc_madt *(*madt)(void *ctx);
	/* Sim builds only: the exact residual against the BSP; NULL else. */
	bool (*true_offset)(void *ctx, uint32_t cpu, int64_t *out);
};

#endif

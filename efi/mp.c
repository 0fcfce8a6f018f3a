/* SPDX-License-Identifier: MIT */
/*
 * The common/ platform on MP services.  Each session starts the AP's
 * function with StartupThisAP in non-blocking mode (a WaitEvent), so the BSP
 * stays free to talk to it.  join() watches the stage's own done flag, not
 * the event: EDK2's MpInitLib notices a finished AP from a 100 ms timer
 * (AP_CHECK_INTERVAL), and waiting for that three times per AP would cost
 * seconds on a big machine.  Only a restart of the same AP must first see
 * its previous event signalled (MP services refuses a busy AP); the driver
 * visits every other AP in between, so that wait is usually over.  An idle
 * AP is back in the firmware's own wait loop, not spinning in ours (under
 * TCG, spinning vCPUs starve the two that are talking).  Events are closed
 * only after they signalled: MP services still owns an unfinished AP.
 *
 * Release build: reads are the real ordered TSC, writes are
 * wrmsr(IA32_TIME_STAMP_COUNTER, rdtsc() + delta).  Sim build: a virtual
 * per-CPU offset on top of the real TSC (under TCG every vCPU reads one
 * counter, so the offsets are the whole truth), and sim.dead APs are never
 * started.
 */
#include <stdatomic.h>

#include "../common/cpuid.h"
#include "mpservices.h"
#include "stage.h"

#define MSR_IA32_TSC 0x10

static EFI_GUID mp_guid = EFI_MP_SERVICES_PROTOCOL_GUID;

/* How long a restart waits for MP services to see the AP's previous run
 * finish: three of its 100 ms checks. */
#define RESTART_WAIT_US 300000

struct ap_slot {
	_Alignas(64) _Atomic uint32_t done;
	void (*fn)(void *);
	void *arg;
};

static struct stage_mp {
	EFI_MP_SERVICES_PROTOCOL *mp;
	UINTN ncpus;
	UINTN bsp;
	UINT32 apic[TSC_MAX_CPUS];
	EFI_EVENT done[TSC_MAX_CPUS];
	BOOLEAN running[TSC_MAX_CPUS]; /* started; its event not yet seen */
	BOOLEAN busy[TSC_MAX_CPUS];    /* started; its done flag not yet seen */
	struct ap_slot slot[TSC_MAX_CPUS];
	EFI_TPL saved_tpl;
	BOOLEAN raised;
	/* Sim build. */
	_Atomic int64_t virt[TSC_MAX_CPUS];
	BOOLEAN dead[TSC_MAX_CPUS];
	UINT32 jitter;
	struct tsc_rng rng;
} M;

static VOID EFIAPI ap_entry(VOID *arg)
{
	struct ap_slot *s = arg;

	s->fn(s->arg);
	atomic_store_explicit(&s->done, 1, memory_order_release);
}

/* Closes the event of a run MP services has seen finish. */
static BOOLEAN reap(UINTN cpu)
{
	if (!M.running[cpu])
		return TRUE;
	if (uefi_call_wrapper(BS->CheckEvent, 1, M.done[cpu]) != EFI_SUCCESS)
		return FALSE;
	uefi_call_wrapper(BS->CloseEvent, 1, M.done[cpu]);
	M.running[cpu] = FALSE;
	return TRUE;
}

static uint64_t mp_read(void *ctx, uint32_t cpu)
{
	(void)ctx;
	if (STAGE_SIM)
		return tsc_read_ordered() +
		       (uint64_t)atomic_load_explicit(&M.virt[cpu],
						      memory_order_relaxed);
	return tsc_read_ordered();
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ __volatile__("wrmsr" ::"c"(msr), "a"((uint32_t)v),
			     "d"((uint32_t)(v >> 32)));
}

static inline uint64_t rdtsc_now(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static void mp_write(void *ctx, uint32_t cpu, int64_t delta)
{
	(void)ctx;
	if (STAGE_SIM) {
		/* Writes come from one CPU at a time: the BSP, or the one AP
		 * it is talking to, so the generator needs no lock. */
		atomic_fetch_add(&M.virt[cpu],
				 delta + tsc_rng_symmetric(&M.rng, M.jitter));
		return;
	}
	/* Read and write back to back: the gap is the landing error the
	 * driver learns and compensates. */
	wrmsr(MSR_IA32_TSC, rdtsc_now() + (uint64_t)delta);
}

static int mp_start(void *ctx, uint32_t cpu, void (*fn)(void *), void *arg)
{
	struct ap_slot *s;
	UINT64 waited = 0;
	EFI_STATUS st;

	(void)ctx;
	if (cpu >= M.ncpus || cpu == M.bsp || !M.mp || M.busy[cpu])
		return -1;
	if (STAGE_SIM && M.dead[cpu])
		return 0; /* accepted, never answers: a hung AP */
	while (!reap(cpu)) {
		if (waited >= RESTART_WAIT_US)
			return -1;
		uefi_call_wrapper(BS->Stall, 1, 100);
		waited += 100;
	}
	st = uefi_call_wrapper(BS->CreateEvent, 5, 0, 0, NULL, NULL,
			       &M.done[cpu]);
	if (EFI_ERROR(st))
		return -1;
	s = &M.slot[cpu];
	s->fn = fn;
	s->arg = arg;
	atomic_store(&s->done, 0);
	st = uefi_call_wrapper(M.mp->StartupThisAP, 7, M.mp, ap_entry,
			       (UINTN)cpu, M.done[cpu], 0, s, NULL);
	if (EFI_ERROR(st)) {
		uefi_call_wrapper(BS->CloseEvent, 1, M.done[cpu]);
		return -1;
	}
	M.running[cpu] = TRUE;
	M.busy[cpu] = TRUE;
	return 0;
}

static int mp_join(void *ctx, uint32_t cpu, uint64_t timeout_us)
{
	uint64_t waited = 0;

	(void)ctx;
	if (cpu >= M.ncpus || !M.busy[cpu])
		return -1;
	for (;;) {
		if (atomic_load_explicit(&M.slot[cpu].done,
					 memory_order_acquire)) {
			M.busy[cpu] = FALSE;
			return 0;
		}
		if (waited >= timeout_us)
			return -1;
		uefi_call_wrapper(BS->Stall, 1, 10);
		waited += 10;
	}
}

static uint32_t mp_apic(void *ctx, uint32_t cpu)
{
	(void)ctx;
	return cpu < M.ncpus ? M.apic[cpu] : cpu;
}

static void mp_quiet(void *ctx, bool on)
{
	(void)ctx;
	if (on && !M.raised) {
		M.saved_tpl = uefi_call_wrapper(BS->RaiseTPL, 1, TPL_HIGH_LEVEL);
		M.raised = TRUE;
	} else if (!on && M.raised) {
		uefi_call_wrapper(BS->RestoreTPL, 1, M.saved_tpl);
		M.raised = FALSE;
	}
}

static bool mp_truth(void *ctx, uint32_t cpu, int64_t *out)
{
	(void)ctx;
	*out = atomic_load(&M.virt[cpu]) - atomic_load(&M.virt[M.bsp]);
	return true;
}

UINTN mp_unfinished(UINT64 wait_us)
{
	UINT64 waited = 0;
	UINTN i, n;

	for (;;) {
		n = 0;
		for (i = 0; i < M.ncpus; i++)
			if (!reap(i))
				n++;
		if (n == 0 || waited >= wait_us)
			return n;
		uefi_call_wrapper(BS->Stall, 1, 1000);
		waited += 1000;
	}
}

static void fill_platform(struct tsc_platform *pf)
{
	*pf = (struct tsc_platform){
		.ctx = &M,
		.ncpus = (uint32_t)M.ncpus,
		.bsp = (uint32_t)M.bsp,
		.read = mp_read,
		.write = mp_write,
		.start = mp_start,
		.join = mp_join,
		.apic_id = mp_apic,
		.quiet = mp_quiet,
		.true_offset = STAGE_SIM ? mp_truth : NULL,
	};
}

EFI_STATUS mp_init(struct tsc_platform *pf, const struct tsc_options *o,
		   const char **why)
{
	EFI_PROCESSOR_INFORMATION info;
	UINTN enabled, i;
	EFI_STATUS st;

	*why = NULL;
	M.ncpus = 1;
	M.bsp = 0;
	st = LibLocateProtocol(&mp_guid, (VOID **)&M.mp);
	if (EFI_ERROR(st)) {
		M.mp = NULL;
		*why = "the firmware offers no MP services protocol";
	} else {
		st = uefi_call_wrapper(M.mp->GetNumberOfProcessors, 3, M.mp,
				       &M.ncpus, &enabled);
		if (EFI_ERROR(st)) {
			*why = "MP services could not count the processors";
			return st;
		}
		st = uefi_call_wrapper(M.mp->WhoAmI, 2, M.mp, &M.bsp);
		if (EFI_ERROR(st)) {
			*why = "MP services could not name the boot processor";
			return st;
		}
	}
	if (M.ncpus > TSC_MAX_CPUS)
		M.ncpus = TSC_MAX_CPUS;
	for (i = 0; i < M.ncpus; i++) {
		M.apic[i] = (UINT32)i;
		if (M.mp && !EFI_ERROR(uefi_call_wrapper(M.mp->GetProcessorInfo,
							 3, M.mp, i, &info)))
			M.apic[i] = (UINT32)info.ProcessorId;
		if (STAGE_SIM) {
			atomic_store(&M.virt[i], o->sim_offset[i]);
			M.dead[i] = tsc_options_dead(o, (uint32_t)i);
		}
	}
	M.jitter = o->sim_jitter;
	tsc_rng_seed(&M.rng, tsc_read_ordered());
	fill_platform(pf);
	return EFI_SUCCESS;
}

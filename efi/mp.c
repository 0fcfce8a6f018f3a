/* SPDX-License-Identifier: MIT */
/*
 * The common/ platform on MP services.  Each session starts the AP's
 * function with StartupThisAP in non-blocking mode (a WaitEvent), so the BSP
 * stays free to talk to it.  A run has ended when the AP's own done flag
 * has been set for EPILOGUE_GRACE_US (the rest of ap_entry and the
 * firmware's return path), not when MP services signals the event: EDK2's
 * MpInitLib notices a finished AP from a 100 ms timer (AP_CHECK_INTERVAL),
 * and Intel's reference CpuInitDxe never signals it at all after a normal
 * return.  A restart of the same AP retries while MP services still calls
 * it busy (EFI_NOT_READY), up to RESTART_WAIT_US.  An idle AP is back in the
 * firmware's own wait loop, not spinning in ours (under TCG, spinning vCPUs
 * starve the two that are talking).  An event is closed only once it
 * signalled, or when StartupThisAP refused the run with a documented
 * refusal: the firmware may signal any other one later, and a closed event
 * there is a use-after-free in the DXE core's event lists (so an event
 * that never signals stays open: a few handles of pool per boot).
 *
 * MP services that run StartupThisAP blocking whatever the WaitEvent says
 * (the call returns with the work done, or only after BLOCKING_CALL_US)
 * leave the BSP no way to talk to the AP: the first such
 * start stops every further one (mp_blocking; the stage says why).
 *
 * Every run has a finite timeout (AP_RUN_TIMEOUT_US): an AP that never
 * comes back is stopped by MP services itself (EDK2 resets it and signals
 * the event), so the image is never unloaded under a running AP; such an
 * AP is reported `stopped`.  Every wait here has a deadline on the TSC,
 * not a sum of requested Stall times (a Stall may take longer than asked).
 *
 * Release build: reads are the real TSC, ordered with RDTSCP where the CPU
 * has it (every Zen does; LFENCE orders RDTSC on AMD only once MSR
 * C001_1029 bit 1 is set, which Linux sets and firmware may not), else
 * LFENCE; RDTSC; LFENCE.  Writes are wrmsr(IA32_TIME_STAMP_COUNTER,
 * rdtsc() + delta).  Sim build: a virtual per-CPU offset on top of the
 * real TSC (under TCG every vCPU reads one counter, so the offsets are the
 * whole truth); a write lands on the processor that executes it, found by
 * its APIC ID, as a WRMSR would; sim.dead APs are never started, sim.late
 * ones begin only once the next session has.
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
/*
 * How long MP services lets one run of ours last before it stops the AP.
 * A session lasts well under a second (each wait in it is bounded by the
 * driver's 100 ms answer timeout, and a responder leaves after 400 ms of
 * silence), so this only catches an AP that never came back.  Firmware may
 * time it with the TSC: the BSP's big forward move is made only when no AP
 * run is outstanding (mp_settle), so no such deadline spans it, and its
 * steering steps are below a millisecond.
 */
#define AP_RUN_TIMEOUT_US 10000000ull
/* A run whose done flag is set has ended once the AP is out of ap_entry
 * and back in the firmware's code. */
#define EPILOGUE_GRACE_US 1000
/*
 * A blocking StartupThisAP returns once the responder gave up waiting for
 * the BSP (400 ms of silence): a call that took BLOCKING_CALL_US waited for
 * the run.  One that returns with the run's done flag set after more than
 * BLOCKING_DONE_US did too.  A non-blocking call takes microseconds on
 * hardware, and up to 9 ms under TCG (measured in OVMF: the AP's vCPU
 * thread must be scheduled before the call returns), so the done flag alone
 * is not enough below that (a responder on the wrong processor leaves at
 * once, and may finish before a slow non-blocking call returns).
 */
#define BLOCKING_CALL_US 200000
#define BLOCKING_DONE_US 5000
/* sim.late: how long a late AP waits at most for the next session. */
#define SIM_LATE_MAX_US 2000000ull

struct ap_slot {
	_Alignas(64) _Atomic uint32_t done;
	void (*fn)(void *);
	void *arg;
	/* Sim build: begin only once a later start happened; never return. */
	BOOLEAN late;
	BOOLEAN overrun;
	uint32_t after;
};

static struct stage_mp {
	EFI_MP_SERVICES_PROTOCOL *mp;
	UINTN ncpus;  /* as MP services counts them */
	UINTN nslots; /* the ones we keep state for: at most TSC_MAX_CPUS */
	UINTN bsp;
	UINT64 tsc_hz;
	BOOLEAN rdtscp;
	UINT32 apic[TSC_MAX_CPUS];
	BOOLEAN enabled[TSC_MAX_CPUS];
	UINT32 package[TSC_MAX_CPUS];	 /* for the kernel's test durations */
	EFI_STATUS status[TSC_MAX_CPUS]; /* of its last start, or its info */
	EFI_EVENT done[TSC_MAX_CPUS];
	BOOLEAN running[TSC_MAX_CPUS]; /* its event open, not yet signalled */
	BOOLEAN live[TSC_MAX_CPUS];    /* started; not yet judged ended */
	BOOLEAN busy[TSC_MAX_CPUS];    /* started; its done flag not yet seen */
	BOOLEAN stopped[TSC_MAX_CPUS]; /* its event came, its done flag not */
	uint64_t done_seen[TSC_MAX_CPUS]; /* TSC when the flag was first seen */
	BOOLEAN blocking; /* StartupThisAP turned out to block */
	struct ap_slot slot[TSC_MAX_CPUS];
	EFI_TPL saved_tpl;
	BOOLEAN raised;
	/* Sim build. */
	_Atomic int64_t virt[TSC_MAX_CPUS];
	BOOLEAN dead[TSC_MAX_CPUS];
	uint8_t late_from[TSC_MAX_CPUS];
	BOOLEAN overrun[TSC_MAX_CPUS];
	uint32_t nstart[TSC_MAX_CPUS];
	_Atomic uint32_t starts;
	UINT32 jitter;
	UINT64 run_timeout_us; /* StartupThisAP's limit on one run */
	struct tsc_rng rng;
} M;

static inline uint64_t read_rdtscp(void)
{
	uint32_t lo, hi, aux;

	/* RDTSCP waits for every earlier instruction and load; the LFENCE
	 * keeps later ones (the mailbox poll) from starting before it. */
	__asm__ __volatile__("rdtscp\n\tlfence"
			     : "=a"(lo), "=d"(hi), "=c"(aux)
			     :
			     : "memory");
	(void)aux;
	return ((uint64_t)hi << 32) | lo;
}

static uint64_t now(void)
{
	return M.rdtscp ? read_rdtscp() : tsc_read_ordered();
}

/* us microseconds in TSC cycles (1 GHz until calibrated). */
static uint64_t cycles_us(uint64_t us)
{
	uint64_t hz = M.tsc_hz ? M.tsc_hz : 1000000000ull;

	return us * (hz / 1000000ull);
}

/* A deadline us microseconds from now, on this processor's TSC. */
static uint64_t deadline_us(uint64_t us)
{
	return now() + cycles_us(us);
}

static BOOLEAN passed(uint64_t deadline)
{
	return now() > deadline;
}

/* The index of the calling processor, by its APIC ID; bsp if unknown. */
static UINTN self_index(void)
{
	uint32_t bits, self = tsc_cpu_apic_self(&bits);
	UINTN i;

	for (i = 0; i < M.nslots; i++)
		if (tsc_apic_matches(self, bits, M.apic[i]))
			return i;
	return M.bsp;
}

static void sim_late_wait(const struct ap_slot *s)
{
	uint64_t end = deadline_us(SIM_LATE_MAX_US);

	while (atomic_load(&M.starts) <= s->after && !passed(end))
		tsc_cpu_relax();
}

static VOID EFIAPI ap_entry(VOID *arg)
{
	struct ap_slot *s = arg;

	if (STAGE_SIM && s->late)
		sim_late_wait(s);
	s->fn(s->arg);
	while (STAGE_SIM && s->overrun)
		tsc_cpu_relax(); /* until MP services stops this AP */
	atomic_store_explicit(&s->done, 1, memory_order_release);
}

/* A signalled event is closed; one that signalled without our procedure
 * returning means MP services stopped the run at its timeout. */
static void reap_event(UINTN cpu)
{
	if (!M.running[cpu] ||
	    uefi_call_wrapper(BS->CheckEvent, 1, M.done[cpu]) != EFI_SUCCESS)
		return;
	uefi_call_wrapper(BS->CloseEvent, 1, M.done[cpu]);
	M.running[cpu] = FALSE;
	if (M.live[cpu] &&
	    !atomic_load_explicit(&M.slot[cpu].done, memory_order_acquire)) {
		M.stopped[cpu] = TRUE;
		M.status[cpu] = EFI_TIMEOUT;
		M.live[cpu] = FALSE;
		M.busy[cpu] = FALSE;
	}
}

/* Has processor cpu's last run ended: stopped by MP services, or its done
 * flag set for the epilogue's grace? */
static BOOLEAN run_over(UINTN cpu)
{
	reap_event(cpu);
	if (!M.live[cpu])
		return TRUE;
	if (!atomic_load_explicit(&M.slot[cpu].done, memory_order_acquire))
		return FALSE;
	if (!M.done_seen[cpu])
		M.done_seen[cpu] = now() | 1;
	if (now() - M.done_seen[cpu] < cycles_us(EPILOGUE_GRACE_US))
		return FALSE;
	M.live[cpu] = FALSE;
	M.busy[cpu] = FALSE;
	return TRUE;
}

/* The PI specification's refusals of StartupThisAP: the firmware did not
 * take the run, nor the event.  After anything else (EFI_TIMEOUT, a status
 * it does not document) the event may still be signalled later. */
static BOOLEAN refusal(EFI_STATUS st)
{
	return st == EFI_UNSUPPORTED || st == EFI_NOT_READY ||
	       st == EFI_NOT_FOUND || st == EFI_INVALID_PARAMETER ||
	       st == EFI_DEVICE_ERROR;
}

static uint64_t mp_read(void *ctx, uint32_t cpu)
{
	(void)ctx;
	if (STAGE_SIM && cpu < TSC_MAX_CPUS)
		return now() + (uint64_t)atomic_load_explicit(
				       &M.virt[cpu], memory_order_relaxed);
	return now();
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
		/* On the processor that executes it, whatever cpu says.
		 * Writes come from one CPU at a time: the BSP, or the one AP
		 * it is talking to, so the generator needs no lock. */
		(void)cpu;
		atomic_fetch_add(&M.virt[self_index()],
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
	uint64_t end, t0;
	EFI_STATUS st;

	(void)ctx;
	if (cpu >= M.nslots || cpu == M.bsp || !M.mp)
		return -1;
	if (!M.enabled[cpu]) {
		M.status[cpu] = EFI_NOT_STARTED;
		return -1;
	}
	/* A run the driver stopped waiting for may have returned since. */
	if (M.busy[cpu] &&
	    atomic_load_explicit(&M.slot[cpu].done, memory_order_acquire))
		M.busy[cpu] = FALSE;
	if (M.busy[cpu]) {
		M.status[cpu] = EFI_NOT_READY;
		return -1;
	}
	if (M.blocking) {
		M.status[cpu] = EFI_UNSUPPORTED;
		return -1;
	}
	if (STAGE_SIM && M.dead[cpu])
		return 0; /* accepted, never answers: a hung AP */
	end = deadline_us(RESTART_WAIT_US);
	while (!run_over(cpu)) {
		if (passed(end)) {
			M.status[cpu] = EFI_NOT_READY;
			return -1;
		}
		uefi_call_wrapper(BS->Stall, 1, 100);
	}
	/* An event that has not signalled yet stays open, never reused. */
	M.running[cpu] = FALSE;
	st = uefi_call_wrapper(BS->CreateEvent, 5, 0, 0, NULL, NULL,
			       &M.done[cpu]);
	if (EFI_ERROR(st)) {
		M.status[cpu] = st;
		return -1;
	}
	s = &M.slot[cpu];
	s->fn = fn;
	s->arg = arg;
	atomic_store(&s->done, 0);
	M.done_seen[cpu] = 0;
	if (STAGE_SIM) {
		M.nstart[cpu]++;
		s->late = M.late_from[cpu] && M.nstart[cpu] >= M.late_from[cpu];
		s->after = atomic_fetch_add(&M.starts, 1) + 1;
		s->overrun = M.overrun[cpu] && M.nstart[cpu] == 1;
	}
	/* MP services calls the AP busy until it has noticed the last run
	 * end (EDK2: its 100 ms check): retried until the same deadline. */
	for (;;) {
		t0 = now();
		st = uefi_call_wrapper(M.mp->StartupThisAP, 7, M.mp, ap_entry,
				       (UINTN)cpu, M.done[cpu],
				       (UINTN)M.run_timeout_us, s, NULL);
		if (st != EFI_NOT_READY || passed(end))
			break;
		uefi_call_wrapper(BS->Stall, 1, 100);
	}
	M.status[cpu] = st;
	if (EFI_ERROR(st)) {
		if (refusal(st))
			uefi_call_wrapper(BS->CloseEvent, 1, M.done[cpu]);
		else
			M.running[cpu] = TRUE; /* may signal later */
		return -1;
	}
	M.running[cpu] = TRUE;
	M.live[cpu] = TRUE;
	M.busy[cpu] = TRUE;
	if (now() - t0 > cycles_us(BLOCKING_CALL_US) ||
	    (atomic_load_explicit(&s->done, memory_order_acquire) &&
	     now() - t0 > cycles_us(BLOCKING_DONE_US))) {
		/* The call waited for the run: no session is possible. */
		Print(L"tsctui: StartupThisAP for processor %d returned after "
		      L"%d us%s\r\n",
		      (int)cpu, (int)((now() - t0) / cycles_us(1)),
		      atomic_load(&s->done) ? L", its work done" : L"");
		M.blocking = TRUE;
		M.status[cpu] = EFI_UNSUPPORTED;
		return -1;
	}
	return 0;
}

static int mp_join(void *ctx, uint32_t cpu, uint64_t timeout_us)
{
	uint64_t end = deadline_us(timeout_us);

	(void)ctx;
	if (cpu >= M.nslots || !M.busy[cpu])
		return -1;
	for (;;) {
		if (atomic_load_explicit(&M.slot[cpu].done,
					 memory_order_acquire)) {
			M.busy[cpu] = FALSE;
			return 0;
		}
		if (passed(end))
			return -1;
		uefi_call_wrapper(BS->Stall, 1, 10);
	}
}

static uint64_t mp_status(void *ctx, uint32_t cpu)
{
	(void)ctx;
	if (cpu >= M.nslots || !EFI_ERROR(M.status[cpu]))
		return 0;
	return (uint64_t)M.status[cpu];
}

static bool mp_enabled(void *ctx, uint32_t cpu)
{
	(void)ctx;
	return cpu < M.nslots && M.enabled[cpu];
}

static bool mp_on_cpu(void *ctx, uint32_t cpu)
{
	uint32_t bits, self = tsc_cpu_apic_self(&bits);

	(void)ctx;
	return cpu < M.nslots && tsc_apic_matches(self, bits, M.apic[cpu]);
}

/* Waits until every run of ours has ended (run_over); bounded. */
static UINTN outstanding(uint64_t wait_us, UINTN stall_us)
{
	uint64_t end = deadline_us(wait_us);
	UINTN i, n;

	for (;;) {
		n = 0;
		for (i = 0; i < M.nslots; i++)
			if (!run_over(i))
				n++;
		if (n == 0 || passed(end))
			return n;
		uefi_call_wrapper(BS->Stall, 1, stall_us);
	}
}

static bool mp_settle(void *ctx)
{
	(void)ctx;
	return outstanding(RESTART_WAIT_US, 100) == 0;
}

/* GRUB never flushes after save_env, and the ESP's own flushes cover only
 * the ESP: the block's pending must be on the disk before the first MSR
 * write too.  A failed flush is said, not fatal. */
static void mp_flush(void *ctx)
{
	(void)ctx;
	if (esp_flush_all_disks())
		Print(L"tsctui: FlushBlocks failed on a disk\r\n");
}

static uint32_t mp_apic(void *ctx, uint32_t cpu)
{
	(void)ctx;
	return cpu < M.nslots ? M.apic[cpu] : cpu;
}

static uint32_t mp_package(void *ctx, uint32_t cpu)
{
	(void)ctx;
	return cpu < M.nslots ? M.package[cpu] : 0;
}

static void mp_quiet(void *ctx, bool on)
{
	(void)ctx;
	if (on && !M.raised) {
		M.saved_tpl =
			uefi_call_wrapper(BS->RaiseTPL, 1, TPL_HIGH_LEVEL);
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

UINTN mp_unfinished(void)
{
	/* The firmware stops a run at its timeout and then signals it; a
	 * second more for its next check. */
	return outstanding(AP_RUN_TIMEOUT_US + 1000000ull, 1000);
}

BOOLEAN mp_blocking(void)
{
	return M.blocking;
}

BOOLEAN mp_was_stopped(UINTN cpu)
{
	return cpu < M.nslots && M.stopped[cpu];
}

#ifdef TSC_TRACE
/* common/driver.c's development trace, on the console. */
extern void (*tsc_trace_hook)(const char *tag, int64_t a, int64_t b, int64_t c);
static void trace_print(const char *tag, int64_t a, int64_t b, int64_t c)
{
	Print(L"trace %a %ld %ld %ld\r\n", tag, a, b, c);
}
#endif

static void fill_platform(struct tsc_platform *pf)
{
#ifdef TSC_TRACE
	tsc_trace_hook = trace_print;
#endif
	*pf = (struct tsc_platform){
		.ctx = &M,
		.ncpus = (uint32_t)M.ncpus,
		.bsp = (uint32_t)M.bsp,
		.tsc_hz = M.tsc_hz,
		.read = mp_read,
		.write = mp_write,
		.start = mp_start,
		.status = mp_status,
		.enabled = mp_enabled,
		.settle = mp_settle,
		.flush = mp_flush,
		.join = mp_join,
		.apic_id = mp_apic,
		.on_cpu = mp_on_cpu,
		.quiet = mp_quiet,
		.package = mp_package,
		.madt = acpi_madt,
		.true_offset = STAGE_SIM ? mp_truth : NULL,
	};
}

EFI_STATUS mp_init(struct tsc_platform *pf, const struct tsc_options *o,
		   BOOLEAN rdtscp, const char **why)
{
	EFI_PROCESSOR_INFORMATION info;
	UINTN enabled, i;
	EFI_STATUS st;

	*why = NULL;
	M.rdtscp = rdtscp;
	M.ncpus = M.nslots = 1;
	M.bsp = 0;
	st = LibLocateProtocol(&mp_guid, (VOID **)&M.mp);
	if (EFI_ERROR(st)) {
		M.mp = NULL;
		*why = "the firmware offers no MP services protocol: no other "
		       "processor could be measured";
		return EFI_NOT_FOUND;
	}
	st = uefi_call_wrapper(M.mp->GetNumberOfProcessors, 3, M.mp, &M.ncpus,
			       &enabled);
	if (EFI_ERROR(st)) {
		*why = "MP services could not count the processors";
		return st;
	}
	st = uefi_call_wrapper(M.mp->WhoAmI, 2, M.mp, &M.bsp);
	if (EFI_ERROR(st)) {
		*why = "MP services could not name the boot processor";
		return st;
	}
	/* Above TSC_MAX_CPUS the driver measures what fits and writes
	 * nothing (driver.c); we keep state for those only. */
	M.nslots = M.ncpus < TSC_MAX_CPUS ? M.ncpus : TSC_MAX_CPUS;
	for (i = 0; i < M.nslots; i++) {
		M.apic[i] = (UINT32)i;
		M.enabled[i] = TRUE;
		M.status[i] = uefi_call_wrapper(M.mp->GetProcessorInfo, 3, M.mp,
						i, &info);
		if (!EFI_ERROR(M.status[i])) {
			M.apic[i] = (UINT32)info.ProcessorId;
			M.package[i] = info.Location.Package;
			M.enabled[i] =
				(info.StatusFlag & PROCESSOR_ENABLED_BIT) != 0;
		}
		if (STAGE_SIM) {
			atomic_store(&M.virt[i], o->sim_offset[i]);
			M.dead[i] = tsc_options_dead(o, (uint32_t)i);
			M.late_from[i] = o->sim_late[i];
			M.overrun[i] = tsc_options_overrun(o, (uint32_t)i);
		}
	}
	M.jitter = o->sim_jitter;
	/* sim.runtimeout: the overrun tests wait for this limit, not for
	 * the release's 10 s (the mechanism is the same). */
	M.run_timeout_us = STAGE_SIM && o->sim_run_timeout_ms
				   ? o->sim_run_timeout_ms * 1000ull
				   : AP_RUN_TIMEOUT_US;
	M.tsc_hz = tsc_calibrate_hz();
	tsc_rng_seed(&M.rng, now());
	acpi_read_madt();
	fill_platform(pf);
	return EFI_SUCCESS;
}

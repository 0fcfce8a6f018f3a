/* The driver against the host platform with its operations wrapped, for
 * what the CLI cannot show: measure mode never calls write, an AP the
 * platform cannot start blocks every write, sync mode does write. */
#include "cm.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/driver.h"
#include "../../common/madt.h"
#include "../../tui/engine/hostcpu.h"
#include <stdio.h>
#include <time.h>

static struct tsc_workspace ws;
static struct tsc_platform inner;
static int writes;
/* Per CPU: writes made to it, and the sum of their deltas. */
static int writes_to[TSC_MAX_CPUS];
static int64_t moved[TSC_MAX_CPUS];
static int refuse_cpu = -1;
static int foreign_cpu = -1;  /* its responder runs on another processor */
static int foreign_after = 0; /* ... from this many identity checks on */
static int identity_checks;

/* A responder that stalls after its session check: stall_cpu's
 * stall_check-th identity check (the first is before it serves, the next
 * before each write) waits until another CPU has carried out a write, as a
 * long SMI or a descheduled vCPU would, about 300 ms and more. */
static int stall_cpu = -1;
static int stall_check;
static _Atomic int stall_checks;
static _Atomic int stalled; /* 1 while the stalled write is pending */
static _Atomic int64_t stalled_delta;
static _Atomic int stalled_writes;

static uint32_t writes_by_others(struct hostcpu *h, uint32_t cpu)
{
	uint32_t c, n = 0;

	for (c = 0; c < h->ncpus; c++)
		if (c != cpu)
			n += atomic_load(&h->executed[c]);
	return n;
}

static void stall(struct hostcpu *h, uint32_t cpu)
{
	struct timespec ms = { 0, 1000000 };
	uint32_t before = writes_by_others(h, cpu);
	int i;

	for (i = 0; i < 2000 && writes_by_others(h, cpu) == before; i++)
		nanosleep(&ms, NULL);
	atomic_store(&stalled, 1);
}

static bool foreign_on_cpu(void *ctx, uint32_t cpu)
{
	if ((int)cpu == stall_cpu &&
	    atomic_fetch_add(&stall_checks, 1) + 1 == stall_check)
		stall(ctx, cpu);
	if ((int)cpu == foreign_cpu && identity_checks++ >= foreign_after)
		return false;
	return inner.on_cpu(ctx, cpu);
}

/* What MP services said when it refused to start refuse_cpu. */
#define FAKE_EFI_NOT_READY (0x8000000000000000ull | 6)

static uint64_t refusing_status(void *ctx, uint32_t cpu)
{
	(void)ctx;
	return (int)cpu == refuse_cpu ? FAKE_EFI_NOT_READY : 0;
}

static int64_t first_bsp_delta; /* the first write to CPU 0, 0: none */

static void counting_write(void *ctx, uint32_t cpu, int64_t delta)
{
	if (cpu == 0 && !writes_to[0])
		first_bsp_delta = delta;
	if ((int)cpu == stall_cpu && atomic_exchange(&stalled, 0)) {
		atomic_store(&stalled_delta, delta);
		atomic_fetch_add(&stalled_writes, 1);
	}
	writes++;
	if (cpu < TSC_MAX_CPUS) {
		writes_to[cpu]++;
		moved[cpu] += delta;
	}
	inner.write(ctx, cpu, delta);
}

/* The platform's flush: how many, and the writes made before the first. */
static int flushes, writes_at_flush = -1;

static void counting_flush(void *ctx)
{
	(void)ctx;
	if (!flushes++)
		writes_at_flush = writes;
}

static int refuse_from = 1;	 /* refuse_cpu's starts, from this one on */
static bool refuse_once_written; /* ... or each once a TSC was written */
static int starts_of_refused;
static int starts_of[TSC_MAX_CPUS]; /* every CPU's starts this run */

/* Counters that read lie_by off during their CPU's lie_start-th run only
 * (the first is the survey's), as a counter another agent moved and put
 * back would: an estimate of them then does not repeat. */
static _Atomic uint32_t lie_mask;
static int64_t lie_by;
static int lie_start = 1;

static uint64_t lying_read(void *ctx, uint32_t cpu)
{
	uint64_t v = inner.read(ctx, cpu);

	if (cpu < 32 && (atomic_load(&lie_mask) >> cpu & 1) &&
	    starts_of[cpu] == lie_start)
		v += (uint64_t)lie_by;
	return v;
}

/* The driver's trace (common/ is built with -DTSC_TRACE for this test):
 * "tune" is the AP pass's estimate it plans a write from. */
extern void (*tsc_trace_hook)(const char *tag, int64_t a, int64_t b, int64_t c);

/* The lie ends as the AP pass has its first estimate of the CPU. */
static void end_lie_at_tune(const char *tag, int64_t a, int64_t b, int64_t c)
{
	(void)b;
	(void)c;
	if (!strcmp(tag, "tune") && a >= 0 && a < 32)
		atomic_fetch_and(&lie_mask, ~(1u << a));
}

static uint32_t claimed_cpus; /* 0, or more processors than the host has */
static int disabled_cpu = -1;
static const struct tsc_madt *madt; /* the firmware's table, or none */

static const struct tsc_madt *fake_madt(void *ctx)
{
	(void)ctx;
	return madt;
}

static int refusing_start(void *ctx, uint32_t cpu, void (*fn)(void *),
			  void *arg)
{
	if ((int)cpu == refuse_cpu &&
	    (refuse_once_written ? writes > 0
				 : ++starts_of_refused >= refuse_from))
		return -1;
	if (cpu < TSC_MAX_CPUS)
		starts_of[cpu]++;
	return inner.start(ctx, cpu, fn, arg);
}

static bool some_disabled(void *ctx, uint32_t cpu)
{
	(void)ctx;
	return (int)cpu != disabled_cpu;
}

static struct tsc_report *run(enum tsc_mode mode, const char *spec,
			      uint32_t ncpus)
{
	struct tsc_options *o = calloc(1, sizeof(*o));
	struct tsc_report *r = calloc(1, sizeof(*r));
	struct hostcpu *h = calloc(1, sizeof(*h));
	struct tsc_run_params p;
	struct tsc_platform pf;
	const char *err;
	cpu_set_t all;

	tsc_options_init(o);
	tsc_options_parse(o, spec, strlen(spec), true);
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	assert_int_equal(hostcpu_init(h, ncpus, o, 1, &err), 0);
	/* The BSP on a core of its own, as the simulator runs it: unpinned,
	 * the scheduler may put this thread on the AP's core, and two
	 * spinning threads on one core hand the warp test's lock over only
	 * at scheduler ticks (the test then sees too few handoffs).  The
	 * next run needs every core back. */
	assert_int_equal(hostcpu_pin_bsp(h), 0);
	hostcpu_platform(h, &inner, true, true);
	pf = inner;
	pf.write = counting_write;
	pf.read = lying_read;
	pf.start = refusing_start;
	pf.status = refusing_status;
	pf.on_cpu = foreign_on_cpu;
	pf.enabled = some_disabled;
	pf.madt = fake_madt;
	pf.flush = counting_flush;
	flushes = 0;
	writes_at_flush = -1;
	if (claimed_cpus)
		pf.ncpus = claimed_cpus;
	identity_checks = 0;
	starts_of_refused = 0;
	memset(starts_of, 0, sizeof(starts_of));
	writes = 0;
	memset(writes_to, 0, sizeof(writes_to));
	memset(moved, 0, sizeof(moved));
	first_bsp_delta = 0;
	tsc_report_init(r, "test", TSC_BUILD_SIM);
	tsc_run_params_default(&p, mode);
	/* The default: a responder thread descheduled for a while (two
	 * cores, other work) must not be taken for a dead AP. */
	p.answer_timeout_us = 100000;
	tsc_run(&pf, &p, &ws, r);
	hostcpu_destroy(h);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
	free(h);
	free(o);
	return r;
}

static void measure_never_writes(void **s)
{
	struct tsc_report *r;
	uint32_t i;

	(void)s;
	refuse_cpu = -1;
	r = run(TSC_MODE_MEASURE, "sim.offset.0=-6815086010", 4);
	assert_int_equal(writes, 0);
	assert_int_equal(r->msr_writes, 0);
	assert_int_equal(r->bsp_shift, 0);
	/* Nothing to make durable ahead of a write: no flush either. */
	assert_int_equal(flushes, 0);
	assert_int_equal(r->result, TSC_RESULT_OUT_OF_SYNC);
	for (i = 0; i < r->nap; i++) {
		assert_int_equal(r->ap[i].verdict, TSC_VERDICT_BAD);
		assert_int_equal(r->ap[i].true_offset, 6815086010LL);
		/* The BSP is behind: it sees time go backwards. */
		assert_true(r->ap[i].warps_bsp > 0);
	}
	free(r);
}

static void unstartable_ap_blocks_writes(void **s)
{
	struct tsc_report *r;

	(void)s;
	refuse_cpu = 2;
	r = run(TSC_MODE_SYNC, "sim.offset.0=-6815086010", 4);
	assert_int_equal(writes, 0);
	assert_int_equal(r->msr_writes, 0);
	assert_int_equal(r->ap[1].index, 2);
	assert_int_equal(r->ap[1].verdict, TSC_VERDICT_UNMEASURED);
	assert_non_null(strstr(r->reason, "CPU 2 did not answer"));
	assert_non_null(strstr(r->reason, "no TSC was written"));
	/* Why, in the firmware's words. */
	assert_int_equal(r->ap[1].note, TSC_NOTE_START_FAILED);
	assert_true(r->ap[1].fw_status == FAKE_EFI_NOT_READY);
	assert_int_equal(r->ap[0].fw_status, 0);
	refuse_cpu = -1;
	free(r);
}

/*
 * A responder that finds itself on another processor than its ticket
 * names serves nothing: in the survey that AP is unmeasured and nothing
 * is written; later (its check before a write fails), the write is not
 * made and the AP is reported, while the others are still synced.
 */
static void responder_on_wrong_cpu_never_writes(void **s)
{
	struct tsc_report *r;

	(void)s;
	refuse_cpu = -1;
	foreign_cpu = 2;
	foreign_after = 0;
	r = run(TSC_MODE_SYNC, "sim.offset.0=-6815086010", 4);
	assert_int_equal(writes, 0);
	assert_int_equal(r->ap[1].note, TSC_NOTE_WRONG_CPU);
	assert_int_equal(r->ap[1].verdict, TSC_VERDICT_UNMEASURED);
	free(r);

	/* Serves the survey, then fails its check before its first write. */
	foreign_after = 1;
	r = run(TSC_MODE_SYNC, "sim.offset.2=-50000", 4);
	foreign_cpu = -1;
	assert_int_equal(r->ap[1].index, 2);
	assert_int_equal(r->ap[1].note, TSC_NOTE_WRONG_CPU);
	assert_int_equal(r->ap[1].writes, 0);
	/* Nothing reached its counter; the BSP may have been steered by a
	 * few cycles against the others (its offset is against the BSP). */
	assert_int_equal(writes_to[2], 0);
	assert_int_equal(r->ap[1].true_offset, -50000 - moved[0]);
	assert_true(r->result != TSC_RESULT_IN_SYNC);
	free(r);
}

static void sync_writes_and_converges(void **s)
{
	struct tsc_report *r;
	uint32_t i, ap_total;

	(void)s;
	refuse_cpu = -1;
	r = run(TSC_MODE_SYNC, "sim.offset.0=-6815086010", 4);
	assert_true(writes >= 1);
	assert_int_equal(r->msr_writes, (uint32_t)writes);
	/* The disks were flushed once, before the first write (the hang
	 * guard's markers on the disk when a write hangs the machine). */
	assert_int_equal(flushes, 1);
	assert_int_equal(writes_at_flush, 0);
	assert_true(r->bsp_shift > 6815000000LL);
	/* The APs agree: the BSP is steered, and an AP needs a write or
	 * none, now and then one more on this host's noise (seen: 3 on one
	 * AP, 1 run in about 36).  A verdict that never says ok steers every
	 * AP to its cap. */
	ap_total = 0;
	for (i = 0; i < r->nap; i++)
		ap_total += r->ap[i].writes;
	assert_true(ap_total < TSC_AP_WRITES_MAX * r->nap);
	for (i = 0; i < r->nap; i++) {
		int64_t lim =
			r->ap[i].rtt / 2 > 64 ? (int64_t)r->ap[i].rtt / 2 : 64;

		assert_true(tsc_abs64(r->ap[i].true_offset) <= lim);
	}
	free(r);
}

/*
 * No BSP fault, one AP 90 cycles ahead (below this host's one-way handoff,
 * about 150: no warp): its test calls it bad, nothing moved it, and sync
 * mode leaves it as it is (tsc_plan_unproven), saying so in its note and
 * the reason.  Held as a rule over runs (the host's own cores move the
 * reading by tens of cycles): every AP that is bad, unwarped and untouched
 * carries the note, none that carries it was written, and the case came
 * up at least once in twenty runs.  In measure mode, never the note.
 */
static void unproven_ap_said_not_written(void **s)
{
	struct tsc_report *r;
	uint32_t i, seen = 0, k;

	(void)s;
	refuse_cpu = -1;
	for (k = 0; k < 20 && !seen; k++) {
		r = run(TSC_MODE_SYNC, "sim.offset.2=90", 4);
		for (i = 0; i < r->nap; i++) {
			const struct tsc_report_cpu *c = &r->ap[i];
			bool quiet = c->warps_bsp + c->warps_ap == 0,
			     touched = r->bsp_shift != 0 || c->writes;

			if (c->note == TSC_NOTE_UNPROVEN) {
				seen++;
				assert_false(touched);
				assert_int_equal(c->verdict, TSC_VERDICT_BAD);
				assert_true(quiet);
			} else if (c->verdict == TSC_VERDICT_BAD && quiet &&
				   !touched) {
				assert_int_not_equal(c->note, TSC_NOTE_NONE);
			}
		}
		if (seen)
			assert_non_null(
				strstr(r->reason, "not written without proof"));
		free(r);
	}
	assert_true(seen > 0);
	r = run(TSC_MODE_MEASURE, "sim.offset.2=90", 4);
	for (i = 0; i < r->nap; i++)
		assert_int_not_equal(r->ap[i].note, TSC_NOTE_UNPROVEN);
	free(r);
}

/*
 * The kernel-style test on the host with a virtual offset: an AP ahead by
 * far more than a handoff is seen going backwards by the BSP only, and
 * the windows' offset lands on it; an AP at the BSP's time shows no warp
 * and an offset well inside its floor.
 */
static void kernel_style_test_sees_offsets(void **s)
{
	struct tsc_report *r;

	(void)s;
	refuse_cpu = -1;
	r = run(TSC_MODE_MEASURE, "sim.offset.1=200000 sim.offset.2=-200000",
		4);
	assert_true(r->ap[0].kernel_test && r->ap[1].kernel_test &&
		    r->ap[2].kernel_test);
	assert_true(r->ap[0].warps_bsp > 0 && r->ap[0].warps_ap == 0);
	assert_true(r->ap[1].warps_ap > 0 && r->ap[1].warps_bsp == 0);
	assert_true(tsc_abs64(r->ap[0].final_offset - 200000) <
		    (int64_t)r->ap[0].rtt);
	assert_true(tsc_abs64(r->ap[1].final_offset + 200000) <
		    (int64_t)r->ap[1].rtt);
	assert_true(r->ap[0].max_warp > 100000);
	assert_int_equal(r->ap[0].verdict, TSC_VERDICT_BAD);
	assert_int_equal(r->ap[2].warps_bsp + r->ap[2].warps_ap, 0);
	assert_true(r->ap[2].margin > 0);
	assert_true(r->ap[2].warp_rounds > 100);
	free(r);
}

/* More processors than the stage holds: what fits is measured, nothing is
 * written, the true count is reported, and the result is never in-sync. */
static void too_many_cpus_measure_only(void **s)
{
	struct tsc_report *r;

	(void)s;
	claimed_cpus = 300;
	r = run(TSC_MODE_SYNC, "sim.offset.0=-6815086010", 4);
	claimed_cpus = 0;
	assert_int_equal(writes, 0);
	assert_int_equal(r->ncpus, 300);
	assert_int_equal(r->nap, TSC_MAX_CPUS - 1);
	assert_true(r->result != TSC_RESULT_IN_SYNC);
	assert_non_null(strstr(r->reason, "300 processors"));
	assert_non_null(strstr(r->reason, "wrote nothing"));
	/* The ones that exist were measured. */
	assert_int_equal(r->ap[0].verdict, TSC_VERDICT_BAD);
	free(r);
}

/* A processor the firmware disabled is skipped, reported, and blocks
 * nothing: Linux will not start it either. */
static void disabled_cpu_is_skipped(void **s)
{
	struct tsc_report *r;

	(void)s;
	disabled_cpu = 2;
	r = run(TSC_MODE_SYNC, "sim.offset.0=-6815086010", 4);
	disabled_cpu = -1;
	assert_true(writes >= 1);
	assert_int_equal(r->ap[1].note, TSC_NOTE_DISABLED);
	assert_int_equal(r->ap[1].verdict, TSC_VERDICT_UNMEASURED);
	/* It blocked nothing: the BSP moved.  (The result is not asserted:
	 * this host's own cores can make the kernel-style test call a
	 * healthy pair bad.) */
	assert_true(r->bsp_shift > 6815000000LL);
	assert_non_null(strstr(r->reason, "disabled by the firmware"));
	assert_null(strstr(r->reason, "did not answer"));
	free(r);
	/* Nor is it a zero in the BSP's plan: with one AP 50,000 cycles
	 * ahead and the other disabled, the median of {50000, 0} was 0, so
	 * the BSP stayed and the AP was stepped back instead. */
	disabled_cpu = 2;
	r = run(TSC_MODE_SYNC, "sim.offset.0=-50000", 3);
	disabled_cpu = -1;
	assert_int_equal(r->ap[1].note, TSC_NOTE_DISABLED);
	assert_true(first_bsp_delta > 45000 && first_bsp_delta < 55000);
	free(r);
}

/*
 * After the BSP moved, an AP that cannot be started again is not "unsure":
 * its counter was never seen after a move of seconds.  Its offset is
 * reported as it stands after the move (survey minus the shift).
 */
static void silent_after_bsp_move_is_out_of_sync(void **s)
{
	struct tsc_report *r;

	(void)s;
	refuse_cpu = 2;
	refuse_once_written = true;
	r = run(TSC_MODE_SYNC, "sim.offset.0=-6815086010", 4);
	refuse_cpu = -1;
	refuse_once_written = false;
	assert_true(r->bsp_shift > 6815000000LL);
	assert_int_equal(r->ap[1].index, 2);
	assert_int_equal(r->ap[1].verdict, TSC_VERDICT_UNMEASURED);
	assert_int_equal(r->result, TSC_RESULT_OUT_OF_SYNC);
	assert_non_null(strstr(r->reason, "after the BSP moved"));
	assert_true(r->ap[1].final_offset ==
		    r->ap[1].survey_offset - r->bsp_shift);
	assert_true(tsc_abs64(r->ap[1].final_offset) < 100000);
	free(r);
}

/*
 * Only the AP it was meant for, every operand (issue 25): AP 1 stalls
 * after its session check, before carrying out its first write, long
 * enough that the BSP gives up on it and moves on to AP 2, whose delta is
 * larger.  Whatever it carries out when it wakes must be its own request
 * (about +6000), never AP 2's (about +9000): with one shared mailbox it
 * read AP 2's.
 */
static void stalled_ap_applies_nothing_of_another(void **s)
{
	struct tsc_report *r;

	(void)s;
	stall_cpu = 1;
	stall_check = 3; /* survey start, AP pass start, its write */
	atomic_store(&stall_checks, 0);
	atomic_store(&stalled, 0);
	atomic_store(&stalled_writes, 0);
	r = run(TSC_MODE_SYNC, "sim.offset.1=-6000 sim.offset.2=-9000", 3);
	stall_cpu = -1;
	/* It did stall, and the BSP went on to AP 2, which was written. */
	assert_true(atomic_load(&stall_checks) >= 2);
	assert_true(r->ap[1].writes >= 1);
	if (atomic_load(&stalled_writes)) {
		int64_t d = atomic_load(&stalled_delta);

		assert_true(d > 5000 && d < 7000);
	}
	free(r);
}

/*
 * The BSP moves only on estimates that repeat.  A healthy machine whose
 * survey saw one AP 5,000,000 cycles ahead (the furthest-ahead rule), or
 * two of three 1,500 ahead (the median rule), though the counters read
 * true again by the next measurement.  Before, the BSP was moved by the
 * lie (and every counter, or the BSP, written back).  Now the aimed AP is
 * measured once more: five million apart is beyond any two honest
 * estimates, so nothing is written and the reason says why; 1,500 can be
 * within those of a slow repeat (round trips of 2,600), and then the
 * smaller estimate stands.  This host's own cores read a few hundred
 * cycles apart under load (the estimates of a healthy AP reached +431
 * here), so the median case asserts what no honest estimate explains: a
 * first move of the BSP by the lie.
 */
static void bsp_moves_on_estimates_that_repeat(void **s)
{
	static const struct {
		uint32_t mask;
		int64_t by;
	} lies[] = { { 1u << 2, 5000000 }, { 1u << 2 | 1u << 3, 1500 } };
	struct tsc_report *r;
	uint32_t k, i;

	(void)s;
	for (k = 0; k < sizeof(lies) / sizeof(lies[0]); k++) {
		atomic_store(&lie_mask, lies[k].mask);
		lie_by = lies[k].by;
		r = run(TSC_MODE_SYNC, "", 4);
		atomic_store(&lie_mask, 0);
		assert_int_equal(r->ap[1].index, 2);
		assert_true(first_bsp_delta < lies[k].by / 2);
		if (k == 0) {
			/* The lie was seen, and the plan left it. */
			assert_true(r->ap[1].survey_offset > lies[k].by / 2);
			assert_int_equal(writes, 0);
			assert_int_equal(r->msr_writes, 0);
			assert_non_null(strstr(r->reason, "did not repeat"));
			assert_non_null(
				strstr(r->reason, "no TSC was written"));
		}
		for (i = 0; i < r->nap; i++)
			assert_int_not_equal(r->ap[i].verdict,
					     TSC_VERDICT_UNMEASURED);
		free(r);
	}
	/* The same machine without the lie: its estimates repeat. */
	r = run(TSC_MODE_SYNC, "", 4);
	assert_null(strstr(r->reason, "did not repeat"));
	free(r);
}

/* The MADT's enabled CPUs against the measured ones: one the survey did
 * not measure blocks every write and makes the result unsure at best. */
static void madt_cpu_not_measured_blocks_writes(void **s)
{
	static struct tsc_madt listed = { .n = 5, .id = { 0, 1, 2, 3, 7 } };
	struct tsc_report *r;

	(void)s;
	madt = &listed;
	r = run(TSC_MODE_SYNC, "sim.offset.0=-6815086010", 4);
	madt = NULL;
	assert_int_equal(writes, 0);
	assert_int_equal(r->msr_writes, 0);
	assert_int_equal(r->bsp_shift, 0);
	assert_true(r->result != TSC_RESULT_IN_SYNC);
	assert_non_null(strstr(r->reason, "MADT lists APIC ID 7"));
	assert_non_null(strstr(r->reason, "no TSC was written"));
	free(r);

	/* Every listed CPU measured: the BSP moves as usual. */
	listed.n = 4;
	madt = &listed;
	r = run(TSC_MODE_SYNC, "sim.offset.0=-6815086010", 4);
	madt = NULL;
	assert_true(r->bsp_shift > 6815000000LL);
	assert_null(strstr(r->reason, "MADT"));
	free(r);
}

/* A run that measured no AP proves nothing: unsure, never in-sync. */
static void no_ap_measured_is_unsure(void **s)
{
	struct tsc_report *r;

	(void)s;
	disabled_cpu = 1;
	r = run(TSC_MODE_MEASURE, "", 2);
	disabled_cpu = -1;
	assert_int_equal(r->result, TSC_RESULT_UNSURE);
	assert_non_null(strstr(r->reason, "no AP was measured"));
	free(r);
}

/*
 * Write caps, and noisy writes (sim.jitter: each write lands up to J
 * cycles off): at most 1 + TSC_BSP_STEER_MAX writes on the BSP and
 * TSC_AP_WRITES_MAX on each AP, whatever the noise.
 */
static void writes_are_capped(void **s)
{
	static const char *const specs[] = {
		"sim.offset.0=-6815086010 sim.offset.2=2600 sim.offset.3=-450",
		"sim.offset.0=-6815086010 sim.jitter=1000",
		"sim.offset.1=-30000 sim.offset.2=18000 sim.jitter=600",
	};
	struct tsc_report *r;
	uint32_t i, k, ap_total;

	(void)s;
	for (k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		r = run(TSC_MODE_SYNC, specs[k], 4);
		ap_total = 0;
		for (i = 0; i < r->nap; i++) {
			assert_true(r->ap[i].writes <= TSC_AP_WRITES_MAX);
			ap_total += r->ap[i].writes;
		}
		assert_true(r->msr_writes - ap_total <= 1 + TSC_BSP_STEER_MAX);
		free(r);
	}
}

/*
 * The AP pass's writes are judged by ping-pong estimates, which err by up
 * to a quarter of their round trip: none may teach the run a landing
 * error.  Writes land exactly here, so every AP ends where the host's own
 * cores put it.  Before: one AP-pass estimate taught a landing of 178
 * cycles, which the steering added to every AP's correction, and the
 * E595 pattern with APs beyond the AP pass's gate ended 73 to 83 off,
 * run after run.
 *
 * The simulator's truth is the virtual offset alone, and the host's own
 * cores read apart, by an amount that moves between runs a tenth of a
 * second apart (on this workplace's 2-CPU machines: 60 runs, a measure
 * run on each side of the sync run, differed by up to 109 cycles and by
 * 33 as a standard deviation; docs/DESIGN.md 11.2).  The run steers that
 * away as it must, so one run's truth cannot say where it should have
 * ended.  Each sync run is bracketed by two measure runs and its truth
 * taken against their mean host offset; the error taught is what is
 * common to five such runs, their median per AP (the same 60 runs:
 * medians of five at most 30 off, standard deviation 10; a taught
 * landing of 73 or more moves every one of them).
 */
#define LANDING_RUNS 5

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void ap_pass_teaches_no_landing(void **s)
{
	struct tsc_report *r, *before, *after;
	int64_t off[3][LANDING_RUNS];
	uint32_t i, k;

	(void)s;
	for (k = 0; k < LANDING_RUNS; k++) {
		before = run(TSC_MODE_MEASURE, "", 4);
		r = run(TSC_MODE_SYNC,
			"sim.offset.0=-6815086010 sim.offset.2=2600 "
			"sim.offset.3=-450",
			4);
		after = run(TSC_MODE_MEASURE, "", 4);
		assert_int_equal(r->nap, 3);
		assert_int_equal(before->nap, 3);
		assert_int_equal(after->nap, 3);
		for (i = 0; i < 3; i++)
			off[i][k] = r->ap[i].true_offset +
				    (before->ap[i].final_offset +
				     after->ap[i].final_offset) /
					    2;
		free(before);
		free(r);
		free(after);
	}
	for (i = 0; i < 3; i++) {
		qsort(off[i], LANDING_RUNS, sizeof(off[i][0]), cmp_i64);
		assert_true(tsc_abs64(off[i][LANDING_RUNS / 2]) <= 50);
	}
}

/*
 * After the last write anywhere, every AP's verdict comes from a test run
 * after it: writes to AP 3 come after AP 1's and AP 2's own tests, so
 * those two are tested again (issue 25).
 */
/*
 * The AP pass writes only on an estimate that repeats.  Every AP is 30,000
 * cycles behind (the BSP stays), and during the AP pass's session CPU 2
 * reads 5,000,000 further behind until its first estimate is taken.
 * Before, that estimate was written: CPU 2 moved 5,030,000 forward, and
 * ended 5,000,000 ahead, beyond what a backward step may take back.  Now
 * the second estimate does not repeat it, the AP pass writes nothing to
 * CPU 2, and the reason names it.
 */
static void ap_pass_writes_on_estimates_that_repeat(void **s)
{
	struct tsc_report *r;

	(void)s;
	lie_start = 2;
	lie_by = -5000000;
	atomic_store(&lie_mask, 1u << 2);
	tsc_trace_hook = end_lie_at_tune;
	r = run(TSC_MODE_SYNC,
		"sim.offset.1=-30000 sim.offset.2=-30000 sim.offset.3=-30000",
		4);
	tsc_trace_hook = NULL;
	atomic_store(&lie_mask, 0);
	lie_start = 1;
	assert_int_equal(r->bsp_shift, 0);
	assert_true(tsc_abs64(moved[2]) < 1000000);
	assert_non_null(strstr(r->reason, "CPU 2's estimate did not repeat"));
	/* The others were brought in as before. */
	assert_true(moved[1] > 25000 && moved[3] > 25000);
	free(r);
}

static void every_verdict_after_the_last_write(void **s)
{
	struct tsc_report *r;
	uint32_t i;

	(void)s;
	r = run(TSC_MODE_SYNC,
		"sim.offset.1=-30000 sim.offset.2=40 sim.offset.3=-20000", 4);
	assert_true(r->msr_writes >= 2);
	for (i = 0; i < r->nap; i++)
		if (r->ap[i].verdict != TSC_VERDICT_UNMEASURED)
			assert_int_equal(ws.tested_at[r->ap[i].index],
					 r->msr_writes);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(kernel_style_test_sees_offsets),
		cmocka_unit_test(measure_never_writes),
		cmocka_unit_test(unstartable_ap_blocks_writes),
		cmocka_unit_test(sync_writes_and_converges),
		cmocka_unit_test(unproven_ap_said_not_written),
		cmocka_unit_test(responder_on_wrong_cpu_never_writes),
		cmocka_unit_test(too_many_cpus_measure_only),
		cmocka_unit_test(disabled_cpu_is_skipped),
		cmocka_unit_test(silent_after_bsp_move_is_out_of_sync),
		cmocka_unit_test(stalled_ap_applies_nothing_of_another),
		cmocka_unit_test(bsp_moves_on_estimates_that_repeat),
		cmocka_unit_test(madt_cpu_not_measured_blocks_writes),
		cmocka_unit_test(no_ap_measured_is_unsure),
		cmocka_unit_test(writes_are_capped),
		cmocka_unit_test(ap_pass_writes_on_estimates_that_repeat),
		cmocka_unit_test(every_verdict_after_the_last_write),
		cmocka_unit_test(ap_pass_teaches_no_landing),
	};
	return cmocka_run_group_tests_name("driver", tests, NULL, NULL);
}

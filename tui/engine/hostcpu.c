/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "hostcpu.h"

/* The virtual CPU the calling thread is: set for each started thread and
 * for the BSP's (hostcpu_pin_bsp); -1 elsewhere.  Reads and writes act on
 * it, as RDTSC and WRMSR act on the processor that executes them. */
static _Thread_local int self_cpu = -1;

/* A late responder waits at most this long for the next session. */
#define HOSTCPU_LATE_MAX_MS 2000

static uint32_t executing(uint32_t cpu)
{
	return self_cpu >= 0 ? (uint32_t)self_cpu : cpu;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t hostcpu_calibrate_hz(void)
{
	uint64_t n0 = now_ns(CLOCK_MONOTONIC_RAW), t0 = tsc_read_ordered();
	uint64_t n1, t1;
	struct timespec nap = { 0, 20 * 1000 * 1000 };

	nanosleep(&nap, NULL);
	n1 = now_ns(CLOCK_MONOTONIC_RAW);
	t1 = tsc_read_ordered();
	if (n1 <= n0)
		return 0;
	return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(n1 - n0));
}

int hostcpu_init(struct hostcpu *h, uint32_t ncpus,
		 const struct tsc_options *opts, uint64_t seed,
		 const char **err)
{
	cpu_set_t set;
	int cores[CPU_SETSIZE], ncores = 0, i;
	uint32_t c;

	memset(h, 0, sizeof(*h));
	if (ncpus == 0 || ncpus > TSC_MAX_CPUS) {
		*err = "the number of CPUs must be 1 to 256";
		return -1;
	}
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		*err = "cannot read this process's CPU affinity";
		return -1;
	}
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cores[ncores++] = i;
	if (ncores < 2) {
		*err = "needs at least two CPUs to run on";
		return -1;
	}
	h->ncpus = ncpus;
	/* The BSP keeps the first core to itself; the APs share the rest,
	 * which works because the driver talks to one AP at a time. */
	for (c = 0; c < ncpus; c++)
		h->phys[c] =
			c == 0 ? cores[0]
			       : cores[1 + (c - 1) % (uint32_t)(ncores - 1)];
	if (opts) {
		for (c = 0; c < ncpus; c++) {
			atomic_store(&h->virt[c], opts->sim_offset[c]);
			h->dead[c] = tsc_options_dead(opts, c);
			h->late_from[c] = opts->sim_late[c];
		}
		h->jitter = opts->sim_jitter;
	}
	tsc_rng_seed(&h->rng, seed);
	pthread_mutex_init(&h->rng_lock, NULL);
	h->tsc_hz = hostcpu_calibrate_hz();
	return 0;
}

static uint64_t host_read(void *ctx, uint32_t cpu)
{
	struct hostcpu *h = ctx;

	return tsc_read_ordered() +
	       (uint64_t)atomic_load_explicit(&h->virt[executing(cpu)],
					      memory_order_relaxed);
}

static void host_write(void *ctx, uint32_t cpu, int64_t delta)
{
	struct hostcpu *h = ctx;
	int64_t err;

	pthread_mutex_lock(&h->rng_lock);
	err = tsc_rng_symmetric(&h->rng, h->jitter);
	pthread_mutex_unlock(&h->rng_lock);
	cpu = executing(cpu);
	atomic_fetch_add(&h->virt[cpu], delta + err);
	atomic_fetch_add(&h->executed[cpu], 1);
	atomic_fetch_add(&h->writes, 1);
}

static bool host_on_cpu(void *ctx, uint32_t cpu)
{
	(void)ctx;
	return self_cpu == (int)cpu;
}

static void *thread_main(void *arg)
{
	struct hostcpu_start *s = arg;
	struct timespec tick = { 0, 20 * 1000 };
	uint32_t waited;

	self_cpu = (int)s->cpu;
	/* A late start: the moment the driver, having given up on it, starts
	 * the next AP (a later start), when that session's requests begin. */
	for (waited = 0; s->late && waited < HOSTCPU_LATE_MAX_MS * 50;
	     waited++) {
		if (atomic_load(&s->h->starts_total) > s->after)
			break;
		nanosleep(&tick, NULL);
	}
	s->fn(s->arg);
	return NULL;
}

static int pin_attr(pthread_attr_t *attr, int core)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(core, &set);
	return pthread_attr_setaffinity_np(attr, sizeof(set), &set);
}

static int host_start(void *ctx, uint32_t cpu, void (*fn)(void *), void *arg)
{
	struct hostcpu *h = ctx;
	pthread_attr_t attr;
	int rc;

	if (cpu >= h->ncpus)
		return -1;
	/* A run the driver stopped waiting for may have ended since. */
	if (h->running[cpu] && pthread_tryjoin_np(h->thread[cpu], NULL) == 0)
		h->running[cpu] = false;
	if (h->running[cpu])
		return -1;
	h->nstart[cpu]++;
	if (h->dead[cpu])
		return 0; /* accepted, never answers: a hung AP */
	h->starts[cpu] = (struct hostcpu_start){
		.h = h,
		.cpu = cpu,
		.fn = fn,
		.arg = arg,
		.late = h->late_from[cpu] &&
			h->nstart[cpu] >= h->late_from[cpu],
		.after = atomic_fetch_add(&h->starts_total, 1) + 1,
	};
	pthread_attr_init(&attr);
	rc = pin_attr(&attr, h->phys[cpu]);
	if (rc == 0)
		rc = pthread_create(&h->thread[cpu], &attr, thread_main,
				    &h->starts[cpu]);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return -1;
	h->running[cpu] = true;
	return 0;
}

static int host_join(void *ctx, uint32_t cpu, uint64_t timeout_us)
{
	struct hostcpu *h = ctx;
	struct timespec ts;
	uint64_t ns;

	if (cpu >= h->ncpus || !h->running[cpu])
		return -1;
	clock_gettime(CLOCK_REALTIME, &ts);
	ns = (uint64_t)ts.tv_nsec + timeout_us * 1000;
	ts.tv_sec += (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	if (pthread_timedjoin_np(h->thread[cpu], NULL, &ts) != 0)
		return -1;
	h->running[cpu] = false;
	return 0;
}

static uint32_t host_apic(void *ctx, uint32_t cpu)
{
	(void)ctx;
	return cpu;
}

static bool host_truth(void *ctx, uint32_t cpu, int64_t *out)
{
	struct hostcpu *h = ctx;

	*out = atomic_load(&h->virt[cpu]) - atomic_load(&h->virt[0]);
	return true;
}

void hostcpu_platform(struct hostcpu *h, struct tsc_platform *pf, bool writable,
		      bool ground_truth)
{
	*pf = (struct tsc_platform){
		.ctx = h,
		.ncpus = h->ncpus,
		.bsp = 0,
		.tsc_hz = h->tsc_hz,
		.read = host_read,
		.write = writable ? host_write : NULL,
		.start = host_start,
		.join = host_join,
		.apic_id = host_apic,
		.on_cpu = host_on_cpu,
		.true_offset = ground_truth ? host_truth : NULL,
	};
}

int hostcpu_pin_bsp(struct hostcpu *h)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(h->phys[0], &set);
	self_cpu = 0;
	return sched_setaffinity(0, sizeof(set), &set);
}

void hostcpu_destroy(struct hostcpu *h)
{
	uint32_t c;

	/* A responder gives up after its idle timeout; wait for stragglers
	 * so none outlives the struct it points into. */
	for (c = 0; c < h->ncpus; c++)
		if (h->running[c])
			pthread_join(h->thread[c], NULL);
	pthread_mutex_destroy(&h->rng_lock);
}

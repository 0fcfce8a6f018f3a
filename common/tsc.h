/* SPDX-License-Identifier: MIT */
/*
 * Shared definitions of the freestanding core: the types every other
 * common/ header uses, and the two instructions the core needs.
 *
 * common/ is compiled twice, for the UEFI stage and for the Linux program,
 * so nothing here may call libc, allocate, or keep global state.
 */
#ifndef TSCTUI_COMMON_TSC_H
#define TSCTUI_COMMON_TSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Processors the report and the driver can describe; larger machines are
 * measured up to this many and the report says it was truncated. */
#define TSC_MAX_CPUS 256

enum tsc_mode { TSC_MODE_OFF, TSC_MODE_MEASURE, TSC_MODE_SYNC };

enum tsc_verdict {
	TSC_VERDICT_UNMEASURED,
	TSC_VERDICT_OK,
	TSC_VERDICT_UNSURE,
	TSC_VERDICT_BAD,
};

enum tsc_result {
	TSC_RESULT_IN_SYNC,
	TSC_RESULT_UNSURE,
	TSC_RESULT_OUT_OF_SYNC,
	TSC_RESULT_REFUSED,
	TSC_RESULT_SKIPPED,
	TSC_RESULT_GUARD_TRIPPED,
	TSC_RESULT_ERROR,
};

/*
 * The TSC read the kernel calls rdtsc_ordered(): LFENCE keeps RDTSC from
 * being executed before earlier loads complete, and the trailing LFENCE keeps
 * later loads (the mailbox poll) from overtaking it.  Unordered reads skew a
 * ping-pong estimate by +150..+220 cycles on the machines we measured.
 */
static inline uint64_t tsc_read_ordered(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence"
			     : "=a"(lo), "=d"(hi)
			     :
			     : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline void tsc_cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

/*
 * The arithmetic on counters.  A firmware may leave a TSC anywhere in 64
 * bits, so two counters can be further apart than an int64_t holds: these
 * give the nearest representable answer (saturating) where the exact one
 * does not fit, never a signed overflow.
 */
static inline int64_t tsc_abs64(int64_t v)
{
	return v == INT64_MIN ? INT64_MAX : v < 0 ? -v : v;
}

static inline int64_t tsc_sub_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* Division rounding to nearest, half away from zero; den > 0. */
static inline int64_t tsc_div_round(int64_t num, int64_t den)
{
	int64_t q = num / den, r = num % den;

	if (r > 0 && r >= den - r)
		q++;
	else if (r < 0 && -r >= den + r)
		q--;
	return q;
}

/* Rounds v to the nearest multiple of tick (tick >= 1); the multiple
 * nearer zero where the nearest does not fit. */
static inline int64_t tsc_quantise(int64_t v, uint64_t tick)
{
	int64_t q, r;

	if (tick <= 1)
		return v;
	if (tick > INT64_MAX)
		return 0;
	q = tsc_div_round(v, (int64_t)tick);
	if (__builtin_mul_overflow(q, (int64_t)tick, &r))
		r = (v / (int64_t)tick) * (int64_t)tick;
	return r;
}

const char *tsc_mode_name(enum tsc_mode m);
const char *tsc_verdict_name(enum tsc_verdict v);
const char *tsc_result_name(enum tsc_result r);
/* Reverse lookups (string_table.h): return false on an unknown name. */
bool tsc_mode_from(const char *s, size_t len, enum tsc_mode *out);
bool tsc_verdict_from(const char *s, size_t len, enum tsc_verdict *out);
bool tsc_result_from(const char *s, size_t len, enum tsc_result *out);

/* Small string helpers the freestanding code needs. */
size_t tsc_strlen(const char *s);
bool tsc_streq_n(const char *a, size_t alen, const char *b);
/* Copies at most cap-1 bytes and always terminates; returns bytes copied. */
size_t tsc_strlcpy(char *dst, const char *src, size_t srclen, size_t cap);

/* xorshift64*: the simulator's jitter source; deterministic per seed. */
struct tsc_rng {
	uint64_t s;
};
void tsc_rng_seed(struct tsc_rng *r, uint64_t seed);
uint64_t tsc_rng_next(struct tsc_rng *r);
/* Uniform in [-j, j]. */
int64_t tsc_rng_symmetric(struct tsc_rng *r, uint32_t j);

#endif

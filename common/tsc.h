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

static inline int64_t tsc_abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* Division rounding to nearest, half away from zero; den > 0. */
static inline int64_t tsc_div_round(int64_t num, int64_t den)
{
	if (num >= 0)
		return (num + den / 2) / den;
	return -((-num + den / 2) / den);
}

/* Rounds v to the nearest multiple of tick (tick >= 1). */
static inline int64_t tsc_quantise(int64_t v, uint64_t tick)
{
	if (tick <= 1)
		return v;
	return tsc_div_round(v, (int64_t)tick) * (int64_t)tick;
}

const char *tsc_mode_name(enum tsc_mode m);
const char *tsc_verdict_name(enum tsc_verdict v);
const char *tsc_result_name(enum tsc_result r);
/* The index of s in a table of n names (the one reverse lookup every name
 * table uses); false when it is not there. */
bool tsc_name_lookup(const char *const *names, size_t n, const char *s,
		     size_t len, unsigned *out);
/* Reverse lookups: return false on an unknown name. */
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

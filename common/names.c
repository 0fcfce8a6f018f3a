/* SPDX-License-Identifier: MIT */
/* Names of the enums as they appear in the report and the JSON, and the few
 * string helpers freestanding code needs. */
#include "string_table.h"
#include "tsc.h"

/* One table per enum, index = value (string_table.h writes both
 * directions). */
static const char *const mode_names[] = {
	[TSC_MODE_OFF] = "off",
	[TSC_MODE_MEASURE] = "measure",
	[TSC_MODE_SYNC] = "sync",
};
static const char *const verdict_names[] = {
	[TSC_VERDICT_UNMEASURED] = "unmeasured",
	[TSC_VERDICT_OK] = "ok",
	[TSC_VERDICT_UNSURE] = "unsure",
	[TSC_VERDICT_BAD] = "bad",
};
static const char *const result_names[] = {
	[TSC_RESULT_IN_SYNC] = "in-sync",
	[TSC_RESULT_UNSURE] = "unsure",
	[TSC_RESULT_OUT_OF_SYNC] = "out-of-sync",
	[TSC_RESULT_REFUSED] = "refused",
	[TSC_RESULT_SKIPPED] = "skipped",
	[TSC_RESULT_GUARD_TRIPPED] = "guard-tripped",
	[TSC_RESULT_ERROR] = "error",
};

size_t tsc_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

bool tsc_streq_n(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen; i++)
		if (b[i] != a[i])
			return false;
	return b[alen] == '\0';
}

size_t tsc_strlcpy(char *dst, const char *src, size_t srclen, size_t cap)
{
	size_t i;

	if (cap == 0)
		return 0;
	for (i = 0; i < srclen && i + 1 < cap && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
	return i;
}

STRING_TABLE_TO(tsc_mode_name, enum tsc_mode, mode_names, "?")
STRING_TABLE_TO(tsc_verdict_name, enum tsc_verdict, verdict_names, "?")
STRING_TABLE_TO(tsc_result_name, enum tsc_result, result_names, "?")
STRING_TABLE_FROM_N(tsc_mode_from, enum tsc_mode, mode_names, 0)
STRING_TABLE_FROM_N(tsc_verdict_from, enum tsc_verdict, verdict_names, 0)
STRING_TABLE_FROM_N(tsc_result_from, enum tsc_result, result_names, 0)

void tsc_rng_seed(struct tsc_rng *r, uint64_t seed)
{
	r->s = seed ? seed : 0x9e3779b97f4a7c15ull;
}

uint64_t tsc_rng_next(struct tsc_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

int64_t tsc_rng_symmetric(struct tsc_rng *r, uint32_t j)
{
	if (j == 0)
		return 0;
	return (int64_t)(tsc_rng_next(r) % (2ull * j + 1)) - (int64_t)j;
}

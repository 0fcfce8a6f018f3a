/* SPDX-License-Identifier: MIT */
/* Names of the enums as they appear in the report and the JSON, and the few
 * string helpers freestanding code needs. */
#include "tsc.h"

static const char *const mode_names[] = { "off", "measure", "sync" };
static const char *const verdict_names[] = { "unmeasured", "ok", "unsure",
					     "bad" };
static const char *const result_names[] = { "in-sync",	   "unsure",
					    "out-of-sync", "refused",
					    "skipped",	   "guard-tripped",
					    "error" };

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

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

bool tsc_name_lookup(const char *const *names, size_t n, const char *s,
		     size_t len, unsigned *out)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (tsc_streq_n(s, len, names[i])) {
			*out = i;
			return true;
		}
	}
	return false;
}

const char *tsc_mode_name(enum tsc_mode m)
{
	return (unsigned)m < COUNT(mode_names) ? mode_names[m] : "?";
}

const char *tsc_verdict_name(enum tsc_verdict v)
{
	return (unsigned)v < COUNT(verdict_names) ? verdict_names[v] : "?";
}

const char *tsc_result_name(enum tsc_result r)
{
	return (unsigned)r < COUNT(result_names) ? result_names[r] : "?";
}

bool tsc_mode_from(const char *s, size_t len, enum tsc_mode *out)
{
	unsigned i;

	if (!tsc_name_lookup(mode_names, COUNT(mode_names), s, len, &i))
		return false;
	*out = (enum tsc_mode)i;
	return true;
}

bool tsc_verdict_from(const char *s, size_t len, enum tsc_verdict *out)
{
	unsigned i;

	if (!tsc_name_lookup(verdict_names, COUNT(verdict_names), s, len, &i))
		return false;
	*out = (enum tsc_verdict)i;
	return true;
}

bool tsc_result_from(const char *s, size_t len, enum tsc_result *out)
{
	unsigned i;

	if (!tsc_name_lookup(result_names, COUNT(result_names), s, len, &i))
		return false;
	*out = (enum tsc_result)i;
	return true;
}

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

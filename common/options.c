/* SPDX-License-Identifier: MIT */
#include "options.h"
#include "fmt.h"

void tsc_options_init(struct tsc_options *o)
{
	size_t i;
	char *p = (char *)o;

	for (i = 0; i < sizeof(*o); i++)
		p[i] = 0;
	o->mode = TSC_MODE_MEASURE;
}

bool tsc_options_dead(const struct tsc_options *o, uint32_t cpu)
{
	return cpu < TSC_MAX_CPUS && (o->sim_dead[cpu / 8] >> (cpu % 8)) & 1;
}

bool tsc_options_overrun(const struct tsc_options *o, uint32_t cpu)
{
	return cpu < TSC_MAX_CPUS && (o->sim_overrun[cpu / 8] >> (cpu % 8)) & 1;
}

static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == ',' || c == '\n' || c == '\r';
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
	size_t i;

	for (i = 0; p[i]; i++)
		if (i >= n || s[i] != p[i])
			return false;
	return true;
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* The image's own path, which the UEFI Shell passes as the first token. */
static bool looks_like_image(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '=')
			return false;
	for (i = 0; i < n; i++)
		if (s[i] == '\\' || s[i] == '/' || s[i] == ':')
			return true;
	return n > 4 && s[n - 4] == '.' && lower(s[n - 3]) == 'e' &&
	       lower(s[n - 2]) == 'f' && lower(s[n - 1]) == 'i';
}

static bool hex16(const char *s, size_t n, uint16_t *out)
{
	uint64_t v;

	if (n != 4 || !tsc_parse_hex(s, n, &v))
		return false;
	*out = (uint16_t)v;
	return true;
}

/* sim.late=N (every start of AP N is late) or N@K (from its K-th start). */
static bool parse_late(struct tsc_options *o, const char *v, size_t n)
{
	uint64_t cpu, from = 1;
	size_t at;

	for (at = 0; at < n && v[at] != '@'; at++)
		;
	if (!tsc_parse_u64(v, at, &cpu) || cpu >= TSC_MAX_CPUS)
		return false;
	if (at < n && (!tsc_parse_u64(v + at + 1, n - at - 1, &from) ||
		       from < 1 || from > 255))
		return false;
	o->sim_late[cpu] = (uint8_t)from;
	return true;
}

/* sim.* tokens; false when the token is not a valid one. */
static bool parse_sim(struct tsc_options *o, const char *s, size_t n)
{
	const char *v;
	size_t i, k;
	uint64_t u;
	int64_t c;

	for (k = 0; k < n && s[k] != '='; k++)
		;
	if (k == n)
		return false;
	v = s + k + 1;
	n -= k + 1;
	if (k == 10 && has_prefix(s, k, "sim.jitter")) {
		if (!tsc_parse_u64(v, n, &u) || u > 1000000)
			return false;
		o->sim_jitter = (uint32_t)u;
	} else if (k == 10 && has_prefix(s, k, "sim.varmax")) {
		if (!tsc_parse_u64(v, n, &u) || u < 256 || u > 1u << 20)
			return false;
		o->sim_varmax = (uint32_t)u;
	} else if (k == 8 && has_prefix(s, k, "sim.dead")) {
		if (!tsc_parse_u64(v, n, &u) || u >= TSC_MAX_CPUS)
			return false;
		o->sim_dead[u / 8] |= (uint8_t)(1u << (u % 8));
	} else if (k == 11 && has_prefix(s, k, "sim.overrun")) {
		if (!tsc_parse_u64(v, n, &u) || u >= TSC_MAX_CPUS)
			return false;
		o->sim_overrun[u / 8] |= (uint8_t)(1u << (u % 8));
	} else if (k == 14 && has_prefix(s, k, "sim.runtimeout")) {
		if (!tsc_parse_u64(v, n, &u) || u < 100 || u > 60000)
			return false;
		o->sim_run_timeout_ms = (uint32_t)u;
	} else if (k == 8 && has_prefix(s, k, "sim.late")) {
		if (!parse_late(o, v, n))
			return false;
	} else if (k == 13 && has_prefix(s, k, "sim.cachewait")) {
		if (!tsc_parse_u64(v, n, &u) || u > 1)
			return false;
		o->sim_no_cache_wait = u == 0;
	} else if (k == 8 && has_prefix(s, k, "sim.hang")) {
		if (!tsc_parse_u64(v, n, &u) || u > 1)
			return false;
		o->sim_hang = u == 1;
	} else if (k > 11 && has_prefix(s, k, "sim.offset.")) {
		for (i = 11; i < k; i++)
			if (s[i] < '0' || s[i] > '9')
				return false;
		if (!tsc_parse_u64(s + 11, k - 11, &u) || u >= TSC_MAX_CPUS)
			return false;
		if (!tsc_parse_i64(v, n, &c))
			return false;
		o->sim_offset[u] = c;
	} else {
		return false;
	}
	o->sim_any = true;
	return true;
}

static bool parse_token(struct tsc_options *o, const char *s, size_t n,
			bool sim_build)
{
	if (has_prefix(s, n, "mode=")) {
		if (!tsc_mode_from(s + 5, n - 5, &o->mode))
			return false;
		o->mode_given = true;
		return true;
	}
	if (tsc_streq_n(s, n, "allow=any-cpu")) {
		o->allow_any_cpu = true;
		return true;
	}
	if (tsc_streq_n(s, n, "config=esp")) {
		o->config_esp = true;
		return true;
	}
	if (tsc_streq_n(s, n, "guard=grub")) {
		o->guard_grub = true;
		return true;
	}
	if (has_prefix(s, n, "next=Boot")) {
		if (!hex16(s + 9, n - 9, &o->next))
			return false;
		o->has_next = true;
		return true;
	}
	if (has_prefix(s, n, "sim.")) {
		if (!sim_build) {
			o->release_sim_seen = true;
			return false;
		}
		return parse_sim(o, s, n);
	}
	return false;
}

static void ignore(struct tsc_options *o, const char *s, size_t n)
{
	size_t have = tsc_strlen(o->ignored), i;

	o->nignored++;
	if (have + n + 2 > sizeof(o->ignored))
		return;
	if (have)
		o->ignored[have++] = ' ';
	for (i = 0; i < n; i++)
		o->ignored[have + i] =
			(s[i] > 0x20 && s[i] < 0x7f) ? s[i] : '?';
	o->ignored[have + n] = '\0';
}

void tsc_options_parse(struct tsc_options *o, const char *text, size_t len,
		       bool sim_build)
{
	size_t pos = 0, start;
	bool first = true;

	while (pos < len && text[pos]) {
		while (pos < len && text[pos] && is_sep(text[pos]))
			pos++;
		start = pos;
		while (pos < len && text[pos] && !is_sep(text[pos]))
			pos++;
		if (pos == start)
			break;
		if (first && looks_like_image(text + start, pos - start)) {
			first = false;
			continue;
		}
		first = false;
		if (parse_token(o, text + start, pos - start, sim_build))
			continue;
		ignore(o, text + start, pos - start);
	}
}

size_t tsc_options_from_load_options(const void *data, size_t size, char *out,
				     size_t cap)
{
	const unsigned char *b = data;
	size_t n = 0, i;
	bool utf16;

	if (cap == 0)
		return 0;
	/* UTF-16LE ASCII text has a zero high byte in every unit; plain
	 * ASCII has none in its first two bytes. */
	utf16 = size >= 2 && b[1] == 0 && b[0] != 0;
	if (utf16) {
		for (i = 0; i + 1 < size && n + 1 < cap; i += 2) {
			uint16_t u = (uint16_t)(b[i] | (b[i + 1] << 8));

			if (u == 0)
				break;
			out[n++] = (u >= 0x20 && u < 0x7f)
					   ? (char)u
					   : (u == '\t' ? ' ' : '?');
		}
	} else {
		for (i = 0; i < size && n + 1 < cap && b[i]; i++)
			out[n++] = (b[i] >= 0x20 && b[i] < 0x7f) ? (char)b[i]
								 : ' ';
	}
	out[n] = '\0';
	return n;
}

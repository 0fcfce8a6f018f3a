/* SPDX-License-Identifier: MIT */
#include "report.h"
#include "fmt.h"

static const char *const phase_names[] = { "survey", "bsp", "ap_pass",
					   "verify" };
static const char *const build_names[] = { "release", "sim" };
static const char *const config_names[] = { "load-options", "esp", "host" };
static const char *const note_names[] = {
	"none",	    "no-answer",    "beyond-cap", "not-converged", "warp-cut",
	"start-failed", "wrong-cpu", "stopped",	   "disabled",
};

/* EFI_STATUS errors by name (UEFI 2.10, Appendix D): the high bit and a
 * small number.  Others are written in hex. */
#define EFI_ERR_BIT (1ull << 63)
static const char *const efi_error_names[] = {
	[1] = "EFI_LOAD_ERROR",	      [2] = "EFI_INVALID_PARAMETER",
	[3] = "EFI_UNSUPPORTED",      [4] = "EFI_BAD_BUFFER_SIZE",
	[5] = "EFI_BUFFER_TOO_SMALL", [6] = "EFI_NOT_READY",
	[7] = "EFI_DEVICE_ERROR",     [8] = "EFI_WRITE_PROTECTED",
	[9] = "EFI_OUT_OF_RESOURCES", [14] = "EFI_NOT_FOUND",
	[15] = "EFI_ACCESS_DENIED",   [18] = "EFI_TIMEOUT",
	[19] = "EFI_NOT_STARTED",     [20] = "EFI_ALREADY_STARTED",
	[21] = "EFI_ABORTED",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define NAME(tab, i) ((unsigned)(i) < COUNT(tab) ? (tab)[i] : "?")

const char *tsc_phase_name(enum tsc_phase p)
{
	return NAME(phase_names, p);
}

const char *tsc_build_name(enum tsc_build b)
{
	return NAME(build_names, b);
}

const char *tsc_config_name(enum tsc_config c)
{
	return NAME(config_names, c);
}

const char *tsc_note_name(enum tsc_ap_note n)
{
	return NAME(note_names, n);
}

const char *tsc_efi_status_name(uint64_t st)
{
	uint64_t n = st & ~EFI_ERR_BIT;

	if (!(st & EFI_ERR_BIT) || n >= COUNT(efi_error_names))
		return 0;
	return efi_error_names[n];
}

static void put_efi_status(struct tsc_buf *b, uint64_t st)
{
	static const char digits[] = "0123456789abcdef";
	const char *name = tsc_efi_status_name(st);
	int shift;

	if (name) {
		tsc_buf_puts(b, name);
		return;
	}
	tsc_buf_puts(b, "0x");
	for (shift = 60; shift >= 0; shift -= 4)
		tsc_buf_putc(b, digits[(st >> shift) & 0xf]);
}

static bool efi_status_of(const char *s, size_t n, uint64_t *out)
{
	size_t i;

	for (i = 0; i < COUNT(efi_error_names); i++) {
		if (efi_error_names[i] && tsc_streq_n(s, n, efi_error_names[i])) {
			*out = EFI_ERR_BIT | i;
			return true;
		}
	}
	/* Written as 0x and 16 digits; zero is never written. */
	return n == 18 && s[0] == '0' && s[1] == 'x' &&
	       tsc_parse_hex(s + 2, 16, out) && *out != 0;
}

static bool lookup(const char *const *tab, size_t n, const char *s,
		   size_t len, unsigned *out)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (tsc_streq_n(s, len, tab[i])) {
			*out = i;
			return true;
		}
	}
	return false;
}

void tsc_report_init(struct tsc_report *r, const char *version,
		     enum tsc_build build)
{
	size_t i;
	char *p = (char *)r;

	for (i = 0; i < sizeof(*r); i++)
		p[i] = 0;
	r->format = TSC_REPORT_FORMAT;
	tsc_strlcpy(r->stage_version, version, tsc_strlen(version),
		    sizeof(r->stage_version));
	r->build = build;
	r->mode = TSC_MODE_MEASURE;
	r->result = TSC_RESULT_ERROR;
	r->tick = 1;
}

/* Reasons and tokens are one line of printable ASCII. */
static size_t copy_printable(char *dst, size_t cap, const char *src,
			     size_t len)
{
	size_t i, n = 0;

	if (cap == 0)
		return 0;
	for (i = 0; i < len && src[i] && n + 1 < cap; i++)
		dst[n++] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : ' ';
	dst[n] = '\0';
	return n;
}

void tsc_report_set_result(struct tsc_report *r, enum tsc_result res,
			   const char *reason)
{
	size_t n = 0;

	r->result = res;
	r->reason[0] = '\0';
	if (reason)
		n = copy_printable(r->reason, sizeof(r->reason), reason,
				   tsc_strlen(reason));
	/* The parser trims line ends; so does the writer's canonical form. */
	while (n && r->reason[n - 1] == ' ')
		r->reason[--n] = '\0';
}

void tsc_report_ignore(struct tsc_report *r, const char *tok, size_t len)
{
	size_t have = tsc_strlen(r->ignored), i;

	if (len == 0 || have + len + 2 > sizeof(r->ignored))
		return;
	if (have)
		r->ignored[have++] = ' ';
	for (i = 0; i < len; i++)
		r->ignored[have + i] = (tok[i] > 0x20 && tok[i] < 0x7f)
					       ? tok[i] : '?';
	r->ignored[have + len] = '\0';
}

static void kv_u(struct tsc_buf *b, const char *k, uint64_t v)
{
	tsc_buf_putc(b, ' ');
	tsc_buf_puts(b, k);
	tsc_buf_putc(b, '=');
	tsc_buf_u64(b, v);
}

static void kv_i(struct tsc_buf *b, const char *k, int64_t v)
{
	tsc_buf_putc(b, ' ');
	tsc_buf_puts(b, k);
	tsc_buf_putc(b, '=');
	tsc_buf_i64(b, v);
}

static void kv_s(struct tsc_buf *b, const char *k, const char *v)
{
	tsc_buf_putc(b, ' ');
	tsc_buf_puts(b, k);
	tsc_buf_putc(b, '=');
	tsc_buf_puts(b, v);
}

static void line_rest(struct tsc_buf *b, const char *rec, const char *text)
{
	tsc_buf_puts(b, rec);
	tsc_buf_putc(b, ' ');
	tsc_buf_puts(b, text[0] ? text : "-");
	tsc_buf_putc(b, '\n');
}

static void write_ap(struct tsc_buf *b, const struct tsc_report_cpu *c)
{
	tsc_buf_puts(b, "ap ");
	tsc_buf_u64(b, c->index);
	kv_u(b, "apic", c->apic_id);
	kv_i(b, "survey", c->survey_offset);
	kv_i(b, "final", c->final_offset);
	kv_u(b, "rtt", c->rtt);
	tsc_buf_puts(b, " warps=");
	tsc_buf_u64(b, c->warps_bsp);
	tsc_buf_putc(b, '/');
	tsc_buf_u64(b, c->warps_ap);
	kv_u(b, "maxwarp", c->max_warp);
	kv_s(b, "verdict", tsc_verdict_name(c->verdict));
	if (c->note != TSC_NOTE_NONE)
		kv_s(b, "note", tsc_note_name(c->note));
	kv_u(b, "n", c->exchanges);
	kv_u(b, "w", c->warp_rounds);
	if (c->kernel_test) {
		kv_i(b, "margin", c->margin);
		kv_u(b, "spread", c->spread);
	}
	kv_u(b, "writes", c->writes);
	if (c->fw_status) {
		tsc_buf_puts(b, " efi=");
		put_efi_status(b, c->fw_status);
	}
	if (c->has_true_offset)
		kv_i(b, "true", c->true_offset);
	tsc_buf_putc(b, '\n');
}

/* Everything before the ap records. */
static void write_head(struct tsc_buf *b, const struct tsc_report *r)
{
	uint32_t i;

	tsc_buf_puts(b, TSC_REPORT_MAGIC " ");
	tsc_buf_u64(b, TSC_REPORT_FORMAT);
	tsc_buf_puts(b, "\nstage");
	kv_s(b, "version", r->stage_version[0] ? r->stage_version : "-");
	kv_s(b, "build", tsc_build_name(r->build));
	kv_s(b, "mode", tsc_mode_name(r->mode));
	kv_s(b, "config", tsc_config_name(r->config));
	tsc_buf_puts(b, "\nresult ");
	tsc_buf_puts(b, tsc_result_name(r->result));
	tsc_buf_putc(b, '\n');
	line_rest(b, "reason", r->reason);
	tsc_buf_puts(b, "cpu");
	kv_s(b, "vendor", tsc_vendor_name(r->cpu.vendor));
	kv_u(b, "family", r->cpu.family);
	kv_u(b, "model", r->cpu.model);
	kv_u(b, "invariant_tsc", r->cpu.invariant_tsc);
	kv_u(b, "tsc_adjust", r->cpu.tsc_adjust);
	kv_u(b, "hypervisor", r->cpu.hypervisor);
	kv_u(b, "rdtscp", r->cpu.rdtscp);
	kv_u(b, "tick", r->tick);
	kv_u(b, "tsc_hz", r->tsc_hz);
	tsc_buf_puts(b, "\nbsp");
	kv_u(b, "index", r->bsp_index);
	kv_u(b, "apic", r->bsp_apic_id);
	kv_i(b, "shift", r->bsp_shift);
	kv_u(b, "writes", r->msr_writes);
	kv_u(b, "cpus", r->ncpus);
	tsc_buf_puts(b, "\nphase");
	for (i = 0; i < TSC_PHASES; i++) {
		tsc_buf_putc(b, ' ');
		tsc_buf_puts(b, phase_names[i]);
		tsc_buf_puts(b, "_us=");
		tsc_buf_u64(b, r->phase_us[i]);
	}
	kv_u(b, "total_us", r->total_us);
	tsc_buf_putc(b, '\n');
	line_rest(b, "next", r->next);
	line_rest(b, "ignored", r->ignored);
}

static void write_tail(struct tsc_buf *b, uint32_t omitted)
{
	if (omitted) {
		tsc_buf_puts(b, "omitted ");
		tsc_buf_u64(b, omitted);
		tsc_buf_putc(b, '\n');
	}
	tsc_buf_puts(b, "end\n");
}

size_t tsc_report_write(const struct tsc_report *r, char *buf, size_t cap)
{
	struct tsc_buf b;
	uint32_t i;

	tsc_buf_init(&b, buf, cap);
	write_head(&b, r);
	for (i = 0; i < r->nap && i < TSC_MAX_CPUS; i++)
		write_ap(&b, &r->ap[i]);
	write_tail(&b, r->omitted);
	return b.overflow ? 0 : b.len;
}

/* Worst first: what a reader most needs when not every AP fits. */
static int keep_rank(enum tsc_verdict v)
{
	switch (v) {
	case TSC_VERDICT_BAD:
		return 0;
	case TSC_VERDICT_UNMEASURED:
		return 1;
	case TSC_VERDICT_UNSURE:
		return 2;
	default:
		return 3;
	}
}

size_t tsc_report_write_fit(const struct tsc_report *r, char *buf,
			    size_t cap, uint32_t *omitted)
{
	/* Room kept for "omitted 4294967295\nend\n" and the NUL. */
	const size_t tail = 24;
	bool keep[TSC_MAX_CPUS];
	struct tsc_buf b;
	char line[256];
	size_t left, n;
	uint32_t i, nap = r->nap < TSC_MAX_CPUS ? r->nap : TSC_MAX_CPUS,
		    out = r->omitted;
	int rank;

	n = tsc_report_write(r, buf, cap);
	*omitted = r->omitted;
	if (n)
		return n;
	tsc_buf_init(&b, buf, cap);
	write_head(&b, r);
	if (b.overflow || b.len + tail > cap)
		return 0;
	left = cap - b.len - tail;
	for (i = 0; i < nap; i++)
		keep[i] = false;
	for (rank = 0; rank < 4; rank++) {
		for (i = 0; i < nap; i++) {
			struct tsc_buf one;

			if (keep_rank(r->ap[i].verdict) != rank)
				continue;
			tsc_buf_init(&one, line, sizeof(line));
			write_ap(&one, &r->ap[i]);
			if (!one.overflow && one.len <= left) {
				keep[i] = true;
				left -= one.len;
			}
		}
	}
	for (i = 0; i < nap; i++) {
		if (keep[i])
			write_ap(&b, &r->ap[i]);
		else
			out++;
	}
	write_tail(&b, out);
	*omitted = out;
	return b.overflow ? 0 : b.len;
}

/* ---- parsing ---- */

struct tok {
	const char *s;
	size_t n;
};

struct cursor {
	const char *s;
	size_t n, pos;
};

static bool next_tok(struct cursor *c, struct tok *t)
{
	while (c->pos < c->n && c->s[c->pos] == ' ')
		c->pos++;
	if (c->pos >= c->n)
		return false;
	t->s = c->s + c->pos;
	while (c->pos < c->n && c->s[c->pos] != ' ')
		c->pos++;
	t->n = (size_t)(c->s + c->pos - t->s);
	return true;
}

/* Splits key=value; false when there is no '='. */
static bool split_kv(const struct tok *t, struct tok *k, struct tok *v)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->s[i] == '=') {
			*k = (struct tok){ t->s, i };
			*v = (struct tok){ t->s + i + 1, t->n - i - 1 };
			return true;
		}
	}
	return false;
}

static bool is(const struct tok *t, const char *s)
{
	return tsc_streq_n(t->s, t->n, s);
}

static bool u64_of(const struct tok *v, uint64_t *out)
{
	return tsc_parse_u64(v->s, v->n, out);
}

static bool u32_of(const struct tok *v, uint32_t *out)
{
	uint64_t x;

	if (!u64_of(v, &x) || x > UINT32_MAX)
		return false;
	*out = (uint32_t)x;
	return true;
}

static bool bool_of(const struct tok *v, bool *out)
{
	if (v->n != 1 || (v->s[0] != '0' && v->s[0] != '1'))
		return false;
	*out = v->s[0] == '1';
	return true;
}

enum { SEEN_STAGE = 1, SEEN_RESULT = 2, SEEN_CPU = 4, SEEN_BSP = 8 };

struct parser {
	struct tsc_report *r;
	const char *err;
	unsigned seen;
	bool have_ap[TSC_MAX_CPUS];
};

#define FAIL(p, msg) ((p)->err = (msg), false)

static bool parse_stage(struct parser *p, struct cursor *c)
{
	struct tok t, k, v;
	unsigned i;

	while (next_tok(c, &t)) {
		if (!split_kv(&t, &k, &v))
			return FAIL(p, "stage: expected key=value");
		if (is(&k, "version")) {
			if (!is(&v, "-"))
				tsc_strlcpy(p->r->stage_version, v.s, v.n,
					    sizeof(p->r->stage_version));
		} else if (is(&k, "build")) {
			if (!lookup(build_names, COUNT(build_names), v.s, v.n,
				    &i))
				return FAIL(p, "stage: unknown build");
			p->r->build = (enum tsc_build)i;
		} else if (is(&k, "mode")) {
			if (!tsc_mode_from(v.s, v.n, &p->r->mode))
				return FAIL(p, "stage: unknown mode");
		} else if (is(&k, "config")) {
			if (!lookup(config_names, COUNT(config_names), v.s,
				    v.n, &i))
				return FAIL(p, "stage: unknown config");
			p->r->config = (enum tsc_config)i;
		}
	}
	p->seen |= SEEN_STAGE;
	return true;
}

static bool parse_cpu(struct parser *p, struct cursor *c)
{
	struct tsc_report *r = p->r;
	struct tok t, k, v;
	bool ok = true;

	while (next_tok(c, &t)) {
		if (!split_kv(&t, &k, &v))
			return FAIL(p, "cpu: expected key=value");
		if (is(&k, "vendor"))
			ok = tsc_vendor_from(v.s, v.n, &r->cpu.vendor);
		else if (is(&k, "family"))
			ok = u32_of(&v, &r->cpu.family);
		else if (is(&k, "model"))
			ok = u32_of(&v, &r->cpu.model);
		else if (is(&k, "invariant_tsc"))
			ok = bool_of(&v, &r->cpu.invariant_tsc);
		else if (is(&k, "tsc_adjust"))
			ok = bool_of(&v, &r->cpu.tsc_adjust);
		else if (is(&k, "hypervisor"))
			ok = bool_of(&v, &r->cpu.hypervisor);
		else if (is(&k, "rdtscp"))
			ok = bool_of(&v, &r->cpu.rdtscp);
		else if (is(&k, "tick"))
			ok = u64_of(&v, &r->tick) && r->tick > 0;
		else if (is(&k, "tsc_hz"))
			ok = u64_of(&v, &r->tsc_hz);
		if (!ok)
			return FAIL(p, "cpu: bad value");
	}
	p->seen |= SEEN_CPU;
	return true;
}

static bool parse_bsp(struct parser *p, struct cursor *c)
{
	struct tsc_report *r = p->r;
	struct tok t, k, v;
	bool ok = true;

	while (next_tok(c, &t)) {
		if (!split_kv(&t, &k, &v))
			return FAIL(p, "bsp: expected key=value");
		if (is(&k, "index"))
			ok = u32_of(&v, &r->bsp_index);
		else if (is(&k, "apic"))
			ok = u32_of(&v, &r->bsp_apic_id);
		else if (is(&k, "shift"))
			ok = tsc_parse_i64(v.s, v.n, &r->bsp_shift);
		else if (is(&k, "writes"))
			ok = u32_of(&v, &r->msr_writes);
		else if (is(&k, "cpus"))
			ok = u32_of(&v, &r->ncpus);
		if (!ok)
			return FAIL(p, "bsp: bad value");
	}
	p->seen |= SEEN_BSP;
	return true;
}

static bool prefix_is(const struct tok *t, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t->s[i] != s[i])
			return false;
	return true;
}

static bool parse_phase(struct parser *p, struct cursor *c)
{
	struct tok t, k, v;
	unsigned i;

	while (next_tok(c, &t)) {
		if (!split_kv(&t, &k, &v))
			return FAIL(p, "phase: expected key=value");
		if (is(&k, "total_us")) {
			if (!u64_of(&v, &p->r->total_us))
				return FAIL(p, "phase: bad value");
			continue;
		}
		for (i = 0; i < TSC_PHASES; i++) {
			size_t n = tsc_strlen(phase_names[i]);

			if (k.n == n + 3 && k.s[n] == '_' &&
			    k.s[n + 1] == 'u' && k.s[n + 2] == 's' &&
			    prefix_is(&k, phase_names[i], n)) {
				if (!u64_of(&v, &p->r->phase_us[i]))
					return FAIL(p, "phase: bad value");
			}
		}
	}
	return true;
}

static bool parse_warps(const struct tok *v, struct tsc_report_cpu *ap)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (v->s[i] == '/') {
			struct tok a = { v->s, i }, b = { v->s + i + 1,
							  v->n - i - 1 };
			return u32_of(&a, &ap->warps_bsp) &&
			       u32_of(&b, &ap->warps_ap);
		}
	}
	return false;
}

static bool parse_ap(struct parser *p, struct cursor *c)
{
	struct tsc_report *r = p->r;
	struct tsc_report_cpu *ap;
	struct tok t, k, v;
	uint32_t index;
	unsigned i;
	bool ok = true;

	if (!next_tok(c, &t) || !u32_of(&t, &index))
		return FAIL(p, "ap: expected a processor number");
	if (index >= TSC_MAX_CPUS)
		return FAIL(p, "ap: processor number out of range");
	if (p->have_ap[index])
		return FAIL(p, "ap: processor listed twice");
	if (r->nap >= TSC_MAX_CPUS)
		return FAIL(p, "ap: too many processors");
	p->have_ap[index] = true;
	ap = &r->ap[r->nap];
	*ap = (struct tsc_report_cpu){ .index = index };
	while (next_tok(c, &t)) {
		if (!split_kv(&t, &k, &v))
			return FAIL(p, "ap: expected key=value");
		if (is(&k, "apic"))
			ok = u32_of(&v, &ap->apic_id);
		else if (is(&k, "survey"))
			ok = tsc_parse_i64(v.s, v.n, &ap->survey_offset);
		else if (is(&k, "final"))
			ok = tsc_parse_i64(v.s, v.n, &ap->final_offset);
		else if (is(&k, "rtt"))
			ok = u64_of(&v, &ap->rtt);
		else if (is(&k, "warps"))
			ok = parse_warps(&v, ap);
		else if (is(&k, "maxwarp"))
			ok = u64_of(&v, &ap->max_warp);
		else if (is(&k, "verdict"))
			ok = tsc_verdict_from(v.s, v.n, &ap->verdict);
		else if (is(&k, "note")) {
			ok = lookup(note_names, COUNT(note_names), v.s, v.n,
				    &i);
			if (ok)
				ap->note = (enum tsc_ap_note)i;
		} else if (is(&k, "n"))
			ok = u32_of(&v, &ap->exchanges);
		else if (is(&k, "w"))
			ok = u32_of(&v, &ap->warp_rounds);
		else if (is(&k, "margin")) {
			ok = tsc_parse_i64(v.s, v.n, &ap->margin);
			ap->kernel_test = ok;
		} else if (is(&k, "spread"))
			ok = u64_of(&v, &ap->spread);
		else if (is(&k, "writes"))
			ok = u32_of(&v, &ap->writes);
		else if (is(&k, "efi"))
			ok = efi_status_of(v.s, v.n, &ap->fw_status);
		else if (is(&k, "true")) {
			ok = tsc_parse_i64(v.s, v.n, &ap->true_offset);
			ap->has_true_offset = ok;
		}
		if (!ok)
			return FAIL(p, "ap: bad value");
	}
	/* The writer puts spread= only beside margin=. */
	if (ap->spread && !ap->kernel_test)
		return FAIL(p, "ap: spread without margin");
	r->nap++;
	return true;
}

/* The rest of the line after the record name, "-" meaning empty. */
static void rest_of_line(struct cursor *c, char *dst, size_t cap)
{
	struct tok t;
	size_t start;

	while (c->pos < c->n && c->s[c->pos] == ' ')
		c->pos++;
	start = c->pos;
	t = (struct tok){ c->s + start, c->n - start };
	while (t.n && t.s[t.n - 1] == ' ')
		t.n--;
	if (is(&t, "-"))
		t.n = 0;
	copy_printable(dst, cap, t.s, t.n);
}

static bool parse_line(struct parser *p, const char *s, size_t n, bool *end)
{
	struct cursor c = { s, n, 0 };
	struct tok rec;

	if (!next_tok(&c, &rec))
		return true; /* blank lines are harmless */
	if (is(&rec, "end")) {
		*end = true;
		return true;
	}
	if (is(&rec, "stage"))
		return parse_stage(p, &c);
	if (is(&rec, "result")) {
		struct tok v;

		if (!next_tok(&c, &v) || !tsc_result_from(v.s, v.n,
							  &p->r->result))
			return FAIL(p, "result: unknown value");
		p->seen |= SEEN_RESULT;
		return true;
	}
	if (is(&rec, "reason")) {
		rest_of_line(&c, p->r->reason, sizeof(p->r->reason));
		return true;
	}
	if (is(&rec, "cpu"))
		return parse_cpu(p, &c);
	if (is(&rec, "bsp"))
		return parse_bsp(p, &c);
	if (is(&rec, "phase"))
		return parse_phase(p, &c);
	if (is(&rec, "next")) {
		rest_of_line(&c, p->r->next, sizeof(p->r->next));
		return true;
	}
	if (is(&rec, "ignored")) {
		rest_of_line(&c, p->r->ignored, sizeof(p->r->ignored));
		return true;
	}
	if (is(&rec, "ap"))
		return parse_ap(p, &c);
	if (is(&rec, "omitted")) {
		struct tok v;

		if (!next_tok(&c, &v) || !u32_of(&v, &p->r->omitted))
			return FAIL(p, "omitted: not a number");
		return true;
	}
	return true; /* a record from a newer stage */
}

static bool check_header(struct parser *p, const char *s, size_t n)
{
	size_t m = sizeof(TSC_REPORT_MAGIC) - 1;
	uint64_t fmt;

	size_t i;

	if (n <= m + 1)
		return FAIL(p, "not a tsctui report");
	for (i = 0; i < m; i++)
		if (s[i] != TSC_REPORT_MAGIC[i])
			return FAIL(p, "not a tsctui report");
	if (s[m] != ' ' || !tsc_parse_u64(s + m + 1, n - m - 1, &fmt))
		return FAIL(p, "not a tsctui report");
	if (fmt != TSC_REPORT_FORMAT)
		return FAIL(p, "unsupported report format");
	p->r->format = (uint32_t)fmt;
	return true;
}

bool tsc_report_parse(const char *text, size_t len, struct tsc_report *r,
		      const char **err, uint32_t *err_line)
{
	struct parser p = { .r = r };
	size_t pos = 0, start, n;
	uint32_t line = 0, i;
	bool end = false;

	tsc_report_init(r, "", TSC_BUILD_RELEASE);
	*err = 0;
	*err_line = 0;
	while (pos < len && !end) {
		start = pos;
		while (pos < len && text[pos] != '\n')
			pos++;
		n = pos - start;
		if (pos < len)
			pos++;
		line++;
		if (n && text[start + n - 1] == '\r')
			n--;
		for (i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)text[start + i];

			if (ch < 0x20 || ch >= 0x7f) {
				*err = "not ASCII text";
				*err_line = line;
				return false;
			}
		}
		if (line == 1 ? !check_header(&p, text + start, n)
			      : !parse_line(&p, text + start, n, &end)) {
			*err = p.err;
			*err_line = line;
			return false;
		}
	}
	if (!end) {
		*err = line ? "report is cut short (no end line)" : "empty report";
		*err_line = line;
		return false;
	}
	if ((p.seen & (SEEN_STAGE | SEEN_RESULT | SEEN_CPU | SEEN_BSP)) !=
	    (SEEN_STAGE | SEEN_RESULT | SEEN_CPU | SEEN_BSP)) {
		*err = "report lacks a stage, result, cpu or bsp line";
		*err_line = line;
		return false;
	}
	return true;
}

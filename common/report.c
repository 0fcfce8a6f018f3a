/* SPDX-License-Identifier: MIT */
#include "report.h"
#include "fmt.h"
#include "report_fields.h"
#include "string_table.h"

static const char *const build_names[] = { "release", "sim" };
static const char *const config_names[] = { "load-options", "esp", "host" };
static const char *const note_names[] = {
	"none",		"no-answer", "beyond-cap", "not-converged", "warp-cut",
	"start-failed", "wrong-cpu", "stopped",	   "disabled",	    "unproven",
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

#define COUNT(a) STRING_TABLE_SIZE(a)

STRING_TABLE_TO(tsc_build_name, enum tsc_build, build_names, "?")
STRING_TABLE_TO(tsc_config_name, enum tsc_config, config_names, "?")
STRING_TABLE_TO(tsc_note_name, enum tsc_ap_note, note_names, "?")
STRING_TABLE_FROM_N(tsc_build_from, enum tsc_build, build_names, 0)
STRING_TABLE_FROM_N(tsc_config_from, enum tsc_config, config_names, 0)
STRING_TABLE_FROM_N(tsc_note_from, enum tsc_ap_note, note_names, 0)

const char *tsc_efi_status_name(uint64_t st)
{
	uint64_t n = st & ~EFI_ERR_BIT;

	if (!(st & EFI_ERR_BIT) || n >= COUNT(efi_error_names))
		return 0;
	return efi_error_names[n];
}

/* A status without a name: "0x" and every digit of the 64 bits, so the
 * text has one spelling per value. */
#define HEX_PREFIX "0x"
#define EFI_HEX_DIGITS 16

static void put_efi_status(struct tsc_buf *b, uint64_t st)
{
	static const char digits[] = "0123456789abcdef";
	const char *name = tsc_efi_status_name(st);
	int shift;

	if (name) {
		tsc_buf_puts(b, name);
		return;
	}
	tsc_buf_puts(b, HEX_PREFIX);
	for (shift = 4 * (EFI_HEX_DIGITS - 1); shift >= 0; shift -= 4)
		tsc_buf_putc(b, digits[(st >> shift) & 0xf]);
}

static bool efi_status_of(const char *s, size_t n, uint64_t *out)
{
	const size_t prefix = sizeof(HEX_PREFIX) - 1;
	size_t i;

	for (i = 0; i < COUNT(efi_error_names); i++) {
		if (efi_error_names[i] &&
		    tsc_streq_n(s, n, efi_error_names[i])) {
			*out = EFI_ERR_BIT | i;
			return true;
		}
	}
	/* Written as 0x and 16 digits; zero is never written. */
	return n == prefix + EFI_HEX_DIGITS &&
	       tsc_streq_n(s, prefix, HEX_PREFIX) &&
	       tsc_parse_hex(s + prefix, EFI_HEX_DIGITS, out) && *out != 0;
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
static size_t copy_printable(char *dst, size_t cap, const char *src, size_t len)
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
		r->ignored[have + i] =
			(tok[i] > 0x20 && tok[i] < 0x7f) ? tok[i] : '?';
	r->ignored[have + len] = '\0';
}

/* ---- writing: the tables of report_fields.c, in order ---- */

/* A microseconds field's key is its name and this unit. */
#define US_SUFFIX "_us"

static void put_value(struct tsc_buf *b, const struct tsc_report_field *f,
		      const void *base)
{
	const char *text = (const char *)base + f->at;

	switch (f->type) {
	case TSC_FT_I64:
		tsc_buf_i64(b, tsc_field_i64(f, base));
		break;
	case TSC_FT_ENUM:
		tsc_buf_puts(b,
			     f->names->name((unsigned)tsc_field_u64(f, base)));
		break;
	case TSC_FT_WORD:
	case TSC_FT_LINE:
	case TSC_FT_TOKENS:
		tsc_buf_puts(b, text[0] ? text : "-");
		break;
	case TSC_FT_PAIR:
		tsc_buf_u64(b, tsc_field_u64(f, base));
		tsc_buf_putc(b, '/');
		tsc_buf_u64(b, tsc_field_u64_2(f, base));
		break;
	case TSC_FT_EFI:
		put_efi_status(b, tsc_field_u64(f, base));
		break;
	default:
		tsc_buf_u64(b, tsc_field_u64(f, base));
		break;
	}
}

/* One line: the record's name, its positional values, then key=value. */
static void write_record(struct tsc_buf *b, const struct tsc_report_record *rec,
			 const void *base)
{
	uint32_t i;

	/* A record of one value written only when set ("omitted N") is left
	 * out with it. */
	if (rec->nfields == 1 && !rec->fields[0].key &&
	    !tsc_field_written(&rec->fields[0], base))
		return;
	tsc_buf_puts(b, rec->name);
	for (i = 0; i < rec->nfields; i++) {
		const struct tsc_report_field *f = &rec->fields[i];

		if (!tsc_field_written(f, base))
			continue;
		tsc_buf_putc(b, ' ');
		if (f->key) {
			tsc_buf_puts(b, f->key);
			if (f->type == TSC_FT_US)
				tsc_buf_puts(b, US_SUFFIX);
			tsc_buf_putc(b, '=');
		}
		put_value(b, f, base);
	}
	tsc_buf_putc(b, '\n');
}

static void write_ap(struct tsc_buf *b, const struct tsc_report_cpu *c)
{
	write_record(b, &tsc_record_ap, c);
}

/* Everything before the ap records. */
static void write_head(struct tsc_buf *b, const struct tsc_report *r)
{
	uint32_t i;

	tsc_buf_puts(b, TSC_REPORT_MAGIC " ");
	tsc_buf_u64(b, TSC_REPORT_FORMAT);
	tsc_buf_putc(b, '\n');
	for (i = 0; i < TSC_REPORT_NHEAD; i++)
		write_record(b, tsc_report_head[i], r);
}

static void write_tail(struct tsc_buf *b, uint32_t omitted)
{
	write_record(b, &tsc_record_omitted, &omitted);
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

/* An AP line as a fitted copy measures it.  Real figures make lines of
 * about 110 bytes; one longer than this (numbers near their type's limits)
 * counts as one that does not fit. */
#define AP_LINE_MAX 256

/* Worst first: what a reader most needs when not every AP fits. */
#define KEEP_RANKS 4
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

size_t tsc_report_write_fit(const struct tsc_report *r, char *buf, size_t cap,
			    uint32_t *omitted)
{
	/* Room kept for the longest tail, and the NUL. */
	const size_t tail = sizeof("omitted 4294967295\nend\n");
	bool keep[TSC_MAX_CPUS];
	struct tsc_buf b;
	char line[AP_LINE_MAX];
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
	for (rank = 0; rank < KEEP_RANKS; rank++) {
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

/* "a/b", two uint32. */
static bool pair_of(const struct tok *v, uint32_t *a, uint32_t *b)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (v->s[i] == '/') {
			struct tok x = { v->s, i },
				   y = { v->s + i + 1, v->n - i - 1 };
			return u32_of(&x, a) && u32_of(&y, b);
		}
	}
	return false;
}

/* A key: the field's name, and for microseconds its unit. */
static bool key_is(const struct tok *k, const struct tsc_report_field *f)
{
	size_t n = tsc_strlen(f->key);
	struct tok name = { k->s, n }, unit;

	if (f->type != TSC_FT_US)
		return is(k, f->key);
	if (k->n <= n)
		return false;
	unit = (struct tok){ k->s + n, k->n - n };
	return is(&name, f->key) && is(&unit, US_SUFFIX);
}

/* The struct member a field names, for writing (the parser's side). */
static void *member(void *base, uint16_t at)
{
	return (char *)base + at;
}

/* Stores v in f's member; false when v is not a valid value for it. */
/* Byte by byte: the member is not an lvalue of the value's type. */
static void store_bytes(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *p = src;

	while (n--)
		*d++ = *p++;
}

static bool get_value(const struct tsc_report_field *f, void *base,
		      const struct tok *v)
{
	void *m = member(base, f->at);
	uint64_t x = 0;
	unsigned e;
	bool ok;

	switch (f->type) {
	case TSC_FT_U32:
		ok = u32_of(v, m);
		x = *(uint32_t *)m;
		break;
	case TSC_FT_I64:
		ok = tsc_parse_i64(v->s, v->n, m);
		x = (uint64_t) * (int64_t *)m;
		break;
	case TSC_FT_BOOL:
		ok = bool_of(v, m);
		break;
	case TSC_FT_ENUM:
		/* Stored byte by byte: an enum is an unsigned int here, but
		 * not an lvalue of that type. */
		ok = f->names->from(v->s, v->n, &e);
		if (ok)
			store_bytes(m, &e, sizeof(e));
		break;
	case TSC_FT_WORD:
		if (!is(v, "-"))
			tsc_strlcpy(m, v->s, v->n, f->size);
		ok = true;
		break;
	case TSC_FT_PAIR:
		ok = pair_of(v, m, member(base, f->at2));
		break;
	case TSC_FT_EFI:
		ok = efi_status_of(v->s, v->n, m);
		break;
	default: /* TSC_FT_U64, TSC_FT_US */
		ok = u64_of(v, m);
		x = *(uint64_t *)m;
		break;
	}
	if (ok && (f->flags & TSC_FIELD_POSITIVE) && x == 0)
		return false;
	if (ok && f->when == TSC_WHEN_FLAG && (f->flags & TSC_FIELD_SETS_FLAG))
		*(bool *)member(base, f->at2) = true;
	return ok;
}
struct parser {
	struct tsc_report *r;
	const char *err;
	uint32_t seen; /* bit i: tsc_report_head[i] was read */
	bool have_ap[TSC_MAX_CPUS];
};

#define FAIL(p, msg) ((p)->err = (msg), false)

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
	c->pos = c->n;
}

/* The positional values that follow the record's name. */
static bool parse_values(struct parser *p, const struct tsc_report_record *rec,
			 void *base, struct cursor *c)
{
	const struct tsc_report_field *f;
	struct tok t;
	uint32_t i;

	for (i = 0; i < rec->nfields; i++) {
		f = &rec->fields[i];
		if (f->key)
			continue;
		if (f->type == TSC_FT_LINE || f->type == TSC_FT_TOKENS)
			rest_of_line(c, member(base, f->at), f->size);
		else if (!next_tok(c, &t) || !get_value(f, base, &t))
			return FAIL(p, f->err ? f->err : rec->err_value);
	}
	return true;
}

static bool is_zero(const void *base, const struct tsc_report_field *f)
{
	const unsigned char *m = member((void *)base, f->at);
	uint16_t i;

	for (i = 0; i < f->size; i++)
		if (m[i])
			return false;
	return true;
}

/* key=value for the rest of the line, when the record has keys (after a
 * record of positional values only, the rest is ignored). */
static bool parse_keys(struct parser *p, const struct tsc_report_record *rec,
		       void *base, struct cursor *c)
{
	const struct tsc_report_field *f;
	struct tok t, k, v;
	uint32_t i;
	bool keyed = false;

	for (i = 0; i < rec->nfields; i++)
		keyed |= rec->fields[i].key != NULL;
	if (!keyed)
		return true;
	while (next_tok(c, &t)) {
		if (!split_kv(&t, &k, &v))
			return FAIL(p, rec->err_kv);
		for (i = 0; i < rec->nfields; i++) {
			f = &rec->fields[i];
			if (f->key && key_is(&k, f) && !get_value(f, base, &v))
				return FAIL(p,
					    f->err ? f->err : rec->err_value);
		}
	}
	/* A value written only beside the field that sets its flag must not
	 * come alone: it could not be written back. */
	for (i = 0; i < rec->nfields; i++) {
		f = &rec->fields[i];
		if (f->when == TSC_WHEN_FLAG &&
		    !(f->flags & TSC_FIELD_SETS_FLAG) &&
		    !*(const bool *)member(base, f->at2) && !is_zero(base, f))
			return FAIL(p, f->err);
	}
	return true;
}

static bool parse_ap(struct parser *p, struct cursor *c)
{
	struct tsc_report *r = p->r;
	struct tsc_report_cpu ap = { 0 };

	if (!parse_values(p, &tsc_record_ap, &ap, c))
		return false;
	if (ap.index >= TSC_MAX_CPUS)
		return FAIL(p, "ap: processor number out of range");
	if (p->have_ap[ap.index])
		return FAIL(p, "ap: processor listed twice");
	if (r->nap >= TSC_MAX_CPUS)
		return FAIL(p, "ap: too many processors");
	p->have_ap[ap.index] = true;
	if (!parse_keys(p, &tsc_record_ap, &ap, c))
		return false;
	r->ap[r->nap++] = ap;
	return true;
}

static bool parse_line(struct parser *p, const char *s, size_t n, bool *end)
{
	const struct tsc_report_record *rec;
	struct cursor c = { s, n, 0 };
	struct tok name;
	void *base = p->r;
	uint32_t i;

	if (!next_tok(&c, &name))
		return true; /* blank lines are harmless */
	if (is(&name, "end")) {
		*end = true;
		return true;
	}
	rec = tsc_report_record_of(name.s, name.n);
	if (!rec)
		return true; /* a record from a newer stage */
	if (rec == &tsc_record_ap)
		return parse_ap(p, &c);
	if (rec == &tsc_record_omitted)
		base = &p->r->omitted;
	if (!parse_values(p, rec, base, &c) || !parse_keys(p, rec, base, &c))
		return false;
	for (i = 0; i < TSC_REPORT_NHEAD; i++)
		if (tsc_report_head[i] == rec)
			p->seen |= 1u << i;
	return true;
}

/* The first line: the magic, a space, the format's number. */
static bool check_header(struct parser *p, const char *s, size_t n)
{
	const size_t m = sizeof(TSC_REPORT_MAGIC " ") - 1;
	uint64_t fmt;

	if (n <= m || !tsc_streq_n(s, m, TSC_REPORT_MAGIC " ") ||
	    !tsc_parse_u64(s + m, n - m, &fmt))
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
		*err = line ? "report is cut short (no end line)"
			    : "empty report";
		*err_line = line;
		return false;
	}
	for (i = 0; i < TSC_REPORT_NHEAD; i++) {
		if (tsc_report_head[i]->required && !(p.seen & (1u << i))) {
			*err = "report lacks a stage, result, cpu or bsp line";
			*err_line = line;
			return false;
		}
	}
	return true;
}

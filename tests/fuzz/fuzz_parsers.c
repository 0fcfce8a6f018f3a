/*
 * Fuzz smoke test of the report, options, kernel-log and upower-history
 * parsers and the report finder:
 * a deterministic stream of at least 100,000 inputs (random bytes, and valid
 * reports with random mutations; the valid one is made from the format's
 * tables), under ASan and UBSan.  Passing means no
 * crash and no sanitizer report; a parse that succeeds must also survive a
 * write -> parse round trip.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/options.h"
#include "../../common/report.h"
#include "../../common/report_fields.h"
#include "../../tui/source/kernlog.h"
#include "../../tui/source/powerlog.h"
#include "../../tui/source/stage_report.h"

#define INPUTS 120000

static struct tsc_report r, r2;
static struct tsc_options o;
static struct klog kl;
static char text[TSC_REPORT_MAX_TEXT];

/* A failing input, as a TAP comment a person can paste into a test. */
static void show(const char *why, const char *s, size_t n)
{
	size_t i;

	printf("# %s: \"", why);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			printf("\\n");
		else if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
	printf("\"\n");
}

/* The seed: a report made from the format's own tables (example values by
 * type), so every field a table gains is fuzzed without an edit here, and
 * then made canonical by the writer. */
static char seed_report[TSC_REPORT_MAX_TEXT];
static size_t seed_len;

/* A valid, non-zero value of f's type. */
static void example(char *out, size_t cap, const struct tsc_report_field *f)
{
	switch (f->type) {
	case TSC_FT_I64:
		snprintf(out, cap, "-3");
		break;
	case TSC_FT_US:
		snprintf(out, cap, "12");
		break;
	case TSC_FT_BOOL:
		snprintf(out, cap, "1");
		break;
	case TSC_FT_ENUM:
		snprintf(out, cap, "%s", f->names->name(1));
		break;
	case TSC_FT_WORD:
		snprintf(out, cap, "0.1.0");
		break;
	case TSC_FT_LINE:
	case TSC_FT_TOKENS:
		snprintf(out, cap, "foo=bar");
		break;
	case TSC_FT_PAIR:
		snprintf(out, cap, "0/1");
		break;
	case TSC_FT_EFI:
		snprintf(out, cap, "EFI_NOT_READY");
		break;
	default:
		snprintf(out, cap, "2096000000");
		break;
	}
}

/* One line of rec; index: its positional value (ap); full = 0 leaves out
 * the fields that are not always written. */
static size_t example_record(char *buf, size_t cap,
			     const struct tsc_report_record *rec,
			     const char *index, int full)
{
	size_t n = (size_t)snprintf(buf, cap, "%s", rec->name);
	char v[64];
	uint32_t i;

	for (i = 0; i < rec->nfields && n < cap; i++) {
		const struct tsc_report_field *f = &rec->fields[i];

		if (!full && f->when != TSC_WHEN_ALWAYS)
			continue;
		if (index && !f->key)
			snprintf(v, sizeof(v), "%s", index);
		else
			example(v, sizeof(v), f);
		n += (size_t)snprintf(
			buf + n, cap - n, " %s%s%s%s", f->key ? f->key : "",
			f->key && f->type == TSC_FT_US ? "_us" : "",
			f->key ? "=" : "", v);
	}
	n += (size_t)snprintf(buf + n, cap - n, "\n");
	return n;
}

/* Returns false when the tables' example does not parse: the tables and
 * the parser disagree. */
static bool make_seed(void)
{
	static char buf[TSC_REPORT_MAX_TEXT];
	const char *err;
	uint32_t i, line;
	size_t n;

	n = (size_t)snprintf(buf, sizeof(buf), "%s %d\n", TSC_REPORT_MAGIC,
			     TSC_REPORT_FORMAT);
	for (i = 0; i < TSC_REPORT_NHEAD; i++)
		n += example_record(buf + n, sizeof(buf) - n,
				    tsc_report_head[i], NULL, 1);
	n += example_record(buf + n, sizeof(buf) - n, &tsc_record_ap, "1", 1);
	n += example_record(buf + n, sizeof(buf) - n, &tsc_record_ap, "2", 0);
	n += example_record(buf + n, sizeof(buf) - n, &tsc_record_omitted, NULL,
			    1);
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "end\n");
	if (!tsc_report_parse(buf, n, &r, &err, &line)) {
		printf("# the tables' example report: line %u: %s\n", line,
		       err);
		show("example", buf, n);
		return false;
	}
	seed_len = tsc_report_write(&r, seed_report, sizeof(seed_report));
	return seed_len > 0;
}

/* Every keyed field of every record is in the seed. */
static bool seed_has_every_field(void)
{
	const struct tsc_report_record *recs[TSC_REPORT_NHEAD + 1];
	char key[64];
	uint32_t i, k;
	bool all = true;

	for (i = 0; i < TSC_REPORT_NHEAD; i++)
		recs[i] = tsc_report_head[i];
	recs[i] = &tsc_record_ap;
	for (i = 0; i < TSC_REPORT_NHEAD + 1; i++) {
		for (k = 0; k < recs[i]->nfields; k++) {
			const struct tsc_report_field *f = &recs[i]->fields[k];

			if (!f->key)
				continue;
			snprintf(key, sizeof(key), " %s%s=", f->key,
				 f->type == TSC_FT_US ? "_us" : "");
			if (!strstr(seed_report, key)) {
				printf("# the seed lacks %s%s\n", recs[i]->name,
				       key);
				all = false;
			}
		}
	}
	return all && strstr(seed_report, "\nomitted ");
}

static const char alphabet[] =
	"tsctui-report 10=-/ \n\r\tabcdefghijklmnopqrstuvwxyz."
	"[]#>:'CPUTSMW;,";

static uint64_t rng = 0x12345678abcdefull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t make_input(char *buf, size_t cap, unsigned kind)
{
	size_t n, i;

	switch (kind % 4) {
	case 0: /* random bytes */
		n = next() % 512;
		for (i = 0; i < n; i++)
			buf[i] = (char)next();
		return n;
	case 1: /* random text from the format's own alphabet */
		n = next() % 512;
		for (i = 0; i < n; i++)
			buf[i] = alphabet[next() % (sizeof(alphabet) - 1)];
		return n;
	default: /* a valid report, mutated */
		n = seed_len;
		memcpy(buf, seed_report, n);
		for (i = next() % 8; i > 0 && n > 0; i--) {
			size_t at = next() % n;

			switch (next() % 3) {
			case 0:
				buf[at] = (char)next();
				break;
			case 1:
				buf[at] = alphabet[next() %
						   (sizeof(alphabet) - 1)];
				break;
			default:
				n = at; /* truncate */
				break;
			}
		}
		(void)cap;
		return n;
	}
}

int main(void)
{
	static char buf[4096], copy[4096];
	struct report_block blocks[8];
	int64_t when[64];
	bool mains[64];
	unsigned i, parsed = 0, roundtrips = 0, bad_roundtrip = 0;
	const char *err;
	uint32_t line;
	size_t n, len;
	bool seeded = make_seed(), covered = seeded && seed_has_every_field();

	for (i = 0; seeded && i < INPUTS; i++) {
		n = make_input(buf, sizeof(buf), i);
		if (tsc_report_parse(buf, n, &r, &err, &line)) {
			parsed++;
			len = tsc_report_write(&r, text, sizeof(text));
			if (len &&
			    tsc_report_parse(text, len, &r2, &err, &line) &&
			    memcmp(&r, &r2, sizeof(r)) == 0)
				roundtrips++;
			else if (bad_roundtrip++ < 3)
				show("not canonical", buf, n);
		}
		tsc_options_init(&o);
		tsc_options_parse(&o, buf, n, i & 1);
		tsc_options_from_load_options(buf, n, copy, sizeof(copy));
		memcpy(copy, buf, n);
		len = n;
		report_find(copy, &len, blocks, 8);
		kernlog_parse(buf, n, &kl);
		powerlog_upower_changes(buf, n, when, mains, 64);
	}
	printf("# %u inputs, %u parsed as reports, %u round trips\n", INPUTS,
	       parsed, roundtrips);
	printf("%s 1 - the seed, made from the format's tables, parses and "
	       "holds every field\n",
	       covered ? "ok" : "not ok");
	printf("%s 2 - %u inputs through every parser without a crash\n",
	       seeded ? "ok" : "not ok", INPUTS);
	printf("%s 3 - every report that parses survives write and parse "
	       "unchanged (%u of %u)\n",
	       bad_roundtrip == 0 && parsed > 0 ? "ok" : "not ok", roundtrips,
	       parsed);
	printf("1..3\n");
	return covered && bad_roundtrip == 0 && parsed > 0 ? 0 : 1;
}

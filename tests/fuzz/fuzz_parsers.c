/*
 * Fuzz smoke test of the report, options and kernel-log parsers and the
 * report finder:
 * a deterministic stream of at least 100,000 inputs (random bytes, and valid
 * reports with random mutations), under ASan and UBSan.  Passing means no
 * crash and no sanitizer report; a parse that succeeds must also survive a
 * write -> parse round trip.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/options.h"
#include "../../common/report.h"
#include "../../tui/source/kernlog.h"
#include "../../tui/source/stage_report.h"

#define INPUTS 120000

static struct tsc_report r, r2;
static struct tsc_options o;
static struct klog kl;
static char text[TSC_REPORT_MAX_TEXT];

static const char seed_report[] =
	"tsctui-report 1\n"
	"stage version=0.1.0 build=sim mode=sync config=esp\n"
	"result in-sync\nreason -\n"
	"cpu vendor=amd family=23 model=24 invariant_tsc=1 tsc_adjust=0 "
	"hypervisor=0 tick=1 tsc_hz=2096000000\n"
	"bsp index=0 apic=0 shift=6815086010 writes=3 cpus=4\n"
	"phase survey_us=1 bsp_us=2 ap_pass_us=3 verify_us=4 total_us=10\n"
	"next Boot0003\nignored foo=bar\n"
	"ap 1 apic=1 survey=6815086011 final=3 rtt=126 warps=0/0 maxwarp=0 "
	"verdict=ok n=300 w=2000 writes=1 true=0\n"
	"ap 2 apic=2 survey=6815086011 final=-3 rtt=126 warps=0/1 maxwarp=5 "
	"verdict=bad note=warp-cut n=300 w=2000 writes=1\n"
	"end\n";

static const char alphabet[] = "tsctui-report 10=-/ \n\r\tabcdefghijklmnopqrstuvwxyz."
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
		n = sizeof(seed_report) - 1;
		memcpy(buf, seed_report, n);
		for (i = next() % 8; i > 0 && n > 0; i--) {
			size_t at = next() % n;

			switch (next() % 3) {
			case 0:
				buf[at] = (char)next();
				break;
			case 1:
				buf[at] = alphabet[next() % (sizeof(alphabet) - 1)];
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

int main(void)
{
	static char buf[4096], copy[4096];
	struct report_block blocks[8];
	unsigned i, parsed = 0, roundtrips = 0, bad_roundtrip = 0;
	const char *err;
	uint32_t line;
	size_t n, len;

	for (i = 0; i < INPUTS; i++) {
		n = make_input(buf, sizeof(buf), i);
		if (tsc_report_parse(buf, n, &r, &err, &line)) {
			parsed++;
			len = tsc_report_write(&r, text, sizeof(text));
			if (len && tsc_report_parse(text, len, &r2, &err, &line) &&
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
	}
	printf("# %u inputs, %u parsed as reports, %u round trips\n", INPUTS,
	       parsed, roundtrips);
	printf("%s 1 - %u inputs through every parser without a crash\n",
	       "ok", INPUTS);
	printf("%s 2 - every report that parses survives write and parse "
	       "unchanged (%u of %u)\n",
	       bad_roundtrip == 0 && parsed > 0 ? "ok" : "not ok", roundtrips,
	       parsed);
	printf("1..2\n");
	return bad_roundtrip == 0 && parsed > 0 ? 0 : 1;
}

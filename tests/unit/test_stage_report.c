/* Finding reports in what `tsctui report --file` is handed: a raw variable,
 * an efivarfs file, a serial console log. */
#include "cm.h"
#include <stdio.h>
#include <string.h>

#include "../../tui/source/stage_report.h"

#define REP "tsctui-report 1\nresult in-sync\nend\n"

static size_t find(const char *in, size_t n, char *buf, struct report_block *b,
		   size_t max, size_t *len)
{
	memcpy(buf, in, n);
	*len = n;
	return report_find(buf, len, b, max);
}

static void raw_and_efivarfs(void **s)
{
	static const char efivarfs[] = "\x06\x00\x00\x00" REP;
	struct report_block b[4];
	char buf[256];
	size_t len;

	(void)s;
	assert_int_equal(find(REP, sizeof(REP), buf, b, 4, &len), 1);
	/* The terminating NUL is dropped. */
	assert_int_equal(b[0].len, strlen(REP));
	assert_int_equal(find(efivarfs, sizeof(efivarfs) - 1, buf, b, 4, &len),
			 1);
	assert_int_equal(b[0].pos, 0);
	assert_memory_equal(buf, REP, strlen(REP));
}

static void console_log(void **s)
{
	static const char log[] =
		"\x1b[2J\x1b[01;01HBdsDxe: starting "
		"Boot0001\r\n" TSC_REPORT_BEGIN "\r\n"
		"tsctui-report 1\r\n\x1b[0m\x1b[37m\x1b[40mresult unsure\r\n"
		"end\r\n" TSC_REPORT_END "\r\n"
		"noise\r\n"
		"  " TSC_REPORT_BEGIN "  \r\n"
		"tsctui-report 1\r\nresult in-sync\r\nend\r\n" TSC_REPORT_END
		"\r\n" TSC_REPORT_BEGIN "\r\n"
		"tsctui-report 1\r\n"; /* a third, cut by a hang */
	struct report_block b[4];
	char buf[1024];
	size_t len;

	(void)s;
	assert_int_equal(find(log, sizeof(log) - 1, buf, b, 4, &len), 2);
	assert_memory_equal(buf + b[0].pos,
			    "tsctui-report 1\nresult unsure\nend\n", b[0].len);
	assert_memory_equal(buf + b[1].pos,
			    "tsctui-report 1\nresult in-sync\nend\n", b[1].len);
	/* At most max blocks. */
	assert_int_equal(find(log, sizeof(log) - 1, buf, b, 1, &len), 1);
}

static void nothing_there(void **s)
{
	struct report_block b[2];
	char buf[64];
	size_t len;

	(void)s;
	assert_int_equal(find("hello\n", 6, buf, b, 2, &len), 0);
	assert_int_equal(find("", 0, buf, b, 2, &len), 0);
	assert_int_equal(find("\x1b[", 2, buf, b, 2, &len), 0);
	assert_int_equal(find("\x1b", 1, buf, b, 2, &len), 0);
}

/* The variable's GUID is spelled once, as parts: the text tsctui reads
 * efivarfs with and the EFI_GUID the stage writes with must be one GUID. */
static void guid_forms_agree(void **s)
{
	struct {
		uint32_t a;
		uint16_t b, c;
		uint8_t d[8];
	} g = TSC_REPORT_VAR_GUID_INIT;
	char text[40];

	(void)s;
	snprintf(text, sizeof(text),
		 "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", g.a, g.b,
		 g.c, g.d[0], g.d[1], g.d[2], g.d[3], g.d[4], g.d[5], g.d[6],
		 g.d[7]);
	assert_string_equal(text, TSC_REPORT_VAR_GUID_TEXT);
	assert_string_equal(TSC_REPORT_VAR_FILE,
			    TSC_REPORT_VAR_NAME "-" TSC_REPORT_VAR_GUID_TEXT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(raw_and_efivarfs),
		cmocka_unit_test(console_log),
		cmocka_unit_test(nothing_there),
		cmocka_unit_test(guid_forms_agree),
	};
	return cmocka_run_group_tests_name("stage_report", tests, NULL, NULL);
}

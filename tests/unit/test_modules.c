/* Module facts from fixtures, and when rtc_cmos may be loaded. */
#include "cm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../tui/model/rtc_plan.h"
#include "../../tui/source/modules.h"

static void proc_modules(void **s)
{
	struct sys_modules m = { 0 };

	(void)s;
	modules_parse_proc("kvm_amd 155648 0 - Live 0x0000000000000000\n"
			   "kvm 1146880 1 kvm_amd, Live 0x0\n"
			   "msr 16384 0 - Live 0x0\n",
			   &m);
	assert_true(m.kvm_amd && m.msr);
	assert_false(m.kvm_intel || m.rtc_cmos);
}

/* A root with /proc/modules, and one whose kernel has none. */
static void roots(void **s)
{
	char tmpl[] = "/tmp/tsctui-mod-XXXXXX", path[256];
	struct sys_modules m;
	FILE *f;

	(void)s;
	assert_non_null(mkdtemp(tmpl));
	modules_read(tmpl, &m);
	assert_false(m.supported);
	snprintf(path, sizeof(path), "%s/proc", tmpl);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/modules", tmpl);
	f = fopen(path, "w");
	fputs("kvm_intel 372736 0 - Live 0x0\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/sys/module/rtc_cmos", tmpl);
	{
		char p2[256];

		snprintf(p2, sizeof(p2), "%s/sys", tmpl);
		mkdir(p2, 0755);
		snprintf(p2, sizeof(p2), "%s/sys/module", tmpl);
		mkdir(p2, 0755);
		mkdir(path, 0755);
	}
	modules_read(tmpl, &m);
	assert_true(m.supported && m.kvm_intel);
	/* Built in: in /sys/module, not in /proc/modules. */
	assert_true(m.rtc_cmos);
}

static void rtc_rules(void **s)
{
	struct sys_modules none = { .supported = true };
	struct sys_modules loaded = { .supported = true, .rtc_cmos = true };
	struct sys_modules nomods = { .supported = false };

	(void)s;
	assert_int_equal(rtc_plan(&none, true, true, true), RTC_PRESENT);
	assert_int_equal(rtc_plan(&none, false, true, false), RTC_ASK);
	assert_int_equal(rtc_plan(&none, false, true, true), RTC_LOAD);
	assert_int_equal(rtc_plan(&none, false, false, true), RTC_NEEDS_ROOT);
	assert_int_equal(rtc_plan(&loaded, false, true, true), RTC_UNSUPPORTED);
	assert_int_equal(rtc_plan(&nomods, false, true, true), RTC_UNSUPPORTED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(proc_modules),
		cmocka_unit_test(roots),
		cmocka_unit_test(rtc_rules),
	};
	return cmocka_run_group_tests_name("modules", tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
#include "rtc_plan.h"

enum rtc_plan rtc_plan(const struct sys_modules *m, bool have_rtc, bool is_root,
		       bool asked)
{
	if (have_rtc)
		return RTC_PRESENT;
	if (!m->supported || m->rtc_cmos)
		return RTC_UNSUPPORTED;
	if (!asked)
		return RTC_ASK;
	return is_root ? RTC_LOAD : RTC_NEEDS_ROOT;
}

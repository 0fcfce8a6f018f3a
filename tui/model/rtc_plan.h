/* SPDX-License-Identifier: MIT */
/* Whether the rate check may load rtc_cmos: a decision over what the
 * modules reader saw (action/module_load.c does the loading). */
#ifndef TSCTUI_MODEL_RTC_PLAN_H
#define TSCTUI_MODEL_RTC_PLAN_H

#include <stdbool.h>

#include "../source/modules.h"

enum rtc_plan {
	RTC_PRESENT,	 /* /dev/rtc0 is there */
	RTC_LOAD,	 /* load rtc_cmos now */
	RTC_ASK,	 /* would load it, if asked (--load-rtc) */
	RTC_NEEDS_ROOT,	 /* asked, but only root may load modules */
	RTC_UNSUPPORTED, /* no module support, or rtc_cmos loaded and no
			    RTC all the same */
};

/* Whether to load rtc_cmos: only when the RTC is absent, as root, and only
 * when asked. */
enum rtc_plan rtc_plan(const struct sys_modules *m, bool have_rtc, bool is_root,
		       bool asked);

#endif

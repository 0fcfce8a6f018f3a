/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <linux/rtc.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../../common/tsc.h"
#include "reftick.h"

const char *reftick_name(enum ref_kind k)
{
	return k == REF_RTC		? "rtc"
	       : k == REF_MONOTONIC_RAW ? "monotonic_raw"
					: "none";
}

void reftick_open(struct reftick *r, const char *clocksource)
{
	memset(r, 0, sizeof(*r));
	r->fd = open("/dev/rtc0", O_RDONLY | O_CLOEXEC);
	if (r->fd >= 0 && ioctl(r->fd, RTC_UIE_ON, 0) == 0) {
		r->kind = REF_RTC;
		return;
	}
	if (r->fd >= 0) {
		snprintf(r->why, sizeof(r->why),
			 "/dev/rtc0 gives no update interrupts (%s)",
			 strerror(errno));
		close(r->fd);
	} else {
		snprintf(r->why, sizeof(r->why), "no /dev/rtc0 (%s)",
			 strerror(errno));
	}
	r->fd = -1;
	if (clocksource && clocksource[0] && strcmp(clocksource, "tsc")) {
		r->kind = REF_MONOTONIC_RAW;
		return;
	}
	r->kind = REF_NONE;
	snprintf(r->why + strlen(r->why), sizeof(r->why) - strlen(r->why),
		 "; the clocksource is tsc, so CLOCK_MONOTONIC_RAW is the TSC "
		 "itself: no independent reference");
}

bool reftick_sample(struct reftick *r, double *t, uint64_t *tsc)
{
	struct timespec ts;
	unsigned long data;

	if (r->kind == REF_RTC) {
		/* Blocks until an update interrupt; the count of interrupts
		 * since the last read is in the upper bytes. */
		if (read(r->fd, &data, sizeof(data)) != sizeof(data))
			return false;
		*tsc = tsc_read_ordered();
		r->ticks += (double)(data >> 8);
		*t = r->ticks;
		return true;
	}
	if (r->kind == REF_MONOTONIC_RAW) {
		*tsc = tsc_read_ordered();
		clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
		*t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		return true;
	}
	return false;
}

void reftick_close(struct reftick *r)
{
	if (r->fd >= 0) {
		ioctl(r->fd, RTC_UIE_OFF, 0);
		close(r->fd);
	}
	r->fd = -1;
}

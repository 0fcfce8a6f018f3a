/* SPDX-License-Identifier: MIT */
/* When check's next sample is due (cli.h). */
#include <math.h>
#include <time.h>

#include "cli.h"

void cli_deadline(const struct timespec *t0, double seconds,
		  struct timespec *out)
{
	double whole = floor(seconds);
	long ns = (long)llround((seconds - whole) * 1e9);

	out->tv_sec = t0->tv_sec + (time_t)whole;
	out->tv_nsec = t0->tv_nsec + ns;
	while (out->tv_nsec >= 1000000000L) {
		out->tv_nsec -= 1000000000L;
		out->tv_sec++;
	}
}

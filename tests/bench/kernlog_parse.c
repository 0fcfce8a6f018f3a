/* make bench's kernel-log part: the time kernlog_parse takes over a file
 * (read first, not timed), the best of a few runs, and what it found.
 * Prints "seconds events last_kind last_time mhz". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../tui/source/kernlog.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct klog k;
	int runs = argc > 2 ? atoi(argv[2]) : 3, i;
	double best = -1;
	size_t len;
	char *text;
	long size;
	FILE *f;

	if (argc < 2 || !(f = fopen(argv[1], "rb")))
		return 2;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	text = malloc((size_t)size + 1);
	if (!text || fread(text, 1, (size_t)size, f) != (size_t)size)
		return 2;
	fclose(f);
	len = (size_t)size;
	for (i = 0; i < runs; i++) {
		double t0 = now(), dt;

		kernlog_parse(text, len, &k);
		dt = now() - t0;
		if (best < 0 || dt < best)
			best = dt;
	}
	printf("%.6f %zu %s %.6f %.3f\n", best, k.n,
	       k.n ? kernlog_kind_name(k.ev[k.n - 1].kind) : "-",
	       k.n ? k.ev[k.n - 1].time : -1.0, kernlog_tsc_mhz(&k));
	free(text);
	return 0;
}

/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "path.h"

char *path_under(const char *root, const char *abs, char *buf, size_t cap)
{
	size_t rl = strlen(root);
	int n;

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (rl == 1 && root[0] == '/')
		rl = 0;
	n = snprintf(buf, cap, "%.*s%s", (int)rl, root, abs);
	return n < 0 || (size_t)n >= cap ? NULL : buf;
}

char *path_join(const char *dir, const char *rel, char *out, size_t cap)
{
	int n = snprintf(out, cap, "%s%s", strcmp(dir, "/") ? dir : "", rel);

	return n < 0 || (size_t)n >= cap ? NULL : out;
}

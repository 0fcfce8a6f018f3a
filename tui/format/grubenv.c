/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "grubenv.h"

bool grubenv_parse(const char *data, size_t len, struct grubenv *env,
		   const char **why)
{
	size_t hl = strlen(GRUBENV_HEADER), pos, i;

	memset(env, 0, sizeof(*env));
	if (len != GRUBENV_SIZE) {
		*why = "it is not 1024 bytes long";
		return false;
	}
	if (memcmp(data, GRUBENV_HEADER, hl) != 0) {
		*why = "it lacks the GRUB Environment Block header";
		return false;
	}
	pos = hl;
	while (pos < len && data[pos] != '#') {
		const char *line = data + pos, *eq, *nl;

		nl = memchr(line, '\n', len - pos);
		if (!nl) {
			*why = "a variable line runs into the end of the block";
			goto bad;
		}
		eq = memchr(line, '=', (size_t)(nl - line));
		if (!eq || eq == line) {
			*why = "a line is not name=value";
			goto bad;
		}
		for (i = 0; line + i < nl; i++) {
			if (line[i] == '\0') {
				*why = "it holds a NUL byte";
				goto bad;
			}
		}
		if (env->n == GRUBENV_MAX_VARS) {
			*why = "it holds more variables than tsctui handles";
			goto bad;
		}
		env->name[env->n] = strndup(line, (size_t)(eq - line));
		env->value[env->n] = strndup(eq + 1, (size_t)(nl - eq - 1));
		env->n++;
		pos = (size_t)(nl - data) + 1;
	}
	for (; pos < len; pos++) {
		if (data[pos] != '#') {
			*why = "its padding is not all '#'";
			goto bad;
		}
	}
	return true;
bad:
	grubenv_free(env);
	return false;
}

static bool name_ok(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return n > 0;
}

static long find(const struct grubenv *env, const char *name);

void grubenv_salvage(const char *data, size_t len, struct grubenv *env)
{
	const char *p = data, *end = data + len, *nl, *eq;
	char *name;

	memset(env, 0, sizeof(*env));
	for (; p < end && env->n < GRUBENV_MAX_VARS; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break; /* a last line without its newline is cut */
		eq = memchr(p, '=', (size_t)(nl - p));
		if (!eq || !name_ok(p, (size_t)(eq - p)) ||
		    memchr(eq, '\0', (size_t)(nl - eq)) ||
		    memchr(eq, '\\', (size_t)(nl - eq)))
			continue;
		name = strndup(p, (size_t)(eq - p));
		if (!name)
			break;
		if (find(env, name) >= 0) {
			free(name);
			continue;
		}
		env->name[env->n] = name;
		env->value[env->n] = strndup(eq + 1, (size_t)(nl - eq - 1));
		env->n++;
	}
}

static long find(const struct grubenv *env, const char *name)
{
	size_t i;

	for (i = 0; i < env->n; i++)
		if (strcmp(env->name[i], name) == 0)
			return (long)i;
	return -1;
}

const char *grubenv_get(const struct grubenv *env, const char *name)
{
	long i = find(env, name);

	return i < 0 ? NULL : env->value[i];
}

bool grubenv_set(struct grubenv *env, const char *name, const char *value)
{
	long i = find(env, name);

	if (strpbrk(value, "\n\\") || strpbrk(name, "=\n"))
		return false;
	if (i >= 0) {
		free(env->value[i]);
		env->value[i] = strdup(value);
		return true;
	}
	if (env->n == GRUBENV_MAX_VARS)
		return false;
	env->name[env->n] = strdup(name);
	env->value[env->n] = strdup(value);
	env->n++;
	return true;
}

void grubenv_unset(struct grubenv *env, const char *name)
{
	long i = find(env, name);

	if (i < 0)
		return;
	free(env->name[i]);
	free(env->value[i]);
	memmove(&env->name[i], &env->name[i + 1],
		(env->n - (size_t)i - 1) * sizeof(char *));
	memmove(&env->value[i], &env->value[i + 1],
		(env->n - (size_t)i - 1) * sizeof(char *));
	env->n--;
}

bool grubenv_format(const struct grubenv *env, char out[GRUBENV_SIZE])
{
	size_t pos = strlen(GRUBENV_HEADER), i, ln, lv;

	memcpy(out, GRUBENV_HEADER, pos);
	for (i = 0; i < env->n; i++) {
		ln = strlen(env->name[i]);
		lv = strlen(env->value[i]);
		if (pos + ln + lv + 2 > GRUBENV_SIZE)
			return false;
		memcpy(out + pos, env->name[i], ln);
		out[pos + ln] = '=';
		memcpy(out + pos + ln + 1, env->value[i], lv);
		out[pos + ln + 1 + lv] = '\n';
		pos += ln + lv + 2;
	}
	memset(out + pos, '#', GRUBENV_SIZE - pos);
	return true;
}

void grubenv_free(struct grubenv *env)
{
	size_t i;

	for (i = 0; i < env->n; i++) {
		free(env->name[i]);
		free(env->value[i]);
	}
	env->n = 0;
}

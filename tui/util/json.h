/* SPDX-License-Identifier: MIT */
/* A streaming JSON writer: keys, values, nesting and commas, to a FILE. */
#ifndef TSCTUI_UTIL_JSON_H
#define TSCTUI_UTIL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_DEPTH];
	bool pretty;
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_obj(struct json *j, const char *key); /* key NULL in arrays */
void json_obj_end(struct json *j);
void json_arr(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *v); /* NULL: null */
void json_strn(struct json *j, const char *key, const char *v, size_t n);
void json_i64(struct json *j, const char *key, int64_t v);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_num(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline. */
void json_end(struct json *j);

#endif

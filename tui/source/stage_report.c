/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "efivar.h"
#include "stage_report.h"

/* An efivarfs file holds the variable's attributes (a UINT32) ahead of its
 * data. */
#define EFIVARFS_ATTR_SIZE 4

static size_t strip_terminal(char *s, size_t n)
{
	size_t i = 0, o = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c == 0x1b) {
			i++;
			if (i < n && s[i] == '[') {
				/* CSI: parameters, then one final byte. */
				i++;
				while (i < n && !(s[i] >= 0x40 && s[i] <= 0x7e))
					i++;
			}
			i++;
			continue;
		}
		if (c == '\r') {
			i++;
			continue;
		}
		s[o++] = s[i++];
	}
	return o;
}

static bool starts_with(const char *s, size_t n, const char *p)
{
	size_t m = strlen(p);

	return n >= m && memcmp(s, p, m) == 0;
}

/* Line [pos, pos+len) without surrounding blanks equals marker. */
static bool line_is(const char *s, size_t len, const char *marker)
{
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return len == strlen(marker) && memcmp(s, marker, len) == 0;
}

size_t report_find(char *data, size_t *len, struct report_block *blocks,
		   size_t max)
{
	size_t n = *len, pos = 0, count = 0, start = 0;
	bool inside = false;

	if (max == 0)
		return 0;
	/* An efivarfs file: the attributes come first. */
	if (n > EFIVARFS_ATTR_SIZE &&
	    starts_with(data + EFIVARFS_ATTR_SIZE, n - EFIVARFS_ATTR_SIZE,
			TSC_REPORT_MAGIC) &&
	    !starts_with(data, n, TSC_REPORT_MAGIC)) {
		memmove(data, data + EFIVARFS_ATTR_SIZE,
			n - EFIVARFS_ATTR_SIZE);
		n -= EFIVARFS_ATTR_SIZE;
	}
	/* A variable may carry a terminating NUL. */
	while (n && data[n - 1] == '\0')
		n--;
	if (starts_with(data, n, TSC_REPORT_MAGIC)) {
		*len = n;
		blocks[0] = (struct report_block){ 0, n };
		return 1;
	}
	n = strip_terminal(data, n);
	*len = n;
	while (pos < n) {
		size_t eol = pos;

		while (eol < n && data[eol] != '\n')
			eol++;
		if (line_is(data + pos, eol - pos, TSC_REPORT_BEGIN)) {
			inside = true;
			start = eol < n ? eol + 1 : eol;
		} else if (inside &&
			   line_is(data + pos, eol - pos, TSC_REPORT_END)) {
			inside = false;
			/* The newest max: the last block is the one that
			 * counts. */
			if (count == max) {
				memmove(blocks, blocks + 1,
					(max - 1) * sizeof(*blocks));
				count--;
			}
			blocks[count++] =
				(struct report_block){ start, pos - start };
		}
		pos = eol < n ? eol + 1 : eol;
	}
	return count;
}

int stage_report_read(const char *root, struct tsc_report *r, char **text,
		      size_t *text_len)
{
	struct report_block b;
	const char *why;
	uint32_t line;
	size_t len;
	uint8_t *raw;
	int rc = -1;

	raw = efivar_read(root, TSC_REPORT_VAR_NAME, TSC_REPORT_VAR_GUID_TEXT,
			  &len, NULL);
	if (!raw)
		return 0;
	if (report_find((char *)raw, &len, &b, 1) == 1 &&
	    tsc_report_parse((char *)raw + b.pos, b.len, r, &why, &line)) {
		rc = 1;
		if (text) {
			memmove(raw, raw + b.pos, b.len);
			*text = (char *)raw;
			*text_len = b.len;
			return rc;
		}
	}
	free(raw);
	return rc;
}

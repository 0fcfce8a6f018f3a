/* SPDX-License-Identifier: MIT */
/* The ledger's format: its lines read, checked and written, its entries
 * added and forgotten (act.h says what the ledger is). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/string_table.h"
#include "../source/efivar.h"
#include "../util/fsx.h"
#include "../util/path.h"
#include "act_core.h"

static const char *const kind_table[] = {
	[L_DIR] = "dir",	   [L_FILE] = "file",
	[L_LINK] = "link",	   [L_BACKUP] = "backup",
	[L_VAR] = "var",	   [L_VARBACKUP] = "varbackup",
	[L_BEGIN] = "begin",	   [L_GRUBBY] = "grubby",
	[L_UNLINKED] = "unlinked",
};
_Static_assert(STRING_TABLE_SIZE(kind_table) == LEDGER_KINDS,
	       "every ledger kind has its word");
STRING_TABLE_TO(ledger_kind_name, enum ledger_kind, kind_table, "?")
STRING_TABLE_FROM(ledger_kind_from, enum ledger_kind, kind_table, 0)

/* An efivarfs path of the global GUID: "/sys/firmware/efi/efivars/" +
 * name + "-" + GUID, the name letters and digits. */
const char *act_var_name(const char *sys, char *name, size_t cap)
{
	size_t d = strlen(EFIVARS_DIR "/"), g = strlen("-" GUID_EFI_GLOBAL);
	size_t n = strlen(sys);

	if (n <= d + g || strncmp(sys, EFIVARS_DIR "/", d) ||
	    strcmp(sys + n - g, "-" GUID_EFI_GLOBAL) || n - d - g >= cap)
		return NULL;
	memcpy(name, sys + d, n - d - g);
	name[n - d - g] = '\0';
	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789") != strlen(name))
		return NULL;
	return name;
}

/* Every line of the ledger is checked before any is used: the root may be
 * another machine's disk, and its ledger may say anything. */
static bool entry_valid(enum ledger_kind k, const char *p)
{
	char name[64];

	if (k == L_BEGIN)
		return p[0] && strlen(p) < 32 &&
		       strspn(p, "abcdefghijklmnopqrstuvwxyz-") == strlen(p);
	if (!path_is_clean(p) || !strcmp(p, "/"))
		return false;
	if (k == L_VAR || k == L_VARBACKUP)
		return act_var_name(p, name, sizeof(name)) != NULL;
	return true;
}

/*
 * A ledger line is "KIND PATH".  The path is the disk's (a BLS entry's
 * name may hold any byte but '/' and NUL), so it is written escaped
 * (path_put_escaped: \\, \t, \n, else \xHH).  Then a line is one line
 * whatever the name, and every path reads back as it was written.
 */

int act_ledger_read(struct act *a, bool *damaged, char *why, size_t cap)
{
	char *data, *line, *save = NULL, *sp;
	enum ledger_kind k;
	size_t len;

	*damaged = false;
	data = fsx_read_own(act_path_nofollow(a, TSCTUI_LEDGER), &len);
	if (!data) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, cap, "cannot read %s: %s", TSCTUI_LEDGER,
			 strerror(errno));
		return -1;
	}
	*damaged = true;
	/* A NUL would end the text early and drop every line after it. */
	if (memchr(data, '\0', len)) {
		free(data);
		snprintf(why, cap, "%s is damaged (a NUL byte)", TSCTUI_LEDGER);
		return -1;
	}
	for (line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sp = strchr(line, ' ');
		if (sp)
			*sp = '\0';
		if (!sp || a->nledger == ACT_MAX_LEDGER ||
		    !ledger_kind_from(line, &k) || !entry_valid(k, sp + 1) ||
		    !path_unescape(sp + 1)) {
			free(data);
			snprintf(why, cap, "%s is damaged", TSCTUI_LEDGER);
			return -1;
		}
		a->ledger[a->nledger++] =
			(struct ledger_entry){ k, strdup(sp + 1) };
	}
	free(data);
	*damaged = false;
	return 0;
}

int act_ledger_load(struct act *a)
{
	char why[PATH_UNDER_MAX + 64];
	bool damaged;

	if (act_ledger_read(a, &damaged, why, sizeof(why)) == 0)
		return 0;
	return damaged ? act_fail(a, "%s; not touching anything", why)
		       : act_fail(a, "%s", why);
}

/*
 * What uninstall --force keeps of a damaged ledger: every line that reads
 * as act_ledger_load would read it, checked the same way.  A line with a
 * NUL in it is dropped whole (a cut line may name a parent of the path it
 * named: "file /etc/ke"), and so are begin lines (the caller writes its
 * own).  The count kept, or -1 with the error.
 */
int act_ledger_salvage(struct act *a)
{
	char *data, *line, *end, *sp;
	enum ledger_kind k;
	size_t len, n = 0;
	int rc = 0;

	data = fsx_read_own(act_path_nofollow(a, TSCTUI_LEDGER), &len);
	if (!data)
		return 0; /* missing, a FIFO, a link: nothing to read */
	for (line = data; rc == 0 && line < data + len; line = end + 1) {
		end = memchr(line, '\n', (size_t)(data + len - line));
		if (!end)
			end = data + len; /* a last line without its newline */
		*end = '\0';
		sp = strchr(line, ' ');
		if (strlen(line) != (size_t)(end - line) || !sp)
			continue;
		*sp = '\0';
		if (!ledger_kind_from(line, &k) || k == L_BEGIN ||
		    !entry_valid(k, sp + 1) || !path_unescape(sp + 1))
			continue;
		if (!act_ledger_has(a, k, sp + 1)) {
			rc = act_ledger_add(a, k, sp + 1);
			n++;
		}
	}
	free(data);
	return rc ? -1 : (int)n;
}

int act_ledger_add(struct act *a, enum ledger_kind k, const char *sys)
{
	if (k != L_BEGIN && act_ledger_has(a, k, sys))
		return 0;
	if (a->nledger == ACT_MAX_LEDGER)
		return act_fail(a, "too many changes to record");
	a->ledger[a->nledger++] = (struct ledger_entry){ k, strdup(sys) };
	a->ledger_dirty = true;
	return a->journal ? act_ledger_save(a) : 0;
}

bool act_ledger_has(const struct act *a, enum ledger_kind k, const char *sys)
{
	size_t i;

	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind == k &&
		    strcmp(a->ledger[i].path, sys) == 0)
			return true;
	return false;
}

void act_ledger_forget_at(struct act *a, size_t i)
{
	free(a->ledger[i].path);
	memmove(&a->ledger[i], &a->ledger[i + 1],
		(a->nledger - i - 1) * sizeof(a->ledger[0]));
	a->nledger--;
	a->ledger_dirty = true;
}

int act_ledger_save(struct act *a)
{
	char *out = NULL;
	size_t len = 0, i;
	FILE *f;
	int rc;

	if (!a->ledger_dirty || a->dry_run)
		return 0;
	if (a->nledger == 0) {
		a->ledger_dirty = false;
		return fsx_remove(act_path_nofollow(a, TSCTUI_LEDGER));
	}
	f = open_memstream(&out, &len);
	if (!f)
		return act_fail(a, "out of memory");
	for (i = 0; i < a->nledger; i++) {
		fprintf(f, "%s ", ledger_kind_name(a->ledger[i].kind));
		path_put_escaped(f, a->ledger[i].path);
		fputc('\n', f);
	}
	fclose(f);
	rc = fsx_write_atomic(act_path_nofollow(a, TSCTUI_LEDGER), out, len,
			      0644);
	free(out);
	if (rc != 0)
		return act_fail(a, "cannot write %s: %s", TSCTUI_LEDGER,
				strerror(errno));
	a->ledger_dirty = false;
	return 0;
}

int act_record(struct act *a, enum ledger_kind k, const char *sys)
{
	return act_ledger_add(a, k, sys);
}

void act_forget(struct act *a, enum ledger_kind k, const char *sys)
{
	size_t i;

	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind == k && !strcmp(a->ledger[i].path, sys)) {
			act_ledger_forget_at(a, i);
			if (a->journal)
				act_ledger_save(a);
			return;
		}
}

ssize_t act_ledger_find_begin(const struct act *a)
{
	size_t i;

	for (i = 0; i < a->nledger; i++)
		if (a->ledger[i].kind == L_BEGIN)
			return (ssize_t)i;
	return -1;
}

/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "../../common/string_table.h"
#include "act_say.h"

/* The command line's words (act_say.h).  Each value is used at least
 * once; tests/unit/test_hint.c checks the placeholders against
 * act_say_nvals. */
static const char *const say_table[] = {
	[SAY_UNDONE_FIRST] = "an interrupted {0} was undone first",
	[SAY_PENDING_CLEARED] = "this boot reached Linux: pending cleared",
	[SAY_SYNC_CONFIRMED] = "this sync boot is confirmed: strikes back to 0",
	[SAY_STRIKES_OUT] = "strike {0} of {1}: {0} sync boots in a row were "
			    "not confirmed by Linux, each followed by a "
			    "measure-only boot that was, so the hang guard "
			    "disabled the stage (`tsctui guard reset` "
			    "re-enables it)",
	[SAY_STRIKE] = "strike {0} of {1}: the last sync boot was not "
		       "confirmed by Linux and this measure-only boot was",
	[SAY_ENTRY_CREATED] = "created {0} \"tsctui\", first in BootOrder; it "
			      "starts {1} next ({2})",
	[SAY_RUN_GRUB2_MKCONFIG] = "then, inside the target system, run: "
				   "grub2-mkconfig -o {0}",
	[SAY_RUN_UPDATE_GRUB] = "then, inside the target system, run: "
				"update-grub (or grub-mkconfig -o {0})",
	[SAY_GRUBENV_BACKUP_UNREADABLE] = "the backup {0} cannot be read "
					  "({1}): only tsctui's variables are "
					  "removed from {2}",
	[SAY_GRUBENV_BACKUP_CORRUPT] =
		"the backup {0} is corrupt ({1}): only "
		"tsctui's variables are removed from {2}",
	[SAY_GUARD_CLEARED] = "hang guard cleared; mode {0} from the next boot",
	[SAY_MOK_UNTRUSTED] =
		"warning: under {0} the firmware checks db; a key "
		"enrolled only as a MOK is not enough",
	[SAY_WOULD_SIGN] = "would sign with {0}",
	[SAY_SIGNED] = "signed with {0} (verified with sbverify)",
	[SAY_STAGE_FROM] = "stage image from {0} ({1})",
	[SAY_TSCSYNC_SYNC_OFF] = "tscsync was set to sync but not running "
				 "(turned off, or its guard found a hung "
				 "boot): tsctui starts in measure mode",
	[SAY_TSCSYNC_SYNC_REFUSED] = "tscsync ran in sync mode; tsctui starts "
				     "in measure mode ({0})",
	[SAY_TSCSYNC_SYNC_KEPT] = "sync mode carried over from tscsync",
	[SAY_INSTALLED] = "installed for {0} in {1} mode; ESP {2}",
	[SAY_OPTIONS_TOO_LONG] = "warning: the options of {0} come to {1} "
				 "bytes; Linux on x86 reads the first {2}, so "
				 "{3} at their end will not reach it: shorten "
				 "them",
	[SAY_CMDLINE_TOO_LONG] = "warning: /etc/kernel/cmdline comes to {0} "
				 "bytes; Linux on x86 reads the first {1}, so "
				 "{2} at its end will not reach it: shorten it",
	[SAY_RELIABLE_TOO] = "warning: {0} has tsc=reliable, which skips the "
			     "boot-time warp test too and hides a real "
			     "offset; tsc=nowatchdog is the targeted option",
	[SAY_NOWATCHDOG_ADDED] = "tsc=nowatchdog added from the next boot",
	[SAY_NOWATCHDOG_REMOVED] = "tsc=nowatchdog removed from the next boot",
	[SAY_RELIABLE_REMOVED] = "tsc=reliable removed from the next boot: the "
				 "kernel tests the TSC again; `tsctui "
				 "uninstall` puts it back",
	[SAY_RELIABLE_LIVE_ONLY] = "the running kernel was started with "
				   "tsc=reliable, and no boot configuration "
				   "tsctui manages has it now; if it is back "
				   "after a reboot, it is set elsewhere (a "
				   "unified kernel image's own command line, "
				   "or a firmware boot entry)",
	[SAY_RELIABLE_NONE] = "tsc=reliable is on no kernel command line here; "
			      "nothing to remove",
	[SAY_TSCSYNC_TAKEN_OVER] = "tscsync's job taken over ({0}): `tsctui "
				   "uninstall` puts it back",
	[SAY_MODE_SET] = "mode {0} from the next boot",
	[SAY_GUARD_WATCHES] = "the hang guard disables the stage if a boot "
			      "never reaches Linux",
	[SAY_LEFT] = "left: {0}",
	[SAY_LEFT_GRUBENV] = "left: {0} (tsctui_* variables)",
	[SAY_LEFT_ENTRY] = "left: {0}, a firmware entry that starts tsctui.efi "
			   "(efibootmgr -b NNNN -B)",
	[SAY_LEFT_ENTRY_TARGET] = "left: {0}, a firmware entry that starts "
				  "tsctui.efi: this is the target's NVRAM as a "
				  "file, not its firmware; remove the entry on "
				  "the target machine itself (efibootmgr -b "
				  "NNNN -B)",
	[SAY_LEFT_BACKUPS] = "left: {0} (copies of files tsctui changed, not "
			     "put back)",
	[SAY_LEFT_CREATED] = "left: {0} (created)",
	[SAY_LEFT_CHANGED] = "left: {0} (changed; its original is {1})",
	[SAY_REPLAY_STOPPED] = "the ledger's replay stopped ({0}): going by "
			       "what is on the disk",
	[SAY_FORCE_SWEEPS] = "--force then removes whatever of tsctui's the "
			     "ledger missed",
	[SAY_REMOVED] = "tsctui removed",
	[SAY_REMOVED_HISTORY] = "tsctui removed, history too",
	[SAY_CMDLINE_KEPT] = "{0} still says tsc=nowatchdog and no copy of it "
			     "was kept: kernel-arg may have made the file, or "
			     "the word was there before; remove it by hand if "
			     "it is not yours",
	[SAY_CONF_UNREADABLE] = "{0}: removed all the same",
	[SAY_LEDGER_DAMAGED] = "{0}: going by what is on the disk instead",
	[SAY_ENTRY_ON_TARGET] = "the firmware entry {0} lives in the NVRAM of "
				"the machine this disk belongs to, which a "
				"live system cannot reach: remove it on that "
				"machine itself (efibootmgr -b NNNN -B, NNNN "
				"its number)",
	[SAY_SWEPT] = "tsctui removed, going by what was on the disk: {0} "
		      "file{0s} put back, {1} removed",
	[SAY_SWEPT_HISTORY] = "tsctui removed, going by what was on the disk: "
			      "{0} file{0s} put back, {1} removed, history too",
	[SAY_RAN] = "ran: {0}",
	[SAY_MORE] = "... and {0} more line{0s}, not shown",
};
_Static_assert(STRING_TABLE_SIZE(say_table) == ACT_SAYS,
	       "every code has the command line's words");
STRING_TABLE_TO(act_say_words, enum act_say, say_table, "")

static const unsigned char nvals[ACT_SAYS] = {
	[SAY_UNDONE_FIRST] = 1,
	[SAY_STRIKES_OUT] = 2,
	[SAY_STRIKE] = 2,
	[SAY_ENTRY_CREATED] = 3,
	[SAY_RUN_GRUB2_MKCONFIG] = 1,
	[SAY_RUN_UPDATE_GRUB] = 1,
	[SAY_GRUBENV_BACKUP_UNREADABLE] = 3,
	[SAY_GRUBENV_BACKUP_CORRUPT] = 3,
	[SAY_GUARD_CLEARED] = 1,
	[SAY_MOK_UNTRUSTED] = 1,
	[SAY_WOULD_SIGN] = 1,
	[SAY_SIGNED] = 1,
	[SAY_STAGE_FROM] = 2,
	[SAY_TSCSYNC_SYNC_REFUSED] = 1,
	[SAY_INSTALLED] = 3,
	[SAY_OPTIONS_TOO_LONG] = 4,
	[SAY_CMDLINE_TOO_LONG] = 3,
	[SAY_RELIABLE_TOO] = 1,
	[SAY_TSCSYNC_TAKEN_OVER] = 1,
	[SAY_MODE_SET] = 1,
	[SAY_LEFT] = 1,
	[SAY_LEFT_GRUBENV] = 1,
	[SAY_LEFT_ENTRY] = 1,
	[SAY_LEFT_ENTRY_TARGET] = 1,
	[SAY_LEFT_BACKUPS] = 1,
	[SAY_LEFT_CREATED] = 1,
	[SAY_LEFT_CHANGED] = 2,
	[SAY_REPLAY_STOPPED] = 1,
	[SAY_CMDLINE_KEPT] = 1,
	[SAY_CONF_UNREADABLE] = 1,
	[SAY_LEDGER_DAMAGED] = 1,
	[SAY_ENTRY_ON_TARGET] = 1,
	[SAY_SWEPT] = 2,
	[SAY_SWEPT_HISTORY] = 2,
	[SAY_RAN] = 1,
	[SAY_MORE] = 1,
};

size_t act_say_nvals(enum act_say code)
{
	return (size_t)code < ACT_SAYS ? nvals[code] : 0;
}

void act_say_format(const char *tmpl, const struct act_said *s, char *out,
		    size_t cap)
{
	size_t n = 0;
	const char *p;

	if (!cap)
		return;
	for (p = tmpl; *p;) {
		const char *add = NULL, *v;
		size_t len, k;
		char one[2];

		if (p[0] == '{' && p[1] >= '0' && p[1] < '0' + ACT_SAY_VALS &&
		    (p[2] == '}' || (p[2] == 's' && p[3] == '}'))) {
			k = (size_t)(p[1] - '0');
			v = k < s->nval && s->val[k] ? s->val[k] : "";
			add = p[2] == 's' ? (strcmp(v, "1") ? "s" : "") : v;
			p += p[2] == 's' ? 4 : 3;
		} else {
			one[0] = *p++;
			one[1] = '\0';
			add = one;
		}
		len = strlen(add);
		if (n + len >= cap)
			len = cap - 1 - n;
		memcpy(out + n, add, len);
		n += len;
		if (n == cap - 1)
			break;
	}
	out[n] = '\0';
}

void act_say_join(const struct act_said *said, size_t n,
		  const char *(*words)(enum act_say), char *out, size_t cap)
{
	size_t i, k = 0;

	if (!cap)
		return;
	out[0] = '\0';
	for (i = 0; i < n && k + 1 < cap; i++) {
		if (i)
			out[k++] = '\n';
		act_say_format(words(said[i].code), &said[i], out + k, cap - k);
		k += strlen(out + k);
	}
	out[k] = '\0';
}

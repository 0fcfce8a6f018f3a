/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "../../common/string_table.h"
#include "hint.h"

static const char *const hint_table[] = {
	[ACT_HINT_NONE] = "",
	[ACT_HINT_ESP] = "mount the EFI system partition (lsblk -f shows it "
			 "as vfat) at /boot/efi, then press i again",
	[ACT_HINT_LOADER] = ": choose the boot path in the install menu (i)",
	[ACT_HINT_NEXT] = ": choose GRUB or systemd-boot in the install menu "
			  "instead",
	[ACT_HINT_DB_KEY] = "and install from the command line with it "
			    "(tsctui(8), Secure Boot), or choose GRUB in the "
			    "install menu",
	[ACT_HINT_EFI_ENTRY] = "choose its own firmware boot entry in the "
			       "install menu instead",
};
_Static_assert(STRING_TABLE_SIZE(hint_table) == ACT_HINTS,
	       "every hint has the dashboard's words");
STRING_TABLE_TO(hint_words, enum act_hint, hint_table, "")

static const char *const advice_table[] = {
	[DIAG_ADVICE_NONE] = "",
	[DIAG_ADVICE_KERNEL_LOG] = "(run tsctui as root: reading the kernel "
				   "log needs it)",
};
_Static_assert(STRING_TABLE_SIZE(advice_table) == DIAG_ADVICES,
	       "every advice has the dashboard's words");
STRING_TABLE_TO(hint_advice_words, enum diag_advice, advice_table, "")

/* What an action said, where the dashboard words it its own way: the
 * command line's words name a command or an option the dashboard has a
 * key for, or none.  NULL: the command line's words serve (act_say.c). */
static const char *const say_table[ACT_SAYS] = {
	[SAY_STRIKES_OUT] = "strike {0} of {1}: {0} sync boots in a row were "
			    "not confirmed by Linux, each followed by a "
			    "measure-only boot that was, so the hang guard "
			    "disabled the stage (press g to re-enable it)",
	[SAY_RELIABLE_REMOVED] = "tsc=reliable removed from the next boot: the "
				 "kernel tests the TSC again; uninstalling "
				 "tsctui (u) puts it back",
	[SAY_TSCSYNC_TAKEN_OVER] = "tscsync's job taken over ({0}): "
				   "uninstalling tsctui (u) puts it back",
	[SAY_FORCE_SWEEPS] = "then `tsctui uninstall --force`, from the "
			     "command line, removes whatever of tsctui's the "
			     "ledger missed",
	[SAY_CMDLINE_KEPT] = "{0} still says tsc=nowatchdog and no copy of it "
			     "was kept: the nowatchdog switch (k) may have "
			     "made the file, or the word was there before; "
			     "remove it by hand if it is not yours",
};

const char *hint_say_words(enum act_say code)
{
	if ((size_t)code < ACT_SAYS && say_table[code])
		return say_table[code];
	return act_say_words(code);
}

void hint_said(const struct act *a, char *out, size_t cap)
{
	act_say_join(a->said, a->nsaid, hint_say_words, out, cap);
}

/* text with text[at, end) replaced by words; text as it is when the span
 * is not inside it. */
static void replace(const char *text, const char *words, size_t at, size_t end,
		    char *out, size_t cap)
{
	if (!words || at > end || end > strlen(text)) {
		snprintf(out, cap, "%s", text);
		return;
	}
	snprintf(out, cap, "%.*s%s%s", (int)at, text, words, text + end);
}

void hint_say(const char *error, enum act_hint h, size_t at, size_t end,
	      char *out, size_t cap)
{
	replace(error, h == ACT_HINT_NONE ? NULL : hint_words(h), at, end, out,
		cap);
}

void hint_diagnosis(const struct diagnosis *d, char *out, size_t cap)
{
	replace(d->summary,
		d->advice == DIAG_ADVICE_NONE ? NULL
					      : hint_advice_words(d->advice),
		d->advice_at, d->advice_end, out, cap);
}

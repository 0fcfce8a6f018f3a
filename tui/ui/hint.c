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

void hint_say(const char *error, enum act_hint h, size_t at, size_t end,
	      char *out, size_t cap)
{
	size_t n = strlen(error);

	if (h == ACT_HINT_NONE || at > end || end > n) {
		snprintf(out, cap, "%s", error);
		return;
	}
	snprintf(out, cap, "%.*s%s%s", (int)at, error, hint_words(h),
		 error + end);
}

/* SPDX-License-Identifier: MIT */
/* tsctui guard reset: every hang-guard marker and the strikes cleared (the
 * resume guard's EFI variable too), and the mode chosen again. */
#include <string.h>

#include "../../common/report_var.h"
#include "../../common/tsc.h"
#include "actions.h"
#include "stagecfg.h"

int guard_reset(struct act *a, const char *mode)
{
	enum tsc_mode m;

	if (!tsc_mode_from(mode, strlen(mode), &m))
		return act_fail(a, "unknown mode '%s'", mode);
	return guard_reset_to(a, m);
}

int guard_reset_to(struct act *a, enum tsc_mode m)
{
	struct tsctui_conf c;
	int rc;

	if (act_begin(a, "guard-reset", 0) != 0)
		return -1;
	/* The resume guard's variable first (a resume boot's stage that
	 * never returned left it set, and the next boot that is not a
	 * resume would trip on it): killed between the two, the guard is
	 * still as it was, never cleared on the ESP with a trip to come. */
	if (act_installed(a, &c) != 0 ||
	    act_var_remove(a, TSC_RESUME_VAR_NAME, TSC_REPORT_VAR_GUID_TEXT) !=
		    0 ||
	    stagecfg_write(a, &c, m, "", true) != 0) {
		act_abort(a);
		return -1;
	}
	rc = act_commit(a);
	if (rc == 0)
		act_done(a, SAY_GUARD_CLEARED, tsc_mode_name(m), SAY_END);
	return rc;
}

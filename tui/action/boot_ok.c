/* SPDX-License-Identifier: MIT */
/* tsctui boot-ok, once per boot (tsctui-boot.service): this boot reached
 * Linux.  The guard learns it (stagecfg_boot_ok), this boot's report is
 * kept in /run, and the boot history gains a record. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../format/history_record.h"
#include "../source/boot_id.h"
#include "../source/history.h"
#include "../source/stage_report.h"
#include "../source/system.h"
#include "../util/fsx.h"
#include "actions.h"
#include "stagecfg.h"

/* One history record per boot: what the firmware, the stage and the kernel
 * did (format/history_record.h). */
static int append_history(struct act *a, const char *mode, const char *result)
{
	struct history_record rec = { 0 };
	char line[HISTORY_RECORD_LINE_MAX];
	struct sysinfo s;
	size_t len;
	char *d;

	boot_id_read(a->root, rec.boot_id);
	/* A boot is recorded once, however often boot-ok runs in it. */
	d = fsx_read(act_path(a, HISTORY_RECORD_FILE), &len);
	if (d && rec.boot_id[0] && strstr(d, rec.boot_id)) {
		free(d);
		return 0;
	}
	free(d);
	system_read(a->root, NULL, &s);
	rec.time = (long long)time(NULL);
	snprintf(rec.bios_version, sizeof(rec.bios_version), "%s",
		 s.machine.bios_version);
	snprintf(rec.bios_date, sizeof(rec.bios_date), "%s",
		 s.machine.bios_date);
	rec.bootloader_launch_ns = s.machine.bootloader_launch_ns;
	snprintf(rec.stage_mode, sizeof(rec.stage_mode), "%s", mode);
	snprintf(rec.stage_result, sizeof(rec.stage_result), "%s", result);
	history_kernel_facts(s.have_klog ? s.klog : NULL, &rec.warp_cycles,
			     rec.watchdog_ppm, sizeof(rec.watchdog_ppm));
	snprintf(rec.clocksource, sizeof(rec.clocksource), "%s", s.cs.current);
	system_free(&s);
	history_record_format(&rec, line, sizeof(line));
	if (act_append(a, HISTORY_RECORD_FILE, line) != 0)
		return -1;
	/* the history is one file growing, whether or not it was there */
	act_change(a, HISTORY_RECORD_FILE, CHANGE_MODIFIED);
	return 0;
}

int boot_ok_run(struct act *a)
{
	struct tsctui_conf c;
	struct tsc_report *r;
	char mode[16] = "-", result[32] = "-", *raw = NULL;
	char count[12], limit[12];
	int strikes;
	size_t len;

	if (act_begin(a, "boot-ok", ACT_BOOT_OK) != 0 ||
	    act_installed(a, &c) != 0)
		return -1;
	if (stagecfg_boot_ok(a, &c, &strikes) != 0 || act_ledger_save(a) != 0)
		return -1;
	/* This boot's report, kept where status and the dashboard look. */
	r = calloc(1, sizeof(*r));
	if (r && stage_report_read(a->root, r, &raw, &len) > 0) {
		/* /run is not the ledger's: it is gone at the next boot. */
		if (fsx_exists(act_path(a, "/run")) &&
		    act_mkdir(a, "/run/tsctui", 0755) == 0 &&
		    act_write(a, "/run/tsctui/report", raw, len, 0644) == 0)
			act_change(a, "/run/tsctui/report", CHANGE_CREATED);
		snprintf(mode, sizeof(mode), "%s", tsc_mode_name(r->mode));
		snprintf(result, sizeof(result), "%s",
			 tsc_result_name(r->result));
	}
	free(raw);
	free(r);
	if (append_history(a, mode, result) != 0)
		return -1;
	snprintf(count, sizeof(count), "%d", strikes);
	snprintf(limit, sizeof(limit), "%d", GUARD_MAX_STRIKES);
	act_done(a, SAY_PENDING_CLEARED, SAY_END);
	if (strikes == 0)
		act_say(a, SAY_SYNC_CONFIRMED, SAY_END);
	else if (strikes >= GUARD_MAX_STRIKES)
		act_say(a, SAY_STRIKES_OUT, count, limit, SAY_END);
	else if (strikes > 0)
		act_say(a, SAY_STRIKE, count, limit, SAY_END);
	return 0;
}

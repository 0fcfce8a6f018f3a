/* SPDX-License-Identifier: MIT */
/*
 * The UEFI stage: measure, and in sync mode fix, the TSC offsets of every
 * core before Linux, then leave a report and return (or start the next boot
 * entry).  Whatever happens, control goes back to whoever started us:
 * nothing here may stop a machine from booting.
 *
 * Built three ways from this source: the application (GRUB's chainloader,
 * or its own firmware boot entry), the boot-service driver (systemd-boot's
 * drivers directory: no load options, options from the ESP, EFI_ABORTED to
 * be unloaded), and the sim build (virtual offsets, sim.* honoured).
 */
#include "../common/cpuid.h"
#include "../common/driver.h"
#include "../common/fmt.h"
#include "../common/handoff.h"
#include "../common/report_var.h"
#include "stage.h"

/* One run per boot: the big structures live here, not on the stack.  The
 * platform and the workspace are what responders touch on the APs: static,
 * so that nothing an AP may still use goes away with a stack frame. */
static struct tsc_report report;
static struct tsc_options opts;
static struct tsc_workspace workspace;
static struct tsc_platform platform;
static char text[1024];

static EFI_STATUS finish(EFI_STATUS st)
{
	/* A driver that did its work asks to be unloaded (systemd-boot
	 * accepts EFI_ABORTED from an initialising driver and unloads it). */
	return STAGE_DRIVER ? EFI_ABORTED : st;
}

/* Load options, then the ESP file when config=esp (or for the driver). */
static void collect_options(EFI_HANDLE image, EFI_FILE_HANDLE *esp)
{
	EFI_LOADED_IMAGE *li;
	UINTN n;

	tsc_options_init(&opts);
	*esp = NULL;
	if (!EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, image,
					 &LoadedImageProtocol, (VOID **)&li)) &&
	    li->LoadOptions && li->LoadOptionsSize) {
		n = tsc_options_from_load_options(li->LoadOptions,
						  li->LoadOptionsSize, text,
						  sizeof(text));
		tsc_options_parse(&opts, text, n, STAGE_SIM);
	}
	if (STAGE_DRIVER)
		opts.config_esp = true;
	if (!opts.config_esp)
		return;
	if (EFI_ERROR(esp_open(image, esp))) {
		*esp = NULL;
		return;
	}
	if (!EFI_ERROR(esp_read_options(*esp, text, sizeof(text), &n)))
		tsc_options_parse(&opts, text, n, STAGE_SIM);
}

/* This boot is a probation boot: it measures only (see guard). */
static BOOLEAN guard_probation;
/* The last boot was another system's: the unconfirmed sync was cleared. */
static BOOLEAN guard_other_os;
/* An AP was stopped by the firmware or still runs the stage's code: its
 * state is unknown, so the guard stays armed (wait_for_aps). */
static BOOLEAN aps_unknown;
/* The ESP whose pending goes at release (guard_returned). */
static EFI_FILE_HANDLE guard_esp;
/* A resume boot (resume_guard): its guard is the variable, set. */
static BOOLEAN resuming, resume_armed;

/* The end of the run, in common/handoff.c's order: its operations are
 * below guard_returned. */
static struct tsc_handoff handoff;

/* pending stays: the reason says so, after what it already says (the
 * guard's sentence is the shorter "pending stays..." tail then). */
static void say_kept(const char *why, const char *tail)
{
	static char both[sizeof(report.reason)];
	struct tsc_buf b;

	if (!report.reason[0] || report.result == TSC_RESULT_IN_SYNC) {
		tsc_report_set_result(&report,
				      report.result == TSC_RESULT_IN_SYNC
					      ? TSC_RESULT_UNSURE
					      : report.result,
				      why);
		return;
	}
	tsc_buf_init(&b, both, sizeof(both));
	tsc_buf_puts(&b, report.reason);
	tsc_buf_puts(&b, "; ");
	tsc_buf_puts(&b, tail);
	tsc_report_set_result(&report, report.result, both);
}

static void keep_pending(const char *why, const char *tail)
{
	tsc_handoff_keep(&handoff);
	say_kept(why, tail);
}

#define PENDING_STAYS "pending stays until Linux confirms this boot"

/*
 * The stage's work returned: a run that wrote leaves synced (made first,
 * so that no moment has neither).  pending stays when synced could not be
 * made or an AP's state is unknown: then only Linux (boot-ok) clears it,
 * and a boot that never gets there trips the guard.  pending itself goes
 * at guard_release.  Then the report says what the guard did, unless
 * something else already explains the result.
 */

/* The guard's word for this boot, after the run's own reason where it
 * gave one (the run's first: it says why the result is what it is). */
static void guard_note(const char *note)
{
	char both[sizeof(report.reason)];
	struct tsc_buf b;

	if (!report.reason[0]) {
		tsc_report_set_result(&report, report.result, note);
		return;
	}
	tsc_buf_init(&b, both, sizeof(both));
	tsc_buf_puts(&b, report.reason);
	tsc_buf_puts(&b, "; ");
	tsc_buf_puts(&b, note);
	tsc_report_set_result(&report, report.result, both);
}
static void guard_returned(EFI_FILE_HANDLE esp)
{
	unsigned keep;

	guard_esp = esp;
	keep = tsc_handoff_returned(&handoff, report.msr_writes > 0,
				    aps_unknown);
	if (keep & TSC_KEEP_UNMARKED)
		say_kept("the stage wrote but could not record synced on "
			 "the ESP; " PENDING_STAYS,
			 "synced not recorded: " PENDING_STAYS);
	if (keep & TSC_KEEP_UNKNOWN_AP)
		say_kept("a processor was stopped by the firmware or "
			 "still ran the stage's code; " PENDING_STAYS,
			 PENDING_STAYS);
	if (guard_probation)
		guard_note("the last sync boot was not confirmed by Linux "
			   "(another system chosen, powered off, or it hung): "
			   "this boot measures only");
	else if (guard_other_os)
		guard_note("the last boot started another system "
			   "(systemd-boot's LoaderEntryLastBooted): no "
			   "probation");
	else if (esp_flush_failed())
		guard_note("FlushBlocks on the ESP failed; the hang guard's "
			   "files may not be on the disk");
}

/* The operations of the run's end (common/handoff.h).  pending goes, with
 * the resume guard's variable where it is still set (firmware-entry path),
 * when the stage returns, or right before StartImage of the next loader,
 * so that the connects and the load of that loader are still guarded;
 * handoff calls this only when nothing keeps them. */
static bool mark_synced(void *ctx)
{
	(void)ctx;
	return esp_create(guard_esp, L"synced") == EFI_SUCCESS;
}

static void guard_release(void *ctx)
{
	(void)ctx;
	if (resume_armed && esp_resume_clear() != EFI_SUCCESS)
		Print(L"tsctui: could not delete the resume guard's "
		      L"variable " TSC_RESUME_VAR_NAME L"\r\n");
	if (guard_esp && esp_exists(guard_esp, L"pending") &&
	    esp_delete(guard_esp, L"pending") != EFI_SUCCESS)
		Print(L"tsctui: could not delete the pending file\r\n");
}

static void guard_close(void *ctx)
{
	(void)ctx;
	resume_armed = FALSE;
	if (guard_esp)
		uefi_call_wrapper(guard_esp->Close, 1, guard_esp);
	guard_esp = NULL;
}

static EFI_HANDLE chain_image;

static uint64_t next_load(void *ctx)
{
	(void)ctx;
	return chain_load(chain_image, opts.next);
}

static uint64_t next_start(void *ctx)
{
	(void)ctx;
	return chain_start();
}

static const struct tsc_handoff_ops handoff_ops = {
	.mark_synced = mark_synced,
	.release = guard_release,
	.close = guard_close,
	.load = next_load,
	.start = next_start,
};

/*
 * The GRUB block's channel (guard=grub): GRUB's boot command reports only
 * success or failure, so the stage says how it returned in files the block
 * tests with [ -f ]: run\wrote when it wrote a counter, then run\ran-ok
 * when nothing is left unknown.  Both go first, before any work; one that
 * cannot go means no work.  Not on a boot the block skips (hibernated).
 *
 * GRUB caches disk blocks and drops them only at a disk open more than
 * GRUB_CACHE_TIMEOUT (2 s) after the last one: a stage that returns sooner
 * may be judged by what GRUB read before it ran.  That is harmless when
 * the markers end as they began; when they change, the stage waits
 * CACHE_WAIT_US after writing them (DESIGN.md 7.1).
 */
#define CACHE_WAIT_US 2200000ull
static BOOLEAN had_ran_ok, had_wrote, had_tripped;

static BOOLEAN grub_channel_open(EFI_FILE_HANDLE esp)
{
	if (esp) {
		had_ran_ok = esp_exists(esp, L"run\\ran-ok");
		had_wrote = esp_exists(esp, L"run\\wrote");
		had_tripped = esp_exists(esp, L"run\\tripped");
	}
	if (esp && esp_remove(esp, L"run\\ran-ok") == EFI_SUCCESS &&
	    esp_remove(esp, L"run\\wrote") == EFI_SUCCESS &&
	    esp_remove(esp, L"run\\tripped") == EFI_SUCCESS)
		return TRUE;
	tsc_report_set_result(&report, TSC_RESULT_ERROR,
			      "cannot clear the GRUB block's markers in "
			      "\\EFI\\tsctui\\run on the ESP; nothing done");
	return FALSE;
}

/* The markers changed: let GRUB's cache of them expire before returning.
 * The whole wait after the markers are on the disk, not the rest of one
 * counted from the start: GRUB's clock is its own TSC calibration, and
 * under TCG that ran slower than the stage's (grub-boot.t's probation boot,
 * several seconds long, was still judged by GRUB's old copy). */
static void outlast_grub_cache(BOOLEAN ran_ok, BOOLEAN wrote, BOOLEAN tripped)
{
	if (ran_ok == had_ran_ok && wrote == had_wrote &&
	    tripped == had_tripped)
		return;
	if (STAGE_SIM && opts.sim_no_cache_wait)
		return;
	uefi_call_wrapper(BS->Stall, 1, (UINTN)CACHE_WAIT_US);
}

static void grub_channel_close(EFI_FILE_HANDLE esp)
{
	BOOLEAN wrote = FALSE, ran_ok = FALSE;

	if (report.msr_writes > 0) {
		if (esp_create(esp, L"run\\wrote") != EFI_SUCCESS) {
			keep_pending("the stage wrote but could not tell the "
				     "GRUB block so; " PENDING_STAYS,
				     "the GRUB block not told: " PENDING_STAYS);
			outlast_grub_cache(FALSE, FALSE, FALSE);
			return;
		}
		wrote = TRUE;
	}
	if (aps_unknown)
		keep_pending("a processor was stopped by the firmware or "
			     "still ran the stage's code; " PENDING_STAYS,
			     PENDING_STAYS);
	else if (esp_create(esp, L"run\\ran-ok") == EFI_SUCCESS)
		ran_ok = TRUE;
	else
		Print(L"tsctui: could not write run\\ran-ok; GRUB keeps "
		      L"pending\r\n");
	outlast_grub_cache(ran_ok, wrote, FALSE);
}

/*
 * The resume guard's variable found on a boot that is not a resume: the
 * stage never returned on a resume boot (or left a processor unknown and
 * Linux never confirmed it).  That boot could write nothing else, so the
 * trip is recorded now, like a pending found: the ESP's disabled, or on
 * the GRUB path run\tripped, which the block turns into tsctui_tripped.
 * The variable goes only once the trip is recorded.  No work this boot.
 */
static void resume_trip(EFI_FILE_HANDLE esp, BOOLEAN grub)
{
	EFI_STATUS st = EFI_SUCCESS;

	if (grub)
		st = esp_create(esp, L"run\\tripped");
	else if (!esp_exists(esp, L"disabled"))
		st = esp_create(esp, L"disabled");
	if (st == EFI_SUCCESS) {
		st = esp_resume_clear();
		if (st == EFI_SUCCESS)
			report.nvram_writes++;
		else
			Print(L"tsctui: could not delete the resume guard's "
			      L"variable " TSC_RESUME_VAR_NAME L"\r\n");
	}
	tsc_report_set_result(&report, TSC_RESULT_GUARD_TRIPPED,
			      st == EFI_SUCCESS
				      ? "the stage never returned on a resume "
					"boot; it disabled itself and did "
					"nothing"
			      : grub ? "the stage never returned on a resume "
				       "boot; could not tell the GRUB block "
				       "(run\\tripped), nothing done"
				     : "the stage never returned on a resume "
				       "boot; could not write the disabled "
				       "file, nothing done");
	if (grub)
		outlast_grub_cache(FALSE, FALSE, TRUE);
}

/*
 * A resume boot (DESIGN.md 7.1): the hibernated kernel has the ESP, and
 * the file system with the grubenv, mounted: nothing is written there.
 * The guard's state for this boot is the stage's own non-volatile
 * variable: set before any work, deleted when the stage returns with
 * nothing left unknown (resume_returned, or guard_release on the
 * firmware-entry path).  Found set, a resume boot's stage
 * hung: nothing is done (the next boot that is not a resume records the
 * trip, resume_trip).  The configured mode runs, sync only after a
 * confirmed sync (no synced, no strikes on the ESP; on the GRUB path the
 * block chose the mode from the grubenv).  A resume never starts or ends
 * a probation.  FALSE: no work (the report says why).
 */
static const char *resume_note;

static BOOLEAN resume_guard(EFI_FILE_HANDLE esp)
{
	if (esp_resume_armed()) {
		tsc_report_set_result(&report, TSC_RESULT_GUARD_TRIPPED,
				      "the stage never returned on the last "
				      "resume boot; nothing done (the next "
				      "boot that is not a resume disables the "
				      "stage)");
		return FALSE;
	}
	if (opts.config_esp && esp_exists(esp, L"disabled")) {
		tsc_report_set_result(&report, TSC_RESULT_SKIPPED,
				      "the hang guard disabled the stage; "
				      "`tsctui guard reset` re-enables it");
		return FALSE;
	}
	if (opts.config_esp && esp_exists(esp, L"pending")) {
		tsc_report_set_result(&report, TSC_RESULT_SKIPPED,
				      "the stage never returned on the last "
				      "boot; a resume writes nothing, so the "
				      "next boot that is not a resume disables "
				      "it");
		return FALSE;
	}
	if (opts.mode == TSC_MODE_OFF)
		return TRUE;
	resume_note = "a resume boot: the ESP untouched, the hang guard in "
		      "the " TSC_RESUME_VAR_NAME " variable";
	if (opts.config_esp && opts.mode == TSC_MODE_SYNC &&
	    (esp_exists(esp, L"synced") || esp_has_strikes(esp))) {
		opts.mode = TSC_MODE_MEASURE;
		report.mode = TSC_MODE_MEASURE;
		resume_note = "a resume boot after a sync boot Linux did not "
			      "confirm: this resume measures only, the ESP "
			      "untouched";
	}
	if (esp_resume_arm() != EFI_SUCCESS) {
		tsc_report_set_result(&report, TSC_RESULT_ERROR,
				      "a resume boot: cannot set the hang "
				      "guard's variable " TSC_RESUME_VAR_NAME
				      "; nothing done");
		return FALSE;
	}
	report.nvram_writes++;
	resume_armed = TRUE;
	return TRUE;
}

/* The work returned on a resume boot: the variable goes now, before the
 * report is out (so the report counts what was done, and a boot stopped
 * right after the report finds it gone), or on the firmware-entry path
 * right before the next loader starts (guard_release; counted ahead).  It
 * stays when an AP's state is unknown: then the sleep hook's post, in the
 * resumed Linux, deletes it, and a boot that never gets there trips. */
static void resume_returned(void)
{
	if (aps_unknown) {
		keep_pending("a processor was stopped by the firmware or "
			     "still ran the stage's code; the resume guard's "
			     "variable stays until Linux confirms this boot",
			     "the resume guard's variable stays until Linux "
			     "confirms this boot");
	} else if (opts.has_next && !STAGE_DRIVER) {
		report.nvram_writes++;
	} else {
		resume_armed = FALSE;
		if (esp_resume_clear() == EFI_SUCCESS)
			report.nvram_writes++;
		else
			keep_pending("cannot delete the resume guard's "
				     "variable " TSC_RESUME_VAR_NAME
				     "; the next boot that is not a resume "
				     "disables the stage",
				     "cannot delete the resume guard's "
				     "variable");
	}
	if (resume_note)
		guard_note(resume_note);
}

/*
 * A probation marker left over: that measure-only boot never reached Linux
 * (another system chosen, a power-off at the menu, or a hang after the
 * stage).  Counted in lost1..lost4, one file per count (the GRUB block
 * keeps the same flags in the grubenv: it has no arithmetic); the fifth
 * trips the guard.  boot-ok removes them.  FALSE: no work this boot (the
 * report says why).
 */
static BOOLEAN count_lost(EFI_FILE_HANDLE esp)
{
	static CHAR16 *const lost[] = { L"lost1", L"lost2", L"lost3",
					L"lost4" };
	UINTN i;

	for (i = 0; i < sizeof(lost) / sizeof(lost[0]); i++)
		if (!esp_exists(esp, lost[i]))
			break;
	if (i == sizeof(lost) / sizeof(lost[0])) {
		if (esp_create(esp, L"disabled") != EFI_SUCCESS ||
		    esp_delete(esp, L"probation") != EFI_SUCCESS) {
			tsc_report_set_result(&report, TSC_RESULT_ERROR,
					      "cannot record the hang guard's "
					      "trip on the ESP; nothing done");
			return FALSE;
		}
		tsc_report_set_result(&report, TSC_RESULT_GUARD_TRIPPED,
				      "5 measure-only boots in a row never "
				      "reached Linux; the stage disabled "
				      "itself and did nothing");
		return FALSE;
	}
	if (esp_create(esp, lost[i]) != EFI_SUCCESS ||
	    esp_delete(esp, L"probation") != EFI_SUCCESS) {
		tsc_report_set_result(
			&report, TSC_RESULT_ERROR,
			"cannot count the hang guard's lost "
			"probation boot on the ESP; nothing done");
		return FALSE;
	}
	return TRUE;
}

/*
 * The ESP hang guard (DESIGN.md 7.1).  Returns FALSE when the stage must do
 * no work; the report then says why.  pending means "the stage started and
 * has not returned": found set, the stage hung, and the guard trips.  A
 * sync run's writes leave synced until Linux confirms them (boot-ok); a
 * boot that finds synced still set is a probation boot: it measures only,
 * and boot-ok counts a strike if it reaches Linux.  mode=off arms nothing:
 * doing nothing cannot hang.  Every change is on the disk (FlushBlocks)
 * before this returns TRUE, so before any MSR write.
 */
static BOOLEAN guard(EFI_FILE_HANDLE esp)
{
	EFI_STATUS st;

	if (!esp) {
		tsc_report_set_result(&report, TSC_RESULT_ERROR,
				      "cannot open the ESP this stage was "
				      "loaded from; nothing done");
		return FALSE;
	}
	/* A resume boot's stage hung (the resume could write only that). */
	if (esp_resume_armed()) {
		resume_trip(esp, FALSE);
		return FALSE;
	}
	if (esp_exists(esp, L"disabled")) {
		tsc_report_set_result(&report, TSC_RESULT_SKIPPED,
				      "the hang guard disabled the stage (it "
				      "hung in a boot, or 3 sync boots were "
				      "not confirmed by Linux); `tsctui guard "
				      "reset` re-enables it");
		return FALSE;
	}
	if (esp_exists(esp, L"pending")) {
		st = esp_create(esp, L"disabled");
		if (!EFI_ERROR(st))
			st = esp_delete(esp, L"pending");
		tsc_report_set_result(
			&report, TSC_RESULT_GUARD_TRIPPED,
			EFI_ERROR(st) ? "the stage never returned on "
					"the last boot; could not write "
					"the disabled file, nothing done"
				      : "the stage never returned on "
					"the last boot; it disabled "
					"itself and did nothing");
		return FALSE;
	}
	if (opts.mode == TSC_MODE_OFF)
		return TRUE;
	/* A probation marker left over: that boot never reached Linux. */
	if (esp_exists(esp, L"probation") && !count_lost(esp))
		return FALSE;
	st = esp_create(esp, L"pending");
	if (EFI_ERROR(st)) {
		tsc_report_set_result(&report, TSC_RESULT_ERROR,
				      "cannot write the hang guard's pending "
				      "file on the ESP; nothing done");
		return FALSE;
	}
	/* The boot after the unconfirmed sync was another system's (what
	 * systemd-boot can tell with `default @saved`): no probation. */
	if (esp_exists(esp, L"synced") && esp_last_boot_other_os(esp)) {
		if (esp_delete(esp, L"synced") != EFI_SUCCESS) {
			tsc_report_set_result(
				&report, TSC_RESULT_ERROR,
				"cannot clear the hang guard's "
				"synced on the ESP; nothing done");
			guard_returned(esp);
			return FALSE;
		}
		guard_other_os = TRUE;
	}
	if (esp_exists(esp, L"synced")) {
		if (EFI_ERROR(esp_create(esp, L"probation")) ||
		    EFI_ERROR(esp_delete(esp, L"synced"))) {
			tsc_report_set_result(&report, TSC_RESULT_ERROR,
					      "cannot record the hang guard's "
					      "probation on the ESP; nothing "
					      "done");
			guard_returned(esp);
			return FALSE;
		}
		guard_probation = TRUE;
		opts.mode = TSC_MODE_MEASURE;
		report.mode = TSC_MODE_MEASURE;
	}
	return TRUE;
}

static void describe_cpu(void)
{
	struct tsc_cpu_regs regs;

	tsc_cpu_read(&regs);
	tsc_cpu_decode(&regs, &report.cpu);
}

static void measure_and_sync(void)
{
	struct tsc_run_params params;
	struct tsc_platform *pf = &platform;
	enum tsc_mode run_mode = opts.mode;
	const char *refusal = NULL, *why;
	EFI_STATUS st;

	if (opts.mode == TSC_MODE_SYNC && !STAGE_SIM &&
	    !tsc_sync_allowed(&report.cpu, opts.allow_any_cpu, &refusal))
		run_mode = TSC_MODE_MEASURE;
	st = mp_init(pf, &opts, report.cpu.rdtscp, &why);
	if (EFI_ERROR(st)) {
		/* Without MP services nothing but the BSP can be seen: never
		 * in-sync. */
		tsc_report_set_result(&report,
				      st == EFI_NOT_FOUND ? TSC_RESULT_UNSURE
							  : TSC_RESULT_ERROR,
				      why);
		return;
	}
	if (!STAGE_SIM && run_mode == TSC_MODE_MEASURE)
		pf->write =
			NULL; /* measure mode cannot write, by construction */
	tsc_run_params_default(&params, run_mode);
	tsc_run(pf, &params, &workspace, &report);
	if (mp_blocking()) {
		tsc_report_set_result(&report, TSC_RESULT_UNSURE,
				      "MP services run StartupThisAP blocking "
				      "(the call returned only once the AP's "
				      "work had): the stage cannot talk to an "
				      "AP while it runs, so it stopped");
		return;
	}
	if (refusal)
		tsc_report_set_result(&report, TSC_RESULT_REFUSED, refusal);
}

/*
 * Returning unloads this image: first MP services must have seen every AP
 * run end.  One it had to stop at its timeout is reported; the result can
 * no longer be in-sync (that AP's last state is unknown).
 */
static void wait_for_aps(void)
{
	UINTN stuck = mp_unfinished(), stopped = 0;
	uint32_t i;

	for (i = 0; i < report.nap; i++) {
		if (!mp_was_stopped(report.ap[i].index))
			continue;
		report.ap[i].note = TSC_NOTE_STOPPED;
		report.ap[i].fw_status = (uint64_t)EFI_TIMEOUT;
		stopped++;
	}
	if (stuck)
		Print(L"tsctui: %d processor(s) did not finish\r\n",
		      (int)stuck);
	aps_unknown = stopped || stuck;
	if ((stopped || stuck) && report.result == TSC_RESULT_IN_SYNC)
		tsc_report_set_result(
			&report, TSC_RESULT_UNSURE,
			stuck ? "a processor was still running "
				"the stage's code when it returned"
			      : "MP services had to stop a "
				"processor that overran");
}

/* gnu-efi's crt0 relocates the image, then calls this with the SysV ABI:
 * no EFIAPI here (the AP procedure in mp.c, called by firmware, has it). */
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_FILE_HANDLE esp;
	BOOLEAN grub_channel = FALSE;

	InitializeLib(image, systab);
	tsc_handoff_init(&handoff, &handoff_ops);
	if (STAGE_SIM)
		Print(L"tsctui %a: TEST BUILD with simulated TSC offsets; "
		      L"not for real machines\r\n",
		      TSCTUI_STAGE_VERSION);
	tsc_report_init(&report, TSCTUI_STAGE_VERSION,
			STAGE_SIM ? TSC_BUILD_SIM : TSC_BUILD_RELEASE);
	collect_options(image, &esp);
	report.mode = opts.mode;
	report.config =
		opts.config_esp ? TSC_CONFIG_ESP : TSC_CONFIG_LOAD_OPTIONS;
	if (opts.ignored[0])
		tsc_report_ignore(&report, opts.ignored,
				  tsc_strlen(opts.ignored));
	if (opts.has_next) {
		struct tsc_buf b;

		tsc_buf_init(&b, report.next, sizeof(report.next));
		tsc_buf_puts(&b, "Boot");
		tsc_buf_hex4(&b, opts.next);
	}
	describe_cpu();

	/* The GRUB block tests only the sleep hook's marker: so does the
	 * stage it starts (guard=grub), to see the same resume. */
	if (opts.guard_grub && !opts.config_esp &&
	    EFI_ERROR(esp_open(image, &esp)))
		esp = NULL;
	if (esp && (opts.config_esp || opts.guard_grub))
		resuming = esp_hibernated(esp, !opts.config_esp);
	if (resuming) {
		if (!resume_guard(esp))
			goto publish;
	} else if (opts.config_esp && !guard(esp)) {
		goto publish;
	}
	if (opts.mode == TSC_MODE_OFF) {
		tsc_report_set_result(&report, TSC_RESULT_SKIPPED, "mode=off");
		goto publish;
	}
	if (opts.guard_grub && !opts.config_esp && !resuming) {
		if (!grub_channel_open(esp))
			goto publish;
		if (esp_resume_armed()) {
			resume_trip(esp, TRUE);
			goto publish;
		}
		grub_channel = TRUE;
	}
	if (STAGE_SIM && opts.sim_hang) {
		/* A hung sync boot, on purpose: the guard is armed. */
		Print(L"tsctui: sim.hang=1: hanging now\r\n");
		for (;;)
			tsc_cpu_relax();
	}
	measure_and_sync();
	/* Every AP run is over (or stopped by the firmware) before pending
	 * goes: until then the stage has not returned. */
	wait_for_aps();
	if (resuming)
		resume_returned();
	else if (opts.config_esp)
		guard_returned(esp);
	if (grub_channel)
		grub_channel_close(esp);

publish:
	report_publish(&report, opts.sim_varmax);
	/* As a firmware boot entry: start the real loader.  If that fails,
	 * return the failure: the boot manager tries the next BootOrder
	 * entry only after an error (a success opens its setup screen). */
	if (esp && esp != guard_esp)
		uefi_call_wrapper(esp->Close, 1, esp);
	if (opts.has_next && !STAGE_DRIVER) {
		chain_image = image;
		return (EFI_STATUS)tsc_handoff_chain(&handoff);
	}
	tsc_handoff_release(&handoff);
	return finish(EFI_SUCCESS);
}

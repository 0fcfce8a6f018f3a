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

/*
 * The stage returned: pending goes, and a run that wrote leaves synced
 * (made first, so that no moment has neither).  Then the report says what
 * the guard did, unless something else already explains the result.
 */
static void guard_returned(EFI_FILE_HANDLE esp)
{
	if (report.msr_writes > 0)
		esp_create(esp, L"synced");
	if (esp_exists(esp, L"pending") &&
	    EFI_ERROR(esp_delete(esp, L"pending")))
		Print(L"tsctui: could not delete the pending file\r\n");
	if (report.reason[0])
		return;
	if (guard_probation)
		tsc_report_set_result(&report, report.result,
				      "the last sync boot was not confirmed "
				      "by Linux (another system chosen, "
				      "powered off, or it hung): this boot "
				      "measures only");
	else if (esp_flush_failed())
		tsc_report_set_result(&report, report.result,
				      "FlushBlocks on the ESP failed; the hang "
				      "guard's files may not be on the disk");
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
	/* The hibernated system has the ESP mounted: not one byte written. */
	if (esp_hibernated(esp)) {
		tsc_report_set_result(&report, TSC_RESULT_SKIPPED,
				      "a hibernated system is being resumed; "
				      "the stage touched nothing");
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
	st = esp_create(esp, L"pending");
	if (EFI_ERROR(st)) {
		tsc_report_set_result(&report, TSC_RESULT_ERROR,
				      "cannot write the hang guard's pending "
				      "file on the ESP; nothing done");
		return FALSE;
	}
	/* A probation marker left over: that boot never reached Linux. */
	if (esp_exists(esp, L"probation"))
		esp_delete(esp, L"probation");
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

	InitializeLib(image, systab);
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

	if (opts.config_esp && !guard(esp))
		goto publish;
	if (opts.mode == TSC_MODE_OFF) {
		tsc_report_set_result(&report, TSC_RESULT_SKIPPED, "mode=off");
		goto publish;
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
	if (opts.config_esp)
		guard_returned(esp);

publish:
	report_publish(&report, opts.sim_varmax);
	if (esp)
		uefi_call_wrapper(esp->Close, 1, esp);
	/* As a firmware boot entry: start the real loader.  If that fails,
	 * return the failure: the boot manager tries the next BootOrder
	 * entry only after an error (a success opens its setup screen). */
	if (opts.has_next && !STAGE_DRIVER)
		return chain_boot(image, opts.next);
	return finish(EFI_SUCCESS);
}

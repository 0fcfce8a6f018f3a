/* A test helper, a boot-service driver: it stands in for MP services that
 * are not EDK2's, so the stage's waits run against them under real OVMF.
 * Loaded from the UEFI Shell (`load`), it stays resident and changes the
 * firmware's EFI_MP_SERVICES_PROTOCOL in place; what it does is chosen by
 * its own file name (one binary, copied under three names):
 * - MPBLOCK*.EFI: StartupThisAP runs blocking whatever the caller's
 *   WaitEvent says, and never signals that event (Intel's reference
 *   CpuInitDxe after a normal return);
 * - MPSILENT*.EFI: StartupThisAP runs non-blocking, but the caller's event
 *   is never signalled (the firmware keeps one of its own);
 * - MPNONE*.EFI: the protocol is uninstalled: a firmware without MP
 *   services;
 * - MPSLOW*.EFI: the protocol is left alone, but every Stall shorter than
 *   20 ms takes 20 times as long as asked (firmware whose short Stalls
 *   overshoot; the 20 ms calibration Stall stays exact, so the TSC rate
 *   the stage computes is right and only the polling is slowed). */
#include <efi.h>
#include <efilib.h>

#include "../../efi/mpservices.h"

static EFI_GUID mp_guid = EFI_MP_SERVICES_PROTOCOL_GUID;
static EFI_MP_SERVICES_STARTUP_THIS_AP firmware_start;
static EFI_STALL firmware_stall;

#define SLOW_BELOW_US 20000
#define SLOW_FACTOR 20

static EFI_STATUS EFIAPI slow_stall(UINTN us)
{
	return firmware_stall(us < SLOW_BELOW_US ? us * SLOW_FACTOR : us);
}

static EFI_STATUS EFIAPI start_blocking(EFI_MP_SERVICES_PROTOCOL *self,
					EFI_AP_PROCEDURE fn, UINTN cpu,
					EFI_EVENT ev, UINTN timeout, VOID *arg,
					BOOLEAN *finished)
{
	(void)ev;
	return firmware_start(self, fn, cpu, NULL, timeout, arg, finished);
}

static EFI_STATUS EFIAPI start_silent(EFI_MP_SERVICES_PROTOCOL *self,
				      EFI_AP_PROCEDURE fn, UINTN cpu,
				      EFI_EVENT ev, UINTN timeout, VOID *arg,
				      BOOLEAN *finished)
{
	EFI_EVENT own;
	EFI_STATUS st;

	(void)ev;
	st = uefi_call_wrapper(BS->CreateEvent, 5, 0, 0, NULL, NULL, &own);
	if (EFI_ERROR(st))
		return st;
	/* Never closed: the firmware signals it whenever it likes. */
	return firmware_start(self, fn, cpu, own, timeout, arg, finished);
}

static BOOLEAN named(EFI_HANDLE image, CHAR16 *prefix)
{
	EFI_LOADED_IMAGE *li;
	CHAR16 *path, *base, *p, *q;
	BOOLEAN yes = TRUE;

	if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, image,
					&LoadedImageProtocol, (VOID **)&li)))
		return FALSE;
	path = DevicePathToStr(li->FilePath);
	if (!path)
		return FALSE;
	for (base = p = path; *p; p++)
		if (*p == '\\' || *p == '/')
			base = p + 1;
	for (p = base, q = prefix; *q; p++, q++) {
		CHAR16 c = *p >= 'a' && *p <= 'z' ? (CHAR16)(*p - 32) : *p;

		if (c != *q) {
			yes = FALSE;
			break;
		}
	}
	FreePool(path);
	return yes;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_MP_SERVICES_PROTOCOL *mp;
	EFI_HANDLE *handles;
	EFI_STATUS st;
	UINTN n = 0;

	InitializeLib(image, systab);
	if (named(image, L"MPSLOW")) {
		firmware_stall = BS->Stall;
		BS->Stall = slow_stall;
		Print(L"tsctui-test: short Stalls now take %d times as "
		      L"long\r\n",
		      SLOW_FACTOR);
		return EFI_SUCCESS;
	}
	st = LibLocateHandle(ByProtocol, &mp_guid, NULL, &n, &handles);
	if (EFI_ERROR(st) || !n) {
		Print(L"tsctui-test: no MP services protocol: %r\r\n", st);
		return EFI_NOT_FOUND;
	}
	st = uefi_call_wrapper(BS->HandleProtocol, 3, handles[0], &mp_guid,
			       (VOID **)&mp);
	if (EFI_ERROR(st))
		return st;
	if (named(image, L"MPNONE")) {
		st = uefi_call_wrapper(BS->UninstallProtocolInterface, 3,
				       handles[0], &mp_guid, mp);
		Print(L"tsctui-test: MP services uninstalled: %r\r\n", st);
		return st;
	}
	firmware_start = mp->StartupThisAP;
	if (named(image, L"MPBLOCK")) {
		mp->StartupThisAP = start_blocking;
		Print(L"tsctui-test: MP services now blocking\r\n");
	} else {
		mp->StartupThisAP = start_silent;
		Print(L"tsctui-test: MP services now never signal\r\n");
	}
	return EFI_SUCCESS;
}

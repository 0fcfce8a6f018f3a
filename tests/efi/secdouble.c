/* A test helper, a boot-service driver: it stands in for a firmware whose
 * image verification refuses some images, so the stage's failure paths
 * after LoadImage run under real OVMF.  Loaded from the UEFI Shell (`load`),
 * it stays resident and wraps the firmware's Security2 architectural
 * protocol (the check the DXE core's LoadImage asks of every image):
 * - a file named BOOTX64.EFI or REFUSED*.EFI gets EFI_SECURITY_VIOLATION,
 *   as under a DEFER_EXECUTE policy: the core loads the image and returns
 *   a handle that the caller must unload;
 * - a file named DENIED*.EFI gets EFI_ACCESS_DENIED: not loaded, no handle;
 * - a file named HANG*.EFI is never answered: LoadImage hangs (the boot is
 *   stopped by the test, which then reads what the ESP holds);
 * - every other image is left to the firmware's own check. */
#include <efi.h>
#include <efilib.h>

typedef struct sec2 SEC2;
typedef EFI_STATUS(EFIAPI *SEC2_AUTH)(SEC2 *self, EFI_DEVICE_PATH *path,
				      VOID *buf, UINTN size, BOOLEAN boot);
struct sec2 {
	SEC2_AUTH FileAuthentication;
};

static EFI_GUID sec2_guid = { 0x94ab2f58,
			      0x1438,
			      0x4ef1,
			      { 0x91, 0x52, 0x18, 0x94, 0x1a, 0x3a, 0x0e,
				0x68 } };
static SEC2_AUTH firmware_check;

static CHAR16 upper(CHAR16 c)
{
	return c >= 'a' && c <= 'z' ? (CHAR16)(c - 'a' + 'A') : c;
}

/* The last path component of the path's last File() node, upper-cased. */
static void file_name(EFI_DEVICE_PATH *path, CHAR16 *out, UINTN cap)
{
	CHAR16 *name = NULL, *p;
	UINTN len = 0, i;

	out[0] = 0;
	for (; path && !IsDevicePathEnd(path); path = NextDevicePathNode(path))
		if (DevicePathType(path) == MEDIA_DEVICE_PATH &&
		    DevicePathSubType(path) == MEDIA_FILEPATH_DP) {
			name = ((FILEPATH_DEVICE_PATH *)path)->PathName;
			len = (DevicePathNodeLength(path) - 4) / sizeof(CHAR16);
		}
	if (!name)
		return;
	for (p = name, i = 0; i < len && name[i]; i++)
		if (name[i] == '\\')
			p = name + i + 1;
	for (i = 0; i + 1 < cap && p + i < name + len && p[i]; i++)
		out[i] = upper(p[i]);
	out[i] = 0;
}

static BOOLEAN starts(CHAR16 *s, CHAR16 *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return FALSE;
	return TRUE;
}

static EFI_STATUS EFIAPI check(SEC2 *self, EFI_DEVICE_PATH *path, VOID *buf,
			       UINTN size, BOOLEAN boot)
{
	CHAR16 name[64];

	file_name(path, name, 64);
	if (StrCmp(name, L"BOOTX64.EFI") == 0 || starts(name, L"REFUSED")) {
		Print(L"tsctui-test: security violation for %s\r\n", name);
		return EFI_SECURITY_VIOLATION;
	}
	if (starts(name, L"HANG")) {
		Print(L"tsctui-test: hanging in LoadImage for %s\r\n", name);
		for (;;)
			__asm__ __volatile__("pause");
	}
	if (starts(name, L"DENIED")) {
		Print(L"tsctui-test: access denied for %s\r\n", name);
		return EFI_ACCESS_DENIED;
	}
	return firmware_check(self, path, buf, size, boot);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	SEC2 *sec2;
	EFI_STATUS st;

	InitializeLib(image, systab);
	st = uefi_call_wrapper(BS->LocateProtocol, 3, &sec2_guid, NULL,
			       (VOID **)&sec2);
	if (EFI_ERROR(st)) {
		Print(L"tsctui-test: no Security2 protocol: %r\r\n", st);
		return st;
	}
	firmware_check = sec2->FileAuthentication;
	sec2->FileAuthentication = check;
	Print(L"tsctui-test: security double installed\r\n");
	return EFI_SUCCESS;
}

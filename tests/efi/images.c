/* A test helper: counts the loaded images that the security double
 * (secdouble.c) refused with EFI_SECURITY_VIOLATION and that are still
 * loaded: a handle the caller of LoadImage should have unloaded. */
#include <efi.h>
#include <efilib.h>

/* The same rule as the double's: BOOTX64.EFI or REFUSED*, any case. */
static BOOLEAN refused_name(CHAR16 *s)
{
	static const CHAR16 *names[] = { L"BOOTX64.EFI", L"REFUSED" };
	CHAR16 *p = s;
	UINTN k, i;

	for (; *s; s++)
		if (*s == '\\')
			p = s + 1;
	for (k = 0; k < 2; k++) {
		for (i = 0; names[k][i]; i++) {
			CHAR16 c = p[i];

			if (c >= 'a' && c <= 'z')
				c = (CHAR16)(c - 'a' + 'A');
			if (c != names[k][i])
				break;
		}
		if (!names[k][i] && (k == 1 || !p[i]))
			return TRUE;
	}
	return FALSE;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_HANDLE *handles;
	UINTN n = 0, i, leaked = 0;

	InitializeLib(image, systab);
	LibLocateHandle(ByProtocol, &LoadedImageProtocol, NULL, &n, &handles);
	for (i = 0; i < n; i++) {
		EFI_LOADED_IMAGE *li;
		CHAR16 *text;

		if (EFI_ERROR(uefi_call_wrapper(
			    BS->HandleProtocol, 3, handles[i],
			    &LoadedImageProtocol, (VOID **)&li)) ||
		    !li->FilePath)
			continue;
		text = DevicePathToStr(li->FilePath);
		if (text && refused_name(text)) {
			Print(L"tsctui-test: still loaded: %s\r\n", text);
			leaked++;
		}
		if (text)
			FreePool(text);
	}
	if (n)
		FreePool(handles);
	Print(L"tsctui-test: %d refused image(s) loaded\r\n", leaked);
	return EFI_SUCCESS;
}

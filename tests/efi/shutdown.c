/* A test helper: powers the VM off, so a boot chain that ends here makes
 * QEMU exit cleanly (systemd-boot 252 has no auto-poweroff). */
#include <efi.h>
#include <efilib.h>

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab);

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	InitializeLib(image, systab);
	Print(L"tsctui-test: shutdown\r\n");
	uefi_call_wrapper(RT->ResetSystem, 4, EfiResetShutdown, EFI_SUCCESS, 0,
			  NULL);
	return EFI_SUCCESS;
}

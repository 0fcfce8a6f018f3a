/* SPDX-License-Identifier: MIT */
/*
 * The ESP the stage was loaded from, and its state files in \EFI\tsctui\:
 * options (written by tsctui); the hang guard's pending (created before
 * any work, deleted when the work returns), synced (a run that wrote an
 * MSR, until Linux confirms it), probation (this boot measures only after
 * an unconfirmed sync), disabled (the guard tripped); hibernated is only
 * read here (tsctui's sleep hook writes it); run\ran-ok and run\wrote, the
 * GRUB block's channel (guard=grub: the stage returned with nothing left
 * unknown; it wrote a counter).  Every status but EFI_SUCCESS is a failure
 * here: EFI_WARN_DELETE_FAILURE means the file is still there.  DESIGN.md
 * 7.1.
 */
#include "../common/report_var.h"
#include "stage.h"

#define STATE_DIR L"\\EFI\\tsctui"

/* The ESP's partition, whose Block I/O is flushed after every change. */
static EFI_HANDLE esp_device;
static BOOLEAN flush_failed;

EFI_STATUS esp_open(EFI_HANDLE image, EFI_FILE_HANDLE *root)
{
	EFI_LOADED_IMAGE *li;
	EFI_STATUS st;

	st = uefi_call_wrapper(BS->HandleProtocol, 3, image,
			       &LoadedImageProtocol, (VOID **)&li);
	if (EFI_ERROR(st))
		return st;
	esp_device = li->DeviceHandle;
	*root = LibOpenRoot(li->DeviceHandle);
	return *root ? EFI_SUCCESS : EFI_NOT_FOUND;
}

/*
 * EFI_FILE_PROTOCOL.Flush writes the FAT driver's buffers to the disk, but
 * on current EDK2 not through the disk's own write cache: FlushBlocks on
 * the partition's Block I/O (which forwards to the disk) does that.  A
 * failure is remembered, not fatal: the file operation itself succeeded.
 */
static void flush_blocks(void)
{
	EFI_BLOCK_IO *bio;

	if (!esp_device ||
	    EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, esp_device,
					&BlockIoProtocol, (VOID **)&bio)) ||
	    EFI_ERROR(uefi_call_wrapper(bio->FlushBlocks, 1, bio)))
		flush_failed = TRUE;
}

BOOLEAN esp_flush_failed(void)
{
	return flush_failed;
}

static EFI_STATUS open_state(EFI_FILE_HANDLE root, CHAR16 *name, UINT64 mode,
			     EFI_FILE_HANDLE *fh)
{
	CHAR16 path[64];

	SPrint(path, sizeof(path), L"%s\\%s", STATE_DIR, name);
	return uefi_call_wrapper(root->Open, 5, root, fh, path, mode, 0);
}

/* A file of the ESP (path from its root) into buf, NUL-terminated. */
static EFI_STATUS read_file(EFI_FILE_HANDLE root, CHAR16 *path, char *buf,
			    UINTN cap, UINTN *len)
{
	EFI_FILE_HANDLE fh;
	EFI_STATUS st;
	UINTN n = cap - 1;

	*len = 0;
	buf[0] = '\0';
	st = uefi_call_wrapper(root->Open, 5, root, &fh, path,
			       EFI_FILE_MODE_READ, 0);
	if (EFI_ERROR(st))
		return st;
	st = uefi_call_wrapper(fh->Read, 3, fh, &n, buf);
	uefi_call_wrapper(fh->Close, 1, fh);
	if (EFI_ERROR(st))
		return st;
	buf[n] = '\0';
	*len = n;
	return EFI_SUCCESS;
}

EFI_STATUS esp_read_options(EFI_FILE_HANDLE root, char *buf, UINTN cap,
			    UINTN *len)
{
	return read_file(root, STATE_DIR L"\\options", buf, cap, len);
}

BOOLEAN esp_exists(EFI_FILE_HANDLE root, CHAR16 *name)
{
	EFI_FILE_HANDLE fh;

	if (EFI_ERROR(open_state(root, name, EFI_FILE_MODE_READ, &fh)))
		return FALSE;
	uefi_call_wrapper(fh->Close, 1, fh);
	return TRUE;
}

static EFI_STATUS make_dir(EFI_FILE_HANDLE root, CHAR16 *path)
{
	EFI_FILE_HANDLE dir;
	EFI_STATUS st;

	st = uefi_call_wrapper(root->Open, 5, root, &dir, path,
			       EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE |
				       EFI_FILE_MODE_CREATE,
			       EFI_FILE_DIRECTORY);
	if (st != EFI_SUCCESS)
		return EFI_ERROR(st) ? st : EFI_DEVICE_ERROR;
	uefi_call_wrapper(dir->Close, 1, dir);
	return EFI_SUCCESS;
}

/* A status that is not EFI_SUCCESS, as an error (warnings included). */
static EFI_STATUS failed(EFI_STATUS st)
{
	return EFI_ERROR(st) ? st : EFI_DEVICE_ERROR;
}

EFI_STATUS esp_create(EFI_FILE_HANDLE root, CHAR16 *name)
{
	EFI_FILE_HANDLE fh;
	EFI_STATUS st;

	/* The directory exists after an install; create it otherwise, and
	 * run\ for the GRUB block's channel. */
	st = make_dir(root, STATE_DIR);
	if (st == EFI_SUCCESS && StrnCmp(name, L"run\\", 4) == 0)
		st = make_dir(root, STATE_DIR L"\\run");
	if (st != EFI_SUCCESS)
		return st;
	st = open_state(root, name,
			EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE |
				EFI_FILE_MODE_CREATE,
			&fh);
	if (st != EFI_SUCCESS)
		return failed(st);
	/* The file must be on the disk before anything that could hang. */
	st = uefi_call_wrapper(fh->Flush, 1, fh);
	uefi_call_wrapper(fh->Close, 1, fh);
	if (st != EFI_SUCCESS)
		return failed(st);
	st = uefi_call_wrapper(root->Flush, 1, root);
	if (st != EFI_SUCCESS)
		return failed(st);
	flush_blocks();
	return EFI_SUCCESS;
}

EFI_STATUS esp_delete(EFI_FILE_HANDLE root, CHAR16 *name)
{
	EFI_FILE_HANDLE fh;
	EFI_STATUS st;

	st = open_state(root, name, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE,
			&fh);
	if (st != EFI_SUCCESS)
		return failed(st);
	/* Delete closes the handle, whatever it returns; its warning
	 * EFI_WARN_DELETE_FAILURE means the file is still there. */
	st = uefi_call_wrapper(fh->Delete, 1, fh);
	if (st != EFI_SUCCESS)
		return failed(st);
	st = uefi_call_wrapper(root->Flush, 1, root);
	if (st != EFI_SUCCESS)
		return failed(st);
	flush_blocks();
	return EFI_SUCCESS;
}

EFI_STATUS esp_remove(EFI_FILE_HANDLE root, CHAR16 *name)
{
	if (!esp_exists(root, name))
		return EFI_SUCCESS;
	return esp_delete(root, name);
}

/*
 * GRUB never flushes the disk after save_env, and nothing else on the GRUB
 * path does: every writable Block I/O (media present, not read-only) is
 * flushed once before the stage's first MSR write, so the block's pending
 * is on the disk itself, not only in its write cache.  Returns how many
 * flushes failed.
 */
UINTN esp_flush_all_disks(void)
{
	EFI_HANDLE *handles;
	EFI_BLOCK_IO *bio;
	UINTN n = 0, i, bad = 0;

	LibLocateHandle(ByProtocol, &BlockIoProtocol, NULL, &n, &handles);
	for (i = 0; i < n; i++) {
		if (EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3,
						handles[i], &BlockIoProtocol,
						(VOID **)&bio)) ||
		    !bio->Media || !bio->Media->MediaPresent ||
		    bio->Media->ReadOnly)
			continue;
		if (uefi_call_wrapper(bio->FlushBlocks, 1, bio) != EFI_SUCCESS)
			bad++;
	}
	if (n)
		FreePool(handles);
	return bad;
}

BOOLEAN esp_hibernated(EFI_FILE_HANDLE root, BOOLEAN marker_only)
{
	/* systemd-sleep's vendor GUID for HibernateLocation. */
	static EFI_GUID systemd_vendor = { 0x8cf2644b,
					   0x4b0b,
					   0x428f,
					   { 0x93, 0x87, 0x6d, 0x87, 0x60, 0x50,
					     0xdc, 0x67 } };
	UINTN size = 0;
	EFI_STATUS st;

	if (!marker_only) {
		st = uefi_call_wrapper(RT->GetVariable, 5, L"HibernateLocation",
				       &systemd_vendor, NULL, &size, NULL);
		if (st == EFI_BUFFER_TOO_SMALL || !EFI_ERROR(st))
			return TRUE;
	}
	return root && esp_exists(root, L"hibernated");
}

BOOLEAN esp_has_strikes(EFI_FILE_HANDLE root)
{
	char text[16];
	UINTN len;

	/* boot-ok writes the count first ("2\nboot <id>"); a confirmed sync
	 * boot removes the file. */
	if (EFI_ERROR(read_file(root, STATE_DIR L"\\strikes", text,
				sizeof(text), &len)))
		return FALSE;
	return len > 0 && text[0] != '0';
}

/*
 * The resume guard (DESIGN.md 7.1): on a resume boot the ESP belongs to
 * the hibernated kernel, so the guard's state for that boot is this one
 * non-volatile variable of the stage's own (ARCHITECTURE 3).  Present: a
 * resume boot's stage started and has not returned cleanly.
 */
static EFI_GUID resume_vendor = TSC_REPORT_VAR_GUID_INIT;
#define RESUME_VAR_ATTRS                                                       \
	(EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS |         \
	 EFI_VARIABLE_RUNTIME_ACCESS)

BOOLEAN esp_resume_armed(void)
{
	UINTN size = 0;
	EFI_STATUS st;

	st = uefi_call_wrapper(RT->GetVariable, 5, L"" TSC_RESUME_VAR_NAME,
			       &resume_vendor, NULL, &size, NULL);
	return st == EFI_BUFFER_TOO_SMALL || !EFI_ERROR(st);
}

EFI_STATUS esp_resume_arm(void)
{
	static char value[] = "pending";

	return uefi_call_wrapper(RT->SetVariable, 5, L"" TSC_RESUME_VAR_NAME,
				 &resume_vendor, RESUME_VAR_ATTRS,
				 sizeof(value) - 1, value);
}

EFI_STATUS esp_resume_clear(void)
{
	/* Size 0 deletes; the attributes must still match. */
	return uefi_call_wrapper(RT->SetVariable, 5, L"" TSC_RESUME_VAR_NAME,
				 &resume_vendor, RESUME_VAR_ATTRS, 0, NULL);
}

/* Is there a line whose first word is key (and, if given, whose second is
 * value)?  Spaces and tabs separate; a line is at most what was read. */
static BOOLEAN has_line(const char *text, const char *key, const char *value)
{
	const char *p = text, *w;
	UINTN n;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		for (w = key; *w && *p == *w; w++, p++)
			;
		if (!*w && (*p == ' ' || *p == '\t' ||
			    (!value && (*p == '\n' || *p == '\r' || !*p)))) {
			if (!value)
				return TRUE;
			while (*p == ' ' || *p == '\t')
				p++;
			for (n = 0; value[n] && p[n] == value[n]; n++)
				;
			if (!value[n] && (p[n] == '\n' || p[n] == '\r' ||
					  p[n] == ' ' || p[n] == '\t' || !p[n]))
				return TRUE;
		}
		while (*p && *p != '\n')
			p++;
		if (*p)
			p++;
	}
	return FALSE;
}

static BOOLEAN ends_with_efi(const CHAR16 *s, UINTN n)
{
	static const CHAR16 ext[] = L".efi";
	UINTN i;

	if (n < 4)
		return FALSE;
	for (i = 0; i < 4; i++) {
		CHAR16 c = s[n - 4 + i];

		if (c >= 'A' && c <= 'Z')
			c = (CHAR16)(c + 32);
		if (c != ext[i])
			return FALSE;
	}
	return TRUE;
}

BOOLEAN esp_last_boot_other_os(EFI_FILE_HANDLE root)
{
	/* systemd-boot's vendor GUID for its Loader* variables. */
	static EFI_GUID sd_vendor = { 0x4a67b082,
				      0x0a4c,
				      0x41cf,
				      { 0xb6, 0xc7, 0x44, 0x0b, 0x29, 0xbb,
					0x8c, 0x4f } };
	static char text[2048];
	CHAR16 id[128], path[192];
	UINTN size = sizeof(id) - sizeof(CHAR16), n, len;
	EFI_STATUS st;

	if (!root ||
	    EFI_ERROR(read_file(root, L"\\loader\\loader.conf", text,
				sizeof(text), &len)) ||
	    !has_line(text, "default", "@saved"))
		return FALSE;
	st = uefi_call_wrapper(RT->GetVariable, 5, L"LoaderEntryLastBooted",
			       &sd_vendor, NULL, &size, id);
	if (EFI_ERROR(st))
		return FALSE;
	n = size / sizeof(CHAR16);
	id[n] = 0;
	while (n && !id[n - 1])
		n--;
	if (!n)
		return FALSE;
	/* systemd-boot's own entries: Windows, macOS, the EFI shell,
	 * firmware setup, reboot, power-off; none is Linux. */
	if (n > 5 && StrnCmp(id, L"auto-", 5) == 0)
		return TRUE;
	/* A unified kernel image (EFI\Linux\*.efi): Linux. */
	if (ends_with_efi(id, n))
		return FALSE;
	SPrint(path, sizeof(path), L"\\loader\\entries\\%s", id);
	if (EFI_ERROR(read_file(root, path, text, sizeof(text), &len))) {
		SPrint(path, sizeof(path), L"\\loader\\entries\\%s.conf", id);
		if (EFI_ERROR(read_file(root, path, text, sizeof(text), &len)))
			return FALSE;
	}
	/* A Type #1 entry: Linux has a linux (or uki) line; another system
	 * an efi line and no linux one. */
	return has_line(text, "efi", NULL) && !has_line(text, "linux", NULL) &&
	       !has_line(text, "uki", NULL);
}

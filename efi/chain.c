/* SPDX-License-Identifier: MIT */
/*
 * The firmware-entry path: after its work the stage starts the load option
 * named by next=BootXXXX, as the boot manager would have: LoadImage and
 * StartImage on the option's device path, with the option's optional data
 * as the image's load options.  A path that names a partition without a
 * file means that partition's \EFI\BOOT\BOOTX64.EFI; one that names a whole
 * disk means that file on the disk's partitions, in order (OVMF's own
 * "UEFI Misc Device" entries look like that).  A short-form path that
 * starts at a partition, HD(...)/File(...) as efibootmgr and tsctui make
 * them, is expanded as the boot manager does: the partition with that GPT
 * signature, then the rest of the path.  Any failure returns to
 * the caller, and from there to the firmware, which moves on to the next
 * BootOrder entry.
 *
 * Fast-boot firmware connects only the devices it means to boot, so the
 * next loader's disk may have no partitions or file systems yet: the
 * controllers along the path are connected first, as the boot manager does
 * (and, for a short-form path whose partition is not found, every
 * controller).  An image the firmware refuses is never started, and one it
 * loaded before refusing (EFI_SECURITY_VIOLATION) is unloaded again.
 */
#include "../common/fmt.h"
#include "stage.h"

#define DEFAULT_LOADER L"\\EFI\\BOOT\\BOOTX64.EFI"

/* EFI_LOAD_OPTION: UINT32 Attributes, UINT16 FilePathListLength, CHAR16
 * Description[] (NUL-terminated), device paths, optional data. */
struct load_option {
	EFI_DEVICE_PATH *path;
	VOID *data;
	UINTN data_size;
};

static EFI_STATUS parse_option(UINT8 *buf, UINTN size, struct load_option *o)
{
	UINTN off = 6, fplen;

	if (size < 8)
		return EFI_INVALID_PARAMETER;
	fplen = (UINTN)buf[4] | (UINTN)buf[5] << 8;
	while (off + 1 < size && (buf[off] || buf[off + 1]))
		off += 2;
	off += 2;
	if (fplen < sizeof(EFI_DEVICE_PATH) || off + fplen > size)
		return EFI_INVALID_PARAMETER;
	o->path = (EFI_DEVICE_PATH *)(buf + off);
	o->data = buf + off + fplen;
	o->data_size = size - off - fplen;
	return EFI_SUCCESS;
}

/* Bounds the walk down a device path in connect_path: one round per
 * driver layer that creates the next node's handle (PCI device, disk,
 * partition, file system...); more than real paths have. */
#define CONNECT_ROUNDS 16

/* Connects the drivers along `path`, as the boot manager does before it
 * boots an option: find the handle that matches the longest prefix of the
 * path, connect it (recursively, towards the rest of the path), and again
 * until the whole path has a handle or no progress is made.  A path that
 * ends at a device (a disk, a partition) has its children connected too,
 * so its partitions and file systems exist.  Failures are left to
 * LoadImage to report. */
static void connect_path(EFI_DEVICE_PATH *path)
{
	EFI_HANDLE h, prev = NULL;
	EFI_DEVICE_PATH *rest;
	UINTN i;

	for (i = 0; i < CONNECT_ROUNDS; i++) {
		rest = path;
		if (EFI_ERROR(uefi_call_wrapper(BS->LocateDevicePath, 3,
						&DevicePathProtocol, &rest,
						&h)) ||
		    h == prev)
			return;
		uefi_call_wrapper(BS->ConnectController, 4, h, NULL,
				  IsDevicePathEnd(rest) ? NULL : rest, TRUE);
		if (IsDevicePathEnd(rest))
			return;
		prev = h;
	}
}

/* Every driver to every controller, as the boot manager does when a
 * short-form path's partition is not among the connected ones. */
static void connect_all(void)
{
	EFI_HANDLE *handles;
	UINTN n = 0, i;

	LibLocateHandle(AllHandles, NULL, NULL, &n, &handles);
	for (i = 0; i < n; i++)
		uefi_call_wrapper(BS->ConnectController, 4, handles[i], NULL,
				  NULL, TRUE);
	if (n)
		FreePool(handles);
}

/* The firmware refused the image: its signature check failed or policy
 * forbids it.  Another file of the same entry is not tried. */
static BOOLEAN refused(EFI_STATUS st)
{
	return st == EFI_SECURITY_VIOLATION || st == EFI_ACCESS_DENIED;
}

/* Every LoadImage of this file goes through here.  EFI_SECURITY_VIOLATION
 * means the image was loaded and has a handle, but must not be started
 * (UEFI spec, LoadImage): the caller that cannot defer it unloads it, or
 * the image stays in memory for the rest of boot services.
 * EFI_ACCESS_DENIED returns no handle. */
static EFI_STATUS load_image(EFI_HANDLE parent, EFI_DEVICE_PATH *path,
			     EFI_HANDLE *child)
{
	EFI_HANDLE h = NULL;
	EFI_STATUS st;

	st = uefi_call_wrapper(BS->LoadImage, 6, FALSE, parent, path, NULL, 0,
			       &h);
	if (st == EFI_SECURITY_VIOLATION && h)
		uefi_call_wrapper(BS->UnloadImage, 1, h);
	*child = EFI_ERROR(st) ? NULL : h;
	return st;
}

static EFI_STATUS load_default(EFI_HANDLE parent, EFI_HANDLE fs,
			       EFI_HANDLE *child)
{
	EFI_DEVICE_PATH *file = FileDevicePath(fs, DEFAULT_LOADER);
	EFI_STATUS st;

	if (!file)
		return EFI_OUT_OF_RESOURCES;
	st = load_image(parent, file, child);
	FreePool(file);
	return st;
}

/* Does `path` (without its end node) begin `whole`? */
static BOOLEAN path_prefix(EFI_DEVICE_PATH *path, EFI_DEVICE_PATH *whole)
{
	UINTN n = DevicePathSize(path) - sizeof(EFI_DEVICE_PATH);

	return DevicePathSize(whole) > n && CompareMem(path, whole, n) == 0;
}

/* A whole disk: the default loader on each file system under it. */
static EFI_STATUS load_from_children(EFI_HANDLE parent, EFI_DEVICE_PATH *path,
				     EFI_HANDLE *child)
{
	EFI_STATUS st = EFI_NOT_FOUND;
	EFI_HANDLE *handles;
	UINTN n, i;

	/* The partitions exist once the disk is connected (connect_path). */
	LibLocateHandle(ByProtocol, &FileSystemProtocol, NULL, &n, &handles);
	for (i = 0; i < n; i++) {
		EFI_DEVICE_PATH *dp = DevicePathFromHandle(handles[i]);

		if (!dp || !path_prefix(path, dp))
			continue;
		st = load_default(parent, handles[i], child);
		if (!EFI_ERROR(st) || refused(st))
			break;
	}
	if (n)
		FreePool(handles);
	return st;
}

/* HD node: header, PartitionNumber, PartitionStart, PartitionSize, then
 * the 16-byte signature (the GPT partition GUID). */
#define HD_SIGNATURE_OFFSET 24

static BOOLEAN is_hd(EFI_DEVICE_PATH *n)
{
	return DevicePathType(n) == MEDIA_DEVICE_PATH &&
	       DevicePathSubType(n) == MEDIA_HARDDRIVE_DP &&
	       DevicePathNodeLength(n) >= HD_SIGNATURE_OFFSET + 16;
}

/* HD(sig)/rest -> <the partition's full path>/rest, or NULL. */
static EFI_DEVICE_PATH *expand_short_hd(EFI_DEVICE_PATH *path)
{
	EFI_DEVICE_PATH *full = NULL;
	EFI_HANDLE *handles;
	UINTN n, i;

	if (!is_hd(path))
		return NULL;
	LibLocateHandle(ByProtocol, &BlockIoProtocol, NULL, &n, &handles);
	for (i = 0; i < n && !full; i++) {
		EFI_DEVICE_PATH *dp = DevicePathFromHandle(handles[i]), *node;

		for (node = dp; node && !IsDevicePathEnd(node);
		     node = NextDevicePathNode(node)) {
			if (is_hd(node) &&
			    CompareMem((UINT8 *)node + HD_SIGNATURE_OFFSET,
				       (UINT8 *)path + HD_SIGNATURE_OFFSET,
				       16) == 0) {
				full = AppendDevicePath(
					dp, NextDevicePathNode(path));
				break;
			}
		}
	}
	if (n)
		FreePool(handles);
	return full;
}

static EFI_STATUS load(EFI_HANDLE parent, EFI_DEVICE_PATH *path,
		       EFI_HANDLE *child)
{
	EFI_DEVICE_PATH *rest = path, *full;
	EFI_HANDLE fs;
	EFI_STATUS st;

	connect_path(path);
	st = load_image(parent, path, child);
	if (!EFI_ERROR(st) || refused(st))
		return st;
	if (is_hd(path)) {
		full = expand_short_hd(path);
		if (!full) {
			connect_all();
			full = expand_short_hd(path);
		}
		if (!full)
			return EFI_NOT_FOUND;
		/* A full path now: a file, a partition's default loader. */
		st = load(parent, full, child);
		FreePool(full);
		return st;
	}
	if (!EFI_ERROR(uefi_call_wrapper(BS->LocateDevicePath, 3,
					 &FileSystemProtocol, &rest, &fs)) &&
	    IsDevicePathEnd(rest))
		return load_default(parent, fs, child);
	return load_from_children(parent, path, child);
}

/* "Boot%04X", built here: gnu-efi's printf pads %X to 8 digits whatever
 * the width says. */
static void option_name(UINT16 option, CHAR16 *out)
{
	char ascii[16];
	struct tsc_buf b;
	UINTN i;

	tsc_buf_init(&b, ascii, sizeof(ascii));
	tsc_buf_puts(&b, "Boot");
	tsc_buf_hex4(&b, option);
	for (i = 0; i <= b.len; i++)
		out[i] = (CHAR16)ascii[i];
}

/* The loaded next loader, between chain_load and chain_start: its load
 * options point into the option's buffer, freed once it returned. */
static struct {
	EFI_HANDLE child;
	CHAR16 name[16];
	UINT8 *buf;
} next;

static void chain_forget(void)
{
	if (next.buf)
		FreePool(next.buf);
	next.buf = NULL;
	next.child = NULL;
}

EFI_STATUS chain_load(EFI_HANDLE image, UINT16 option)
{
	struct load_option o;
	EFI_LOADED_IMAGE *li;
	UINT16 *current;
	UINTN size;
	EFI_STATUS st;

	option_name(option, next.name);
	current = LibGetVariableAndSize(L"BootCurrent", &EfiGlobalVariable,
					&size);
	if (current && size == sizeof(UINT16) && *current == option) {
		FreePool(current);
		Print(L"tsctui: next=%s is this entry; not starting it\r\n",
		      next.name);
		return EFI_INVALID_PARAMETER;
	}
	if (current)
		FreePool(current);
	next.buf = LibGetVariableAndSize(next.name, &EfiGlobalVariable, &size);
	if (!next.buf) {
		Print(L"tsctui: %s does not exist\r\n", next.name);
		return EFI_NOT_FOUND;
	}
	st = parse_option(next.buf, size, &o);
	if (EFI_ERROR(st)) {
		Print(L"tsctui: %s is not a valid load option\r\n", next.name);
		chain_forget();
		return st;
	}
	st = load(image, o.path, &next.child);
	if (EFI_ERROR(st)) {
		Print(L"tsctui: failed to load %s: %r\r\n", next.name, st);
		chain_forget();
		return st;
	}
	if (o.data_size &&
	    !EFI_ERROR(uefi_call_wrapper(BS->HandleProtocol, 3, next.child,
					 &LoadedImageProtocol, (VOID **)&li))) {
		li->LoadOptions = o.data;
		li->LoadOptionsSize = (UINT32)o.data_size;
	}
	return EFI_SUCCESS;
}

EFI_STATUS chain_start(void)
{
	EFI_STATUS st;

	Print(L"tsctui: starting %s\r\n", next.name);
	st = uefi_call_wrapper(BS->StartImage, 3, next.child, NULL, NULL);
	Print(L"tsctui: %s returned: %r\r\n", next.name, st);
	chain_forget();
	return st;
}

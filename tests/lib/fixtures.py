"""Fixture roots for the action tests: directories that look like a Debian
GRUB system or a systemd-boot system to `tsctui --root`, with a mount table,
/dev/disk/by-uuid links, an ESP directory, efivarfs files and the files
`make install` puts down."""
import os
import re
import shutil
import struct
import subprocess

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GLOBAL = "8be4df61-93ca-11d2-aa0d-00e098032b8c"
LOADER = "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
ESP_UUID = "1A2B-3C4D"
ROOT_UUID = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
CPUINFO_AMD = ("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\n"
               "model\t\t: 24\nmodel name\t: AMD Ryzen 7 3700U\n"
               "flags\t\t: fpu tsc constant_tsc nonstop_tsc\n\n")
CPUINFO_INTEL = ("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                 "model\t\t: 158\nmodel name\t: Intel Core i7\n"
                 "flags\t\t: fpu tsc constant_tsc nonstop_tsc tsc_adjust\n\n")


def grubenv(**vars_):
    body = "# GRUB Environment Block\n" + "".join(
        f"{k}={v}\n" for k, v in vars_.items())
    return (body + "#" * (1024 - len(body))).encode()


def write(root, path, data, mode=0o644):
    p = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    os.chmod(p, mode)


def efivar(root, name, guid, data, attrs=0x7):
    write(root, f"/sys/firmware/efi/efivars/{name}-{guid}",
          struct.pack("<I", attrs) + data)


def utf16(s):
    return s.encode("utf-16-le") + b"\0\0"


def base(root, esp="/boot/efi", root_fs="ext4", root_dev="/dev/vda2",
         cpuinfo=CPUINFO_AMD, secure_boot=False, esp_uuid=ESP_UUID,
         root_uuid=ROOT_UUID, esp_dev="/dev/vda1"):
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    write(root, "/proc/self/mounts",
          f"{root_dev} / {root_fs} rw,relatime 0 0\n"
          "proc /proc proc rw 0 0\n"
          f"{esp_dev} {esp} vfat rw,fmask=0077,dmask=0077 0 0\n")
    write(root, "/proc/cpuinfo", cpuinfo)
    write(root, "/proc/sys/kernel/random/boot_id",
          "5d9f8b2a-1c3e-4f6a-9b8d-7e6f5a4b3c2d\n")
    write(root, "/sys/class/dmi/id/bios_version", "R11ET36W (1.28 )\n")
    write(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.1.0-28-amd64 "
          "root=UUID=0f1e2d3c ro quiet\n")
    os.makedirs(os.path.join(root, "dev/disk/by-uuid"))
    os.symlink("../../" + os.path.basename(esp_dev),
               os.path.join(root, "dev/disk/by-uuid", esp_uuid))
    os.symlink("../../" + os.path.basename(root_dev),
               os.path.join(root, "dev/disk/by-uuid", root_uuid))
    efivar(root, "SecureBoot", GLOBAL, bytes([1 if secure_boot else 0]))
    os.makedirs(os.path.join(root, esp.lstrip("/"), "EFI"), exist_ok=True)
    os.makedirs(os.path.join(root, "var/lib"), exist_ok=True)
    os.makedirs(os.path.join(root, "run"), exist_ok=True)
    os.makedirs(os.path.join(root, "etc/systemd/system"), exist_ok=True)
    # What `make install` puts down, as a package would.
    subprocess.run(["make", "-s", "-C", TOP, "install", f"DESTDIR={root}",
                    "PREFIX=/usr/local"], check=True, capture_output=True)
    return root


def debian_grub(root, **kw):
    base(root, **kw)
    write(root, "/boot/grub/grub.cfg", "# grub.cfg made by grub-mkconfig\n"
          "set default=0\nmenuentry 'Debian GNU/Linux' { linux /vmlinuz }\n")
    write(root, "/boot/grub/grubenv", grubenv(saved_entry="0"))
    write(root, "/boot/efi/EFI/debian/grubx64.efi", b"MZ not really grub")
    write(root, "/etc/default/grub",
          'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\n')
    return root


def systemd_boot(root, **kw):
    base(root, esp="/efi", **kw)
    efivar(root, "LoaderInfo", LOADER, utf16("systemd-boot 252.39-1~deb12u2"),
           attrs=0x6)
    write(root, "/efi/EFI/systemd/systemd-bootx64.efi", b"MZ sd-boot")
    write(root, "/efi/loader/loader.conf", "timeout 3\n")
    write(root, "/efi/loader/entries/debian-6.1.0-28-amd64.conf",
          "title Debian\nversion 6.1.0-28-amd64\nlinux /vmlinuz-6.1.0-28\n"
          "options root=UUID=0f1e2d3c quiet\n")
    return root


GRUBBY_DOUBLE = """#!/bin/sh
# A test double for grubby (Debian has none): records its arguments.
echo "$*" >>"$GRUBBY_LOG"
"""


def grubby_double(work):
    """The grubby double installed in work with an empty log: the
    environment that makes tsctui run it, and the log's path."""
    double = os.path.join(work, "grubby-double")
    with open(double, "w") as f:
        f.write(GRUBBY_DOUBLE)
    os.chmod(double, 0o755)
    glog = os.path.join(work, "grubby.log")
    if os.path.exists(glog):
        os.unlink(glog)
    return {"TSCTUI_GRUBBY": double, "GRUBBY_LOG": glog}, glog



GRUBBY_EDITING = r"""#!/bin/sh
# A test double for grubby that edits as grubby does: the options line of
# every BLS entry under $GRUBBY_ROOT gains or loses the argument.
for a in "$@"; do
	case $a in
	--args=*) add=${a#--args=} ;;
	--remove-args=*) del=${a#--remove-args=} ;;
	esac
done
for f in "$GRUBBY_ROOT"/boot/loader/entries/*.conf; do
	if [ -n "${add:-}" ] && ! grep -q "^options.* $add\( \|$\)" "$f"; then
		sed -i "s/^options .*/& $add/" "$f"
	fi
	if [ -n "${del:-}" ]; then
		sed -i "/^options /s/ $del\( \|$\)/\1/" "$f"
	fi
done
"""


def grubby_editing(work, root):
    """A grubby double that really edits the BLS entries of root: the
    environment that makes tsctui run it."""
    double = os.path.join(work, "grubby-editing")
    with open(double, "w") as f:
        f.write(GRUBBY_EDITING)
    os.chmod(double, 0o755)
    return {"TSCTUI_GRUBBY": double, "GRUBBY_ROOT": root}


def fedora_grubby(root, **kw):
    """Fedora family: GRUB with BLS entries in /boot/loader/entries and
    grub2 paths; grubby is the distribution's tool."""
    base(root, **kw)
    write(root, "/boot/grub2/grub.cfg", "# grub2-mkconfig output\n"
          "blscfg\n")
    write(root, "/boot/grub2/grubenv", grubenv(
        saved_entry="abc-6.5.6-300.fc39.x86_64"))
    write(root, "/boot/efi/EFI/fedora/grubx64.efi", b"MZ not really grub")
    write(root, "/boot/loader/entries/abc-6.5.6-300.fc39.x86_64.conf",
          "title Fedora Linux (6.5.6-300.fc39.x86_64)\n"
          "version 6.5.6-300.fc39.x86_64\nlinux /vmlinuz-6.5.6\n"
          "options root=UUID=0f1e2d3c ro rhgb quiet\n")
    write(root, "/etc/default/grub", 'GRUB_CMDLINE_LINUX="rhgb quiet"\n')
    return root


# Zanasin/tscsync as its scripts/install.sh leaves a system: the block it
# writes to custom.cfg (here between a user's own lines, which are not
# tscsync's), its grubenv variables, its image, its service enabled for
# multi-user.target and system-update.target; or, for systemd-boot, its
# driver and its options file on the ESP.
TSCSYNC_USER_BEFORE = ("# my own entries\n"
                       "menuentry 'Memtest' { chainloader /memtest.efi }\n"
                       "\n")
TSCSYNC_BLOCK = """# SPDX-License-Identifier: MIT
# tscsync: re-sync CPU TSCs before Linux boots.
# hang guard: tscsync_pending is set before the image runs
function tscsync_save {
  if [ -n "${config_directory}" ]; then
    save_env -f "${config_directory}/grubenv" "$@"
  else
    save_env "$@"
  fi
}

if [ "${tscsync_enable}" = "1" ]; then
  if [ "${tscsync_pending}" = "1" ]; then
    set tscsync_enable=0
    tscsync_save tscsync_enable tscsync_pending
  else
    set tscsync_pending=1
    tscsync_save tscsync_pending
    if search --no-floppy --fs-uuid --set=tscsync_esp 1A2B-3C4D; then
      chainloader (${tscsync_esp})/EFI/tscsync/tscsync.efi ${tscsync_mode}
      boot
    fi
  fi
fi
"""
TSCSYNC_USER_AFTER = ("\n# and one more of mine\n"
                      "menuentry 'Firmware' { fwsetup }\n")
TSCSYNC_UNIT = ("[Unit]\nDescription=Record tscsync result\n"
                "[Service]\nType=oneshot\n"
                "ExecStart=/usr/local/libexec/tscsync-report\n"
                "[Install]\nWantedBy=multi-user.target "
                "system-update.target\n")


def tscsync_common(root):
    write(root, "/etc/systemd/system/tscsync-report.service", TSCSYNC_UNIT)
    for target in ("multi-user.target", "system-update.target"):
        d = os.path.join(root, f"etc/systemd/system/{target}.wants")
        os.makedirs(d, exist_ok=True)
        os.symlink("/etc/systemd/system/tscsync-report.service",
                   os.path.join(d, "tscsync-report.service"))
    write(root, "/usr/local/libexec/tscsync-report", "#!/bin/sh\n", 0o755)


def tscsync_grub(root, mode="measure", **kw):
    """Debian GRUB with Zanasin/tscsync installed (mode measure or sync)."""
    debian_grub(root, **kw)
    write(root, "/boot/grub/custom.cfg", TSCSYNC_USER_BEFORE + TSCSYNC_BLOCK +
          TSCSYNC_USER_AFTER, 0o600)
    write(root, "/boot/grub/grubenv", grubenv(
        saved_entry="0", tscsync_enable="1", tscsync_mode=f"mode={mode}",
        tscsync_pending="0"))
    write(root, "/boot/efi/EFI/tscsync/tscsync.efi", b"MZ tscsync")
    write(root, "/etc/tscsync.conf", "LOADER=grub\nGRUB_DIR=/boot/grub\n")
    tscsync_common(root)
    return root


def tscsync_sdboot(root, mode="measure", **kw):
    """systemd-boot with Zanasin/tscsync's driver installed."""
    systemd_boot(root, **kw)
    write(root, "/efi/EFI/systemd/drivers/tscsyncx64.efi", b"MZ tscsync")
    write(root, "/efi/EFI/tscsync/options", f"mode={mode}\n")
    write(root, "/etc/tscsync.conf", "LOADER=systemd-boot\nESP=/efi\n")
    tscsync_common(root)
    return root


def reliable_grub(root, **kw):
    """Debian GRUB whose kernels get tsc=reliable (as limenode/tscsync
    asks), in /etc/default/grub and a drop-in of its own."""
    debian_grub(root, **kw)
    write(root, "/etc/default/grub", 'GRUB_DEFAULT=0\n'
          'GRUB_CMDLINE_LINUX_DEFAULT="quiet tsc=reliable"\n'
          "GRUB_CMDLINE_LINUX=''\n")
    write(root, "/etc/default/grub.d/tscsync.cfg",
          'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX tsc=reliable"\n')
    write(root, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz-6.1.0-28-amd64 "
          "root=UUID=0f1e2d3c ro quiet tsc=reliable\n")
    return root


def reliable_sdboot(root, **kw):
    """systemd-boot whose entry and running kernel have tsc=reliable, and
    no /etc/kernel/cmdline (kernel-install would copy /proc/cmdline)."""
    systemd_boot(root, **kw)
    write(root, "/efi/loader/entries/debian-6.1.0-28-amd64.conf",
          "title Debian\nversion 6.1.0-28-amd64\nlinux /vmlinuz-6.1.0-28\n"
          "options root=UUID=0f1e2d3c quiet tsc=reliable\n")
    write(root, "/proc/cmdline", "initrd=\\initrd.img root=UUID=0f1e2d3c "
          "quiet tsc=reliable\n")
    return root


def limenode(root, **kw):
    """limenode/tscsync as its install.sh leaves a Debian GRUB system:
    its binary, its two units (tscsync.service enabled for sysinit.target,
    the resume one left disabled here) and tsc=reliable."""
    reliable_grub(root, **kw)
    write(root, "/usr/local/sbin/tscsync", b"\x7fELF", 0o755)
    unit = ("[Service]\nType=oneshot\n"
            "ExecStart=/usr/local/sbin/tscsync --apply --quiet\n")
    write(root, "/etc/systemd/system/tscsync.service",
          unit + "[Install]\nWantedBy=sysinit.target\n")
    write(root, "/etc/systemd/system/tscsync-resume.service",
          unit + "[Install]\nWantedBy=suspend.target\n")
    d = os.path.join(root, "etc/systemd/system/sysinit.target.wants")
    os.makedirs(d, exist_ok=True)
    os.symlink("/etc/systemd/system/tscsync.service",
               os.path.join(d, "tscsync.service"))
    return root


ESP_PARTUUID = "7d3f9c1e-2b4a-4c6d-8e0f-1a2b3c4d5e6f"


def load_option(desc, nodes, optional=b""):
    """An EFI_LOAD_OPTION as firmware writes one (fixture data only)."""
    path = b"".join(nodes) + bytes([0x7F, 0xFF, 4, 0])
    return (struct.pack("<IH", 1, len(path)) + utf16(desc) + path +
            optional)


def node(t, st, body):
    return struct.pack("<BBH", t, st, 4 + len(body)) + body


def hd_node(num, start, size, guid):
    import uuid
    return node(4, 1, struct.pack("<IQQ", num, start, size) +
                uuid.UUID(guid).bytes_le + bytes([2, 2]))


def file_node(path):
    return node(4, 4, utf16(path))


def mac_node():
    return node(3, 0x0B, bytes(32) + bytes([1]))


def efi_machine(root, **kw):
    """A GRUB system whose firmware has entries: a network boot first,
    then GRUB on the disk, then the built-in Shell."""
    debian_grub(root, **kw)
    write(root, "/sys/class/block/vda1/partition", "1\n")
    write(root, "/sys/class/block/vda1/start", "2048\n")
    write(root, "/sys/class/block/vda1/size", "1048576\n")
    os.makedirs(os.path.join(root, "dev/disk/by-partuuid"))
    os.symlink("../../vda1", os.path.join(root, "dev/disk/by-partuuid",
                                           ESP_PARTUUID))
    efivar(root, "Boot0000", GLOBAL, load_option(
        "UEFI PXEv4", [node(2, 1, bytes(8)), mac_node()]))
    efivar(root, "Boot0001", GLOBAL, load_option(
        "debian", [hd_node(1, 2048, 1048576, ESP_PARTUUID),
                   file_node("\\EFI\\debian\\grubx64.efi")]))
    efivar(root, "Boot0002", GLOBAL, load_option(
        "EFI Internal Shell", [node(4, 7, bytes(16)), node(4, 6, bytes(16))]))
    efivar(root, "BootOrder", GLOBAL, struct.pack("<HHH", 0, 1, 2))
    return root


def parse_load_option(data):
    """attributes, description, [(type, subtype, body)], optional data."""
    attrs, fplen = struct.unpack_from("<IH", data, 0)
    off = 6
    while data[off:off + 2] != b"\0\0":
        off += 2
    desc = data[6:off].decode("utf-16-le")
    off += 2
    path, nodes, p = data[off:off + fplen], [], 0
    while p < len(path):
        t, st, ln = struct.unpack_from("<BBH", path, p)
        nodes.append((t, st, path[p + 4:p + ln]))
        p += ln
    return attrs, desc, nodes, data[off + fplen:]


# The actions' lock: in /run, gone at the next boot, like every lock file
# there; no comparison of trees counts it.
LOCK = "run/tsctui.lock"


def tree(root, history_bytes=True):
    """Everything under root, path by path: its type and mode, and its
    bytes (as a digest) or link target.  With history_bytes false, the
    boot history is there or not, whatever it holds (it holds the time it
    was written)."""
    import hashlib
    import stat
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            rel = os.path.relpath(p, root)
            if rel == LOCK:
                continue
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                what = "link " + os.readlink(p)
            elif stat.S_ISDIR(st.st_mode):
                what = "dir"
            elif rel == "var/lib/tsctui/history" and not history_bytes:
                what = "history"
            elif not stat.S_ISREG(st.st_mode):
                # a FIFO or a device node: its kind, never opened
                what = f"special {stat.S_IFMT(st.st_mode):o} {st.st_rdev}"
            else:
                with open(p, "rb") as f:
                    what = "file " + hashlib.sha256(f.read()).hexdigest()
            out[rel] = (what, stat.S_IMODE(st.st_mode))
    return out


def differ(a, b):
    """What changed between two trees, one line a path."""
    return [f"{k}: {a.get(k)} -> {b.get(k)}" for k in sorted(set(a) | set(b))
            if a.get(k) != b.get(k)]


def tree_digest(root):
    """One digest of everything under root (to show that a command changed
    nothing)."""
    import hashlib
    return hashlib.sha256(repr(sorted(tree(root).items())).encode()
                          ).hexdigest()


def copy_with_libs(root, binary, dest=None):
    """binary into the root, and every shared library it links, at the
    paths the dynamic linker finds them on the host."""
    dest = dest or binary
    p = os.path.join(root, dest.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if not os.path.exists(p):
        shutil.copy(binary, p)
    r = subprocess.run(["ldd", binary], capture_output=True, text=True)
    for line in r.stdout.splitlines():  # a script: no libraries
        m = re.search(r"(/\S+) \(0x", line)
        if not m:
            continue
        lib = m.group(1)
        q = os.path.join(root, lib.lstrip("/"))
        if not os.path.exists(q):
            os.makedirs(os.path.dirname(q), exist_ok=True)
            shutil.copy(os.path.realpath(lib), q)


def damage_ledger(root, how, at=20):
    """The ledger under root made unusable: "missing", "empty", a "fifo"
    in its place, or "nul" (a NUL byte at offset at)."""
    ledger = os.path.join(root, "var/lib/tsctui/ledger")
    with open(ledger, "rb") as f:
        text = f.read()
    os.unlink(ledger)
    if how == "empty":
        open(ledger, "w").close()
    elif how == "fifo":
        os.mkfifo(ledger)
    elif how == "nul":
        with open(ledger, "wb") as f:
            f.write(text[:at] + b"\0" + text[at:])

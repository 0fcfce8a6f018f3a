#!/usr/bin/env python3
"""The stage's chain-loading (efi/chain.c) where firmware differs from a
freshly booted OVMF, under real OVMF:
- a next= loader the firmware's image check refuses: a security double
  (tests/efi/secdouble.c, a driver loaded from the Shell) answers
  EFI_SECURITY_VIOLATION, as firmware with a deferring policy does, for
  \\EFI\\BOOT\\BOOTX64.EFI and REFUSED*.EFI, and EFI_ACCESS_DENIED, as
  OVMF's own Secure Boot does, for DENIED*.EFI; after each stage run a
  helper counts the refused images still loaded (the handle LoadImage
  returns with EFI_SECURITY_VIOLATION must be unloaded by the caller);
- a next= loader on a disk the firmware did not connect: OVMF connects
  only the devices QEMU names with bootindex (as fast-boot firmware
  connects only what it boots), so a second virtio disk without one has no
  partitions or file systems until someone connects it; its entry is a
  short-form HD()/File() path (as efibootmgr makes) in one boot and a full
  PciRoot()/Pci()/HD()/File() path in another;
- config=esp with a next= loader whose LoadImage hangs (the double never
  answers for HANG*.EFI): the hang guard's pending is still on the ESP,
  since it goes only right before StartImage."""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
import qemu  # noqa: E402
import reportvar  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP  # noqa: E402
WORK = os.path.join(BUILD, "chain-tests")
HELPERS = os.path.join(BUILD, "tests", "efi")
APP = r"fs0:\EFI\tsctui\tsctui.efi"
GUID = fx.GLOBAL.upper()
NEXT_UUID = "5c0e7a31-9d42-4b8e-a6f1-2c3d4e5f6a7b"
NEXT_SLOT = 9  # the PCI slot of the unconnected disk

t = Tap()
os.makedirs(WORK, exist_ok=True)


def stage_disk(name):
    d = qemu.Disk(os.path.join(WORK, f"{name}.img"))
    d.put(os.path.join(TOP, "efi", "tsctui.efi"), "EFI/tsctui/tsctui.efi")
    for h in ("shutdown", "images", "secdouble"):
        d.put(os.path.join(HELPERS, f"{h}.efi"), f"EFI/tools/{h}.efi")
    return d


def boot(name, disk, lines, extra=()):
    disk.write("startup.nsh", "".join(f"{x}\r\n" for x in lines) +
               "reset -s\r\n")
    # Two vCPUs: chain-loading needs no more, and one per host CPU.
    res = qemu.boot(disk, qemu.fresh_vars(os.path.join(WORK, f"{name}.vars")),
                    smp=2, timeout=150,
                    log_path=os.path.join(WORK, f"{name}.log"), extra=extra)
    t.diag(f"{name}: {res.seconds:.1f} s"
           f"{', TIMED OUT' if res.timed_out else ''}")
    return res, res.console()


# ---- Refused next= loaders ----------------------------------------------
d = stage_disk("refused")
d.put(os.path.join(HELPERS, "shutdown.efi"), "EFI/tools/REFUSED.efi")
d.put(os.path.join(HELPERS, "shutdown.efi"), "EFI/tools/DENIED.efi")
IMAGES = r"fs0:\EFI\tools\images.efi"
# OVMF boots a disk's \EFI\BOOT\BOOTX64.EFI before its Shell, so the
# script makes that file once the Shell runs.  Boot0001 is OVMF's entry for
# the whole disk; bcfg's entries become Boot0003 and Boot0004.
res, text = boot("refused", d, [
    r"load fs0:\EFI\tools\secdouble.efi",
    r"mkdir fs0:\EFI\BOOT",
    r"cp fs0:\EFI\tools\shutdown.efi fs0:\EFI\BOOT\BOOTX64.EFI",
    f"{APP} next=Boot0001", IMAGES,
    r'bcfg boot add 9 fs0:\EFI\tools\REFUSED.efi "refused"',
    f"{APP} next=Boot0003", IMAGES,
    r'bcfg boot add 9 fs0:\EFI\tools\DENIED.efi "denied"',
    f"{APP} next=Boot0004", IMAGES])
counts = [int(n) for n in
          re.findall(r"tsctui-test: (\d+) refused image\(s\) loaded", text)]
# What each stage run left behind (the helper counts them all).
left = [b - a for a, b in zip([0] + counts, counts)]
t.ok("tsctui-test: security double installed" in text and
     len(counts) == 3 and not res.timed_out,
     "the security double is in place and the script ran to its end",
     text[-1500:])
t.ok("failed to load Boot0001: Security Policy Violation" in text and
     left[:1] == [0],
     "a whole-disk entry whose BOOTX64.EFI is refused (security "
     "violation): the stage fails back to the firmware and unloads the "
     "image it was handed", left)
t.ok("failed to load Boot0003: Security Policy Violation" in text and
     left[1:2] == [0],
     "a file entry refused with a security violation: unloaded too",
     left)
t.ok("failed to load Boot0004: Access Denied" in text and
     left[2:3] == [0],
     "a file entry refused with access denied (OVMF's Secure Boot answer, "
     "no handle): the stage says so and fails back to the firmware", left)
t.ok("tsctui-test: shutdown" not in text,
     "no refused image was started")


# ---- pending stays until the next loader is loaded -----------------------
d = stage_disk("hang-in-load")
d.put(os.path.join(HELPERS, "shutdown.efi"), "EFI/tools/HANG.efi")
d.write("EFI/tsctui/options", "mode=measure\n")
d.write("startup.nsh", "".join(f"{x}\r\n" for x in [
    r"load fs0:\EFI\tools\secdouble.efi",
    r'bcfg boot add 9 fs0:\EFI\tools\HANG.efi "hang"',
    f"{APP} config=esp next=Boot0003"]))
res = qemu.boot(d, qemu.fresh_vars(os.path.join(WORK, "hang-in-load.vars")),
                timeout=150, until=b"hanging in LoadImage",
                log_path=os.path.join(WORK, "hang-in-load.log"))
t.diag(f"hang-in-load: {res.seconds:.1f} s, "
       f"{'TIMED OUT' if res.timed_out else 'stopped'}")
t.ok(not res.timed_out and reportvar.END in res.console() and
     d.exists("EFI/tsctui/pending"),
     "config=esp next= a loader whose LoadImage hangs: the stage's pending "
     "is still on the ESP (it goes only right before StartImage), so the "
     "next boot trips the guard", res.console()[-1200:])


# ---- A next= loader on a disk the firmware did not connect --------------
def next_disk(name):
    nd = qemu.Disk(os.path.join(WORK, f"{name}-next.img"), size_mb=36)
    subprocess.run(["sfdisk", "--part-uuid", nd.path, "1", NEXT_UUID],
                   check=True, capture_output=True)
    nd.put(os.path.join(HELPERS, "shutdown.efi"), "EFI/next/next.efi")
    return nd


def unconnected(name, nodes):
    d = stage_disk(name)
    nd = next_disk(name)
    entry = fx.load_option("next on disk 2", nodes(2048, 34 * 2048) +
                           [fx.file_node("\\EFI\\next\\next.efi")])
    return boot(name, d, [
        "map",
        f"setvar Boot00B1 -guid {GUID} -nv -bs -rt ={entry.hex()}",
        f"{APP} next=Boot00B1"],
        extra=["-drive", f"file={nd.path},format=raw,if=none,id=next",
               "-device",
               f"virtio-blk-pci,drive=next,addr={NEXT_SLOT:#x}"])


def not_mapped(text):
    """The Shell's map, run first: only the boot disk has a file system."""
    head = text[:text.find(reportvar.BEGIN)]
    return "FS0:" in head and "FS1:" not in head


def short(start, size):
    return [fx.hd_node(1, start, size, NEXT_UUID)]


def full(start, size):
    acpi = fx.node(2, 1, (0x0A0341D0).to_bytes(4, "little") + bytes(4))
    pci = fx.node(1, 1, bytes([0, NEXT_SLOT]))
    return [acpi, pci, fx.hd_node(1, start, size, NEXT_UUID)]


for name, nodes, what in (("short", short, "a short-form HD()/File() path"),
                          ("full", full,
                           "a full PciRoot()/Pci()/HD()/File() path")):
    res, text = unconnected(f"unconnected-{name}", nodes)
    t.ok(not_mapped(text), f"{name}: the firmware left the second disk "
         "unconnected (no file system on it before the stage ran)",
         text[:3000])
    t.ok("tsctui: starting Boot00B1" in text and
         text.find("tsctui: starting Boot00B1") <
         text.find("tsctui-test: shutdown") and not res.timed_out,
         f"next= {what} on an unconnected disk: the stage connects it and "
         "starts the loader", text[-1500:])

sys.exit(t.done())

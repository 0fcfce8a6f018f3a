#!/usr/bin/env python3
"""The firmware boot entry that `tsctui install --loader efi-entry` makes,
booted by the real firmware.  A mirror directory describes the disk (the
ESP's partition number, start, size and GPT GUID, as the kernel would show
them); install generates the entry there with libefiboot; the first boot's
UEFI Shell stores it in OVMF's NVRAM with setvar and resets; OVMF then boots
it: the stage runs with config=esp, names next=, and starts that entry (a
short-form HD()/File() path, as efibootmgr makes), which powers off.  The
entry's numbers are renamed for the store (the load option does not carry
its own number)."""
import json
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
import ovmfvars  # noqa: E402
import qemu  # noqa: E402
import reportvar  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI  # noqa: E402
W = os.path.join(BUILD, "efi-entry-boot")
PUUID = "7d3f9c1e-2b4a-4c6d-8e0f-1a2b3c4d5e6f"
GUID = fx.GLOBAL.upper()
t = Tap()
shutil.rmtree(W, ignore_errors=True)
os.makedirs(W)

disk = qemu.Disk(os.path.join(W, "disk.img"), size_mb=64)
subprocess.run(["sfdisk", "--part-uuid", disk.path, "1", PUUID], check=True,
               capture_output=True)
start, size = 2048, (64 - 2) * 2048

m = fx.debian_grub(os.path.join(W, "mirror"))
fx.write(m, "/sys/class/block/vda1/partition", "1\n")
fx.write(m, "/sys/class/block/vda1/start", f"{start}\n")
fx.write(m, "/sys/class/block/vda1/size", f"{size}\n")
os.makedirs(os.path.join(m, "dev/disk/by-partuuid"))
os.symlink("../../vda1", os.path.join(m, "dev/disk/by-partuuid", PUUID))
shutdown = fx.load_option("tsctui-test shutdown", [
    fx.hd_node(1, start, size, PUUID),
    fx.file_node("\\EFI\\tools\\shutdown.efi")])
fx.efivar(m, "Boot00A1", fx.GLOBAL, shutdown)
fx.efivar(m, "BootOrder", fx.GLOBAL, struct.pack("<H", 0xA1))
r = subprocess.run([TSCTUI, "--root", m, "--json", "install", "--loader",
                    "efi-entry"], capture_output=True, text=True)
out = json.loads(r.stdout)
t.ok(r.returncode == 0 and "starts Boot00A1 next" in out["message"],
     "install --loader efi-entry in the mirror", out)
entry = open(os.path.join(m, "sys/firmware/efi/efivars", "Boot0000-" +
                          fx.GLOBAL), "rb").read()[4:]

for f in ("EFI/tsctui/tsctui.efi", "EFI/tsctui/options"):
    disk.put(os.path.join(m, "boot/efi", f), f)
disk.put(os.path.join(BUILD, "tests/efi/shutdown.efi"),
         "EFI/tools/shutdown.efi")
disk.write("startup.nsh",
           f"setvar Boot00A1 -guid {GUID} -nv -bs -rt ={shutdown.hex()}\r\n"
           f"setvar Boot00A0 -guid {GUID} -nv -bs -rt ={entry.hex()}\r\n"
           f"setvar BootOrder -guid {GUID} -nv -bs -rt =A000A100\r\n"
           "reset\r\n")
vars_path = qemu.fresh_vars(os.path.join(W, "vars.fd"))
log = os.path.join(W, "boot.log")
res = qemu.boot(disk, vars_path, timeout=180, log_path=log, reboot=True)
text = res.console()
t.diag(f"two boots: {res.seconds:.1f} s")
store = ovmfvars.parse(vars_path)
t.ok((fx.GLOBAL, "Boot00A0") in store and
     store[(fx.GLOBAL, "Boot00A0")][1] == entry,
     "the Shell stored the generated entry in OVMF's NVRAM, byte for byte")
t.ok('starting Boot00A0 "tsctui" from HD(1,GPT,7D3F9C1E-2B4A-4C6D-8E0F-'
     '1A2B3C4D5E6F,0x800,0x1F000)/\\EFI\\tsctui\\tsctui.efi' in text,
     "the firmware boots the entry: HD(1,GPT,partuuid)/File(stage)",
     text[-2000:])
r = subprocess.run([TSCTUI, "report", "--json", "--file", log],
                   capture_output=True, text=True)
rep = json.loads(r.stdout) if r.returncode == 0 else {}
t.ok(rep.get("config") == "esp" and rep.get("next") == "Boot00A1" and
     rep.get("mode") == "measure" and rep.get("msr_writes") == 0,
     "the stage read its options from the ESP and names the next entry",
     rep or r.stderr)
t.ok(text.find(reportvar.END) < text.find("tsctui: starting Boot00A1")
     < text.find("tsctui-test: shutdown") and not res.timed_out,
     "then it starts Boot00A1 (a short-form HD() path), which powers off",
     text[-1500:])
t.ok("failed to start Boot00A0" not in text,
     "the stage's own boot entry did not fail back to the firmware")
sys.exit(t.done())

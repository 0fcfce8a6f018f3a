#!/usr/bin/env python3
"""The block the grub.d generator emits, under a real GRUB in QEMU/OVMF.

A mirror directory stands for the installed system: `tsctui --root MIRROR
install --loader grub` writes its configuration and grubenv, the real
generator turns that into the block, and a standalone GRUB runs it.  The
disk has an ESP (the stage) and a second FAT file system holding
/boot/grub/grubenv, found by UUID as GRUB would find a root file system.
The grubenv travels between image and mirror with mtools (this machine
cannot mount FAT).  Boots:
  1. the stage runs (sim build, E595 pattern) and pending is set;
  2. after boot-ok, a boot that hangs in the stage (sim.hang=1), stopped;
  3. GRUB finds pending set: tripped, the stage skipped, the menu reached;
  4. after `guard reset` in the mirror, the stage runs again (measure)."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import fixtures as fx  # noqa: E402
import qemu  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI  # noqa: E402
WORK = os.path.join(BUILD, "grub-boot")
ESP_SERIAL, ROOT_SERIAL = 0x1A2B3C4D, 0x5E6F7A8B
E595 = "sim.offset.0=-6815086010"
t = Tap()
if os.path.exists(WORK):
    shutil.rmtree(WORK)
os.makedirs(WORK)


def tsctui(*args):
    r = subprocess.run([TSCTUI, "--root", mirror, "--json", *args],
                       capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None)


def editenv(*args):
    subprocess.run(["grub-editenv", os.path.join(mirror, "boot/grub/grubenv"),
                    *args], check=True)


def env_in_image():
    data = disk.on(1).read("boot/grub/grubenv") or b""
    return dict(line.split("=", 1) for line in
                data[:1024].decode(errors="replace").split("\n")[1:]
                if "=" in line)


def to_image():
    disk.on(1).put(os.path.join(mirror, "boot/grub/grubenv"),
                   "boot/grub/grubenv")


def from_image():
    with open(os.path.join(mirror, "boot/grub/grubenv"), "wb") as f:
        f.write(disk.on(1).read("boot/grub/grubenv"))


def boot(name, until=None, timeout=120):
    log = os.path.join(WORK, f"{name}.log")
    res = qemu.boot(disk, vars_path, timeout=timeout, until=until,
                    log_path=log)
    t.diag(f"boot {name}: {res.seconds:.1f} s")
    reps = []
    if until is None:
        r = subprocess.run([TSCTUI, "report", "--json", "--all", "--file",
                            log], capture_output=True, text=True)
        reps = json.loads(r.stdout) if r.returncode == 0 else []
    text = res.console()
    return res, reps, text


# The installed system, as a directory.
mirror = fx.debian_grub(os.path.join(WORK, "mirror"), root_fs="vfat",
                        esp_uuid="1A2B-3C4D", root_uuid="5E6F-7A8B")
rc, out = tsctui("install", "--loader", "grub")
t.ok(rc == 0, "install --loader grub in the mirror", out)
gen = subprocess.run([os.path.join(mirror, "etc/grub.d/05_tsctui")],
                     env={**os.environ, "TSCTUI_CONF": os.path.join(
                         mirror, "etc/tsctui/tsctui.conf")},
                     capture_output=True, text=True, check=True)
cfg = os.path.join(WORK, "grub.cfg")
with open(cfg, "w") as f:
    f.write(gen.stdout + "echo tsctui-test: menu reached\nhalt\n")
grub = os.path.join(WORK, "grubx64.efi")
subprocess.run(["grub-mkstandalone", "-O", "x86_64-efi", "-o", grub,
                "--modules=part_gpt fat search search_fs_uuid loadenv test "
                "chain echo halt", f"boot/grub/grub.cfg={cfg}"],
               check=True, capture_output=True)

disk = qemu.Disk(os.path.join(WORK, "disk.img"),
                 parts=[(40, ESP_SERIAL), (8, ROOT_SERIAL)])
disk.put(grub, "EFI/BOOT/BOOTX64.EFI")
# As the end-to-end tests do: the sim build in place of the release one.
disk.put(os.path.join(TOP, "efi/tsctui-sim.efi"), "EFI/tsctui/tsctui.efi")
disk.on(1).mkdir("boot/grub")
vars_path = qemu.fresh_vars(os.path.join(WORK, "vars.fd"))

# 1: sync, the E595 pattern.
rc, out = tsctui("mode", "sync")
editenv("set", f"tsctui_options={E595}")
to_image()
res, reps, text = boot("1-sync")
ok = len(reps) == 1 and reps[0]["mode"] == "sync"
t.ok(ok and reps[0]["result"] in ("in-sync", "unsure") and
     abs(reps[0]["bsp_shift_cycles"] - 6815086010) < 5000,
     "boot 1: GRUB runs the stage with the grubenv's mode and options",
     reps or text[-1500:])
t.ok("menu reached" in text and env_in_image().get("tsctui_pending") == "1",
     "boot 1: GRUB set pending, saved it, and carried on to the menu",
     env_in_image())

# 2: Linux came up (boot-ok), then a boot that hangs in the stage.
from_image()
rc, out = tsctui("boot-ok")
editenv("set", f"tsctui_options={E595} sim.hang=1")
to_image()
t.ok(env_in_image().get("tsctui_pending") == "0",
     "boot-ok in the mirror cleared pending")
res, reps, text = boot("2-hang", until=b"hanging now", timeout=90)
t.ok(not res.timed_out and env_in_image().get("tsctui_pending") == "1",
     "boot 2: hangs in the stage with pending set (VM stopped)")

# 3: GRUB finds pending: tripped, the stage skipped.
res, reps, text = boot("3-tripped")
env = env_in_image()
t.ok(reps == [] and "never reached Linux" in text and
     "menu reached" in text and env.get("tsctui_tripped") == "1",
     "boot 3: GRUB trips the guard, skips the stage, reaches the menu", env)
from_image()
rc, out = tsctui("guard", "status")
t.ok(out and out["guard"] == "tripped", "guard status in the mirror: tripped",
     out)

# 4: guard reset in the mirror; the stage runs again, in measure mode.
rc, out = tsctui("guard", "reset")
to_image()
env = env_in_image()
t.ok(rc == 0 and env.get("tsctui_tripped") == "0" and
     env.get("tsctui_mode") == "measure" and env.get("tsctui_options") == "",
     "guard reset: tripped and pending cleared, measure mode, options gone",
     env)
res, reps, text = boot("4-again")
t.ok(len(reps) == 1 and reps[0]["mode"] == "measure" and
     reps[0]["msr_writes"] == 0 and "menu reached" in text,
     "boot 4: the stage runs again, in measure mode", reps or text[-1500:])

sys.exit(t.done())

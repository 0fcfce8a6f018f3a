#!/usr/bin/env python3
"""End to end, the GRUB path as a Debian user takes it: everything runs
inside the booted system.  grub.cfg is made by the real grub-mkconfig and
/etc/grub.d scripts in the guest; GRUB (as grub-install sets it up: prefix
on the root, modules there) loads it.  Boots:
  1. (no grub.cfg yet) grub-mkconfig, as the installer would; then
     `tsctui install --loader grub`, which regenerates grub.cfg itself;
  2. grub.cfg's 05_tsctui block runs the release stage (measure) before
     Debian's 10_linux entry boots Linux; boot-ok; `kernel-arg nowatchdog
     on` (the grub.d drop-in, grub.cfg regenerated);
  3. Linux runs with tsc=nowatchdog; `tsctui uninstall`;
  4. no stage, no tsc=nowatchdog: grub.cfg is as grub-mkconfig makes it
     without tsctui."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import system as S  # noqa: E402

W, t = S.start("grub-live")
# grub-mkconfig marks every script's part, so the stage's own line tells
# whether the block is there.
BLOCK = "chainloader /EFI/tsctui/tsctui.efi"
MENU = "\nmenuentry 'Debian GNU/Linux'"

root = S.staging(os.path.join(W, "root"), loader="grub")
S.add_grub_tools(root)
esp = S.finish(root)
grub = S.grub_image(os.path.join(W, "grubx64.efi"), configfile=True)
for dest in ("EFI/debian/grubx64.efi", "EFI/BOOT/BOOTX64.EFI"):
    os.makedirs(os.path.dirname(os.path.join(esp, dest)), exist_ok=True)
    shutil.copy(grub, os.path.join(esp, dest))
disk = S.make_disk(os.path.join(W, "disk.img"), root, esp)
g = S.Guest(W, disk, t)


def grub_cfg():
    return (g.ext4_read("/boot/grub/grub.cfg") or b"").decode()


# ---- 1: grub-mkconfig, then install --------------------------------------
outs, text, res = g.boot("install", [
    "grub-mkconfig -o /boot/grub/grub.cfg",
    "cp /boot/grub/grub.cfg /root/grub.cfg.before",
    "tsctui install --loader grub --json",
    "grub-script-check /boot/grub/grub.cfg",
])
first = (g.ext4_read("/root/grub.cfg.before") or b"").decode()
t.ok("no grub.cfg yet" in text and outs[0] and outs[0][0] == 0 and
     MENU in first and BLOCK not in first,
     "boot 1: grub-mkconfig in the guest makes Debian's grub.cfg",
     outs[0] and outs[0][2][-800:])
inst = S.js(outs[2])
cfg = grub_cfg()
t.ok(inst and inst["ok"] and
     {"path": "/boot/grub/grub.cfg", "what": "modified"} in inst["changed"]
     and BLOCK in cfg and cfg.index(BLOCK) < cfg.index(MENU) and
     outs[3] and outs[3][0] == 0,
     "boot 1: `tsctui install --loader grub` in Linux regenerates grub.cfg "
     "with grub-mkconfig: the 05_tsctui block before the menu entries, and "
     "grub-script-check accepts it", (outs[2], cfg[:300]))

# ---- 2: the stage from grub.cfg; kernel-arg on ---------------------------
outs, text, res = g.boot("stage", [
    "cat /proc/cmdline",
    "tsctui report --json",
    "tsctui boot-ok --json",
    "tsctui kernel-arg nowatchdog on --json",
    "grub-script-check /boot/grub/grub.cfg",
])
rep = S.js(outs[1])
cmdline2 = outs[0][1].split() if outs[0] else []
t.ok(rep and rep["build"] == "release" and rep["mode"] == "measure" and
     rep["config"] == "load-options" and "no grub.cfg yet" not in text and
     f"root=UUID={S.ROOT_UUID}" in cmdline2 and
     "BOOT_IMAGE=/boot/vmlinuz-" + S.kernel_version() in cmdline2,
     "boot 2: GRUB ran grub.cfg: the block chain-loaded the release stage "
     "(measure), then Debian's entry booted Linux",
     (outs[0], outs[1]))
ka = S.js(outs[3])
cfg = grub_cfg()
t.ok(S.js(outs[2]) and ka and ka["ok"] and
     g.ext4_read("/etc/default/grub.d/tsctui-nowatchdog.cfg") is not None and
     "tsc=nowatchdog" in cfg and "tsc=nowatchdog" not in cmdline2 and
     outs[4] and outs[4][0] == 0,
     "boot 2: kernel-arg nowatchdog on: the grub.d drop-in, and grub.cfg "
     "regenerated with it", (outs[3], [line for line in cfg.splitlines()
                                        if "linux\t" in line][:1]))

# ---- 3: the argument is there; uninstall ---------------------------------
outs, text, res = g.boot("nowatchdog", [
    "cat /proc/cmdline",
    "tsctui status --json",
    "tsctui uninstall --json",
])
st = S.js(outs[1])
t.ok(outs[0] and "tsc=nowatchdog" in outs[0][1].split() and st and
     st["kernel"]["cmdline_tsc"] == ["nowatchdog"] and
     "tsctui report begin" in text,
     "boot 3: Linux runs with tsc=nowatchdog from the regenerated grub.cfg, "
     "and the stage still ran", (outs[0], st and st["kernel"]))
un = S.js(outs[2])
cfg = grub_cfg()
t.ok(un and un["ok"] and BLOCK not in cfg and "tsc=nowatchdog" not in cfg
     and g.ext4_read("/etc/default/grub.d/tsctui-nowatchdog.cfg") is None
     and g.ext4_read("/etc/tsctui/tsctui.conf") is None,
     "boot 3: `tsctui uninstall` in Linux removes the drop-in and the "
     "configuration and regenerates grub.cfg without the block", outs[2])
t.ok(cfg == first,
     "boot 3: grub.cfg is again exactly what grub-mkconfig made before "
     "install")

# ---- 4: as before install --------------------------------------------------
outs, text, res = g.boot("after", ["cat /proc/cmdline",
                                   "tsctui report --json"])
t.ok(outs[0] and "tsc=nowatchdog" not in outs[0][1] and outs[1] and
     outs[1][0] == 2 and "tsctui report begin" not in text,
     "boot 4: no stage and no tsc=nowatchdog", (outs[0], outs[1]))
sys.exit(t.done())

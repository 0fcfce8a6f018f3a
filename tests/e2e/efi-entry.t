#!/usr/bin/env python3
"""End to end, the firmware boot entry, on the TSC rig (the E595's
firmware fault, TSC writes honoured, the release stage judged by the
kernel): tsctui makes its own Boot#### entry through libefiboot on the real
disk, in the booted guest, and the firmware boots it.  Boots:
  1. OVMF -> GRUB -> Linux: the kernel warps, status says boot-warp,
     install-measure; efibootmgr creates the GRUB entry
     (\\EFI\\BOOT\\BOOTX64.EFI), then `tsctui install --loader efi-entry`
     (release build, measure mode) adds the tsctui entry first in
     BootOrder, with next= the GRUB entry;
  2. firmware -> tsctui.efi -> GRUB -> Linux: BootCurrent is the tsctui
     entry, the report names the GRUB entry it started and shows the BSP
     behind, status says enable-sync, `efibootmgr -v` shows the entry;
     boot-ok; `tsctui mode sync`;
  3. the release stage syncs before GRUB: the kernel keeps the TSC, status
     healthy, the history shows the fix;
  4. a sync boot that never reaches Linux (the VM is stopped once GRUB,
     which the stage started, greets on the console): the stage had
     returned, so pending is clear and synced set; then the host leaves
     pending on the ESP, as a stage that died mid-run would;
  5. the firmware starts the entry again: the stage finds pending,
     disables itself and starts GRUB; in Linux the
     guard says tripped, `guard reset` restores measure, then `tsctui
     uninstall`: efibootmgr -v equals the listing from before install
     (BootCurrent aside): the firmware's boot variables are those it
     booted GRUB from in boot 1, so no boot of their own checks them
     again (one was here: 17 s, docs/DESIGN.md 11)."""
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import system as S  # noqa: E402

W, t = S.start("efi-entry")

root = S.staging(os.path.join(W, "root"), loader="grub")
esp = S.finish(root)
# Nothing installed: the generator emits nothing and GRUB just boots Linux.
block = S.generator_block(root)
t.ok(block == "", "before install the grub.d generator is inert", block)
grub = S.grub_image(os.path.join(W, "grubx64.efi"), block)
os.makedirs(os.path.join(esp, "EFI/BOOT"), exist_ok=True)
shutil.copy(grub, os.path.join(esp, "EFI/BOOT/BOOTX64.EFI"))
disk = S.make_disk(os.path.join(W, "disk.img"), root, esp)
g = S.Guest(W, disk, t, skew=S.RIG_E595)


def listing(o):
    """efibootmgr -v without BootCurrent (it names the running boot)."""
    return "".join(line + "\n" for line in (o[1] if o else "").splitlines()
                   if not line.startswith("BootCurrent:"))


def entry_of(text, desc):
    m = re.search(r"^Boot([0-9A-F]{4})\*? " + re.escape(desc) + r"\b", text,
                  re.M)
    return f"Boot{m.group(1)}" if m else None


# ---- 1: the warp; the GRUB entry, then install ---------------------------
outs, text, res = g.boot("install", [
    "tsctui status --json",
    "efibootmgr -c -d /dev/sda -p 1 -L 'Debian GRUB' "
    "-l '\\EFI\\BOOT\\BOOTX64.EFI'",
    "efibootmgr -v",
    "tsctui install --loader efi-entry --json",
    "efibootmgr -v",
    "tsctui guard status --json",
    "tsctui boot-ok --json",
])
S.story_warp(t, "boot 1", S.js(outs.pop(0)))
before = listing(outs[1])
grub_entry = entry_of(before, "Debian GRUB")
t.ok(outs[0] and outs[0][0] == 0 and grub_entry and
     re.search(r"^BootOrder: " + grub_entry[4:], before, re.M),
     "boot 1: efibootmgr (libefiboot) creates the GRUB entry, first in "
     "BootOrder", outs[0] and outs[0][1] + outs[0][2])
inst = S.js(outs[2])
t.ok(inst and inst["ok"] and f"starts {grub_entry} next" in inst["message"],
     "boot 1: `tsctui install --loader efi-entry` in Linux: next is the GRUB "
     "entry", outs[2])
installed = outs[3][1] if outs[3] else ""
ours = entry_of(installed, "tsctui")
t.ok(ours and re.search(rf"^BootOrder: {ours[4:]},{grub_entry[4:]}",
                        installed, re.M) and
     re.search(rf"^{ours}\* tsctui\tHD\(1,GPT,[0-9a-f-]+,0x800,"
               rf"{S.ESP_MB * 2048:#x}\)/File\(\\EFI\\tsctui\\tsctui\.efi\)"
               # The load option's data, UCS-2 as efibootmgr dots it.
               + re.escape(".".join(f"config=esp next={grub_entry}")),
               installed, re.M),
     "boot 1: efibootmgr -v shows the tsctui entry (HD(1,GPT,...)/File of "
     "the stage, config=esp next= the GRUB entry), first in BootOrder, the "
     "GRUB entry after it", installed)
esp_opts = disk.read("EFI/tsctui/options") or b""
t.ok(disk.exists("EFI/tsctui/tsctui.efi") and esp_opts == b"mode=measure\n",
     "on the image: the stage and its options file on the ESP (measure)",
     esp_opts)

# ---- 2: firmware -> tsctui -> GRUB -> Linux ------------------------------
outs, text, res = g.boot("entry", [
    "efibootmgr",
    "tsctui report --json",
    "efibootmgr -v",
    "tsctui guard status --json",
    "tsctui boot-ok --json",
    "tsctui guard status --json",
    "tsctui status --json",
    "tsctui mode sync --json",
])
cur = re.search(r"^BootCurrent: (\w+)", outs[0][1] if outs[0] else "", re.M)
t.ok(cur and f"Boot{cur.group(1)}" == ours,
     "boot 2: BootCurrent is the tsctui entry", outs[0])
rep = S.js(outs[1])
t.ok(rep and rep["build"] == "release" and rep["mode"] == "measure" and
     rep["config"] == "esp" and rep["next"] == grub_entry and
     rep["msr_writes"] == 0 and len(rep["cpus"]) == 3,
     "boot 2: the report is there (release, measure, options from the ESP) "
     "and names the GRUB entry it started", outs[1])
S.story_measure(t, "boot 2", rep, S.js(outs[6]))
mode = S.js(outs[7])
t.ok(mode and mode["ok"] and disk.read("EFI/tsctui/options") ==
     b"mode=sync\n", "boot 2: `tsctui mode sync` in Linux writes the ESP's "
     "options", outs[7])
t.ok(text.find("tsctui report end") < text.find(f"tsctui: starting "
                                                 f"{grub_entry}") <
     text.find("GRUB loading Linux") < text.find("Linux up"),
     "boot 2: the console shows firmware -> stage -> GRUB -> Linux in order",
     text[-2500:])
t.ok(ours in (outs[2][1] if outs[2] else ""),
     "boot 2: efibootmgr -v shows the entry", outs[2])
p, ok, c = S.js(outs[3]), S.js(outs[4]), S.js(outs[5])
t.ok(p and p["guard"] == "clear" and ok and ok["ok"] and c and
     c["guard"] == "clear" and not disk.exists("EFI/tsctui/pending"),
     "boot 2: the stage cleared pending on the ESP when it returned: the "
     "guard clear in Linux, before and after boot-ok",
     (outs[3], outs[4], outs[5]))

# ---- 3: the release stage syncs before GRUB -------------------------------
outs, text, res = g.boot("sync", S.SYNC_COMMANDS)
S.story_sync(t, "boot 3", outs, res)

# ---- 4: a sync boot that never reaches Linux -----------------------------
# Stopped once GRUB greets: the stage clears pending right before it
# starts its next loader, after its report is out, so stopping at the
# report raced that write (the console reader's 10 s pin wait hid it).
S.story_stopped(t, "boot 4", g, b"Welcome to GRUB!",
                lambda: disk.exists("EFI/tsctui/synced") and
                not disk.exists("EFI/tsctui/pending"),
                "the firmware started the entry; the stage synced, cleared "
                "pending and left synced on the ESP", name="kernel-hang")
# A stage that died mid-run (the release build cannot hang on purpose;
# tests/stage has the sim driver's sim.hang=1): its pending.
disk.write("EFI/tsctui/pending", "")

# ---- 5: the guard trips, the boot goes on; recovery and uninstall -------
outs, text, res = g.boot("tripped", [
    "efibootmgr",
    "tsctui guard status --json",
    "tsctui guard status",
    "tsctui report --json",
    "tsctui guard reset --json",
    "tsctui guard status --json",
    "cat /boot/efi/EFI/tsctui/options",
    "tsctui uninstall --json",
    "efibootmgr -v",
])
cur = re.search(r"^BootCurrent: (\w+)", outs[0][1] if outs[0] else "", re.M)
gs, rep = S.js(outs[1]), S.js(outs[3])
t.ok(cur and f"Boot{cur.group(1)}" == ours and "hanging now" not in text and
     text.find(f"tsctui: starting {grub_entry}") < text.find("Linux up") and
     rep and rep["result"] == "guard-tripped" and rep["cpus"] == [] and
     gs and gs["guard"] == "tripped",
     "boot 5: the stage finds pending, disables itself without measuring "
     "(result guard-tripped) and still starts GRUB; Linux says tripped",
     (outs[0], outs[1], outs[3]))
t.ok(outs[2] and "a boot never reached Linux, and the hang guard disabled "
     "the stage" in outs[2][1],
     "boot 5: the recovery text in the booted system", outs[2])
reset, clear = S.js(outs[4]), S.js(outs[5])
t.ok(reset and reset["ok"] and clear and clear["guard"] == "clear" and
     outs[6] and outs[6][1] == "mode=measure\n",
     "boot 5: `tsctui guard reset` in Linux clears the guard and restores "
     "measure mode", (outs[4], outs[5], outs[6]))
un = S.js(outs[7])
after = listing(outs[8])
t.ok(un and un["ok"] and after == before and ours not in after,
     "boot 5: `tsctui uninstall` restores the firmware's entries exactly "
     "(efibootmgr -v before install and after uninstall, BootCurrent aside)",
     f"before:\n{before}\nafter:\n{after}\n{outs[7]}")
t.ok(not disk.exists("EFI/tsctui"),
     "on the image: uninstall removed the stage's directory from the ESP")

sys.exit(t.done())

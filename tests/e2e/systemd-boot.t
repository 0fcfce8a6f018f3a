#!/usr/bin/env python3
"""End to end, the systemd-boot path on the TSC rig (the E595's firmware
fault, TSC writes honoured, the release stage judged by the kernel):
OVMF -> systemd-boot, which loads the stage as a driver (options from the
ESP file) -> Debian's kernel from a BLS entry -> tsctui in the booted
system.  Nothing is installed at first.  Boots:
  1. the kernel warps and drops the TSC; status says boot-warp,
     install-measure; `tsctui install` in Linux, the loader detected from
     what systemd-boot told the OS;
  2. the release driver measures before Linux: the BSP behind every AP,
     status says enable-sync; the guard pending until boot-ok; `tsctui mode
     sync`;
  3. the driver syncs: the kernel keeps the TSC, status healthy, the
     history shows the fix; `tsctui kernel-arg nowatchdog on` edits the BLS
     entry and /etc/kernel/cmdline;
  4. the kernel's command line carries tsc=nowatchdog (systemd-boot passed
     the edited entry), status sees it; `kernel-arg nowatchdog off`;
  5. a boot that never reaches Linux after the driver armed the guard (the
     VM is stopped once the driver's report is on the console);
  6. the driver finds the pending flag, disables itself and does nothing;
     in Linux the guard says tripped; `guard reset` restores measure;
  7. the command line is back as it was; `tsctui uninstall` in Linux.
The NVRAM after the boots: no variable added or changed but OVMF's own."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import system as S  # noqa: E402
import ovmfvars  # noqa: E402

W, t = S.start("systemd-boot")
ver = S.kernel_version()
ENTRY = S.sd_entry(ver)

root = S.staging(os.path.join(W, "root"), loader="systemd-boot")
S.systemd_boot_esp(root)
esp = S.finish(root)
disk = S.make_disk(os.path.join(W, "disk.img"), root, esp)
g = S.Guest(W, disk, t, skew=S.RIG_E595)
nv_before = ovmfvars.parse(g.vars)
entry_before = disk.read(ENTRY)


def entry_options():
    data = (disk.read(ENTRY) or b"").decode()
    return [line for line in data.splitlines() if line.startswith("options")]


# ---- 1: the warp; install on the live system (loader detected) ---------
outs, text, res = g.boot("install", ["tsctui status --json",
                                     "tsctui report --json",
                                     "tsctui install --json",
                                     "tsctui status --json",
                                     "tsctui boot-ok --json"])
S.story_warp(t, "boot 1", S.js(outs[0]))
inst, st = S.js(outs[2]), S.js(outs[3])
t.ok(outs[1] and outs[1][0] == 2 and "tsctui report begin" not in text and
     inst and inst["ok"] and st and st["stage"]["installed"] and
     st["stage"]["loader"] == "systemd-boot" and
     st["stage"]["mode"] == "measure" and
     disk.exists("EFI/systemd/drivers/tsctuix64.efi"),
     "boot 1: nothing ran before Linux; `tsctui install` in Linux detects "
     "systemd-boot (its LoaderInfo) and installs the driver in measure mode",
     (outs[1], outs[2], st and st["stage"]))

# ---- 2: the driver measures; mode sync -----------------------------------
outs, text, res = g.boot("measure", [
    "tsctui report --json",
    "tsctui status --json",
    "tsctui guard status --json",
    "tsctui boot-ok --json",
    "tsctui mode sync --json",
])
rep = S.js(outs[0])
t.ok(rep and rep["config"] == "esp" and
     text.find("tsctui report end") < text.find("Linux up"),
     "boot 2: systemd-boot loads the release driver before Linux; its "
     "options come from the ESP", outs[0])
S.story_measure(t, "boot 2", rep, S.js(outs[1]))
gs, ok, mode = S.js(outs[2]), S.js(outs[3]), S.js(outs[4])
t.ok(gs and gs["guard"] == "pending" and gs["loader"] == "systemd-boot" and
     ok and ok["ok"] and not disk.exists("EFI/tsctui/pending") and
     mode and mode["ok"] and disk.read("EFI/tsctui/options") ==
     b"mode=sync\n",
     "boot 2: the driver armed the guard (pending on the ESP); boot-ok in "
     "Linux cleared it; `tsctui mode sync` wrote the ESP's options",
     (outs[2], outs[3], outs[4]))

# ---- 3: the driver syncs; kernel-arg on ----------------------------------
outs, text, res = g.boot("sync", S.SYNC_COMMANDS + [
    "cat /proc/cmdline",
    "tsctui kernel-arg nowatchdog on --json",
])
S.story_sync(t, "boot 3", outs)
cmdline1 = outs[4][1].strip() if outs[4] else ""
ka = S.js(outs[5])
opts = entry_options()
kc = (g.ext4_read("/etc/kernel/cmdline") or b"").decode()
t.ok("tsc=nowatchdog" not in cmdline1 and ka and ka["ok"] and
     len(opts) == 1 and "tsc=nowatchdog" in opts[0] and
     "tsc=nowatchdog" in kc,
     "boot 3: kernel-arg nowatchdog on edits the BLS entry on the ESP and "
     "/etc/kernel/cmdline", (cmdline1, outs[5], opts, kc))

# ---- 4: the next boot carries it; off ------------------------------------
outs, text, res = g.boot("carried", [
    "cat /proc/cmdline",
    "tsctui status --json",
    "tsctui kernel-arg nowatchdog off --json",
    "tsctui boot-ok --json",
])
cmdline2 = outs[0][1].split() if outs[0] else []
st = S.js(outs[1])
t.ok("tsc=nowatchdog" in cmdline2 and st and
     st["kernel"]["cmdline_tsc"] == ["nowatchdog"] and
     st["clocksource"]["current"] == "tsc",
     "boot 4: /proc/cmdline carries tsc=nowatchdog; status sees it; the "
     "driver synced again and the kernel kept the TSC",
     (outs[0], st and (st["kernel"]["cmdline_tsc"], st["clocksource"])))
off = S.js(outs[2])
opts = entry_options()
kc = (g.ext4_read("/etc/kernel/cmdline") or b"").decode()
t.ok(off and off["ok"] and opts == [f"options {S.CMDLINE}"] and
     kc.strip() == S.CMDLINE,
     "boot 4: kernel-arg nowatchdog off restores the entry's options line "
     "and takes the token out of /etc/kernel/cmdline", (outs[2], opts, kc))

# ---- 5: a boot that never reaches Linux after the driver ran -------------
S.story_hang(t, "boot 5", g, lambda: disk.exists("EFI/tsctui/pending"),
             "the driver made pending on the ESP")

# ---- 6: the guard trips; recovery ----------------------------------------
outs, text, res = g.boot("tripped", [
    "tsctui report --json",
    "tsctui guard status --json",
    "tsctui guard reset --json",
    "tsctui guard status --json",
    "tsctui boot-ok --json",
])
rep, gs, reset, clear = (S.js(outs[0]), S.js(outs[1]), S.js(outs[2]),
                         S.js(outs[3]))
t.ok(rep and rep["result"] == "guard-tripped" and rep["cpus"] == [] and
     rep["msr_writes"] == 0 and gs and gs["guard"] == "tripped",
     "boot 6: the driver finds the pending flag, disables itself without "
     "measuring or writing (guard-tripped); Linux says tripped",
     (outs[0], outs[1]))
t.ok(reset and reset["ok"] and clear and clear["guard"] == "clear" and
     not disk.exists("EFI/tsctui/disabled") and
     disk.read("EFI/tsctui/options") == b"mode=measure\n",
     "boot 6: `tsctui guard reset` in Linux clears the guard and restores "
     "measure mode", (outs[2], outs[3]))

# ---- 7: gone again; uninstall on the live system --------------------------
outs, text, res = g.boot("off", ["cat /proc/cmdline",
                                 "tsctui report --json",
                                 "tsctui uninstall --json"])
rep = S.js(outs[1])
t.ok(outs[0] and outs[0][1].strip() == cmdline1 and rep and
     rep["mode"] == "measure" and rep["msr_writes"] == 0,
     "boot 7: /proc/cmdline is back as it was before `on`; the driver "
     "measured", (outs[0], cmdline1, outs[1]))
un = S.js(outs[2])
gone = [p for p in ("EFI/tsctui", "EFI/systemd/drivers/tsctuix64.efi")
        if disk.exists(p)] + [
    p for p in ("/etc/tsctui/tsctui.conf", "/etc/kernel/cmdline",
                "/var/lib/tsctui/ledger") if g.ext4_read(p) is not None]
t.ok(un and un["ok"] and not gone and disk.read(ENTRY) == entry_before and
     g.ext4_read("/var/lib/tsctui/history") is not None,
     "boot 7: `tsctui uninstall` in Linux removes the driver, the ESP state, "
     "the configuration and /etc/kernel/cmdline; the entry is as it was; "
     "the history stays", (outs[2], gone))

# ---- NVRAM ----------------------------------------------------------------
S.check_nvram(t, g, nv_before,
              "seven boots through systemd-boot and the driver")
sys.exit(t.done())

#!/usr/bin/env python3
"""End to end, the systemd-boot path: OVMF -> systemd-boot, which loads the
stage as a driver (options from the ESP file) -> Debian's kernel from a BLS
entry -> tsctui in the booted system.

The guest is prepared as `tsctui install --loader systemd-boot` leaves it
(host, release build); the driver is then replaced by the sim build, synced
on the E595 pattern.  Boots:
  1. the driver syncs; in Linux the report is read from efivarfs, boot-ok
     clears the ESP's pending flag, `tsctui kernel-arg nowatchdog on` edits
     the BLS entry and /etc/kernel/cmdline;
  2. the kernel's command line carries tsc=nowatchdog (systemd-boot passed
     the edited entry), status sees it; `kernel-arg nowatchdog off`;
  3. the command line is back as it was; `tsctui uninstall` in Linux;
  4. nothing runs before Linux; `tsctui install` in Linux, the loader
     detected from what systemd-boot told the OS;
  5. the release driver it installed measures before Linux.
The NVRAM after the five boots: no variable added or changed but OVMF's
own."""
import json
import os
import shutil
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
r = S.tsctui_host(root, "install", "--loader", "systemd-boot", "--esp",
                  "/boot/efi")
out = json.loads(r.stdout) if r.stdout.strip() else {}
t.ok(r.returncode == 0 and out.get("ok"),
     "install --loader systemd-boot against the guest's root (host)",
     r.stdout + r.stderr)
esp = S.finish(root)
driver = os.path.join(esp, "EFI/systemd/drivers/tsctuix64.efi")
t.ok(os.path.exists(driver) and
     open(os.path.join(esp, "EFI/tsctui/options")).read() ==
     "mode=measure\n",
     "install put the driver in systemd-boot's drivers directory and the "
     "options file on the ESP")
shutil.copy(os.path.join(S.TOP, "efi", "tsctui-sim-driver.efi"), driver)
with open(os.path.join(esp, "EFI/tsctui/options"), "w") as f:
    f.write(f"mode=sync {S.E595}\n")
disk = S.make_disk(os.path.join(W, "disk.img"), root, esp)
g = S.Guest(W, disk, t)
nv_before = ovmfvars.parse(g.vars)


def entry_options():
    data = (disk.read(ENTRY) or b"").decode()
    return [line for line in data.splitlines() if line.startswith("options")]


# ---- 1: the driver syncs; kernel-arg on ----------------------------------
outs, text, res = g.boot("on", [
    "tsctui report --json",
    "tsctui guard status --json",
    "tsctui boot-ok --json",
    "cat /proc/cmdline",
    "tsctui kernel-arg nowatchdog on --json",
])
rep = S.js(outs[0])
t.ok(rep and rep["build"] == "sim" and rep["config"] == "esp" and
     rep["mode"] == "sync" and rep["result"] in ("in-sync", "unsure") and
     abs(rep["bsp_shift_cycles"] - 6815086010) < 5000,
     "boot 1: systemd-boot loads the driver, which syncs with the ESP's "
     "options; Linux reads its report from efivarfs", outs[0])
t.ok(text.find("tsctui report end") < text.find("Linux up"),
     "boot 1: the driver ran before systemd-boot started Linux")
gs, ok = S.js(outs[1]), S.js(outs[2])
t.ok(gs and gs["guard"] == "pending" and gs["loader"] == "systemd-boot" and
     ok and ok["ok"] and not disk.exists("EFI/tsctui/pending"),
     "boot 1: the driver armed the guard (pending on the ESP); boot-ok in "
     "Linux cleared it", (outs[1], outs[2]))
cmdline1 = outs[3][1].strip() if outs[3] else ""
ka = S.js(outs[4])
opts = entry_options()
kc = (g.ext4_read("/etc/kernel/cmdline") or b"").decode()
t.ok("tsc=nowatchdog" not in cmdline1 and ka and ka["ok"] and
     len(opts) == 1 and "tsc=nowatchdog" in opts[0] and
     "tsc=nowatchdog" in kc,
     "boot 1: kernel-arg nowatchdog on edits the BLS entry on the ESP and "
     "/etc/kernel/cmdline", (cmdline1, outs[4], opts, kc))

# ---- 2: the next boot carries it; off ------------------------------------
outs, text, res = g.boot("carried", [
    "cat /proc/cmdline",
    "tsctui status --json",
    "tsctui kernel-arg nowatchdog off --json",
])
cmdline2 = outs[0][1].split() if outs[0] else []
st = S.js(outs[1])
t.ok("tsc=nowatchdog" in cmdline2 and st and
     st["kernel"]["cmdline_tsc"] == ["nowatchdog"],
     "boot 2: /proc/cmdline carries tsc=nowatchdog; status sees it",
     (outs[0], st and st["kernel"]))
off = S.js(outs[2])
opts = entry_options()
kc = (g.ext4_read("/etc/kernel/cmdline") or b"").decode()
t.ok(off and off["ok"] and opts == [f"options {S.CMDLINE}"] and
     kc.strip() == S.CMDLINE,
     "boot 2: kernel-arg nowatchdog off restores the entry's options line "
     "and takes the token out of /etc/kernel/cmdline", (outs[2], opts, kc))

# ---- 3: gone again; uninstall on the live system --------------------------
entry_before = disk.read(ENTRY)
outs, text, res = g.boot("off", ["cat /proc/cmdline",
                                 "tsctui uninstall --json"])
t.ok(outs[0] and outs[0][1].strip() == cmdline1,
     "boot 3: /proc/cmdline is back as it was before `on`",
     (outs[0], cmdline1))
un = S.js(outs[1])
gone = [p for p in ("EFI/tsctui", "EFI/systemd/drivers/tsctuix64.efi")
        if disk.exists(p)] + [
    p for p in ("/etc/tsctui/tsctui.conf", "/etc/kernel/cmdline",
                "/var/lib/tsctui/ledger") if g.ext4_read(p) is not None]
t.ok(un and un["ok"] and not gone and disk.read(ENTRY) == entry_before and
     g.ext4_read("/var/lib/tsctui/history") is not None,
     "boot 3: `tsctui uninstall` in Linux removes the driver, the ESP state, "
     "the configuration and /etc/kernel/cmdline; the entry is as it was; "
     "the history stays", (outs[1], gone))

# ---- 4: install on the live system (loader detected), 5: its driver runs -
outs, text, res = g.boot("install", ["tsctui report --json",
                                     "tsctui install --json",
                                     "tsctui status --json"])
inst, st = S.js(outs[1]), S.js(outs[2])
t.ok(outs[0] and outs[0][0] == 2 and "tsctui report begin" not in text and
     inst and inst["ok"] and st and st["stage"]["installed"] and
     st["stage"]["loader"] == "systemd-boot" and
     st["stage"]["mode"] == "measure",
     "boot 4: nothing ran before Linux; `tsctui install` in Linux detects "
     "systemd-boot (its LoaderInfo) and installs in measure mode",
     (outs[0], outs[1], st and st["stage"]))
outs, text, res = g.boot("release", ["tsctui report --json",
                                     "tsctui boot-ok --json"])
rep = S.js(outs[0])
t.ok(rep and rep["build"] == "release" and rep["config"] == "esp" and
     rep["mode"] == "measure" and rep["msr_writes"] == 0 and
     len(rep["cpus"]) == 3 and S.js(outs[1]) and
     not disk.exists("EFI/tsctui/pending"),
     "boot 5: systemd-boot loads the release driver install put there; it "
     "measures, and boot-ok clears its guard", outs[0])

# ---- NVRAM ----------------------------------------------------------------
S.check_nvram(t, g, nv_before,
              "five boots through systemd-boot and the driver")
sys.exit(t.done())

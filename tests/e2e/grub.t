#!/usr/bin/env python3
"""End to end, the GRUB path: OVMF -> GRUB -> the stage -> Debian's kernel
-> tsctui in the booted system, on a persistent root.

The guest is prepared as `tsctui install --loader grub` leaves it (run on
the host against the guest's root directory, release build); the test GRUB
embeds the block the installed grub.d generator emits.  This file runs on
stock QEMU, a virtual machine as the guest sees it; the user's story with
real TSC writes judged by the kernel is grub-live.t, on the TSC rig.
Boots:
  1. measure: GRUB sets pending (on ext4, through save_env), chain-loads
     the release stage and clears pending when it returns; in Linux the
     report is read from the real efivarfs, the guard is clear, status
     reads the real kernel and says this is a virtual machine;
  2. the same disk on -cpu Skylake-Client, where the kernel keeps the TSC:
     status follows the real kernel; the sim build of the stage runs under
     a 500-byte variable size limit (sim.varmax, a firmware the rig cannot
     make) and stores the report that fits.
The guard's GRUB half (a boot stopped after the stage, a trip, recovery in
Linux, the stage again) is grub-live.t's story, boots 4 to 7, on the same
GRUB block and the same root: this file had it three boots over.
The NVRAM after the boots: no variable added or changed but OVMF's own."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import system as S  # noqa: E402
import ovmfvars  # noqa: E402

# Debian 12's default kernel line, not the e2e default (system.LINE): boot
# 1 needs a kernel that drops the TSC on stock TCG's -cpu EPYC, as 6.1's
# sync check does (measured; REFERENCE.md) and 6.12's did not.
S.LINE = "6.1"
W, t = S.start("grub")

# ---- The guest as install leaves it ------------------------------------
root = S.staging(os.path.join(W, "root"), loader="grub")
r = S.tsctui_host(root, "install", "--loader", "grub", "--esp", "/boot/efi")
out = json.loads(r.stdout) if r.stdout.strip() else {}
t.ok(r.returncode == 0 and out.get("ok"),
     "install --loader grub against the guest's root (host, release build)",
     r.stdout + r.stderr)
block = S.generator_block(root)
t.ok("chainloader /EFI/tsctui/tsctui.efi" in block and
     S.ROOT_UUID in block and S.ESP_UUID in block,
     "the installed generator emits the stage block, grubenv on the root "
     "file system (by UUID), stage on the ESP", block[:400])
esp = S.finish(root)
grub = S.grub_image(os.path.join(W, "grubx64.efi"), block)
for dest in ("EFI/debian/grubx64.efi", "EFI/BOOT/BOOTX64.EFI"):
    os.makedirs(os.path.dirname(os.path.join(esp, dest)), exist_ok=True)
    shutil.copy(grub, os.path.join(esp, dest))
disk = S.make_disk(os.path.join(W, "disk.img"), root, esp)
g = S.Guest(W, disk, t)
nv_before = ovmfvars.parse(g.vars)


# ---- 1: measure -----------------------------------------------------
outs, text, res = g.boot("measure", [
    "cat /boot/grub/grubenv",
    "tsctui report --json",
    "tsctui guard status --json",
    "tsctui boot-ok --json",
    "tsctui guard status --json",
    "tsctui status --json",
])
t.ok(outs[0] and "tsctui_pending=0" in outs[0][1] and
     "tsctui_synced=0" in outs[0][1],
     "boot 1: GRUB wrote the grubenv on ext4 (save_env): pending cleared "
     "after the stage returned, no synced after a measure run",
     outs[0] or text[-2000:])
rep = S.js(outs[1])
# Each boot's result as its report said: what boot-ok must record.
results = [rep and rep["result"]]
t.ok(rep and rep["build"] == "release" and rep["mode"] == "measure" and
     rep["msr_writes"] == 0 and len(rep["cpus"]) == 3 and
     all(c["warp_rounds"] > 0 for c in rep["cpus"]),
     "boot 1: `tsctui report --json` in Linux reads the release stage's "
     "report from efivarfs: measured every AP, wrote nothing",
     outs[1] if not rep else {k: rep[k] for k in
                               ("result", "mode", "msr_writes")})
st = S.js(outs[2])
ok = S.js(outs[3])
st2 = S.js(outs[4])
t.ok(st and st["guard"] == "clear" and ok and ok["ok"] and
     st2 and st2["guard"] == "clear",
     "boot 1: the guard clear in Linux, before boot-ok and after",
     (outs[2], outs[3], outs[4]))
env = S.grubenv_list(g, W)
t.ok(env.get("tsctui_pending") == "0" and env.get("tsctui_mode") == "measure",
     "after boot 1: `grub-editenv list` on the image shows pending=0", env)
status = S.js(outs[5])
if t.ok(status is not None, "boot 1: `tsctui status --json` in Linux",
        outs[5]):
    cs = status["clocksource"]["current"]
    events = status["kernel"]["events"]
    kinds = [e["kind"] for e in events]
    switch = [e["to"] for e in events if e["kind"] == "switch"]
    # The real kernel on -cpu EPYC under TCG: its sync check fails and it
    # falls back to hpet (measured; REFERENCE.md).
    t.ok(cs == "hpet" and "tsc" not in status["clocksource"]["available"] and
         "unstable" in kinds and switch and switch[-1] == cs,
         "boot 1: status shows the kernel's clocksource (hpet) and its TSC "
         "events: unstable, then the switch", (cs, events))
    unstable = [e for e in events if e["kind"] == "unstable"][0]
    t.ok("TSCs unsynchronized" in unstable["reason"] and
         "Marking TSC unstable due to TSCs unsynchronized" in text,
         "boot 1: the event's reason is the kernel's own message, as on the "
         "console", unstable)
    d = status["diagnosis"]
    t.ok(status["virtual_machine"] and d["code"] == "virtual-machine" and
         d["recommendations"] == ["check-host"] and cs in d["summary"],
         "boot 1: the diagnosis matches: a virtual machine on hpet, check "
         "the host", d)
    stg = status["stage"]
    t.ok(stg["installed"] and stg["loader"] == "grub" and
         stg["mode"] == "measure" and stg["guard"] == "clear" and
         stg["report"] and stg["report"]["result"] == rep["result"],
         "boot 1: status shows the installed stage, its mode, the guard and "
         "this boot's report", stg)

# ---- 2: a CPU model on which the kernel keeps the TSC -------------------
# The sim build, for a firmware whose variable size limit is 500 bytes
# (sim.varmax): the full report does not fit the variable.
disk.put(os.path.join(S.TOP, "efi", "tsctui-sim.efi"),
         "EFI/tsctui/tsctui.efi")
S.grubenv_edit(g, W, "set", "tsctui_options=sim.varmax=500")
outs, text, res = g.boot("skylake", ["tsctui status --json",
                                     "tsctui boot-ok --json",
                                     "tsctui history --json",
                                     "tsctui report --json",
                                     "tsctui report",
                                     "wc -c </sys/firmware/efi/efivars/"
                                     "TsctuiReport-" + ovmfvars.REPORT_GUID],
                         cpu="Skylake-Client")
status = S.js(outs[0])
if t.ok(status is not None, "boot 2 (Skylake-Client): status in Linux",
        outs[0]):
    kinds = [e["kind"] for e in status["kernel"]["events"]]
    t.ok(status["clocksource"]["current"] == "tsc" and
         "unstable" not in kinds and
         status["kernel"]["verdict"] == "TSC kept" and
         status["cpu"]["vendor"] == "intel" and
         "clocksource tsc" in status["diagnosis"]["summary"] and
         "Marking TSC unstable" not in text,
         "boot 2: the same disk on a CPU model the kernel keeps the TSC on: "
         "status follows the real kernel (tsc, no unstable event)",
         (status["clocksource"], status["kernel"],
          status["diagnosis"]["summary"]))

# The history boot-ok kept on the persistent root: one row per boot that
# reached boot-ok (1 and 2).
hist = S.js(outs[2]) or []
results.append((S.js(outs[3]) or {}).get("result"))
t.ok([(h["stage_mode"], h["clocksource"]) for h in hist] ==
     [("measure", "hpet"), ("measure", "tsc")] and
     None not in results and
     [h["stage_result"] for h in hist] == results and
     len({h["boot_id"] for h in hist}) == 2 and
     all(h["source"] == "tsctui" for h in hist),
     "boot 2: `tsctui history --json` lists the two boots boot-ok "
     "recorded across real boots (mode, each boot's own result, "
     "clocksource)", (outs[2], results))

# The variable holds what fits, worst verdicts first; the console has all.
log = os.path.join(W, f"{g.n}-skylake.log")
r = subprocess.run([S.TSCTUI, "report", "--json", "--file", log],
                   capture_output=True, text=True)
console = json.loads(r.stdout) if r.returncode == 0 else None
var = S.js(outs[3])
size = int(outs[5][1]) - 4 if outs[5] and outs[5][1].strip() else None
rank = {"bad": 0, "unmeasured": 1, "unsure": 2, "ok": 3}
if t.ok(var and console and len(console["cpus"]) == 3 and size is not None,
        "boot 2: the report is in the variable and on the console",
        (outs[3], outs[5], r.stderr)):
    kept = {c["index"] for c in var["cpus"]}
    left = [c for c in console["cpus"] if c["index"] not in kept]
    t.ok(size <= 500 and var["omitted_cpus"] == len(left) >= 1 and
         len(kept) + len(left) == 3 and
         all(rank[c["verdict"]] >= rank[k["verdict"]] for c in left
             for k in var["cpus"]) and
         var["result"] == console["result"] and
         "report variable holds" in text,
         "boot 2: under a 500-byte variable limit the stage stores what fits "
         "(worst verdicts first, omitted_cpus for the rest); the console "
         "copy has every AP",
         (size, var["omitted_cpus"], [c["verdict"] for c in console["cpus"]],
          [c["index"] for c in var["cpus"]]))
    t.ok(outs[4] and f"{var['omitted_cpus']} more APs (none with a worse "
         "verdict" in outs[4][1] and
         "console output lists them all" in outs[4][1],
         "boot 2: `tsctui report` says how many APs were left out and where "
         "to find them", outs[4])

# ---- NVRAM ----------------------------------------------------------------
S.check_nvram(t, g, nv_before,
              "two boots (measure, measure)")
sys.exit(t.done())

#!/usr/bin/env python3
"""Hibernation and resume on the TSC rig (issue 26, item 1; docs/DESIGN.md
7.1), judged by the resumed kernel and by the rig's truth.

A resume from S4 is a cold firmware boot: the firmware's fault comes back
(the rig applies the E595's BSP lag at every power-on), and the resumed
kernel brings its other CPUs up again through its tsc_sync check, which
drops the TSC for the whole resumed session on a warp.  The machine:

1. powers on: the stage (config=esp, mode=sync on the ESP) syncs; Linux
   6.1 keeps the TSC; the guest mounts the ESP, does what boot-ok does to
   it (this sync boot reached Linux: `synced` goes), runs tsctui's real
   sleep hook (`pre hibernate`: the `hibernated` marker), and hibernates
   to its swap disk, powering off;
2. powers on again: the stage finds the marker, a resume boot after a
   confirmed sync: it syncs without writing one byte of the ESP, its guard
   in its own variable; the kernel resumes the image, whose init goes on
   where it hibernated: the resumed kernel must keep the TSC, with no warp
   line, and the ESP must be as the hibernated system left it.

The hang guard of a resume boot (the sim build hanging, the next boot
tripping) is stage.t's; the GRUB block's side is grub-boot.t's."""
import hashlib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import ovmfvars  # noqa: E402
import qemu  # noqa: E402
import reportvar  # noqa: E402
import rig  # noqa: E402
from paths import BUILD, TOP  # noqa: E402
from tap import Tap  # noqa: E402

rig.require()
t = Tap(plan=9)
WORK = os.path.join(BUILD, "rig-resume")
os.makedirs(WORK, exist_ok=True)
APP = r"fs0:\EFI\tsctui\tsctui.efi"
HOOK = "/usr/lib/systemd/system-sleep/tsctui"
PORT = rig.ORACLE_PORT
# Where an AP's truth may lie after a sync and still be the stage's work:
# the kernel's check on this rig sees offsets from about rig.FAR.
NEAR = rig.FAR

# The sleep hook as `make install` puts it down, tsctui where the guest
# has it.
hook = os.path.join(WORK, "tsctui-sleep")
with open(os.path.join(TOP, "tui", "tsctui-sleep.in")) as f:
    text = f.read().replace("@SBINDIR@", "/usr/local/sbin")
with open(hook, "w") as f:
    f.write(text)
os.chmod(hook, 0o755)
options = os.path.join(WORK, "options")
with open(options, "w") as f:
    f.write("mode=sync\n")

# Run by the first boot's init once the kernel has judged the TSC ($swap:
# rig.RESUME_EARLY's).  After `echo disk`, only the resumed image goes on.
HIBERNATE = f"""mkdir -p /boot/efi /etc/tsctui
for p in /sys/block/vd*/vd*1; do esp=/dev/${{p##*/}}; done
mount -t vfat $esp /boot/efi && echo "rig: esp $esp mounted"
rm /boot/efi/EFI/tsctui/synced && echo "rig: synced confirmed"
echo esp=/boot/efi >/etc/tsctui/tsctui.conf
{HOOK} pre hibernate && echo "rig: sleep hook pre ok"
mkswap /dev/$swap >/dev/null && swapon /dev/$swap
echo shutdown >/sys/power/disk
echo "rig: hibernating" >/dev/kmsg
echo "rig: hibernating"
echo disk >/sys/power/state
echo "rig: resumed"
sleep 3
echo "rig: esp sha256 $(dd if=$esp iflag=direct bs=1M 2>/dev/null | sha256sum)"
echo "--- rig resumed dmesg begin ---"
dmesg | sed -n '/rig: hibernating/,$p'
echo "--- rig resumed dmesg end ---"
echo "rig: resumed clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
dd if=/dev/port bs=1 skip={PORT} count=1 of=/dev/null 2>/dev/null"""


def show(b, what):
    t.diag(f"{what}: {b.summary()}")
    for r in b.reports:
        t.diag(f"  stage: {r['mode']} {r['result']}, {r['msr_writes']} "
               f"writes, nvram {r.get('nvram_writes')}, reason "
               f"{r['reason']!r}")
    t.diag(f"  oracle: {b.oracle.groups('port')}")


def esp_sha(disk):
    """sha256 of the ESP partition's bytes, as `sha256sum` prints it."""
    with open(disk.path, "rb") as f:
        f.seek(disk.offsets[0])
        data = f.read(disk.parts[0][0] * 1024 * 1024)
    return hashlib.sha256(data).hexdigest()


def aps_within(group, bound):
    return group is not None and len(group) == 4 and all(
        abs(c) <= bound for n, c in group.items() if n != 0)


disk = qemu.Disk(os.path.join(WORK, "machine.img"), size_mb=48)
swap = os.path.join(WORK, "swap.img")
with open(swap, "wb") as f:
    f.truncate(256 * 1024 * 1024)
vars_path = qemu.seasoned_vars(os.path.join(WORK, "machine.vars"), "virtio")
# The Shell reads the truth before the stage too: the fault is back.
lines = [rig.ORACLE_SHELL, f"{APP} config=esp"]

b = rig.boot(WORK, "hibernate", lines, skew=rig.E595, commands=[HIBERNATE],
             hibernate=True, swap=swap, disk=disk, vars_path=vars_path,
             initrd_files=[(hook, HOOK)], extra_files=[
                 (options, "EFI/tsctui/options")],
             kernel="6.1", until=None, timeout=420)
show(b, "first boot")
console = b.res.console()
r = b.reports[0] if len(b.reports) == 1 else None
t.ok(r is not None and r["mode"] == "sync" and r["msr_writes"] > 0 and
     b.accepted and b.oracle.groups("port")[1:2] and
     aps_within(b.oracle.groups("port")[1], NEAR),
     "first boot: the stage syncs the E595's fault and Linux 6.1 keeps the "
     "TSC", b.summary())
t.ok("rig: synced confirmed" in console and
     "rig: sleep hook pre ok" in console and
     "rig: hibernating" in console and "rig: resumed" not in console and
     not b.res.timed_out and disk.exists("EFI/tsctui/hibernated") and
     not disk.exists("EFI/tsctui/synced") and
     not disk.exists("EFI/tsctui/pending"),
     "the guest confirms the sync, tsctui's sleep hook marks the ESP "
     "(hibernated) and the guest hibernates to its swap disk, powering off",
     console[-1500:])
before = esp_sha(disk)

b = rig.boot(WORK, "resume", [], skew=rig.E595, disk=disk, again=True,
             vars_path=vars_path, swap=swap, kernel="6.1",
             until=b"rig: done", timeout=420)
show(b, "resume boot")
console = b.res.console()
r = b.reports[0] if len(b.reports) == 1 else None
ports = b.oracle.groups("port")
t.ok(len(ports) >= 1 and ports[0] == rig.relative(rig.E595, 4),
     "the resume boot is a cold boot: the firmware's fault is back before "
     "the stage (by the oracle)", ports[:1])
t.ok(r is not None and r["mode"] == "sync" and r["msr_writes"] > 0 and
     "resume boot" in (r["reason"] or "") and r.get("nvram_writes") == 2 and
     len(ports) >= 2 and aps_within(ports[1], NEAR),
     "the stage takes the boot for a resume after a confirmed sync: it "
     "syncs, its guard in its own variable (set and deleted: 2 non-volatile "
     "writes)", r)
t.ok((ovmfvars.REPORT_GUID, reportvar.RESUME_NAME) not in
     ovmfvars.parse(vars_path),
     "the guard's variable is gone once the stage returned")
m = re.search(r"rig: esp sha256 ([0-9a-f]{64})", console)
t.ok(m is not None and m.group(1) == before and esp_sha(disk) == before,
     "the ESP the hibernated system keeps mounted: not one byte changed by "
     "the firmware, the stage or the resume",
     (m.group(1) if m else None, before))
m = re.search(r"--- rig resumed dmesg begin ---\n(.*?)"
              r"--- rig resumed dmesg end ---", console, re.S)
resumed = m.group(1) if m else ""
t.diag("resumed kernel: " + " | ".join(
    x for x in resumed.splitlines()
    if re.search(r"TSC|tsc|clocksource|CPU|hibernation|PM:", x))[:3000])
t.ok("rig: resumed" in console and
     re.search(r"Booting Node \d+ Processor 3\b", resumed) is not None,
     "the image resumed, and its kernel brought the other CPUs up again "
     "(its tsc_sync check ran)", resumed[-1500:])
cs = re.search(r"rig: resumed clocksource=(\S+)", console)
t.ok(cs is not None and cs.group(1) == "tsc" and
     "TSC warp" not in resumed and "Marking TSC unstable" not in resumed
     and "Marking clocksource" not in resumed,
     "the resumed kernel keeps the TSC: no warp line, not marked unstable, "
     "still its clocksource", (cs.group(1) if cs else None,
                               re.findall(r".*(?:TSC|tsc).*", resumed)))
t.ok(len(ports) >= 3 and aps_within(ports[-1], NEAR) and
     ports[-1] == ports[1],
     "by the oracle in the resumed Linux: every AP where the stage left it",
     ports)
os.unlink(disk.path)
os.unlink(swap)
sys.exit(1 if t.failed else 0)

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
t = Tap(plan=10)
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
# rig.RESUME_EARLY's).  @CONFIRM@ is what boot-ok does to the ESP when a
# sync boot reaches Linux (boot-ok itself needs an installed system; the
# e2e stories run it).  After `echo disk`, only the resumed image goes on.
HIBERNATE = f"""mkdir -p /boot/efi /etc/tsctui
for p in /sys/block/vd*/vd*1; do esp=/dev/${{p##*/}}; done
mount -t vfat $esp /boot/efi && echo "rig: esp $esp mounted"
@CONFIRM@
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
CONFIRMED = ('rm /boot/efi/EFI/tsctui/synced && '
             'echo "rig: synced confirmed"')
UNCONFIRMED = 'echo "rig: synced left"'


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


def settled(r, ports):
    """The sync run's report against the oracle when the stage returned
    (the Shell's second port read, the first being before the stage):
    every AP within NEAR, and each verdict and estimate held to that truth
    as the other rig suites hold them (rig.unsettled); why not, or []."""
    truth = ports[1] if len(ports) >= 2 else None
    if r is None or truth is None:
        return ["no report or no truth"]
    return ([] if aps_within(truth, NEAR) else [("truth", truth)]) + \
        rig.unsettled(r, truth)


class Story:
    """The machine's two power-ons: first (a sync boot that hibernates),
    resume (the next); esp_before: the ESP's sha256 between them; the
    resumed kernel's log (from its hibernation line on), clocksource and
    the guest's direct read of the ESP's sha256 after the resume."""

    def __init__(self, name, confirm):
        self.disk = qemu.Disk(os.path.join(WORK, f"{name}.img"), size_mb=48)
        self.vars = qemu.seasoned_vars(os.path.join(WORK, f"{name}.vars"),
                                       "virtio")
        swap = os.path.join(WORK, f"{name}-swap.img")
        with open(swap, "wb") as f:
            f.truncate(256 * 1024 * 1024)
        # The Shell reads the truth before the stage too: the fault back.
        lines = [rig.ORACLE_SHELL, f"{APP} config=esp"]
        self.first = rig.boot(
            WORK, f"{name}-first", lines, skew=rig.E595,
            commands=[HIBERNATE.replace("@CONFIRM@", confirm)],
            hibernate=True, swap=swap, disk=self.disk, vars_path=self.vars,
            initrd_files=[(hook, HOOK)],
            extra_files=[(options, "EFI/tsctui/options")],
            kernel="6.1", until=None, timeout=420)
        show(self.first, f"{name}, first boot")
        self.esp_before = esp_sha(self.disk)
        self.hibernated = self.disk.exists("EFI/tsctui/hibernated")
        self.synced = self.disk.exists("EFI/tsctui/synced")
        self.resume = rig.boot(
            WORK, f"{name}-resume", [], skew=rig.E595, disk=self.disk,
            again=True, vars_path=self.vars, swap=swap, kernel="6.1",
            until=b"rig: done", timeout=420)
        show(self.resume, f"{name}, resume boot")
        self.esp_after = esp_sha(self.disk)
        self.files = {f: self.disk.exists(f"EFI/tsctui/{f}")
                      for f in ("synced", "probation", "pending",
                                "hibernated")}
        os.unlink(self.disk.path)
        os.unlink(swap)
        console = self.resume.res.console()
        m = re.search(r"rig: esp sha256 ([0-9a-f]{64})", console)
        self.esp_read = m.group(1) if m else None
        m = re.search(r"--- rig resumed dmesg begin ---\n(.*?)"
                      r"--- rig resumed dmesg end ---", console, re.S)
        self.log = m.group(1) if m else ""
        m = re.search(r"rig: resumed clocksource=(\S+)", console)
        self.clocksource = m.group(1) if m else None
        self.resumed = ("rig: resumed" in console and
                        "rig: resumed" not in self.first.res.console())
        self.report = (self.resume.reports[0]
                       if len(self.resume.reports) == 1 else None)
        self.ports = self.resume.oracle.groups("port")

    def esp_untouched(self):
        """Not one ESP byte changed from the hibernation on: by the guest's
        direct read after the resume and by the disk image after it."""
        return (self.esp_read == self.esp_before and
                self.esp_after == self.esp_before)

    def cpus_up_again(self):
        """The resumed kernel brought the other CPUs up again: its
        tsc_sync check ran for each."""
        return re.search(r"Booting Node \d+ Processor 3\b",
                         self.log) is not None

    def kept_tsc(self):
        return (self.clocksource == "tsc" and "TSC warp" not in self.log and
                "Marking TSC unstable" not in self.log and
                "Marking clocksource" not in self.log)

    def tsc_lines(self):
        return re.findall(r".*(?:TSC|tsc).*", self.log)


# ---- a resume after a confirmed sync: the fix reaches the resumed kernel --
a = Story("confirmed", CONFIRMED)
r = a.first.reports[0] if len(a.first.reports) == 1 else None
wrong = settled(r, a.first.oracle.groups("port"))
t.ok(r is not None and r["mode"] == "sync" and r["msr_writes"] > 0 and
     a.first.accepted and not wrong,
     "first boot: the stage syncs the E595's fault, its report true to the "
     "oracle, and Linux 6.1 keeps the TSC", (a.first.summary(), wrong))
console = a.first.res.console()
t.ok("rig: synced confirmed" in console and
     "rig: sleep hook pre ok" in console and
     "rig: hibernating" in console and not a.first.res.timed_out and
     a.hibernated and not a.synced,
     "the guest confirms the sync, tsctui's sleep hook marks the ESP "
     "(hibernated) and the guest hibernates to its swap disk, powering off",
     console[-1500:])
t.ok(a.ports[:1] == [rig.relative(rig.E595, 4)],
     "the resume boot is a cold boot: the firmware's fault is back before "
     "the stage (by the oracle)", a.ports[:1])
r = a.report
wrong = settled(r, a.ports)
t.ok(r is not None and r["mode"] == "sync" and r["msr_writes"] > 0 and
     "resume boot" in (r["reason"] or "") and r.get("nvram_writes") == 2 and
     not wrong and (ovmfvars.REPORT_GUID, reportvar.RESUME_NAME) not in
     ovmfvars.parse(a.vars),
     "the stage takes the boot for a resume after a confirmed sync: it "
     "syncs, its report true to the oracle, its guard in its own variable, "
     "set and deleted (2 non-volatile writes)", (r, wrong))
t.ok(a.esp_untouched(),
     "the ESP the hibernated system keeps mounted: not one byte changed by "
     "the firmware, the stage or the resume",
     (a.esp_read, a.esp_after, a.esp_before))
t.diag("resumed kernel: " + " | ".join(
    x for x in a.log.splitlines()
    if re.search(r"TSC|tsc|clocksource|Processor|hibernation exit", x)))
t.ok(a.resumed and a.cpus_up_again(),
     "the image resumed, and its kernel brought the other CPUs up again "
     "(its tsc_sync check ran)", a.log[-1500:])
t.ok(a.kept_tsc(),
     "the resumed kernel keeps the TSC: no warp line, not marked unstable, "
     "still its clocksource", (a.clocksource, a.tsc_lines()))
t.ok(len(a.ports) >= 3 and a.ports[-1] == a.ports[1],
     "by the oracle in the resumed Linux: every AP where the stage left it",
     a.ports)

# ---- the other side: a resume after a sync Linux never confirmed ---------
# The stage measures only and starts no probation (synced stays for the
# next ordinary boot to judge), so the resumed kernel sees the firmware's
# fault: the price of the guard, and what shows that this file's check of
# the resumed kernel can fail.
b = Story("unconfirmed", UNCONFIRMED)
r = b.report
t.ok(b.synced and b.hibernated and r is not None and
     r["mode"] == "measure" and r["msr_writes"] == 0 and
     "measures only" in (r["reason"] or "") and
     r.get("nvram_writes") == 2 and b.esp_untouched() and
     b.files["synced"] and not b.files["probation"] and
     not b.files["pending"],
     "a resume after an unconfirmed sync: measure only, no write, no "
     "probation started, the ESP untouched", (r, b.files))
t.ok(b.resumed and b.cpus_up_again() and b.clocksource != "tsc" and
     "Marking TSC unstable due to check_tsc_sync_source failed" in b.log,
     "... and its resumed kernel catches the firmware's fault when it "
     "brings the other CPUs up, and drops the TSC",
     (b.clocksource, b.tsc_lines()))
sys.exit(1 if t.failed else 0)

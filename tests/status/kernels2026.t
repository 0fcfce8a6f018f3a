#!/usr/bin/env python3
"""status on logs of the 2026 clocksource watchdog ("clocksource: Rewrite
watchdog code completely"): no kernel the project can fetch carries it, so
the fixture logs are built from its printk formats (shared/docs/REFERENCE.md,
docs/DESIGN.md 9.2).  The inter-CPU skew is its own event with the CPU pair,
both counters and how far back; the frequency check's padded interval lines
give a watchdog-skew with its ppm; which watchdog wrote a log is decided by
its wording, else by the kernel's version (the log's banner, else the
root's /proc/sys/kernel/osrelease), and sets the limit status reports.
Beside it, the other kernels users have in 2026: a tsc=directsync kernel's
corrections (one event a CPU), and the suspend transitions a runtime
watchdog drop may follow (the Framework laptops' fault)."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI  # noqa: E402
LOGS = os.path.join(TOP, "tests", "fixtures", "kernlog")
WORK = os.path.join(BUILD, "status-kernels2026")
t = Tap()
if os.path.exists(WORK):
    shutil.rmtree(WORK)


def machine(name, osrelease=None):
    root = os.path.join(WORK, name)
    cs = "/sys/devices/system/clocksource/clocksource0/"
    fx.write(root, cs + "current_clocksource", "hpet\n")
    fx.write(root, cs + "available_clocksource", "hpet acpi_pm \n")
    fx.write(root, "/proc/cpuinfo", fx.CPUINFO_AMD)
    fx.write(root, "/proc/cmdline", "root=UUID=0f ro quiet\n")
    if osrelease:
        fx.write(root, "/proc/sys/kernel/osrelease", osrelease + "\n")
    return root


def status(root, log=None):
    cmd = [TSCTUI, "--root", root, "status", "--json"]
    if log:
        cmd += ["--kernel-log", os.path.join(LOGS, log)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return r.returncode, json.loads(r.stdout), r.stderr
    except ValueError:
        return r.returncode, {}, r.stdout + r.stderr


def events(out, kind):
    return [e for e in out.get("kernel", {}).get("events", [])
            if e["kind"] == kind]


root = machine("inter-cpu")
rc, out, err = status(root, "watchdog2026-inter-cpu.dmesg")
ic = events(out, "inter-cpu-skew")
t.ok(rc == 1 and len(ic) == 1 and ic[0]["cpus"] == [3, 0] and
     ic[0]["counters"] == [80712345678, 80712345716] and
     ic[0]["cycles"] == 38 and ic[0]["time"] == 38.502113,
     "an inter-CPU skew: CPU 3 read 38 cycles below CPU 0, both counters, "
     "exit 1", json.dumps(ic) + err)
t.ok(not events(out, "watchdog-skew") and not events(out, "warp"),
     "it is neither a frequency skew nor a boot-time warp",
     json.dumps(out.get("kernel", {}).get("events")))
t.ok(out.get("kernel", {}).get("watchdog") ==
     {"kind": "2026", "decided_by": "wording", "limit_ppm": 488.3},
     "the wording says the 2026 watchdog: its limit once the TSC is "
     "calibrated, 488.3 ppm", json.dumps(out.get("kernel", {})
                                          .get("watchdog")))

rc, out, err = status(machine("frequency"), "watchdog2026-frequency.dmesg")
wd = events(out, "watchdog-skew")
to = events(out, "watchdog-timeout")
t.ok(len(wd) == 1 and wd[0]["wd_interval_ns"] == 495426793 and
     wd[0]["cs_interval_ns"] == 495006210 and wd[0]["ppm"] == -848.9 and
     wd[0]["watchdog"] == "hpet",
     "the frequency check's right-aligned interval lines: -848.9 ppm "
     "against hpet", json.dumps(wd) + err)
t.ok(len(to) == 1 and to[0] == {"kind": "watchdog-timeout",
                                "time": 3.702311, "watchdog": "hpet",
                                "readout_ns": 61234},
     "its own read time-out names the watchdog and the readout time",
     json.dumps(to))

# No watchdog line in the log: the version decides.  A log handed in
# may be another kernel's: the root's release does not judge it.
rc, out, err = status(machine("handed-in", osrelease="7.2.0-1-amd64"),
                      "healthy-synced.dmesg")
t.ok(out.get("kernel", {}).get("watchdog") ==
     {"kind": "unknown", "decided_by": "none", "limit_ppm": None},
     "a handed-in log without watchdog lines or banner: unknown, whatever "
     "the root's release", json.dumps(out.get("kernel", {}).get("watchdog")))
root = machine("by-release", osrelease="7.2.0-1-amd64")
rc, out, err = status(root)
t.ok(out.get("kernel", {}).get("watchdog") ==
     {"kind": "2026", "decided_by": "version", "limit_ppm": 3906.2},
     "no log: the root's running release 7.2 decides (2026; no refined "
     "calibration seen, so the uncalibrated limit)",
     json.dumps(out.get("kernel", {}).get("watchdog")) + err)
root = machine("by-release-old", osrelease="6.1.0-18-amd64")
rc, out, err = status(root)
t.ok(out.get("kernel", {}).get("watchdog") ==
     {"kind": "classic", "decided_by": "version", "limit_ppm": 500.0},
     "release 6.1: the classic watchdog, 500 ppm",
     json.dumps(out.get("kernel", {}).get("watchdog")))
rc, out, err = status(root, "watchdog2026-frequency.dmesg")
t.ok(out.get("kernel", {}).get("watchdog", {}).get("kind") == "2026",
     "a log handed in is judged by its own wording, not by the release "
     "of the root it is read with")
rc, out, err = status(machine("unknown"))
t.ok(out.get("kernel", {}).get("watchdog") ==
     {"kind": "unknown", "decided_by": "none", "limit_ppm": None},
     "no log and no release: unknown, and no limit made up",
     json.dumps(out.get("kernel", {}).get("watchdog")))

rc, out, err = status(machine("directsync"), "directsync-steamos.dmesg")
ds = events(out, "directsync")
t.ok([(e["cpu"], e["corrections"], e["cycles"], e["overhead_cycles"])
      for e in ds] == [(1, 2, 6815086051, 424), (2, 1, 6815085990, 209),
                       (3, 2, 6815086021, 430)],
     "a directsync kernel's corrections: one event a CPU, counted and "
     "summed", json.dumps(ds) + err)

rc, out, err = status(machine("framework"), "framework-s2idle-watchdog.dmesg")
tr = out.get("kernel", {}).get("power_transitions")
t.ok(tr == [{"kind": "suspend-entry", "time": 1820.113201, "what": "s2idle"},
            {"kind": "suspend-exit", "time": 1820.941007},
            {"kind": "suspend-entry", "time": 5402.008114, "what": "s2idle"},
            {"kind": "suspend-exit", "time": 5466.201399}],
     "the suspends before the watchdog's drop, not the one after it",
     json.dumps(tr))

sys.exit(t.done())

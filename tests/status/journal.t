#!/usr/bin/env python3
"""Past boots from the systemd journal.  This machine runs no systemd and
keeps no journal, so the test builds journal files: journal export text
turned into a real journal by systemd-journal-remote, read by tsctui through
sd-journal.  Three boots: the E595 at BIOS 1.28 (a warp), at 1.30 (the
watchdog), and a healthy one."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI  # noqa: E402
REMOTE = "/lib/systemd/systemd-journal-remote"
MACHINE = "fedcba9876543210fedcba9876543210"
t = Tap()

BOOTS = [
    ("11111111111111111111111111111111", 1760198531, [
        (0, "DMI: LENOVO 20NECTO1WW/20NECTO1WW, BIOS R11ET36W (1.28 ) "
            "06/30/2023"),
        (0, "tsc: Detected 2096.066 MHz processor"),
        (174311, "TSC synchronization [CPU#0 -> CPU#2]:"),
        (174311, "Measured 6601281288 cycles TSC warp between CPUs, "
                 "turning off TSC clock."),
        (174311, "tsc: Marking TSC unstable due to check_tsc_sync_source "
                 "failed"),
        (301238, "clocksource: Switched to clocksource hpet")]),
    ("22222222222222222222222222222222", 1760284931, [
        (0, "DMI: LENOVO 20NECTO1WW/20NECTO1WW, BIOS R11ET38W (1.30 ) "
            "05/14/2024"),
        (2131550, "clocksource: Switched to clocksource tsc"),
        (4218722, "clocksource: Watchdog hpet interval: 495426793ns"),
        (4218730, "clocksource: Clocksource tsc interval: 495006210ns"),
        (4218902, "clocksource: Switched to clocksource hpet")]),
    ("33333333333333333333333333333333", 1760371331, [
        (0, "DMI: LENOVO 20NECTO1WW/20NECTO1WW, BIOS R11ET38W (1.30 ) "
            "05/14/2024"),
        (2133331, "clocksource: Switched to clocksource tsc")]),
]

root = os.path.join(BUILD, "journal-root")
if os.path.exists(root):
    shutil.rmtree(root)
jdir = os.path.join(root, "var/log/journal", MACHINE)
os.makedirs(jdir)
export = ""
for boot, start, msgs in BOOTS:
    for mono, msg in msgs:
        export += (f"__REALTIME_TIMESTAMP={start * 1000000 + mono}\n"
                   f"__MONOTONIC_TIMESTAMP={mono}\n_BOOT_ID={boot}\n"
                   f"_MACHINE_ID={MACHINE}\n_TRANSPORT=kernel\n"
                   f"_HOSTNAME=e595\nPRIORITY=6\n"
                   f"_SOURCE_MONOTONIC_TIMESTAMP={mono}\nMESSAGE={msg}\n\n")
r = subprocess.run([REMOTE, f"--output={jdir}/system.journal", "-"],
                   input=export, capture_output=True, text=True)
t.ok(r.returncode == 0 and os.path.exists(f"{jdir}/system.journal"),
     "systemd-journal-remote built the journal file", r.stderr)

r = subprocess.run([TSCTUI, "--root", root, "history", "--json"],
                   capture_output=True, text=True)
h = json.loads(r.stdout) if r.returncode == 0 else []
t.ok(len(h) == 3 and all(x["source"] == "journal" for x in h),
     "history without tsctui's own record: three boots from the journal",
     r.stdout[:500] + r.stderr)
if len(h) == 3:
    t.ok(h[0]["warp_cycles"] == 6601281288 and
         h[0]["bios_version"] == "R11ET36W (1.28 )" and
         h[0]["clocksource"] == "hpet" and h[0]["time"] == 1760198531,
         "boot 1: BIOS 1.28, the warp, hpet", h[0])
    t.ok(h[1]["watchdog_ppm"] == -848.9 and h[1]["warp_cycles"] == 0 and
         h[1]["bios_version"] == "R11ET38W (1.30 )" and
         h[1]["clocksource"] == "hpet",
         "boot 2: BIOS 1.30, the watchdog at -848.9 ppm", h[1])
    t.ok(h[2]["clocksource"] == "tsc" and h[2]["watchdog_ppm"] is None,
         "boot 3: healthy, the TSC kept", h[2])

# Once tsctui records boots itself, its record is the history.
os.makedirs(os.path.join(root, "var/lib/tsctui"))
with open(os.path.join(root, "var/lib/tsctui/history"), "w") as f:
    f.write("boot_id=4444\ttime=1760457731\tbios_version=R11ET38W (1.30 )\t"
            "stage_mode=sync\tstage_result=in-sync\twarp_cycles=0\t"
            "watchdog_ppm=-\tclocksource=tsc\n")
r = subprocess.run([TSCTUI, "--root", root, "history", "--json"],
                   capture_output=True, text=True)
h = json.loads(r.stdout)
t.ok(len(h) == 1 and h[0]["source"] == "tsctui" and
     h[0]["stage_mode"] == "sync", "tsctui's own record wins when present", h)
r = subprocess.run([TSCTUI, "--root", root, "history"], capture_output=True,
                   text=True)
t.ok(r.returncode == 0 and "R11ET38W (1.30 )" in r.stdout and
     "in-sync" in r.stdout, "history as a table", r.stdout)
sys.exit(t.done())

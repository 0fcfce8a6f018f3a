"""A Framework 13 AMD boot as a fixture root, for the changes of power
source beside a runtime watchdog drop (source/powerlog.h): the kernel log,
this boot's journal (built by systemd-journal-remote), upower's history of
the system battery and of a mouse, and TLP's and upowerd's lines.  The
boot suspends for an hour at 250 s, so its wall clock and its boot clock
are 3,600 s further apart after it; the watchdog drops the TSC at 350 s.
Used by tests/status/powerlog.t and tests/ui/dashboard.t."""
import os
import subprocess

import fixtures as fx

REMOTE = "/lib/systemd/systemd-journal-remote"
MACHINE = "fedcba9876543210fedcba9876543210"
BOOT_UUID = "5ca1ab1e-0000-4000-8000-00000000f13a"
BOOT = BOOT_UUID.replace("-", "")
OTHER = "0" * 31 + "1"
S = 1764000000      # the boot's wall-clock start, seconds
SLEEP = 3600        # the suspend at 250 s

DMESG = """\
[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) #45-Ubuntu SMP PREEMPT_DYNAMIC
[    0.000000] DMI: Framework Laptop 13 (AMD Ryzen 7040Series)/FRANMDCP07, BIOS 03.05 03/29/2024
[    0.000000] tsc: Detected 2994.384 MHz processor
[    2.217443] tsc: Refined TSC clocksource calibration: 2994.373 MHz
[    2.217511] clocksource: Switched to clocksource tsc
[  250.000000] PM: suspend entry (s2idle)
[  250.500000] PM: suspend exit
[  350.000000] clocksource: timekeeping watchdog on CPU5: Marking clocksource 'tsc' as unstable because the skew is too large:
[  350.000011] clocksource:                       'hpet' wd_nsec: 499712311 wd_now: 3c1a8f20 wd_last: 3b9f2d11 mask: ffffffff
[  350.000016] clocksource:                       'tsc' cs_nsec: 500217903 cs_now: 3a7f1e2c05d4 cs_last: 3a7eb4f3a8e1 mask: ffffffffffffffff
[  350.000020] clocksource:                       'tsc' is current clocksource.
[  350.000031] tsc: Marking TSC unstable due to clocksource watchdog
[  350.003209] clocksource: Switched to clocksource hpet
[  380.000000] PM: suspend entry (s2idle)
[  380.400000] PM: suspend exit
"""


def history(rows):
    return "".join(f"{S + sec}\t{val:.3f}\t{state}\n"
                   for sec, val, state in rows)


def entry(boot, mono, real, ident, msg):
    return (f"__REALTIME_TIMESTAMP={int(real * 1000000)}\n"
            f"__MONOTONIC_TIMESTAMP={int(mono * 1000000)}\n"
            f"_BOOT_ID={boot}\n_MACHINE_ID={MACHINE}\n_TRANSPORT=syslog\n"
            f"_HOSTNAME=fw13\nPRIORITY=6\nSYSLOG_IDENTIFIER={ident}\n"
            f"MESSAGE={msg}\n\n")


def machine(work, name, boot_id=True, upower=True, tlp=(), upowerd=(),
            journal=True, battery=True):
    root = os.path.join(work, name)
    cs = "/sys/devices/system/clocksource/clocksource0/"
    fx.write(root, cs + "current_clocksource", "hpet\n")
    fx.write(root, cs + "available_clocksource", "tsc hpet acpi_pm \n")
    fx.write(root, "/proc/cpuinfo", fx.CPUINFO_AMD)
    fx.write(root, "/proc/cmdline", "root=UUID=0f ro quiet\n")
    if boot_id:
        fx.write(root, "/proc/sys/kernel/random/boot_id", BOOT_UUID + "\n")
    ps = "/sys/class/power_supply/"
    fx.write(root, ps + "ACAD/type", "Mains\n")
    fx.write(root, ps + "ACAD/online", "1\n")
    if battery:
        fx.write(root, ps + "BAT1/type", "Battery\n")
        fx.write(root, ps + "BAT1/scope", "System\n")
        fx.write(root, ps + "BAT1/model_name", "FRANGWAT01\n")
        fx.write(root, ps + "BAT1/status", "Charging\n")
    fx.write(root, ps + "hidpp_battery_0/type", "Battery\n")
    fx.write(root, ps + "hidpp_battery_0/scope", "Device\n")
    fx.write(root, ps + "hidpp_battery_0/model_name", "MX Master 3\n")
    up = "/var/lib/upower/"
    if upower:
        # The system battery: to mains at 200 s (before the suspend), to
        # the battery at 251 s (just after it, before the journal's first
        # entry after it), to mains at 340 s, and to the battery at 370 s
        # (after the drop).  Its charge file sees the 340 s change a
        # second later: one change, not two.
        fx.write(root, up + "history-rate-FRANGWAT01-55-1234.dat", history([
            (50, 9.1, "discharging"), (200, 20.0, "charging"),
            (SLEEP + 251, 9.0, "discharging"),
            (SLEEP + 340, 25.0, "charging"),
            (SLEEP + 345, 26.0, "fully-charged"),
            (SLEEP + 370, 9.0, "discharging")]))
        fx.write(root, up + "history-charge-FRANGWAT01-55-1234.dat", history([
            (SLEEP + 330, 80.0, "discharging"),
            (SLEEP + 341, 80.5, "charging")]))
    # The mouse, charged over USB 2 s before the drop: not the system's.
    fx.write(root, up + "history-charge-MX_Master_3-4a2f.dat", history([
        (SLEEP + 340, 50.0, "discharging"), (SLEEP + 348, 51.0, "charging")]))
    if journal:
        jdir = os.path.join(root, "var/log/journal", MACHINE)
        os.makedirs(jdir)
        export = ""
        # Another boot's lines, an hour before: never this boot's.
        export += entry(OTHER, 340, S - 3600 + 340, "tlp",
                        "power_source=bat(mains off)")
        for mono in (1, 60, 120, 180, 240, 249):
            export += entry(BOOT, mono, S + mono, "systemd", "tick")
        for mono in (252, 300, 330, 360, 400):
            export += entry(BOOT, mono, S + SLEEP + mono, "systemd", "tick")
        for mono, msg in tlp:
            off = S if mono < 250 else S + SLEEP
            export += entry(BOOT, mono, off + mono, "tlp", msg)
        for mono, msg in upowerd:
            off = S if mono < 250 else S + SLEEP
            export += entry(BOOT, mono, off + mono, "upowerd", msg)
        r = subprocess.run([REMOTE, f"--output={jdir}/system.journal", "-"],
                           input=export, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("systemd-journal-remote: " + r.stderr)
    log = os.path.join(work, name + ".dmesg")
    with open(log, "w") as f:
        f.write(DMESG)
    return root, log

"""A Framework 13 AMD boot as a fixture root, for the changes of power
source beside a runtime watchdog drop (source/powerlog.h): the kernel log,
this boot's journal (built by systemd-journal-remote), upower's history of
the system battery and of a mouse, and TLP's and upowerd's lines.

Times are on the kernel log's clock (K).  The boot sleeps twice before the
watchdog drops the TSC at K = 4100: in s2idle from K = 250 for 3,601 s,
through which the kernel's clock runs on (the wall clock minus K stays
S), and in a deep sleep at K = 4000 for 1,800 s, through which it does
not (after it, the wall clock minus K is S + 1800).  The kernel line each
sleep began with is received by the journal only after the wake, so its
wall-clock time is late by the sleep.
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
DEEP = 1800         # the deep sleep's length
S2IDLE = 3601       # the s2idle sleep's length

DMESG = """\
[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) #45-Ubuntu SMP PREEMPT_DYNAMIC
[    0.000000] DMI: Framework Laptop 13 (AMD Ryzen 7040Series)/FRANMDCP07, BIOS 03.05 03/29/2024
[    0.000000] tsc: Detected 2994.384 MHz processor
[    2.217443] tsc: Refined TSC clocksource calibration: 2994.373 MHz
[    2.217511] clocksource: Switched to clocksource tsc
[  250.000000] PM: suspend entry (s2idle)
[ 3851.000000] PM: suspend exit
[ 4000.000000] PM: suspend entry (deep)
[ 4000.600000] PM: suspend exit
[ 4100.000000] clocksource: timekeeping watchdog on CPU5: Marking clocksource 'tsc' as unstable because the skew is too large:
[ 4100.000011] clocksource:                       'hpet' wd_nsec: 499712311 wd_now: 3c1a8f20 wd_last: 3b9f2d11 mask: ffffffff
[ 4100.000016] clocksource:                       'tsc' cs_nsec: 500217903 cs_now: 3a7f1e2c05d4 cs_last: 3a7eb4f3a8e1 mask: ffffffffffffffff
[ 4100.000020] clocksource:                       'tsc' is current clocksource.
[ 4100.000031] tsc: Marking TSC unstable due to clocksource watchdog
[ 4100.003209] clocksource: Switched to clocksource hpet
[ 4200.000000] PM: suspend entry (s2idle)
[ 4260.000000] PM: suspend exit
"""


def wall(k):
    """The wall-clock time of kernel time k (not a sleep's first line)."""
    return S + k + (DEEP if k > 4000 else 0)


def mono(k):
    """CLOCK_MONOTONIC at kernel time k: it stops in every sleep."""
    return k if k <= 250 else max(250, k - S2IDLE)


def history(rows):
    """upower's lines: (kernel time, value, state)."""
    return "".join(f"{int(wall(k))}\t{val:.3f}\t{state}\n"
                   for k, val, state in rows)


def entry(boot, k, real, fields, msg):
    return (f"__REALTIME_TIMESTAMP={int(round(real * 1000000))}\n"
            f"__MONOTONIC_TIMESTAMP={int(round(mono(k) * 1000000))}\n"
            f"_BOOT_ID={boot}\n_MACHINE_ID={MACHINE}\n{fields}"
            f"_HOSTNAME=fw13\nPRIORITY=6\nMESSAGE={msg}\n\n")


def kernel(k, msg, late=0.0):
    return entry(BOOT, k, wall(k) + late,
                 f"_TRANSPORT=kernel\n_SOURCE_MONOTONIC_TIMESTAMP="
                 f"{int(round(k * 1000000))}\n", msg)


def syslog(k, ident, msg, boot=BOOT, real=None):
    return entry(boot, k, wall(k) if real is None else real,
                 f"_TRANSPORT=syslog\nSYSLOG_IDENTIFIER={ident}\n", msg)


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
        # The system battery: to mains at K 200, to the battery at K 3851
        # (the second s2idle woke, the very time the journal received
        # the kernel's wake line, and just after the sleep's late first
        # line), to mains at 4001 (after the deep sleep), to the battery
        # at 4060, to mains at 4090, to the battery at 4120 (after the
        # drop).  Its charge file sees the 4090 change a second later:
        # one change, not two.
        fx.write(root, up + "history-rate-FRANGWAT01-55-1234.dat", history([
            (50, 9.1, "discharging"), (200, 20.0, "charging"),
            (3851, 9.0, "discharging"), (4001, 25.0, "charging"),
            (4060, 9.0, "discharging"), (4090, 25.0, "charging"),
            (4095, 26.0, "fully-charged"), (4120, 9.0, "discharging")]))
        fx.write(root, up + "history-charge-FRANGWAT01-55-1234.dat", history([
            (4080, 80.0, "discharging"), (4091, 80.5, "charging")]))
    # The mouse, charged over USB 2 s before the drop: not the system's.
    fx.write(root, up + "history-charge-MX_Master_3-4a2f.dat", history([
        (4085, 50.0, "discharging"), (4098, 51.0, "charging")]))
    if journal:
        jdir = os.path.join(root, "var/log/journal", MACHINE)
        os.makedirs(jdir)
        # Another boot's line, an hour before: never this boot's.
        export = syslog(340, "tlp", "power_source=bat(mains off)",
                        boot=OTHER, real=S - 3600 + 340)
        lines = [(k, kernel(k, "tick")) for k in
                 (1, 60, 120, 180, 240, 3860, 3900, 3990, 4002, 4050,
                  4100, 4150)]
        lines += [(250, kernel(250, "PM: suspend entry (s2idle)",
                               late=S2IDLE - 0.1)),
                  (3851, kernel(3851, "PM: suspend exit")),
                  (4000, kernel(4000, "PM: suspend entry (deep)",
                                late=DEEP + 0.5)),
                  (4000.6, kernel(4000.6, "PM: suspend exit"))]
        lines += [(k, syslog(k, "tlp", msg)) for k, msg in tlp]
        lines += [(k, syslog(k, "upowerd", msg)) for k, msg in upowerd]
        # In the order the journal received them.
        order = {250: 3850.9, 4000: 4000.5}
        for _, text in sorted(lines, key=lambda x: order.get(x[0], x[0])):
            export += text
        r = subprocess.run([REMOTE, f"--output={jdir}/system.journal", "-"],
                           input=export, capture_output=True, text=True)
        if r.returncode or "writing 0 entries" in r.stderr:
            raise RuntimeError("systemd-journal-remote: " + r.stderr)
    log = os.path.join(work, name + ".dmesg")
    with open(log, "w") as f:
        f.write(DMESG)
    return root, log

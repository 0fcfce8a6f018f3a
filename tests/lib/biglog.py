"""A big, realistic kernel log for the parser's benchmark and the
dashboard's loading test: dmesg lines with timestamps, the boot's messages
first (the E595's, with its TSC warp), then the chatter of a machine that
has been up for weeks (USB, network, audit, filesystems, firmware), with
TSC and clocksource messages scattered through it and some in the last
lines.  Deterministic: the same size gives the same bytes."""
import random

# What a long-running machine logs, over and over.
CHATTER = [
    "usb 1-{a}: new high-speed USB device number {b} using xhci_hcd",
    "usb 1-{a}: New USB device found, idVendor=0bda, idProduct=8153, "
    "bcdDevice=30.00",
    "usb 1-{a}: USB disconnect, device number {b}",
    "r8152 2-{a}:1.0 enx00e04c68{b:04x}: carrier on",
    "iwlwifi 0000:03:00.0: Unhandled alg: 0x{b:x}",
    "wlp3s0: authenticate with 3c:37:86:{a:02x}:{b:02x}:10",
    "wlp3s0: associated",
    "IPv6: ADDRCONF(NETDEV_CHANGE): wlp3s0: link becomes ready",
    "audit: type=1400 audit({s}.{b:03d}:{a}): apparmor=\"DENIED\" "
    "operation=\"open\" profile=\"snap.firefox\" name=\"/proc/{a}/maps\" "
    "pid={b} comm=\"firefox\" requested_mask=\"r\" denied_mask=\"r\"",
    "EXT4-fs (nvme0n1p{a}): mounted filesystem with ordered data mode. "
    "Quota mode: none.",
    "nvme nvme0: {a}/0/0 default/read/poll queues",
    "amdgpu 0000:04:00.0: amdgpu: SMU is resumed successfully!",
    "PM: suspend entry (s2idle)",
    "PM: suspend exit",
    "ACPI: EC: interrupt unblocked",
    "thinkpad_acpi: EC reports that Thermal Table has changed",
    "Bluetooth: hci0: RTL: fw version 0x{b:08x}",
    "perf: interrupt took too long ({b} > {a}), lowering "
    "kernel.perf_event_max_sample_rate to {s}",
    "[UFW BLOCK] IN=wlp3s0 OUT= MAC=01:00:5e:00:00:01 SRC=192.168.1.{a} "
    "DST=224.0.0.1 LEN=36 TOS=0x00 PREC=0xC0 TTL=1 ID=0 DF PROTO=2",
    "systemd-journald[{b}]: Data hash table of /var/log/journal/"
    "system.journal has a fill level at 75.0 ({s} of {b} items)",
    # Near misses: words the parser looks for, in lines it must pass by.
    "clocksource: hpet: mask: 0xffffffff max_cycles: 0xffffffff, "
    "max_idle_ns: 133484873504 ns",
    "x86/tsc: this line names tsc and TSC but is no TSC message",
    "kvm: Watchdog nothing to do with clocksources",
]

# TSC and clocksource messages, as the kernel words them.
TSC = [
    "clocksource: timekeeping watchdog on CPU{a}: Marking clocksource "
    "'tsc' as unstable because the skew is too large:",
    "clocksource:                       'hpet' wd_nsec: 495136113 wd_now: "
    "4c6fb9a wd_last: 4551262 mask: ffffffff",
    "clocksource:                       'tsc' cs_nsec: 496026671 cs_now: "
    "9b2b4c28f5 cs_last: 9aefc6e4c5 mask: ffffffffffffffff",
    "tsc: Marking TSC unstable due to clocksource watchdog",
    "TSC found unstable after boot, most likely due to broken BIOS. "
    "Use 'tsc=unstable'.",
    "clocksource: Switched to clocksource hpet",
    "clocksource: Watchdog remote CPU {a} read timed out",
]

BOOT = """\
Linux version 6.1.0-26-amd64 (debian-kernel@lists.debian.org) (gcc-12 \
(Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC Debian 6.1.112-1
DMI: LENOVO 20NECTO1WW/20NECTO1WW, BIOS R11ET36W (1.28 ) 06/30/2023
tsc: Fast TSC calibration using PIT
tsc: Detected 2096.066 MHz processor
smpboot: CPU0: AMD Ryzen 7 3700U with Radeon Vega Mobile Gfx
x86: Booting SMP configuration:
TSC synchronization [CPU#0 -> CPU#2]:
Measured 6601281288 cycles TSC warp between CPUs, turning off TSC clock.
tsc: Marking TSC unstable due to check_tsc_sync_source failed
smp: Brought up 1 node, 8 CPUs
clocksource: Switched to clocksource hpet
""".splitlines()


def make(size, tsc_every=50000, tail=4):
    """About size bytes (never more): the boot, chatter with a TSC message
    every tsc_every lines or so, and TSC messages among the last tail
    lines.  Returns (text, n_tsc_lines)."""
    rnd = random.Random(size)
    out = []
    total = 0
    t = 0.0
    ntsc = 0

    def put(msg):
        nonlocal total
        line = f"[{t:12.6f}] {msg}\n"
        if total + len(line) > size:
            return False
        out.append(line)
        total += len(line)
        return True

    for msg in BOOT:
        t += 0.01
        put(msg)
    # Room for the tail's TSC messages, kept back until the end.
    reserve = 600 * tail
    while total < size - reserve:
        t += rnd.random() * 2
        a, b, s = rnd.randrange(1, 16), rnd.randrange(1, 9999), int(t)
        if rnd.randrange(tsc_every) == 0:
            msg = rnd.choice(TSC)
            ntsc += 1
        else:
            msg = rnd.choice(CHATTER)
        if not put(msg.format(a=a, b=b, s=s)):
            break
    for i in range(tail):
        t += 0.5
        if put(TSC[(i + 3) % len(TSC)].format(a=i, b=i, s=i)):
            ntsc += 1
    return "".join(out), ntsc

"""What the Prometheus suites (tests/prometheus/) share: fixture hosts for
`tsctui --root` with what an operator alerts on (clocksource, invariant
TSC, a VM, the stage, the hang guard, a BIOS update since the last sync
boot), the exposition parsed into samples, and promtool."""
import os
import re
import shutil
import socket
import subprocess
import urllib.request

import fixtures as fx
import reportvar
from paths import TOP, TSCTUI

LOGS = os.path.join(TOP, "tests", "fixtures", "kernlog")
CPUINFO_NO_INVARIANT = fx.CPUINFO_AMD.replace(" nonstop_tsc", "")
CPUINFO_GUEST = fx.CPUINFO_AMD.replace("nonstop_tsc", "nonstop_tsc hypervisor")


def host(work, name, current="hpet", available="tsc hpet acpi_pm",
         cpuinfo=fx.CPUINFO_AMD, bios="R11ET36W (1.28 )", stage=None,
         guard=None, report=None, last_sync_bios=None):
    """A fixture root.  stage: None (not installed) or the mode the
    systemd-boot path keeps; guard "tripped" leaves the ESP's disabled
    file; report: the stage's report text for this boot's variable;
    last_sync_bios: the BIOS of a sync boot in the history."""
    root = os.path.join(work, name)
    if os.path.exists(root):
        shutil.rmtree(root)
    cs = "/sys/devices/system/clocksource/clocksource0/"
    fx.write(root, cs + "current_clocksource", current + "\n")
    fx.write(root, cs + "available_clocksource", available + " \n")
    fx.write(root, "/proc/cpuinfo", cpuinfo)
    fx.write(root, "/proc/cmdline", "root=UUID=0f ro quiet\n")
    fx.write(root, "/sys/class/dmi/id/sys_vendor", "LENOVO\n")
    fx.write(root, "/sys/class/dmi/id/product_name", "20NECTO1WW\n")
    fx.write(root, "/sys/class/dmi/id/product_version", "ThinkPad E595\n")
    fx.write(root, "/sys/class/dmi/id/bios_version", bios + "\n")
    if stage:
        fx.write(root, "/etc/tsctui/tsctui.conf",
                 "loader=systemd-boot\nesp=/efi\n")
        fx.write(root, "/efi/EFI/tsctui/options", f"mode={stage}\n")
        if guard == "tripped":
            fx.write(root, "/efi/EFI/tsctui/disabled", "")
    if report:
        fx.efivar(root, reportvar.NAME, reportvar.GUID, report.encode(),
                  attrs=0x6)
    if last_sync_bios:
        fx.write(root, "/var/lib/tsctui/history",
                 f"boot_id=a\ttime=1\tbios_version={last_sync_bios}\t"
                 "stage_mode=sync\tstage_result=in-sync\n")
    return root


def report(result="in-sync", mode="sync"):
    """A two-CPU report of this boot with the given result."""
    return (f"tsctui-report 1\nstage version=0.1.0 build=release mode={mode} "
            f"config=esp\nresult {result}\nreason -\n"
            "cpu vendor=amd family=23 model=24 invariant_tsc=1 tsc_adjust=0 "
            "hypervisor=0 tick=1 tsc_hz=2096000000\n"
            "bsp index=0 apic=0 shift=0 writes=0 cpus=2\n"
            "phase survey_us=10 bsp_us=0 ap_pass_us=0 verify_us=10 "
            "total_us=20\nnext -\nignored -\n"
            "ap 1 apic=1 survey=3 final=3 rtt=200 warps=0/0 maxwarp=0 "
            "verdict=ok\nend\n")


def tsctui(*args, binary=None):
    """Runs tsctui; returns the completed process (text)."""
    return subprocess.run([binary or TSCTUI] + list(args),
                          capture_output=True, text=True)


def check_behind(*args):
    """check --prometheus --samples 2 --interval 1 with CPU 1's TSC 100000
    cycles behind (--simulate), args before the command.  Run once: a
    survey that leaves CPU 1 unmeasured (no offset, no warp) is a failure
    to see, not to retry away.  Returns the process."""
    return tsctui(*args, "--simulate", "sim.offset.1=-100000", "check",
                  "--prometheus", "--samples", "2", "--interval", "1")


def status(root, log, binary=None):
    args = ["--root", root]
    if log:
        args += ["--kernel-log", os.path.join(LOGS, log)]
    return tsctui(*args, "status", "--prometheus", binary=binary)


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """{(name, ((label, value), ...)): float} for every sample line, and
    the lines that are neither samples nor comments (must be none)."""
    samples, bad = {}, []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            bad.append(line)
            continue
        labels = tuple(sorted(LABEL.findall(m.group(2) or "")))
        samples[(m.group(1), labels)] = float(m.group(3))
    return samples, bad


def value(samples, name, **labels):
    """The sample's value, or None when it is absent."""
    return samples.get((name, tuple(sorted(labels.items()))))


def families(text):
    """The metric names of the # TYPE lines, in order."""
    return [ln.split()[2] for ln in text.splitlines()
            if ln.startswith("# TYPE ")]


def promtool_check(text):
    """promtool check metrics: (passed, what it said)."""
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True)
    return r.returncode == 0 and not r.stdout.strip(), r.stdout + r.stderr


def free_port():
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port):
    """node_exporter's /metrics on a loopback port."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                timeout=5) as r:
        return r.read().decode()

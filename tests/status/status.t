#!/usr/bin/env python3
"""tsctui status on fixture roots built from real message formats: the E595
at BIOS 1.28 (boot-time warp), its BIOS 1.30 sync boots whose watchdog fired
(two wordings), a healthy synced boot, Intel with TSC_ADJUST, a KVM guest.
Each asserts the JSON fields of ARCHITECTURE 4.5; the Prometheus output
passes `promtool check metrics`."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
import reportvar  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI  # noqa: E402
LOGS = os.path.join(TOP, "tests", "fixtures", "kernlog")
WORK = os.path.join(BUILD, "status-tests")
t = Tap()
os.makedirs(WORK, exist_ok=True)


def machine(name, cpuinfo=fx.CPUINFO_AMD, current="hpet",
            available="tsc hpet acpi_pm", cmdline="root=UUID=0f ro quiet",
            bios="R11ET36W (1.28 )"):
    root = os.path.join(WORK, name)
    if os.path.exists(root):
        shutil.rmtree(root)
    cs = "/sys/devices/system/clocksource/clocksource0/"
    fx.write(root, cs + "current_clocksource", current + "\n")
    fx.write(root, cs + "available_clocksource", available + " \n")
    fx.write(root, "/proc/cpuinfo", cpuinfo)
    fx.write(root, "/proc/cmdline", cmdline + "\n")
    fx.write(root, "/sys/class/dmi/id/sys_vendor", "LENOVO\n")
    fx.write(root, "/sys/class/dmi/id/product_name", "20NECTO1WW\n")
    fx.write(root, "/sys/class/dmi/id/product_version",
             "ThinkPad E595\n")
    fx.write(root, "/sys/class/dmi/id/bios_version", bios + "\n")
    fx.write(root, "/sys/firmware/acpi/fpdt/boot/bootloader_launch_ns",
             "3149285000\n")
    return root


def status(root, log=None, fmt="--json"):
    cmd = [TSCTUI, "--root", root, "status", fmt]
    if log:
        cmd += ["--kernel-log", os.path.join(LOGS, log)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    out = json.loads(r.stdout) if fmt == "--json" else r.stdout
    return r.returncode, out


def events(out, kind):
    return [e for e in out["kernel"]["events"] if e["kind"] == kind]


# E595, BIOS 1.28: the warp at boot.
root = machine("e595-128")
rc, out = status(root, "e595-bios128-warp.dmesg")
w = events(out, "warp")
t.ok(rc == 1 and len(w) == 1 and w[0]["cycles"] == 6601281288 and
     w[0]["cpus"] == [0, 2] and abs(w[0]["seconds"] - 3.149) < 5e-4 and
     out["kernel"]["tsc_mhz"] == 2096.066,
     "E595 1.28: warp of 6601281288 cycles CPU#0 -> CPU#2, 3.149 s at "
     "2096.066 MHz, exit 1", out["kernel"])
t.ok(events(out, "unstable")[0]["reason"] == "check_tsc_sync_source failed"
     and events(out, "switch")[0]["to"] == "hpet",
     "E595 1.28: the unstable reason and the switch to hpet")
t.ok(out["diagnosis"]["code"] == "boot-warp" and
     out["diagnosis"]["recommendations"] == ["install-measure"] and
     "6,601,281,288" in out["diagnosis"]["summary"],
     "E595 1.28 without the stage: boot-warp, install-measure",
     out["diagnosis"])
t.ok(out["kernel"]["verdict"] == "TSC dropped at boot: warp of "
     "6,601,281,288 cycles (3.15 s) CPU#0 -> CPU#2",
     "E595 1.28: the kernel's verdict in words", out["kernel"]["verdict"])
t.ok(out["machine"] == {"vendor": "LENOVO", "product": "20NECTO1WW",
                        "product_version": "ThinkPad E595",
                        "bios_version": "R11ET36W (1.28 )",
                        "bios_date": "", "bootloader_launch_ns": 3149285000}
     and out["cpu"]["vendor"] == "amd" and out["cpu"]["family"] == 23 and
     out["cpu"]["invariant_tsc"] is True and out["virtual_machine"] is False
     and out["clocksource"] == {"current": "hpet",
                                "available": ["tsc", "hpet", "acpi_pm"]},
     "machine, CPU and clocksource fields", out)

# The same machine with the stage in measure mode: the BSP is behind.
sim = subprocess.run([TSCTUI, "simulate", "--cpus", "4", "--mode",
                      "measure", "sim.offset.0=-6815086010"],
                     capture_output=True, text=True, check=True).stdout
fx.write(root, "/etc/tsctui/tsctui.conf",
         "loader=systemd-boot\nesp=/efi\n")
fx.write(root, "/efi/EFI/tsctui/options", "mode=measure\n")
fx.efivar(root, reportvar.NAME, reportvar.GUID,
          sim.encode(), attrs=0x6)
rc, out = status(root, "e595-bios128-warp.dmesg")
t.ok(out["stage"]["installed"] and out["stage"]["mode"] == "measure" and
     out["stage"]["report"]["bsp_shift_cycles"] == 0 and
     out["diagnosis"]["recommendations"] == ["enable-sync"],
     "E595 with the stage measuring the BSP behind: enable-sync",
     out["diagnosis"])

# E595, BIOS 1.30, sync boots: the watchdog fired.
root = machine("e595-130", current="hpet", bios="R11ET38W (1.30 )")
rc, out = status(root, "e595-bios130-watchdog.journal")
wd = events(out, "watchdog-skew")
t.ok(rc == 1 and len(wd) == 1 and wd[0]["wd_interval_ns"] == 495136113 and
     wd[0]["cs_interval_ns"] == 496026671 and wd[0]["ppm"] == 1798.6 and
     out["kernel"]["tsc_mhz"] == 2096.073 and not events(out, "warp"),
     "E595 1.30 (journalctl -k): watchdog skew +1798.6 ppm, refined "
     "2096.073 MHz", out["kernel"])
t.ok(out["diagnosis"]["code"] == "watchdog-skew" and
     out["diagnosis"]["recommendations"] == ["measure-rate", "add-nowatchdog"]
     and out["diagnosis"]["rate_check"] == {"result": "none", "ppm": None,
                                            "bound_ppm": 250,
                                            "source": None},
     "E595 1.30, no rate measured: watchdog-skew, measure-rate then "
     "add-nowatchdog (+1799 ppm is what a bad reference makes)",
     out["diagnosis"])
rc, out = status(root, "e595-bios130-watchdog2.dmesg")
wd = events(out, "watchdog-skew")
t.ok(wd and wd[0]["ppm"] == -848.9 and
     out["diagnosis"]["code"] == "watchdog-skew" and
     out["kernel"]["verdict"] ==
     "TSC dropped by the watchdog 4 s after boot: -849 ppm against hpet",
     "E595 1.30, the other boot: -848.9 ppm; the verdict in words",
     out["kernel"])
# A BIOS update since the last sync boot.
fx.write(root, "/var/lib/tsctui/history",
         "boot_id=a\ttime=1\tbios_version=R11ET36W (1.28 )\tstage_mode=sync"
         "\tstage_result=in-sync\n")
rc, out = status(root, "e595-bios130-watchdog2.dmesg")
t.ok("remeasure-after-bios-update" in out["diagnosis"]["recommendations"]
     and "R11ET36W (1.28 )" in out["diagnosis"]["summary"],
     "BIOS changed since the last sync boot: remeasure-after-bios-update",
     out["diagnosis"])

# EFI facts: Secure Boot, systemd-boot's LoaderInfo, BootCurrent, BootOrder.
fx.efivar(root, "SecureBoot", fx.GLOBAL, b"\x01")
fx.efivar(root, "LoaderInfo", fx.LOADER, fx.utf16("systemd-boot 252.39"))
fx.efivar(root, "BootCurrent", fx.GLOBAL, b"\x03\x00")
fx.efivar(root, "BootOrder", fx.GLOBAL, b"\x03\x00\x01\x00\x0a\x00")
rc, out = status(root, "e595-bios130-watchdog2.dmesg")
t.ok(out["efi"] == {"secure_boot": True, "loader_info": "systemd-boot 252.39",
                    "boot_current": "Boot0003",
                    "boot_order": ["Boot0003", "Boot0001", "Boot000A"]},
     "EFI facts from efivarfs: Secure Boot, LoaderInfo, BootCurrent, "
     "BootOrder", out["efi"])

# What the next boot will get: the drop-in kernel-arg writes (as shipped:
# its comment says "Never tsc=reliable"), and a tsc=reliable someone put in
# /etc/default/grub (warned about); comments and other variables do not
# reach the command line.
fx.write(root, "/etc/default/grub.d/tsctui-nowatchdog.cfg",
         open(os.path.join(fx.TOP, "grub.d/tsctui-nowatchdog.cfg")).read())
fx.write(root, "/etc/default/grub", '# GRUB_CMDLINE_LINUX="tsc=unstable"\n'
         'GRUB_TERMINAL_OUTPUT="tsc=bogus"\n'
         'GRUB_CMDLINE_LINUX="quiet tsc=reliable" # not tsc=known_freq\n')
rc, out = status(root, "e595-bios130-watchdog2.dmesg")
t.ok(out["kernel"]["next_boot_tsc"] == ["reliable", "nowatchdog"] and
     out["kernel"]["cmdline_tsc"] == [] and
     "adds tsc=reliable for the next boot" in out["diagnosis"]["summary"],
     "status: the running command line and what the next boot gets; a "
     "configured tsc=reliable is warned about", out["kernel"])

# A healthy synced boot.
root = machine("healthy", current="tsc")
rc, out = status(root, "healthy-synced.dmesg")
t.ok(rc == 0 and out["diagnosis"]["code"] == "healthy" and
     out["diagnosis"]["recommendations"] == ["none"] and
     out["kernel"]["verdict"] == "TSC kept" and
     out["kernel"]["tsc_mhz"] == 2096.071,
     "healthy synced boot: healthy, exit 0", out["diagnosis"])

# Intel with TSC_ADJUST and a warp: a firmware bug.
root = machine("intel", cpuinfo=fx.CPUINFO_INTEL)
rc, out = status(root, "intel-tsc-adjust.dmesg")
t.ok(out["cpu"]["tsc_adjust"] and out["diagnosis"]["code"] == "boot-warp"
     and "firmware bug" in out["diagnosis"]["summary"] and
     out["diagnosis"]["recommendations"] == ["none"] and
     events(out, "fw-bug-tsc-adjust") and
     events(out, "tsc-adjust-compensate")[0]["cycles"] == 86522,
     "Intel with TSC_ADJUST and a warp: explained as a firmware bug",
     out["diagnosis"])

# A KVM guest.
root = machine("guest", current="kvm-clock", available="kvm-clock tsc hpet",
               cpuinfo=fx.CPUINFO_AMD.replace("nonstop_tsc",
                                              "nonstop_tsc hypervisor"))
rc, out = status(root, "kvm-guest.dmesg")
t.ok(rc == 0 and out["virtual_machine"] and
     out["virtual_machine_evidence"] == [
         "cpuinfo: hypervisor flag", "log: Hypervisor detected: KVM",
         "clocksource: kvm-clock"] and
     out["diagnosis"]["code"] == "virtual-machine" and
     out["diagnosis"]["recommendations"] == ["none"],
     "KVM guest on kvm-clock: virtual-machine, the evidence named, no "
     "check-host (its clock is the paravirtual one)", out)
root = machine("guest-hpet", current="hpet", available="hpet acpi_pm",
               cpuinfo=fx.CPUINFO_AMD.replace("nonstop_tsc",
                                              "nonstop_tsc hypervisor"))
rc, out = status(root, "kvm-guest.dmesg")
t.ok(out["diagnosis"]["recommendations"] == ["check-host"] and
     "slow" in out["diagnosis"]["summary"],
     "a guest on hpet: check-host", out["diagnosis"])
# A rescue: --root on a disk image (no cpuinfo flag, no sysfs clocksource)
# with the guest's log from elsewhere; the text output names the evidence.
root = machine("guest-rescue", current="", available="")
rc, out = status(root, "kvm-guest.dmesg")
r = subprocess.run([TSCTUI, "--root", root, "status", "--kernel-log",
                    os.path.join(LOGS, "kvm-guest.dmesg")],
                   capture_output=True, text=True)
t.ok(out["virtual_machine"] and not out["cpu"]["flags"]["hypervisor"] and
     out["virtual_machine_evidence"] == [
         "log: Hypervisor detected: KVM", "log: clocksource kvm-clock"] and
     out["diagnosis"]["code"] == "virtual-machine" and
     "virtual:     log: Hypervisor detected: KVM; log: clocksource "
     "kvm-clock\n" in r.stdout,
     "a rescue with the guest's log: virtual, told by the log alone "
     "(JSON and text)", r.stdout)
# The TSC rig's guests: a laptop's SMBIOS strings, no hypervisor bit,
# TCG's P0 firmware line: not virtual.
root = machine("rig-like", current="tsc")
rc, out = status(root, "rig-tcg-epyc.dmesg")
t.ok(rc == 0 and out["virtual_machine"] is False and
     out["virtual_machine_evidence"] == [] and
     out["diagnosis"]["code"] == "healthy" and
     "no TSC trouble" not in out["diagnosis"]["summary"],
     "a laptop's SMBIOS strings and no hypervisor bit: never virtual; the "
     "P0 firmware line is not 'no TSC trouble'", out["diagnosis"])

# tsc=reliable is warned about, never recommended; a KVM host's guests pay.
root = machine("reliable", cmdline="quiet tsc=reliable")
os.makedirs(os.path.join(root, "dev"), exist_ok=True)
open(os.path.join(root, "dev", "kvm"), "w").close()
rc, out = status(root, "e595-bios128-warp.dmesg")
t.ok(out["kernel"]["cmdline_tsc"] == ["reliable"] and
     "Warning: tsc=reliable" in out["diagnosis"]["summary"] and
     "every guest pays too" in out["diagnosis"]["summary"] and
     not any("reliable" in r for r in out["diagnosis"]["recommendations"]),
     "tsc=reliable warned, never recommended; a KVM host's guests pay",
     out["diagnosis"]["summary"])

# A KVM host recognised from its loaded modules.
root = machine("kvm-host")
fx.write(root, "/proc/modules", "kvm_amd 155648 0 - Live 0x0\n"
         "kvm 1146880 1 kvm_amd, Live 0x0\n")
rc, out = status(root, "e595-bios128-warp.dmesg")
t.ok(out["modules"]["supported"] and out["modules"]["kvm_amd"] and
     out["kvm_host"] and "every guest pays too" in out["diagnosis"]["summary"],
     "a KVM host from /proc/modules: the guests' cost is said", out["modules"])

# What cannot be seen is said, and nothing crashes.
root = os.path.join(WORK, "empty")
os.makedirs(root, exist_ok=True)
rc, out = status(root)
t.ok(rc == 0 and out["diagnosis"]["code"] == "unknown" and
     any("clocksource" in n for n in out["notes"]) and
     any("no module support" in n for n in out["notes"]) and
     any("--kernel-log" in n for n in out["notes"]),
     "an empty root: unknown, with notes saying what was missing",
     out["notes"])
r = subprocess.run([TSCTUI, "--root", root, "status", "--kernel-log",
                    "/nonexistent/log"], capture_output=True, text=True)
t.ok(r.returncode == 2 and r.stdout == "" and
     r.stderr == "tsctui: --kernel-log /nonexistent/log: No such file or "
     "directory\n", "a missing --kernel-log file is named: one line, exit 2",
     r.stderr)

# The stage numbers CPUs in MP services order, Linux its own way: on an AMD
# Zen with SMT, Linux CPUs 0-3 are APIC IDs 0,2,4,6 and 4-7 are 1,3,5,7,
# while MP services list APIC IDs 0..7 in order.  The kernel's CPU 2 (the
# E595 log's "CPU#0 -> CPU#2") is APIC ID 4: the stage's #4.
ZEN_APIC = [0, 2, 4, 6, 1, 3, 5, 7]  # by Linux CPU
zen = "".join(
    f"processor\t: {n}\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\n"
    f"model\t\t: 24\nmodel name\t: AMD Ryzen 7 3700U\n"
    f"apicid\t\t: {a}\ninitial apicid\t: {a}\n"
    "flags\t\t: fpu tsc constant_tsc nonstop_tsc\n\n"
    for n, a in enumerate(ZEN_APIC))


def zen_report(apic=True):
    lines = ["tsctui-report 1",
             "stage version=0.1.0 build=release mode=measure config=esp",
             "result out-of-sync", "reason -",
             "cpu vendor=amd family=23 model=24 invariant_tsc=1 tsc_adjust=0 "
             "hypervisor=0 tick=1 tsc_hz=2096000000",
             "bsp index=0" + (" apic=0" if apic else "") +
             " shift=0 writes=0 cpus=8",
             "phase survey_us=10 bsp_us=0 ap_pass_us=0 verify_us=10 "
             "total_us=20", "next -", "ignored -"]
    for i in range(1, 8):
        off = 6601281288 if i == 4 else 5 * i
        lines.append(f"ap {i}" + (f" apic={i}" if apic else "") +
                     f" survey={off} final={off} rtt=200 warps=0/0 "
                     f"maxwarp=0 verdict={'bad' if i == 4 else 'ok'}")
    return ("\n".join(lines) + "\nend\n").encode()


def zen_machine(name, cpuinfo=zen, report=None):
    root = machine(name, cpuinfo=cpuinfo)
    fx.write(root, "/etc/tsctui/tsctui.conf",
             "loader=systemd-boot\nesp=/efi\n")
    fx.write(root, "/efi/EFI/tsctui/options", "mode=measure\n")
    fx.efivar(root, reportvar.NAME, reportvar.GUID,
              report or zen_report(), attrs=0x6)
    return root


def report_rows(root, *extra):
    r = subprocess.run([TSCTUI, "--root", root, "report", *extra],
                       capture_output=True, text=True)
    rows = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) > 3 and f[1].isdigit() and f[2].isdigit():
            rows[int(f[1])] = f[0]  # the stage's # -> the CPU column
    return r.stdout, rows


root = zen_machine("zen-smt")
rc, out = status(root, "e595-bios128-warp.dmesg")
rep = out["stage"]["report"]
lin = {c["index"]: c["linux_cpu"] for c in rep["cpus"]}
t.ok(rep["bsp_linux_cpu"] == 0 and
     lin == {i: ZEN_APIC.index(i) for i in range(1, 8)},
     "Zen SMT: status --json gives each stage CPU its Linux number by APIC "
     "ID (#1 is CPU 4, #2 is CPU 1, #4 is CPU 2)", lin)
t.ok("between CPU 0 and CPU 2 (the stage's #4, APIC ID 4: bad at "
     "+6,601,281,288 cycles)" in out["diagnosis"]["summary"],
     "Zen SMT: the kernel's CPU 2 is matched to the stage's #4 (APIC ID 4), "
     "the one its report calls bad, not to its #2",
     out["diagnosis"]["summary"])
txt = subprocess.run([TSCTUI, "--root", root, "status", "--kernel-log",
                      os.path.join(LOGS, "e595-bios128-warp.dmesg")],
                     capture_output=True, text=True).stdout
t.ok("probation boot" not in txt,
     "stage set to measure and a measure report: no probation sentence", txt)
# Set to sync, and this boot's report measured only: a probation boot after
# an unconfirmed sync.  systemd-boot cannot tell another system's boot
# without `default @saved`: status says so, and what would let it.
fx.write(root, "/efi/EFI/tsctui/options", "mode=sync\n")
txt = subprocess.run([TSCTUI, "--root", root, "status", "--kernel-log",
                      os.path.join(LOGS, "e595-bios128-warp.dmesg")],
                     capture_output=True, text=True).stdout
t.ok("a probation boot after an unconfirmed sync: the TSC was not synced "
     "this boot" in txt and "default @saved" in txt,
     "stage set to sync, this boot measured only: status says it was a "
     "probation boot and names the setting that lets systemd-boot tell", txt)
# With `default @saved` the stage could tell, and saw no other system: the
# sentence says so instead of offering the setting.
fx.write(root, "/efi/loader/loader.conf", "timeout 3\ndefault @saved\n")
txt = subprocess.run([TSCTUI, "--root", root, "status", "--kernel-log",
                      os.path.join(LOGS, "e595-bios128-warp.dmesg")],
                     capture_output=True, text=True).stdout
t.ok("a probation boot after an unconfirmed sync" in txt and
     "recorded no other system's boot" in txt and "default @saved" not in txt,
     "with `default @saved` in loader.conf: the probation sentence offers no "
     "setting", txt)
os.remove(os.path.join(root, "efi/loader/loader.conf"))
fx.write(root, "/efi/EFI/tsctui/options", "mode=measure\n")
text, rows = report_rows(root)
t.ok(rows == {i: str(ZEN_APIC.index(i)) for i in range(1, 8)} and
     "BSP: CPU 0 (the stage's #0, APIC ID 0)" in text and
     "not known" not in text,
     "Zen SMT: `tsctui report` shows Linux CPU numbers beside the stage's "
     "own and the APIC IDs", text)

# No mapping: say so, never guess.
root = zen_machine("zen-no-apicid", cpuinfo=fx.CPUINFO_AMD)
rc, out = status(root, "e595-bios128-warp.dmesg")
t.ok(all(c["linux_cpu"] is None for c in out["stage"]["report"]["cpus"]) and
     out["stage"]["report"]["bsp_linux_cpu"] is None and
     "which of the stage's CPUs that is, is not known: /proc/cpuinfo has no "
     "processor/apicid pairs" in out["diagnosis"]["summary"],
     "a /proc/cpuinfo without apicid lines: linux_cpu null, and the "
     "diagnosis says the match is not known", out["diagnosis"]["summary"])
text, rows = report_rows(root)
t.ok(set(rows.values()) == {"?"} and "Linux CPU numbers not known "
     "(/proc/cpuinfo has no processor/apicid pairs)" in text,
     "... and `tsctui report` marks every CPU ? and says why", text)
root = zen_machine("zen-no-apic-in-report", report=zen_report(apic=False))
text, rows = report_rows(root)
rc, out = status(root, "e595-bios128-warp.dmesg")
t.ok(set(rows.values()) == {"?"} and "gives APIC ID 0 to more than one "
     "CPU" in text and "is not known" in out["diagnosis"]["summary"],
     "a report without APIC IDs: no CPU is given a Linux number", text)
f = os.path.join(WORK, "zen-report.txt")
with open(f, "wb") as fh:
    fh.write(zen_report())
text, rows = report_rows(zen_machine("zen-file"), "--file", f)
t.ok(set(rows.values()) == {"?"} and "a report read from a file" in text,
     "a report read from a file is not mapped with this system's "
     "/proc/cpuinfo (it may come from another machine)", text)

# Prometheus text format, checked by promtool.
root = machine("prom")
rc, text = status(root, "e595-bios128-warp.dmesg", fmt="--prometheus")
chk = subprocess.run(["promtool", "check", "metrics"], input=text,
                     capture_output=True, text=True)
t.ok(chk.returncode == 0 and "tsctui_boot_warp_cycles 6601281288" in text
     and 'tsctui_diagnosis{code="boot-warp"} 1' in text,
     "status --prometheus passes promtool check metrics",
     chk.stdout + chk.stderr + text[:400])

# A watchdog drop whose wording gives no intervals: the skew is not known,
# and Prometheus is told so (NaN), not given a 0 that reads as "no skew".
rc, text = status(root, "real/sungju-rhel-rsyslog.log", fmt="--prometheus")
chk = subprocess.run(["promtool", "check", "metrics"], input=text,
                     capture_output=True, text=True)
t.ok(chk.returncode == 0 and "tsctui_watchdog_skew_ratio NaN\n" in text and
     'tsctui_diagnosis{code="watchdog-skew"} 1' in text,
     "status --prometheus: a skew the log does not size is NaN, and passes "
     "promtool", chk.stdout + chk.stderr + text[:600])

# A report naming what the firmware said about two APs: a start MP services
# refused, and a processor it disabled (an unnamed status).  Both views
# show it; the CPU line says the stage read with RDTSCP.
REPORT = """tsctui-report 1
stage version=0.1.0 build=release mode=sync config=esp
result unsure
reason CPU 1 did not answer; 1 CPU(s) disabled by the firmware, skipped
cpu vendor=amd family=23 model=24 invariant_tsc=1 tsc_adjust=0 hypervisor=0 \
rdtscp=1 tick=1 tsc_hz=2096000000
bsp index=0 apic=0 shift=0 writes=0 cpus=3
phase survey_us=90 bsp_us=0 ap_pass_us=0 verify_us=0 total_us=90
next -
ignored -
ap 1 apic=1 survey=0 final=0 rtt=0 warps=0/0 maxwarp=0 verdict=unmeasured \
note=start-failed n=0 w=0 writes=0 efi=EFI_UNSUPPORTED
ap 2 apic=2 survey=0 final=0 rtt=0 warps=0/0 maxwarp=0 verdict=unmeasured \
note=disabled n=0 w=0 writes=0 efi=0x8000000000000063
end
""".replace("\\\n", "")
path = os.path.join(WORK, "firmware-status.report")
with open(path, "w") as f:
    f.write(REPORT)
txt = subprocess.run([TSCTUI, "report", "--file", path], capture_output=True,
                     text=True)
js = subprocess.run([TSCTUI, "report", "--json", "--file", path],
                    capture_output=True, text=True)
cpus = json.loads(js.stdout)["cpus"] if js.returncode == 0 else []
t.ok(txt.returncode == 0 and "start-failed (EFI_UNSUPPORTED)" in txt.stdout
     and "disabled (EFI status 0x8000000000000063)" in txt.stdout
     and "RDTSCP yes" in txt.stdout and
     [c["firmware_status"] for c in cpus] ==
     ["EFI_UNSUPPORTED", "0x8000000000000063"] and
     json.loads(js.stdout)["cpu"]["rdtscp"] is True,
     "report: the firmware's status per AP and the RDTSCP read, text and JSON",
     txt.stdout + txt.stderr + js.stderr)

# The JSON of a report with every record and optional key (the fixture the
# unit test pins the text with), byte for byte: scripts read these names in
# this order, and nothing may drift when the format's fields change shape.
FIX = os.path.join(TOP, "tests", "fixtures", "report")
js = subprocess.run([TSCTUI, "report", "--json", "--file",
                     os.path.join(FIX, "full.report")],
                    capture_output=True, text=True)
with open(os.path.join(FIX, "full.json")) as f:
    want = f.read()
t.ok(js.returncode == 0 and js.stdout == want,
     "report --json: every field of a full report, exact text",
     js.stdout[:2000] + js.stderr)

# Empty facts: "unknown" and why, and the grammar of one thread.
bare = os.path.join(BUILD, "status-tests", "bare")
shutil.rmtree(bare, ignore_errors=True)
fx.write(bare, "/proc/cpuinfo", fx.CPUINFO_AMD)
r = subprocess.run([TSCTUI, "--root", bare, "status"], capture_output=True,
                   text=True)
t.ok("machine:     unknown (no DMI), BIOS unknown" in r.stdout and
     "1 thread," in r.stdout and "1 threads" not in r.stdout and
     "clocksource: unknown (no /sys/devices/system/clocksource)" in
     r.stdout and "(available:)" not in r.stdout,
     "status with no DMI and no clocksource: unknown, and why; 1 thread",
     r.stdout + r.stderr)

# The running system named another way (`--root /.`, `--root //tmp/..`) is
# the running system: its kernel log, /proc and the clocksource are read as
# without --root, not as a disk's files (the kernel log was lost).
def live(*root):
    r = subprocess.run([TSCTUI, *root, "status", "--json"],
                       capture_output=True, text=True)
    try:
        j = json.loads(r.stdout)
    except ValueError:
        return r.returncode, r.stderr
    return r.returncode, {k: j.get(k) for k in ("machine", "clocksource")} | {
        "log": j["kernel"].get("log"),
        "events": [e["kind"] for e in j["kernel"]["events"]]}


plain = live()
t.ok(plain[0] in (0, 1) and plain[1]["log"] and
     all(live("--root", r) == plain for r in ("/.", "//tmp/..", "///")),
     "--root naming the running system (/., //tmp/.., ///) reads it as the "
     "running system: the same machine, clocksource and kernel log",
     (plain, [live("--root", r) for r in ("/.", "//tmp/..")]))

sys.exit(t.done())

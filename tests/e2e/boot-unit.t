#!/usr/bin/env python3
"""End to end, the hang guard's other half: tsctui-boot.service under a
real systemd.  On a user's machine nobody types `tsctui boot-ok`: the unit
`tsctui install` enables does it, once the ESP is mounted.  If the unit
never ran, every boot after a stage run would look hung and the guard
would disable the stage.

The guest boots Debian's systemd 252 as init (udev makes the /dev/disk
links, the fstab generator mounts the ESP), through systemd-boot with the
release driver in measure mode, installed from the host.  The test's
commands run as a service ordered after tsctui-boot.service.  Boots:
  1. the driver measures (it sets pending on the ESP and clears it when
     it returns); systemd runs tsctui-boot.service after mounting
     /boot/efi; the guard clear, nothing on the ESP, one history row;
  2. the same again: the stage was not taken for hung, a second row.
In boot 1 systemd also runs tsctui-textfile.service (the metrics writer
`make install` ships, as installed): it must succeed and leave a whole
tsctui.prom in node_exporter's textfile directory that promtool accepts."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import system as S  # noqa: E402 (puts tests/lib on the path)
import prom  # noqa: E402

W, t = S.start("boot-unit")

root = S.staging(os.path.join(W, "root"), loader="systemd-boot")
S.add_systemd(root)
S.systemd_boot_esp(root, options=f"{S.CMDLINE} {S.SYSTEMD_INIT}")
r = S.tsctui_host(root, "install", "--loader", "systemd-boot", "--esp",
                  "/boot/efi")
wants = os.path.join(root, "etc/systemd/system/multi-user.target.wants",
                     "tsctui-boot.service")
t.ok(r.returncode == 0 and os.path.islink(wants),
     "install (host) enables tsctui-boot.service for multi-user.target",
     r.stdout + r.stderr)
# The metrics writer as `make install` puts it down (the e2e root keeps
# tsctui in /usr/local/sbin), and node_exporter's textfile directory.
for src, dest, subst in (
        ("tui/tsctui-textfile.in", "/usr/local/lib/tsctui/tsctui-textfile",
         True),
        ("tui/tsctui-textfile.service.in",
         "/etc/systemd/system/tsctui-textfile.service", True),
        ("tui/tsctui-textfile.timer",
         "/etc/systemd/system/tsctui-textfile.timer", False)):
    text = open(os.path.join(S.TOP, src)).read()
    if subst:
        text = text.replace("@SBINDIR@", "/usr/local/sbin").replace(
            "@LIBDIR@", "/usr/local/lib/tsctui")
    S.fx.write(root, dest, text, 0o755 if dest.endswith("textfile") else
               0o644)
os.makedirs(os.path.join(root, "var/lib/prometheus/node-exporter"))
esp = S.finish(root)
disk = S.make_disk(os.path.join(W, "disk.img"), root, esp)
# Two vCPUs, one per host CPU: the unit's story needs no third core, and
# a systemd boot on 4 vCPUs shared 2 host CPUs (about a third slower).
g = S.Guest(W, disk, t, smp=2)
UNIT_STATE = ("systemctl show -p ActiveState -p Result -p ExecMainStatus "
              "-p ExecMainStartTimestampMonotonic tsctui-boot.service")
MOUNT_STATE = ("systemctl show -p ActiveState "
               "-p ActiveEnterTimestampMonotonic boot-efi.mount")


def props(out):
    return dict(line.split("=", 1) for line in
                (out[1] if out else "").splitlines() if "=" in line)


TEXTFILE = ["systemctl start tsctui-textfile.service; systemctl show -p "
            "Result -p ExecMainStatus tsctui-textfile.service",
            "cat /var/lib/prometheus/node-exporter/tsctui.prom",
            "ls -a /var/lib/prometheus/node-exporter"]
for n in (1, 2):
    outs, text, res = g.boot(f"systemd-{n}", [
        "cat /proc/1/comm",
        UNIT_STATE,
        MOUNT_STATE,
        "tsctui guard status --json",
        "tsctui report --json",
        "tsctui history --json",
        "ls /dev/disk/by-uuid",
    ] + (TEXTFILE if n == 1 else []), timeout=200)
    if n == 1:
        unit = props(outs[7])
        body = outs[8][1] if outs[8] else ""
        ok, said = prom.promtool_check(body)
        m = prom.parse(body)[0]
        t.ok(unit.get("Result") == "success" and
             unit.get("ExecMainStatus") == "0" and ok and
             prom.value(m, "tsctui_kernel_log_read") == 1 and
             prom.value(m, "tsctui_samples") == 2 and
             (outs[9][1] if outs[9] else "").split() ==
             [".", "..", "tsctui.prom"],
             "boot 1: systemd runs tsctui-textfile.service; it leaves one "
             "whole tsctui.prom, status's and check's, that promtool "
             "accepts, and no temporary file", (unit, said, body[:600],
                                                outs[9]))
    unit, mount = props(outs[1]), props(outs[2])
    t.ok(outs[0] and outs[0][1].strip() == "systemd" and
         "1A2B-3C4D" in (outs[6][1] if outs[6] else "") and
         "tsctui-e2e: done" not in text and not res.timed_out,
         f"boot {n}: systemd is PID 1, udev made the /dev/disk links, and "
         "the guest powered off through systemd",
         (outs[0], outs[6], text[-1500:]))
    rep = S.js(outs[4])
    t.ok(rep and rep["build"] == "release" and rep["mode"] == "measure" and
         rep["config"] == "esp",
         f"boot {n}: the release driver measured before Linux", outs[4])
    t.ok(unit.get("Result") == "success" and
         unit.get("ExecMainStatus") == "0" and
         int(unit.get("ExecMainStartTimestampMonotonic", "0")) >
         int(mount.get("ActiveEnterTimestampMonotonic", "0")) > 0,
         f"boot {n}: systemd ran tsctui-boot.service successfully, after "
         "mounting /boot/efi", (unit, mount))
    gs = S.js(outs[3])
    hist = S.js(outs[5]) or []
    t.ok(gs and gs["guard"] == "clear" and
         not disk.exists("EFI/tsctui/pending") and
         not disk.exists("EFI/tsctui/disabled") and len(hist) == n,
         f"boot {n}: the unit ran boot-ok (guard clear, nothing on the "
         f"ESP) and recorded the boot ({n} history rows)", (outs[3], hist))
sys.exit(t.done())

"""The TSC rig: Debian's QEMU rebuilt with tests/rig/qemu-tsc.patch (TCG
honours TSC writes, INIT keeps the TSC, invariant TSC is offered, a
per-vCPU counter offset is applied at every reset: the firmware's fault;
every vCPU counts one clock, and the TSC's or the HPET's rate can be made
to change at a chosen time),
booting OVMF, the UEFI Shell, the stage and then Debian's kernel through its
EFI stub, whose own tsc_sync check judges what the stage left.

The guest looks like a laptop, not a VM: no hypervisor bit, a laptop's
SMBIOS strings, an AMD Zen CPU with invariant TSC.  Its initramfs waits for
the kernel's refined TSC calibration (or for the TSC to be dropped), then
two seconds more (four clocksource watchdog intervals), prints the kernel
log and the clocksource, and powers off.

`make test-deps` builds the binary (tests/rig/build) and links it at
build/rig/qemu-system-x86_64; the tests never build or download it."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures as fx  # noqa: E402
import qemu  # noqa: E402
from paths import BUILD, TOP, TSCTUI, c_define  # noqa: E402

QEMU = os.path.join(BUILD, "rig", "qemu-system-x86_64")
DIST = os.path.join(BUILD, "e2e", "dist")
# A ThinkPad E595 as its firmware describes itself.
SMBIOS = ["-smbios", "type=0,vendor=LENOVO,version=R11ET51W (1.30)",
          "-smbios", "type=1,manufacturer=LENOVO,product=20NFCTO1WW,"
          "version=ThinkPad E595,family=ThinkPad E595"]
LAPTOP_CPU = "EPYC,+invtsc,-hypervisor"
# The field's two patterns: the BSP alone behind, by this many cycles.
E595 = {0: -6815086010}
LEGION = {0: -5690270744}
SKEW_ENV = "TSCTUI_RIG_TSC_SKEW"
# Rate faults, "PPM@SECONDS" or "PPM@port": that clock runs PPM parts per
# million fast (negative: slow) from SECONDS of the guest's virtual time
# on, or from the guest's first write of the oracle's port.
TSC_RATE_ENV = "TSCTUI_RIG_TSC_RATE"
HPET_RATE_ENV = "TSCTUI_RIG_HPET_RATE"
# A rate fault's start (boot's tsc_rate, hpet_rate): seconds of QEMU's
# virtual time, or this: when the guest writes the oracle's port, which
# the rig's init does once the kernel has its refined TSC calibration.
FAULT_ON_PORT = "port"
# APs that also disagree among themselves, besides the BSP's lag.
AP_DISAGREE = {0: -6815086010, 1: 2600, 2: -450, 3: 18000}
# When a write to MSR 0x10 lands (docs/DESIGN.md 11.2): "L:J" cycles after
# the vCPU's preceding RDTSC, jitter uniform in [-J, J], from a PRNG seeded
# by TSCTUI_RIG_SEED; TSCTUI_RIG_TCG_WRITES=1, TCG's own timing, wins.
WRITE_LATENCY_ENV = "TSCTUI_RIG_WRITE_LATENCY"
TCG_WRITES_ENV = "TSCTUI_RIG_TCG_WRITES"
SEED_ENV = "TSCTUI_RIG_SEED"
# A Zen core's `rdtsc; add; wrmsr`, fast, typical and slow (DESIGN 11.2).
LATENCIES = ("20:4", "60:10", "150:30")
# The oracle's I/O port (one byte; a read prints the truth on QEMU's
# standard error): the UEFI Shell reads it with mm, Linux through /dev/port.
ORACLE_PORT = 0x520
ORACLE_SHELL = f"mm {ORACLE_PORT:x} -IO -w 1 -n"


KERNEL_ARGS = "console=ttyS0,115200 panic=-1 quiet"


def pinning(smp=4):
    """vCPU -> host CPUs: the BSP alone on the first host CPU, the APs on
    the others, as the host simulator places its threads; None (the
    scheduler places them) on a host with fewer CPUs than the guest has
    vCPUs.  The rig's counter is one clock for every vCPU (QEMU's virtual
    clock, patch item 6 in docs/DESIGN.md 11.2), so placement does not
    move the counters; it sets the handoff latencies.  On 2 host CPUs the
    APs pinned together take turns on one of them: a sync boot then ended
    with an AP 151,000 cycles off (docs/DESIGN.md 11.2)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < max(2, smp):
        return None
    return lambda n: {cpus[0]} if n == 0 else set(cpus[1:])


def one_counter():
    """qemu.boot arguments for the sim stage's suites: the rig's binary,
    no fault.  Its counter is one clock for every vCPU with a 1-cycle tick;
    stock TCG's is the host's, and on a host whose counter ticks in 21-cycle
    steps, its CPUs a fraction of a tick apart, every sim sync boot read
    out-of-sync on warps of 11 cycles that no whole-tick write can remove.
    Bails out where the rig was not built: stock QEMU would test another
    counter than the one the suites' bounds are set for."""
    if not available():
        raise SystemExit(f"Bail out! no TSC rig at {QEMU}: run "
                         "`make test-deps`")
    return {"binary": QEMU}


def available():
    return os.access(QEMU, os.X_OK)


def require():
    """Bails out of a suite when the rig was not built."""
    if not available():
        raise SystemExit(f"Bail out! no TSC rig at {QEMU}: run "
                         "`make test-deps`")
    for d in KERNELS.values():
        if not os.path.exists(os.path.join(DIST, f"{d}-version")):
            raise SystemExit(f"Bail out! no kernel in {DIST}/{d}: run "
                             "`make test-deps`")


# The kernel lines that judge: Debian 12's own (6.1, XZ-compressed) and
# the archive's second line (6.12, ZSTD), fetched by tests/e2e/fetch.
KERNELS = {"6.1": "kernel", "6.12": "kernel-6.12"}


def kernel_image(line="6.1"):
    ver = open(os.path.join(DIST, f"{KERNELS[line]}-version")).read().strip()
    return os.path.join(DIST, KERNELS[line], "boot", f"vmlinuz-{ver}")


def initramfs(path):
    """A newc cpio of busybox and the rig's /init (no modules needed)."""
    if os.path.exists(path):
        return path
    d = path + ".d"
    shutil.rmtree(d, ignore_errors=True)
    _busybox_tree(d, INIT)
    _cpio(d, path)
    return path


# The guest: let the kernel finish judging the TSC, then, for up to @WAIT@
# tenths of a second more, until the watchdog dropped it; report, and run
# tsctui's commands (tsctui_initramfs).
TSCTUI_INIT = """#!/bin/sh
export PATH=/bin:/usr/local/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
@EARLY@echo "rig: user space up"
i=0
while [ $i -lt 300 ]; do
	dmesg | grep -qE 'Refined TSC clocksource calibration|Marking TSC unstable' && break
	sleep 0.1
	i=$((i + 1))
done
# A rate fault armed on the port ("PPM@port") starts now, after the
# calibration it would otherwise be absorbed into.
printf F | dd of=/dev/port bs=1 seek=@PORT@ count=1 conv=notrunc 2>/dev/null
i=0
while [ $i -lt @WAIT@ ]; do
	dmesg | grep -q 'Marking TSC unstable' && break
	sleep 0.1
	i=$((i + 1))
done
sleep 2
echo "--- rig dmesg begin ---"
dmesg
echo "--- rig dmesg end ---"
echo "rig: clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
dd if=/dev/port bs=1 skip=@PORT@ count=1 of=/dev/null 2>/dev/null
@COMMANDS@
echo "rig: done"
poweroff -f
"""


TSCTUI_INIT = TSCTUI_INIT.replace("@PORT@", str(ORACLE_PORT))
# The plain guest: the same without tsctui's commands and the wait.
INIT = (TSCTUI_INIT.replace("@WAIT@", "0").replace("@COMMANDS@", "")
        .replace("@EARLY@", ""))

# Hibernation (issue 26, tests/rig/resume.t).  The guest's swap is a second
# virtio disk, found by this serial; Debian builds virtio's block driver
# and FAT as modules, so the guest loads these from Linux 6.1's tree
# (tests/e2e/fetch unpacks 6.1's modules; 6.12's only its boot/), each
# after what it needs (modules.dep).
SWAP_SERIAL = "tsctui-swap"
HIBERNATE_MODULES = ("virtio_pci", "virtio_blk", "vfat", "nls_cp437",
                     "nls_ascii")
# Right after the guest mounts /dev: the modules, the swap disk found, and
# the kernel asked to resume from it.  With a hibernated image there, that
# write never returns: the image's own init goes on where it hibernated.
# Without one, it fails (nothing to resume) and the boot goes on.
RESUME_EARLY = """for m in $(cat /lib/modules/order); do insmod /lib/modules/$m.ko; done
swap=
i=0
while [ -z "$swap" ] && [ $i -lt 50 ]; do
	for b in /sys/block/vd*; do
		[ "$(cat $b/serial 2>/dev/null)" = @SERIAL@ ] && swap=${b##*/}
	done
	[ -n "$swap" ] || sleep 0.1
	i=$((i + 1))
done
echo "rig: swap /dev/$swap"
[ -n "$swap" ] && cat /sys/block/$swap/dev >/sys/power/resume 2>/dev/null
echo "rig: no image to resume"
""".replace("@SERIAL@", SWAP_SERIAL)


def tsctui_initramfs(path, commands, wait_s, hibernate=False, files=()):
    """The rig's initramfs with tsctui (and its libraries) at
    /usr/local/sbin/tsctui, running `commands` (shell lines) once the
    kernel has judged the TSC; each one's output between markers.
    hibernate: Linux 6.1's HIBERNATE_MODULES in /lib/modules, loaded first,
    and a resume tried from the swap disk (RESUME_EARLY).  files: (local,
    dest) pairs copied in."""
    if os.path.exists(path):
        return path
    run = "".join(
        f'echo "--- rig cmd {n} begin ---"\n{cmd} 2>&1\n'
        f'echo "--- rig cmd {n} end rc=$? ---"\n'
        for n, cmd in enumerate(commands))
    init = (TSCTUI_INIT.replace("@WAIT@", str(int(wait_s * 10)))
            .replace("@COMMANDS@", run)
            .replace("@EARLY@", RESUME_EARLY if hibernate else ""))
    d = path + ".d"
    shutil.rmtree(d, ignore_errors=True)
    _busybox_tree(d, init)
    fx.copy_with_libs(d, TSCTUI, dest="/usr/local/sbin/tsctui")
    if hibernate:
        _modules(d, HIBERNATE_MODULES)
    for local, dest in files:
        q = os.path.join(d, dest.lstrip("/"))
        os.makedirs(os.path.dirname(q), exist_ok=True)
        shutil.copy(local, q)
    _cpio(d, path)
    return path


def _modules(d, names):
    """Linux 6.1's modules of these names and what they need, flat in d's
    /lib/modules, with their load order (each after its needs) in
    /lib/modules/order."""
    tree = os.path.join(DIST, "kernel", "lib", "modules")
    vers = os.listdir(tree)
    if len(vers) != 1:
        raise SystemExit(f"Bail out! not one module tree under {tree}: run "
                         "`make test-deps`")
    top = os.path.join(tree, vers[0])
    deps = {}
    with open(os.path.join(top, "modules.dep")) as f:
        for line in f:
            path, _, needs = line.partition(":")
            deps[os.path.basename(path)[:-3]] = (path, needs.split())
    order = []

    def add(name):
        if name in order:
            return
        if name not in deps:
            raise SystemExit(f"Bail out! no module {name} in {top}: run "
                             "`make test-deps`")
        for need in deps[name][1]:
            add(os.path.basename(need)[:-3])
        order.append(name)

    for n in names:
        add(n)
    os.makedirs(os.path.join(d, "lib", "modules"))
    for n in order:
        shutil.copy(os.path.join(top, deps[n][0]),
                    os.path.join(d, "lib", "modules", f"{n}.ko"))
    with open(os.path.join(d, "lib", "modules", "order"), "w") as f:
        f.write("\n".join(order) + "\n")


def _busybox_tree(d, init):
    for sub in ("proc", "sys", "dev", "bin"):
        os.makedirs(os.path.join(d, sub))
    bb = os.path.join(DIST, "busybox", "bin", "busybox")
    shutil.copy(bb, os.path.join(d, "bin", "busybox"))
    applets = subprocess.run([bb, "--list"], capture_output=True, text=True,
                             check=True).stdout.split()
    for a in applets:
        if a != "busybox":
            os.symlink("busybox", os.path.join(d, "bin", a))
    with open(os.path.join(d, "init"), "w") as f:
        f.write(init)
    os.chmod(os.path.join(d, "init"), 0o755)


def _cpio(d, path):
    files = subprocess.run(["find", "."], cwd=d, capture_output=True,
                           check=True).stdout
    with open(path + ".tmp", "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], input=files,
                       stdout=f, cwd=d, check=True)
    os.rename(path + ".tmp", path)
    shutil.rmtree(d)


# A kernel-style test whose windows lie within this many cycles of each
# other is steady: the rig's handoffs differ by up to about 30 cycles each
# way in such a test (docs/DESIGN.md 11).  Under TCG a handoff's two
# directions can differ by 200 cycles through all of the stage's retests
# (about one boot in 13): no two-way test can see through that, and its
# windows then lie apart.
STEADY = 40
# Where the kernel's check catches an offset on the rig (DESIGN 11.2).
FAR = 250
# The host's own CPUs read their clocks apart, and the rig's counter is
# QEMU's virtual clock as the host CPU running the vCPU reads it: on this
# workplace's 2-CPU machines, two threads pinned to the two host CPUs read
# CLOCK_MONOTONIC 10 to 17 ns apart one minute and -15 to +4 ns the next
# (20 to 35 rig cycles each way, so no calibration at QEMU's start holds).
# The oracle cannot see it.  What it moves is the BSP's clock against the
# APs' while the stage tests them, so it is one error common to every AP
# of a run: 200 measure runs with every AP truly at 0 read the three APs
# alike, the median of a run's errors up to 59 off, while each AP's error
# about that median stayed within estimate_bound (docs/DESIGN.md 11.2).
# So an AP's estimate is held to estimate_bound about the run's common
# error, and that error to HOST_BIAS.  The price: a bias common to every
# AP of a run and under HOST_BIAS (an estimator taking one leg of the
# test instead of the midpoint would err by about rtt/4, 73 here) is not
# seen by the rig on this host; the host simulator's and the unit tests'
# exact truth see it (test_driver, test_warp).
HOST_BIAS = 80
# ... and not quite common: a vCPU thread runs on either host CPU, so an AP
# tested while on the other one than the BSP's reads that CPU's offset
# too, up to the 35 cycles each way above.  A CI run's Legion sync (8 vCPUs
# on 2 host CPUs) read one AP 60 off the run's common error with a steady
# test (spread 1), where the bound about it was about 41.
HOST_APART = 36
# The stage's limits, from the one copy its code uses.
OK_ABS = c_define("common/verdict.h", "TSC_WARP_OK_ABS")
OK_LIMIT = c_define("common/verdict.h", "TSC_OK_LIMIT")


def estimate_bound(c):
    """How far a CPU's final estimate (a report's cpu entry) may lie from
    what a two-way test on this host sees of its truth: its kernel-style
    test's window spread plus STEADY or a third of its fastest handoff
    F = rtt/2, whichever is more, or, for a starved test (no spread), F
    plus STEADY.  TCG's handoffs are slower one way than the other by a
    share of the handoff itself: over 600 AP tests the error about the
    run's common error reached spread + 40 at F = 146 and spread + 55 at
    F = 219 (docs/DESIGN.md 11.2); F bounds any two-way test's error.
    Plus HOST_APART: the host CPU the AP's thread ran on."""
    if c["warp_spread"] is None:
        return c["rtt"] // 2 + STEADY
    return c["warp_spread"] + max(STEADY, c["rtt"] // 6) + HOST_APART


def measured(cpus):
    """The APs (report cpu entries) the run measured."""
    return [c for c in cpus if c["verdict"] != "unmeasured"]


def common_error(cpus, truth):
    """The estimate error common to a run's APs (report cpu entries;
    truth: {APIC ID: true offset}): the median of final_offset - truth
    over the measured APs that have a truth, where there are three or
    more (with two, a median is their mean and would hide half of one's
    own error); 0 otherwise."""
    errs = sorted(c["final_offset"] - truth[c["apic_id"]]
                  for c in measured(cpus)
                  if truth.get(c["apic_id"]) is not None)
    if len(errs) < 3:
        return 0
    n = len(errs)
    return (errs[(n - 1) // 2] + errs[n // 2]) // 2


def verdict_inconsistent(c):
    """Why a measured CPU's verdict (a report's cpu entry) disagrees with
    its own estimate, or None: `ok` is never beyond the ok limit (every
    window within TSC_WARP_OK_ABS; a starved test within TSC_OK_LIMIT),
    and `bad` without a warp never within F/4 (rtt/8) of 0 (common/
    verdict.c's bad limit is F/4 plus half the spread)."""
    off = abs(c["final_offset"])
    if c["verdict"] == "ok" and off > (
            OK_ABS if c["warp_spread"] is not None else OK_LIMIT):
        return "ok beyond the ok limit"
    if c["verdict"] == "bad" and not (c["warps_bsp"] or c["warps_ap"]) \
            and off <= c["rtt"] // 2 // 4:
        return "bad with no warp, within F/4"
    return None


def verdict_wrong(c, truth, common=0):
    """Why a CPU's verdict and estimate (a report's cpu entry) disagree with
    its true offset, or None.  common: the run's common_error.  The
    verdict agrees with the estimate (verdict_inconsistent); the estimate
    lies within estimate_bound of truth + common (what any two-way test on
    this host sees); a CPU FAR or more off is never ok, and bad wherever
    its test was steady.  A nearer CPU may be bad where its estimate says
    so: the common error alone has reached 59 cycles with every AP truly
    at 0, past the stage's bad limit (F/4 + S/2, about 36 on the rig),
    and the kernel on that host sees the same."""
    if c["verdict"] == "unmeasured":
        return None
    if truth is None:
        return "no truth"
    steady = c["warp_spread"] is not None and c["warp_spread"] <= STEADY
    if abs(common) > HOST_BIAS:
        return f"the run's common error {common} beyond HOST_BIAS"
    why = verdict_inconsistent(c)
    if why:
        return why
    if abs(c["final_offset"] - (truth + common)) > estimate_bound(c):
        return "estimate beyond its stated error"
    if abs(truth) >= FAR:
        if c["verdict"] == "ok":
            return "far, called ok"
        if steady and c["verdict"] != "bad":
            return "far, steady test, not bad"
    return None


def verdicts_wrong(cpus, truth):
    """[(index, truth, final_offset, warp_spread, verdict, why)] for each
    AP (report cpu entries) that verdict_wrong finds wrong against truth
    ({APIC ID: true offset}), the run's common_error taken out."""
    common = common_error(cpus, truth)
    out = []
    for c in cpus:
        why = verdict_wrong(c, truth.get(c["apic_id"]), common)
        if why:
            out.append((c["index"], truth.get(c["apic_id"]),
                        c["final_offset"], c["warp_spread"], c["verdict"],
                        f"{why} (common error {common})"))
    return out


def healthy_read_wrong(r, truth):
    """Why a report of a machine without the fault (truth: {APIC ID: true
    offset}, all 0 where nothing was written) reads it wrong, or []: every
    AP as verdicts_wrong holds it (a `bad` without a warp only where its
    own estimate is past F/4, and that estimate within its bound of the
    truth plus the run's common error), none bad on a warp, and the
    result in-sync, unsure or out-of-sync (27 of 200 measure runs of 4
    vCPUs here read some AP bad with every AP truly at 0).  A sync run says
    why it left such an AP: its note is `unproven` (DESIGN 3.3)."""
    out = verdicts_wrong(r["cpus"], truth)
    out += [(c["index"], "bad on a warp") for c in r["cpus"]
            if c["verdict"] == "bad" and (c["warps_bsp"] or c["warps_ap"])]
    if r["mode"] == "sync" and not r["bsp_shift_cycles"]:
        out += [(c["index"], f"bad, unwritten, note {c['note']}")
                for c in r["cpus"]
                if c["verdict"] == "bad" and not c["writes"] and
                not c["note"] and not (c["warps_bsp"] or c["warps_ap"])]
    if r["result"] not in ("in-sync", "unsure", "out-of-sync"):
        out.append(("result", r["result"]))
    return out


def sim_truth(r):
    """{APIC ID: sim_true_offset} of a sim build's report."""
    return {c["apic_id"]: c["sim_true_offset"] for c in r["cpus"]
            if c.get("sim_true_offset") is not None}


def unsettled(r, truth):
    """Why a sync run (a report) ended wrong against truth ({APIC ID: true
    offset}), or []: every AP as verdicts_wrong holds it, and the result
    in-sync or unsure, or out-of-sync with every measured AP's truth
    within HOST_BIAS (a residual the host's clocks can explain: the run's
    common error changes from test to test as the vCPU threads move
    between host CPUs, and a Legion sim run here steered its APs to what
    one test read, then the final pass read four of them at +60 to +68,
    truly at +47, `bad`; a BSP move 140 short, honestly out-of-sync,
    still fails)."""
    out = verdicts_wrong(r["cpus"], truth)
    if r["result"] == "out-of-sync":
        out += [(c["index"], truth.get(c["apic_id"]),
                 "out-of-sync, its truth beyond HOST_BIAS")
                for c in measured(r["cpus"])
                if abs(truth.get(c["apic_id"]) or 0) > HOST_BIAS]
    elif r["result"] not in ("in-sync", "unsure"):
        out.append(("result", r["result"]))
    return out


def skew_spec(skew):
    """{cpu: cycles} as the rig's environment variable."""
    return ",".join(f"{cpu}={cycles}" for cpu, cycles in sorted(skew.items()))


class Oracle:
    """The rig's truth, from QEMU's standard error (docs/DESIGN.md 11.2):
    C(N) = TSC(vCPU N) - TSC(vCPU 0), N = QEMU's cpu_index (the APIC ID).

    events: in order, ("oracle", why, {N: C}) for each "tsc-rig: oracle
    WHY" group (why: port, reset, exit, write) and ("write", N, V, C) for
    each write to MSR 0x10."""

    def __init__(self, stderr):
        text = stderr.decode("utf-8", "replace") if isinstance(
            stderr, bytes) else stderr
        self.events = []
        group = None
        for line in text.splitlines():
            m = re.fullmatch(r"tsc-rig: oracle (\w+)", line)
            if m:
                group = {}
                self.events.append(("oracle", m.group(1), group))
                continue
            m = re.fullmatch(r"tsc-rig: cpu (\d+) offset (-?\d+)", line)
            if m and group is not None:
                group[int(m.group(1))] = int(m.group(2))
                continue
            group = None
            m = re.fullmatch(r"tsc-rig: write cpu (\d+) value (\d+) "
                             r"offset (-?\d+)", line)
            if m:
                self.events.append(("write", int(m.group(1)),
                                    int(m.group(2)), int(m.group(3))))

    def groups(self, why):
        """Every {N: C} printed for that reason, in order."""
        return [e[2] for e in self.events if e[0] == "oracle" and e[1] == why]

    @property
    def writes(self):
        """(N, V, C) per write to MSR 0x10, in order."""
        return [e[1:] for e in self.events if e[0] == "write"]

    def writes_per_cpu(self):
        n = {}
        for cpu, _v, _c in self.writes:
            n[cpu] = n.get(cpu, 0) + 1
        return n

    def after_each_write(self, start):
        """{N: C} after each write, in order, from start ({N: C} before the
        first: the fault the rig applied at reset): an AP's write sets its
        own C; vCPU 0's moves every C and is followed by a full group."""
        now = dict(start)
        out = []
        pending = False
        for e in self.events:
            if e[0] == "write":
                if pending:
                    out.append(dict(now))
                now[e[1]] = e[3]
                pending = e[1] == 0
                if not pending:
                    out.append(dict(now))
            elif e[1] == "write" and pending:
                now = dict(e[2])
                out.append(dict(now))
                pending = False
        if pending:
            out.append(dict(now))
        return out


def relative(skew, smp):
    """The rig's fault as the oracle states it: {N: skew N - skew 0}."""
    return {n: skew.get(n, 0) - skew.get(0, 0) for n in range(smp)}


class Boot:
    """One boot's outcome: the stage's reports (JSON, as `tsctui report
    --json --all` reads them from the console), the kernel's verdict, and
    the rig's truth (oracle): after_stage, the offsets when the Shell's
    line after the stage read the oracle's port; in_linux, when the guest's
    init read it after the kernel's judgement; at_exit, as QEMU ended."""

    def __init__(self, res, log_path, linux=True):
        self.res = res
        self.log_path = log_path
        self.linux = linux
        self.oracle = Oracle(res.stderr)
        ports = self.oracle.groups("port")
        self.after_stage = ports[0] if ports else None
        self.in_linux = ports[1] if len(ports) > 1 else None
        exits = self.oracle.groups("exit")
        self.at_exit = exits[-1] if exits else None
        text = res.console()
        m = re.search(r"--- rig dmesg begin ---\n(.*?)--- rig dmesg end ---",
                      text, re.S)
        self.dmesg = m.group(1) if m else ""
        self.user_space = "rig: user space up" in text
        m = re.search(r"rig: clocksource=(\S+)", text)
        self.clocksource = m.group(1) if m else None
        self.warps = [int(w) for w in re.findall(
            r"Measured (\d+) cycles TSC warp between CPUs", self.dmesg)]
        # The Linux CPU numbers the kernel's check caught ([CPU#0 -> CPU#n]);
        # the rig numbers vCPUs as OVMF and Linux do, by APIC ID.
        self.caught = [int(n) for n in re.findall(
            r"TSC synchronization \[CPU#\d+ -> CPU#(\d+)\]", self.dmesg)]
        self.unstable = re.findall(r"Marking TSC unstable due to ([^\n]*)",
                                   self.dmesg)
        self.refined = "Refined TSC clocksource calibration" in self.dmesg
        self.reports = _reports(log_path)
        # What the guest's commands printed, and their exit status.
        self.outputs = {}
        for m in re.finditer(r"--- rig cmd (\d+) begin ---\n(.*?)"
                             r"--- rig cmd \d+ end rc=(\d+) ---", text, re.S):
            self.outputs[int(m.group(1))] = (m.group(2), int(m.group(3)))

    @property
    def accepted(self):
        """The kernel kept the TSC: no warp, not marked unstable, still the
        clocksource after its refined calibration and the watchdog."""
        return (self.user_space and not self.warps and not self.unstable
                and self.refined and self.clocksource == "tsc")

    @property
    def rejected_by_warp(self):
        return bool(self.warps) and self.clocksource not in (None, "tsc")

    def summary(self):
        s = (f"{self.res.seconds:.0f} s, clocksource {self.clocksource}, "
             f"warps {self.warps}, unstable {self.unstable}, oracle "
             f"after the stage {self.after_stage}")
        if self.linux and "rig: done" not in self.res.console():
            # Linux never finished: say how the guest ended.
            s += "; " + self.res.ending()
        return s

    def estimate_errors(self, report=None):
        """{APIC ID: the stage's final offset - the oracle's} for each AP
        the report gives one for, against the truth when the stage
        returned; {} without either."""
        r = report or (self.reports[0] if self.reports else None)
        if not r or self.after_stage is None:
            return {}
        return {c["apic_id"]: c["final_offset"] -
                self.after_stage[c["apic_id"]]
                for c in r["cpus"] if c.get("final_offset") is not None and
                c["apic_id"] in self.after_stage}


def _reports(log_path):
    r = subprocess.run([TSCTUI, "report", "--json", "--all", "--file",
                        log_path], capture_output=True, text=True)
    if r.returncode != 0:
        return []
    return json.loads(r.stdout)


def boot(work, name, stage_lines, skew=None, smp=4, cpu=LAPTOP_CPU,
         timeout=300, memory=512, extra_files=(), tsc_rate=None,
         hpet_rate=None, commands=None, wait_s=0, smbios=True, env=None,
         linux=True, reboot=False, until=b"rig: done",
         stop_signal=qemu.signal.SIGTERM, kernel="6.12", disk=None,
         again=False, vars_path=None, swap=None, hibernate=False,
         initrd_files=()):
    """Boots the rig: the UEFI Shell runs stage_lines (each a Shell command
    line; the stage images are at fs0:\\EFI\\tsctui\\tsctui.efi and
    sim.efi), then Debian's kernel.  skew: {cpu index: cycles} applied at
    every reset.  tsc_rate, hpet_rate: (ppm, seconds), a rate fault of
    that clock from then on (seconds = FAULT_ON_PORT: from the guest's
    write of the oracle's port, once Linux has calibrated).  commands: shell lines run in the guest with
    tsctui on its PATH once the kernel has judged the TSC and, for up to
    wait_s seconds more, until the watchdog dropped it (Boot.outputs).
    smbios=False: QEMU's own SMBIOS strings instead of the laptop's.
    env: more of the rig's variables (WRITE_LATENCY_ENV, TCG_WRITES_ENV,
    SEED_ENV).  After stage_lines the Shell reads the oracle's port
    (Boot.after_stage).  linux=False: the Shell runs stage_lines and the
    port read, then powers the machine off (`reset -s`), unless
    stage_lines, `until` or the timeout end it first; reboot: a guest reset restarts the firmware; stop_signal:
    how the harness stops QEMU at `until`; kernel: which line of Debian's
    kernel judges (KERNELS).  disk: the caller's qemu.Disk, not deleted
    afterwards; again: it is the machine's own from an earlier boot (the
    machine powered on again): nothing is put on it, and vars_path is that
    boot's variable store.  swap: a raw image, the guest's second virtio
    disk (SWAP_SERIAL); hibernate, initrd_files: tsctui_initramfs's
    hibernate and files.  Returns a Boot."""
    os.makedirs(work, exist_ok=True)
    kept = disk is not None
    disk = disk or qemu.Disk(os.path.join(work, f"{name}.img"), size_mb=48)
    if not again:
        efi = os.path.join(TOP, "efi")
        disk.put(os.path.join(efi, "tsctui.efi"), "EFI/tsctui/tsctui.efi")
        disk.put(os.path.join(efi, "tsctui-sim.efi"), "EFI/tsctui/sim.efi")
        if linux:
            disk.put(kernel_image(kernel), "vmlinuz")
        # Made once per version of INIT.
        if commands is None:
            tag = hashlib.sha256(INIT.encode()).hexdigest()[:12]
            initrd = initramfs(os.path.join(BUILD, "rig",
                                            f"initrd-{tag}.img"))
        else:
            # Made per run: tsctui is rebuilt between runs.
            initrd = os.path.join(work, f"{name}.initrd")
            if os.path.exists(initrd):
                os.unlink(initrd)
            tsctui_initramfs(initrd, commands, wait_s, hibernate,
                             initrd_files)
        disk.put(initrd, "initrd.img")
        for local, dest in extra_files:
            disk.put(local, dest)
        lines = list(stage_lines) + [ORACLE_SHELL] + (
            [rf"fs0:\vmlinuz initrd=\initrd.img {KERNEL_ARGS}"] if linux else
            ["reset -s"])
        disk.write("startup.nsh", "".join(f"{x}\r\n" for x in lines))
    vars_path = vars_path or qemu.seasoned_vars(
        os.path.join(work, f"{name}.vars"), "virtio")
    extra = list(SMBIOS if smbios else [])
    if swap:
        extra += ["-drive", f"file={swap},format=raw,if=none,id=swap",
                  "-device",
                  f"virtio-blk-pci,drive=swap,serial={SWAP_SERIAL}"]
    log = os.path.join(work, f"{name}.log")
    env = dict(env or {}, **{SKEW_ENV: skew_spec(skew or {})})
    for var, fault in ((TSC_RATE_ENV, tsc_rate), (HPET_RATE_ENV, hpet_rate)):
        if fault:
            start = fault[1] if fault[1] == FAULT_ON_PORT else \
                f"{fault[1]:g}"
            env[var] = f"{int(fault[0])}@{start}"
    res = qemu.boot(disk, vars_path, cpu=cpu, smp=smp, timeout=timeout,
                    log_path=log, memory=memory, binary=QEMU,
                    extra=extra, env=env,
                    until=until, reboot=reboot, stop_signal=stop_signal,
                    pin=pinning(smp))
    if not kept:
        os.unlink(disk.path)
    return Boot(res, log, linux)

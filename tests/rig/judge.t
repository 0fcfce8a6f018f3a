#!/usr/bin/env python3
"""The release stage judged by Linux: real TSC writes on the TSC rig
(tests/lib/rig.py), then Debian's kernel and its own tsc_sync check.

Every boot starts the boot CPU's counter where the field's firmware leaves
it (the E595's 6815086010 cycles behind) unless it says otherwise.  The
negative controls run every time: with the stage in measure mode (no
write: Linux starts on the firmware's counters, as the oracle shows) the
kernel must warp (the rig reproduces the fault); a
machine without the fault gets no MSR write in sync mode; under a
hypervisor sync is refused and nothing is written.  Then sync boots, where
the kernel must keep the TSC and the stage must never have said in-sync
for a boot the kernel rejected, and measure boots with small offsets
injected, where every CPU the kernel catches must be `bad` in the report.
Both of Debian's kernel lines judge a measure boot and an E595 sync boot:
6.1 (Debian 12's own) the first of each, the small offsets and Legion's
6 vCPUs, 6.12 the second and the other boots (its ZSTD image boots 5 to
9 s sooner under TCG than 6.1's XZ).
The acceptance rate over many boots is `make bench` (tests/bench/rig)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import prom  # noqa: E402
import rig  # noqa: E402
from paths import BUILD  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap(plan=20)
rig.require()
WORK = os.path.join(BUILD, "rig-tests")
APP = r"fs0:\EFI\tsctui\tsctui.efi"


def boot(name, mode, skew=rig.E595, smp=4, cpu=rig.LAPTOP_CPU,
         commands=None, linux=True, kernel="6.12"):
    lines = [f"{APP} mode={mode}"] if mode else []
    b = rig.boot(WORK, name, lines, skew=skew, smp=smp, cpu=cpu,
                 commands=commands, linux=linux,
                 until=b"rig: done" if linux else None, kernel=kernel)
    t.diag(f"{name}: {b.summary()}")
    for r in b.reports:
        t.diag(f"  stage: {r['result']}, {r['msr_writes']} writes, BSP "
               f"shift {r['bsp_shift_cycles']}, " + ", ".join(
                   f"cpu {c['index']} {c['final_offset']:+d} "
                   f"(margin {c['warp_margin']}) {c['verdict']}"
                   for c in r["cpus"]))
    return b


def report(b):
    return b.reports[0] if len(b.reports) == 1 else None


def judged_consistently(b, r):
    """The stage never says in-sync for a boot the kernel rejects, and
    every CPU the kernel caught is `bad` in the report (matched by APIC
    ID)."""
    if r is None:
        return False, "no single report"
    if b.accepted:
        return True, ""
    if r["result"] == "in-sync":
        return False, "in-sync, but the kernel rejected the boot"
    by_apic = {c["apic_id"]: c for c in r["cpus"]}
    missed = [n for n in b.caught
              if by_apic.get(n, {}).get("verdict") != "bad"]
    return not missed, f"kernel caught CPU(s) {missed}, not bad in report"


# What an operator's Prometheus would see from the guest (the textfile
# writer's two commands, tui/tsctui-textfile.in).
METRICS = ["tsctui status --prometheus",
           "tsctui check --prometheus --samples 2 --interval 1"]
# The same live survey as JSON: which cores it measured, and each one's
# round trip (the exposition shows an unmeasured core as offset 0).
SURVEY = "tsctui check --json --samples 2 --interval 1"
RIG_HZ = 2.1e9


def metrics(b):
    """The guest's two expositions as one, promtool's verdict on it, and
    its samples."""
    text = "".join(b.outputs.get(n, ("", None))[0] for n in (0, 1))
    ok, said = prom.promtool_check(text)
    return ok, said, prom.parse(text)[0]


# ---- negative controls ----------------------------------------------------
# One boot shows the fault and measure mode together: the stage measures
# and writes nothing (no write line on QEMU's standard error), so the
# counters Linux starts with are the firmware's, as the oracle reads them
# from Linux; the kernel must warp on them (the rig reproduces the fault).
# A boot without the stage would show nothing more (it was one boot more).
b = boot("measure", "measure", commands=METRICS, kernel="6.1")
r = report(b)
lag = b.in_linux or {}
# The rig's counters differ by constant offsets, so the oracle gives the
# fault exactly, in Linux (through /dev/port) and as QEMU ends.
t.ok(b.user_space and not b.oracle.writes and
     lag == {0: 0, 1: 6815086010, 2: 6815086010, 3: 6815086010} and
     b.warps and b.warps[0] > 6.8e9 and b.clocksource == "hpet",
     "rig: with nothing written, Linux starts with the firmware's counters "
     "(every AP 6.8e9 cycles ahead, by the oracle); the kernel measures the "
     "warp and drops the TSC", f"{b.summary()}, oracle in Linux {lag}")
# SIGTERM at the guest's last line (a person's kill): QEMU prints the
# counters on its way out, the same ones, no write by anyone.
t.ok(b.at_exit == lag and lag and not b.res.timed_out,
     "rig: stopped with SIGTERM when the guest is done, QEMU prints the "
     "oracle's lines on its way out: the same counters",
     f"at exit {b.at_exit}, in Linux {lag}")
t.ok(r is not None and r["build"] == "release" and r["msr_writes"] == 0 and
     all(abs(c["survey_offset"] - 6815086010) < 5000 and
         c["verdict"] == "bad" for c in r["cpus"]) and
     r["result"] == "out-of-sync",
     "measure mode writes nothing and sees the BSP 6.8e9 cycles behind "
     "every AP", b.summary())
ok, said, m = metrics(b)
t.ok(ok and prom.value(m, "tsctui_clocksource_tsc") == 0 and
     (prom.value(m, "tsctui_boot_warp_cycles") or 0) > 6.8e9 and
     prom.value(m, "tsctui_unhealthy") == 1,
     "the guest's metrics after a warp boot: not on tsc, the kernel's warp "
     "of 6.8e9 cycles, unhealthy; promtool accepts them", said or m)

# The second judge: Debian's 6.12 line (the archive's other kernel; its
# tsc_sync.c has the same check) must catch the same fault, and keep the
# TSC after a sync (the second E595 sync boot below runs on it).
b = boot("measure-6.12", "measure", kernel="6.12")
r = report(b)
ok, why = judged_consistently(b, r)
t.ok(b.user_space and b.warps and b.warps[0] > 6.8e9 and
     b.clocksource == "hpet" and b.caught and ok and
     r["msr_writes"] == 0 and r["result"] == "out-of-sync",
     "Linux 6.12 on the firmware's counters: it measures the 6.8e9-cycle "
     "warp and drops the TSC, every CPU it caught bad in the report",
     f"{b.summary()}, caught {b.caught}, {why}")

for i in range(1):
    b = boot(f"healthy-sync-{i}", "sync", skew={})
    r = report(b)
    # In-sync or unsure: an AP a little past the ok limit (F/8) on the
    # test's noise is unsure, and written only on a warp seen.  Or
    # out-of-sync with no warp and nothing written, where the run's common
    # error (the host's CPUs' clocks apart, rig.HOST_BIAS) put the APs past
    # the bad limit: a run here read all three at +45 to +60 with the
    # oracle at 0 (docs/DESIGN.md 11.2; rig.healthy_read_wrong).
    wrong = rig.healthy_read_wrong(r, b.after_stage or {}) if r else []
    t.ok(r is not None and r["msr_writes"] == 0 and not wrong and
         b.accepted,
         f"a machine without the fault, sync boot {i + 1}: nothing written, "
         "the kernel keeps the TSC, every AP as the host's clocks read it",
         b.summary() + (f", {r['msr_writes']} writes, {r['result']}, "
                        f"{wrong}" if r else ""))

# Refused is the stage's own decision: the oracle, read in the Shell once
# it returned, shows the firmware's fault untouched and QEMU saw no write
# (what the kernel would then warp on, the measure boot shows).
b = boot("hypervisor", "sync", cpu="EPYC,+invtsc", linux=False)
r = report(b)
t.ok(r is not None and r["result"] == "refused" and
     "hypervisor" in (r["reason"] or "") and r["msr_writes"] == 0 and
     not b.oracle.writes and b.after_stage == rig.relative(rig.E595, 4),
     "with the hypervisor bit set, sync is refused and nothing is written "
     "(by the oracle: the fault as the firmware left it, no write)",
     (r["reason"] if r else None, b.summary()))

# ---- the fix, judged by the kernel --------------------------------------
for name, skew, smp, runs in (("E595", rig.E595, 4, 2),
                              ("Legion", rig.LEGION, 6, 1)):
    accepted = 0
    for i in range(runs):
        first = name == "E595" and i == 0
        # Legion's 6 vCPUs on 6.1: 6.12 oopsed once there under TCG (an
        # int3 of its own code patching, seen after the patch: DESIGN 11.2).
        kernel = "6.12" if name == "E595" and not first else "6.1"
        b = boot(f"sync-{name.lower()}-{i}", "sync", skew=skew, smp=smp,
                 commands=METRICS + [SURVEY] if first else None,
                 kernel=kernel)
        r = report(b)
        if first:
            ok, said, m = metrics(b)
            out = b.outputs.get(2, ("", None))[0]
            live = [json.loads(x) for x in out.splitlines()
                    if x.startswith("{")]
            cpus = live[-1]["cpus"] if live else []
            t.diag("live survey: " + ", ".join(
                f"cpu {c['index']} {c['offset']:+d} rtt {c['rtt']} "
                f"{c['verdict']}" for c in cpus))
            # The live survey from Linux: 2 ms runs of the kernel's loop
            # per core.  The kernel kept the TSC (tsc, reported as such);
            # every AP measured, no warp, and every core within half its
            # round trip (an estimate cannot be truer than the round trip's
            # asymmetry; the offsets on the rig's one counter are
            # that asymmetry).
            measured = len(cpus) == smp - 1 and all(
                c["verdict"] != "unmeasured" and c["rtt"] > 0 for c in cpus)
            half_rtt = max((c["rtt"] for c in cpus), default=0) / 2
            t.ok(ok and b.accepted and
                 prom.value(m, "tsctui_clocksource_tsc") == 1 and
                 measured and
                 all(abs(c["offset"]) <= c["rtt"] / 2 for c in cpus) and
                 prom.value(m, "tsctui_warps_all_samples") == 0 and
                 (prom.value(m, "tsctui_core_offset_max_seconds") or 1)
                 <= half_rtt / RIG_HZ,
                 "the guest's metrics after a sync boot: on tsc as the "
                 "kernel kept it, every core measured live, no warp, each "
                 "within half its round trip; promtool accepts them",
                 said or m)
        ok, why = judged_consistently(b, r)
        t.ok(ok, f"{name} pattern, {smp} vCPUs, sync boot {i + 1} (Linux "
             f"{kernel}): the stage's verdicts agree with the kernel's", why)
        t.ok(r is not None and abs(r["bsp_shift_cycles"] -
                                   -skew[0]) < 100000 and
             r["msr_writes"] >= 1,
             f"{name} pattern, sync boot {i + 1}: the BSP moved forward by "
             "the firmware's lag", r["bsp_shift_cycles"] if r else None)
        accepted += b.accepted
    t.ok(accepted == runs, f"{name} pattern: the kernel kept the TSC in "
         f"{accepted} of {runs} sync boots (every one, as in the e2e "
         "stories" + ("; the second on Linux 6.12" if runs > 1 else "") +
         "; the rate over 20 boots is make bench)")

# ---- sensitivity: small offsets, measure mode ---------------------------
# Two 4-vCPU boots: one 7-vCPU boot with all six offsets read the -250
# AP as unsure (-261) once, 7 vCPUs on 2 host CPUs being noisier.
for i, skew in enumerate(({1: 300, 2: -250, 3: 140},
                          {1: -160, 2: 200, 3: -320})):
    # On 6.1, as before this file had a second line.  Neither line
    # catches these offsets every time under TCG (6.12 kept the TSC once
    # with the first set, 6.1 once with both): the check below holds the
    # stage to the oracle, whatever the kernel caught.
    b = boot(f"sensitivity-{i}", "measure", skew=skew, kernel="6.1")
    r = report(b)
    ok, why = judged_consistently(b, r)
    t.ok(ok and r["msr_writes"] == 0,
         f"offsets {skew}: every CPU the kernel catches is bad in the "
         "report", why)
    # The rig's truth (rig.verdicts_wrong): each far CPU is never ok, and
    # bad wherever the stage's test was steady; its verdict agrees with its
    # estimate, and the estimate lies within its stated error
    # (rig.estimate_bound) of the oracle's offset, once the error common to
    # every AP of the run (the host's CPUs' clocks apart, at most
    # rig.HOST_BIAS) is taken out.  About one boot in 13 read the
    # -250 AP as -137 to -145 (windows 137 apart), `unsure` or `bad`:
    # against that asymmetry no test can say more.
    truth = b.after_stage or {}
    far = [c for c in (r["cpus"] if r else [])
           if abs(skew.get(c["apic_id"], 0)) >= rig.FAR]
    wrong = [w for w in rig.verdicts_wrong(r["cpus"] if r else [], truth)
             if w[0] in {c["index"] for c in far}]
    t.ok(r is not None and far and not wrong,
         f"offsets {skew}: CPUs 250 cycles or more off are never ok, bad "
         "where the stage's test was steady, and estimated within its "
         "windows' spread of the truth", wrong)

sys.exit(t.done())

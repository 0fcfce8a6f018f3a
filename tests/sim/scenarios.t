#!/usr/bin/env python3
"""Host simulator scenarios: the real sync driver on this machine's cores with
virtual offsets.  Every assertion is on ground truth (sim_true_offset, the
exact residual), read through `tsctui report --json`, not on the driver's own
verdicts alone.  Each scenario runs once: a fault that shows one run in two
must fail here one run in two, not one in eight.  (The simulator runs up to
32 threads on this machine's two vCPUs; the BSP's thread is alone on the
first, every AP's on the second, and those two cores read their TSCs apart
by a fixed amount, which the estimate includes: see limit().)"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from tap import Tap  # noqa: E402

TSCTUI = os.environ.get("TSCTUI", "tui/tsctui")
SCENARIOS = 12
t = Tap(plan=SCENARIOS)


def simulate(cpus, mode, spec):
    t0 = time.monotonic()
    sim = subprocess.run([TSCTUI, "simulate", "--cpus", str(cpus), "--mode",
                          mode] + spec, capture_output=True, text=True,
                         timeout=120)
    took = time.monotonic() - t0
    if sim.returncode != 0:
        return None, took, f"simulate exited {sim.returncode}: {sim.stderr}"
    rep = subprocess.run([TSCTUI, "report", "--json", "--file", "-"],
                         input=sim.stdout, capture_output=True, text=True)
    if rep.returncode != 0:
        return None, took, f"report exited {rep.returncode}: {rep.stderr}"
    return json.loads(rep.stdout), took, None


def limit(cpu):
    # An estimate cannot be truer than its round trip's asymmetry.
    return max(64, cpu["rtt"] // 2)


class Need:
    """The problems a scenario found: every condition is checked, each
    failed one said (not only the first, as bare asserts would)."""

    def __init__(self):
        self.problems = []

    def __call__(self, cond, what):
        if not cond:
            self.problems.append(str(what))
        return cond


def converged(need, r):
    # By the truth, every AP within reach.  The verdict may still say
    # out-of-sync: this host's two cores read their TSCs apart by about 100
    # cycles, and not always the same (`tsctui check` here sees CPU 1 now
    # agree, now disagree), so the kernel-style verify can rightly call an
    # AP bad that the simulator's truth puts within reach; a fresh-clone
    # CI run did, in two scenarios.  Saying out-of-sync when it is in sync
    # costs a retry, never a wrong counter; in-sync is held to the truth
    # below, and the rig (judge.t) holds the verdict to its oracle.
    need(r["result"] in ("in-sync", "unsure", "out-of-sync"),
         f"result {r['result']}")
    for c in r["cpus"]:
        need(abs(c["sim_true_offset"]) <= limit(c),
             f"CPU {c['index']}: residual {c['sim_true_offset']} > "
             f"{limit(c)}")
        no_warps(need, c, r)


def no_warps(need, c, r):
    # A warp is a read going backwards across a handoff, on the host's own
    # counters.  Those two cores move against each other between tests (up
    # to about 100 cycles between runs a tenth of a second apart,
    # docs/DESIGN.md 11.2), so after the last write the final test can see
    # warps where the truth is within reach: a fresh-clone CI run saw 1 to 8
    # on three of Legion's 31 APs, every residual within its limit.  What a
    # warp must never be is hidden: its AP is not ok, the run not in-sync.
    if c["warps_bsp"] or c["warps_ap"]:
        need(c["verdict"] != "ok" and r["result"] != "in-sync",
             f"CPU {c['index']}: warps {c['warps_bsp']}/{c['warps_ap']} "
             f"with verdict {c['verdict']}, result {r['result']}")


def scenario(name, cpus, mode, spec, check):
    r, took, err = simulate(cpus, mode, spec)
    need = Need()
    if r is not None:
        check(need, r, took)
    if err or need.problems:
        t.ok(False, name, err or "\n".join(need.problems))
        return
    worst = max((abs(c["sim_true_offset"]) for c in r["cpus"]), default=0)
    t.ok(True, f"{name} (result {r['result']}, {r['msr_writes']} writes, "
         f"worst residual {worst}, {r['total_ms']:.1f} ms)")


def e595(need, r, took):
    converged(need, r)
    need(abs(r["bsp_shift_cycles"] - 6815086010) < 2000,
         f"BSP shift {r['bsp_shift_cycles']}")
    need(r["build"] == "sim" and r["mode"] == "sync",
         f"build {r['build']}, mode {r['mode']}")


def legion(need, r, took):
    converged(need, r)
    need(len(r["cpus"]) == 31, f"{len(r['cpus'])} APs")
    need(abs(r["bsp_shift_cycles"] - 5690270744) < 2000,
         f"BSP shift {r['bsp_shift_cycles']}")


def aps_behind(need, r, took):
    converged(need, r)
    need(r["bsp_shift_cycles"] == 0,
         "the BSP must stay when every AP lags")
    need(all(c["writes"] >= 1 for c in r["cpus"]),
         f"writes {[c['writes'] for c in r['cpus']]}")


def mixed(need, r, took):
    converged(need, r)
    # The furthest-ahead AP (CPU 1) is where the BSP goes.
    need(abs(r["bsp_shift_cycles"] - 3000000) < 2000,
         r["bsp_shift_cycles"])


def in_sync(need, r, took):
    # The BSP never moves and the AP pass leaves every AP alone.  This
    # host's own cores are not in sync (`tsctui check`: about 100 cycles
    # apart, against a handoff of about 170), so the kernel-style verify
    # may rightly call an AP bad and correct it: the zero-writes promise
    # is tested on the TSC rig (tests/rig/judge.t), whose counters are
    # equal, and in tests/unit/test_plan.c.
    # Nor is its result promised: those cores can make it out-of-sync.
    # A warp those cores make is said, never hidden (no_warps).
    for c in r["cpus"]:
        need(abs(c["sim_true_offset"]) <= limit(c), c)
        no_warps(need, c, r)
    need(r["bsp_shift_cycles"] == 0, f"BSP shift {r['bsp_shift_cycles']}")
    need(r["phases_ms"]["ap_pass"] < 1.0,
         r["phases_ms"])


def dead(need, r, took):
    need(r["msr_writes"] == 0,
         "a silent AP must block every write")
    need(r["bsp_shift_cycles"] == 0, f"BSP shift {r['bsp_shift_cycles']}")
    c2 = [c for c in r["cpus"] if c["index"] == 2][0]
    need(c2["verdict"] == "unmeasured",
         c2)
    need("CPU 2 did not answer" in r["reason"],
         r["reason"])
    # One answer timeout (100 ms) per silent AP, plus the work.
    need(took < 2.0,
         f"took {took:.2f} s")
    for c in r["cpus"]:
        if c["index"] != 2:
            need(c["sim_true_offset"] == 6815086010, c)


def beyond_cap(need, r, took):
    c3 = [c for c in r["cpus"] if c["index"] == 3][0]
    need(c3["sim_true_offset"] == -200000000000,
         "must be left alone")
    need(c3["writes"] == 0 and c3["verdict"] == "bad", c3)
    need(c3["note"] == "beyond-cap",
         c3)
    need(r["result"] == "out-of-sync", r["result"])
    need("further off than a write may move" in r["reason"], r["reason"])
    for c in r["cpus"]:
        if c["index"] != 3:
            need(abs(c["sim_true_offset"]) <= limit(c),
                 c)


def measure_large(need, r, took):
    need(r["msr_writes"] == 0 and r["bsp_shift_cycles"] == 0,
         f"{r['msr_writes']} writes, BSP shift {r['bsp_shift_cycles']}")
    need(r["result"] == "out-of-sync", r["result"])
    for c in r["cpus"]:
        need(c["verdict"] == "bad",
             c)
        need(c["sim_true_offset"] == 6815086010 and c["writes"] == 0, c)
        # The estimate is the truth within its round trip.
        need(abs(c["final_offset"] - 6815086010) <= limit(c),
             c)


def late_in_ap_pass(need, r, took):
    # AP 2 answered the survey; MP services then started it too late in
    # the AP pass, while the BSP was already talking to AP 3.  It must not
    # serve AP 3's session: a write it carried out would land on its own
    # counter (the simulator applies a write to the thread that executes
    # it), so its residual must be exactly what it was.
    c2 = [c for c in r["cpus"] if c["index"] == 2][0]
    need(c2["sim_true_offset"] == -9000,
         c2)
    need(c2["verdict"] == "unmeasured" and c2.get("note") == "no-answer",
         c2)
    need(r["result"] != "in-sync",
         r["result"])
    for c in r["cpus"]:
        if c["index"] != 2:
            need(abs(c["sim_true_offset"]) <= limit(c),
                 c)
            need(c["writes"] >= 1,
                 c)


# Issue 25's write caps: at most 4 writes per AP, its first included, and
# 1 + 4 on the BSP, whatever the noise.
AP_WRITES_MAX = 4
BSP_WRITES_MAX = 5


def capped(need, r):
    for c in r["cpus"]:
        need(c["writes"] <= AP_WRITES_MAX,
             f"CPU {c['index']}: {c['writes']} writes")
    bsp = r["msr_writes"] - sum(c["writes"] for c in r["cpus"])
    need(bsp <= BSP_WRITES_MAX, f"{bsp} writes on the BSP")


def disagreeing(need, r, took):
    # The BSP lags and the APs also disagree among themselves: the AP
    # pass brings 2600 and 18000 in, the verify steers the rest.
    converged(need, r)
    capped(need, r)


def noisy(need, r, took):
    # Writes land up to 1000 cycles off: the stage cannot correct below
    # that, so it must stop within the caps and never call it in-sync
    # unless every AP really is within reach.
    capped(need, r)
    if r["result"] == "in-sync":
        for c in r["cpus"]:
            need(abs(c["sim_true_offset"]) <= limit(c),
                 f"in-sync with CPU {c['index']} at "
                 f"{c['sim_true_offset']}")


def jittered(need, r, took):
    # Writes land up to 20 cycles off and this host's two cores read their
    # TSCs apart (see limit()): the truth must be within reach and the
    # caps hold; the stage's own verdict may stay short of in-sync here
    # (its 20-cycle rule against a landing noise of 20; 1 run in 3 reads
    # out-of-sync on true residuals under 32), which is the safe side.
    for c in r["cpus"]:
        need(abs(c["sim_true_offset"]) <= limit(c),
             f"CPU {c['index']}: residual {c['sim_true_offset']} > "
             f"{limit(c)}")
        no_warps(need, c, r)
    capped(need, r)
    need(abs(r["bsp_shift_cycles"] - 6815086010) < 2000,
         f"BSP shift {r['bsp_shift_cycles']}")


E595 = ["sim.offset.0=-6815086010", "sim.offset.2=16", "sim.offset.4=-16",
        "sim.offset.5=9", "sim.offset.7=-7"]
scenario("E595 pattern, 8 CPUs, sync", 8, "sync", E595, e595)
scenario("Legion pattern, 32 CPUs, sync", 32, "sync",
         ["sim.offset.0=-5690270744"], legion)
scenario("every AP behind the BSP", 6, "sync",
         [f"sim.offset.{i}={-1000 * i * i - 5000}" for i in range(1, 6)],
         aps_behind)
scenario("mixed: odd ahead, even behind", 7, "sync",
         ["sim.offset.1=3000000", "sim.offset.2=-5000000",
          "sim.offset.3=2000000", "sim.offset.4=-7000000",
          "sim.offset.5=1000", "sim.offset.6=-900"], mixed)
scenario("already in sync: the BSP and the AP pass leave it alone", 6,
         "sync", [], in_sync)
scenario("one dead AP: bounded, unmeasured, no writes", 6, "sync",
         ["sim.offset.0=-6815086010", "sim.dead=2"], dead)
scenario("an AP started late in the AP pass serves no other AP", 5, "sync",
         [f"sim.offset.{i}={-1000 * i * i - 5000}" for i in range(1, 5)]
         + ["sim.late=2@2"], late_in_ap_pass)
scenario("an AP beyond the forward cap is left alone", 5, "sync",
         ["sim.offset.3=-200000000000", "sim.offset.1=-4000"], beyond_cap)
scenario("measure mode with large offsets: no writes, bad", 6, "measure",
         ["sim.offset.0=-6815086010"], measure_large)
scenario("jitter of 20 cycles: every AP within reach by the truth, the "
         "caps hold", 8, "sync", E595 + ["sim.jitter=20"], jittered)
scenario("APs disagree besides the BSP lag: converged within the caps", 4,
         "sync", ["sim.offset.0=-6815086010", "sim.offset.1=2600",
                  "sim.offset.2=-450", "sim.offset.3=18000"], disagreeing)
scenario("writes landing 1000 cycles off: the caps hold, no false in-sync",
         4, "sync", ["sim.offset.0=-6815086010", "sim.jitter=1000"], noisy)
sys.exit(t.done())

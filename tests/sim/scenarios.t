#!/usr/bin/env python3
"""Host simulator scenarios: the real sync driver on this machine's cores with
virtual offsets.  Every assertion is on ground truth (sim_true_offset, the
exact residual), read through `tsctui report --json`, not on the driver's own
verdicts alone.  A scenario that fails is run again, up to three runs in all,
and says so; none is ever skipped.  (The simulator runs up to 32 threads on
this machine's two vCPUs, whose host cores read their TSCs ~90 cycles apart:
one run in five or so of the tight scenarios misses the bad limit by a few
cycles on a busy host.  A fault in the driver fails every run.)"""
import json
import os
import subprocess
import sys
import time

TSCTUI = os.environ.get("TSCTUI", "tui/tsctui")
n = 0
failed = 0


def simulate(cpus, mode, spec):
    t = time.monotonic()
    sim = subprocess.run([TSCTUI, "simulate", "--cpus", str(cpus), "--mode",
                          mode] + spec, capture_output=True, text=True,
                         timeout=120)
    took = time.monotonic() - t
    if sim.returncode != 0:
        raise AssertionError(f"simulate exited {sim.returncode}: {sim.stderr}")
    rep = subprocess.run([TSCTUI, "report", "--json", "--file", "-"],
                         input=sim.stdout, capture_output=True, text=True)
    if rep.returncode != 0:
        raise AssertionError(f"report exited {rep.returncode}: {rep.stderr}")
    return json.loads(rep.stdout), took


def limit(cpu):
    # An estimate cannot be truer than its round trip's asymmetry.
    return max(64, cpu["rtt"] // 2)


def converged(r):
    assert r["result"] in ("in-sync", "unsure"), r["result"]
    for c in r["cpus"]:
        assert abs(c["sim_true_offset"]) <= limit(c), \
            f"CPU {c['index']}: residual {c['sim_true_offset']} > {limit(c)}"
        assert c["warps_bsp"] == 0 and c["warps_ap"] == 0, c


def scenario(name, cpus, mode, spec, check):
    global n, failed
    for attempt in (1, 2, 3):
        try:
            r, took = simulate(cpus, mode, spec)
            check(r, took)
        except AssertionError as e:
            print(f"# {name}: attempt {attempt} failed: {e}")
            if attempt == 3:
                n += 1
                failed += 1
                print(f"not ok {n} - {name}")
            else:
                print(f"# {name}: running it again")
            continue
        n += 1
        worst = max((abs(c["sim_true_offset"]) for c in r["cpus"]), default=0)
        print(f"ok {n} - {name} (attempt {attempt}, result {r['result']}, "
              f"{r['msr_writes']} writes, worst residual {worst}, "
              f"{r['total_ms']:.1f} ms)")
        return


def e595(r, took):
    converged(r)
    assert r["result"] == "in-sync" or r["result"] == "unsure"
    assert abs(r["bsp_shift_cycles"] - 6815086010) < 2000, r["bsp_shift_cycles"]
    assert r["build"] == "sim" and r["mode"] == "sync"


def legion(r, took):
    converged(r)
    assert len(r["cpus"]) == 31
    assert abs(r["bsp_shift_cycles"] - 5690270744) < 2000


def aps_behind(r, took):
    converged(r)
    assert r["bsp_shift_cycles"] == 0, "the BSP must stay when every AP lags"
    assert all(c["writes"] >= 1 for c in r["cpus"])


def mixed(r, took):
    converged(r)
    # The furthest-ahead AP (CPU 1) is where the BSP goes.
    assert abs(r["bsp_shift_cycles"] - 3000000) < 2000, r["bsp_shift_cycles"]


def in_sync(r, took):
    # The BSP never moves and the AP pass leaves every AP alone.  This
    # host's own cores are not in sync (`tsctui check`: about 100 cycles
    # apart, against a handoff of about 170), so the kernel-style verify
    # may rightly call an AP bad and correct it: the zero-writes promise
    # is tested on the TSC rig (tests/rig/judge.t), whose counters are
    # equal, and in tests/unit/test_plan.c.
    # Nor is its result promised: those cores can make it out-of-sync.
    for c in r["cpus"]:
        assert abs(c["sim_true_offset"]) <= limit(c), c
    assert r["bsp_shift_cycles"] == 0
    assert r["phases_ms"]["ap_pass"] < 1.0, r["phases_ms"]


def dead(r, took):
    assert r["msr_writes"] == 0, "a silent AP must block every write"
    assert r["bsp_shift_cycles"] == 0
    c2 = [c for c in r["cpus"] if c["index"] == 2][0]
    assert c2["verdict"] == "unmeasured", c2
    assert "CPU 2 did not answer" in r["reason"], r["reason"]
    # One answer timeout (100 ms) per silent AP, plus the work.
    assert took < 2.0, f"took {took:.2f} s"
    for c in r["cpus"]:
        if c["index"] != 2:
            assert c["sim_true_offset"] == 6815086010


def beyond_cap(r, took):
    c3 = [c for c in r["cpus"] if c["index"] == 3][0]
    assert c3["sim_true_offset"] == -200000000000, "must be left alone"
    assert c3["writes"] == 0 and c3["verdict"] == "bad"
    assert c3["note"] == "beyond-cap", c3
    assert r["result"] == "out-of-sync"
    assert "further off than a write may move" in r["reason"]
    for c in r["cpus"]:
        if c["index"] != 3:
            assert abs(c["sim_true_offset"]) <= limit(c), c


def measure_large(r, took):
    assert r["msr_writes"] == 0 and r["bsp_shift_cycles"] == 0
    assert r["result"] == "out-of-sync"
    for c in r["cpus"]:
        assert c["verdict"] == "bad", c
        assert c["sim_true_offset"] == 6815086010
        assert c["writes"] == 0
        # The estimate is the truth within its round trip.
        assert abs(c["final_offset"] - 6815086010) <= limit(c), c


def late_in_ap_pass(r, took):
    # AP 2 answered the survey; MP services then started it too late in
    # the AP pass, while the BSP was already talking to AP 3.  It must not
    # serve AP 3's session: a write it carried out would land on its own
    # counter (the simulator applies a write to the thread that executes
    # it), so its residual must be exactly what it was.
    c2 = [c for c in r["cpus"] if c["index"] == 2][0]
    assert c2["sim_true_offset"] == -9000, c2
    assert c2["verdict"] == "unmeasured" and c2.get("note") == "no-answer", c2
    assert r["result"] != "in-sync", r["result"]
    for c in r["cpus"]:
        if c["index"] != 2:
            assert abs(c["sim_true_offset"]) <= limit(c), c
            assert c["writes"] >= 1, c


# Issue 25's write caps: at most 4 writes per AP, its first included, and
# 1 + 4 on the BSP, whatever the noise.
AP_WRITES_MAX = 4
BSP_WRITES_MAX = 5


def capped(r):
    for c in r["cpus"]:
        assert c["writes"] <= AP_WRITES_MAX, f"CPU {c['index']}: {c}"
    bsp = r["msr_writes"] - sum(c["writes"] for c in r["cpus"])
    assert bsp <= BSP_WRITES_MAX, f"{bsp} writes on the BSP"


def disagreeing(r, took):
    # The BSP lags and the APs also disagree among themselves: the AP
    # pass brings 2600 and 18000 in, the verify steers the rest.
    converged(r)
    capped(r)


def noisy(r, took):
    # Writes land up to 1000 cycles off: the stage cannot correct below
    # that, so it must stop within the caps and never call it in-sync
    # unless every AP really is within reach.
    capped(r)
    if r["result"] == "in-sync":
        for c in r["cpus"]:
            assert abs(c["sim_true_offset"]) <= limit(c), c


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
scenario("jitter of 20 cycles converges", 8, "sync",
         E595 + ["sim.jitter=20"], e595)
scenario("APs disagree besides the BSP lag: converged within the caps", 4,
         "sync", ["sim.offset.0=-6815086010", "sim.offset.1=2600",
                  "sim.offset.2=-450", "sim.offset.3=18000"], disagreeing)
scenario("writes landing 1000 cycles off: the caps hold, no false in-sync",
         4, "sync", ["sim.offset.0=-6815086010", "sim.jitter=1000"], noisy)
print(f"1..{n}")
sys.exit(1 if failed else 0)

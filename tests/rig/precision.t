#!/usr/bin/env python3
"""Precision a laptop's kernel accepts, by the rig's own truth (issue 25,
docs/DESIGN.md 11.2): three sync boots of the release stage with writes
that land like hardware's, judged by the oracle rather than by the
kernel, whose fastest handoff on the rig (127 to 410 cycles) cannot see a
residual of 38.

- E595 (4 vCPUs, BSP 6,815,086,010 behind) with writes landing 60 +- 10
  cycles after their RDTSC: in-sync, every AP within 20 cycles of the BSP
  by the oracle when the stage returns, at most 4 writes per AP (its first
  included) and 1 + 4 on the BSP.
- APs that also disagree among themselves (0=-6815086010, 1=2600,
  2=-450, 3=18000), writes at 20 +- 4: the same.
- E595 with TCG's own write timing (160 to 2200 cycles late, different
  every time): the same caps, and never worse by the oracle than after
  the BSP's first move.

In none may the stage say in-sync with an AP beyond 20 cycles.  Not in
`make check` until the stage converges (issue 25's algorithm side): this
file is made executable then."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import rig  # noqa: E402
from paths import BUILD  # noqa: E402
from tap import Tap  # noqa: E402

t = Tap()
rig.require()
print("1..13", flush=True)
WORK = os.path.join(BUILD, "rig-precision")
APP = r"fs0:\EFI\tsctui\tsctui.efi"
# Issue 25: every AP within 20 cycles; writes at most 4 per AP, its first
# included, and 1 + 4 on the BSP.
RESIDUAL = 20
AP_WRITES = 4
BSP_WRITES = 1 + 4


def boot(name, skew, env):
    b = rig.boot(WORK, name, [f"{APP} mode=sync"], skew=skew, env=env)
    r = b.reports[0] if len(b.reports) == 1 else None
    t.diag(f"{name}: {b.summary()}")
    if r:
        t.diag(f"  stage: {r['result']}, {r['msr_writes']} writes, " +
               ", ".join(f"cpu {c['apic_id']} {c['final_offset']:+d} "
                         f"{c['verdict']}" for c in r["cpus"]))
    t.diag(f"  oracle: after the stage {b.after_stage}, writes per vCPU "
           f"{b.oracle.writes_per_cpu()}, estimate errors "
           f"{b.estimate_errors()}")
    return b, r


def residuals(b):
    """|C(N)| per AP when the stage returned, by the oracle."""
    if b.after_stage is None:
        return None
    return {n: abs(c) for n, c in b.after_stage.items() if n != 0}


def within_caps(b):
    w = b.oracle.writes_per_cpu()
    return (w.get(0, 0) <= BSP_WRITES and
            all(v <= AP_WRITES for n, v in w.items() if n != 0)), w


def honest(b, r):
    """In-sync only when every AP is within RESIDUAL by the oracle."""
    res = residuals(b)
    return r is not None and res is not None and (
        r["result"] != "in-sync" or max(res.values()) <= RESIDUAL)


for name, skew, latency in (("E595", rig.E595, "60:10"),
                            ("AP disagreement", rig.AP_DISAGREE, "20:4")):
    b, r = boot(f"{name.split()[0].lower()}-{latency.replace(':', '-')}",
                skew, {rig.WRITE_LATENCY_ENV: latency})
    res = residuals(b)
    t.ok(r is not None and r["result"] == "in-sync",
         f"{name}, writes landing {latency}: the stage ends in-sync",
         r["result"] if r else "no report")
    t.ok(res is not None and max(res.values()) <= RESIDUAL,
         f"{name}, {latency}: every AP within {RESIDUAL} cycles of the BSP "
         "by the oracle", b.after_stage)
    ok, w = within_caps(b)
    t.ok(ok and r is not None and r["msr_writes"] == sum(w.values()),
         f"{name}, {latency}: at most {AP_WRITES} writes per AP and "
         f"{BSP_WRITES} on the BSP", w)
    t.ok(b.accepted, f"{name}, {latency}: the kernel keeps the TSC",
         b.summary())

b, r = boot("e595-tcg", rig.E595, {rig.TCG_WRITES_ENV: "1"})
ok, w = within_caps(b)
t.ok(ok and r is not None and r["msr_writes"] == sum(w.values()),
     f"E595, TCG's own write timing: at most {AP_WRITES} writes per AP and "
     f"{BSP_WRITES} on the BSP", w)
steps = b.oracle.after_each_write(rig.relative(rig.E595, 4))
first = next((k for k, e in enumerate(b.oracle.writes) if e[0] == 0), None)
worst_first = (max(abs(c) for n, c in steps[first].items() if n != 0)
               if first is not None else None)
res = residuals(b)
t.ok(worst_first is not None and res is not None and
     max(res.values()) <= worst_first,
     "E595, TCG's own write timing: never worse by the oracle than after "
     "the BSP's first move",
     f"worst after the first move {worst_first}, at the end "
     f"{max(res.values()) if res else None}")
t.ok(honest(b, r), f"E595, TCG's own write timing: in-sync only with every "
     f"AP within {RESIDUAL} by the oracle",
     f"{r['result'] if r else None}, {b.after_stage}")
t.ok(r is not None and (r["result"] != "in-sync" or b.accepted),
     "E595, TCG's own write timing: never in-sync for a boot the kernel "
     "rejects", b.summary())
t.ok(b.after_stage is not None and b.in_linux == b.after_stage,
     "E595, TCG's own write timing: nothing moves a counter between the "
     "stage and Linux", f"{b.after_stage} / {b.in_linux}")
sys.exit(1 if t.failed else 0)

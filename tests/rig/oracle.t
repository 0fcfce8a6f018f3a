#!/usr/bin/env python3
"""The rig's own truth (docs/DESIGN.md 11.2): QEMU prints every vCPU's
counter offset against vCPU 0 on its standard error when the guest reads
the oracle's port, at every guest reset, on every path that ends the VM,
and at every write to MSR 0x10.  Each test checks it against a truth known
in advance: the fault the rig applies at reset (the APs disagreeing among
themselves besides the BSP's lag), the write lines replayed from that
fault, and a write latency whose jitter the seed fixes.  Also: a malformed
rig variable stops QEMU before it starts, with one line.  The oracle read
from Linux (/dev/port) and QEMU's lines on SIGTERM are checked, exactly,
in judge.t's measure boot, which has Linux up anyway (this file's boot of
its own for them went)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import qemu  # noqa: E402
import rig  # noqa: E402
from paths import BUILD  # noqa: E402
from tap import Tap  # noqa: E402

rig.require()
t = Tap(plan=18)
WORK = os.path.join(BUILD, "rig-oracle")
APP = r"fs0:\EFI\tsctui\tsctui.efi"
FAULT = rig.relative(rig.AP_DISAGREE, 4)


def refused(env):
    """QEMU's answer to env: (exit code, its standard error)."""
    r = subprocess.run([rig.QEMU, "-version"], capture_output=True,
                       text=True, env=dict(os.environ, **env))
    return r.returncode, r.stderr


# ---- bad input: one line, QEMU does not start ------------------------------
BAD = [
    ({rig.WRITE_LATENCY_ENV: "60"}, "no jitter"),
    ({rig.WRITE_LATENCY_ENV: "20:30"}, "jitter beyond the latency"),
    ({rig.WRITE_LATENCY_ENV: "0=20:4,1=60"}, "a per-vCPU entry cut short"),
    ({rig.WRITE_LATENCY_ENV: "0=20:4,"}, "a trailing comma"),
    ({rig.WRITE_LATENCY_ENV: "-20:4"}, "a negative latency"),
    ({rig.SEED_ENV: "0x10"}, "a seed not in decimal"),
    ({rig.TCG_WRITES_ENV: "yes"}, "TCG_WRITES neither 0 nor 1"),
    ({rig.SKEW_ENV: "0=-68x"}, "a skew that is not a number"),
    ({rig.TSC_RATE_ENV: "100"}, "a rate fault without its time"),
    ({rig.HPET_RATE_ENV: "100@ports"}, "a rate fault's start neither a "
     "time nor the port"),
]
bad = []
for env, why in BAD:
    rc, err = refused(env)
    name = next(iter(env))
    if not (rc == 1 and err.count("\n") == 1 and name in err):
        bad.append(f"{why}: rc {rc}, {err!r}")
t.ok(not bad, "a malformed rig variable: QEMU refuses to start, one line "
     "naming it", "; ".join(bad))
good = []
for env in ({rig.WRITE_LATENCY_ENV: "20:4"},
            {rig.WRITE_LATENCY_ENV: "0=150:30,3=20:0", rig.SEED_ENV: "7"},
            {rig.TCG_WRITES_ENV: "1", rig.SKEW_ENV: rig.skew_spec(
                rig.AP_DISAGREE)}, {rig.SKEW_ENV: ""},
            {rig.TSC_RATE_ENV: f"-1500@{rig.FAULT_ON_PORT}",
             rig.HPET_RATE_ENV: "1500@24.5"}):
    rc, err = refused(env)
    if rc != 0 or err:
        good.append(f"{env}: rc {rc}, {err!r}")
t.ok(not good, "well-formed rig variables (and an empty skew) are taken",
     "; ".join(good))


# Issue 25's write caps: at most 4 writes an AP, its first included, and
# 1 + 4 on the BSP, in every sync run, whatever the writes' landing.  The
# stage's code enforces them; each sync boot below is checked against the
# oracle's write lines (the boots this file makes anyway).
BSP_CAP, AP_CAP = 1 + 4, 4
over_caps = []


def capped(name, b):
    w = b.oracle.writes_per_cpu()
    if not (w.get(0, 0) <= BSP_CAP and
            all(v <= AP_CAP for n, v in w.items() if n != 0)):
        over_caps.append((name, w))


def show(b):
    t.diag(f"{b.res.seconds:.0f} s; oracle events: " + "; ".join(
        f"{e[1]} {e[2]}" if e[0] == "oracle" else f"write cpu {e[1]} -> "
        f"{e[3]}" for e in b.oracle.events))


# ---- a sync run, a guest reset, a power-off --------------------------------
# The Shell reads the truth, runs a sync, reads it again and resets; the
# firmware starts again (the fault applied anew), the Shell reads the
# truth once more and powers off (the port line rig.boot appends is never
# reached).
b = rig.boot(WORK, "reset", [
    rig.ORACLE_SHELL,
    r"if exist fs0:\second then",
    r"  reset -s",
    r"endif",
    r"echo x > fs0:\second",
    f"{APP} mode=sync",
    rig.ORACLE_SHELL,
    "reset"], skew=rig.AP_DISAGREE, linux=False, reboot=True, until=None,
    timeout=240)
show(b)
capped("APs apart, exact landing", b)
ports = b.oracle.groups("port")
resets = b.oracle.groups("reset")
exits = b.oracle.groups("exit")
t.ok(len(ports) == 3 and ports[0] == FAULT,
     "before the stage, the oracle's port gives the fault the rig applied: "
     f"{FAULT}", ports)
writes = b.oracle.writes
replayed = b.oracle.after_each_write(FAULT)
t.ok(len(ports) == 3 and writes and replayed and replayed[-1] == ports[1],
     "the sync's write lines, replayed from the fault, end where the port "
     "read after the stage says", f"{len(writes)} writes, replayed to "
     f"{replayed[-1] if replayed else None}, port {ports[1:2]}")
t.ok(len(ports) == 3 and resets == [ports[1]],
     "the guest's reset prints the counters as the guest left them, once",
     resets)
t.ok(len(ports) == 3 and ports[2] == FAULT,
     "after the reset the firmware's fault is back: the port reads it",
     ports[2:])
t.ok(len(ports) == 3 and exits == [FAULT] and b.res.exit_code == 0 and
     not b.res.timed_out,
     "the guest's power-off ends QEMU and prints the counters once more",
     f"exits {exits}, exit code {b.res.exit_code}")

# ---- a reset with -no-reboot ends the VM -----------------------------------
b = rig.boot(WORK, "noreboot", ["reset"], skew=rig.AP_DISAGREE, linux=False,
             until=None, timeout=120)
show(b)
t.ok(b.oracle.groups("exit") == [FAULT] and not b.oracle.groups("reset")
     and b.res.exit_code == 0 and not b.res.timed_out,
     "a guest reset under -no-reboot ends QEMU with the oracle's lines",
     b.oracle.events)

# ---- Ctrl-C (SIGINT) --------------------------------------------------------
b = rig.boot(WORK, "sigint", [rig.ORACLE_SHELL, "echo tsc-rig-stalling",
                              "stall 60000000"], skew=rig.AP_DISAGREE,
             linux=False, until=b"tsc-rig-stalling",
             stop_signal=qemu.signal.SIGINT, timeout=120)
show(b)
t.ok(b.oracle.groups("port") == [FAULT] and
     b.oracle.groups("exit") == [FAULT] and not b.res.timed_out,
     "SIGINT ends QEMU with the oracle's lines", b.oracle.events)

# ---- when a write lands -----------------------------------------------------
def draw(seed, cpu, jitter):
    """The rig's first jitter for that vCPU and seed (its splitmix64
    stream, include/qemu/tsc-rig.h)."""
    m = (1 << 64) - 1
    z = ((seed ^ (cpu * 0xd1342543de82ef95)) + 0x9e3779b97f4a7c15) & m
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & m
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & m
    z ^= z >> 31
    return z % (2 * jitter + 1) - jitter


def first_move(env):
    """A sync run in the Shell with the E595's fault: every AP's offset
    after the BSP's first write, by the oracle."""
    b = rig.boot(WORK, "latency", [f"{APP} mode=sync"], skew=rig.E595,
                 linux=False, until=None, timeout=120,
                 env=env)
    show(b)
    capped(f"E595, {env or 'exact landing'}", b)
    after = b.oracle.after_each_write(rig.relative(rig.E595, 4))
    first = [n for n, e in enumerate(b.oracle.writes) if e[0] == 0]
    return (after[first[0]] if first else None), b


# The BSP's move is aimed by the survey's estimate (off by a few hundred
# cycles at most here); a write landing L cycles late leaves the BSP L
# behind, so every AP reads about +L after it.
SLACK = 3000
L, J, SEED = 100000, 40000, 11
j = draw(SEED, 0, J)
after, b = first_move({rig.WRITE_LATENCY_ENV: f"0={L}:0"})
t.ok(after is not None and all(abs(after[n] - L) < SLACK for n in (1, 2, 3)),
     f"a write landing {L} cycles after its RDTSC (vCPU 0 only) leaves every "
     f"AP about {L} ahead after the BSP's move", after)
after, b = first_move({rig.WRITE_LATENCY_ENV: f"0={L}:{J}",
                       rig.SEED_ENV: str(SEED)})
t.ok(after is not None and
     all(abs(after[n] - (L + j)) < SLACK for n in (1, 2, 3)),
     f"with jitter {J} and seed {SEED}, the first write lands {L + j} late, "
     "as that seed's first draw says (a boot can be replayed)", after)
after, b = first_move({rig.WRITE_LATENCY_ENV: f"0={L}:{J}",
                       rig.SEED_ENV: str(SEED), rig.TCG_WRITES_ENV: "1"})
t.ok(after is not None and all(abs(after[n]) < 30000 for n in (1, 2, 3)),
     "TSCTUI_RIG_TCG_WRITES=1 wins over the latency: TCG's own timing",
     after)
# "Never worse than after the BSP's first move" under TCG's timing is
# tests/bench/precision's (make bench), not this file's: a fresh-clone CI
# run caught the stage breaking it (first move 220 late, its fine write
# 798: the blind fine write is not stopped by the landing rule), a stage
# bug open in issue 25.
after, b = first_move({})
t.ok(after is not None and all(abs(after[n]) < SLACK for n in (1, 2, 3)),
     "unset, a write lands at its RDTSC, as before", after)

# ---- the oracle's lines and the stage's report agree on who was written -----
r = b.reports[0] if b.reports else None
per_cpu = b.oracle.writes_per_cpu()
t.ok(r is not None and sum(per_cpu.values()) == r["msr_writes"],
     "every write the stage counts has its line on QEMU's standard error",
     f"oracle {per_cpu}, report {r['msr_writes'] if r else None}")
t.ok(r is not None and all(per_cpu.get(c["apic_id"], 0) == c["writes"]
                           for c in r["cpus"]),
     "per AP, as many write lines as the report's writes",
     f"oracle {per_cpu}, report "
     f"{[(c['apic_id'], c['writes']) for c in r['cpus']] if r else None}")
t.ok(b.after_stage is not None and b.oracle.groups("exit") and
     b.oracle.groups("exit")[-1] == b.after_stage,
     "nothing moves a counter between the stage's return and the end",
     f"{b.after_stage} / {b.oracle.groups('exit')}")
t.ok(b.after_stage is not None and
     b.after_stage == b.oracle.after_each_write(
         rig.relative(rig.E595, 4))[-1],
     "the E595 fault and the write lines give the port's truth after the "
     "stage", b.after_stage)
t.ok(not over_caps,
     f"every sync run of this file within the write caps ({AP_CAP} an AP, "
     f"{BSP_CAP} on the BSP), by the oracle's write lines, whatever the "
     "landing", over_caps)
sys.exit(1 if t.failed else 0)

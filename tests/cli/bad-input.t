#!/usr/bin/env python3
"""Every bad input, for every subcommand and the dashboard: exit 2, exactly
one line on stderr, nothing on stdout, and not one byte changed in the
fixture root or the input files (ARCHITECTURE 4.3: "2 usage or input
error with a one-line message on stderr").  The classes: an unknown
option, an option without its value, an extra positional word, a --root
that is missing, a file, a FIFO or empty, a --kernel-log that is missing,
empty, a directory, a device, a FIFO (a hang fails: every run has a
timeout), over the size limit or holding no kernel message, options that
conflict, options that do not apply to the subcommand, and numbers and
SPEC tokens out of range."""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI  # noqa: E402
WORK = os.path.join(BUILD, "cli-bad-input")
t = Tap()
if os.path.exists(WORK):
    shutil.rmtree(WORK)
ROOT = fx.debian_grub(os.path.join(WORK, "root"))
IN = os.path.join(WORK, "inputs")
os.makedirs(IN)
KLOG = os.path.join(TOP, "tests", "fixtures", "kernlog",
                    "healthy-synced.dmesg")
REPORT = os.path.join(TOP, "tests", "fixtures", "report", "full.report")
PLAIN = os.path.join(IN, "plain.txt")
with open(PLAIN, "w") as f:
    f.write("just some text\nno kernel here\n")
EMPTY = os.path.join(IN, "empty.log")
open(EMPTY, "w").close()
FIFO = os.path.join(IN, "fifo")
os.mkfifo(FIFO)
# Over the 64 MiB limit, sparse: its size is all that is read.
BIG_DIR = os.path.join(WORK, "big")
os.makedirs(BIG_DIR)
BIG = os.path.join(BIG_DIR, "huge.log")
with open(BIG, "wb") as f:
    f.write(open(KLOG, "rb").read())
    f.truncate((64 << 20) + 1)
GOOD_SPEC = "sim.offset.1=-5000"

# Each command with arguments that are good on their own: the bad input
# added is the only fault.  None: the dashboard.
COMMANDS = {
    "status": ["status"],
    "report": ["report", "--file", REPORT],
    "check": ["check"],
    "bench": ["bench"],
    "history": ["history"],
    "simulate": ["simulate", "--cpus", "2"],
    "install": ["install", "--loader", "grub"],
    "uninstall": ["uninstall"],
    "mode": ["mode", "measure"],
    "guard": ["guard", "reset"],
    "boot-ok": ["boot-ok"],
    "kernel-arg": ["kernel-arg", "nowatchdog", "on"],
    "dashboard": [],
}
# Which global options each one uses (the rest are refused).
USES_ROOT = set(COMMANDS) - {"simulate"}
USES_KLOG = {"status", "check", "dashboard"}
USES_SIM = {"check", "dashboard"}
USES_JSON = set(COMMANDS) - {"simulate", "dashboard"}


def cases(name, base):
    """(class, argv) of every bad input for one command."""
    root = [] if name == "simulate" else ["--root", ROOT]
    klog = ["--kernel-log", KLOG] if name in USES_KLOG else []
    good = root + klog + base
    out = [("unknown option", good + ["--no-such-option"]),
           ("unknown short option", good + ["-q"]),
           ("missing value: --root", base + ["--root"]),
           ("missing value: --kernel-log", root + base + ["--kernel-log"]),
           ("missing value: --simulate", root + base + ["--simulate"]),
           ("a value for a flag", good + ["--reference=yes"
                                          if name == "simulate"
                                          else "--json=yes"]),
           ("given twice: --root", ["--root", ROOT] + good)]
    if name != "simulate":
        out.append(("extra positional", good + ["extra"]))
    for kind, val in [("missing", os.path.join(WORK, "no-such-dir")),
                      ("a regular file", PLAIN), ("a FIFO", FIFO),
                      ("empty", "")]:
        out.append((f"--root {kind}", ["--root", val] + klog + base))
        out.append((f"--root={kind}", [f"--root={val}"] + klog + base))
    for kind, val in [("missing", os.path.join(IN, "no-such.log")),
                      ("empty string", ""), ("empty file", EMPTY),
                      ("a directory", IN), ("a device", "/dev/null"),
                      ("a FIFO", FIFO), ("over 64 MiB", BIG),
                      ("without kernel messages", PLAIN)]:
        out.append((f"--kernel-log {kind}",
                    root + ["--kernel-log", val] + base))
    for kind, val in [("empty", ""), ("unknown token", "sim.offest.1=5"),
                      ("a stage token", "mode=sync"),
                      ("offset past 2^59", "sim.offset.1=576460752303423489"),
                      ("offset -2^63", "sim.offset.1=-9223372036854775808"),
                      ("jitter out of range", "sim.jitter=1000001"),
                      ("CPU out of range", "sim.dead=100000")]:
        out.append((f"--simulate {kind}", root + klog + ["--simulate", val]
                    + base))
    # Global options the command does not use.
    if name not in USES_KLOG:
        out.append(("--kernel-log does not apply",
                    root + ["--kernel-log", KLOG] + base))
    if name not in USES_SIM:
        out.append(("--simulate does not apply",
                    root + ["--simulate", GOOD_SPEC] + base))
    if name not in USES_JSON:
        out.append(("--json does not apply", good + ["--json"]))
    if name not in USES_ROOT:
        out.append(("--root does not apply", ["--root", ROOT] + base))
    return out


# Per command: conflicts, options that belong elsewhere, numbers.
EXTRA = {
    "status": [("conflict", ["--json", "--prometheus"]),
               ("conflict, global --json", ["--prometheus", "--json"]),
               ("not for status", ["--samples", "2"]),
               ("not for status", ["--dry-run"])],
    "report": [("not for report", ["--prometheus"]),
               ("extra after --all", ["--all", "x"])],
    "check": [("conflict", ["--json", "--prometheus"]),
              ("conflict, global --json", ["--prometheus", "--json"]),
              ("not for check", ["--all"]),
              ("--samples 0", ["--samples", "0"]),
              ("--samples past 10^6", ["--samples", "1000001"]),
              ("--samples huge", ["--samples", "99999999999999999999999"]),
              ("--samples negative", ["--samples", "-1"]),
              ("--samples not a number", ["--samples", "2x"]),
              ("--samples empty", ["--samples", ""]),
              ("--interval negative", ["--interval", "-1"]),
              ("--interval past a day", ["--interval", "86401"]),
              ("--interval nan", ["--interval", "nan"]),
              ("--interval inf", ["--interval", "inf"]),
              ("--interval hex", ["--interval", "0x10"]),
              ("--interval empty", ["--interval", ""]),
              ("missing value: --samples", ["--samples"]),
              ("missing value: --interval", ["--interval"])],
    "bench": [("not for bench", ["--prometheus"]),
              ("not for bench", ["--samples", "2"])],
    "history": [("not for history", ["--all"]),
                ("not for history", ["--prometheus"])],
    "simulate": [("--cpus 0", ["--cpus", "0"]),
                 ("--cpus past 256", ["--cpus", "257"]),
                 ("--cpus not a number", ["--cpus", "two"]),
                 ("--seed not a number", ["--seed", "x"]),
                 ("--seed negative", ["--seed", "-1"]),
                 ("--seed past 2^64", ["--seed", "18446744073709551616"]),
                 ("--mode off", ["--mode", "off"]),
                 ("--mode unknown", ["--mode", "fast"]),
                 ("missing value: --mode", ["--mode"]),
                 ("missing value: --seed", ["--seed"]),
                 ("not for simulate", ["--json"]),
                 ("not for simulate", ["--samples", "2"]),
                 ("SPEC unknown token", ["sim.offest.1=5"]),
                 ("SPEC stage token", ["mode=sync"]),
                 ("SPEC offset past 2^59", ["sim.offset.1=576460752303423489"]),
                 ("SPEC offset -2^59-1", ["sim.offset.1=-576460752303423489"]),
                 ("SPEC offset 2^63-1", ["sim.offset.1=9223372036854775807"]),
                 ("SPEC offset -2^63", ["sim.offset.1=-9223372036854775808"]),
                 ("SPEC offset past 2^64", ["sim.offset.1=99999999999999999999"]),
                 ("SPEC offset not a number", ["sim.offset.1=x"]),
                 ("SPEC CPU beyond --cpus", ["sim.offset.2=100"]),
                 ("SPEC dead beyond --cpus", ["sim.dead=5"]),
                 ("SPEC dead BSP", ["sim.dead=0"]),
                 ("SPEC jitter out of range", ["sim.jitter=1000001"]),
                 ("SPEC one bad among good", ["sim.offset.1=5,sim.bogus=1"]),
                 ("SPEC sim.hang (UEFI only)", ["sim.hang=1"])],
    "install": [("--key without --cert", ["--key", PLAIN]),
                ("not for install", ["--purge"]),
                ("missing value: --loader", ["--loader"]),
                ("missing value: --esp", ["--esp"])],
    "uninstall": [("not for uninstall", ["--loader", "grub"])],
    "mode": [("unknown mode", None, ["mode", "fast"]),
             ("no mode", None, ["mode"]),
             ("two modes", None, ["mode", "measure", "sync"]),
             ("not for mode", ["--purge"])],
    "guard": [("unknown word", None, ["guard", "clear"]),
              ("no word", None, ["guard"]),
              ("--mode for status", None, ["guard", "status", "--mode",
                                           "sync"]),
              ("--dry-run for status", None, ["guard", "status",
                                              "--dry-run"]),
              ("missing value: --mode", ["--mode"]),
              ("not for guard", ["--purge"])],
    "boot-ok": [("not for boot-ok", ["--purge"])],
    "kernel-arg": [("unknown argument", None, ["kernel-arg", "watchdog",
                                               "on"]),
                   ("unknown state", None, ["kernel-arg", "nowatchdog",
                                            "maybe"]),
                   ("no state", None, ["kernel-arg", "nowatchdog"]),
                   ("not for kernel-arg", ["--purge"])],
    "dashboard": [("unknown command", None, ["dashbord"]),
                  ("empty command", None, [""])],
}


def signature():
    return (fx.tree_digest(ROOT), fx.tree_digest(IN),
            os.stat(BIG).st_size, os.stat(BIG).st_mtime_ns)


def run(argv):
    try:
        r = subprocess.run([TSCTUI] + argv, capture_output=True,
                           timeout=20, stdin=subprocess.DEVNULL, cwd=WORK,
                           env={**os.environ, "TERM": "dumb"})
    except subprocess.TimeoutExpired:
        return None
    return r


before = signature()
for name, base in COMMANDS.items():
    all_cases = cases(name, base)
    root = [] if name == "simulate" else ["--root", ROOT]
    klog = ["--kernel-log", KLOG] if name in USES_KLOG else []
    for c in EXTRA.get(name, []):
        if len(c) == 3:
            all_cases.append((c[0], root + klog + c[2]))
        else:
            all_cases.append((c[0], root + klog + base + c[1]))
    for what, argv in all_cases:
        r = run(argv)
        label = f"{name}: {what}"
        if r is None:
            t.ok(False, f"{label}: exit 2 without hanging",
                 f"argv: {argv}\nstill running after 20 s")
            continue
        err = r.stderr.decode(errors="replace")
        lines = err.splitlines()
        after = signature()
        t.ok(r.returncode == 2 and len(lines) == 1 and err.endswith("\n")
             and err.startswith("tsctui: ") and r.stdout == b"" and
             after == before,
             f"{label}: exit 2, one line, nothing changed",
             f"argv: {argv}\nexit {r.returncode}\nstderr: {err!r}\n"
             f"stdout: {r.stdout[:300]!r}\n"
             f"tree changed: {after != before}")
        before = after

sys.exit(t.done())

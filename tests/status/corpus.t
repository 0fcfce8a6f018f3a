#!/usr/bin/env python3
"""tsctui status on real kernel logs people posted in public bug reports
and forum threads (tests/fixtures/kernlog/real/, each line verbatim, the
sources in its README): for each log, the events parsed, in order, with the
fields that matter, and the diagnosis (code, recommendations, whether a
virtual machine and on what evidence).  The machine around each log is what
its report says (bare metal or a guest, the CPU vendor, the clocksource
where the report gives it); a "rescue" root has no cpuinfo and no sysfs, so
that the log alone has to tell."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI  # noqa: E402
REAL = os.path.join(TOP, "tests", "fixtures", "kernlog", "real")
WORK = os.path.join(BUILD, "corpus-tests")
t = Tap()
os.makedirs(WORK, exist_ok=True)
NO_VENDOR = ("processor\t: 0\nmodel name\t: unknown\n"
             "flags\t\t: fpu tsc constant_tsc nonstop_tsc\n\n")


def machine(name, spec):
    root = os.path.join(WORK, name)
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    if spec.get("rescue"):
        return root
    cpuinfo = {"amd": fx.CPUINFO_AMD, "intel": fx.CPUINFO_INTEL}.get(
        spec.get("cpu"), NO_VENDOR)
    if spec.get("hypervisor"):
        cpuinfo = cpuinfo.replace("nonstop_tsc", "nonstop_tsc hypervisor")
    fx.write(root, "/proc/cpuinfo", cpuinfo)
    fx.write(root, "/proc/cmdline", "root=UUID=0f ro quiet\n")
    cs = "/sys/devices/system/clocksource/clocksource0/"
    if spec.get("current"):
        fx.write(root, cs + "current_clocksource", spec["current"] + "\n")
        fx.write(root, cs + "available_clocksource",
                 spec.get("available", spec["current"]) + " \n")
    return root


def mismatch(got, want):
    """What differs between an event and the fields it must have."""
    return {k: (got.get(k, "<absent>"), v) for k, v in want.items()
            if got.get(k, "<absent>") != v}


with open(os.path.join(REAL, "expected.json")) as f:
    expected = json.load(f)
logs = sorted(n for n in os.listdir(REAL)
              if n not in ("README", "expected.json"))
t.ok(len(logs) >= 20 and sorted(expected) == logs,
     f"{len(logs)} real logs, each with its expectations", logs)
with open(os.path.join(REAL, "README")) as f:
    readme = f.read()
t.ok(all(f"{n}\n" in readme or f"{n}:" in readme or f"{n} " in readme
         for n in logs),
     "the README names every log's source", readme[:300])

for name in logs:
    want = expected[name]
    root = machine(name, want["root"])
    r = subprocess.run([TSCTUI, "--root", root, "status", "--json",
                        "--kernel-log", os.path.join(REAL, name)],
                       capture_output=True, text=True)
    try:
        out = json.loads(r.stdout)
    except ValueError:
        t.ok(False, f"{name}: status --json", r.stdout + r.stderr)
        continue
    ev = out["kernel"]["events"]
    kinds = [e["kind"] for e in ev]
    diffs = [mismatch(e, w[1]) for e, w in zip(ev, want["events"])]
    t.ok(kinds == [w[0] for w in want["events"]] and not any(diffs),
         f"{name}: events {kinds}", {"got": ev, "diffs": diffs})
    d = out["diagnosis"]
    ok = (d["code"] == want["code"] and d["recommendations"] == want["recs"]
          and out["virtual_machine"] == want["vm"]
          and (r.returncode == 1) == (want["code"] in ("watchdog-skew",
                                                       "boot-warp")))
    ok = ok and all(s in d["summary"] for s in want.get("summary", []))
    ok = ok and not any(s in d["summary"]
                        for s in want.get("not_summary", []))
    if "evidence" in want:
        ok = ok and out["virtual_machine_evidence"] == want["evidence"]
    if "tsc_mhz" in want:
        ok = ok and out["kernel"]["tsc_mhz"] == want["tsc_mhz"]
    if "verdict" in want:
        ok = ok and out["kernel"]["verdict"] == want["verdict"]
    # add-nowatchdog only where a bad reference explains the skew
    if "add-nowatchdog" in d["recommendations"]:
        ok = ok and d["recommendations"][0] == "measure-rate"
    t.ok(ok, f"{name}: {d['code']}, {d['recommendations']}",
         {"rc": r.returncode, "vm": out["virtual_machine"],
          "evidence": out["virtual_machine_evidence"], "diagnosis": d,
          "verdict": out["kernel"]["verdict"]})

sys.exit(t.done())

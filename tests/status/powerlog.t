#!/usr/bin/env python3
"""A runtime watchdog drop set beside this boot's changes of power source
(the Framework 13/16 AMD laptops' fault, issue 28 item 5).  No program
logs such a change by default (docs/DESIGN.md 9.2), so status reads
upower's history of the system battery (kept by default wherever upowerd
runs) and the opt-in lines of TLP (TLP_DEBUG=run) and upowerd -v, each a
wall-clock time put on the kernel log's clock through this boot's kernel lines in
the journal (tests/lib/powerfix.py: an s2idle sleep the kernel's clock
runs through, a deep one it does not, and the late lines each sleep
began with).  A mouse's history, in the same directory, is not the
system battery's and is never read."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import powerfix as pf  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TSCTUI  # noqa: E402
WORK = os.path.join(BUILD, "status-powerlog")
t = Tap()
if os.path.exists(WORK):
    shutil.rmtree(WORK)


def machine(name, **kw):
    return pf.machine(WORK, name, **kw)


def status(root, log):
    r = subprocess.run([TSCTUI, "--root", root, "status", "--json",
                        "--kernel-log", log], capture_output=True, text=True)
    try:
        return json.loads(r.stdout), r.stderr
    except ValueError:
        return {}, r.stdout + r.stderr


def transitions(out):
    return [(x["kind"], x["time"], x.get("what"))
            for x in out.get("kernel", {}).get("power_transitions", [])]


def summary(out):
    return out.get("diagnosis", {}).get("summary", "")


# ---- upower's history, mapped through both sleeps -----------------------
out, err = status(*machine("upower"))
t.ok(transitions(out) == [
    ("to-mains", 200.0, "upower's history"),
    ("suspend-entry", 250.0, "s2idle"), ("suspend-exit", 3851.0, None),
    ("to-battery", 3851.0, "upower's history"),
    ("suspend-entry", 4000.0, "deep"), ("suspend-exit", 4000.6, None),
    ("to-mains", 4001.0, "upower's history"),
    ("to-battery", 4060.0, "upower's history"),
    ("to-mains", 4090.0, "upower's history")],
     "upower's history on the kernel's clock: through an s2idle sleep "
     "(one clock), a deep one (the other), and a sleep's late first line; "
     "in order with the suspends; one change seen by two files once; none "
     "after the drop; the mouse's never", json.dumps(transitions(out)) + err)
t.ok("It came 10.0 s after a change to mains power (upower's history)"
     in summary(out) and "Framework 13/16" in summary(out),
     "the diagnosis names the change of power source before the drop",
     summary(out))

# ---- no system battery, only a mouse's: the wake is what came last -------
out, err = status(*machine("mouse-only", upower=False, battery=False))
t.ok([k for k, _, _ in transitions(out)] == ["suspend-entry", "suspend-exit",
                                              "suspend-entry", "suspend-exit"]
     and "99.4 s after a suspend-exit" in summary(out)
     and "change to" not in summary(out),
     "a mouse charged 2 s before the drop is not a change of power source",
     json.dumps(transitions(out)) + summary(out))

# ---- TLP's lines (TLP_DEBUG=run): a state each run, a change when it moves
out, err = status(*machine("tlp", upower=False, tlp=[
    (100, "power_source=ac(mains)"), (4095, "power_source=bat(no mains)"),
    (4096, "power_source=bat(no mains)"), (4110, "power_source=ac(mains)")]))
t.ok([x for x in transitions(out) if x[0].startswith("to-")] ==
     [("to-battery", 4095.0, "TLP")] and
     "It came 5.0 s after a change to battery power (TLP)" in summary(out),
     "TLP's runs: the first a state, a repeat no change, another boot's "
     "never, on the kernel's clock (not the journal's monotonic one, "
     "which stopped in s2idle)", json.dumps(transitions(out)) + summary(out))

# ---- upowerd -v -----------------------------------------------------------
out, err = status(*machine("upowerd", upower=False, upowerd=[
    (240, "(upowerd:812): UPower-DEBUG: 12:00:00.000: on_battery = no"),
    (4080, "(upowerd:812): UPower-DEBUG: 13:00:30.000: on_battery = yes")]))
t.ok(("to-battery", 4080.0, "upowerd") in transitions(out) and
     "20.0 s after a change to battery power (upowerd)" in summary(out),
     "upowerd -v's on_battery lines", json.dumps(transitions(out)))

# ---- nothing names this boot: nothing is read ----------------------------
out, err = status(*machine("no-boot-id", boot_id=False))
t.ok([k for k, _, _ in transitions(out)] == ["suspend-entry", "suspend-exit",
                                              "suspend-entry", "suspend-exit"]
     and "change to" not in summary(out),
     "without the root's boot_id no history or journal line is this boot's",
     json.dumps(transitions(out)))
out, err = status(*machine("no-journal", journal=False))
t.ok(not [x for x in transitions(out) if x[0].startswith("to-")],
     "without this boot's journal upower's wall-clock times cannot be put "
     "on the kernel's clock: left out", json.dumps(transitions(out)))

# ---- the upower directory is the root's own -------------------------------
root, log = machine("hostile", upower=False)
outside = os.path.join(WORK, "outside-upower")
os.makedirs(outside)
with open(os.path.join(outside, "history-rate-FRANGWAT01-1.dat"), "w") as f:
    f.write(pf.history([(4080, 9.0, "discharging"),
                        (4099, 20.0, "charging")]))
shutil.rmtree(os.path.join(root, "var/lib/upower"))
os.symlink(outside, os.path.join(root, "var/lib/upower"))
out, err = status(root, log)
t.ok("change to" not in summary(out) and out.get("diagnosis"),
     "a link from the root's /var/lib/upower to a directory outside it is "
     "not followed out", json.dumps(transitions(out)) + err)
sys.exit(t.done())

#!/usr/bin/env python3
"""The fleet rule of docs/tsctui-alerts.yml (NodeClocksourceTscLost), for
nodes that run node_exporter but not always tsctui, under `promtool test
rules`.  Its input is what the real Debian node_exporter's time collector
serves for fixture sysfs trees (--path.sysfs), one per state a node's
clocksource directory can be in: a boot-time warp (the kernel never
registered tsc: neither current nor available), a runtime watchdog drop
(tsc current, then gone), a clock chosen by hand while tsc is offered, a
healthy node, guests on kvm-clock and on Hyper-V's clock, and a guest that
left tsc.  One warped node also exports tsctui's metrics (the real
`status --prometheus` of a fixture root), which the rule's tsctui label
must say.  A rule that asks only "is tsc offered" (what the kernel hides
after a drop) is run through the same tests and must fail them."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import prom  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP  # noqa: E402
RULES = os.path.join(TOP, "docs", "tsctui-alerts.yml")
EXPORTER = "/usr/bin/prometheus-node-exporter"
ALERT = "NodeClocksourceTscLost"
WORK = os.path.join(BUILD, "prometheus-fleet")
# A day and two hours of one-minute samples: long enough to see the
# one-day window of "offered tsc within the last day" close.
MINUTES = 26 * 60
# The nodes that change: on their first state until this minute.
CHANGE = 60

t = Tap()
if os.path.exists(WORK):
    shutil.rmtree(WORK)
os.makedirs(WORK)

r = subprocess.run(["promtool", "check", "rules", RULES], capture_output=True,
                   text=True)
t.ok(r.returncode == 0 and "SUCCESS: 7 rules found" in r.stdout,
     "promtool check rules: 7 rules (the fleet group's record and alert "
     "among them)", r.stdout + r.stderr)
with open(RULES) as f:
    groups = yaml.safe_load(f)["groups"]
rule = next(x for g in groups for x in g["rules"] if x.get("alert") == ALERT)


def node_exporter_time(current, available):
    """What node_exporter's time collector serves for a clocksource
    directory holding these two files."""
    sysfs = tempfile.mkdtemp(dir=WORK, prefix="sys-")
    cs = os.path.join(sysfs, "devices/system/clocksource/clocksource0")
    os.makedirs(cs)
    with open(os.path.join(cs, "current_clocksource"), "w") as f:
        f.write(current + "\n")
    with open(os.path.join(cs, "available_clocksource"), "w") as f:
        f.write(available + " \n")
    port = prom.free_port()
    p = subprocess.Popen(
        [EXPORTER, f"--web.listen-address=127.0.0.1:{port}",
         "--web.disable-exporter-metrics", "--collector.disable-defaults",
         "--collector.time", f"--path.sysfs={sysfs}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and p.poll() is None:
            try:
                return prom.scrape(port)
            except OSError:
                time.sleep(0.1)
        return ""
    finally:
        p.kill()
        p.wait()


# name: [(current, available), ...]: one state, or the state before
# minute CHANGE and the state after.
NODES = {
    "e595": [("hpet", "hpet acpi_pm")],
    "warp": [("hpet", "hpet acpi_pm")],
    "runtime-drop": [("tsc", "tsc hpet acpi_pm"), ("hpet", "hpet acpi_pm")],
    "by-hand": [("acpi_pm", "tsc hpet acpi_pm")],
    "healthy": [("tsc", "tsc hpet acpi_pm")],
    "kvm-guest": [("kvm-clock", "kvm-clock tsc hpet acpi_pm")],
    "hyperv-guest": [("hyperv_clocksource_tsc_page",
                      "hyperv_clocksource_tsc_page acpi_pm")],
    "guest-left-tsc": [("tsc", "tsc kvm-clock hpet acpi_pm"),
                       ("hpet", "kvm-clock hpet acpi_pm")],
}
series = []


def add(name, labels, values):
    body = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    series.append({"series": f"{name}{{{body}}}", "values": values})


served = {}
for node, states in NODES.items():
    spans = ([(0, MINUTES)] if len(states) == 1 else
             [(0, CHANGE), (CHANGE, MINUTES)])
    per_series = {}
    for (current, available), (a, b) in zip(states, spans):
        text = node_exporter_time(current, available)
        served[(node, current)] = text
        samples, _ = prom.parse(text)
        for key, v in samples.items():
            if key[0].startswith("node_time_clocksource_"):
                per_series.setdefault(key, []).append((a, b, v))
    for (name, labels), spans_v in per_series.items():
        # A series the node stopped serving is absent ("_") afterwards.
        values = []
        for m in range(MINUTES + 1):
            v = next((v for a, b, v in spans_v if a <= m < b or
                      (b == MINUTES and m == MINUTES)), None)
            values.append("_" if v is None else repr(v))
        add(name, dict(labels, instance=node, job="node"), " ".join(values))

t.ok(all(f'node_time_clocksource_current_info{{clocksource="{c}",'
         'device="0"} 1' in served[(n, c)] for (n, c) in served),
     "node_exporter serves node_time_clocksource_current_info for every "
     "fixture sysfs", "\n".join(served.values())[-2000:])
# The e595 node also runs tsctui: its real metrics, from a fixture root
# with the E595's warp log.
root = prom.host(WORK, "e595-root")
st = prom.status(root, "e595-bios128-warp.dmesg")
samples, bad = prom.parse(st.stdout)
t.ok(st.returncode in (0, 1) and
     prom.value(samples, "tsctui_clocksource_tsc") == 0 and not bad,
     "tsctui status --prometheus on the E595 fixture: tsctui_clocksource_tsc"
     " 0", st.stderr + "".join(bad))
for (name, labels), v in samples.items():
    add(name, dict(labels, instance="e595", job="node"),
        f"{v!r}x{MINUTES}")


def expect(instance, tsctui):
    ann = {k: text.replace("{{ $labels.instance }}", instance)
           .replace("{{ $labels.tsctui }}", tsctui)
           for k, text in rule["annotations"].items()}
    return {"exp_labels": dict(rule["labels"], instance=instance,
                               job="node", tsctui=tsctui),
            "exp_annotations": ann}


ALWAYS = [expect("by-hand", "no"), expect("e595", "yes"),
          expect("warp", "no")]
CASES = [
    ("pending for its first 10 minutes: nothing yet", 5, []),
    ("bare metal on hpet (a boot-time warp, with and without tsctui: the "
     "tsctui label says which) and a clock chosen by hand while tsc is "
     "offered; not the healthy node, not the guests on kvm-clock or "
     "Hyper-V's clock, not the nodes still on tsc", 15, ALWAYS),
    ("a runtime watchdog drop (tsc gone from the directory) and a guest "
     "that left tsc, 15 minutes after they left it", CHANGE + 15,
     ALWAYS + [expect("guest-left-tsc", "no"),
               expect("runtime-drop", "no")]),
    ("a day after it left tsc, the guest (which offers kvm-clock) is no "
     "longer flagged; bare metal still is", MINUTES - 5,
     ALWAYS + [expect("runtime-drop", "no")]),
]


def run(rules, what, cases):
    """promtool test rules on one file holding every case (one
    evaluation of the day of series)."""
    test = {"rule_files": [rules], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": series,
                       "alert_rule_test": [
                           {"eval_time": f"{minute}m", "alertname": ALERT,
                            "exp_alerts": exp}
                           for _, minute, exp in cases]}]}
    path = os.path.join(WORK, f"{what}.test.json")
    with open(path, "w") as f:
        json.dump(test, f)
    return subprocess.run(["promtool", "test", "rules", path],
                          capture_output=True, text=True)


r = run(RULES, "fleet", CASES)
out = r.stdout + r.stderr
for what, minute, exp in CASES:
    # promtool names each failing evaluation "time: <minute>m".
    t.ok(r.returncode == 0 and "SUCCESS" in r.stdout or
         r.returncode != 0 and f"time: {minute}m," not in out and
         "FAILED" in out,
         f"{what} (promtool test rules, at minute {minute})",
         out[-3000:])
t.ok(r.returncode == 0, "promtool test rules passes the whole file", out[-1000:])

# The rule that trusts available_clocksource alone: blind to the warped
# nodes, so the same test fails.
naive = [dict(g) for g in groups]
for g in naive:
    g["rules"] = [dict(x) for x in g["rules"]]
    for x in g["rules"]:
        if x.get("record") == "instance:node_clocksource_tsc_lost:info":
            x["expr"] = ('max by (instance, job) (node_time_clocksource_'
                         'current_info{clocksource=~"hpet|acpi_pm"}) and on '
                         '(instance, job) max by (instance, job) (node_time_'
                         'clocksource_available_info{clocksource="tsc"})')
naive_rules = os.path.join(WORK, "naive.yml")
with open(naive_rules, "w") as f:
    yaml.safe_dump({"groups": naive}, f)
r = run(naive_rules, "naive", [CASES[1]])
t.ok(r.returncode != 0 and "e595" in r.stdout + r.stderr,
     "a rule that asks only whether tsc is offered misses the warped nodes "
     "(the same test fails)", r.stdout[-2000:])

sys.exit(t.done())

#!/usr/bin/env python3
"""The example alert rules (docs/tsctui-alerts.yml) under `promtool test
rules`, fed with what tsctui itself prints on fixture hosts: each alert
fires on the host it is about, with its labels and annotations, and on no
other one (a healthy host, a VM on kvm-clock, a CPU without invariant TSC,
the hosts the other alerts are about).  The input series are the samples
of `status --prometheus` and `check --prometheus` (a renamed metric makes
a rule silent, and this test fail), each given instance and job labels and
held for 40 minutes; the `for` delays, the warps alert holding 15 minutes
after the last survey that saw one, and the stale-file alert on
node_exporter's node_textfile_mtime_seconds are checked at chosen times."""
import json
import os
import shutil
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import prom  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP  # noqa: E402
RULES = os.path.join(TOP, "docs", "tsctui-alerts.yml")
WORK = os.path.join(BUILD, "prometheus-alerts")
TEXTFILE = "/var/lib/prometheus/node-exporter/"
MINUTES = 40
t = Tap()
if os.path.exists(WORK):
    shutil.rmtree(WORK)
os.makedirs(WORK)

r = subprocess.run(["promtool", "check", "rules", RULES], capture_output=True,
                   text=True)
t.ok(r.returncode == 0 and "SUCCESS: 7 rules found" in r.stdout,
     "promtool check rules docs/tsctui-alerts.yml: 7 rules (the fleet group: fleet.t)",
     r.stdout + r.stderr)
with open(RULES) as f:
    rules = {x["alert"]: x for g in yaml.safe_load(f)["groups"]
             for x in g["rules"] if "alert" in x}


# What each host prints.  status on fixture roots; check is a live survey
# of this machine's cores (with CPU 1 100000 cycles behind for "warps").
live = prom.host(WORK, "live")
healthy_check = prom.tsctui("--root", live, "check", "--prometheus",
                            "--samples", "2", "--interval", "1").stdout
warps_check = prom.check_behind("--root", live).stdout
hw, _ = prom.parse(healthy_check)
ww, _ = prom.parse(warps_check)
t.ok(prom.value(hw, "tsctui_warps_all_samples") == 0 and
     prom.value(ww, "tsctui_warps_all_samples") > 0,
     "this machine's own survey sees no warp; with CPU 1 behind it does "
     "(the inputs the healthy and the warps host need)",
     healthy_check + warps_check)

HOSTS = {
    # name: (fixture root arguments, kernel log, check output)
    "warp": (dict(), "e595-bios128-warp.dmesg", healthy_check),
    "guest": (dict(current="kvm-clock", available="kvm-clock tsc hpet",
                   cpuinfo=prom.CPUINFO_GUEST), "kvm-guest.dmesg",
              healthy_check),
    "no-invariant": (dict(cpuinfo=prom.CPUINFO_NO_INVARIANT),
                     "e595-bios128-warp.dmesg", healthy_check),
    "tripped": (dict(current="tsc", stage="sync", guard="tripped",
                     report=prom.report("in-sync")), "healthy-synced.dmesg",
                healthy_check),
    "bios": (dict(current="tsc", stage="sync",
                  report=prom.report("in-sync"),
                  last_sync_bios="R11ET30W (1.20 )"),
             "healthy-synced.dmesg", healthy_check),
    "warps": (dict(current="tsc"), "healthy-synced.dmesg", warps_check),
    "healthy": (dict(current="tsc", stage="sync",
                     report=prom.report("in-sync"),
                     last_sync_bios="R11ET36W (1.28 )"),
                "healthy-synced.dmesg", healthy_check),
}
# The warps host's surveys saw warps for its first 3 minutes only.
WARP_MINUTES = 3
# node_exporter's file age: renewed every minute, except on "stale" (no
# tsctui metrics there at all: only the file that stopped being renewed);
# another collector's old file on "healthy" is not tsctui's business.
series = []


def add(name, labels, values):
    body = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    series.append({"series": f"{name}{{{body}}}", "values": values})


for host, (kw, log, chk) in HOSTS.items():
    st = prom.status(prom.host(WORK, host, **kw), log)
    samples, bad = prom.parse(st.stdout + chk)
    t.ok(st.returncode in (0, 1) and samples and not bad,
         f"{host}: status --prometheus and check --prometheus parsed",
         st.stderr + "".join(bad))
    for (name, labels), v in samples.items():
        lab = dict(labels, instance=host, job="node")
        if host == "warps" and name in ("tsctui_warps",
                                        "tsctui_warps_all_samples",
                                        "tsctui_core_warps"):
            values = f"{v!r}x{WARP_MINUTES - 1} 0x{MINUTES - WARP_MINUTES}"
        else:
            values = f"{v!r}x{MINUTES}"
        add(name, lab, values)
    add("node_textfile_mtime_seconds",
        {"file": TEXTFILE + "tsctui.prom", "instance": host, "job": "node"},
        f"0+60x{MINUTES}")
add("node_textfile_mtime_seconds",
    {"file": TEXTFILE + "tsctui.prom", "instance": "stale", "job": "node"},
    f"0x{MINUTES}")
add("node_textfile_mtime_seconds",
    {"file": TEXTFILE + "apt.prom", "instance": "healthy", "job": "node"},
    f"0x{MINUTES}")


def expect(alert, instance, values=None, **labels):
    """The alert as promtool reports it: the rule's labels and the
    series', its annotations rendered (instance, and $value as given)."""
    rule = rules[alert]
    ann = {}
    for k, text in rule["annotations"].items():
        text = text.replace("{{ $labels.instance }}", instance)
        for tmpl, s in (values or {}).items():
            text = text.replace(tmpl, s)
        ann[k] = text
    return {"exp_labels": dict(rule["labels"], instance=instance, job="node",
                               **labels),
            "exp_annotations": ann}


CASES = [
    # (what, minute, alert, the alerts expected then)
    ("clocksource not tsc: pending for its first 10 minutes", 5,
     "TsctuiClocksourceNotTsc", []),
    ("clocksource not tsc: the E595 warp host only (not the VM on "
     "kvm-clock, not the CPU without invariant TSC)", 15,
     "TsctuiClocksourceNotTsc", [expect("TsctuiClocksourceNotTsc", "warp")]),
    ("guard tripped: the tripped host only", 15, "TsctuiGuardTripped",
     [expect("TsctuiGuardTripped", "tripped", state="tripped")]),
    ("BIOS changed since the last sync boot: that host only (not the one "
     "synced on this BIOS)", 15, "TsctuiBiosChangedSinceSync",
     [expect("TsctuiBiosChangedSinceSync", "bios")]),
    ("warps seen live: the warps host, while its last warp is under 15 "
     "minutes old", 15, "TsctuiWarpsSeenLive",
     [expect("TsctuiWarpsSeenLive", "warps",
             {"{{ $value }}": "%g" % prom.value(
                 ww, "tsctui_warps_all_samples")})]),
    ("warps seen live: cleared 15 minutes after the last survey that saw "
     "one", 20, "TsctuiWarpsSeenLive", []),
    ("metrics stale: the host whose tsctui.prom is 15 minutes old, not "
     "another collector's old file", 15, "TsctuiMetricsStale",
     [expect("TsctuiMetricsStale", "stale",
             {"{{ $value | humanizeDuration }}": "15m 0s"},
             file=TEXTFILE + "tsctui.prom")]),
    ("metrics stale: not before 10 minutes", 9, "TsctuiMetricsStale", []),
]
for what, minute, alert, exp in CASES:
    test = {"rule_files": [RULES], "evaluation_interval": "1m",
            "tests": [{"interval": "1m", "input_series": series,
                       "alert_rule_test": [{"eval_time": f"{minute}m",
                                            "alertname": alert,
                                            "exp_alerts": exp}]}]}
    path = os.path.join(WORK, f"{alert}-{minute}m.test.json")
    with open(path, "w") as f:
        json.dump(test, f, indent=1)
    r = subprocess.run(["promtool", "test", "rules", path],
                       capture_output=True, text=True)
    t.ok(r.returncode == 0 and "SUCCESS" in r.stdout,
         f"{what} (promtool test rules, at {minute} min)",
         (r.stdout + r.stderr)[-3000:])

# The same files, one alert silenced: promtool test rules can fail.
with open(os.path.join(WORK, "TsctuiGuardTripped-15m.test.json")) as f:
    test = json.load(f)
test["tests"][0]["alert_rule_test"][0]["exp_alerts"] = []
path = os.path.join(WORK, "wrong.test.json")
with open(path, "w") as f:
    json.dump(test, f)
r = subprocess.run(["promtool", "test", "rules", path], capture_output=True,
                   text=True)
t.ok(r.returncode != 0 and "tripped" in r.stdout + r.stderr,
     "a test expecting no guard alert on these hosts fails", r.stdout)

sys.exit(t.done())

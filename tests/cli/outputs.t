#!/usr/bin/env python3
"""What the commands print, where it used to be wrong: the last of more
than 64 report blocks, the newest of more than 4096 history rows, one
Prometheus exposition for several check samples (promtool accepts it),
check's wait above 4294 s (usleep's limit), JSON that is valid UTF-8 and
text without terminal control characters whatever bytes DMI strings,
kernel logs and history records hold (a report is printable ASCII or
refused by its parser)."""
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI  # noqa: E402
WORK = os.path.join(BUILD, "cli-outputs")
t = Tap(plan=20)
if os.path.exists(WORK):
    shutil.rmtree(WORK)
os.makedirs(WORK)
REPORT = open(os.path.join(TOP, "tests", "fixtures", "report",
                           "full.report")).read()
KLOG = os.path.join(TOP, "tests", "fixtures", "kernlog",
                    "e595-bios128-warp.dmesg")
# Bytes a terminal acts on (ESC, CSI as one byte and as U+009B, BEL,
# carriage return, backspace) and bytes that are not UTF-8.
NASTY = b"\x1b[2J\x9b31m\xc2\x9b1m\x07\r\x08\xff\xfe\xc3("


def run(*args, **kw):
    return subprocess.run([TSCTUI] + list(args), capture_output=True,
                          **kw)


def terminal_safe(b):
    """Valid UTF-8 without C0 (but newline and tab), DEL or C1."""
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8: {e}"
    bad = [c for c in s if (ord(c) < 0x20 and c not in "\n\t") or
           0x7f <= ord(c) <= 0x9f]
    return f"control characters {bad!r}" if bad else None


def strict_json(b):
    """The document, decoded as strict UTF-8, or the error."""
    try:
        return json.loads(b.decode("utf-8")), None
    except (UnicodeDecodeError, ValueError) as e:
        return None, str(e)


def promtool(text):
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True)
    return r.returncode == 0, (r.stdout + r.stderr).decode(errors="replace")


# ---- report --file: more than 64 blocks ---------------------------------
blocks = "".join(
    "boot %d\n--- tsctui report begin ---\n" % i +
    REPORT.replace("stage version=1.2.3", f"stage version=1.2.{i}") +
    "--- tsctui report end ---\n" for i in range(70))
log = os.path.join(WORK, "console.log")
with open(log, "w") as f:
    f.write(blocks)
r = run("report", "--file", log)
t.ok(r.returncode == 0 and b"stage 1.2.69 " in r.stdout and
     b"stage 1.2.63 " not in r.stdout,
     "report --file with 70 blocks shows the last (the 70th)",
     r.stdout[:200] + r.stderr)
r = run("report", "--file", log, "--json")
doc, err = strict_json(r.stdout)
t.ok(doc and doc["stage_version"] == "1.2.69",
     "report --json with 70 blocks: the 70th", err or doc and
     doc.get("stage_version"))
r = run("report", "--file", log, "--json", "--all")
doc, err = strict_json(r.stdout)
t.ok(doc and [d["stage_version"] for d in doc] ==
     [f"1.2.{i}" for i in range(70)],
     "report --json --all with 70 blocks: all 70, in order",
     err or (doc and len(doc)))

# ---- history: more than 4096 rows ---------------------------------------
root = os.path.join(WORK, "history")
os.makedirs(os.path.join(root, "var/lib/tsctui"))
with open(os.path.join(root, "var/lib/tsctui/history"), "w") as f:
    for i in range(5000):
        f.write(f"boot_id=boot-{i:05d}\ttime={1700000000 + i * 3600}\t"
                f"bios_version=1.{i}\tbios_date=-\tbootloader_launch_ns=-1\t"
                "stage_mode=measure\tstage_result=in-sync\twarp_cycles=0\t"
                "watchdog_ppm=-\tclocksource=tsc\n")
r = run("--root", root, "history", "--json")
doc, err = strict_json(r.stdout)
t.ok(doc and len(doc) == 4096 and doc[-1]["boot_id"] == "boot-04999" and
     doc[0]["boot_id"] == "boot-00904",
     "history --json of 5000 boots: the newest 4096, oldest first",
     err or (doc and (len(doc), doc[0]["boot_id"], doc[-1]["boot_id"])))
r = run("--root", root, "history")
lines = r.stdout.decode().splitlines()
t.ok(r.returncode == 0 and len(lines) == 4098 and " 1.4999 " in lines[-2]
     and " 1.904 " in lines[1] and
     lines[-1] == "(904 older boots not shown: the newest 4096 are)",
     "history text of 5000 boots: the newest 4096 rows, and a line that "
     "says how many older ones it left out",
     lines[-1:] + lines[1:2])

# ---- history: a record larger than tsctui reads ------------------------
# More than 64 MiB is not a file tsctui wrote: said to be too large, in
# one line, never read in part and never taken for a missing one (which
# would print "no boots recorded yet" and fall back to the journal).
root = os.path.join(WORK, "history-large")
fx.base(root)
fx.write(root, "/var/lib/tsctui/history", "")
# sparse: nothing written but the size
os.truncate(os.path.join(root, "var/lib/tsctui/history"), (64 << 20) + 4096)
held = fx.tree_digest(root)
big = [run("--root", root, "history"), run("--root", root, "history",
                                           "--json")]
st = run("--root", root, "status")
t.ok(all(r.returncode == 2 and not r.stdout and
         r.stderr.decode().count("\n") == 1 and
         "too large" in r.stderr.decode() and
         "/var/lib/tsctui/history" in r.stderr.decode() for r in big) and
     "too large" in st.stdout.decode() and
     fx.tree_digest(root) == held,
     "history of more than 64 MiB: `history` (text and --json) says it is "
     "too large in one line, exit 2, not that no boots are recorded; "
     "status notes it; nothing changed",
     [(r.returncode, r.stdout[:80], r.stderr) for r in big] +
     [st.stdout.decode()[-300:]])

# ---- check --prometheus with several samples ----------------------------
r = run("check", "--prometheus", "--samples", "2", "--interval", "0")
text = r.stdout
good, out = promtool(text)
types = [ln for ln in text.decode().splitlines() if ln.startswith("# TYPE")]
t.ok(r.returncode in (0, 1) and good and len(types) == len(set(types)) and
     b"tsctui_samples 2\n" in text,
     "check --prometheus --samples 2: one exposition, promtool accepts it",
     out + text.decode(errors="replace")[:600])
r = run("check", "--prometheus")
good, out = promtool(r.stdout)
t.ok(r.returncode in (0, 1) and good and b"tsctui_samples 1\n" in r.stdout,
     "check --prometheus: promtool accepts it", out)

# ---- check --interval above 4294 s --------------------------------------
# usleep takes 32-bit microseconds: 4295 s wrapped to 32 ms, and the
# second sample followed at once.  It must not come for 4295 s.
p = subprocess.Popen([TSCTUI, "check", "--json", "--samples", "2",
                      "--interval", "4295"], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE)
first = p.stdout.readline()
time.sleep(2)
still = p.poll() is None
p.kill()
rest = p.stdout.read()
p.wait()
t.ok(first.startswith(b'{"sample":0') and still and rest == b"",
     "check --interval 4295: no second sample 2 s after the first",
     f"first {first[:60]!r}, running {still}, then {rest[:80]!r}")

# ---- check under --root: the target's clocksource, read every sample ------
# The survey and the rate measure this machine; the clocksource printed
# and judged is the root's, read again for each sample (the watchdog may
# switch it between two), and never chosen as this machine's reference:
# hpet there says nothing of CLOCK_MONOTONIC_RAW here (it picked
# monotonic_raw on a machine without /dev/rtc0).
croot = fx.debian_grub(os.path.join(WORK, "check-root"))
CS = "/sys/devices/system/clocksource/clocksource0/"
fx.write(croot, CS + "current_clocksource", "hpet\n")
fx.write(croot, CS + "available_clocksource", "tsc hpet acpi_pm\n")
p = subprocess.Popen([TSCTUI, "--root", croot, "--kernel-log", KLOG,
                      "check", "--json", "--samples", "2", "--interval",
                      "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
first = p.stdout.readline()
fx.write(croot, CS + "current_clocksource", "tsc\n")
rest, err = p.communicate(timeout=60)
docs = [strict_json(b)[0] for b in (first, rest)]
ok = all(docs)
t.ok(ok and docs[0]["clocksource"] == "hpet" and
     docs[1]["clocksource"] == "tsc" and not docs[0]["healthy"],
     "check --root: the target's clocksource, read again for each sample "
     "(hpet, then tsc after it changed)", f"{first!r} {rest[:300]!r} {err!r}")
rate = docs[0]["rate"] if ok else {}
t.ok(ok and rate.get("reference") != "monotonic_raw" and
     (rate.get("reference") != "none" or
      "under --root" in rate.get("why", "")),
     "check --root: the target's clocksource (hpet) never makes this "
     "machine's CLOCK_MONOTONIC_RAW the rate's reference",
     json.dumps(rate))

# ---- JSON is UTF-8, text is terminal-safe --------------------------------
root = os.path.join(WORK, "nasty")
dmi = "/sys/class/dmi/id/"
fx.write(root, dmi + "sys_vendor", b"LEN" + NASTY + b"OVO\n")
fx.write(root, dmi + "product_name", b"Think\xe2\x82\xacPad\xe2\x82\n")
fx.write(root, dmi + "bios_version", b"R11ET36W\x1b]0;pwned\x07\n")
fx.write(root, "/proc/cpuinfo", fx.CPUINFO_AMD)
klog = os.path.join(WORK, "nasty.dmesg")
with open(klog, "wb") as f:
    f.write(open(KLOG, "rb").read().replace(
        b"check_tsc_sync_source failed",
        b"check_tsc_sync_source \x1b[31mfailed\xff"))
r = run("--root", root, "--kernel-log", klog, "status", "--json")
doc, err = strict_json(r.stdout)
unstable = doc and [e for e in doc["kernel"]["events"]
                    if e["kind"] == "unstable"]
t.ok(doc and doc["machine"]["vendor"].startswith("LEN\x1b[2J\ufffd") and
     doc["machine"]["product"] == "Think\u20acPad\ufffd" and
     unstable and unstable[0]["reason"].endswith("\x1b[31mfailed\ufffd"),
     "status --json: invalid bytes in DMI strings and the kernel log "
     "become U+FFFD, the rest is kept (escaped)",
     err or (doc and (doc["machine"], unstable)))
t.ok(terminal_safe(r.stdout) is None and b"\\u009b" in r.stdout,
     "status --json: no raw control character, C1 escaped",
     terminal_safe(r.stdout))
r = run("--root", root, "--kernel-log", klog, "status")
t.ok(r.returncode in (0, 1) and terminal_safe(r.stdout) is None and
     b"LEN?[2J" in r.stdout and b"Think\xe2\x82\xacPad" in r.stdout and
     b"R11ET36W?]0;pwned?" in r.stdout,
     "status text: control characters and invalid bytes become '?', "
     "UTF-8 stays", terminal_safe(r.stdout) or r.stdout[:300])

fx.write(root, "/var/lib/tsctui/history",
         b"boot_id=b1\ttime=1700000000\tbios_version=1.28" + NASTY +
         b"\tstage_mode=measure\tstage_result=in-sync\twarp_cycles=0\t"
         b"watchdog_ppm=-\tclocksource=hp\x1bet\n")
r = run("--root", root, "history", "--json")
doc, err = strict_json(r.stdout)
t.ok(doc and doc[0]["bios_version"].startswith("1.28\x1b[2J\ufffd") and
     terminal_safe(r.stdout) is None,
     "history --json: valid UTF-8 from a record with invalid bytes",
     err or doc)
r = run("--root", root, "history")
t.ok(r.returncode == 0 and terminal_safe(r.stdout) is None and
     b"1.28?[2J" in r.stdout and b"hp?et" in r.stdout,
     "history text: the record's control characters become '?'",
     terminal_safe(r.stdout) or r.stdout)

# COMMAND --help: that command's own help, not the whole usage text.
for cmd, words in (("simulate", "sim.offset.N=C"),
                   ("install", "--loader grub|systemd-boot|efi-entry"),
                   ("boot-ok", "mark this boot good")):
    r = run(cmd, "--help", text=True)
    t.ok(r.returncode == 0 and r.stdout.startswith(f"usage: tsctui {cmd}")
         and words in r.stdout and "Global options:" not in r.stdout and
         "  uninstall" not in r.stdout and "--dry-run (after" not in r.stdout,
         f"{cmd} --help prints {cmd}'s help alone", r.stdout + r.stderr)
r = run("--help", "simulate", text=True)
t.ok(r.returncode == 0 and "Global options:" in r.stdout,
     "--help before a command: the whole usage text", r.stdout)

sys.exit(t.done())

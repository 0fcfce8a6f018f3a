#!/usr/bin/env python3
"""What the command line says when it cannot do what it is asked
(issue 24): never a raw control character from a value the user typed
(an unknown mode, command or option, a --root path), one line for each
refusal; status names a corrupt grubenv, or a state file on the ESP that
is not a file, and the way out, instead of empty mode and guard fields;
an action whose file is a FIFO or a directory names it and the way out."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from paths import BUILD, TSCTUI  # noqa: E402
from tap import Tap  # noqa: E402

WORK = os.path.join(BUILD, "refusals-tests")
ESC = "\x1b[31m"
C1 = "\u009b"  # CSI as one character: a terminal acts on it too
ECHOES = [
    ("an unknown mode", ["mode", ESC + "sync" + C1]),
    ("a newline in a mode", ["mode", "sync\n" + ESC + "x"]),
    ("an unknown command", [ESC + "status"]),
    ("an unknown option", ["status", "--bogus" + ESC]),
    ("an unknown guard word", ["guard", ESC]),
    ("a kernel-arg value", ["kernel-arg", "nowatchdog", ESC]),
]

t = Tap(plan=len(ECHOES) + 6)
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def run(*args, root=None):
    return subprocess.run([TSCTUI, "--root", root or WORK, *args],
                          capture_output=True)


def clean(b):
    """No C0 control but the line's end, no DEL, no C1 (raw or UTF-8)."""
    text = b.decode("utf-8", "replace")
    return not any((ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
                   for c in text)


# ---- values given on the command line ------------------------------------
for what, args in ECHOES:
    r = run(*args)
    t.ok(r.returncode == 2 and r.stderr.count(b"\n") == 1 and
         clean(r.stderr) and b"?" in r.stderr,
         f"{what} with ESC and CSI in it: one line, exit 2, the control "
         "characters shown as '?'", f"{r.returncode} {r.stderr!r}")

r = subprocess.run([TSCTUI, "--root", os.path.join(WORK, ESC + "x"),
                    "status"], capture_output=True)
t.ok(r.returncode == 2 and r.stderr.count(b"\n") == 1 and clean(r.stderr),
     "a --root path with ESC in it: one line, exit 2, no control "
     "character", f"{r.returncode} {r.stderr!r}")

# ---- status on a stage whose state cannot be read ------------------------
grub = fx.debian_grub(os.path.join(WORK, "grub"))
i = run("install", root=grub)
with open(os.path.join(grub, "boot/grub/grubenv"), "wb") as f:
    f.write(b"not a grubenv")
s = run("status", root=grub)
j = run("status", "--json", root=grub)
try:
    stage = json.loads(j.stdout)["stage"]
except (ValueError, KeyError):
    stage = {}
line = [ln for ln in s.stdout.decode().splitlines()
        if ln.startswith("stage:")]
t.ok(i.returncode == 0 and line and "corrupt" in line[0] and
     "uninstall" in line[0] and "mode ," not in line[0] and
     "corrupt" in (stage.get("state_error") or "") and
     stage.get("mode") is None,
     "status on a corrupt grubenv: the stage line says it is corrupt and "
     "that uninstall rebuilds it (JSON: state_error), no empty fields",
     f"{i.stderr!r} {line} {stage}")

sd = fx.systemd_boot(os.path.join(WORK, "sd"))
i = run("install", root=sd)
os.mkfifo(os.path.join(sd, "efi/EFI/tsctui/strikes"))
s = run("status", root=sd)
g = run("guard", "status", root=sd)
line = [ln for ln in s.stdout.decode().splitlines()
        if ln.startswith("stage:")]
t.ok(i.returncode == 0 and line and "strikes" in line[0] and
     "guard reset" in line[0] and g.returncode == 2 and
     b"guard reset" in g.stderr,
     "status and guard status on a FIFO among the stage's files on the "
     "ESP: named, with `tsctui guard reset` as the way out",
     f"{line} {g.stderr!r}")

r = run("guard", "reset", root=sd)
s = run("status", root=sd)
t.ok(r.returncode == 0 and b"mode measure, guard clear" in s.stdout,
     "and guard reset is that way out", f"{r.stderr!r} {s.stdout[-300:]!r}")

# The options file itself a FIFO or a directory: tsctui never writes
# through or over it, and says what is there and the way out (it said
# only "Invalid argument" before).
for kind, make in (("FIFO", os.mkfifo), ("directory", os.mkdir)):
    opts = os.path.join(sd, "efi/EFI/tsctui/options")
    if os.path.isdir(opts):
        os.rmdir(opts)
    elif os.path.lexists(opts):
        os.remove(opts)
    make(opts)
    before = fx.tree_digest(sd)
    r = run("mode", "sync", root=sd)
    err = r.stderr.decode()
    t.ok(r.returncode == 2 and err.count("\n") == 1 and
         f"a {kind} is there" in err and "remove it" in err and
         fx.tree_digest(sd) == before,
         f"mode on an ESP options file that is a {kind}: one line naming "
         "it and the way out, nothing changed", err)

shutil.rmtree(WORK, ignore_errors=True)
t.done()
sys.exit(1 if t.failed else 0)

#!/usr/bin/env python3
"""uninstall without a ledger to go by (issue 24, DESIGN.md 8.1): the
ledger missing, empty, a FIFO, or cut by a NUL byte, on a GRUB system, a
systemd-boot system and a firmware entry, each installed and then changed
by kernel-arg and mode.

- A plain `uninstall` refuses: exit 2, one line that names
  `uninstall --force`, the list of what is left on stdout, no byte
  changed.
- `uninstall --force` puts back the copies under backup/ and removes what
  is certainly tsctui's: every file is as it was before install (the
  directories tsctui may have made beside other things' stay, empty),
  and it says what it did; under --root, it names the firmware entry
  that must be removed on the machine itself.
- Its dry run changes nothing and names exactly what the real run
  changes.
- Killed at each of its writes, `uninstall --force` run again gives what
  one uninterrupted run gives.
- What it may not remove (a FIFO in EFI/tsctui) is named, exit 2, and
  never opened; after a replay that left something, --force finishes."""
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

WORK = os.path.join(BUILD, "force-tests")
HOWS = ("missing", "empty", "fifo", "nul")
SYSTEMS = ("grub", "systemd-boot", "efi-entry")
TIMEOUT = 20

t = Tap(plan=len(SYSTEMS) * len(HOWS) + 5)
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


# The kill series runs the optimised build when the sanitized one is under
# test (tests/run): ~100 runs, and a SIGKILL is the same in both.
PLAIN = TSCTUI[:-len("-san")] if TSCTUI.endswith("-san") and \
    os.path.exists(TSCTUI[:-len("-san")]) else TSCTUI


def run(root, *args, kill_at=None, binary=None, env=None):
    env = dict(os.environ, **(env or {}))
    env.pop("TSCTUI_TEST_KILL_AT", None)
    if kill_at:
        env["TSCTUI_TEST_KILL_AT"] = str(kill_at)
    try:
        return subprocess.run([binary or TSCTUI, "--root", root, *args],
                              capture_output=True, text=True, env=env,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None


def copy(src, name):
    dst = os.path.join(WORK, name)
    shutil.rmtree(dst, ignore_errors=True)
    subprocess.run(["cp", "-a", src, dst], check=True)
    return dst


def only_empty_dirs(before, root):
    """What differs from before install, less the directories tsctui may
    have made beside other things' (no ledger says which), left empty."""
    after = fx.tree(root)
    return [d for d in fx.differ(before, after)
            if not (d.split(":")[0] not in before and
                    after[d.split(":")[0]][0] == "dir" and
                    not os.listdir(os.path.join(root, d.split(":")[0])))]


def damage(root, how):
    fx.damage_ledger(root, how)


# ---- the systems, installed and changed --------------------------------
TEMPLATES, BEFORE = {}, {}
for system in SYSTEMS:
    path = os.path.join(WORK, "tpl-" + system)
    if system == "grub":
        root = fx.debian_grub(path)
        steps = [["install"], ["kernel-arg", "nowatchdog", "on"],
                 ["mode", "sync"]]
    elif system == "systemd-boot":
        root = fx.systemd_boot(path)
        steps = [["install"], ["kernel-arg", "nowatchdog", "on"],
                 ["mode", "sync"]]
    else:
        root = fx.efi_machine(path)
        steps = [["install", "--loader", "efi-entry"], ["mode", "sync"]]
    BEFORE[system] = fx.tree(root)
    for s in steps:
        r = run(root, *s)
        if not r or r.returncode != 0:
            print(f"Bail out! {system}: {' '.join(s)}: {r and r.stderr}")
            sys.exit(1)
    TEMPLATES[system] = root

# ---- each system, each damage ------------------------------------------
for system in SYSTEMS:
    for how in HOWS:
        root = copy(TEMPLATES[system], f"{system}-{how}")
        damage(root, how)
        held = fx.tree(root)
        p = run(root, "uninstall")
        pd = fx.differ(held, fx.tree(root))
        f = run(root, "uninstall", "--force")
        left = only_empty_dirs(BEFORE[system], root)
        wrong = []
        # The damage is said as a reason with --force the way on, not
        # as act_begin's refusal ("not touching anything").
        if not p or p.returncode != 2 or p.stderr.count("\n") != 1 or \
                "uninstall --force" not in p.stderr or pd or \
                "EFI/tsctui" not in p.stdout or \
                "not touching anything" in p.stderr:
            wrong.append(f"plain: {p and (p.returncode, p.stdout, p.stderr)}"
                         f" {pd[:3]}")
        if not f or f.returncode != 0 or "tsctui removed" not in f.stdout:
            wrong.append(f"force: {f and (f.returncode, f.stdout, f.stderr)}")
        if how == "nul":
            # The lines the NUL did not cut still say what tsctui made:
            # /etc/kernel/cmdline and the directories beside other
            # things' go too, and the tree is exactly as before install.
            exact = fx.differ(BEFORE[system], fx.tree(root))
            if exact:
                wrong.append(f"a NUL-cut ledger's lines unused: {exact[:4]}")
        elif system == "systemd-boot":
            # kernel-arg made /etc/kernel/cmdline (no copy is kept of a
            # file tsctui creates), and no ledger line says so: named,
            # not removed.
            if "etc/kernel/cmdline" not in (f and f.stdout or "") or \
                    [d for d in left if "etc/kernel/cmdline" not in d]:
                wrong.append(f"cmdline: {left[:3]}")
        elif left:
            wrong.append(f"not as before install: {left[:4]}")
        if system == "efi-entry" and not (
                f and "Boot0003" in f.stdout and "efibootmgr" in f.stdout
                and "that machine itself" in f.stdout):
            wrong.append("the firmware entry's number and where to remove "
                         "it are not said")
        t.ok(not wrong, f"{system}, ledger {how}: uninstall refuses naming "
             "--force and changes nothing; --force puts every file back "
             "as before install and says so", "\n".join(wrong))

# ---- grubby's edit, from a damaged ledger's grubby line -----------------
path = os.path.join(WORK, "fedora")
root = fx.fedora_grubby(path)
genv = fx.grubby_editing(WORK, root)
before = fx.tree(root)
for s in (["install"], ["kernel-arg", "nowatchdog", "on"]):
    run(root, *s, env=genv)
entry = os.path.join(root, "boot/loader/entries/"
                     "abc-6.5.6-300.fc39.x86_64.conf")
with open(entry) as fh:
    added = "tsc=nowatchdog" in fh.read()
damage(root, "nul")
f = run(root, "uninstall", "--force", env=genv)
d = fx.differ(before, fx.tree(root))
t.ok(added and f is not None and f.returncode == 0 and
     "grubby --update-kernel=ALL --remove-args=tsc=nowatchdog" in f.stdout
     and not d, "Fedora, ledger cut by a NUL: --force runs grubby to take "
     "tsc=nowatchdog back out of every kernel (the ledger's grubby line), "
     "and every file is as before install",
     f"{added} {f and (f.returncode, f.stdout[-400:], f.stderr)} {d[:4]}")

# ---- its dry run is its plan ---------------------------------------------
root = copy(TEMPLATES["grub"], "dry")
damage(root, "nul")
held = fx.tree(root)
dry = run(root, "uninstall", "--force", "--dry-run", "--json")
unchanged = not fx.differ(held, fx.tree(root))
real = run(root, "uninstall", "--force", "--json")
try:
    planned = {c["path"] for c in json.loads(dry.stdout)["changed"]}
    done = {c["path"] for c in json.loads(real.stdout)["changed"]}
except (ValueError, KeyError, AttributeError):
    planned, done = None, set()
t.ok(dry and dry.returncode == 0 and unchanged and planned and
     planned == done, "uninstall --force --dry-run changes nothing and "
     "plans exactly what the real run changes",
     f"{dry and dry.stderr} {unchanged} "
     f"{sorted((planned or set()) ^ done)[:6]}")

# ---- killed at each write, and run again -------------------------------
whole = copy(TEMPLATES["grub"], "whole")
damage(whole, "missing")
run(whole, "uninstall", "--force", binary=PLAIN)
want = fx.tree(whole)
bad, n = [], 0
while n < 200:
    n += 1
    root = copy(TEMPLATES["grub"], "kill")
    damage(root, "missing")
    k = run(root, "uninstall", "--force", kill_at=n, binary=PLAIN)
    if k and k.returncode != -9:
        d = fx.differ(want, fx.tree(root))
        if d:
            bad.append(f"uninterrupted at {n}: {d[:3]}")
        break
    again = run(root, "uninstall", "--force", binary=PLAIN)
    d = fx.differ(want, fx.tree(root))
    if not again or again.returncode != 0 or d:
        bad.append(f"killed at {n}: {again and again.stderr} {d[:3]}")
t.ok(not bad and n > 5, f"uninstall --force killed at each of its {n - 1} "
     "writes, then run again: what one run gives", "\n".join(bad[:5]))

# ---- what it may not remove --------------------------------------------
root = copy(TEMPLATES["systemd-boot"], "fifo-in-esp")
damage(root, "missing")
os.mkfifo(os.path.join(root, "efi/EFI/tsctui/strange"))
f = run(root, "uninstall", "--force")
t.ok(f is not None and f.returncode == 2 and f.stderr.count("\n") == 1 and
     "EFI/tsctui" in f.stderr and "left: /efi/EFI/tsctui" in f.stdout and
     os.path.exists(os.path.join(root, "efi/EFI/tsctui/strange")) and
     not os.path.exists(os.path.join(root, "efi/EFI/tsctui/options")),
     "a FIFO in EFI/tsctui: --force removes the rest, names what is left "
     "(exit 2, one line, the list on stdout) and never opens it",
     f"{f and (f.returncode, f.stdout[-300:], f.stderr)}")

# A ledger that misses something (a file the stage would never make):
# the replay leaves it and plain uninstall says so; --force finishes.
root = copy(TEMPLATES["systemd-boot"], "missed")
fx.write(root, "/efi/EFI/tsctui/stray", "a file no ledger names\n")
p = run(root, "uninstall")
f = run(root, "uninstall", "--force")
left = only_empty_dirs(BEFORE["systemd-boot"], root)
t.ok(p and p.returncode == 2 and "uninstall --force" in p.stderr and
     "EFI/tsctui" in p.stdout and f and f.returncode == 0 and
     [x for x in left if "etc/kernel/cmdline" not in x] == [] and
     not os.path.exists(os.path.join(root, "efi/EFI/tsctui")),
     "after a replay that left a file in EFI/tsctui: uninstall names "
     "--force, and --force removes it",
     f"{p and p.stderr} / {f and (f.returncode, f.stderr)} {left[:3]}")

t.done()
shutil.rmtree(WORK, ignore_errors=True)
sys.exit(1 if t.failed else 0)

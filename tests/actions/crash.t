#!/usr/bin/env python3
"""Kill tsctui at every write of every action, on every fixture system.

For each system (Debian GRUB, Fedora BLS edited directly and by grubby,
systemd-boot, firmware entry) and
each action (install, mode, guard reset, kernel-arg on and off, uninstall),
and for install --migrate on GRUB with Zanasin/tscsync and kernel-arg
reliable off on GRUB and systemd-boot with tsc=reliable,
the action runs with TSCTUI_TEST_KILL_AT=N for N = 1, 2, ... until it runs
to its end: the Nth change it makes to the system (a file created, a
rename, an unlink, a mkdir or rmdir, a link, an NVRAM write, a tool run)
is never made, because SIGKILL comes first.  After each kill, on two
copies of what it left:
  - `tsctui uninstall` must leave the tree exactly as it was before
    install: every file's bytes, every mode, every link and its target,
    the efivarfs files included;
  - the same action run again must leave exactly what one uninterrupted
    run of it leaves.
/run/tsctui.lock (the lock, in /run, gone at the next boot) is the one
file left out of the comparison; after boot-ok, the history's one line
is compared by its presence only (it holds the time it was written), and
uninstall is `uninstall --purge`, which takes the history too."""
import multiprocessing
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
import reportvar  # noqa: E402
from paths import BUILD, TOP, TSCTUI  # noqa: E402
from tap import Tap  # noqa: E402

WORK = os.path.join(BUILD, "crash-tests")


GRUBBY = {}  # the system's grubby double, when it has one


# The run killed at its Nth change is the release build: it is the first
# N-1 changes of the uninterrupted run, which runs sanitized (TSCTUI, the
# sanitized build under make check), so the sanitizers would see nothing
# new there, at four times the start-up cost on ~790 runs.  What runs on a
# killed run's leftovers (uninstall, the action again) is new ground and
# stays sanitized.
RELEASE = os.path.join(TOP, "tui", "tsctui")


# What runs on a killed run's leftovers runs under ASan and UBSan always,
# and under LeakSanitizer at every LEAK_EVERY-th kill point only (the 1st,
# the 9th, ...: each cell's replay of leftovers at several depths): its
# scan at exit costs 50 ms a process here (an empty program: 73 ms with it,
# 23 without), on ~1,580 runs.  Every command's uninterrupted run below
# keeps it (docs/DESIGN.md 11).
LEAK_EVERY = 8
NO_LEAK_SCAN = "detect_leaks=0:abort_on_error=0"


def run(root, *args, kill_at=None, leaks=True):
    env = dict(os.environ)
    env.pop("TSCTUI_TEST_KILL_AT", None)
    if not leaks:
        env["ASAN_OPTIONS"] = NO_LEAK_SCAN
    if GRUBBY:
        env.update(GRUBBY, GRUBBY_ROOT=root)
    if kill_at:
        env["TSCTUI_TEST_KILL_AT"] = str(kill_at)
    return subprocess.run([RELEASE if kill_at else TSCTUI, "--root", root,
                           *args], capture_output=True, text=True, env=env)


tree, differ = fx.tree, fx.differ


def sanitizer(r):
    """A sanitizer's report in a run's stderr, as a difference: uninstall's
    status alone does not fail a cell (after some kills there is nothing
    to undo), so a leak or a memory error there would pass unseen."""
    return [line for line in r.stderr.splitlines()
            if "Sanitizer" in line or "runtime error:" in line][:2]


def copy(src, dst):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)
    return dst


def must(root, *args):
    r = run(root, *args)
    if r.returncode != 0:
        raise RuntimeError(f"{args}: {r.returncode} {r.stderr}")


SYSTEMS = [
    ("debian-grub", fx.debian_grub, []),
    ("fedora-bls", fx.fedora_grubby, []),
    # grubby edits what the ledger cannot copy: its entry takes it back
    ("fedora-grubby", fx.fedora_grubby, ["grubby"]),
    ("systemd-boot", fx.systemd_boot, []),
    ("efi-entry", fx.efi_machine, ["--loader", "efi-entry"]),
    # install --migrate taking over Zanasin/tscsync: install only (after
    # it, the system is an ordinary tsctui one, as the cells above), and
    # GRUB only: it has every kind of removal (a block out of custom.cfg,
    # grubenv variables, a file, links); systemd-boot's driver is one
    # more file (tests/actions/fixers.t), at about a minute a cell.
    ("tscsync-grub", fx.tscsync_grub, ["--migrate"]),
    # kernel-arg reliable off, on systems with tsc=reliable (that action
    # only: it needs no install)
    ("reliable-grub", fx.reliable_grub, []),
    ("reliable-sdboot", fx.reliable_sdboot, []),
]
# Each action, and what has run before it (without a kill).
ACTIONS = [
    ("install", None, []),
    ("mode off", ["mode", "off"], ["install"]),
    # a resume boot's stage that never returned left its variable
    ("guard reset", ["guard", "reset", "--mode", "off"],
     ["install", "resume"]),
    ("kernel-arg on", ["kernel-arg", "nowatchdog", "on"], ["install"]),
    ("kernel-arg off", ["kernel-arg", "nowatchdog", "off"],
     ["install", "karg"]),
    ("uninstall", ["uninstall"], ["install", "karg", "resume"]),
    ("boot-ok", ["boot-ok"], ["install", "pending"]),
    ("reliable off", ["kernel-arg", "reliable", "off"], []),
]


def pending(root):
    """The stage ran this boot: its pending marker, where it keeps it."""
    env = os.path.join(root, "boot/grub/grubenv")
    if not os.path.exists(env):
        env = os.path.join(root, "boot/grub2/grubenv")
    with open(os.path.join(root, "etc/tsctui/tsctui.conf")) as f:
        grub = "loader=grub" in f.read()
    if grub:
        with open(env, "rb") as f:
            body = f.read()
        assert b"tsctui_pending=0" in body
        with open(env, "wb") as f:
            f.write(body.replace(b"tsctui_pending=0", b"tsctui_pending=1"))
        return
    esp = "efi" if os.path.isdir(os.path.join(root, "efi/EFI")) else \
        "boot/efi"
    open(os.path.join(root, esp, "EFI/tsctui/pending"), "w").close()

def cell(job):
    """One system and one action, killed at each of its writes, in a
    directory of its own: (passed, name, detail)."""
    sysname, aname = job
    _, make, install_args = next(x for x in SYSTEMS if x[0] == sysname)
    args, pre = next((a, p) for n, a, p in ACTIONS if n == aname)
    cwork = os.path.join(WORK, f"{sysname}-{aname.replace(' ', '-')}")
    os.makedirs(cwork)
    GRUBBY.clear()
    if install_args == ["grubby"]:
        install_args = []
        GRUBBY.update(fx.grubby_editing(cwork, "/nonexistent"))
        GRUBBY.pop("GRUBBY_ROOT")
    pristine = make(os.path.join(cwork, "pristine"))
    before_install = tree(pristine)
    args = args or ["install", *install_args]
    start = copy(pristine, os.path.join(cwork, "start"))
    for step in pre:
        if step == "pending":
            pending(start)
            continue
        if step == "resume":
            fx.efivar(start, reportvar.RESUME_NAME, reportvar.GUID,
                      b"\x01")
            continue
        must(start, *(["install", *install_args] if step == "install"
                      else ["kernel-arg", "nowatchdog", "on"]))
    hist = aname != "boot-ok"
    unargs = ["uninstall"] if hist else ["uninstall", "--purge"]
    once = copy(start, os.path.join(cwork, "once"))
    r = run(once, *args)
    if r.returncode != 0:
        return False, f"{sysname}: {aname} runs uninterrupted", r.stderr
    want = tree(once, hist)
    bad, points = [], 0
    for n in range(1, 400):
        work = copy(start, os.path.join(cwork, "killed"))
        r = run(work, *args, kill_at=n)
        if r.returncode != -9:
            break
        points += 1
        # uninstall restores the system from before install
        u = copy(work, os.path.join(cwork, "then-uninstall"))
        ur = run(u, *unargs, leaks=n % LEAK_EVERY == 1)
        d = differ(before_install, tree(u)) + sanitizer(ur)
        if d:
            bad.append(f"kill at {n}, then uninstall (rc "
                       f"{ur.returncode} {ur.stderr.strip()}): "
                       + "; ".join(d[:4]))
        # the action again completes it
        rr = run(work, *args, leaks=n % LEAK_EVERY == 1)
        d = differ(want, tree(work, hist)) + sanitizer(rr)
        if d or rr.returncode != 0:
            bad.append(f"kill at {n}, then {aname} again (rc "
                       f"{rr.returncode} {rr.stderr.strip()}): "
                       + "; ".join(d[:4]))
    shutil.rmtree(cwork)
    return (points > 0 and not bad,
            f"{sysname}: {aname} killed at each of its {points} writes: "
            "uninstall restores every byte, mode and link from before "
            "install, and running it again gives what one run gives",
            "\n".join(bad[:6]))


# The systems with another fixer's changes run the one action they are
# for; the others every action but reliable off.
ONLY = {"tscsync-grub": "install", "reliable-grub": "reliable off",
        "reliable-sdboot": "reliable off"}
CELLS = [(s[0], a[0]) for s in SYSTEMS for a in ACTIONS
         if ONLY.get(s[0], a[0]) == a[0] and
         (s[0] in ONLY or a[0] != "reliable off")]
t = Tap(plan=len(CELLS))
os.makedirs(WORK, exist_ok=True)
# Thousands of runs, each fsyncing its ledger: on a tmpfs (when this runs
# as root, as make check does) they cost nothing; elsewhere the test is
# the same, only slower.
subprocess.run(["umount", WORK], capture_output=True)
tmpfs = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512m",
                        "tsctui-crash", WORK],
                       capture_output=True).returncode == 0
for d in os.listdir(WORK):
    shutil.rmtree(os.path.join(WORK, d))
# The cells are independent: on two workers (the machine's two cores) the
# suite, make check's longest host suite, takes half the time; the results
# come back in the cells' order.
with multiprocessing.Pool(2) as pool:
    for passed, name, detail in pool.imap(cell, CELLS):
        t.ok(passed, name, detail)

if tmpfs:
    subprocess.run(["umount", WORK], capture_output=True)
sys.exit(t.done())

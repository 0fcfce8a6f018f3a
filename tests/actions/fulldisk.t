#!/usr/bin/env python3
"""A full disk (issue 24, DESIGN.md 8.1): install on a root whose file
system (a 4 MiB tmpfs of this test's own) runs out of space at each
point in turn, from the first write to the last.  Whenever it fails:

- exit 2, one line on stderr;
- every change it made and could not undo (its undo needs space too) is
  named on stdout ("left: PATH"), and the line says that uninstall takes
  them back once there is free space;
- once the space is freed, `tsctui uninstall` gives back the tree from
  before install, byte for byte (a clean refusal needs no uninstall)."""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from paths import BUILD, TSCTUI  # noqa: E402
from tap import Tap  # noqa: E402

WORK = os.path.join(BUILD, "fulldisk-tests")
FS = os.path.join(WORK, "fs")
STEP = 8 * 1024

t = Tap(plan=3)
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(FS)
m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", FS],
                   capture_output=True, text=True)
if m.returncode != 0:
    print(f"Bail out! cannot mount a tmpfs: {m.stderr}")
    sys.exit(1)


def run(root, *args):
    return subprocess.run([TSCTUI, "--root", root, *args],
                          capture_output=True, text=True)


TEMPLATE = fx.debian_grub(os.path.join(WORK, "template"))


def fresh(short_by):
    """The fixture root on the tmpfs, the rest of it filled but short_by
    bytes."""
    for n in os.listdir(FS):
        p = os.path.join(FS, n)
        shutil.rmtree(p) if os.path.isdir(p) else os.unlink(p)
    root = os.path.join(FS, "root")
    subprocess.run(["cp", "-a", TEMPLATE, root], check=True)
    st = os.statvfs(FS)
    with open(os.path.join(FS, "fill"), "wb") as f:
        f.write(b"\0" * max(0, st.f_bavail * st.f_frsize - short_by))
    return root


def attempt(short):
    """install short of space by `short` bytes; what went wrong, in
    three lists (None: it had enough)."""
    root = fresh(short)
    before = fx.tree(root)
    r = run(root, "install")
    if r.returncode == 0:
        return None
    after = fx.tree(root)
    # What install changed outside its own bookkeeping, the top of each
    # change (a directory made stands for what is in it).
    changed = sorted(p for p in set(before) | set(after)
                     if before.get(p) != after.get(p) and
                     not p.startswith("var/lib/tsctui/"))
    tops = [p for p in changed
            if not any(p.startswith(q + "/") for q in changed)]
    named = [ln[len("left: "):].split(" (")[0]
             for ln in r.stdout.splitlines() if ln.startswith("left: ")]
    out = {"lines": [], "unnamed": [], "undone": [], "left": bool(tops)}
    if r.stderr.count("\n") != 1:
        out["lines"].append(f"short by {short}: {r.stderr!r}")
    if tops and ([p for p in tops if "/" + p not in named] or
                 "uninstall" not in r.stderr or
                 "free space" not in r.stderr):
        out["unnamed"].append(f"short by {short}: left {tops}, named "
                              f"{named}: {r.stderr.strip()}")
    os.unlink(os.path.join(FS, "fill"))
    u = run(root, "uninstall")
    d = fx.differ(before, fx.tree(root))
    if d:
        out["undone"].append(f"short by {short}: uninstall with space: "
                             f"{u.returncode} {u.stderr.strip()} {d[:3]}")
    return out


try:
    failed = left_cases = 0
    lines, unnamed, undone = [], [], []
    # Coarse steps to where it has enough, then fine steps over the first
    # and the last of the way, where the bookkeeping's writes fail.
    done, short, enough = {}, 0, None
    while short < 2 << 20 and enough is None:
        done[short] = attempt(short)
        if done[short] is None:
            enough = short
        short += 64 * 1024
    if enough is not None:
        for s in list(range(0, 64 * 1024, STEP)) + \
                list(range(max(0, enough - 64 * 1024), enough, STEP)):
            if s not in done:
                done[s] = attempt(s)
    for s, out in sorted(done.items()):
        if out is None:
            continue
        failed += 1
        left_cases += out["left"]
        lines += out["lines"]
        unnamed += out["unnamed"]
        undone += out["undone"]
    t.ok(failed > 5 and enough is not None,
         f"install failed for want of space {failed} times before it had "
         "enough", f"{failed} {enough}")
    t.ok(left_cases > 0 and not unnamed,
         f"each of the {left_cases} failures that could not undo names "
         "every change it left and says uninstall takes them back once "
         "there is free space", "\n".join(unnamed[:6]))
    t.ok(not lines and not undone,
         "every failure is one line, and uninstall with space gives back "
         "the tree from before install", "\n".join((lines + undone)[:6]))
finally:
    subprocess.run(["umount", FS], capture_output=True)
shutil.rmtree(WORK, ignore_errors=True)
t.done()
sys.exit(1 if t.failed else 0)

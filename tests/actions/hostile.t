#!/usr/bin/env python3
"""The actions against a root that fights back (DESIGN.md 9.3): paths and
links that lead out of --root, a ledger and a configuration written by
someone else, an ESP that is not FAT, options that do not apply, two
tsctui at once, and file systems that refuse writes half way.  Each either
works inside the root or is refused with one line and exit 2; nothing
outside the root is ever touched, and what was changed is undone."""
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from paths import BUILD, TSCTUI, nobody_place  # noqa: E402
from tap import Tap  # noqa: E402

WORK = os.path.join(BUILD, "hostile-tests")
t = Tap()
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
# What must never change: a directory beside the roots, named by links and
# ".." inside them.
OUTSIDE = os.path.join(WORK, "outside")


def make_outside():
    shutil.rmtree(OUTSIDE, ignore_errors=True)
    os.makedirs(os.path.join(OUTSIDE, "EFI"))
    with open(os.path.join(OUTSIDE, "victim"), "w") as f:
        f.write("not tsctui's\n")


# What runs as nobody lives where nobody can reach it, with its own copy
# of tsctui, whatever the checkout's parents allow.
NOBODY_DIR, NOBODY_TSCTUI = nobody_place()


def run(root, *args, env=None, user=None):
    cmd = [NOBODY_TSCTUI if user else TSCTUI, "--root", root, *args]
    if user:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534",
               "--clear-groups"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


tree, differ = fx.tree, fx.differ


def refused(name, root, args, words, env=None, user=None):
    """exit 2, one line naming the problem, no byte changed in the root or
    outside it."""
    make_outside()
    before, outside = tree(root), tree(OUTSIDE)
    r = run(root, *args, env=env, user=user)
    d = differ(before, tree(root)) + differ(outside, tree(OUTSIDE))
    t.ok(r.returncode == 2 and r.stderr.count("\n") == 1 and
         all(w in r.stderr for w in words) and not d,
         f"refused: {name}", f"rc {r.returncode} {r.stderr!r} {d[:5]}")


def inside(name, root, args, env=None):
    """It works, inside the root: nothing outside changes, and uninstall
    gives back the root as it was."""
    make_outside()
    before, outside = tree(root), tree(OUTSIDE)
    r = run(root, *args, env=env)
    u = run(root, "uninstall")
    d = differ(before, tree(root)) + differ(outside, tree(OUTSIDE))
    t.ok(r.returncode == 0 and u.returncode == 0 and not d,
         f"{name}: done inside the root, outside untouched, uninstall "
         "restores the root", f"{r.returncode} {r.stderr} / "
         f"{u.returncode} {u.stderr} {d[:5]}")
    return r


def fresh(name, make=fx.debian_grub, **kw):
    return make(os.path.join(WORK, name), **kw)


def rel_out(root):
    """OUTSIDE as a path of ".."s from the root's top."""
    return "/" + "../" * 12 + OUTSIDE.lstrip("/")


# ---- nothing outside the root -------------------------------------------
root = fresh("esp-dotdot")
refused("install --esp /../../.. (no climbing out of --root)", root,
        ["install", "--esp", "/../../.."], ["--esp", ".."])
refused("install --esp with .. to a directory outside", root,
        ["install", "--esp", rel_out(root)], ["--esp"])

root = fresh("ledger-dotdot")
r = run(root, "install")
with open(os.path.join(root, "var/lib/tsctui/ledger"), "a") as f:
    f.write("file " + rel_out(root) + "/victim\n")
refused("a ledger line with .. (uninstall touches nothing)", root,
        ["uninstall"], ["ledger", "damaged"])
with open(os.path.join(root, "var/lib/tsctui/ledger")) as f:
    lines = f.read().splitlines()
with open(os.path.join(root, "var/lib/tsctui/ledger"), "w") as f:
    f.write("\n".join(lines[:-1] + ["file " + OUTSIDE + "/victim"]) + "\n")
make_outside()
r = run(root, "uninstall")
t.ok(os.path.exists(os.path.join(OUTSIDE, "victim")),
     "a ledger line naming a host path removes the root's file of that "
     "name, never the host's", r.stderr)

root = fresh("conf-dotdot")
run(root, "install")
conf = os.path.join(root, "etc/tsctui/tsctui.conf")
with open(conf) as f:
    text = f.read()
with open(conf, "w") as f:
    f.write(text.replace("esp=/boot/efi", "esp=" + rel_out(root)))
refused("esp= with .. in tsctui.conf (mode sync writes nowhere)", root,
        ["mode", "sync"], ["tsctui.conf"])

# Links inside the root that point out of it are the root's own links:
# followed as that system would follow them, with the root as "/".
root = fresh("esp-link")
shutil.rmtree(os.path.join(root, "boot/efi"))
os.symlink(OUTSIDE, os.path.join(root, "boot/efi"))
os.makedirs(os.path.join(root, OUTSIDE.lstrip("/"), "EFI"))
inside("boot/efi a link to an absolute path", root, ["install"])
t.ok(not os.path.exists(os.path.join(OUTSIDE, "EFI/tsctui")),
     "... and the stage went to the root's copy of that path")

for link in ("etc/tsctui", "var/lib/tsctui"):
    root = fresh("link-" + link.replace("/", "-"))
    os.makedirs(os.path.join(root, OUTSIDE.lstrip("/")), exist_ok=True)
    os.symlink(OUTSIDE, os.path.join(root, link))
    make_outside()
    outside = tree(OUTSIDE)
    before = tree(root)
    r = run(root, "install")
    u = run(root, "uninstall") if r.returncode == 0 else r
    t.ok(not differ(outside, tree(OUTSIDE)) and
         (r.returncode == 2 or not differ(before, tree(root))),
         f"/{link} a link out of the root: nothing outside is written "
         "(install works inside the root, or is refused)",
         f"{r.returncode} {r.stderr} {u.stderr} "
         f"{differ(outside, tree(OUTSIDE))[:3]}")

# FIFOs and devices where files belong: read as nothing, never waited on.
root = fresh("fifos")
run(root, "install")
for f in ("etc/tsctui/tsctui.conf", "proc/cpuinfo", "var/lib/tsctui/ledger"):
    os.unlink(os.path.join(root, f))
    os.mkfifo(os.path.join(root, f))
os.unlink(os.path.join(root, "proc/cmdline"))
os.symlink("/dev/zero", os.path.join(root, "proc/cmdline"))
os.makedirs(os.path.join(root, "dev"), exist_ok=True)
subprocess.run(["mknod", os.path.join(root, "dev/zero"), "c", "1", "5"], check=True)
hung = []
for args in (["status"], ["mode", "off"], ["uninstall"], ["install"]):
    try:
        r = subprocess.run([TSCTUI, "--root", root, *args],
                           capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        hung.append(" ".join(args))
t.ok(not hung, "FIFOs for the conf, cpuinfo and the ledger and a link to "
     "/dev/zero for /proc/cmdline: no command waits on them", hung)

# ---- Fedora's grubenv link ----------------------------------------------
root = fresh("fedora-link", make=fx.fedora_grubby)
env_file = os.path.join(root, "boot/efi/EFI/fedora/grubenv")
os.replace(os.path.join(root, "boot/grub2/grubenv"), env_file)
os.symlink("../efi/EFI/fedora/grubenv",
           os.path.join(root, "boot/grub2/grubenv"))
before = tree(root)
r = run(root, "install")
link = os.path.join(root, "boot/grub2/grubenv")
with open(env_file, "rb") as f:
    body = f.read()
t.ok(r.returncode == 0 and os.path.islink(link) and
     os.readlink(link) == "../efi/EFI/fedora/grubenv" and
     b"tsctui_mode=measure" in body and len(body) == 1024,
     "a symlinked grubenv stays a link; the file it points to gets the "
     "variables GRUB reads", r.stderr)
r = run(root, "uninstall")
t.ok(r.returncode == 0 and not differ(before, tree(root)),
     "... and uninstall restores both, byte for byte",
     f"{r.stderr} {differ(before, tree(root))[:4]}")

# ---- the ESP, and options for another loader ----------------------------
root = fresh("esp-checks")
refused("install --esp '' ", root, ["install", "--esp", ""], ["--esp"])
refused("install --esp / where / is ext4", root, ["install", "--esp", "/"],
        ["FAT", "ext4"])
refused("install --next with the GRUB loader", root,
        ["install", "--loader", "grub", "--next", "Boot0001"],
        ["--next", "efi-entry"])
env = dict(os.environ)
env.pop("TSCTUI_TEST_ANY_ESP_FS")
make_outside()
before = tree(root)
r = subprocess.run([TSCTUI, "--root", root, "install"], capture_output=True,
                   text=True, env=env)
t.ok(r.returncode == 2 and "not on a FAT file system" in r.stderr and
     not differ(before, tree(root)),
     "an ESP the mount table calls vfat but whose file system is not FAT "
     "is refused (only the tests' switch lets a fixture stand in)",
     r.stderr)

# ---- one at a time --------------------------------------------------------
lost = []
for i in range(6):
    root = fresh("race")
    before = tree(root)
    a = subprocess.Popen([TSCTUI, "--root", root, "install"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    b = subprocess.Popen([TSCTUI, "--root", root, "kernel-arg",
                          "nowatchdog", "on"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ea, eb = a.communicate()[1], b.communicate()[1]
    u = run(root, "uninstall")
    d = differ(before, tree(root))
    if a.returncode or b.returncode or u.returncode or d:
        lost.append(f"round {i}: {a.returncode} {ea} {b.returncode} {eb} "
                    f"{u.stderr} {d[:3]}")
t.ok(not lost, "install and kernel-arg on at once, 6 times: both succeed, "
     "one after the other, and uninstall then restores every byte",
     "\n".join(lost))

root = fresh("held")
run(root, "install")
# Under --root the lock is the root directory itself (DESIGN.md 8.1).
holder = subprocess.Popen(["flock", root, "sleep", "2"])
time.sleep(0.3)
refused("mode while another tsctui holds the lock (waits, then says so)",
        root, ["mode", "off"], ["another tsctui"],
        env={"TSCTUI_LOCK_WAIT": "0.5"})
r = run(root, "boot-ok", env={"TSCTUI_LOCK_WAIT": "0.1"})
holder.wait()
t.ok(r.returncode == 0,
     "boot-ok waits for the lock however long it is held (it never gives "
     "up: that would make the next boot look hung)", r.stderr)

# ---- file systems that refuse writes ------------------------------------
# Read-only for the user running it: the BLS entries on the ESP cannot be
# rewritten; kernel-arg fails and undoes what it did (the cmdline file and
# the setting) without trying to restore the entry it never changed.
root = fx.systemd_boot(os.path.join(NOBODY_DIR, "ro-entries"))
run(root, "install")
subprocess.run(["chown", "-R", "nobody:nogroup", root], check=True)
os.chmod(os.path.join(root, "efi/loader/entries"), 0o555)
before = tree(root)
r = run(root, "kernel-arg", "nowatchdog", "on", user="nobody")
t.ok(r.returncode == 2 and r.stderr.count("\n") == 1 and
     not differ(before, tree(root)),
     "kernel-arg on, the entries read-only: refused, and /etc/kernel/cmdline "
     "and the setting are gone again", f"{r.stderr} "
     f"{differ(before, tree(root))[:4]}")

# A full ESP (a small tmpfs): the stage image does not fit; install fails
# and leaves no half-written *.tsctui-new and no other change.
root = fresh("full-esp", make=fx.systemd_boot)
esp = os.path.join(root, "efi")
m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "none", esp],
                   capture_output=True, text=True)
if m.returncode != 0:
    t.ok(False, "mount a small tmpfs as the ESP (needs root)", m.stderr)
else:
    try:
        fx.write(root, "/efi/loader/loader.conf", "timeout 3\n")
        fx.write(root, "/efi/EFI/systemd/systemd-bootx64.efi", b"MZ")
        before = tree(root)
        r = run(root, "install")
        t.ok(r.returncode == 2 and "No space left" in r.stderr and
             not differ(before, tree(root)),
             "install on a full ESP: refused with the reason, no "
             "*.tsctui-new left, every file as it was",
             f"{r.stderr} {differ(before, tree(root))[:4]}")
        # read-only half way: the ESP becomes read-only after install
        subprocess.run(["umount", esp], check=True)
        subprocess.run(["mount", "-t", "tmpfs", "none", esp], check=True)
        fx.write(root, "/efi/loader/loader.conf", "timeout 3\n")
        fx.write(root, "/efi/loader/entries/debian.conf",
                 "title Debian\noptions root=UUID=0f quiet\n")
        fx.write(root, "/efi/EFI/systemd/systemd-bootx64.efi", b"MZ")
        pristine = tree(root)
        r = run(root, "install")
        subprocess.run(["mount", "-o", "remount,ro", esp], check=True)
        before = tree(root)
        k = run(root, "kernel-arg", "nowatchdog", "on")
        after = tree(root)
        u = run(root, "uninstall")
        left = u.stderr
        subprocess.run(["mount", "-o", "remount,rw", esp], check=True)
        u2 = run(root, "uninstall")
        t.ok(r.returncode == 0 and k.returncode == 2 and
             not differ(before, after) and u.returncode == 2 and
             "/efi/" in left and u2.returncode == 0 and
             not differ(pristine, tree(root)),
             "ESP read-only after install: kernel-arg is refused and "
             "undone; uninstall says what it could not remove; once the "
             "ESP is writable again, uninstall finishes and every byte is "
             "back", f"{r.stderr} | {k.stderr} | {left} | {u2.stderr} | "
             f"{differ(before, after)[:3]} "
             f"{differ(pristine, tree(root))[:3]}")
    finally:
        subprocess.run(["umount", esp], capture_output=True)

shutil.rmtree(NOBODY_DIR, ignore_errors=True)
sys.exit(t.done())

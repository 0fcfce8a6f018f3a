#!/usr/bin/env python3
"""What the command line says when it cannot do what it is asked
(issue 24): never a raw control character from a value the user typed
(an unknown mode, command or option, a --root path), one line for each
refusal; status names a corrupt grubenv, or a state file on the ESP that
is not a file, and the way out, instead of empty mode and guard fields;
an action whose file is a FIFO or a directory names it and the way out;
under --root, an ESP that the target's fstab names and that is not
mounted under the root is named with the command that mounts it, and one
mounted there is found by its UUID for a firmware entry (or, when the
root has no /dev/disk to say which partition it is, named with the
commands that give it one); a
refused uninstall takes no lock (it refuses even while another action
holds it)."""
import fcntl
import json
import os
import re
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

t = Tap(plan=len(ECHOES) + 15)
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

# ---- an ESP the target's fstab names, not mounted under the root ---------
# A disk mounted from a live system has no mount table of its own (no
# /proc in it): the target's fstab says where its ESP goes, and when
# nothing is mounted there the refusal says so and how to mount it.
live = fx.debian_grub(os.path.join(WORK, "live"))
os.unlink(os.path.join(live, "proc/self/mounts"))


def install_with_esp_in_fstab(device):
    """install under the live disk whose fstab puts device at /boot/efi:
    (its result, its standard error, whether the tree is unchanged)."""
    fx.write(live, "/etc/fstab", "# <file system> <mount point> <type>\n"
             "UUID=0f1e2d3c / ext4 errors=remount-ro 0 1\n"
             f"{device} /boot/efi vfat umask=0077 0 1\n")
    before = fx.tree_digest(live)
    r = run("install", root=live)
    return r, r.stderr.decode(), fx.tree_digest(live) == before


r, err, same = install_with_esp_in_fstab("UUID=ABCD-1234")
t.ok(r.returncode == 2 and err.count("\n") == 1 and
     "not mounted under" in err and "/etc/fstab" in err and
     f"mount -o nodev,nosuid UUID=ABCD-1234 {live}/boot/efi" in err and same,
     "install under --root, the ESP in the target's fstab and not mounted "
     "under the root: one line naming it and the mount command, exit 2, "
     "nothing changed", err)

# The fstab's device is the disk's words: a device with shell syntax and
# an escape sequence in it is shown escaped, and no command is built from
# it for the user to paste as root (the line offered `mount -o
# nodev,nosuid UUID=AB;touch /tmp/x ...` before).
r, err, same = install_with_esp_in_fstab(
    "UUID=AB;touch\\040/tmp/tsctui-pwn\033[2J")
t.ok(r.returncode == 2 and err.count("\n") == 1 and clean(r.stderr) and
     "\\x1b[2J" in err and "mount -o" not in err and
     f"mount it at {live}/boot/efi with nodev,nosuid" in err and same,
     "an fstab ESP device with shell syntax and ESC: shown escaped, no "
     "command built from it, one line, exit 2, nothing changed", err)

# The root's mount table, too: a non-FAT ESP's device and mount point are
# named escaped.
bad = fx.debian_grub(os.path.join(WORK, "notfat"))
mounts = open(os.path.join(bad, "proc/self/mounts")).read()
fx.write(bad, "/proc/self/mounts", mounts + "/dev/sdz9\033[2J /mnt/esp ext4 "
         "rw 0 0\n")
os.makedirs(os.path.join(bad, "mnt/esp"), exist_ok=True)
before = fx.tree_digest(bad)
r = subprocess.run([TSCTUI, "--root", bad, "install", "--esp", "/mnt/esp"],
                   capture_output=True,
                   env={k: v for k, v in os.environ.items()
                        if k != "TSCTUI_TEST_ANY_ESP_FS"})
err = r.stderr.decode()
t.ok(r.returncode == 2 and err.count("\n") == 1 and clean(r.stderr) and
     "must be a FAT file system" in err and "\\x1b[2J" in err and
     fx.tree_digest(bad) == before,
     "install --esp on a non-FAT mount whose device holds ESC: named "
     "escaped, one line, exit 2, nothing changed", err)

# ... and mounted under the root: install --loader efi-entry finds the
# ESP's partition from the UUID= through the root's /dev/disk/by-uuid
# (the partition's number, start and size from its /sys/class/block, its
# GUID from by-partuuid); without that link it says what to run.
def fstab_machine(name):
    r = fx.efi_machine(os.path.join(WORK, name))
    os.unlink(os.path.join(r, "proc/self/mounts"))
    fx.write(r, "/etc/fstab", f"UUID={fx.ROOT_UUID} / ext4 defaults 0 1\n"
             f"UUID={fx.ESP_UUID} /boot/efi vfat umask=0077 0 1\n")
    esp = os.path.join(r, "boot/efi")
    subprocess.run(["mount", "-t", "tmpfs", "tsctui-test", esp], check=True)
    fx.write(r, "/boot/efi/EFI/debian/grubx64.efi", b"MZ not really grub")
    return r, esp


def hd_of(root, var):
    with open(os.path.join(root, "sys/firmware/efi/efivars",
                           f"{var}-{fx.GLOBAL}"), "rb") as f:
        nodes = fx.parse_load_option(f.read()[4:])[2]
    return [n for n in nodes if n[:2] == (4, 1)]


root, esp = fstab_machine("fstab-efi-entry")
try:
    r = run("install", "--loader", "efi-entry", root=root)
    conf = open(os.path.join(root, "etc/tsctui/tsctui.conf")).read() \
        if r.returncode == 0 else ""
    entry = re.search(r"^efi_entry=(Boot[0-9A-F]{4})$", conf, re.M)
    got = hd_of(root, entry.group(1)) if entry else None
    u = run("uninstall", root=root)
finally:
    subprocess.run(["umount", esp], capture_output=True)
t.ok(r.returncode == 0 and got and got == hd_of(root, "Boot0001") and
     u.returncode == 0,
     "install --loader efi-entry under --root, the ESP UUID= in the target's "
     "fstab and mounted under the root: the entry's HD node is the ESP's "
     "partition (found through the root's /dev/disk/by-uuid)",
     f"{r.stderr} {got} {u.stderr}")
def refused_efi_entry(root, esp):
    """install --loader efi-entry on a root whose ESP is mounted at esp
    (unmounted after): its stderr, and whether it exited 2 with one line
    and left the tree as it was."""
    try:
        before = fx.tree_digest(root)
        r = run("install", "--loader", "efi-entry", root=root)
        after = fx.tree_digest(root)
    finally:
        subprocess.run(["umount", esp], capture_output=True)
    err = r.stderr.decode()
    return err, r.returncode == 2 and err.count("\n") == 1 and \
        before == after


root, esp = fstab_machine("fstab-no-by-uuid")
os.unlink(os.path.join(root, "dev/disk/by-uuid", fx.ESP_UUID))
err, clean = refused_efi_entry(root, esp)
t.ok(clean and f"UUID={fx.ESP_UUID}" in err and
     f"mount --rbind /dev {root}/dev" in err,
     "... and with no such link under the root: one line naming the UUID "
     "and the commands that give the root /dev and /sys, exit 2, nothing "
     "changed", err)
# A hostile fstab's device (an escape sequence inside the field) is shown
# escaped, as every path from the disk is, not passed on to the terminal
# or merely masked.
root, esp = fstab_machine("fstab-hostile-dev")
fx.write(root, "/etc/fstab", f"UUID={fx.ROOT_UUID} / ext4 defaults 0 1\n"
         "UUID=1A2B\x1b[2J3C4D /boot/efi vfat umask=0077 0 1\n")
err, clean = refused_efi_entry(root, esp)
t.ok(clean and "UUID=1A2B\\x1b[2J3C4D" in err and "\x1b" not in err,
     "... and a device with an escape sequence in the target's fstab: shown "
     "escaped (\\x1b) in the one line, exit 2, nothing changed", err)

# ---- check --load-rtc under another root ----------------------------------
# rtc_cmos would go into the running kernel, which the target's modules do
# not describe: refused before anything is read or loaded (it read the
# host's modules outside the root and, as root, tried to load it).
before = fx.tree_digest(live)
r = run("check", "--load-rtc", "--samples", "1", root=live)
err = r.stderr.decode()
t.ok(r.returncode == 2 and err.count("\n") == 1 and r.stdout == b"" and
     "--load-rtc" in err and "without --root" in err and
     fx.tree_digest(live) == before,
     "check --load-rtc under --root: one line saying to run it without "
     "--root, exit 2, nothing sampled", f"{r.returncode} {err!r} "
     f"{r.stdout[:200]!r}")

# ---- a refused uninstall takes no lock -------------------------------------
# Another action holds the root's lock (under --root, a lock on the root
# directory itself): a refusal that needs no lock still refuses for its
# own reason at once; an action that takes the lock says it is held
# (which shows the lock is really held).
clean = os.path.join(WORK, "clean")
os.makedirs(os.path.join(clean, "var/lib"))
held = os.open(clean, os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(held, fcntl.LOCK_EX)
env = dict(os.environ, TSCTUI_LOCK_WAIT="0")
outs = [subprocess.run([TSCTUI, "--root", clean, "uninstall", *f],
                       capture_output=True, env=env)
        for f in ([], ["--force"])]
sdl = os.path.join(WORK, "sd-noledger")
shutil.copytree(sd, sdl, symlinks=True)
fx.damage_ledger(sdl, "missing")
outs.append(subprocess.run([TSCTUI, "--root", sdl, "uninstall"],
                           capture_output=True, env=env))
fcntl.flock(held, fcntl.LOCK_UN)
os.close(held)
held = os.open(sd, os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(held, fcntl.LOCK_EX)
busy = subprocess.run([TSCTUI, "--root", sd, "uninstall"],
                      capture_output=True, env=env)
fcntl.flock(held, fcntl.LOCK_UN)
os.close(held)
t.ok(all(o.returncode == 2 and o.stderr.count(b"\n") == 1 and
         b"another tsctui" not in o.stderr for o in outs) and
     b"not installed here" in outs[0].stderr and
     b"not installed here" in outs[1].stderr and
     b"uninstall --force" in outs[2].stderr and
     busy.returncode == 2 and b"another tsctui" in busy.stderr,
     "uninstall refused (nothing installed; --force on nothing; no ledger) "
     "while another action holds the lock: its own one line, no wait for "
     "the lock; an uninstall that would act says the lock is held",
     [o.stderr for o in outs] + [busy.stderr])

# The same on the running system (no --root), where the lock is
# /run/tsctui.lock: a refused uninstall creates no lock file.  Run in a
# mount namespace of its own, with a fresh tmpfs as /run (as at boot), so
# the machine's /run is never written; an existing /var/lib/tsctui is
# covered by an empty tmpfs there too, so uninstall has no ledger to
# replay and can only refuse (whatever else this machine holds).
LIVE = ('mount -t tmpfs -o mode=0755 tsctui-test /run || exit 90; '
        '[ ! -d /var/lib/tsctui ] || '
        'mount -t tmpfs tsctui-test /var/lib/tsctui || exit 90; '
        '"$0" "$@"; rc=$?; '
        '[ ! -e /run/tsctui.lock ] || echo "LOCK FILE CREATED" >&2; '
        'exit $rc')
lives = [subprocess.run(["unshare", "-m", "--propagation", "private", "sh",
                         "-c", LIVE, TSCTUI, "uninstall", *f],
                        capture_output=True)
         for f in ([], ["--force"])]
t.ok(all(o.returncode == 2 and o.stderr.count(b"\n") == 1 and
         b"LOCK FILE CREATED" not in o.stderr for o in lives),
     "uninstall and uninstall --force refused on the running system: one "
     "line, exit 2, and no /run/tsctui.lock",
     [(o.returncode, o.stderr) for o in lives])

t.done()
shutil.rmtree(WORK, ignore_errors=True)
sys.exit(1 if t.failed else 0)

#!/usr/bin/env python3
"""Hostile roots (issue 24, DESIGN.md 8.1): a disk mounted for recovery is
data, not code.  For each kind of file access tsctui has (atomic write,
modify, append, backup copy, restore, read, directory create, lock), one
file that uses it is made into each hostile thing in turn: a link to a
victim outside the root at the file, at its .tsctui-new, at its backup,
at its parent directory; a FIFO; a character node; a block node (of a
loop device this test sets up); a link loop.  The commands that reach the
file then run, and after each one:

- nothing outside the root changed: the victim file (bytes and mode), the
  loop device's first bytes and mode, the working directory;
- no FIFO or device node in the root was opened (inotify on each: a
  driver's open() runs the moment a node is opened, whatever comes after);
- no file in the root holds the victim's secret (a read that left the
  root and copied a host file in);
- the command worked, or failed with exit 2 and one line on stderr, and
  did not hang.

A BLS entry named with a tab, a newline and ESC goes through kernel-arg
and uninstall and the root comes back as it was; such a name in every
other directory tsctui lists is shown escaped and never taken for a UUID.
A read-only ESP subtree where install makes a directory is refused with
one line.  Every command that takes --root runs once under strace: none
touches this machine's /dev, /proc, /sys, /run or /var.  A root named
with a quote and shell syntax reaches sbsign as one argument."""
import ctypes
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from paths import BUILD, TOP, TSCTUI  # noqa: E402
from tap import Tap  # noqa: E402

WORK = os.path.join(BUILD, "roots-tests")
OUTSIDE = os.path.join(WORK, "outside")
VICTIM = os.path.join(OUTSIDE, "victim")
SECRET = b"victim-secret-5f1c9e: not the disk's\n"
CWD = os.path.join(WORK, "cwd")
LOOP_HEAD = b"LOOP-VICTIM-HEAD" * 256
TIMEOUT = 15
# The optimised build, for the runs under strace: the sanitizers' own
# start-up (and LeakSanitizer, which cannot run under ptrace) only slow
# them, and every other run here is the sanitized one.
PLAIN = os.path.join(TOP, "tui", "tsctui")

# kind: (template, the file, the commands that reach it, in order)
KINDS = [
    ("atomic write", "plain", "/etc/tsctui/nowatchdog",
     [["kernel-arg", "nowatchdog", "on"], ["uninstall"]]),
    ("modify (guard reset)", "installed", "/boot/grub/grubenv",
     [["guard", "reset"], ["mode", "sync"], ["boot-ok"], ["uninstall"]]),
    ("append", "installed", "/var/lib/tsctui/history",
     [["boot-ok"], ["history"]]),
    ("backup copy", "plain", "/boot/grub/grubenv",
     [["install"], ["uninstall"]]),
    ("restore", "bls",
     "/var/lib/tsctui/backup/efi/loader/entries/debian-6.1.0-28-amd64.conf",
     [["uninstall"]]),
    ("read", "installed", "/etc/tsctui/tsctui.conf",
     [["status"], ["mode", "off"]]),
    ("directory create", "plain", "/etc/default/grub.d",
     [["kernel-arg", "nowatchdog", "on"], ["uninstall"]]),
    ("lock", "installed", "/run/tsctui.lock", [["mode", "off"]]),
]
VECTORS = ["link", "link with ..", "link at .tsctui-new", "link at backup",
           "link at parent", "fifo", "char node", "block node",
           "link loop"]
WALK_VECTORS = ["link", "link with ..", "link at parent", "link loop"]

# Every command that takes --root, run under strace on a fixture of each
# loader (args, the exit codes it may give).
HOST_RUNS = [
    ("efi", ["status"], (0, 1)),
    ("efi", ["report"], (2,)),
    ("efi", ["check", "--samples", "1", "--interval", "0"], (0, 1)),
    ("efi", ["check", "--load-rtc", "--samples", "1"], (2,)),
    ("efi", ["bench"], (0,)),
    ("efi", ["history"], (0,)),
    ("efi", ["install"], (0,)),
    ("efi", ["mode", "sync"], (0,)),
    ("efi", ["guard", "reset"], (0,)),
    ("efi", ["kernel-arg", "nowatchdog", "on"], (0,)),
    ("efi", ["boot-ok"], (0,)),
    ("efi", ["uninstall"], (0,)),
    ("efi", ["install", "--loader", "efi-entry"], (0,)),
    ("efi", ["uninstall"], (0,)),
    ("sd", ["install"], (0,)),
    ("sd", ["uninstall", "--purge"], (0,)),
]

# A read-only subtree of the ESP where install makes a directory: (fixture,
# the read-only directory).
RO_SUBDIRS = [("grub", "boot/efi/EFI"), ("sd", "efi/EFI"),
              ("sd", "efi/EFI/systemd")]

t = Tap()
PLAN = (len(KINDS) * (len(VECTORS) + len(WALK_VECTORS)) + 19 +
        2 * len(HOST_RUNS) + 2 + 2 + 4 + len(RO_SUBDIRS))
print(f"1..{PLAN}")
sys.stdout.flush()

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(CWD)

# ---- the victims outside -------------------------------------------------


def make_outside():
    shutil.rmtree(OUTSIDE, ignore_errors=True)
    os.makedirs(os.path.join(OUTSIDE, "dir"))
    with open(VICTIM, "wb") as f:
        f.write(SECRET)
    os.chmod(VICTIM, 0o600)


make_outside()
img = os.path.join(WORK, "loop.img")
with open(img, "wb") as f:
    f.write(LOOP_HEAD + b"\0" * (1 << 20))
r = subprocess.run(["losetup", "--find", "--show", img],
                   capture_output=True, text=True)
LOOP = r.stdout.strip()
t.ok(r.returncode == 0 and LOOP.startswith("/dev/loop"),
     "a loop device on a file of this test's own, as a victim block "
     "device", r.stderr)
if not LOOP.startswith("/dev/loop"):
    sys.exit(1)
os.chmod(LOOP, 0o600)
LOOP_RDEV = os.stat(LOOP).st_rdev


def loop_state():
    with open(LOOP, "rb") as f:
        head = f.read(len(LOOP_HEAD))
    return head, stat.S_IMODE(os.stat(LOOP).st_mode)


LOOP_BEFORE = loop_state()

# ---- inotify: was a node in the root opened? ----------------------------
libc = ctypes.CDLL(None, use_errno=True)
IN_OPEN = 0x20
IN_NONBLOCK = os.O_NONBLOCK
INOTIFY = libc.inotify_init1(IN_NONBLOCK | os.O_CLOEXEC)


def watch(path):
    return libc.inotify_add_watch(INOTIFY, path.encode(), IN_OPEN)


def opened():
    """The watched nodes opened since the last call."""
    wds = set()
    while True:
        try:
            buf = os.read(INOTIFY, 65536)
        except BlockingIOError:
            return wds
        i = 0
        while i + 16 <= len(buf):
            wd, mask, _, n = struct.unpack_from("iIII", buf, i)
            if mask & IN_OPEN:
                wds.add(wd)
            i += 16 + n


# ---- templates, copied per case -----------------------------------------
TEMPLATES = {}
TEMPLATES["plain"] = fx.debian_grub(os.path.join(WORK, "tpl-plain"))
TEMPLATES["installed"] = fx.debian_grub(os.path.join(WORK, "tpl-installed"))
r = subprocess.run([TSCTUI, "--root", TEMPLATES["installed"], "install"],
                   capture_output=True, text=True)
TEMPLATES["efi"] = fx.efi_machine(os.path.join(WORK, "tpl-efi"))
TEMPLATES["sd"] = fx.systemd_boot(os.path.join(WORK, "tpl-sd-plain"))
TEMPLATES["bls"] = fx.systemd_boot(os.path.join(WORK, "tpl-bls"))
k = subprocess.run([TSCTUI, "--root", TEMPLATES["bls"], "kernel-arg",
                    "nowatchdog", "on"], capture_output=True, text=True)
if r.returncode != 0 or k.returncode != 0:
    subprocess.run(["losetup", "-d", LOOP], capture_output=True)
    print(f"Bail out! the templates failed: {r.stderr} {k.stderr}")
    sys.exit(1)


def new_root(template, name):
    root = os.path.join(WORK, name)
    shutil.rmtree(root, ignore_errors=True)
    subprocess.run(["cp", "-a", TEMPLATES[template], root], check=True)
    return root


def place(root, sys_path, vector):
    """Makes the hostile thing; returns the special nodes to watch."""
    p = os.path.join(root, sys_path.lstrip("/"))
    nodes = []

    def clear(q):
        if os.path.islink(q) or os.path.isfile(q):
            os.unlink(q)
        elif os.path.isdir(q):
            shutil.rmtree(q)
        os.makedirs(os.path.dirname(q), exist_ok=True)

    if vector == "link":
        clear(p)
        os.symlink(VICTIM, p)
    elif vector == "link with ..":
        clear(p)
        os.symlink("../" * 40 + VICTIM.lstrip("/"), p)
    elif vector == "link at .tsctui-new":
        q = p + ".tsctui-new"
        clear(q)
        os.symlink(LOOP, q)
    elif vector == "link at backup":
        q = os.path.join(root, "var/lib/tsctui/backup", sys_path.lstrip("/"))
        clear(q)
        os.symlink(VICTIM, q)
    elif vector == "link at parent":
        q = os.path.dirname(p)
        clear(q)
        os.symlink(os.path.join(OUTSIDE, "dir"), q)
    elif vector == "fifo":
        clear(p)
        os.mkfifo(p)
        nodes.append(p)
    elif vector == "char node":
        clear(p)
        os.mknod(p, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        nodes.append(p)
    elif vector == "block node":
        clear(p)
        os.mknod(p, 0o600 | stat.S_IFBLK, LOOP_RDEV)
        nodes.append(p)
    elif vector == "link loop":
        clear(p)
        os.symlink(os.path.basename(p) + ".loop", p)
        os.symlink(os.path.basename(p), p + ".loop")
    return nodes


def secret_inside(root):
    for d, _, files in os.walk(root):
        for n in files:
            q = os.path.join(d, n)
            st = os.lstat(q)
            if stat.S_ISREG(st.st_mode) and st.st_size < (1 << 20):
                with open(q, "rb") as f:
                    if SECRET in f.read():
                        return os.path.relpath(q, root)
    return None


def run(root, args):
    try:
        return subprocess.run([TSCTUI, "--root", root, *args], cwd=CWD,
                              capture_output=True, encoding="utf-8",
                              errors="replace", timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None


def check(root, commands, nodes):
    """Runs the commands; returns what went wrong (empty: nothing)."""
    wrong = []
    outside = fx.tree(OUTSIDE)
    wds = {watch(n): n for n in nodes}
    opened()
    for args in commands:
        r = run(root, args)
        cmd = " ".join(args)
        if r is None:
            wrong.append(f"{cmd}: still running after {TIMEOUT} s")
            continue
        if r.returncode not in (0, 1, 2) or (
                r.returncode == 2 and r.stderr.count("\n") != 1):
            wrong.append(f"{cmd}: exit {r.returncode}, stderr "
                         f"{r.stderr!r}")
        d = fx.differ(outside, fx.tree(OUTSIDE))
        if d:
            wrong.append(f"{cmd}: outside changed: {d[:3]}")
        if loop_state() != LOOP_BEFORE:
            wrong.append(f"{cmd}: the loop device changed: "
                         f"{loop_state()[0][:16]!r} mode "
                         f"{loop_state()[1]:o}")
        if os.listdir(CWD):
            wrong.append(f"{cmd}: left {os.listdir(CWD)} in its working "
                         "directory")
        got = opened()
        if got:
            wrong.append(f"{cmd}: opened {[wds.get(w, w) for w in got]}")
        s = secret_inside(root)
        if s:
            wrong.append(f"{cmd}: copied the victim's bytes into {s}")
    for w in wds:
        libc.inotify_rm_watch(INOTIFY, w)
    opened()
    return wrong


# ---- strace: the running system's own places ----------------------------
# Under --root nothing of the machine tsctui runs on is the target's: its
# /dev (kmsg, rtc0), /proc, /sys, /run and /var are never opened, looked
# at or written once the root is known.  strace -f sees every path a
# thread of tsctui names; an *at() call's path is taken from its directory
# fd (-y).  What comes before the first access to the root is the loader's
# and the libraries' start-up, before main: libefivar probes
# /sys/firmware/efi/{efivars,vars} in a constructor, the sanitizers read
# /proc/self.  /proc/self is the process itself (its own executable, which
# install looks beside for the stage image), not the machine.  Processes a
# tool runs in (execve'd children) are the tool's.
HOST_DIRS = ("/dev", "/proc", "/sys", "/run", "/var")
PLAIN_CALLS = {"open", "creat", "access", "stat", "lstat", "readlink",
               "statfs", "mkdir", "rmdir", "unlink", "chdir", "chmod",
               "chown", "lchown", "truncate", "chroot", "getxattr",
               "lgetxattr", "listxattr", "llistxattr", "rename", "link",
               "utimes", "utime"}
AT_PATH = re.compile(r'(?:AT_FDCWD|-?\d+)<([^>]*)>, "((?:[^"\\]|\\.)*)"')
# An *at() call that names its path from the working directory or by an
# absolute name: the kernel looks every component of it up again.
AT_NAMED = re.compile(r'(AT_FDCWD<[^>]*>|-?\d+<[^>]*>), "(/(?:[^"\\]|\\.)*)"')
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
CALL = re.compile(r"^(\d+)\s+(\w+)\((.*)")


def host_paths(log, root, given=None):
    """The host paths a traced tsctui named after it first reached the
    root, and the paths under the root it named by the root's name (not
    from the root's fd) after that first open, as "call path" strings."""
    lines = open(log, encoding="utf-8", errors="replace").read().splitlines()
    calls = [m.groups() for m in map(CALL.match, lines) if m]
    main = calls[0][0] if calls else None
    tools = {pid for pid, name, _ in calls
             if name == "execve" and pid != main}
    seen_root, found, by_name = False, [], []
    for pid, name, rest in calls:
        if pid in tools or name == "execve":
            continue
        paths = [os.path.join(d, p) if p else d
                 for d, p in AT_PATH.findall(rest)]
        named = [p for _, p in AT_NAMED.findall(rest)]
        if name in PLAIN_CALLS:
            plain = [p for p in STRING.findall(rest)[:2]
                     if p.startswith("/")]
            if name not in ("rename", "link"):
                plain = plain[:1]
            paths += plain
            named += plain
        for p in map(os.path.normpath, named):
            if seen_root and any(p == q or p.startswith(q + "/")
                                 for q in (root, given or root)):
                by_name.append(f"{name} {p}")
        for p in map(os.path.normpath, paths):
            if any(p == q or p.startswith(q + "/")
                   for q in (root, given or root)):
                seen_root = True
            elif (seen_root and p.startswith(HOST_DIRS) and
                  any(p == d or p.startswith(d + "/") for d in HOST_DIRS)
                  and not p.startswith(("/proc/self/", "/proc/thread-self/"))
                  and p != "/proc/self"):
                found.append(f"{name} {p}")
    return found, by_name


# ---- a name with a tab, a newline and ESC, everywhere tsctui lists -------
# The disk names its files; tsctui lists GRUB's drop-ins, BLS entries, the
# ESP, the journal, power supplies, /dev/disk/by-uuid and by-partuuid,
# dpkg's lists, the efivarfs directory and kernel-install's, and the
# force sweep walks EFI/tsctui and the backups.  Such a name is shown
# escaped (\t, \n, \x1b), never breaks a line (no output line starts with
# what follows its newline), is never taken for a UUID, and the actions
# work around it and give every byte back.
NAME = "na\tme\nFORGED\x1b[31m"


def plant_names(root, esp):
    fx.write(root, "/etc/default/grub.d/" + NAME + ".cfg",
             'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT '
             'tsc=reliable"\n')
    fx.write(root, "/etc/default/grub.d/" + NAME + "2.cfg",
             "GRUB_SAVEDEFAULT=true\n")
    for d in ("/boot/loader/entries/", esp + "/loader/entries/"):
        fx.write(root, d + NAME + ".conf",
                 "title x\nlinux /vmlinuz\noptions root=UUID=0f quiet\n")
    fx.write(root, esp + "/EFI/" + NAME + "/grubx64.efi", b"MZ")
    fx.write(root, esp + "/EFI/systemd/drivers/" + NAME + ".efi", b"MZ")
    os.makedirs(os.path.join(root, "var/log/journal", NAME))
    fx.write(root, "/sys/class/power_supply/" + NAME + "/type", "Battery\n")
    for d in ("dev/disk/by-uuid", "dev/disk/by-partuuid"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
        os.symlink("../../vda1", os.path.join(root, d, NAME))
    fx.write(root, "/var/lib/dpkg/info/" + NAME + ".list", "/usr/bin/x\n")
    fx.efivar(root, "Boot000" + NAME, fx.GLOBAL, b"\1\0\0\0")
    fx.efivar(root, NAME, fx.GLOBAL, b"\1")
    fx.write(root, "/etc/kernel/install.d/" + NAME + ".install", "#!/bin/sh\n")


def shown_badly(r, cmd):
    """What is wrong with how a command showed the name, if anything."""
    out = r.stdout + r.stderr
    wrong = []
    if "\x1b" in out or any(c < " " and c not in "\n\t" for c in out):
        wrong.append(f"{cmd}: a control character reached the output")
    if any(ln.startswith("FORGED") for ln in out.splitlines()):
        wrong.append(f"{cmd}: the name's newline broke a line: {out!r:.300}")
    if "na\tme" in out:
        wrong.append(f"{cmd}: the name's tab shown raw")
    return wrong


def repair():
    """Puts the victims back after a case that changed them, so the next
    case starts clean."""
    make_outside()
    if loop_state() != LOOP_BEFORE:
        with open(LOOP, "r+b") as f:
            f.write(LOOP_HEAD)
        os.chmod(LOOP, 0o600)
    for n in os.listdir(CWD):
        q = os.path.join(CWD, n)
        shutil.rmtree(q) if os.path.isdir(q) else os.unlink(q)


try:
    for kind, template, path, commands in KINDS:
        for vector in VECTORS:
            name = f"{kind}-{vector}".replace(" ", "-").replace("/", "")
            root = new_root(template, name)
            nodes = place(root, path, vector)
            wrong = check(root, commands, nodes)
            t.ok(not wrong, f"{kind} ({path}), {vector}: "
                 f"{', '.join(' '.join(c) for c in commands)} stay inside "
                 "the root", "\n".join(wrong))
            if wrong:
                repair()
            shutil.rmtree(root, ignore_errors=True)

    # The same for the links, with the resolver's walk (kernels without
    # openat2) instead of openat2(RESOLVE_IN_ROOT).
    os.environ["TSCTUI_TEST_NO_OPENAT2"] = "1"
    for kind, template, path, commands in KINDS:
        for vector in WALK_VECTORS:
            name = f"walk-{kind}-{vector}".replace(" ", "-").replace("/", "")
            root = new_root(template, name)
            nodes = place(root, path, vector)
            wrong = check(root, commands, nodes)
            t.ok(not wrong, f"without openat2: {kind} ({path}), {vector}: "
                 "stays inside the root", "\n".join(wrong))
            if wrong:
                repair()
            shutil.rmtree(root, ignore_errors=True)
    del os.environ["TSCTUI_TEST_NO_OPENAT2"]

    # A link loop for a file tsctui writes is an error, never "": no
    # ./.tsctui-new in the working directory (checked above) and a line
    # that says what is wrong.
    root = new_root("plain", "loop-says")
    place(root, "/etc/tsctui", "link loop")
    before = fx.tree(root)
    r = run(root, ["kernel-arg", "nowatchdog", "on"])
    d = fx.differ(before, fx.tree(root))
    t.ok(r is not None and r.returncode == 2 and
         "symbolic links" in r.stderr and not os.listdir(CWD) and not d,
         "a link loop at the directory of a file kernel-arg writes: exit "
         "2, the loop named, nothing changed", f"{r and r.stderr} {d[:3]}")

    # The name of a BLS entry is the disk's: a tab, a newline and ESC in it
    # go into the ledger and come back out.
    root = fx.systemd_boot(os.path.join(WORK, "bls-name"))
    weird = "deb\tian\n6.1\x1b[31m.conf"
    entry = b"title Debian\nlinux /vmlinuz\noptions root=UUID=0f quiet\n"
    fx.write(root, "/efi/loader/entries/" + weird, entry)
    # and every byte value 1-255 ('/' aside: no file name holds it)
    for names in (bytes(c for c in range(1, 128) if c != 0x2f),
                  bytes(range(128, 256))):
        with open(os.path.join(root.encode(), b"efi/loader/entries",
                               names + b".conf"), "wb") as f:
            f.write(entry)
    before = fx.tree(root)
    k = run(root, ["kernel-arg", "nowatchdog", "on"])
    with open(os.path.join(root, "efi/loader/entries", weird)) as f:
        edited = "nowatchdog" in f.read()
    u = run(root, ["uninstall"])
    d = fx.differ(before, fx.tree(root))
    t.ok(k and u and k.returncode == 0 and edited and u.returncode == 0 and
         not d, "BLS entries named with a tab, a newline and ESC, and with "
         "every byte 1-255: kernel-arg on edits them, the ledger reads "
         "back, uninstall gives back every byte",
         f"{k and k.stderr!r} / {u and u.stderr!r} {d[:3]}")

    # A file tsctui changed, replaced by a link afterwards: uninstall puts
    # the original back in place of the link and never writes through it
    # (the link's target is someone else's file).
    root = new_root("bls", "restore-over-link")
    entry = os.path.join(root, "efi/loader/entries/debian-6.1.0-28-amd64.conf")
    backup = os.path.join(root, "var/lib/tsctui/backup",
                          "efi/loader/entries/debian-6.1.0-28-amd64.conf")
    with open(backup, "rb") as f:
        original = f.read()
    os.unlink(entry)
    os.symlink("../loader.conf", entry)
    conf = os.path.join(root, "efi/loader/loader.conf")
    with open(conf, "rb") as f:
        conf_before = f.read()
    u = run(root, ["uninstall"])
    with open(conf, "rb") as f:
        conf_after = f.read()
    restored = not os.path.islink(entry) and open(entry, "rb").read()
    t.ok(u and u.returncode == 0 and conf_after == conf_before and
         restored == original,
         "uninstall restoring a BLS entry that was replaced by a link: the "
         "link's target is untouched, the entry comes back as a file",
         f"{u and u.stderr} {conf_after[:40]!r} {restored!r:.60}")

    # A ledger tsctui cannot go by (missing, empty, a FIFO, cut by a NUL):
    # uninstall never says "removed" while the driver is on the ESP; it
    # names what is left, lists it on stdout, exits 2 and changes nothing.
    sd = fx.systemd_boot(os.path.join(WORK, "tpl-sd"))
    r = run(sd, ["install"])
    for how in ("missing", "empty", "fifo", "nul"):
        root = os.path.join(WORK, "ledger-" + how)
        subprocess.run(["cp", "-a", sd, root], check=True)
        fx.damage_ledger(root, how, at=12)
        before = fx.tree(root)
        u = run(root, ["uninstall"])
        d = fx.differ(before, fx.tree(root))
        t.ok(r.returncode == 0 and u is not None and u.returncode == 2 and
             u.stderr.count("\n") == 1 and "removed" not in u.stdout and
             (how in ("fifo", "nul") or
              "tsctuix64.efi" in u.stdout) and not d,
             f"a {how} ledger: uninstall refuses with one line, names what "
             "is left (the driver on the ESP), changes nothing",
             f"{u and (u.returncode, u.stdout, u.stderr)} {d[:3]}")

    # A corrupt grubenv (GRUB writes it itself) is no dead end: mode off
    # refuses naming the way out, and a plain uninstall rebuilds a regular
    # file as GRUB's 1024-byte block, keeping what it can read; anything
    # else in its place is refused with the command that fixes it.
    good = b"saved_entry=2\n"
    corrupt = {
        "empty": b"",
        "100 B": b"# GRUB Environment Block\n" + good + b"x" * 60,
        "2 KB": fx.grubenv(saved_entry="2") * 2,
        "no header": good + b"#" * (1024 - len(good)),
        "a NUL": fx.grubenv(saved_entry="2", tsctui_mode="sync")[:-40] +
        b"\0" + b"#" * 39,
    }
    for how in list(corrupt) + ["fifo", "directory", "char node",
                                "link loop", "corrupt backup"]:
        root = new_root("installed", "grubenv-" + how.replace(" ", "-"))
        env = os.path.join(root, "boot/grub/grubenv")
        if how in corrupt:
            with open(env, "wb") as f:
                f.write(corrupt[how])
        elif how == "corrupt backup":
            with open(os.path.join(root, "var/lib/tsctui/backup/boot/grub/"
                                   "grubenv"), "wb") as f:
                f.write(b"garbage" * 10)
        else:
            os.unlink(env)
            place(root, "/boot/grub/grubenv",
                  {"fifo": "fifo", "char node": "char node",
                   "link loop": "link loop"}.get(how, "fifo"))
            if how == "directory":
                os.unlink(env)
                os.mkdir(env)
        m = run(root, ["mode", "off"]) if how in corrupt else None
        u = run(root, ["uninstall"])
        if how in corrupt or how == "corrupt backup":
            with open(env, "rb") as f:
                body = f.read()
            fine = (u is not None and u.returncode == 0 and
                    len(body) == 1024 and
                    body.startswith(b"# GRUB Environment Block\n") and
                    b"tsctui_" not in body and
                    (how in ("empty",) or b"saved_entry=" in body) and
                    (m is None or (m.returncode == 2 and
                                   "uninstall" in m.stderr)))
        else:
            fine = (u is not None and u.returncode == 2 and
                    u.stderr.count("\n") == 1 and
                    "grub-editenv" in u.stderr)
        t.ok(fine, f"grubenv {how}: " + (
            "mode off names uninstall; uninstall rebuilds it, keeping "
            "what it can read" if how in corrupt else
            "uninstall removes tsctui's variables and drops the backup"
            if how == "corrupt backup" else
            "uninstall refuses, naming grub-editenv"),
            f"{m and m.stderr!r} / {u and (u.returncode, u.stdout, u.stderr)}")

    # A dangling link where tsctui makes a directory: the creation did not
    # happen, so it is not recorded; the refusal leaves the root as it was
    # and the next action is not blocked by an entry it cannot undo.
    root = new_root("plain", "dangling-dir")
    os.symlink("nowhere", os.path.join(root, "etc/default/grub.d"))
    before = fx.tree(root)
    k = run(root, ["kernel-arg", "nowatchdog", "on"])
    d = fx.differ(before, fx.tree(root))
    os.unlink(os.path.join(root, "etc/default/grub.d"))
    before = fx.tree(root)
    k2 = run(root, ["kernel-arg", "nowatchdog", "on"])
    u = run(root, ["uninstall"])
    d2 = fx.differ(before, fx.tree(root))
    t.ok(k and k.returncode == 2 and k.stderr.count("\n") == 1 and not d and
         k2 and k2.returncode == 0 and u and u.returncode == 0 and not d2,
         "a dangling link where kernel-arg makes a directory: refused, "
         "nothing recorded or changed; without it, on and uninstall work",
         f"{k and k.stderr} {d[:3]} / {k2 and k2.stderr} / "
         f"{u and u.stderr} {d2[:3]}")

    # Hostile names in every directory tsctui lists (plant_names).
    for which, template, esp in (("grub", "efi", "/boot/efi"),
                                 ("sd", "sd", "/efi")):
        root = new_root(template, "names-" + which)
        plant_names(root, esp)
        make_outside()
        before, outside = fx.tree(root), fx.tree(OUTSIDE)
        wrong = []
        cycle = [(["status"], (0, 1)),
                 (["status", "--prometheus"], (0, 1)), (["history"], (0,)),
                 (["install"], (0,)), (["mode", "sync"], (0,)),
                 (["guard", "reset"], (0,)), (["boot-ok"], (0,)),
                 (["kernel-arg", "nowatchdog", "on"], (0,)),
                 (["kernel-arg", "reliable", "off"], (0,)),
                 (["kernel-arg", "nowatchdog", "off"], (0,)),
                 (["uninstall", "--purge"], (0,))]
        if which == "grub":
            cycle += [(["install", "--loader", "efi-entry"], (0,)),
                      (["uninstall", "--purge"], (0,))]
        conf = None
        for args, codes in cycle:
            r = run(root, args)
            cmd = " ".join(args)
            if r is None or r.returncode not in codes:
                wrong.append(f"{cmd}: {r and (r.returncode, r.stderr)}")
                continue
            wrong += shown_badly(r, cmd)
            if args == ["install"]:
                with open(os.path.join(root, "etc/tsctui/tsctui.conf")) as f:
                    conf = f.read()
        if conf is None or f"esp_uuid={fx.ESP_UUID}\n" not in conf:
            wrong.append(f"install took another name for the ESP's UUID: "
                         f"{conf!r:.400}")
        d = fx.differ(before, fx.tree(root)) + fx.differ(outside,
                                                          fx.tree(OUTSIDE))
        if d:
            wrong.append(f"not as before: {d[:3]}")
        t.ok(not wrong, f"{which}: a name with a tab, a newline and ESC in "
             "every directory tsctui lists: status, history and every "
             "action work, show it escaped, and uninstall gives back every "
             "byte", "\n".join(wrong))

        # ... and where only tsctui writes: EFI/tsctui, the backups; with
        # no ledger, uninstall names what is left and --force takes it.
        wrong = []
        run(root, ["install"])
        fx.write(root, esp + "/EFI/tsctui/" + NAME, b"junk")
        fx.write(root, "/var/lib/tsctui/backup/etc/" + NAME, b"orig")
        os.unlink(os.path.join(root, "var/lib/tsctui/ledger"))
        for args, codes in ((["uninstall"], (2,)),
                            (["uninstall", "--force"], (0,))):
            r = run(root, args)
            cmd = " ".join(args)
            if r is None or r.returncode not in codes or (
                    r.returncode == 2 and r.stderr.count("\n") != 1):
                wrong.append(f"{cmd}: {r and (r.returncode, r.stderr)}")
                continue
            wrong += shown_badly(r, cmd)
            if args[-1] == "--force" and "\\tme\\nFORGED\\x1b" not in r.stdout:
                wrong.append(f"{cmd} did not name it escaped: {r.stdout!r:.600}")
        if open(os.path.join(root, "etc", NAME), "rb").read() != b"orig" or \
                os.path.lexists(os.path.join(root, esp.lstrip("/"), "EFI/tsctui")):
            wrong.append("--force did not restore the copy or remove "
                         "EFI/tsctui")
        t.ok(not wrong, f"{which}: such names in EFI/tsctui and the "
             "backups, no ledger: uninstall refuses with one line, --force "
             "restores and removes them, each shown escaped",
             "\n".join(wrong))

    # A read-only subtree where install makes a directory (a read-only bind
    # mount: root writes through any mode): refused with one line, exit 2,
    # and nothing changed, the ledger and /var/lib/tsctui included.
    for which, sub in RO_SUBDIRS:
        root = new_root("plain" if which == "grub" else "sd",
                        "ro-" + sub.replace("/", "-"))
        d = os.path.join(root, sub)
        os.makedirs(d, exist_ok=True)
        m = subprocess.run(["mount", "--bind", d, d], capture_output=True,
                           text=True)
        m2 = subprocess.run(["mount", "-o", "remount,bind,ro", d],
                            capture_output=True, text=True)
        try:
            before = fx.tree(root)
            r = run(root, ["install"])
            diff = fx.differ(before, fx.tree(root))
        finally:
            subprocess.run(["umount", d], capture_output=True)
        t.ok(m.returncode == 0 and m2.returncode == 0 and r is not None and
             r.returncode == 2 and r.stderr.count("\n") == 1 and
             "Read-only file system" in r.stderr and not diff,
             f"install with /{sub} read-only ({which}): one line naming it, "
             "exit 2, every file as it was",
             f"{m.stderr}{m2.stderr} {r and (r.returncode, r.stderr)} "
             f"{diff[:4]}")

    # Nothing of the running system is opened for the target (see
    # host_paths): each command that takes --root, under strace.
    host_roots = {"efi": new_root("efi", "host-efi"),
                  "sd": new_root("sd", "host-sd")}
    log = os.path.join(WORK, "strace.log")
    for which, args, codes in HOST_RUNS:
        root = host_roots[which]
        try:
            r = subprocess.run(
                ["strace", "-f", "-y", "-qq", "-o", log, "-e",
                 "trace=%file,openat2", PLAIN, "--root", root, *args],
                cwd=CWD, capture_output=True, encoding="utf-8",
                errors="replace", timeout=TIMEOUT * 4)
        except subprocess.TimeoutExpired:
            r = None
        found, by_name = (host_paths(log, os.path.realpath(root),
                                     os.path.normpath(root)) if r
                          else ([], []))
        t.ok(r is not None and r.returncode in codes and not found,
             f"{' '.join(args)} under --root ({which}): nothing of this "
             "machine's /dev, /proc, /sys, /run or /var is touched",
             f"{r and (r.returncode, r.stderr)} {found[:6]}")
        # The root's name is looked up once: a component of it swapped
        # afterwards (a link turned to "/") changes nothing, because every
        # later lookup starts at the directory that first open found.
        t.ok(r is not None and not by_name,
             f"{' '.join(args)} under --root ({which}): the root's name is "
             "looked up once; every file under it is found from its fd",
             f"{by_name[:6]}")

    # The dashboard too: started on a terminal (tmux) under strace, left
    # until it has read the root's kernel log and drawn its diagnosis, a
    # few surveys of this machine's cores run, then q.
    root = host_roots["sd"]
    sock = ["tmux", "-L", f"tsctui-roots-{os.getpid()}"]
    klog = os.path.join(TOP, "tests", "fixtures", "kernlog",
                        "e595-bios128-warp.dmesg")
    subprocess.run(sock + ["new-session", "-d", "-s", "ui", "-x", "80",
                           "-y", "24",
                           f"cd {CWD} && strace -f -y -qq -o {log} -e "
                           f"trace=%file,openat2 {PLAIN} --root {root} "
                           f"--kernel-log {klog}; echo EXIT=$?; sleep 30"],
                   check=True)
    screen, drawn, ended = "", False, False
    for _ in range(200):
        screen = subprocess.run(sock + ["capture-pane", "-t", "ui", "-p"],
                                capture_output=True, text=True).stdout
        if not drawn and "Diagnosis:" in screen and \
                "reading the kernel log" not in screen:
            drawn = True
            time.sleep(2)
            subprocess.run(sock + ["send-keys", "-t", "ui", "q"])
        if "EXIT=0" in screen:
            ended = True
            break
        time.sleep(0.1)
    subprocess.run(sock + ["kill-server"], capture_output=True)
    found, by_name = (host_paths(log, os.path.realpath(root),
                                 os.path.normpath(root)) if ended
                      else ([], []))
    t.ok(drawn and ended and not found,
         "the dashboard under --root (sd): nothing of this machine's /dev, "
         "/proc, /sys, /run or /var is touched", f"{found[:6]} {screen}")
    t.ok(ended and not by_name,
         "the dashboard under --root (sd): the root's name is looked up "
         "once; every file under it is found from its fd", f"{by_name[:6]}")

    # A root whose path holds a quote, spaces and shell syntax: the tools
    # get it as one argument each (an argv vector, no shell), so the quote
    # cannot end a string and nothing in the name runs.  A sbsign ahead of
    # the real one on PATH records the arguments it was given.
    quoted = os.path.join(WORK, "it's a root; $(touch pwned) `touch pwned`")
    fakebin = os.path.join(WORK, "fakebin")
    argv_log = os.path.join(WORK, "sbsign.argv")
    os.makedirs(fakebin)
    with open(os.path.join(fakebin, "sbsign"), "w") as f:
        f.write('#!/bin/sh\n: >"$SBSIGN_ARGV"\n'
                'for a in "$@"; do printf \'%s\\0\' "$a" >>"$SBSIGN_ARGV"; '
                f'done\nexec {shutil.which("sbsign")} "$@"\n')
    os.chmod(os.path.join(fakebin, "sbsign"), 0o755)
    sign_env = {**os.environ, "SBSIGN_ARGV": argv_log,
                "PATH": fakebin + ":" + os.environ["PATH"]}
    db_key, db_crt = os.path.join(WORK, "db.key"), os.path.join(WORK, "db.crt")
    subprocess.run(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048",
                    "-nodes", "-days", "1", "-subj", "/CN=tsctui roots db/",
                    "-keyout", db_key, "-out", db_crt], check=True,
                   capture_output=True)
    key_bytes = open(db_key, "rb").read()

    def signed(root, args, want_key):
        """install under Secure Boot: sbsign's argv (key, cert, output,
        input), what went wrong."""
        if os.path.exists(argv_log):
            os.unlink(argv_log)
        r = subprocess.run([TSCTUI, "--root", root, *args], cwd=CWD,
                           capture_output=True, encoding="utf-8",
                           errors="replace", timeout=TIMEOUT, env=sign_env)
        argv = (open(argv_log, "rb").read().split(b"\0")[:-1]
                if os.path.exists(argv_log) else [])
        ver = subprocess.run(["sbverify", "--cert", db_crt, os.path.join(
            root, "boot/efi/EFI/tsctui/tsctui.efi")], capture_output=True)
        wrong = []
        if r.returncode != 0 or ver.returncode != 0:
            wrong.append(f"install {r.returncode} {r.stderr!r}, sbverify "
                         f"{ver.returncode}")
        if len(argv) != 7 or argv[0] != b"--key":
            wrong.append(f"sbsign got {argv}")
        elif want_key and argv[1] != want_key.encode():
            wrong.append(f"--key {argv[1]!r}, not {want_key!r}")
        for d in (CWD, WORK, quoted):
            if os.path.lexists(os.path.join(d, "pwned")):
                wrong.append(f"the name ran: {d}/pwned")
        return wrong

    shutil.rmtree(quoted, ignore_errors=True)
    # copied under a plain name, then renamed
    os.rename(new_root("plain", "quoted"), quoted)
    fx.efivar(quoted, "SecureBoot", fx.GLOBAL, b"\1")
    fx.write(quoted, "/var/lib/sbctl/keys/db/db.key", key_bytes)
    fx.write(quoted, "/var/lib/sbctl/keys/db/db.pem",
             open(db_crt, "rb").read())
    wrong = signed(quoted, ["install"], None)
    t.ok(not wrong, "Secure Boot under a root named with a quote, spaces, "
         "$( ) and backquotes: sbctl's key found there, sbsign runs with "
         "its own arguments, the stage is signed, nothing in the name runs",
         "\n".join(wrong))
    subprocess.run([TSCTUI, "--root", quoted, "uninstall"],
                   capture_output=True)
    given = os.path.join(quoted, "var/lib/sbctl/keys/db/db.key")
    wrong = signed(quoted, ["install", "--key", given, "--cert",
                            os.path.join(quoted,
                                         "var/lib/sbctl/keys/db/db.pem")],
                   given)
    t.ok(not wrong, "--key and --cert inside that root: sbsign gets the "
         "key's path intact, quote and all, as one argument",
         "\n".join(wrong))
    shutil.rmtree(quoted, ignore_errors=True)
finally:
    subprocess.run(["losetup", "-d", LOOP], capture_output=True)
    os.close(INOTIFY)

shutil.rmtree(WORK, ignore_errors=True)
sys.exit(1 if t.failed else 0)

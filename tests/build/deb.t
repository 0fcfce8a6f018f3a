#!/usr/bin/env python3
"""`make deb`: the package is built (dpkg-deb, from a copy of the tree,
no test run), holds exactly what `make install PREFIX=/usr` puts down, its
Linux program takes Debian's hardening flags and the UEFI objects none;
installed into a fixture root with dpkg --root, `tsctui install` works from
it, and removing the package runs `tsctui uninstall` first (the ESP and
the grubenv as before), or refuses when that fails."""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from tap import Tap  # noqa: E402
from paths import BUILD, TOP  # noqa: E402

t = Tap(plan=16)
WORK = os.path.join(BUILD, "deb-tests")
os.makedirs(WORK, exist_ok=True)


def run(*cmd, env=None, **kw):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(list(cmd), capture_output=True, text=True,
                          env=e, **kw)


b = run("make", "-C", TOP, f"BUILD={BUILD}", "deb")
log = b.stdout + b.stderr
debs = [f for f in os.listdir(BUILD) if re.match(r"tsctui_.*\.deb$", f)]
t.ok(b.returncode == 0 and len(debs) == 1, "make deb builds one package",
     log[-3000:])
if b.returncode != 0 or len(debs) != 1:
    sys.exit(t.done())
deb = os.path.join(BUILD, debs[0])

# Flags: Debian's hardening for tui/, none for the UEFI objects; nothing
# of the tests (no QEMU, no test suite) in the package build.
lines = re.sub(r"\\\n", "", log).splitlines()
tui_cc = [x for x in lines if re.search(r"\s-c tui/main\.c\s", x)]
efi_cc = [x for x in lines if re.search(r"\s-c (efi|common)/\S+\.c -o "
                                        r"build/efi/", x)]
t.ok(tui_cc and "-fstack-protector-strong" in tui_cc[0] and efi_cc and
     not any("-fstack-protector-strong" in x or "-D_FORTIFY_SOURCE" in x
             for x in efi_cc),
     "dpkg-buildflags reach the Linux program, never the UEFI objects",
     "\n".join(tui_cc + efi_cc[:2]))
t.ok(not any(re.search(r"qemu|tests/run|tsctui-sim|cmocka", x)
             for x in lines),
     "the package build runs no test and builds no sim image", log[-2000:])

info = run("dpkg-deb", "-I", deb).stdout
t.ok(re.search(r"^ Package: tsctui$", info, re.M) and
     re.search(r"^ Depends: .*libncursesw6", info, re.M) and
     all(re.search(rf"^ +\d+ bytes, +\d+ lines +\* +{s} ", info, re.M)
         for s in ("preinst", "prerm", "postinst", "postrm")),
     "dpkg-deb -I: the control fields and executable maintainer scripts",
     info)

# The package's files are make install's, PREFIX=/usr.
listed = sorted(
    line.split()[-1].lstrip(".")
    for line in run("dpkg-deb", "-c", deb).stdout.splitlines()
    if line.startswith("-"))
dest = os.path.join(WORK, "destdir")
shutil.rmtree(dest, ignore_errors=True)
run("make", "-s", "-C", os.path.join(BUILD, "deb", "src"), "BUILD=build",
    "PREFIX=/usr",
    f"DESTDIR={dest}", "install", check=True)
installed = sorted("/" + os.path.relpath(os.path.join(d, f), dest)
                   for d, _, fs in os.walk(dest) for f in fs)
# ... as Debian ships it: the man page compressed, a copyright file, and
# not install's own list of the directories it made.
MAN = "/usr/share/man/man8/tsctui.8"
shipped = sorted([p + ".gz" if p == MAN else p for p in installed
                  if p != "/usr/lib/tsctui/made-dirs"] +
                 ["/usr/share/doc/tsctui/copyright"])
t.ok(listed == shipped and "/usr/sbin/tsctui" in listed and
     "/usr/lib/tsctui/tsctui.efi" in listed,
     "dpkg-deb -c: what make install PREFIX=/usr puts down, the man page "
     "gzipped, and a copyright file", f"deb: {listed}\ninstall: {shipped}")
x = os.path.join(WORK, "extract")
shutil.rmtree(x, ignore_errors=True)
run("dpkg-deb", "-x", deb, x, check=True)
syms = run("nm", os.path.join(x, "usr/sbin/tsctui"))
with open(os.path.join(x, "usr/share/doc/tsctui/copyright")) as f:
    copyright_text = f.read()
t.ok("no symbols" in syms.stderr and "License: MIT" in copyright_text and
     run("gzip", "-t", os.path.join(x, MAN.lstrip("/") + ".gz")).returncode
     == 0, "the packaged binary is stripped, the man page is gzip, the "
     "copyright names the licence", syms.stdout[:200] + syms.stderr)
conf = run("dpkg-deb", "-I", deb, "conffiles").stdout.split()
t.ok(sorted(conf) == sorted(x for x in installed if x.startswith("/etc/")),
     "the files under /etc are conffiles", conf)


def fixture(name):
    """A Debian GRUB root without make install's files, and an empty dpkg
    database."""
    root = fx.debian_grub(os.path.join(WORK, name))
    for p in ("usr/local", "etc/grub.d", "etc/kernel", "usr/lib"):
        shutil.rmtree(os.path.join(root, p), ignore_errors=True)
    for d in ("var/lib/dpkg/updates", "var/lib/dpkg/info"):
        os.makedirs(os.path.join(root, d))
    open(os.path.join(root, "var/lib/dpkg/status"), "w").close()
    return root


def dpkg(root, *args):
    # Without chroot: the scripts find the root in DPKG_ROOT.
    return run("dpkg", f"--root={root}", "--force-script-chrootless",
               "--force-depends", *args)


def snapshot(root):
    return {p: open(os.path.join(root, p), "rb").read()
            for p in ("boot/grub/grubenv",)} | {
        "esp": sorted(os.listdir(os.path.join(root, "boot/efi/EFI")))}


root = fixture("root")
before = snapshot(root)
r = dpkg(root, "-i", deb)
t.ok(r.returncode == 0 and
     os.access(os.path.join(root, "usr/sbin/tsctui"), os.X_OK) and
     not os.path.exists(os.path.join(root, "boot/efi/EFI/tsctui")),
     "dpkg --root -i: installed, and nothing on the ESP until tsctui "
     "install", r.stdout + r.stderr)
tsctui = os.path.join(root, "usr/sbin/tsctui")
env = {"TSCTUI_EFI_DIR": os.path.join(root, "usr/lib/tsctui")}
r = run(tsctui, "--root", root, "install", env=env)
t.ok(r.returncode == 0 and os.path.exists(
    os.path.join(root, "boot/efi/EFI/tsctui/tsctui.efi")),
    "the packaged tsctui installs the stage (it finds its unit in "
    "/usr/lib/systemd/system)", r.stdout + r.stderr)
r = dpkg(root, "-r", "tsctui")
t.ok(r.returncode == 0 and "running tsctui uninstall first" in r.stdout and
     snapshot(root) == before and
     not os.path.exists(os.path.join(root, "etc/tsctui")) and
     not os.path.exists(os.path.join(root, "usr/sbin/tsctui")),
     "dpkg -r runs tsctui uninstall first: the ESP and the grubenv as "
     "before, the package gone", r.stdout + r.stderr)

# An uninstall that fails keeps the package (and the stage's way back).
root = fixture("refuse")
dpkg(root, "-i", deb)
run(tsctui.replace("/root/", "/refuse/"), "--root", root, "install",
    env={"TSCTUI_EFI_DIR": os.path.join(root, "usr/lib/tsctui")})
with open(os.path.join(root, "etc/tsctui/tsctui.conf"), "a") as f:
    f.write("loader=nonsense\n")
r = dpkg(root, "-r", "tsctui")
st = dpkg(root, "-s", "tsctui").stdout
t.ok(r.returncode != 0 and "uninstall failed; the package stays" in
     r.stderr and "ok installed" in st and
     os.path.exists(os.path.join(root, "usr/sbin/tsctui")) and
     os.path.exists(os.path.join(root, "boot/efi/EFI/tsctui/tsctui.efi")),
     "dpkg -r refuses when tsctui uninstall fails: the package stays",
     r.stdout + r.stderr + st)
# The way on it names: uninstall --force, then dpkg -r goes through.
f = run(tsctui.replace("/root/", "/refuse/"), "--root", root, "uninstall",
        "--force")
r2 = dpkg(root, "-r", "tsctui")
t.ok("uninstall --force" in r.stderr and f.returncode == 0 and
     r2.returncode == 0 and
     not os.path.exists(os.path.join(root, "boot/efi/EFI/tsctui")) and
     not os.path.exists(os.path.join(root, "etc/tsctui")),
     "prerm's refusal names uninstall --force, which removes tsctui "
     "despite the damaged configuration; dpkg -r then goes through",
     f.stdout + f.stderr + r2.stdout + r2.stderr)
# A copy from make install in /usr/local: the package refuses to go in
# beside it, with one line saying what to do.
root = fixture("beside")
fx.write(root, "/usr/local/sbin/tsctui", "#!/bin/sh\n", 0o755)
r = dpkg(root, "-i", deb)
t.ok(r.returncode != 0 and "make uninstall" in r.stderr and
     not os.path.exists(os.path.join(root, "usr/sbin/tsctui")),
     "dpkg -i beside a make install copy in /usr/local: refused, named",
     r.stdout + r.stderr)

# A kernel-arg setting made without install is in the ledger only: dpkg -r
# runs tsctui uninstall for it too (it used to look for tsctui.conf alone).
root = fixture("kernel-arg")
dpkg(root, "-i", deb)
after_install = fx.tree(root)
tsctui_k = os.path.join(root, "usr/sbin/tsctui")
k = run(tsctui_k, "--root", root, "kernel-arg", "nowatchdog", "on")
r = dpkg(root, "-r", "tsctui")
left = [p for p in fx.differ(after_install, fx.tree(root))
        if not p.startswith(("usr", "var/lib/dpkg", "etc/grub.d",
                             "etc/kernel"))]
t.ok(k.returncode == 0 and r.returncode == 0 and
     "running tsctui uninstall first" in r.stdout and
     not os.path.exists(os.path.join(root, "etc/tsctui/nowatchdog")) and
     not os.path.exists(os.path.join(root, "var/lib/tsctui/ledger")) and
     not left,
     "kernel-arg nowatchdog on without install, then dpkg -r: uninstall "
     "runs and the setting and its GRUB drop-in are gone",
     f"{k.stderr} {r.stdout} {r.stderr} {left[:4]}")

# A ledger still there at purge (changes not undone): kept, with its
# backups; the history goes.
root = fixture("purge")
dpkg(root, "-i", deb)
r = dpkg(root, "-r", "tsctui")
state = os.path.join(root, "var/lib/tsctui")
fx.write(root, "/var/lib/tsctui/ledger", "backup /etc/default/grub\n")
fx.write(root, "/var/lib/tsctui/backup/etc/default/grub", "GRUB_DEFAULT=0\n")
fx.write(root, "/var/lib/tsctui/history", "a boot\n")
p = dpkg(root, "--purge", "tsctui")
t.ok(r.returncode == 0 and p.returncode == 0 and
     os.path.exists(os.path.join(state, "ledger")) and
     os.path.exists(os.path.join(state, "backup/etc/default/grub")) and
     not os.path.exists(os.path.join(state, "history")) and
     "kept" in p.stderr,
     "dpkg --purge with an unfinished ledger keeps it and its backups, "
     "says so, and removes the history", p.stdout + p.stderr)
fx.write(root, "/var/lib/tsctui/history", "a boot\n")
os.unlink(os.path.join(state, "ledger"))
dpkg(root, "-i", deb)
dpkg(root, "-r", "tsctui")
p = dpkg(root, "--purge", "tsctui")
t.ok(p.returncode == 0 and not os.path.exists(state),
     "dpkg --purge without a ledger removes /var/lib/tsctui", p.stderr)
sys.exit(t.done())

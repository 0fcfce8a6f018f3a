#!/usr/bin/env python3
"""Other TSC fixers (DESIGN 9.x, issue 28 item 3).

install --migrate on fixture systems with Zanasin/tscsync installed
(tests/lib/fixtures.py: tscsync_grub, tscsync_sdboot): tscsync's block
leaves custom.cfg and the user's lines stay, its grubenv variables, its
driver, its service and the service's links go, its mode is carried over
where the stage's gate allows, and uninstall puts every byte back.  Plain
install refuses; a file a package owns (the target's dpkg database), a
block that never ends and a dry run change nothing.

kernel-arg reliable off takes tsc=reliable out of GRUB's settings, BLS
entries and /etc/kernel/cmdline, or through grubby, and uninstall puts it
back; status names limenode/tscsync and its units, and Zanasin/tscsync.
(Both actions killed at each of their writes: tests/actions/crash.t.)"""
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

WORK = os.path.join(BUILD, "fixers-tests")
UNIT = "/etc/systemd/system/tscsync-report.service"
LINKS = [f"/etc/systemd/system/{t}.wants/tscsync-report.service"
         for t in ("multi-user.target", "system-update.target")]
t = Tap(plan=42)
os.makedirs(WORK, exist_ok=True)


def run(root, *args):
    r = subprocess.run([TSCTUI, "--root", root, "--json", *args],
                       capture_output=True, text=True)
    try:
        out = json.loads(r.stdout) if r.stdout.strip() else None
    except json.JSONDecodeError:
        out = r.stdout
    return r.returncode, out, r.stderr


def p(root, path):
    return os.path.join(root, path.lstrip("/"))


def read(root, path):
    with open(p(root, path), "rb") as f:
        return f.read()


def genv(root, path="/boot/grub/grubenv"):
    lines = read(root, path)[:1024].decode().split("\n")
    return dict(line.split("=", 1) for line in lines[1:] if "=" in line)


def snapshot(root):
    copy = root + ".orig"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, symlinks=True)
    return copy


def same(a, b):
    r = subprocess.run(["diff", "-r", "--no-dereference", "-x",
                        "tsctui.lock", a, b], capture_output=True, text=True)
    return r.returncode == 0, r.stdout[-1200:]


def refused(name, root, args, words):
    before = snapshot(root)
    rc, out, err = run(root, *args)
    ok, d = same(before, root)
    t.ok(rc == 2 and all(w in err for w in words) and
         err.strip().count("\n") == 0 and ok,
         f"refused: {name}", f"rc {rc}, stderr {err!r}, diff {d}")


def changed(out):
    return {c["path"]: c["what"] for c in out["changed"]} if out else {}


# ---- GRUB ------------------------------------------------------------------
root = fx.tscsync_grub(os.path.join(WORK, "grub"))
refused("plain install while tscsync is installed", root, ["install"],
        ["tscsync", "--migrate"])
orig = snapshot(root)
rc, out, err = run(root, "install", "--migrate")
ch = changed(out)
t.ok(rc == 0 and ch.get("/boot/grub/custom.cfg") == "modified" and
     ch.get(UNIT) == "removed" and all(ch.get(x) == "removed" for x in LINKS),
     "grub: install --migrate reports custom.cfg modified, the service and "
     "its two links removed", f"rc {rc} {err} {out}")
t.ok(read(root, "/boot/grub/custom.cfg").decode() ==
     fx.TSCSYNC_USER_BEFORE + fx.TSCSYNC_USER_AFTER,
     "grub: only tscsync's block leaves custom.cfg; the user's lines stay "
     "byte for byte", read(root, "/boot/grub/custom.cfg"))
t.ok(os.stat(p(root, "/boot/grub/custom.cfg")).st_mode & 0o777 == 0o600,
     "grub: custom.cfg keeps its mode")
env = genv(root)
t.ok(not any(k.startswith("tscsync_") for k in env) and
     env.get("tsctui_mode") == "measure" and env.get("saved_entry") == "0",
     "grub: tscsync_* variables gone, tsctui's in measure mode, saved_entry "
     "kept", env)
t.ok(not any(os.path.lexists(p(root, x)) for x in [UNIT] + LINKS),
     "grub: tscsync-report.service and its links are gone")
t.ok("tscsync's job taken over" in out["message"] and
     "uninstall" in out["message"],
     "grub: the message says tscsync's job was taken over and how to undo",
     out["message"])
rc, out2, err = run(root, "install", "--migrate")
t.ok(rc == 0 and out2["changed"] == [],
     "grub: install --migrate again changes nothing", f"rc {rc} {err} {out2}")
rc, out, err = run(root, "uninstall")
ok, d = same(orig, root)
t.ok(rc == 0 and ok,
     "grub: uninstall puts tscsync back byte for byte (custom.cfg, grubenv "
     "variables, service, links, modes)", f"rc {rc} {err} {d}")

# without a ledger, uninstall --force puts tscsync back too: its links'
# copies are named as links (act_take), never written back as files
root = fx.tscsync_grub(os.path.join(WORK, "grub-force"))
orig = snapshot(root)
run(root, "install", "--migrate")
fx.damage_ledger(root, "missing")
rc, out, err = run(root, "uninstall", "--force")
ok, d = same(orig, root)
t.ok(rc == 0 and ok, "grub: with the ledger lost, uninstall --force puts "
     "tscsync back byte for byte, its links as links", f"rc {rc} {err} {d}")

# sync carried over; not when tscsync's guard turned it off
root = fx.tscsync_grub(os.path.join(WORK, "grub-sync"), mode="sync")
rc, out, err = run(root, "install", "--migrate")
t.ok(rc == 0 and genv(root).get("tsctui_mode") == "sync" and
     "sync mode carried over" in out["message"] and
     "in sync mode" in out["message"],
     "grub: tscsync's sync mode is carried over", f"rc {rc} {err} {out}")
root = fx.tscsync_grub(os.path.join(WORK, "grub-tripped"), mode="sync")
e = read(root, "/boot/grub/grubenv").replace(b"tscsync_enable=1",
                                             b"tscsync_enable=0")
fx.write(root, "/boot/grub/grubenv", e)
rc, out, err = run(root, "install", "--migrate")
t.ok(rc == 0 and genv(root).get("tsctui_mode") == "measure" and
     "not running" in out["message"],
     "grub: sync with tscsync turned off (its guard) starts in measure",
     f"rc {rc} {err} {out}")

# a file a package owns: the target's own dpkg database says so
root = fx.tscsync_grub(os.path.join(WORK, "grub-dpkg"))
fx.write(root, "/var/lib/dpkg/info/tscsync:amd64.list",
         "/.\n/etc\n/etc/systemd\n/etc/systemd/system\n" + UNIT + "\n")
refused("a tscsync file a package owns", root, ["install", "--migrate"],
        ["belongs to the package tscsync", "apt remove tscsync"])
# the package database names another path: not a refusal
root = fx.tscsync_grub(os.path.join(WORK, "grub-dpkg-other"))
fx.write(root, "/var/lib/dpkg/info/other.list",
         "/etc/systemd/system/other.service\n" + UNIT + ".d\n")
rc, out, err = run(root, "install", "--migrate")
t.ok(rc == 0, "a package list that names other paths refuses nothing",
     f"rc {rc} {err}")

# a block that never ends: cannot be told from the user's lines
root = fx.tscsync_grub(os.path.join(WORK, "grub-open"))
fx.write(root, "/boot/grub/custom.cfg",
         fx.TSCSYNC_USER_BEFORE + fx.TSCSYNC_BLOCK.rsplit("fi\n", 1)[0])
refused("a tscsync block in custom.cfg that never ends", root,
        ["install", "--migrate"], ["never ends", "nothing changed"])

# a dry run plans the removals and changes nothing
root = fx.tscsync_grub(os.path.join(WORK, "grub-dry"))
before = snapshot(root)
rc, out, err = run(root, "install", "--migrate", "--dry-run")
ok, d = same(before, root)
t.ok(rc == 0 and ok and changed(out).get(UNIT) == "removed" and
     changed(out).get("/boot/grub/custom.cfg") == "modified",
     "grub: --dry-run names the removals and changes nothing",
     f"rc {rc} {err} {out} {d}")

# ---- systemd-boot ----------------------------------------------------------
DRIVER = "/efi/EFI/systemd/drivers/tscsyncx64.efi"
root = fx.tscsync_sdboot(os.path.join(WORK, "sdboot"), mode="sync")
refused("systemd-boot: plain install while tscsync's driver is there", root,
        ["install"], [DRIVER, "--migrate"])
orig = snapshot(root)
rc, out, err = run(root, "install", "--migrate")
t.ok(rc == 0 and changed(out).get(DRIVER) == "removed" and
     not os.path.exists(p(root, DRIVER)) and
     os.path.exists(p(root, "/efi/EFI/systemd/drivers/tsctuix64.efi")),
     "systemd-boot: tscsync's driver is removed, tsctui's put in its place",
     f"rc {rc} {err} {out}")
t.ok(read(root, "/efi/EFI/tsctui/options") == b"mode=sync\n",
     "systemd-boot: its sync mode (EFI/tscsync/options) is carried over",
     read(root, "/efi/EFI/tsctui/options"))
t.ok(not any(os.path.lexists(p(root, x)) for x in [UNIT] + LINKS),
     "systemd-boot: its service and links are gone")
rc, out, err = run(root, "uninstall")
ok, d = same(orig, root)
t.ok(rc == 0 and ok, "systemd-boot: uninstall puts the driver, service and "
     "links back byte for byte", f"rc {rc} {err} {d}")

# a CPU outside the stage's list: sync is not carried over
root = fx.tscsync_sdboot(os.path.join(WORK, "sdboot-intel"), mode="sync",
                         cpuinfo=fx.CPUINFO_INTEL.replace(" tsc_adjust", ""))
rc, out, err = run(root, "install", "--migrate")
t.ok(rc == 0 and read(root, "/efi/EFI/tsctui/options") == b"mode=measure\n"
     and "measure mode" in out["message"] and "--allow-any-cpu" in
     out["message"],
     "systemd-boot: on a CPU outside the stage's list, tsctui starts in "
     "measure and says why", f"rc {rc} {err} {out}")

# a boot loader entry that starts tscsync's image goes too
root = fx.tscsync_sdboot(os.path.join(WORK, "sdboot-entry"))
os.unlink(p(root, DRIVER))
ENTRY = "/efi/loader/entries/tscsync.conf"
fx.write(root, ENTRY, "title tscsync\nefi /EFI/tscsync/tscsync.efi\n")
orig = snapshot(root)
refused("systemd-boot: plain install while a tscsync boot entry is there",
        root, ["install"], [ENTRY])
rc, out, err = run(root, "install", "--migrate")
t.ok(rc == 0 and not os.path.exists(p(root, ENTRY)) and
     os.path.exists(p(root, "/efi/loader/entries/debian-6.1.0-28-amd64.conf")),
     "systemd-boot: a boot entry that starts tscsync is removed, the others "
     "stay", f"rc {rc} {err} {out}")
rc, out, err = run(root, "uninstall")
ok, d = same(orig, root)
t.ok(rc == 0 and ok, "systemd-boot: uninstall puts the boot entry back",
     f"rc {rc} {err} {d}")

# ---- no tscsync ------------------------------------------------------------
root = fx.debian_grub(os.path.join(WORK, "plain"))
rc, out, err = run(root, "install", "--migrate")
t.ok(rc == 0 and genv(root).get("tsctui_mode") == "measure" and
     "taken over" not in out["message"],
     "without tscsync, install --migrate is a plain install",
     f"rc {rc} {err} {out}")
refused("--migrate takes no value", root, ["install", "--migrate=yes"],
        ["migrate"])

# ---- kernel-arg reliable off ----------------------------------------------
root = fx.reliable_grub(os.path.join(WORK, "reliable-grub"))
orig = snapshot(root)
rc, out, err = run(root, "kernel-arg", "reliable", "off")
t.ok(rc == 0 and read(root, "/etc/default/grub") ==
     b'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet"\n'
     b"GRUB_CMDLINE_LINUX=''\n" and
     read(root, "/etc/default/grub.d/tscsync.cfg") ==
     b'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX"\n' and
     "uninstall" in out["message"],
     "reliable off, GRUB: tsc=reliable leaves /etc/default/grub and its "
     "drop-in, every other byte kept", f"rc {rc} {err} {out}")
rc, out, err = run(root, "kernel-arg", "reliable", "off")
t.ok(rc == 0 and out["changed"] == [] and
     "running kernel was started with" in out["message"],
     "reliable off again: nothing changes; it says the running kernel still "
     "has it", f"rc {rc} {err} {out}")
rc, out, err = run(root, "uninstall")
ok, d = same(orig, root)
t.ok(rc == 0 and ok, "reliable off, GRUB: uninstall puts tsc=reliable back",
     f"rc {rc} {err} {d}")

root = fx.reliable_sdboot(os.path.join(WORK, "reliable-sdboot"))
orig = snapshot(root)
rc, out, err = run(root, "kernel-arg", "reliable", "off")
t.ok(rc == 0 and read(root, "/efi/loader/entries/debian-6.1.0-28-amd64.conf")
     .endswith(b"options root=UUID=0f1e2d3c quiet\n") and
     read(root, "/etc/kernel/cmdline") == b"root=UUID=0f1e2d3c quiet\n",
     "reliable off, systemd-boot: out of the entry, and /etc/kernel/cmdline "
     "seeded without it (kernel-install would copy /proc/cmdline)",
     f"rc {rc} {err} {out}")
rc, out, err = run(root, "uninstall")
ok, d = same(orig, root)
t.ok(rc == 0 and ok, "reliable off, systemd-boot: uninstall puts it back",
     f"rc {rc} {err} {d}")

# grubby (Fedora family): run to remove it, and run by uninstall to add it
# back; not run at all where no entry has it
work = os.path.join(WORK, "grubby")
os.makedirs(work, exist_ok=True)
genv_, glog = fx.grubby_double(work)
root = fx.fedora_grubby(os.path.join(WORK, "reliable-fedora"))
e = "/boot/loader/entries/abc-6.5.6-300.fc39.x86_64.conf"
fx.write(root, e, read(root, e).replace(b"rhgb quiet", b"rhgb quiet "
                                        b"tsc=reliable"))
r = subprocess.run([TSCTUI, "--root", root, "kernel-arg", "reliable", "off"],
                   capture_output=True, text=True, env={**os.environ, **genv_})
r2 = subprocess.run([TSCTUI, "--root", root, "uninstall"],
                    capture_output=True, text=True,
                    env={**os.environ, **genv_})
with open(glog) as f:
    log = f.read()
t.ok(r.returncode == 0 and r2.returncode == 0 and log ==
     "--update-kernel=ALL --remove-args=tsc=reliable\n"
     "--update-kernel=ALL --args=tsc=reliable\n",
     "reliable off, grubby: removed by grubby, and uninstall has grubby add "
     "it back", f"{r.stderr} {r2.stderr} {log!r}")
genv_, glog = fx.grubby_double(work)
root = fx.fedora_grubby(os.path.join(WORK, "reliable-fedora-none"))
r = subprocess.run([TSCTUI, "--root", root, "--json", "kernel-arg",
                    "reliable", "off"], capture_output=True, text=True,
                   env={**os.environ, **genv_})
t.ok(r.returncode == 0 and not os.path.exists(glog) or
     open(glog).read() == "", "reliable off, grubby: not run where no entry "
     "has tsc=reliable (its undo would add it to every kernel)", r.stdout)

root = fx.debian_grub(os.path.join(WORK, "reliable-none"))
before = snapshot(root)
rc, out, err = run(root, "kernel-arg", "reliable", "off")
ok, d = same(before, root)
t.ok(rc == 0 and ok and "nothing to remove" in out["message"],
     "reliable off with tsc=reliable nowhere: nothing changes",
     f"rc {rc} {err} {out} {d}")
refused("kernel-arg reliable on is never offered", root,
        ["kernel-arg", "reliable", "on"], ["never offered"])
refused("kernel-arg reliable with a word other than off", root,
        ["kernel-arg", "reliable", "maybe"], ["only off"])

# ---- status names the fixers ----------------------------------------------
LOG = os.path.join(os.path.dirname(HERE), "fixtures", "kernlog",
                   "healthy-synced.dmesg")


def status(root, *extra):
    r = subprocess.run([TSCTUI, "--root", root, "--kernel-log", LOG,
                        "status", *extra], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


root = fx.limenode(os.path.join(WORK, "limenode"))
rc, o, err = status(root, "--json")
fixers = json.loads(o)["other_fixers"] if o.strip() else []
t.ok(len(fixers) == 1 and fixers[0]["name"] == "limenode/tscsync" and
     fixers[0]["kind"] == "user-space" and
     "tscsync.service (enabled)" in fixers[0]["found"] and
     "tscsync-resume.service (not enabled)" in fixers[0]["found"] and
     "kernel-arg reliable off" in fixers[0]["advice"] and
     "tsc=reliable (set now)" in fixers[0]["advice"],
     "status --json: limenode/tscsync recognised, its units listed with "
     "their state, and the way to tsctui", f"rc {rc} {err} {fixers}")
rc, o, err = status(root)
t.ok("other fixer: limenode/tscsync" in o and
     "`tsctui kernel-arg reliable off` removes it" in o,
     "status text: the fixer line, and the tsc=reliable warning names "
     "kernel-arg reliable off", o)
root = fx.tscsync_grub(os.path.join(WORK, "status-zanasin"))
rc, o, err = status(root)
t.ok("other fixer: Zanasin/tscsync (/boot/grub/custom.cfg)" in o and
     "install --migrate" in o, "status text: Zanasin/tscsync recognised, "
     "install --migrate named", o)
run(root, "install", "--migrate")
rc, o, err = status(root, "--json")
t.ok(json.loads(o)["other_fixers"] == [],
     "status after install --migrate: no other fixer left", o[-400:])
root = fx.debian_grub(os.path.join(WORK, "status-none"))
fx.write(root, "/etc/systemd/system/tscsync.service",
         "[Service]\nExecStart=/opt/other/tscsync\n")
rc, o, err = status(root, "--json")
t.ok(json.loads(o)["other_fixers"] == [],
     "status: a unit named tscsync.service that does not run limenode's "
     "binary is not taken for it", o[-400:])

sys.exit(t.done())

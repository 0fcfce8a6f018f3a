#!/usr/bin/env python3
"""The actions on fixture roots: install -> mode sync -> guard reset ->
boot-ok -> uninstall for a Debian GRUB system and a systemd-boot system,
every step twice (idempotence), the files asserted after each, and after
uninstall `diff -r` against an untouched copy is empty.  Then the refusals
and the bad input, each with exit status 2, one line on stderr, and no file
changed."""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
import reportvar  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI, nobody_place  # noqa: E402
WORK = os.path.join(BUILD, "action-tests")
t = Tap()
os.makedirs(WORK, exist_ok=True)


# Fixtures run as nobody live, with a copy of tsctui, where nobody can reach
# them whatever the checkout's parents allow.
NOBODY_DIR, NOBODY_TSCTUI = nobody_place()


def run(root, *args, user=None, env=None):
    cmd = [NOBODY_TSCTUI if user else TSCTUI, "--root", root, "--json",
           *args]
    if user:
        uid = {"nobody": 65534}[user]
        cmd = ["setpriv", f"--reuid={uid}", f"--regid={uid}",
               "--clear-groups"] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True,
                       env={**os.environ, **(env or {})})
    out = None
    if r.stdout.strip():
        try:
            out = json.loads(r.stdout)
        except json.JSONDecodeError:
            out = r.stdout
    return r.returncode, out, r.stderr


def read(root, path):
    p = os.path.join(root, path.lstrip("/"))
    with open(p, "rb") as f:
        return f.read()


def exists(root, path):
    return os.path.lexists(os.path.join(root, path.lstrip("/")))


def genv(root, path="/boot/grub/grubenv"):
    data = read(root, path)
    lines = data[:1024].decode().split("\n")
    return dict(line.split("=", 1) for line in lines[1:] if "=" in line)


def diff(a, b):
    # /run/tsctui.lock is the actions' lock: in /run, gone at the next
    # boot, like every lock file there.
    r = subprocess.run(["diff", "-r", "--no-dereference", "-x", "tsctui.lock",
                        a, b],
                       capture_output=True, text=True)
    return r.returncode == 0, r.stdout[-1500:]


def changed(out):
    return {c["path"]: c["what"] for c in out["changed"]} if out else {}


def snapshot(root):
    copy = root + ".orig"
    if os.path.exists(copy):
        shutil.rmtree(copy)
    shutil.copytree(root, copy, symlinks=True)
    return copy


def twice(name, root, *args, check=lambda out: True):
    rc, out, err = run(root, *args)
    ok = rc == 0 and out and out["ok"] and check(out)
    t.ok(ok, f"{name}", f"rc {rc}: {err.strip()} {out}")
    rc2, out2, err2 = run(root, *args)
    t.ok(rc2 == 0 and out2["ok"] and out2["changed"] == [],
         f"{name}, again: nothing changes", f"rc {rc2}: {err2} {out2}")
    return out


# ---- Debian GRUB ---------------------------------------------------------
root = fx.debian_grub(os.path.join(WORK, "debian-grub"))
orig = snapshot(root)
out = twice("grub: install", root, "install", check=lambda o: (
    changed(o).get("/etc/tsctui/tsctui.conf") == "created" and
    changed(o).get("/boot/efi/EFI/tsctui/tsctui.efi") == "created" and
    changed(o).get("/boot/grub/grubenv") == "modified"))
env = genv(root)
t.ok(env.get("tsctui_mode") == "measure" and env.get("tsctui_pending") == "0"
     and env.get("tsctui_tripped") == "0" and env.get("saved_entry") == "0"
     and len(read(root, "/boot/grub/grubenv")) == 1024,
     "grub: grubenv gets the stage's variables, keeps saved_entry, 1024 bytes",
     env)
t.ok(read(root, "/boot/efi/EFI/tsctui/tsctui.efi") ==
     read(TOP, "/efi/tsctui.efi"), "grub: the release stage is on the ESP")
conf = read(root, "/etc/tsctui/tsctui.conf").decode()
t.ok(f"esp_uuid={fx.ESP_UUID}" in conf and
     f"grubenv_fs_uuid={fx.ROOT_UUID}" in conf and
     "grubenv_in_fs=/boot/grub/grubenv" in conf and "loader=grub" in conf,
     "grub: tsctui.conf records loader, ESP UUID and the grubenv's file "
     "system", conf)
for tgt in ("multi-user.target", "system-update.target"):
    link = f"/etc/systemd/system/{tgt}.wants/tsctui-boot.service"
    t.ok(exists(root, link) and os.readlink(os.path.join(root, link.lstrip(
        "/"))) == "/usr/local/lib/systemd/system/tsctui-boot.service",
        f"grub: tsctui-boot.service wanted by {tgt}")
t.ok(read(root, "/etc/systemd/system/tsctui-boot.service.d/"
          "tsctui-mounts.conf").decode().endswith(
    "RequiresMountsFor=/boot/efi /boot/grub\n"),
    "grub: the unit requires the ESP and the grubenv's directory mounted")
t.ok("update-grub" in out["message"],
     "grub: under --root, install prints the command to run in the target",
     out["message"])
gen = subprocess.run([os.path.join(root, "etc/grub.d/05_tsctui")],
                     env={**os.environ, "TSCTUI_CONF":
                          os.path.join(root, "etc/tsctui/tsctui.conf")},
                     capture_output=True, text=True)
block = os.path.join(WORK, "grub-block.cfg")
with open(block, "w") as f:
    f.write(gen.stdout)
chk = subprocess.run(["grub-script-check", block], capture_output=True)
t.ok(gen.returncode == 0 and f"--fs-uuid --set=tsctui_esp_dev {fx.ESP_UUID}"
     in gen.stdout and "load_env -f" in gen.stdout and chk.returncode == 0,
     "grub: the generator emits the block, and grub-script-check accepts it",
     gen.stderr + gen.stdout[:300])
inert = subprocess.run([os.path.join(root, "etc/grub.d/05_tsctui")],
                       env={**os.environ, "TSCTUI_CONF": "/nonexistent"},
                       capture_output=True, text=True)
t.ok(inert.returncode == 0 and inert.stdout == "",
     "grub: the generator is inert without tsctui.conf")

twice("grub: mode sync", root, "mode", "sync",
      check=lambda o: genv(root)["tsctui_mode"] == "sync")
rc, out, err = run(root, "guard", "status")
t.ok(rc == 0 and out == {"guard": "clear", "loader": "grub", "since": None,
                         "hibernate_location": "none"},
     "grub: guard status clear", out)
e = genv(root)
e["tsctui_pending"] = "1"
e["tsctui_tripped"] = "1"
fx.write(root, "/boot/grub/grubenv", fx.grubenv(**e))
rc, out, err = run(root, "guard", "status")
t.ok(rc == 0 and out["guard"] == "tripped" and out["since"],
     "grub: a tripped guard (GRUB set tsctui_tripped) is reported", out)
twice("grub: guard reset", root, "guard", "reset", check=lambda o: (
    genv(root)["tsctui_tripped"] == "0" and
    genv(root)["tsctui_pending"] == "0" and
    genv(root)["tsctui_mode"] == "measure"))
DROPIN = "/etc/default/grub.d/tsctui-nowatchdog.cfg"
out = twice("grub: kernel-arg nowatchdog on", root, "kernel-arg",
            "nowatchdog", "on", check=lambda o: (
                read(root, DROPIN) ==
                read(TOP, "/grub.d/tsctui-nowatchdog.cfg") and
                read(root, "/etc/tsctui/nowatchdog") == b"on\n" and
                "update-grub" in o["message"]))
twice("grub: kernel-arg nowatchdog off", root, "kernel-arg", "nowatchdog",
      "off", check=lambda o: not exists(root, DROPIN))
e = genv(root)
e["tsctui_pending"] = "1"
fx.write(root, "/boot/grub/grubenv", fx.grubenv(**e))
rc, out, err = run(root, "guard", "status")
t.ok(out and out["guard"] == "pending", "grub: pending reported", out)
rc, out, err = run(root, "boot-ok")
hist = read(root, "/var/lib/tsctui/history").decode()
t.ok(rc == 0 and genv(root)["tsctui_pending"] == "0" and
     "5d9f8b2a-1c3e-4f6a-9b8d-7e6f5a4b3c2d" in hist and
     "R11ET36W (1.28 )" in hist,
     "grub: boot-ok clears pending and records the boot", f"{out} {hist}")
rc, out, err = run(root, "boot-ok")
t.ok(rc == 0 and read(root, "/var/lib/tsctui/history").decode() == hist,
     "grub: boot-ok twice in one boot records it once")
# With this boot's report in efivarfs: boot-ok keeps it in /run and the
# history row carries its mode and result.
rroot = fx.debian_grub(os.path.join(WORK, "bootok-report"))
run(rroot, "install")
rep = subprocess.run([TSCTUI, "simulate", "--cpus", "2", "--mode", "sync",
                      "sim.offset.0=-1000000"], capture_output=True,
                     text=True, check=True).stdout
fx.efivar(rroot, reportvar.NAME, reportvar.GUID,
          rep.encode(), attrs=0x6)
result = re.search(r"^result (\S+)", rep, re.M).group(1)
rc, out, err = run(rroot, "boot-ok")
rhist = read(rroot, "/var/lib/tsctui/history").decode()
t.ok(rc == 0 and read(rroot, "/run/tsctui/report").decode() == rep and
     f"stage_mode=sync\tstage_result={result}\t" in rhist,
     "boot-ok: this boot's report kept in /run/tsctui/report, its mode and "
     "result in the history row", f"{err} {rhist}")
rc, out, err = run(root, "uninstall")
t.ok(rc == 0 and out["ok"] and exists(root, "/var/lib/tsctui/history"),
     "grub: uninstall keeps the boot history", err)
shutil.rmtree(os.path.join(root, "var/lib/tsctui"))
same, d = diff(orig, root)
t.ok(same, "grub: after uninstall every file is as before install "
     "(diff -r, history aside)", d)
rc, out, err = run(root, "uninstall")
t.ok(rc == 2 and "not installed" in err and err.count("\n") == 1,
     "grub: uninstall when not installed: one-line error, exit 2", err)

# GRUB set a variable of its own meanwhile: uninstall keeps it.
root = fx.debian_grub(os.path.join(WORK, "debian-grub-2"))
run(root, "install")
e = genv(root)
e["saved_entry"] = "2"
fx.write(root, "/boot/grub/grubenv", fx.grubenv(**e))
rc, out, err = run(root, "uninstall", "--purge")
e = genv(root)
t.ok(rc == 0 and e == {"saved_entry": "2"},
     "grub: uninstall removes only tsctui's grubenv variables when others "
     "changed", e)

# ---- systemd-boot --------------------------------------------------------
root = fx.systemd_boot(os.path.join(WORK, "systemd-boot"))
orig = snapshot(root)
twice("systemd-boot: install (loader detected from LoaderInfo)", root,
      "install", check=lambda o: (
          changed(o).get("/efi/EFI/systemd/drivers/tsctuix64.efi") ==
          "created" and
          read(root, "/efi/EFI/tsctui/options") == b"mode=measure\n"))
t.ok(read(root, "/efi/EFI/systemd/drivers/tsctuix64.efi") ==
     read(TOP, "/efi/tsctui-driver.efi"),
     "systemd-boot: the release driver is in EFI/systemd/drivers")
twice("systemd-boot: mode sync", root, "mode", "sync",
      check=lambda o: read(root, "/efi/EFI/tsctui/options") == b"mode=sync\n")
fx.write(root, "/efi/EFI/tsctui/disabled", "")
rc, out, err = run(root, "guard", "status")
t.ok(out and out["guard"] == "tripped" and out["loader"] == "systemd-boot",
     "systemd-boot: disabled on the ESP is a tripped guard", out)
twice("systemd-boot: guard reset", root, "guard", "reset", check=lambda o: (
    not exists(root, "/efi/EFI/tsctui/disabled") and
    read(root, "/efi/EFI/tsctui/options") == b"mode=measure\n"))
ENTRY = "/efi/loader/entries/debian-6.1.0-28-amd64.conf"
twice("systemd-boot: kernel-arg nowatchdog on", root, "kernel-arg",
      "nowatchdog", "on", check=lambda o: (
          read(root, "/etc/kernel/cmdline") ==
          b"root=UUID=0f1e2d3c ro quiet tsc=nowatchdog\n" and
          b"options root=UUID=0f1e2d3c quiet tsc=nowatchdog\n" in
          read(root, ENTRY)))
twice("systemd-boot: kernel-arg nowatchdog off", root, "kernel-arg",
      "nowatchdog", "off", check=lambda o: (
          b"tsc=nowatchdog" not in read(root, "/etc/kernel/cmdline") and
          b"options root=UUID=0f1e2d3c quiet\n" in read(root, ENTRY)))
fx.write(root, "/efi/EFI/tsctui/pending", "")
rc, out, err = run(root, "boot-ok")
t.ok(rc == 0 and not exists(root, "/efi/EFI/tsctui/pending"),
     "systemd-boot: boot-ok deletes pending", err)
rc, out, err = run(root, "uninstall", "--purge")
same, d = diff(orig, root)
t.ok(rc == 0 and same,
     "systemd-boot: after uninstall --purge, diff -r is empty", f"{err}{d}")

# ---- refusals: exit 2, one line, nothing changed (used below too) --------
def refused(name, root, args, words, user=None, env=None):
    before = snapshot(root)
    rc, out, err = run(root, *args, user=user, env=env)
    same, d = diff(before, root)
    t.ok(rc == 2 and all(w in err for w in words) and
         err.strip().count("\n") == 0 and same,
         f"refused: {name}", f"rc {rc}, stderr {err!r}, diff {d}")


# ---- the hang guard's strikes (DESIGN.md 7.1), both flavours -------------
def human(root, *args):
    r = subprocess.run([TSCTUI, "--root", root, *args], capture_output=True,
                       text=True)
    return r.returncode, r.stdout, r.stderr


BOOT_ID = "/proc/sys/kernel/random/boot_id"
def pristine(root):
    """A copy refused() does not overwrite (it snapshots to .orig)."""
    copy = root + ".pristine"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, symlinks=True)
    return copy


root = fx.debian_grub(os.path.join(WORK, "guard-grub"))
orig = pristine(root)
run(root, "install")
run(root, "mode", "sync")


def genv_set(**kv):
    e = genv(root)
    e.update(kv)
    fx.write(root, "/boot/grub/grubenv", fx.grubenv(**e))


# Lost probation boots (a leftover probation, counted by the block): the
# text shows the count, a boot that reaches Linux ends it.
genv_set(tsctui_lost1="1", tsctui_lost2="1")
rc, out, err = run(root, "guard", "status")
rc2, text, _ = human(root, "guard", "status")
t.ok(rc == 0 and out["guard"] == "clear" and "lost: 2 of 5" in text,
     "grub guard: two lost probation boots: clear, the text counts them",
     f"{out} {text}")
rc, out, err = run(root, "boot-ok")
e = genv(root)
t.ok(rc == 0 and e["tsctui_lost1"] == "0" and e["tsctui_lost2"] == "0",
     "grub guard: boot-ok (this boot reached Linux) clears the lost flags",
     e)
genv_set(tsctui_lost1="1", tsctui_lost2="1", tsctui_lost3="1",
         tsctui_lost4="1", tsctui_tripped="1")
rc2, text, _ = human(root, "guard", "status")
t.ok("5 measure-only boots in a row" in text,
     "grub guard: tripped by the fifth lost probation boot: the text says "
     "so", text)
genv_set(tsctui_lost1="0", tsctui_lost2="0", tsctui_lost3="0",
         tsctui_lost4="0", tsctui_tripped="0")

genv_set(tsctui_synced="1", tsctui_strikes="2")
rc, out, err = run(root, "guard", "status")
rc2, text, _ = human(root, "guard", "status")
t.ok(rc == 0 and out["guard"] == "pending" and "not been confirmed" in text
     and "strikes: 2 of 3" in text,
     "grub guard: synced alone is pending in JSON; the text says the sync "
     "boot is unconfirmed and shows the strikes", f"{out} {text}")
rc, out, err = run(root, "boot-ok")
e = genv(root)
t.ok(rc == 0 and e["tsctui_synced"] == "0" and e["tsctui_strikes"] == "0"
     and e["tsctui_pending"] == "0" and "confirmed" in out["message"],
     "grub guard: boot-ok on a sync boot confirms it: synced cleared, "
     "strikes back to 0", f"{e} {out}")
for n in (1, 2):
    genv_set(tsctui_probation="1")
    rc, out, err = run(root, "guard", "status")
    rc2, text, _ = human(root, "guard", "status")
    t.ok(out["guard"] == "pending" and "probation" in text,
         f"grub guard: a probation boot is pending; the text says "
         f"probation ({n})", f"{out} {text}")
    rc, out, err = run(root, "boot-ok")
    e = genv(root)
    t.ok(rc == 0 and e["tsctui_strikes"] == str(n) and
         e["tsctui_probation"] == "0" and e["tsctui_tripped"] == "0" and
         f"strike {n} of 3" in out["message"],
         f"grub guard: boot-ok after a probation boot counts strike {n}",
         f"{e} {out}")
rc, out, err = run(root, "boot-ok")
t.ok(rc == 0 and out["changed"] == [] and genv(root)["tsctui_strikes"] == "2",
     "grub guard: boot-ok again in the same boot counts nothing more", out)
genv_set(tsctui_probation="1")
rc, out, err = run(root, "boot-ok")
e = genv(root)
rc2, text, _ = human(root, "guard", "status")
t.ok(rc == 0 and e["tsctui_strikes"] == "3" and e["tsctui_tripped"] == "1"
     and "disabled the stage" in out["message"] and
     "3 sync boots in a row" in text,
     "grub guard: the third strike trips the guard, with the reason",
     f"{e} {out} {text}")
twice("grub guard: guard reset clears every marker and the strikes", root,
      "guard", "reset", check=lambda o: all(
          genv(root).get(k) == "0" for k in (
              "tsctui_pending", "tsctui_tripped", "tsctui_synced",
              "tsctui_probation", "tsctui_strikes")))
genv_set(tsctui_probation="1", tsctui_strikes="x1")
refused("boot-ok with a strike count that is not one", root, ["boot-ok"],
        ["tsctui_strikes", "not a count"])
refused("guard status with a strike count that is not one", root,
        ["guard", "status"], ["not a count"])
genv_set(tsctui_probation="1", tsctui_synced="1", tsctui_strikes="1",
         tsctui_pending="1")
rc, out, err = run(root, "uninstall", "--purge")
same, d = diff(orig, root)
t.ok(rc == 0 and same, "grub guard: uninstall removes the new variables "
     "too: diff -r empty", f"{err}{d}")

root = fx.systemd_boot(os.path.join(WORK, "guard-esp"))
orig = pristine(root)
run(root, "install")
run(root, "mode", "sync")
S = "/efi/EFI/tsctui/"
fx.write(root, S + "synced", "")
fx.write(root, S + "strikes", "2\n")
rc, out, err = run(root, "guard", "status")
t.ok(out["guard"] == "pending", "esp guard: synced is pending", out)
rc, out, err = run(root, "boot-ok")
t.ok(rc == 0 and not exists(root, S + "synced") and
     not exists(root, S + "strikes"),
     "esp guard: boot-ok confirms a sync boot: synced and strikes go", out)
fx.write(root, S + "probation", "")
rc, out, err = run(root, "boot-ok")
ids = ["5d9f8b2a-1c3e-4f6a-9b8d-7e6f5a4b3c2d"]
t.ok(rc == 0 and read(root, S + "strikes") == f"1\nboot {ids[0]}\n".encode()
     and not exists(root, S + "probation"),
     "esp guard: boot-ok after a probation boot writes strike 1 (with the "
     "boot it counted) and removes probation", out)
# A boot-ok killed after the count, before probation went: run again in
# the same boot, it counts once.
fx.write(root, S + "probation", "")
rc, out, err = run(root, "boot-ok")
t.ok(rc == 0 and read(root, S + "strikes").startswith(b"1\n") and
     not exists(root, S + "probation"),
     "esp guard: boot-ok run again in the same boot (killed half way) does "
     "not count the strike twice", read(root, S + "strikes"))
for n, bid in ((2, "0b5e0c3e-0000-4000-8000-000000000002"),
               (3, "0b5e0c3e-0000-4000-8000-000000000003")):
    fx.write(root, BOOT_ID, bid + "\n")
    fx.write(root, S + "probation", "")
    rc, out, err = run(root, "boot-ok")
    t.ok(rc == 0 and read(root, S + "strikes").startswith(f"{n}\n".encode())
         and exists(root, S + "disabled") == (n == 3),
         f"esp guard: strike {n} in another boot" +
         (": the guard trips (disabled on the ESP)" if n == 3 else ""), out)
rc, out, err = run(root, "guard", "status")
t.ok(out["guard"] == "tripped", "esp guard: guard status says tripped", out)
fx.write(root, S + "hibernated", "")
rc2, text, _ = human(root, "guard", "status")
t.ok("hibernated" in text, "esp guard: the text shows the sleep hook's "
     "hibernation marker", text)
# systemd's HibernateLocation: with the hook's marker a hibernation is
# under way (current); without it the variable is stale, and the stage on
# the ESP paths would skip every boot: said, with the way to clear it.
HIBVAR = "HibernateLocation"
HIBGUID = "8cf2644b-4b0b-428f-9387-6d876050dc67"
fx.efivar(root, HIBVAR, HIBGUID, b'{"uuid":"x","offset":0}')
rc, out, err = run(root, "guard", "status")
t.ok(rc == 0 and out["hibernate_location"] == "current",
     "esp guard: HibernateLocation with the hook's marker: current", out)
os.remove(os.path.join(root, S.lstrip("/") + "hibernated"))
rc, out, err = run(root, "guard", "status")
rc2, text, _ = human(root, "guard", "status")
t.ok(rc == 0 and out["hibernate_location"] == "stale" and
     "hibernate_location: stale" in text and
     "takes every boot for a resume" in text and
     f"chattr -i /sys/firmware/efi/efivars/{HIBVAR}-{HIBGUID}" in text,
     "esp guard: HibernateLocation without a hibernation under way: stale, "
     "with how to clear it", (out, text))
os.remove(os.path.join(root, f"sys/firmware/efi/efivars/{HIBVAR}-{HIBGUID}"))
rc, out, err = run(root, "guard", "status")
t.ok(rc == 0 and out["hibernate_location"] == "none",
     "esp guard: no HibernateLocation: none", out)
fx.write(root, S + "hibernated", "")
# A resume boot's stage that never returned left its guard in an EFI
# variable; the next boot that is not a resume would trip on it.
RESUME = f"/sys/firmware/efi/efivars/{reportvar.RESUME_NAME}-{reportvar.GUID}"
fx.efivar(root, reportvar.RESUME_NAME, reportvar.GUID, b"\x01")
twice("esp guard: guard reset removes every marker, the strikes and the "
      "resume guard's variable", root,
      "guard", "reset", check=lambda o: not any(
          exists(root, S + f) for f in ("pending", "disabled", "synced",
                                        "probation", "strikes",
                                        "hibernated")) and
      not exists(root, RESUME) and
      changed(o).get(RESUME) == "removed")
fx.write(root, S + "lost1", "")
rc2, text, _ = human(root, "guard", "status")
t.ok("lost: 1 of 5" in text, "esp guard: a lost probation boot is counted "
     "in the text", text)
fx.write(root, S + "hibernated", "")
rc, out, err = run(root, "boot-ok")
t.ok(rc == 0 and not exists(root, S + "hibernated") and
     not exists(root, S + "lost1"),
     "esp guard: boot-ok (a fresh boot, or the sleep hook after a resume) "
     "removes the hibernation marker and the lost count", out)
fx.write(root, S + "probation", "")
fx.write(root, S + "strikes", "two\n")
refused("boot-ok with an ESP strikes file that is not a count", root,
        ["boot-ok"], ["strikes", "not a strike count"])
for f in ("pending", "disabled", "synced", "probation", "hibernated"):
    fx.write(root, S + f, "")
fx.write(root, S + "strikes", "1\n")
fx.write(root, BOOT_ID, ids[0] + "\n")
rc, out, err = run(root, "uninstall", "--purge")
same, d = diff(orig, root)
t.ok(rc == 0 and same, "esp guard: uninstall removes every marker file "
     "too: diff -r empty", f"{err}{d}")

# The sleep hook `make install` puts down, run as systemd-sleep runs it,
# against a fixture (TSCTUI_CONF-free: it reads /etc, so only the parts
# that need no root are checked here; the e2e test runs it for real).
hook = read(root, "/usr/lib/systemd/system-sleep/tsctui").decode()
t.ok("/usr/local/sbin/tsctui boot-ok" in hook and
     os.access(os.path.join(root, "usr/lib/systemd/system-sleep/tsctui"),
               os.X_OK),
     "make install puts the sleep hook in /usr/lib/systemd/system-sleep, "
     "running the installed tsctui's boot-ok")

# ---- Fedora: grubby (a recording double), and BLS entries for real -------
root = fx.fedora_grubby(os.path.join(WORK, "fedora"))
orig = snapshot(root)
genv_env, glog = fx.grubby_double(WORK)
rc, out, err = run(root, "install")
conf = read(root, "/etc/tsctui/tsctui.conf").decode()
t.ok("grub2-mkconfig -o /boot/grub2/grub.cfg" in out["message"] and
     "update-grub" not in out["message"],
     "fedora: under --root, install names grub2-mkconfig and the target's "
     "grub.cfg", out["message"])
t.ok(rc == 0 and "grubenv=/boot/grub2/grubenv" in conf and
     genv(root, "/boot/grub2/grubenv").get("tsctui_mode") == "measure",
     "fedora: install finds /boot/grub2/grubenv", err)
twice("fedora: mode sync", root, "mode", "sync", check=lambda o: (
    genv(root, "/boot/grub2/grubenv")["tsctui_mode"] == "sync"))
twice("fedora: guard reset", root, "guard", "reset")
rc, out, err = run(root, "kernel-arg", "nowatchdog", "on", env=genv_env)
rc2, out2, err2 = run(root, "kernel-arg", "nowatchdog", "off", env=genv_env)
calls = open(glog).read().splitlines() if os.path.exists(glog) else []
t.ok(rc == 0 and rc2 == 0 and calls == [
    "--update-kernel=ALL --args=tsc=nowatchdog",
    "--update-kernel=ALL --remove-args=tsc=nowatchdog"],
    "fedora: kernel-arg runs grubby --update-kernel=ALL --args, then "
    "--remove-args (test double)", f"{calls} {err}{err2}")
FENTRY = "/boot/loader/entries/abc-6.5.6-300.fc39.x86_64.conf"
rc, out, err = run(root, "kernel-arg", "nowatchdog", "on")
t.ok(rc == 0 and b"options root=UUID=0f1e2d3c ro rhgb quiet tsc=nowatchdog\n"
     in read(root, FENTRY),
     "fedora under --root (no grubby to run): the BLS entries are edited",
     err)
rc, out, err = run(root, "uninstall", "--purge")
same, d = diff(orig, root)
t.ok(rc == 0 and same, "fedora: after uninstall --purge, diff -r is empty",
     f"{err}{d}")

# ---- the firmware boot entry path -----------------------------------------
import struct  # noqa: E402
import uuid  # noqa: E402

root = fx.efi_machine(os.path.join(WORK, "efi-entry"))
orig = snapshot(root)
VARS = "/sys/firmware/efi/efivars/"
rc, out, err = run(root, "install", "--loader", "efi-entry")
entry = read(root, VARS + "Boot0003-" + fx.GLOBAL)
attrs, desc, nodes, opt = fx.parse_load_option(entry[4:])
t.ok(rc == 0 and desc == "tsctui" and attrs == 1 and
     struct.unpack("<I", entry[:4])[0] == 7,
     "efi-entry: Boot0003 \"tsctui\", active, non-volatile", err)
hd = [n for n in nodes if n[:2] == (4, 1)]
fl = [n for n in nodes if n[:2] == (4, 4)]
t.ok(hd and struct.unpack_from("<IQQ", hd[0][2]) == (1, 2048, 1048576) and
     uuid.UUID(bytes_le=hd[0][2][20:36]) == uuid.UUID(fx.ESP_PARTUUID) and
     fl and fl[0][2].decode("utf-16-le").rstrip("\0") ==
     "\\EFI\\tsctui\\tsctui.efi" and nodes[-1][:2] == (0x7F, 0xFF),
     "efi-entry: the device path is HD(1,GPT,ESP partuuid)/File(stage)",
     nodes)
t.ok(opt.decode("utf-16-le") == "config=esp next=Boot0001\0",
     "efi-entry: load options config=esp next=Boot0001 (the network entry "
     "first cannot start a loader)", opt)
t.ok(read(root, VARS + "BootOrder-" + fx.GLOBAL)[4:] ==
     struct.pack("<HHHH", 3, 0, 1, 2) and "Boot0001" in out["message"] and
     "starts a loader from a disk" in out["message"],
     "efi-entry: first in BootOrder, and install says which entry is next",
     out)
t.ok(read(root, "/var/lib/tsctui/backup" + VARS + "BootOrder-" + fx.GLOBAL)
     == struct.pack("<IHHH", 7, 0, 1, 2) and
     "varbackup " + VARS + "BootOrder-" + fx.GLOBAL in
     read(root, "/var/lib/tsctui/ledger").decode() and
     "var " + VARS + "Boot0003-" + fx.GLOBAL in
     read(root, "/var/lib/tsctui/ledger").decode() and
     read(root, "/boot/efi/EFI/tsctui/options") == b"mode=measure\n" and
     read(root, "/boot/efi/EFI/tsctui/tsctui.efi") ==
     read(TOP, "/efi/tsctui.efi"),
     "efi-entry: the ledger has the new entry and the old BootOrder "
     "(attributes and bytes, under /var/lib); stage and options on the ESP")
twice("efi-entry: mode sync (ESP options, never NVRAM)", root, "mode",
      "sync", check=lambda o: (
          read(root, "/boot/efi/EFI/tsctui/options") == b"mode=sync\n" and
          not any("efivars" in c["path"] for c in o["changed"])))
rc, out, err = run(root, "uninstall")
same, d = diff(orig, root)
t.ok(rc == 0 and same,
     "efi-entry: uninstall deletes the entry and restores BootOrder "
     "exactly (diff -r empty)", f"{err}{d}")
# kernel-arg goes by the loader that starts Linux, not by where the stage
# sits: with the stage in its own firmware entry on a GRUB machine, the
# argument goes in GRUB's drop-in (it used to edit nothing there).
root = fx.efi_machine(os.path.join(WORK, "efi-entry-karg"))
orig = snapshot(root)
run(root, "install", "--loader", "efi-entry")
rc, out, err = run(root, "kernel-arg", "nowatchdog", "on")
t.ok(rc == 0 and changed(out).get(
    "/etc/default/grub.d/tsctui-nowatchdog.cfg") == "created" and
    b"tsc=nowatchdog" in read(root, "/etc/default/grub.d/"
                              "tsctui-nowatchdog.cfg"),
    "efi-entry on a GRUB machine: kernel-arg writes GRUB's drop-in", out)
rc, out, err = run(root, "uninstall", "--purge")
same, d = diff(orig, root)
t.ok(rc == 0 and same, "efi-entry on a GRUB machine: after kernel-arg and "
     "uninstall --purge, diff -r is empty", f"{err}{d}")
root = fx.efi_machine(os.path.join(WORK, "efi-entry-next"))
rc, out, err = run(root, "install", "--loader", "efi-entry", "--next",
                   "Boot0002")
attrs, desc, nodes, opt = fx.parse_load_option(
    read(root, VARS + "Boot0003-" + fx.GLOBAL)[4:])
t.ok(rc == 0 and opt.decode("utf-16-le") == "config=esp next=Boot0002\0",
     "efi-entry --next Boot0002 is taken as given", err)
refused("efi-entry --next naming no entry", fx.efi_machine(
    os.path.join(WORK, "efi-entry-bad")), ["install", "--loader",
                                             "efi-entry", "--next",
                                             "Boot00AA"], ["does not exist"])

# ---- the kernel-install plugin, run as kernel-install runs it ------------
PLUGIN = os.path.join(TOP, "kernel-install.d", "95-tsctui.install")
kroot = os.path.join(WORK, "kernel-install")
if os.path.exists(kroot):
    shutil.rmtree(kroot)
entry = os.path.join(kroot, "boot/loader/entries/debian-6.1.0-29-amd64.conf")
setting = os.path.join(kroot, "nowatchdog")


def plugin(layout, state, *args, options="root=UUID=0f ro quiet"):
    fx.write(kroot, "/boot/loader/entries/debian-6.1.0-29-amd64.conf",
             f"title Debian\nversion 6.1.0-29-amd64\noptions {options}\n")
    if state is None:
        if os.path.exists(setting):
            os.unlink(setting)
    else:
        fx.write(kroot, "/nowatchdog", state + "\n")
    r = subprocess.run([PLUGIN, *args], capture_output=True, text=True, env={
        **os.environ, "KERNEL_INSTALL_LAYOUT": layout,
        "KERNEL_INSTALL_BOOT_ROOT": os.path.join(kroot, "boot"),
        "KERNEL_INSTALL_ENTRY_TOKEN": "debian",
        "KERNEL_INSTALL_MACHINE_ID": "0123456789abcdef0123456789abcdef",
        "TSCTUI_NOWATCHDOG": setting})
    with open(entry) as f:
        return r.returncode, f.read()


ADD = ("add", "6.1.0-29-amd64", os.path.join(kroot, "boot/debian/6.1.0-29"),
       "/boot/vmlinuz-6.1.0-29-amd64")
rc, text = plugin("bls", "on", *ADD)
t.ok(rc == 0 and "options root=UUID=0f ro quiet tsc=nowatchdog\n" in text,
     "kernel-install plugin, setting on: the new entry gets tsc=nowatchdog",
     text)
rc, text = plugin("bls", "off", *ADD, options="root=UUID=0f tsc=nowatchdog")
t.ok(rc == 0 and "options root=UUID=0f\n" in text,
     "kernel-install plugin, setting off: a token inherited from "
     "/proc/cmdline is taken out", text)
for layout in ("uki", "other"):
    rc, text = plugin(layout, "on", *ADD)
    t.ok(rc == 0 and "tsc=nowatchdog" not in text,
         f"kernel-install plugin, layout {layout}: nothing changes, exit 0")
rc, text = plugin("bls", "on", "remove", "6.1.0-29-amd64",
                  os.path.join(kroot, "boot/debian/6.1.0-29"))
t.ok(rc == 0 and "tsc=nowatchdog" not in text,
     "kernel-install plugin, remove: nothing to do, exit 0")
rc, text = plugin("bls", None, *ADD)
t.ok(rc == 0 and "tsc=nowatchdog" not in text,
     "kernel-install plugin without a setting: inert")

root = fx.debian_grub(os.path.join(WORK, "foreign"))
fx.write(root, "/boot/efi/EFI/tsctui/tsctui.efi", b"someone else's file")
refused("a file tsctui did not create", root, ["install"],
        ["not installed by tsctui"])
root = fx.debian_grub(os.path.join(WORK, "btrfs"), root_fs="btrfs")
refused("a grubenv on btrfs", root, ["install"], ["btrfs", "efi-entry"])
root = fx.debian_grub(os.path.join(WORK, "lvm"),
                      root_dev="/dev/mapper/vg-root")
refused("a grubenv on LVM/LUKS", root, ["install"], ["device-mapper"])
root = fx.debian_grub(os.path.join(WORK, "secureboot"), secure_boot=True)
refused("Secure Boot without a key", root, ["install"],
        ["Secure Boot", "--key"])
root = fx.debian_grub(os.path.join(WORK, "tscsync"))
fx.write(root, "/boot/grub/custom.cfg", "chainloader /EFI/tscsync/x.efi\n"
         "# tscsync\n")
refused("a tscsync install present", root, ["install"], ["tscsync"])
simdir = os.path.join(WORK, "simdir")
os.makedirs(simdir, exist_ok=True)
shutil.copy(os.path.join(TOP, "efi", "tsctui-sim.efi"),
            os.path.join(simdir, "tsctui.efi"))
root = fx.debian_grub(os.path.join(WORK, "simbuild"))
refused("the sim build", root, ["install"], ["sim"],
        env={"TSCTUI_EFI_DIR": simdir})
root = fx.debian_grub(os.path.join(WORK, "corrupt"))
fx.write(root, "/boot/grub/grubenv", fx.grubenv(saved_entry="0")[:700])
refused("a corrupt grubenv", root, ["install"], ["corrupt"])
root = fx.debian_grub(os.path.join(WORK, "badmode"))
run(root, "install")
refused("an unknown mode", root, ["mode", "fast"], ["unknown mode"])
e = genv(root)
e_bad = read(root, "/boot/grub/grubenv")[:1000]
fx.write(root, "/boot/grub/grubenv", e_bad)
refused("mode with a corrupt grubenv", root, ["mode", "sync"], ["corrupt"])
refused("an unknown option", root, ["install", "--frobnicate"],
        ["unknown option"])
refused("tsc=reliable is never offered", root,
        ["kernel-arg", "reliable", "on"], ["never offered"])
# mode sync applies the stage's own gate (common/cpuid.c) to the managed
# system's /proc/cpuinfo: the list is the only objection --allow-any-cpu
# lifts; a hypervisor or TSC_ADJUST is refused whatever the option says.
root = fx.systemd_boot(os.path.join(WORK, "intel"),
                       cpuinfo=fx.CPUINFO_INTEL.replace(" tsc_adjust", ""))
run(root, "install")
refused("sync on a CPU outside the list", root, ["mode", "sync"],
        ["--allow-any-cpu"])
rc, out, err = run(root, "mode", "sync", "--allow-any-cpu")
t.ok(rc == 0 and read(root, "/efi/EFI/tsctui/options") ==
     b"mode=sync allow=any-cpu\n",
     "--allow-any-cpu passes allow=any-cpu to the stage", err)
for name, cpuinfo, words in (
        ("TSC_ADJUST", fx.CPUINFO_INTEL, ["TSC_ADJUST"]),
        ("a hypervisor", fx.CPUINFO_AMD.replace("nonstop_tsc",
                                                "nonstop_tsc hypervisor"),
         ["hypervisor"])):
    root = fx.systemd_boot(os.path.join(WORK, "gate-" + name.split()[-1]),
                           cpuinfo=cpuinfo)
    run(root, "install")
    refused(f"sync on a CPU with {name}", root, ["mode", "sync"], words)
    refused(f"sync on a CPU with {name}, even with --allow-any-cpu", root,
            ["mode", "sync", "--allow-any-cpu"], words)

# Unreadable and read-only, made real: root reads a chmod 000 directory,
# so these run as an unprivileged user who owns the fixture.
root = fx.debian_grub(os.path.join(NOBODY_DIR, "unreadable-esp"))
subprocess.run(["chown", "-R", "nobody:nogroup", root], check=True)
os.chmod(os.path.join(root, "boot/efi"), 0)
refused("an unreadable ESP", root, ["install"], ["ESP", "/boot/efi"],
        user="nobody")
os.chmod(os.path.join(root, "boot/efi"), 0o755)
root = fx.debian_grub(os.path.join(NOBODY_DIR, "readonly"))
subprocess.run(["chown", "-R", "nobody:nogroup", root], check=True)
for d in ("etc", "boot/efi", "var/lib"):
    os.chmod(os.path.join(root, d), 0o555)
refused("a read-only root", root, ["install"], ["not writable"],
        user="nobody")
root = fx.debian_grub(os.path.join(WORK, "noesp"))
shutil.rmtree(os.path.join(root, "boot/efi"))
fx.write(root, "/proc/self/mounts", "/dev/vda2 / ext4 rw 0 0\n")
refused("no ESP mounted", root, ["install"], ["--esp"])

# ---- signing with a throwaway key ---------------------------------------
key = os.path.join(WORK, "db.key")
cert = os.path.join(WORK, "db.crt")
subprocess.run(["openssl", "req", "-new", "-x509", "-newkey", "rsa:2048",
                "-nodes", "-days", "1", "-subj", "/CN=tsctui test db/",
                "-keyout", key, "-out", cert], check=True, capture_output=True)
root = fx.debian_grub(os.path.join(WORK, "signed"), secure_boot=True)
rc, out, err = run(root, "install", "--key", key, "--cert", cert)
ver = subprocess.run(["sbverify", "--cert", cert, os.path.join(
    root, "boot/efi/EFI/tsctui/tsctui.efi")], capture_output=True)
t.ok(rc == 0 and ver.returncode == 0,
     "Secure Boot with --key/--cert: the installed stage is signed and "
     "sbverify accepts it", err)

# A key where sbctl keeps it is found without --key.
root = fx.debian_grub(os.path.join(WORK, "sbctl"), secure_boot=True)
fx.write(root, "/var/lib/sbctl/keys/db/db.key", read(WORK, key.replace(
    WORK, "")))
fx.write(root, "/var/lib/sbctl/keys/db/db.pem", read(WORK, cert.replace(
    WORK, "")))
rc, out, err = run(root, "install")
ver = subprocess.run(["sbverify", "--cert", cert, os.path.join(
    root, "boot/efi/EFI/tsctui/tsctui.efi")], capture_output=True)
t.ok(rc == 0 and ver.returncode == 0 and "sbctl" in out["message"],
     "Secure Boot: sbctl's db key is found and used", err)

# DKMS's MOK key: its certificate is DER (mok.pub), which sbsign cannot read.
root = fx.debian_grub(os.path.join(WORK, "dkms"), secure_boot=True)
fx.write(root, "/var/lib/dkms/mok.key", read(WORK, key.replace(WORK, "")))
der = subprocess.run(["openssl", "x509", "-in", cert, "-outform", "DER"],
                     check=True, capture_output=True).stdout
fx.write(root, "/var/lib/dkms/mok.pub", der)
rc, out, err = run(root, "install")
ver = subprocess.run(["sbverify", "--cert", cert, os.path.join(
    root, "boot/efi/EFI/tsctui/tsctui.efi")], capture_output=True)
t.ok(rc == 0 and ver.returncode == 0 and "/var/lib/dkms/mok.key" in
     out["message"] and read(root, "/var/lib/dkms/mok.pub") == der,
     "Secure Boot: DKMS's MOK key with its DER certificate is found, the "
     "stage signed and verified, mok.pub left as it was", err)

# The firmware boot entry is checked by the firmware itself, which trusts
# db and never a MOK (only shim does): with Secure Boot on, an entry signed
# by a MOK key would not start, so install refuses it rather than warn.
# GRUB (through shim) and systemd-boot keep taking the MOK key.
def mok_machine(name, kind="dkms", make=fx.efi_machine):
    r = make(os.path.join(WORK, name), secure_boot=True)
    if kind == "dkms":
        fx.write(r, "/var/lib/dkms/mok.key", read(WORK, key.replace(WORK, "")))
        fx.write(r, "/var/lib/dkms/mok.pub", der)
    else:
        fx.write(r, "/var/lib/shim-signed/mok/MOK.priv",
                 read(WORK, key.replace(WORK, "")))
        fx.write(r, "/var/lib/shim-signed/mok/MOK.pem",
                 read(WORK, cert.replace(WORK, "")))
    return r


refused("efi-entry under Secure Boot with only DKMS's MOK key",
        mok_machine("mok-efi-entry"), ["install", "--loader", "efi-entry"],
        ["MOK", "db", "/var/lib/dkms/mok.key"])
refused("efi-entry under Secure Boot with only shim-signed's MOK key",
        mok_machine("mok-efi-entry-shim", "shim"),
        ["install", "--loader", "efi-entry"], ["MOK", "db"])
root = mok_machine("mok-efi-entry-given", "shim")
refused("efi-entry under Secure Boot, --key/--cert naming the MOK key",
        root, ["install", "--loader", "efi-entry", "--key",
               os.path.join(root, "var/lib/shim-signed/mok/MOK.priv"),
               "--cert", os.path.join(root, "var/lib/shim-signed/mok/MOK.pem")],
        ["MOK", "db"])
root = mok_machine("mok-efi-entry-db", "shim")
fx.write(root, "/var/lib/sbctl/keys/db/db.key", read(WORK, key.replace(
    WORK, "")))
fx.write(root, "/var/lib/sbctl/keys/db/db.pem", read(WORK, cert.replace(
    WORK, "")))
rc, out, err = run(root, "install", "--loader", "efi-entry")
t.ok(rc == 0 and "sbctl" in out["message"],
     "efi-entry under Secure Boot with a db key beside the MOK key: the "
     "db key signs the stage", err)
root = mok_machine("mok-systemd-boot", make=fx.systemd_boot)
rc, out, err = run(root, "install")
ver = subprocess.run(["sbverify", "--cert", cert, os.path.join(
    root, "efi/EFI/systemd/drivers/tsctuix64.efi")], capture_output=True)
t.ok(rc == 0 and ver.returncode == 0 and "MOK" in out["message"],
     "systemd-boot under Secure Boot with only a MOK key: signed, with the "
     "warning (shim's verifier may trust it)", err or out)


# ---- kernel-arg on long and many options lines (issue 14) ---------------
# Every byte of the user's entries survives: no fixed buffer cuts a line,
# none is overrun, and uninstall gives the tree back byte for byte.
def karg_roundtrip(name, root, check_on, files):
    """install, kernel-arg on (check_on(out)), kernel-arg off (the files
    as they were), on again, uninstall --purge: diff -r empty."""
    orig = pristine(root)
    run(root, "install")
    before = {f: read(root, f) for f in files}
    rc, out, err = run(root, "kernel-arg", "nowatchdog", "on")
    t.ok(rc == 0 and out["ok"] and check_on(out),
         f"{name}: kernel-arg nowatchdog on", f"rc {rc}: {err} {out}")
    rc, out, err = run(root, "kernel-arg", "nowatchdog", "off")
    t.ok(rc == 0 and all(read(root, f) == before[f] for f in files),
         f"{name}: kernel-arg nowatchdog off gives the same bytes back",
         f"rc {rc}: {err}")
    run(root, "kernel-arg", "nowatchdog", "on")
    rc, out, err = run(root, "uninstall", "--purge")
    same, d = diff(orig, root)
    t.ok(rc == 0 and same, f"{name}: after uninstall --purge, diff -r is "
         "empty", f"rc {rc}: {err}{d}")


# The old edit wrote each line back with the token into twice the file's
# size plus 31 bytes: 9 short options lines alone overran it (ASan), 100
# with a title and linux line corrupted the heap (abort) mid-write.
for nlines, head in ((9, ""),
                     (100, "title Debian\nlinux /vmlinuz-6.1.0-28\n")):
    root = fx.systemd_boot(os.path.join(WORK, f"karg-lines-{nlines}"))
    fx.write(root, ENTRY, head + "options a\n" * nlines)
    # The lines are one command line: the token goes on the last.
    want = (head + "options a\n" * (nlines - 1) +
            "options a tsc=nowatchdog\n").encode()
    karg_roundtrip(f"kernel-arg, {nlines} options lines", root,
                   lambda o: read(root, ENTRY) == want, [ENTRY])

# A 6 KB options line: where a 4 KB buffer cut ~200 arguments.
LONG = " ".join(f"arg{i:04d}=v" for i in range(610))
root = fx.systemd_boot(os.path.join(WORK, "karg-long-options"))
fx.write(root, ENTRY, "title Debian\nlinux /vmlinuz-6.1.0-28\n"
         f"options {LONG}\ninitrd /initrd.img\n")
karg_roundtrip("kernel-arg, a 6 KB options line", root, lambda o: (
    len(LONG) > 6000 and read(root, ENTRY) ==
    ("title Debian\nlinux /vmlinuz-6.1.0-28\n"
     f"options {LONG} tsc=nowatchdog\ninitrd /initrd.img\n").encode() and
    "reads the first 2047" in o["message"]), [ENTRY])

# /etc/kernel/cmdline longer than 4 KB, and one in two lines (kernel-install
# joins them; the first line alone used to be kept).
root = fx.systemd_boot(os.path.join(WORK, "karg-long-cmdline"))
fx.write(root, "/etc/kernel/cmdline", LONG + "\n")
karg_roundtrip("kernel-arg, a 6 KB /etc/kernel/cmdline", root, lambda o: (
    read(root, "/etc/kernel/cmdline") ==
    f"{LONG} tsc=nowatchdog\n".encode() and
    b"options root=UUID=0f1e2d3c quiet tsc=nowatchdog\n" in
    read(root, ENTRY)), ["/etc/kernel/cmdline", ENTRY])
root = fx.systemd_boot(os.path.join(WORK, "karg-two-line-cmdline"))
fx.write(root, "/etc/kernel/cmdline", "root=UUID=0f1e2d3c ro\nquiet splash\n")
orig = pristine(root)
run(root, "install")
rc, out, err = run(root, "kernel-arg", "nowatchdog", "on")
t.ok(rc == 0 and read(root, "/etc/kernel/cmdline") ==
     b"root=UUID=0f1e2d3c ro quiet splash tsc=nowatchdog\n",
     "kernel-arg: an /etc/kernel/cmdline in two lines keeps both",
     read(root, "/etc/kernel/cmdline"))
rc, out, err = run(root, "uninstall", "--purge")
same, d = diff(orig, root)
t.ok(rc == 0 and same, "kernel-arg, two-line /etc/kernel/cmdline: after "
     "uninstall --purge, diff -r is empty", f"{err}{d}")

# ---- kernel-arg after an efi-entry install: the loader next= starts ------
GRUB_DROPIN = "/etc/default/grub.d/tsctui-nowatchdog.cfg"


def efi_karg(name, root, *install):
    orig = pristine(root)
    run(root, "install", "--loader", "efi-entry", *install)
    rc, out, err = run(root, "kernel-arg", "nowatchdog", "on")
    t.ok(rc == 0 and changed(out).get(GRUB_DROPIN) == "created" and
         not exists(root, "/etc/kernel/cmdline"),
         f"efi-entry on a GRUB machine, {name}: kernel-arg writes GRUB's "
         "drop-in", f"rc {rc}: {err} {out}")
    rc, out, err = run(root, "uninstall", "--purge")
    same, d = diff(orig, root)
    t.ok(rc == 0 and same, f"efi-entry on a GRUB machine, {name}: after "
         "uninstall --purge, diff -r is empty", f"{err}{d}")


# An empty /boot/loader/entries is no sign GRUB reads BLS entries.
root = fx.efi_machine(os.path.join(WORK, "efi-karg-empty-entries"))
os.makedirs(os.path.join(root, "boot/loader/entries"))
efi_karg("an empty /boot/loader/entries", root)
# This boot went through systemd-boot (LoaderInfo), but the stage starts
# GRUB: next= decides.
root = fx.efi_machine(os.path.join(WORK, "efi-karg-loaderinfo"))
fx.efivar(root, "LoaderInfo", fx.LOADER, fx.utf16("systemd-boot 252"),
          attrs=0x6)
efi_karg("systemd-boot's LoaderInfo from this boot", root, "--next",
         "Boot0001")
# Nothing says which loader, and no entry to edit: refused, not "added".
root = fx.efi_machine(os.path.join(WORK, "efi-karg-unknown"))
run(root, "install", "--loader", "efi-entry", "--next", "Boot0002")
os.unlink(os.path.join(root, "boot/grub/grub.cfg"))
refused("kernel-arg where no loader and no BLS entry takes the argument",
        root, ["kernel-arg", "nowatchdog", "on"], ["nothing changed"])

shutil.rmtree(NOBODY_DIR, ignore_errors=True)
sys.exit(t.done())

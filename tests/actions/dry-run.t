#!/usr/bin/env python3
"""Every action's --dry-run on fixture roots: exit 0, the plan (what it
would create, modify, remove, and the tools it would run), and not one byte
of the fixture changed; then the same action for real changes exactly the
paths the plan named (the ledger and its backups, which no action reports,
aside).  A refusal under --dry-run is the action's refusal: exit 2, one
line, nothing changed."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TSCTUI  # noqa: E402
WORK = os.path.join(BUILD, "dry-run-tests")
t = Tap()
os.makedirs(WORK, exist_ok=True)
# Where the ledger keeps itself and its backups: not a change an action
# reports (ARCHITECTURE 4.3's "changed" lists the system's files).
BOOKKEEPING = ("/var/lib/tsctui/ledger", "/var/lib/tsctui/backup")


def run(root, *args, env=None, json_out=True):
    cmd = [TSCTUI, "--root", root] + (["--json"] if json_out else []) + \
        list(args)
    r = subprocess.run(cmd, capture_output=True, text=True,
                       env={**os.environ, **(env or {})})
    out = r.stdout
    if json_out and out.strip():
        out = json.loads(out)
    return r.returncode, out, r.stderr


def tree(root):
    """Every path under root: its type, mode, and bytes or link target."""
    seen = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            rel = "/" + os.path.relpath(p, root)
            if os.path.islink(p):
                seen[rel] = ("link", os.readlink(p))
            elif os.path.isdir(p):
                seen[rel] = ("dir", st.st_mode)
            else:
                with open(p, "rb") as f:
                    seen[rel] = ("file", st.st_mode, f.read())
    return seen


def differ(a, b):
    return {p for p in set(a) | set(b) if a.get(p) != b.get(p)
            and not p.startswith(BOOKKEEPING)}


def changed(out):
    return {c["path"]: c["what"] for c in out["changed"]}


def plan_then_do(name, root, *args, env=None, check=lambda plan: True):
    """The dry run writes nothing; the real run does what it said."""
    before = tree(root)
    rc, plan, err = run(root, *args, "--dry-run", env=env)
    after_plan = tree(root)
    t.ok(rc == 0 and plan["ok"] and plan["dry_run"] and
         after_plan == before and check(plan),
         f"{name}: --dry-run exits 0 with the plan and changes no byte",
         f"rc {rc} {err} {plan} {differ(before, after_plan)}")
    rc, out, err = run(root, *args, env=env)
    # the lock (/run, gone at the next boot) is the one file no plan names
    touched = differ(before, tree(root)) - {"/run/tsctui.lock"}
    t.ok(rc == 0 and changed(plan) == changed(out) and
         touched <= set(changed(plan)),
         f"{name}: the real run changes what the plan named",
         f"rc {rc} {err}\nplan {changed(plan)}\nreal {changed(out)}\n"
         f"touched {touched}")
    return plan


# ---- Debian GRUB: the whole life, each step planned first ----------------
root = fx.debian_grub(os.path.join(WORK, "debian-grub"))
plan = plan_then_do("grub: install", root, "install", check=lambda p: (
    changed(p).get("/boot/efi/EFI/tsctui/tsctui.efi") == "created" and
    "tsctui_mode=measure" in {c["path"]: c.get("detail", "")
                              for c in p["changed"]}["/boot/grub/grubenv"]))
plan_then_do("grub: mode sync", root, "mode", "sync", check=lambda p: (
    changed(p) == {"/boot/grub/grubenv": "modified"} and
    "tsctui_mode=sync" in p["changed"][0]["detail"]))
plan_then_do("grub: guard reset", root, "guard", "reset")
plan_then_do("grub: kernel-arg nowatchdog on (the drop-in)", root,
             "kernel-arg", "nowatchdog", "on", check=lambda p: (
                 changed(p).get("/etc/default/grub.d/tsctui-nowatchdog.cfg")
                 == "created"))
fx.write(root, "/boot/grub/grubenv", fx.grubenv(
    saved_entry="0", tsctui_mode="measure", tsctui_options="",
    tsctui_pending="1", tsctui_tripped="0"))
plan_then_do("grub: boot-ok", root, "boot-ok")
plan_then_do("grub: kernel-arg nowatchdog off", root, "kernel-arg",
             "nowatchdog", "off", check=lambda p: (
                 changed(p).get("/etc/default/grub.d/tsctui-nowatchdog.cfg")
                 == "removed"))
plan_then_do("grub: uninstall --purge", root, "uninstall", "--purge",
             check=lambda p: changed(p).get("/etc/tsctui/tsctui.conf") ==
             "removed")

# The plan in words, and --dry-run wherever the action's options go.
root = fx.debian_grub(os.path.join(WORK, "debian-grub-text"))
before = tree(root)
rc, out, err = run(root, "install", "--dry-run", json_out=False)
t.ok(rc == 0 and "create   /boot/efi/EFI/tsctui/tsctui.efi" in out and
     "modify   /boot/grub/grubenv: " in out and
     "dry run: nothing was changed" in out and tree(root) == before,
     "text: one line per change, and the dry run says nothing changed",
     out + err)
rc, out, err = run(root, "--dry-run", "install", json_out=False)
t.ok(rc == 2 and "unknown option" in err and tree(root) == before,
     "--dry-run is an action's option, not a global one", err)

# ---- systemd-boot ---------------------------------------------------------
root = fx.systemd_boot(os.path.join(WORK, "systemd-boot"))
plan_then_do("systemd-boot: install", root, "install", check=lambda p: (
    changed(p).get("/efi/EFI/systemd/drivers/tsctuix64.efi") == "created"))
plan_then_do("systemd-boot: mode sync", root, "mode", "sync",
             check=lambda p: p["changed"][0]["detail"] == "mode=sync")
fx.write(root, "/efi/EFI/tsctui/disabled", "")
plan_then_do("systemd-boot: guard reset", root, "guard", "reset",
             check=lambda p: changed(p).get("/efi/EFI/tsctui/disabled") ==
             "removed")
plan_then_do("systemd-boot: kernel-arg nowatchdog on", root, "kernel-arg",
             "nowatchdog", "on", check=lambda p: (
                 changed(p).get("/etc/kernel/cmdline") == "created"))
fx.write(root, "/efi/EFI/tsctui/pending", "")
plan_then_do("systemd-boot: boot-ok", root, "boot-ok", check=lambda p: (
    changed(p).get("/efi/EFI/tsctui/pending") == "removed"))
plan_then_do("systemd-boot: uninstall", root, "uninstall")

# ---- the firmware boot entry: NVRAM planned, not written ------------------
root = fx.efi_machine(os.path.join(WORK, "efi-entry"))
VARS = "/sys/firmware/efi/efivars/"
plan_then_do("efi-entry: install", root, "install", "--loader", "efi-entry",
             check=lambda p: any(k.startswith(VARS + "Boot0003-")
                                 for k in changed(p)))
plan_then_do("efi-entry: uninstall", root, "uninstall")

# ---- grubby: named in the plan, not run -----------------------------------
root = fx.fedora_grubby(os.path.join(WORK, "fedora"))
env, glog = fx.grubby_double(WORK)
rc, out, err = run(root, "kernel-arg", "nowatchdog", "on", "--dry-run",
                   env=env)
t.ok(rc == 0 and out["run"] == [
    "grubby --update-kernel=ALL --args=tsc=nowatchdog"] and
    not os.path.exists(glog),
    "grubby: the plan names the command and the dry run does not run it",
    f"{out} {err}")

# ---- refusals stay refusals ------------------------------------------------
root = fx.debian_grub(os.path.join(WORK, "refusals"))
before = tree(root)
for args, words in ((["mode", "sync", "--dry-run"], ["not installed"]),
                    (["mode", "fast", "--dry-run"], ["unknown mode"]),
                    (["install", "--loader", "lilo", "--dry-run"],
                     ["unknown loader"])):
    rc, out, err = run(root, *args, json_out=False)
    t.ok(rc == 2 and all(w in err for w in words) and
         err.strip().count("\n") == 0 and tree(root) == before,
         f"refused under --dry-run: {' '.join(args)}", f"rc {rc} {err}")

sys.exit(t.done())

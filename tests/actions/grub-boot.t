#!/usr/bin/env python3
"""The block the grub.d generator emits, under a real GRUB in QEMU/OVMF.

A mirror directory stands for the installed system: `tsctui --root MIRROR
install --loader grub` writes its configuration and grubenv, the real
generator turns that into the block, and a standalone GRUB runs it.  The
disk has an ESP (the stage) and a second FAT file system holding
/boot/grub/grubenv, found by UUID as GRUB would find a root file system.
The grubenv travels between image and mirror with mtools (this machine
cannot mount FAT).  No boot reaches Linux here: the mirror's `boot-ok`
stands for it where the story says Linux was reached.  Boots:
  1. the stage syncs (sim build, E595 pattern); once it returned, the
     block cleared pending and set synced; the menu is reached;
  2. no boot-ok (another system was chosen at that menu): the next boot
     is a probation boot, measure only (its stage not waiting out GRUB's
     disk cache: boot 1's wrote, read from GRUB's old copy, must not set
     synced); boot-ok then counts strike 1;
  3. a boot that hangs in the stage (sim.hang=1), stopped: pending set;
  4. GRUB finds pending set: tripped, the stage skipped, the menu reached;
  5. after `guard reset` in the mirror, the stage runs again (measure);
  6. the disk write-protected: save_env fails, pending does not read back,
     and the block skips the stage rather than run it unguarded;
  7. the block of tsctui 0.1 (tests/actions/05_tsctui-0.1: it sets
     pending and never clears it) with this program: boot-ok clears it,
     and the next boot runs the stage (no false trip).
Between 5 and 6, the stage's channel to the block (\EFI\tsctui\run\ran-ok
and wrote, tested with [ -f ]):
  5a. a sync run with nothing to write: run/wrote absent, synced not set;
  5b. an AP the firmware had to stop (sim.overrun=1): no run/ran-ok, the
      block keeps pending (only boot-ok clears it);
  5c. one vCPU, a stage that returns fast and does not wait out GRUB's
      disk cache (sim.cachewait=0): the block, finding no ran-ok in its
      old copy, sleeps by its own clock, reads again and sees this run's;
  5d. the sleep hook's hibernated marker on the ESP (a resume): the block
      runs the stage with no save_env, measure only after an unconfirmed
      sync and sync after a confirmed one, the disk byte-identical and the
      guard in the stage's EFI variable; a resume boot that hangs in the
      stage, then a boot that is not a resume: tripped (run/tripped);
  5e. a probation left over (that boot never reached Linux): counted in
      tsctui_lost1, the stage runs;
  5f. the fifth in a row (tsctui_lost4 already set): the guard trips;
  5g. GRUB_SAVEDEFAULT=true and saved_entry naming os-prober's entry for
      another EFI system: synced set but no probation, the stage syncs."""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
import ovmfvars  # noqa: E402
import qemu  # noqa: E402
import reportvar  # noqa: E402
import rig  # noqa: E402
from tap import Tap  # noqa: E402

from paths import BUILD, TOP, TSCTUI  # noqa: E402
WORK = os.path.join(BUILD, "grub-boot")
ESP_SERIAL, ROOT_SERIAL = 0x1A2B3C4D, 0x5E6F7A8B
E595 = "sim.offset.0=-6815086010"
# The sim stage returns without waiting out GRUB's disk cache.
NO_WAIT = "sim.cachewait=0"
t = Tap()
if os.path.exists(WORK):
    shutil.rmtree(WORK)
os.makedirs(WORK)


def tsctui(*args):
    r = subprocess.run([TSCTUI, "--root", mirror, "--json", *args],
                       capture_output=True, text=True)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None)


def editenv(*args):
    subprocess.run(["grub-editenv", os.path.join(mirror, "boot/grub/grubenv"),
                    *args], check=True)


def env_in_image():
    data = disk.on(1).read("boot/grub/grubenv") or b""
    return dict(line.split("=", 1) for line in
                data[:1024].decode(errors="replace").split("\n")[1:]
                if "=" in line)


def to_image():
    disk.on(1).put(os.path.join(mirror, "boot/grub/grubenv"),
                   "boot/grub/grubenv")


def from_image():
    with open(os.path.join(mirror, "boot/grub/grubenv"), "wb") as f:
        f.write(disk.on(1).read("boot/grub/grubenv"))


def boot(name, until=None, timeout=120, smp=4):
    log = os.path.join(WORK, f"{name}.log")
    res = qemu.boot(disk, vars_path, timeout=timeout, until=until,
                    log_path=log, smp=smp, **rig.one_counter())
    t.diag(f"boot {name}: {res.seconds:.1f} s")
    reps = []
    if until is None:
        r = subprocess.run([TSCTUI, "report", "--json", "--all", "--file",
                            log], capture_output=True, text=True)
        reps = json.loads(r.stdout) if r.returncode == 0 else []
    text = res.console()
    return res, reps, text


def grub_image(block, path):
    cfg = path + ".cfg"
    with open(cfg, "w") as f:
        f.write(block + "echo tsctui-test: menu reached\nhalt\n")
    subprocess.run(["grub-mkstandalone", "-O", "x86_64-efi", "-o", path,
                    "--modules=part_gpt fat search search_fs_uuid loadenv "
                    "test chain echo halt", f"boot/grub/grub.cfg={cfg}"],
                   check=True, capture_output=True)
    return path


# The installed system, as a directory.
mirror = fx.debian_grub(os.path.join(WORK, "mirror"), root_fs="vfat",
                        esp_uuid="1A2B-3C4D", root_uuid="5E6F-7A8B")
rc, out = tsctui("install", "--loader", "grub")
t.ok(rc == 0, "install --loader grub in the mirror", out)
gen = subprocess.run([os.path.join(mirror, "etc/grub.d/05_tsctui")],
                     env={**os.environ, "TSCTUI_CONF": os.path.join(
                         mirror, "etc/tsctui/tsctui.conf")},
                     capture_output=True, text=True, check=True)
grub = grub_image(gen.stdout, os.path.join(WORK, "grubx64.efi"))
with open(os.path.join(WORK, "block.cfg"), "w") as f:
    f.write(gen.stdout)
chk = subprocess.run(["grub-script-check", os.path.join(WORK, "block.cfg")],
                     capture_output=True, text=True)
t.ok(chk.returncode == 0 and "guard=grub" in gen.stdout and
     "/EFI/tsctui/run/ran-ok" in gen.stdout,
     "the generated block passes grub-script-check and tests the stage's "
     "run/ran-ok", chk.stdout + chk.stderr)

disk = qemu.Disk(os.path.join(WORK, "disk.img"),
                 parts=[(40, ESP_SERIAL), (8, ROOT_SERIAL)])
disk.put(grub, "EFI/BOOT/BOOTX64.EFI")
# As the end-to-end tests do: the sim build in place of the release one.
disk.put(os.path.join(TOP, "efi/tsctui-sim.efi"), "EFI/tsctui/tsctui.efi")
disk.on(1).mkdir("boot/grub")
vars_path = qemu.fresh_vars(os.path.join(WORK, "vars.fd"))

# 1: sync, the E595 pattern.
rc, out = tsctui("mode", "sync")
editenv("set", f"tsctui_options={E595}")
to_image()
res, reps, text = boot("1-sync")
ok = len(reps) == 1 and reps[0]["mode"] == "sync"
# Each AP against the sim's truth (rig.unsettled): every verdict agrees
# with its estimate, every estimate within its stated error of the truth
# plus the run's common error (once in CI two APs truly at +27 and +38 read
# 52 low, both: the host's CPUs' clocks apart, rig.HOST_BIAS; once in a
# quiet run an AP truly at -18 read as -172, windows 179 apart, an
# asymmetry of TCG's handoffs), and out-of-sync only with every AP truly
# within HOST_BIAS.
wrong = rig.unsettled(reps[0], rig.sim_truth(reps[0])) if ok else []
t.ok(ok and reps[0]["cpus"] and not wrong and
     abs(reps[0]["bsp_shift_cycles"] - 6815086010) < 5000,
     "boot 1: GRUB runs the stage with the grubenv's mode and options; "
     "every AP's verdict and estimate agree with the truth",
     wrong or reps or text[-1500:])
env = env_in_image()
t.ok("menu reached" in text and env.get("tsctui_pending") == "0" and
     env.get("tsctui_synced") == "1",
     "boot 1: the stage returned: the block cleared pending and set synced "
     "before the menu", env)

# 2: another system was chosen at that menu (no boot-ok): probation.  The
# stage returns without waiting out GRUB's disk cache (sim.cachewait=0), as
# when GRUB's clock runs slow: the block may read the wrote boot 1 left,
# and a measure run's wrote never sets synced.
from_image()
editenv("set", f"tsctui_options={E595} {NO_WAIT}")
to_image()
res, reps, text = boot("2-probation")
env = env_in_image()
t.ok(len(reps) == 1 and reps[0]["mode"] == "measure" and
     reps[0]["msr_writes"] == 0 and "this boot measures only" in text and
     env.get("tsctui_probation") == "1" and env.get("tsctui_synced") == "0"
     and env.get("tsctui_pending") == "0" and env.get("tsctui_tripped") == "0",
     "boot 2: synced still set: a probation boot, the stage measures only, "
     "nothing tripped", (reps and reps[0]["mode"], env))
from_image()
rc, out = tsctui("boot-ok")
to_image()
env = env_in_image()
t.ok(rc == 0 and env.get("tsctui_strikes") == "1" and
     env.get("tsctui_probation") == "0",
     "boot-ok after the probation boot (in the mirror): strike 1", env)

# 3: a boot that hangs in the stage.
editenv("set", f"tsctui_options={E595} sim.hang=1")
to_image()
res, reps, text = boot("3-hang", until=b"hanging now", timeout=90)
t.ok(not res.timed_out and env_in_image().get("tsctui_pending") == "1",
     "boot 3: hangs in the stage with pending set (VM stopped)")

# 4: GRUB finds pending: tripped, the stage skipped.
res, reps, text = boot("4-tripped")
env = env_in_image()
t.ok(reps == [] and "never reached Linux" in text and
     "menu reached" in text and env.get("tsctui_tripped") == "1",
     "boot 4: GRUB trips the guard, skips the stage, reaches the menu", env)
from_image()
rc, out = tsctui("guard", "status")
t.ok(out and out["guard"] == "tripped", "guard status in the mirror: tripped",
     out)

# 5: guard reset in the mirror; the stage runs again, in measure mode.
rc, out = tsctui("guard", "reset")
to_image()
env = env_in_image()
t.ok(rc == 0 and env.get("tsctui_tripped") == "0" and
     env.get("tsctui_strikes") == "0" and
     env.get("tsctui_mode") == "measure" and env.get("tsctui_options") == "",
     "guard reset: tripped, pending and strikes cleared, measure mode, "
     "options gone", env)
res, reps, text = boot("5-again")
env = env_in_image()
t.ok(len(reps) == 1 and reps[0]["mode"] == "measure" and
     reps[0]["msr_writes"] == 0 and "menu reached" in text and
     env.get("tsctui_pending") == "0" and env.get("tsctui_synced") == "0",
     "boot 5: the stage runs again, in measure mode; no synced after a "
     "measure run", reps or text[-1500:])

# 5a: sync with nothing to write (no offsets): the stage says it wrote
# nothing, so the block does not set synced (it used to, for every sync).
rc, out = tsctui("mode", "sync")
to_image()
res, reps, text = boot("5a-sync-nothing")
env = env_in_image()
t.ok(len(reps) == 1 and reps[0]["mode"] == "sync" and
     reps[0]["msr_writes"] == 0 and disk.exists("EFI/tsctui/run/ran-ok") and
     not disk.exists("EFI/tsctui/run/wrote") and
     env.get("tsctui_pending") == "0" and env.get("tsctui_synced") == "0",
     "boot 5a: a sync run that wrote nothing: ran-ok without wrote, pending "
     "cleared, synced not set", (reps and reps[0]["msr_writes"], env))

# 5b: an AP the firmware had to stop: its state is unknown, pending stays.
editenv("set", "tsctui_options=sim.overrun=1")
to_image()
res, reps, text = boot("5b-stopped", timeout=240)
env = env_in_image()
t.ok(len(reps) == 1 and [c for c in reps[0]["cpus"]
                         if c.get("note") == "stopped"] and
     not disk.exists("EFI/tsctui/run/ran-ok") and
     "stays armed" in text and "menu reached" in text and
     env.get("tsctui_pending") == "1",
     "boot 5b: an AP stopped by the firmware: no ran-ok, the block keeps "
     "pending, the menu reached", (env, text[-800:]))
from_image()
rc, out = tsctui("boot-ok")
editenv("set", "tsctui_options=")
to_image()
t.ok(rc == 0 and env_in_image().get("tsctui_pending") == "0",
     "boot-ok (Linux reached) clears the pending the block kept", out)

# 5c: one vCPU: the stage returns within GRUB's 2 s disk-cache window, and
# does not wait it out (sim.cachewait=0, as when GRUB's clock runs slow):
# GRUB's copy from before the stage has no ran-ok, and the block, before
# it keeps pending on that, sleeps 3 s by its own clock and reads again.
rc, out = tsctui("mode", "measure")
editenv("set", f"tsctui_options={NO_WAIT}")
to_image()
res, reps, text = boot("5c-fast", smp=1)
editenv("set", "tsctui_options=")
env = env_in_image()
t.ok(len(reps) == 1 and disk.exists("EFI/tsctui/run/ran-ok") and
     env.get("tsctui_pending") == "0" and env.get("tsctui_tripped") == "0",
     "boot 5c: a fast stage run: the block sees its ran-ok and clears "
     "pending", (env, text[-600:]))

# 5d: a resume from hibernation (the sleep hook's marker on the ESP): the
# block runs the stage without one save_env, the stage writes no file
# system and keeps the boot's guard in its own EFI variable.  First after
# an unconfirmed sync (synced set): measure only, and no probation starts.
RESUME_VAR = (ovmfvars.REPORT_GUID, reportvar.RESUME_NAME)
rc, out = tsctui("mode", "sync")
editenv("set", f"tsctui_options={E595}", "tsctui_synced=1")
to_image()
disk.write("EFI/tsctui/hibernated", "")
before = open(disk.path, "rb").read()
res, reps, text = boot("5d-resume-unconfirmed")
t.ok(len(reps) == 1 and reps[0]["mode"] == "measure" and
     reps[0]["msr_writes"] == 0 and reps[0].get("nvram_writes") == 2 and
     "being resumed" in text and "menu reached" in text and
     open(disk.path, "rb").read() == before and
     RESUME_VAR not in ovmfvars.parse(vars_path),
     "boot 5d: resume after an unconfirmed sync: the stage measures only, "
     "not one byte of the disk changed (grubenv, ESP), its variable set and "
     "deleted", (reps and reps[0]["mode"], text[-800:]))
editenv("set", "tsctui_synced=0")
to_image()
before = open(disk.path, "rb").read()
res, reps, text = boot("5d-resume-sync")
t.ok(len(reps) == 1 and reps[0]["mode"] == "sync" and
     reps[0]["msr_writes"] > 0 and reps[0].get("nvram_writes") == 2 and
     open(disk.path, "rb").read() == before and
     RESUME_VAR not in ovmfvars.parse(vars_path),
     "boot 5d: resume after a confirmed sync: the stage syncs, the disk "
     "byte-identical", (reps and reps[0]["msr_writes"], text[-800:]))
editenv("set", f"tsctui_options={E595} sim.hang=1")
to_image()
before = open(disk.path, "rb").read()
res, reps, text = boot("5d-resume-hang", until=b"hanging now", timeout=90)
t.ok(not res.timed_out and open(disk.path, "rb").read() == before and
     RESUME_VAR in ovmfvars.parse(vars_path),
     "boot 5d: a resume boot that hangs in the stage: the disk "
     "byte-identical, the stage's variable left set")
disk.remove("EFI/tsctui/hibernated")  # the hibernated image given up
editenv("set", f"tsctui_options={E595}")
to_image()
res, reps, text = boot("5d-after-resume-hang")
env = env_in_image()
t.ok(len(reps) == 1 and reps[0]["result"] == "guard-tripped" and
     disk.exists("EFI/tsctui/run/tripped") and
     "never returned on a resume boot" in text and
     env.get("tsctui_tripped") == "1" and env.get("tsctui_pending") == "0"
     and RESUME_VAR not in ovmfvars.parse(vars_path),
     "the next boot: the stage finds its variable, tells the block "
     "(run/tripped), the block trips the guard", (env, text[-800:]))
from_image()
rc, out = tsctui("guard", "reset")
to_image()

# 5e: a probation boot that never reached Linux: counted, not dropped.
editenv("set", "tsctui_probation=1")
to_image()
res, reps, text = boot("5e-lost")
env = env_in_image()
t.ok(len(reps) == 1 and env.get("tsctui_lost1") == "1" and
     env.get("tsctui_probation") == "0" and env.get("tsctui_tripped") == "0"
     and env.get("tsctui_pending") == "0",
     "boot 5e: a leftover probation is counted (tsctui_lost1), the stage "
     "runs", env)
from_image()
rc, gs = tsctui("guard", "status")
t.ok(gs and gs["guard"] == "clear",
     "guard status after it: clear (the count alone arms nothing)", gs)

# 5f: the fifth in a row: tripped, the stage skipped.
editenv("set", "tsctui_probation=1", "tsctui_lost2=1", "tsctui_lost3=1",
        "tsctui_lost4=1")
to_image()
res, reps, text = boot("5f-lost-trip")
env = env_in_image()
t.ok(reps == [] and "5 measure-only boots in a row" in text and
     "menu reached" in text and env.get("tsctui_tripped") == "1",
     "boot 5f: a fifth lost probation boot trips the guard", env)
from_image()
rc, out = tsctui("guard", "reset")
to_image()
env = env_in_image()
t.ok(rc == 0 and not [k for k in ("tsctui_lost1", "tsctui_lost2",
                                  "tsctui_lost3", "tsctui_lost4")
                      if env.get(k) not in (None, "0")],
     "guard reset clears the lost flags", env)

# 5g: dual boot with GRUB_SAVEDEFAULT=true: the entry booted last was
# another system's, so the unconfirmed sync is no reason for probation.
gen2 = subprocess.run([os.path.join(mirror, "etc/grub.d/05_tsctui")],
                      env={**os.environ, "GRUB_SAVEDEFAULT": "true",
                           "TSCTUI_CONF": os.path.join(
                               mirror, "etc/tsctui/tsctui.conf")},
                      capture_output=True, text=True, check=True).stdout
disk.put(grub_image(gen2, os.path.join(WORK, "grubx64-saved.efi")),
         "EFI/BOOT/BOOTX64.EFI")
rc, out = tsctui("mode", "sync")
editenv("set", f"tsctui_options={E595}", "tsctui_synced=1",
        "saved_entry=osprober-efi-1A2B-3C4D")
to_image()
res, reps, text = boot("5g-other-os")
env = env_in_image()
t.ok(len(reps) == 1 and reps[0]["mode"] == "sync" and
     reps[0]["msr_writes"] > 0 and "no probation" in text and
     env.get("tsctui_probation") == "0" and env.get("tsctui_synced") == "1",
     "boot 5g: savedefault names another system's entry: no probation, the "
     "stage syncs (and its write leaves synced)", (env, text[-600:]))
disk.put(grub, "EFI/BOOT/BOOTX64.EFI")
editenv("unset", "saved_entry")
editenv("set", "tsctui_synced=0", "tsctui_options=")
rc, out = tsctui("mode", "measure")
to_image()

# 6: save_env cannot write: the stage is not run unguarded.
before = open(disk.path, "rb").read()
res = qemu.boot(disk, vars_path, timeout=120, readonly=True,
                log_path=os.path.join(WORK, "6-readonly.log"),
                **rig.one_counter())
text = res.console()
t.diag(f"boot 6-readonly: {res.seconds:.1f} s")
t.ok("hang guard could not be recorded" in text and
     "tsctui report begin" not in text and "menu reached" in text and
     open(disk.path, "rb").read() == before,
     "boot 6: the grubenv write-protected: pending does not read back, the "
     "stage is skipped with one line, the menu reached", text[-800:])

# 7: the 0.1 block (pending set, never cleared) with this program.
old = subprocess.run([os.path.join(HERE, "05_tsctui-0.1")],
                     env={**os.environ, "TSCTUI_CONF": os.path.join(
                         mirror, "etc/tsctui/tsctui.conf")},
                     capture_output=True, text=True, check=True).stdout
disk.put(grub_image(old, os.path.join(WORK, "grubx64-0.1.efi")),
         "EFI/BOOT/BOOTX64.EFI")
rc, out = tsctui("mode", "sync")
editenv("set", f"tsctui_options={E595}")
to_image()
res, reps, text = boot("7-old-block")
env = env_in_image()
t.ok(len(reps) == 1 and reps[0]["mode"] == "sync" and
     env.get("tsctui_pending") == "1" and env.get("tsctui_synced") != "1",
     "boot 7: the 0.1 block runs the stage and leaves pending set", env)
from_image()
rc, out = tsctui("boot-ok")
rc2, gs = tsctui("guard", "status")
to_image()
t.ok(rc == 0 and env_in_image().get("tsctui_pending") == "0" and
     gs["guard"] == "clear",
     "boot-ok of this version clears the 0.1 block's pending", gs)
res, reps, text = boot("8-old-block-again")
env = env_in_image()
t.ok(len(reps) == 1 and reps[0]["mode"] == "sync" and
     "never reached Linux" not in text and env.get("tsctui_tripped") == "0",
     "boot 8: the 0.1 block runs the stage again: no false trip", env)

sys.exit(t.done())

#!/usr/bin/env python3
"""End to end, the GRUB path as a Debian user takes it, on the TSC rig
(the E595's firmware fault, TSC writes honoured, the release stage judged
by the kernel): everything runs inside the booted system.  grub.cfg is made
by the real grub-mkconfig and /etc/grub.d scripts in the guest; GRUB (as
grub-install sets it up: prefix on the root, modules there) loads it.
Boots:
  1. (no grub.cfg yet) the kernel warps and drops the TSC; status says
     boot-warp, install-measure; grub-mkconfig, as the installer would;
     then `tsctui install --loader grub`, which regenerates grub.cfg;
  2. grub.cfg's 05_tsctui block runs the release stage (measure) before
     Debian's 10_linux entry boots Linux: the BSP behind every AP, status
     says enable-sync; the block cleared pending once the stage returned
     (the guard clear in Linux before boot-ok); `tsctui mode sync`;
  3. the release stage syncs; the kernel keeps the TSC; status healthy,
     the history shows the fix; boot-ok; `kernel-arg nowatchdog on` (the
     grub.d drop-in, grub.cfg regenerated) with GRUB_SAVEDEFAULT=true (a
     grub.d drop-in: every entry saves itself as saved_entry when booted);
     saved_entry as an earlier pick of the other system from the menu
     left it; the "other system" entry (a test grub.d script, os-prober's
     id for an EFI system: the app that powers off) chosen for one boot
     (next_entry, as grub-reboot sets it; a one-time boot saves nothing);
  3a. the stage syncs, then GRUB starts the other system: synced set;
  3b. the "power off" entry (GRUB's halt) chosen at the menu: saved_entry
     names another system, so no probation: the stage syncs, then the
     machine is off;
  3c. Linux: no probation again (saved_entry), the stage syncs and the
     kernel keeps the TSC; boot-ok confirms it; Linux's entry saved
     itself as saved_entry;
  (5 is a probation boot: saved_entry names Linux: a hung Linux cannot be
  told from a power-off, and status says so;)
  4. a sync boot whose kernel never reaches user space (the VM is stopped
     once GRUB loads Linux): pending clear, synced set;
  5. a probation boot: measure only, boot-ok counts strike 1; then the
     host leaves pending set in the grubenv, as a stage that died mid-run
     would;
  6. GRUB trips the guard and skips the stage; in Linux the recovery text
     says why, there is no report of this boot, and `tsctui guard reset`
     restores measure mode;
  7. Linux runs with tsc=nowatchdog and the stage measures again;
     `tsctui uninstall`: grub.cfg is again, byte for byte, the one
     grub-mkconfig made before install (no stage, no tsc=nowatchdog):
     what GRUB boots next is the distribution's own configuration, so no
     boot of its own checks it (one was here: 20 s, docs/DESIGN.md 11)."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import system as S  # noqa: E402

W, t = S.start("grub-live")
# grub-mkconfig marks every script's part, so the stage's own line tells
# whether the block is there.
BLOCK = "chainloader /EFI/tsctui/tsctui.efi"
MENU = "\nmenuentry 'Debian GNU/Linux'"

root = S.staging(os.path.join(W, "root"), loader="grub")
# os-prober's id for another EFI system on the ESP: what the block's
# savedefault test looks for.
OTHER = f"osprober-efi-{S.ESP_UUID}"
S.add_grub_tools(root)
# Two more menu entries, as os-prober or a custom script would add them.
S.fx.write(root, "/etc/grub.d/45_tsctui_test", f"""#!/bin/sh
cat <<'EOF'
menuentry 'Other system' --id {OTHER} {{
  savedefault
  insmod chain
  search --no-floppy --fs-uuid --set=root {S.ESP_UUID}
  chainloader /EFI/other/shutdown.efi
}}
menuentry 'Power off' --id poweroff {{
  halt
}}
EOF
""", 0o755)
esp = S.finish(root)
S.fx.write(esp, "/EFI/other/shutdown.efi", open(os.path.join(
    S.BUILD, "tests", "efi", "shutdown.efi"), "rb").read())
grub = S.grub_image(os.path.join(W, "grubx64.efi"), configfile=True)
for dest in ("EFI/debian/grubx64.efi", "EFI/BOOT/BOOTX64.EFI"):
    os.makedirs(os.path.dirname(os.path.join(esp, dest)), exist_ok=True)
    shutil.copy(grub, os.path.join(esp, dest))
disk = S.make_disk(os.path.join(W, "disk.img"), root, esp)
g = S.Guest(W, disk, t, skew=S.RIG_E595)


def grub_cfg():
    return (g.ext4_read("/boot/grub/grub.cfg") or b"").decode()


# ---- 1: the warp; grub-mkconfig, then install ----------------------------
outs, text, res = g.boot("install", [
    "tsctui status --json",
    "grub-mkconfig -o /boot/grub/grub.cfg",
    "cp /boot/grub/grub.cfg /root/grub.cfg.before",
    "tsctui install --loader grub --json",
    "grub-script-check /boot/grub/grub.cfg",
    "tsctui boot-ok --json",
])
S.story_warp(t, "boot 1", S.js(outs[0]))
first = (g.ext4_read("/root/grub.cfg.before") or b"").decode()
t.ok("no grub.cfg yet" in text and outs[1] and outs[1][0] == 0 and
     MENU in first and BLOCK not in first,
     "boot 1: grub-mkconfig in the guest makes Debian's grub.cfg",
     outs[1] and outs[1][2][-800:])
inst = S.js(outs[3])
cfg = grub_cfg()
t.ok(inst and inst["ok"] and
     {"path": "/boot/grub/grub.cfg", "what": "modified"} in inst["changed"]
     and BLOCK in cfg and cfg.index(BLOCK) < cfg.index(MENU) and
     outs[4] and outs[4][0] == 0,
     "boot 1: `tsctui install --loader grub` in Linux regenerates grub.cfg "
     "with grub-mkconfig: the 05_tsctui block before the menu entries, and "
     "grub-script-check accepts it", (outs[3], cfg[:300]))

# ---- 2: the stage measures; mode sync ------------------------------------
outs, text, res = g.boot("measure", [
    "cat /proc/cmdline",
    "tsctui report --json",
    "tsctui status --json",
    "tsctui boot-ok --json",
    "tsctui mode sync --json",
])
env = S.grubenv_list(g, W)
rep = S.js(outs[1])
cmdline2 = outs[0][1].split() if outs[0] else []
t.ok(rep and rep["config"] == "load-options" and
     "no grub.cfg yet" not in text and
     f"root=UUID={S.ROOT_UUID}" in cmdline2 and
     "BOOT_IMAGE=/boot/vmlinuz-" + S.kernel_version() in cmdline2,
     "boot 2: GRUB ran grub.cfg: the block chain-loaded the release stage, "
     "then Debian's entry booted Linux", (outs[0], outs[1]))
S.story_measure(t, "boot 2", rep, S.js(outs[2]))
mode = S.js(outs[4])
t.ok(S.js(outs[3]) and mode and mode["ok"],
     "boot 2: boot-ok, then `tsctui mode sync` in Linux", outs[4])
st = S.js(outs[2])
t.ok(st and st["stage"]["guard"] == "clear" and
     env.get("tsctui_pending") == "0" and env.get("tsctui_synced") == "0",
     "boot 2: the block cleared pending once the stage returned: the guard "
     "clear in Linux before boot-ok; no synced after a measure run",
     (st and st["stage"]["guard"], env))

# ---- 3: the stage syncs; kernel-arg on -----------------------------------
outs, text, res = g.boot("sync", S.SYNC_COMMANDS + [
    "mkdir -p /etc/default/grub.d && echo GRUB_SAVEDEFAULT=true "
    ">/etc/default/grub.d/zz-savedefault.cfg",
    "tsctui kernel-arg nowatchdog on --json",
    "grub-script-check /boot/grub/grub.cfg",
    f"grub-editenv /boot/grub/grubenv set next_entry={OTHER} "
    f"saved_entry={OTHER}",
])
S.story_sync(t, "boot 3", outs, res)
ka = S.js(outs[5])
cfg = grub_cfg()
t.ok(S.js(outs[2]) and ka and ka["ok"] and
     g.ext4_read("/etc/default/grub.d/tsctui-nowatchdog.cfg") is not None and
     "tsc=nowatchdog" in cfg and outs[6] and outs[6][0] == 0 and
     "regexp" in cfg and "savedefault" in cfg,
     "boot 3: kernel-arg nowatchdog on: the grub.d drop-in, and grub.cfg "
     "regenerated with it (and with GRUB_SAVEDEFAULT: the block's test of "
     "saved_entry, the entries' savedefault)",
     (outs[5], [line for line in cfg.splitlines() if "linux\t" in line][:1]))

# ---- 3a: the other system chosen once -------------------------------------
text = S.story_stopped(
    t, "boot 3a", g, None,
    lambda: S.grubenv_list(g, W).get("tsctui_synced") == "1" and
    S.grubenv_list(g, W).get("tsctui_pending") == "0",
    "the stage synced; GRUB cleared pending and set synced", name="other")
t.ok("tsctui report end" in text and "tsctui-test: shutdown" in text,
     "boot 3a: GRUB started the other system after the stage, which "
     "powered off", text[-600:])

# ---- 3b: "power off" chosen at the menu ------------------------------------
S.grubenv_edit(g, W, "set", "next_entry=poweroff")
text = S.story_stopped(
    t, "boot 3b", g, None,
    lambda: S.grubenv_list(g, W).get("tsctui_probation") == "0" and
    S.grubenv_list(g, W).get("tsctui_synced") == "1" and
    S.grubenv_list(g, W).get("tsctui_pending") == "0" and
    S.grubenv_list(g, W).get("tsctui_tripped") == "0",
    "no probation: the stage synced again; GRUB halted from the menu",
    name="poweroff")
t.ok("the last boot started another system" in text and
     "this boot measures only" not in text and
     "tsctui-test: shutdown" not in text,
     "boot 3b: saved_entry names another system (GRUB_SAVEDEFAULT): the "
     "block said so and ran no probation; GRUB's halt ended it",
     text[-600:])

# ---- 3c: Linux again: nothing tripped ---------------------------------------
outs, text, res = g.boot("linux", ["tsctui report --json",
                                   "tsctui guard status --json",
                                   "tsctui boot-ok --json",
                                   "tsctui guard status --json",
                                   "tsctui status --json"])
rep_, gs, ok, after, st = (S.js(outs[0]), S.js(outs[1]), S.js(outs[2]),
                           S.js(outs[3]), S.js(outs[4]))
kinds = [e["kind"] for e in (st or {}).get("kernel", {}).get("events", [])]
t.ok(rep_ and rep_["mode"] == "sync" and rep_["msr_writes"] >= 1 and
     "this boot measures only" not in text and gs and
     gs["guard"] == "pending" and ok and "confirmed" in ok["message"] and
     after and after["guard"] == "clear" and st and
     st["clocksource"]["current"] == "tsc" and "warp" not in kinds,
     "boot 3c: Linux after another system (GRUB_SAVEDEFAULT's saved_entry): "
     "no probation, the stage syncs and the kernel's clocksource is tsc; "
     "boot-ok confirms the sync boot",
     (rep_ and rep_["mode"], outs[1], outs[2], st and st["clocksource"],
      kinds))

# ---- 4: a sync boot whose kernel never reaches user space ----------------
S.story_stopped(t, "boot 4", g, b"Loading Linux",
                lambda: S.grubenv_list(g, W).get("tsctui_synced") == "1" and
                S.grubenv_list(g, W).get("tsctui_pending") == "0",
                "GRUB cleared pending and set synced in the root's grubenv",
                name="kernel-hang")

# ---- 5: probation: measure only; strike 1 ---------------------------------
outs, text, res = g.boot("probation", S.PROBATION_COMMANDS + [
    "tsctui status"])
S.story_probation(t, "boot 5", outs, text, grub=True)
t.ok(outs[4] and "a probation boot after an unconfirmed sync: the TSC was "
     "not synced this boot" in outs[4][1] and "GRUB_SAVEDEFAULT" not in
     outs[4][1],
     "boot 5: saved_entry names Linux (the last boot hung there): status "
     "says this was a probation boot, and with GRUB_SAVEDEFAULT set offers "
     "no setting", outs[4])
# A stage that died mid-run (the release build cannot hang on purpose;
# grub-boot.t has the sim build's sim.hang=1): its pending.
S.grubenv_edit(g, W, "set", "tsctui_pending=1")

# ---- 6: GRUB trips the guard; recovery -----------------------------------
outs, text, res = g.boot("tripped", [
    "tsctui guard status --json",
    "tsctui guard status",
    "tsctui report --json",
    "tsctui status --json",
    "tsctui guard reset --json",
    "tsctui guard status --json",
])
gs, reset, after = S.js(outs[0]), S.js(outs[4]), S.js(outs[5])
env = S.grubenv_list(g, W)
t.ok("the last boot never reached Linux; the stage is now disabled" in text
     and "tsctui report begin" not in text and gs and
     gs["guard"] == "tripped" and reset and reset["ok"] and after and
     after["guard"] == "clear" and env.get("tsctui_mode") == "measure" and
     env.get("tsctui_tripped") == "0" and env.get("tsctui_pending") == "0"
     and env.get("tsctui_strikes") == "0",
     "boot 6: GRUB trips the guard and skips the stage; `tsctui guard "
     "reset` in Linux clears it and the strikes and restores measure mode",
     (outs[0], outs[4], env))
# Before the reset, what a person reads about this boot: the stage was
# skipped, so there is no report of it, and nothing claims one.
status = S.js(outs[3])
t.ok(gs and gs["loader"] == "grub" and outs[1] and outs[1][0] == 0 and
     "a boot never reached Linux, and the hang guard disabled the stage"
     in outs[1][1] and outs[2] and outs[2][0] == 2 and
     "did not run" in outs[2][2] and status and
     status["stage"]["guard"] == "tripped" and
     status["stage"]["report"] is None,
     "boot 6: the recovery text says the hang guard disabled the stage "
     "after a boot that never reached Linux; no report this boot (the "
     "stage did not run), and status shows it tripped",
     (outs[1], outs[2], status and status["stage"]))

# ---- 7: the argument is there, the stage measures; uninstall ------------
outs, text, res = g.boot("nowatchdog", [
    "cat /proc/cmdline",
    "tsctui status --json",
    "tsctui report --json",
    "rm /etc/default/grub.d/zz-savedefault.cfg",
    "tsctui uninstall --json",
])
st, rep = S.js(outs[1]), S.js(outs[2])
t.ok(outs[0] and "tsc=nowatchdog" in outs[0][1].split() and st and
     st["kernel"]["cmdline_tsc"] == ["nowatchdog"] and rep and
     rep["mode"] == "measure" and rep["msr_writes"] == 0,
     "boot 7: Linux runs with tsc=nowatchdog from the regenerated grub.cfg, "
     "and the stage ran again, in measure mode",
     (outs[0], st and st["kernel"], outs[2]))
un = S.js(outs[4])
cfg = grub_cfg()
t.ok(un and un["ok"] and BLOCK not in cfg and "tsc=nowatchdog" not in cfg
     and g.ext4_read("/etc/default/grub.d/tsctui-nowatchdog.cfg") is None
     and g.ext4_read("/etc/tsctui/tsctui.conf") is None,
     "boot 7: `tsctui uninstall` in Linux removes the drop-in and the "
     "configuration and regenerates grub.cfg without the block", outs[4])
t.ok(cfg == first,
     "boot 7: grub.cfg is again exactly what grub-mkconfig made before "
     "install")

sys.exit(t.done())

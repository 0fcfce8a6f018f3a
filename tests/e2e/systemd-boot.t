#!/usr/bin/env python3
"""End to end, the systemd-boot path on the TSC rig (the E595's firmware
fault, TSC writes honoured, the release stage judged by the kernel):
OVMF -> systemd-boot, which loads the stage as a driver (options from the
ESP file) -> Debian's kernel from a BLS entry -> tsctui in the booted
system.  Nothing is installed at first.  Boots:
  1. the kernel warps and drops the TSC; status says boot-warp,
     install-measure; `tsctui install` in Linux, the loader detected from
     what systemd-boot told the OS;
  2. the release driver measures before Linux: the BSP behind every AP,
     status says enable-sync; the driver cleared pending once it returned
     (the guard clear in Linux); `tsctui mode sync`;
  3. the driver syncs: the kernel keeps the TSC, status healthy, the
     history shows the fix; `tsctui kernel-arg nowatchdog on` edits the BLS
     entry and /etc/kernel/cmdline;
  4. the kernel's command line carries tsc=nowatchdog (systemd-boot passed
     the edited entry), status sees it; `kernel-arg nowatchdog off`; dual
     boot with `default @saved` in loader.conf: LoaderEntryLastBooted as
     systemd-boot leaves it after Windows was picked in its menu
     (auto-windows), and the "other system" entry chosen for the next boot
     (LoaderEntryOneShot, which systemd-boot does not save);
  5. the driver syncs, then systemd-boot starts the other system (the test
     app that powers off, like Windows shut down): synced stays set;
  6. Linux: the driver reads LoaderEntryLastBooted (another system's), so
     no probation: it syncs and the kernel keeps the TSC;
  7. without @saved: the driver syncs, and the machine is powered off while
     systemd-boot's menu is on screen: synced stays set, pending clear;
  8. a probation boot (the stage cannot tell): measure only, Linux reached,
     status says so, boot-ok counts strike 1; nothing tripped; then Linux
     makes ready to hibernate: the HibernateLocation variable, and tsctui's
     sleep hook (`pre hibernate`), which marks the ESP;
  9. the resume boot, stopped after the driver: it found a hibernated
     system and ran the configured mode (measure only: a strike is
     counted) with its guard in its own EFI variable, set and deleted: not
     one byte of the ESP changed;
 10. Linux again (a resume again for the driver): the variable removed,
     the sleep hook's `post hibernate` runs boot-ok, which clears the
     marker; then the host leaves pending on the ESP, as a stage that died
     mid-run would;
 11. the driver finds pending, disables itself and does nothing; in Linux
     the guard says tripped; `guard reset` restores measure;
 12. the command line is back as it was; `tsctui uninstall` in Linux.
The NVRAM after the boots: no variable added or changed but OVMF's own."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import system as S  # noqa: E402
import ovmfvars  # noqa: E402

W, t = S.start("systemd-boot")
ver = S.kernel_version()
ENTRY = S.sd_entry(ver)

root = S.staging(os.path.join(W, "root"), loader="systemd-boot")
S.systemd_boot_esp(root)
S.copy_with_libs(root, "/usr/bin/chattr")  # efivarfs files are immutable
esp = S.finish(root)
# Another system on the same ESP: the test app that powers the VM off.
S.fx.write(esp, "/EFI/other/shutdown.efi", open(os.path.join(
    S.BUILD, "tests", "efi", "shutdown.efi"), "rb").read())
S.fx.write(esp, "/loader/entries/other.conf",
           "title Other system\nsort-key zz\nefi /EFI/other/shutdown.efi\n")
disk = S.make_disk(os.path.join(W, "disk.img"), root, esp)
g = S.Guest(W, disk, t, skew=S.RIG_E595)
nv_before = ovmfvars.parse(g.vars)
entry_before = disk.read(ENTRY)


LOADER_GUID = "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f"
SYSTEMD_GUID = "8cf2644b-4b0b-428f-9387-6d876050dc67"


def efivar_cmd(name, guid, attrs, data):
    """A guest command that writes an EFI variable through efivarfs."""
    raw = attrs.to_bytes(4, "little") + data
    octal = "".join(f"\\{c:03o}" for c in raw)
    return (f"printf '{octal}' >/sys/firmware/efi/efivars/{name}-{guid}")


def esp_bytes():
    with open(disk.path, "rb") as f:
        f.seek(disk.offsets[0])
        return f.read(S.ESP_MB * 1024 * 1024)


def marks():
    return {m for m in ("pending", "synced", "probation", "disabled",
                        "strikes", "hibernated")
            if disk.exists(f"EFI/tsctui/{m}")}


def entry_options():
    data = (disk.read(ENTRY) or b"").decode()
    return [line for line in data.splitlines() if line.startswith("options")]


# ---- 1: the warp; install on the live system (loader detected) ---------
outs, text, res = g.boot("install", ["tsctui status --json",
                                     "tsctui report --json",
                                     "tsctui install --json",
                                     "tsctui status --json",
                                     "tsctui boot-ok --json"])
S.story_warp(t, "boot 1", S.js(outs[0]))
inst, st = S.js(outs[2]), S.js(outs[3])
t.ok(outs[1] and outs[1][0] == 2 and "tsctui report begin" not in text and
     inst and inst["ok"] and st and st["stage"]["installed"] and
     st["stage"]["loader"] == "systemd-boot" and
     st["stage"]["mode"] == "measure" and
     disk.exists("EFI/systemd/drivers/tsctuix64.efi"),
     "boot 1: nothing ran before Linux; `tsctui install` in Linux detects "
     "systemd-boot (its LoaderInfo) and installs the driver in measure mode",
     (outs[1], outs[2], st and st["stage"]))

# ---- 2: the driver measures; mode sync -----------------------------------
outs, text, res = g.boot("measure", [
    "tsctui report --json",
    "tsctui status --json",
    "tsctui guard status --json",
    "tsctui boot-ok --json",
    "tsctui mode sync --json",
])
rep = S.js(outs[0])
t.ok(rep and rep["config"] == "esp" and
     text.find("tsctui report end") < text.find("Linux up"),
     "boot 2: systemd-boot loads the release driver before Linux; its "
     "options come from the ESP", outs[0])
S.story_measure(t, "boot 2", rep, S.js(outs[1]))
gs, ok, mode = S.js(outs[2]), S.js(outs[3]), S.js(outs[4])
t.ok(gs and gs["guard"] == "clear" and gs["loader"] == "systemd-boot" and
     ok and ok["ok"] and not disk.exists("EFI/tsctui/pending") and
     not disk.exists("EFI/tsctui/synced") and
     mode and mode["ok"] and disk.read("EFI/tsctui/options") ==
     b"mode=sync\n",
     "boot 2: the driver cleared pending when it returned (the guard clear "
     "in Linux before boot-ok); `tsctui mode sync` wrote the ESP's options",
     (outs[2], outs[3], outs[4]))

# ---- 3: the driver syncs; kernel-arg on ----------------------------------
outs, text, res = g.boot("sync", S.SYNC_COMMANDS + [
    "cat /proc/cmdline",
    "tsctui kernel-arg nowatchdog on --json",
])
S.story_sync(t, "boot 3", outs, res)
cmdline1 = outs[4][1].strip() if outs[4] else ""
ka = S.js(outs[5])
opts = entry_options()
kc = (g.ext4_read("/etc/kernel/cmdline") or b"").decode()
t.ok("tsc=nowatchdog" not in cmdline1 and ka and ka["ok"] and
     len(opts) == 1 and "tsc=nowatchdog" in opts[0] and
     "tsc=nowatchdog" in kc,
     "boot 3: kernel-arg nowatchdog on edits the BLS entry on the ESP and "
     "/etc/kernel/cmdline", (cmdline1, outs[5], opts, kc))

# ---- 4: the next boot carries it; off ------------------------------------
outs, text, res = g.boot("carried", [
    "cat /proc/cmdline",
    "tsctui status --json",
    "tsctui kernel-arg nowatchdog off --json",
    "tsctui boot-ok --json",
    efivar_cmd("LoaderEntryOneShot", LOADER_GUID, 0x7,
               "other.conf".encode("utf-16-le") + b"\0\0"),
    efivar_cmd("LoaderEntryLastBooted", LOADER_GUID, 0x7,
               "auto-windows".encode("utf-16-le") + b"\0\0"),
])
cmdline2 = outs[0][1].split() if outs[0] else []
st = S.js(outs[1])
t.ok("tsc=nowatchdog" in cmdline2 and st and
     st["kernel"]["cmdline_tsc"] == ["nowatchdog"] and
     st["clocksource"]["current"] == "tsc",
     "boot 4: /proc/cmdline carries tsc=nowatchdog; status sees it; the "
     "driver synced again and the kernel kept the TSC",
     (outs[0], st and (st["kernel"]["cmdline_tsc"], st["clocksource"])))
off = S.js(outs[2])
opts = entry_options()
kc = (g.ext4_read("/etc/kernel/cmdline") or b"").decode()
t.ok(off and off["ok"] and opts == [f"options {S.CMDLINE}"] and
     kc.strip() == S.CMDLINE,
     "boot 4: kernel-arg nowatchdog off restores the entry's options line "
     "and takes the token out of /etc/kernel/cmdline", (outs[2], opts, kc))

# ---- 5: the other system chosen once ------------------------------------
disk.write("loader/loader.conf", "timeout 0\ndefault @saved\n")
text = S.story_stopped(
    t, "boot 5", g, None, lambda: marks() == {"synced"},
    "the driver synced; pending cleared, synced left for Linux to confirm",
    name="other-system")
t.ok("tsctui-test: shutdown" in text and
     text.find("tsctui report end") < text.find("tsctui-test: shutdown"),
     "boot 5: systemd-boot started the other system (LoaderEntryOneShot), "
     "which powered off", text[-600:])

# ---- 6: @saved: the other system is recognised; no probation ------------
# systemd-boot's saved entry (auto-windows) is not on this disk, so it
# starts its first entry, Linux.
outs, text, res = g.boot("saved-other", ["tsctui report --json",
                                         "tsctui status --json",
                                         "tsctui boot-ok --json"])
rep, st = S.js(outs[0]), S.js(outs[1])
kinds = [e["kind"] for e in (st or {}).get("kernel", {}).get("events", [])]
t.ok(rep and rep["mode"] == "sync" and rep["msr_writes"] >= 1 and
     "another system" in (rep["reason"] or "") and st and
     st["clocksource"]["current"] == "tsc" and "warp" not in kinds and
     "unstable" not in kinds and marks() == set(),
     "boot 6: another system after the sync, told by LoaderEntryLastBooted "
     "(default @saved): no probation, the driver syncs and the kernel's "
     "clocksource is tsc; boot-ok confirms", (
         rep and {k: rep[k] for k in ("mode", "msr_writes", "reason")},
         st and st["clocksource"], kinds, marks()))

# ---- 7: powered off at the menu --------------------------------------------
disk.write("loader/loader.conf", "timeout 30\n")
S.story_stopped(t, "boot 7", g, b"Other system",
                lambda: marks() == {"synced"},
                "the driver synced; the menu on screen; pending cleared",
                name="menu-poweroff")
disk.write("loader/loader.conf", "timeout 0\n")

# ---- 8: probation: measure only; strike 1; ready to hibernate -------------
outs, text, res = g.boot("probation", S.PROBATION_COMMANDS + [
    "tsctui status",
    efivar_cmd("HibernateLocation", SYSTEMD_GUID, 0x7,
               b'{"uuid":"0f1e2d3c-0000-4000-8000-000000000000",'
               b'"offset":0}'),
    "/usr/lib/systemd/system-sleep/tsctui pre hibernate",
])
S.story_probation(t, "boot 8", outs, text, grub=False)
t.ok(outs[4] and "a probation boot after an unconfirmed sync: the TSC was "
     "not synced this boot" in outs[4][1] and "default @saved" in outs[4][1],
     "boot 8: without @saved the stage cannot tell: status says this was a "
     "probation boot and names the setting", outs[4])
t.ok(outs[6] and outs[6][0] == 0 and marks() == {"strikes", "hibernated"},
     "boot 8: the sleep hook marked the ESP before hibernating",
     (outs[6], marks()))

# ---- 9: the resume boot: the driver touches nothing --------------------------
before = esp_bytes()
outs, text, res = g.boot("resume", until=S.STAGE_DONE, timeout=150)
r = S.run(S.TSCTUI, "report", "--json", "--file", os.path.join(
    W, f"{g.n}-resume.log"), text=True)
rep = json.loads(r.stdout)
t.ok(rep["mode"] == "measure" and rep["msr_writes"] == 0 and
     rep.get("nvram_writes") == 2 and "resume" in (rep["reason"] or "") and
     rep["cpus"] and esp_bytes() == before,
     "boot 9: a hibernated system is resumed: the driver measures (the last "
     "sync is not confirmed: a strike), its guard in its own variable (2 "
     "non-volatile writes), and not one byte of the ESP changed",
     {k: rep.get(k) for k in ("mode", "msr_writes", "nvram_writes",
                              "reason")})

# ---- 10: resumed; the sleep hook's post ------------------------------------
outs, text, res = g.boot("resumed", [
    "tsctui report --json",
    f"chattr -i /sys/firmware/efi/efivars/HibernateLocation-{SYSTEMD_GUID}",
    f"rm /sys/firmware/efi/efivars/HibernateLocation-{SYSTEMD_GUID}",
    "/usr/lib/systemd/system-sleep/tsctui post hibernate",
    "tsctui guard status --json",
])
rep, gs = S.js(outs[0]), S.js(outs[4])
t.ok(rep and rep["mode"] == "measure" and rep.get("nvram_writes") == 2 and
     outs[2] and outs[2][0] == 0 and
     outs[3] and outs[3][0] == 0 and gs and gs["guard"] == "clear" and
     marks() == {"strikes"},
     "boot 10: Linux up (a resume again for the driver while the variable "
     "was set); the sleep hook's post ran boot-ok, which removed the marker; "
     "nothing tripped", (outs[0], outs[2], outs[3], outs[4], marks()))
# A stage that died mid-run (the release build cannot hang on purpose;
# the sim builds' sim.hang=1 is tests/stage and grub-boot.t): its pending.
disk.write("EFI/tsctui/pending", "")

# ---- 11: the guard trips; recovery ---------------------------------------
outs, text, res = g.boot("tripped", [
    "tsctui report --json",
    "tsctui guard status --json",
    "tsctui guard reset --json",
    "tsctui guard status --json",
    "tsctui boot-ok --json",
])
rep, gs, reset, clear = (S.js(outs[0]), S.js(outs[1]), S.js(outs[2]),
                         S.js(outs[3]))
t.ok(rep and rep["result"] == "guard-tripped" and rep["cpus"] == [] and
     rep["msr_writes"] == 0 and gs and gs["guard"] == "tripped",
     "boot 11: the driver finds the pending flag, disables itself without "
     "measuring or writing (guard-tripped); Linux says tripped",
     (outs[0], outs[1]))
t.ok(reset and reset["ok"] and clear and clear["guard"] == "clear" and
     not marks() and
     disk.read("EFI/tsctui/options") == b"mode=measure\n",
     "boot 11: `tsctui guard reset` in Linux clears the guard and restores "
     "measure mode", (outs[2], outs[3]))

# ---- 12: gone again; uninstall on the live system -------------------------
outs, text, res = g.boot("off", ["cat /proc/cmdline",
                                 "tsctui report --json",
                                 "tsctui uninstall --json"])
rep = S.js(outs[1])
t.ok(outs[0] and outs[0][1].strip() == cmdline1 and rep and
     rep["mode"] == "measure" and rep["msr_writes"] == 0,
     "boot 12: /proc/cmdline is back as it was before `on`; the driver "
     "measured", (outs[0], cmdline1, outs[1]))
un = S.js(outs[2])
gone = [p for p in ("EFI/tsctui", "EFI/systemd/drivers/tsctuix64.efi")
        if disk.exists(p)] + [
    p for p in ("/etc/tsctui/tsctui.conf", "/etc/kernel/cmdline",
                "/var/lib/tsctui/ledger") if g.ext4_read(p) is not None]
t.ok(un and un["ok"] and not gone and disk.read(ENTRY) == entry_before and
     g.ext4_read("/var/lib/tsctui/history") is not None,
     "boot 12: `tsctui uninstall` in Linux removes the driver, the ESP state, "
     "the configuration and /etc/kernel/cmdline; the entry is as it was; "
     "the history stays", (outs[2], gone))

# ---- NVRAM ----------------------------------------------------------------
S.check_nvram(t, g, nv_before,
              "twelve boots through systemd-boot and the driver")
sys.exit(t.done())

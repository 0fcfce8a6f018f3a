"""The end-to-end test system: Debian's kernel, a small initramfs, and a
persistent ext4 root holding busybox and the installed tsctui, on one GPT
disk that OVMF boots under TCG.

The disk (SATA, on the q35 chipset's AHCI controller):
  1. the ESP (FAT, serial 1A2B-3C4D): the boot loader and the stage;
  2. the root file system (ext4, ROOT_UUID), made with mkfs.ext4 -d from a
     staging directory and read or written between boots with debugfs, so
     that what one boot writes is there at the next;
  3. a small FAT "control" partition: the commands the guest runs
     (`commands`, one shell line each) and their results (`out/N.out`,
     `N.err`, `N.rc`), read back with mtools.
The initramfs loads the modules that reach the root (ahci, sd_mod, ext4 and
what they depend on, as modprobe resolves them on the unpacked kernel) and
the ones the guest needs (vfat, efivarfs), mounts the root by UUID and
switches to it (or to init= from the command line).  The root's small
init mounts proc, sys, efivarfs and the ESP at /boot/efi, makes the
/dev/disk links udev would (from util-linux's blkid), runs the commands
(/sbin/tsctui-e2e-run: the control partition, each output also between
markers on the serial console), and powers off.  add_systemd() makes a
guest that boots Debian's systemd and udev instead, with the commands as a
service; add_grub_tools() one that makes its grub.cfg with grub-mkconfig.

A Guest made with skew= boots on the TSC rig (tests/lib/rig.py): the
release stage's TSC writes really happen and Debian's kernel judges them;
the story_* functions are the steps of the user's story every loader's
scenario tells there.

`make test-deps` fetches the kernel and busybox-static (tests/e2e/fetch)
and builds the rig; the tests never touch the network."""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
import ovmfvars  # noqa: E402
import qemu  # noqa: E402
import rig  # noqa: E402
from paths import BUILD, TOP, TSCTUI, c_define  # noqa: E402
from tap import Tap  # noqa: E402

DIST = os.path.join(BUILD, "e2e", "dist")
ESP_SERIAL, CTL_SERIAL = 0x1A2B3C4D, 0x0E2E0E2E
ESP_UUID = "1A2B-3C4D"
ROOT_UUID = fx.ROOT_UUID
ESP_MB, ROOT_MB, CTL_MB = 40, 96, 8
# The line of Debian's kernel the guest boots (rig.KERNELS).  6.12, not
# Debian 12's default 6.1: its image is ZSTD-compressed where 6.1's is XZ,
# which TCG takes 3.5 to 4.5 s longer to unpack at every boot (issue 23's
# budget, DESIGN 11).  6.1 still judges on the rig (judge.t, which-clock.t).
LINE = "6.12"
# The E595's firmware fault, on the TSC rig.
RIG_E595 = rig.E595
CMDLINE = f"root=UUID={ROOT_UUID} rw console=ttyS0,115200 panic=-1"
SYSTEMD_INIT = "init=/lib/systemd/systemd"
# The modules the guest loads, in the initramfs: the root disk, then the
# ESP and efivarfs.  crc32c is requested by ext4 through the crypto API,
# which modprobe's dependency list does not show.
MODULES = ["ahci", "sd_mod", "crc32c_generic", "ext4", "vfat", "nls_cp437",
           "nls_ascii", "efivarfs"]
GRUB_MODULES = ("part_gpt fat ext2 search search_fs_uuid loadenv test chain "
                "echo linux halt")

INITRAMFS_INIT = """#!/bin/sh
# tsctui e2e initramfs: load the modules, mount the root by UUID, switch.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r ko; do insmod "$ko" || echo "initramfs: insmod $ko failed"; done </modules.load
root= init=/sbin/tsctui-e2e-init
for arg in $(cat /proc/cmdline); do
	case "$arg" in root=*) root=${arg#root=} ;; init=*) init=${arg#init=} ;; esac
done
i=0
while ! dev=$(findfs "$root" 2>/dev/null); do
	i=$((i + 1))
	[ $i -gt 200 ] && { echo "initramfs: no root $root"; poweroff -f; }
	sleep 0.05
done
mount -t ext4 -o rw "$dev" /root || { echo "initramfs: mount failed"; poweroff -f; }
mount --move /proc /root/proc
mount --move /sys /root/sys
mount --move /dev /root/dev
exec switch_root /root "$init"
"""

ROOT_INIT = """#!/bin/sh
# tsctui e2e guest without systemd: mount what a system has, run the
# control partition's commands, power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t efivarfs efivarfs /sys/firmware/efi/efivars
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t vfat -o umask=0077 "$(findfs UUID=@ESP_UUID@)" /boot/efi
# What udev's persistent-storage rules would make.
mkdir -p /dev/disk/by-uuid /dev/disk/by-partuuid
for d in /sys/class/block/*; do
	n=${d##*/}
	eval "$(blkid -o export /dev/$n | sed -n 's/^\\(UUID\\|PARTUUID\\)=/\\1=/p')"
	[ -n "${UUID:-}" ] && ln -sf ../../$n /dev/disk/by-uuid/$UUID
	[ -n "${PARTUUID:-}" ] && ln -sf ../../$n /dev/disk/by-partuuid/$PARTUUID
	UUID= PARTUUID=
done
/sbin/tsctui-e2e-run
sync
umount /boot/efi
mount -o remount,ro /
echo "tsctui-e2e: done"
poweroff -f
"""

# The commands, for both guests: each line's stdout, stderr and status to
# the control partition, and between markers on the console.
RUNNER = """#!/bin/sh
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb
exec >/dev/console 2>&1
echo "tsctui-e2e: Linux up: $(cat /proc/cmdline)"
mkdir -p /run/ctl
mount -t vfat "$(findfs LABEL=PART2)" /run/ctl
mkdir -p /run/ctl/out
n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	sh -c "$cmd" >/run/ctl/out/$n.out 2>/run/ctl/out/$n.err </dev/null
	echo $? >/run/ctl/out/$n.rc
	echo "tsctui-e2e: begin $n: $cmd"
	cat /run/ctl/out/$n.out /run/ctl/out/$n.err
	echo "tsctui-e2e: end $n: rc=$(cat /run/ctl/out/$n.rc)"
done </run/ctl/commands
sync
umount /run/ctl
"""

# The systemd guest: systemd 252 and udev from the host's packages, the
# units a boot to multi-user.target needs, the runner as a service after
# tsctui-boot.service, then a clean poweroff.
SYSTEMD_BINARIES = ["/lib/systemd/systemd", "/lib/systemd/systemd-shutdown",
                    "/lib/systemd/systemd-udevd", "/bin/udevadm",
                    "/bin/systemctl", "/lib/systemd/systemd-remount-fs",
                    "/lib/systemd/system-generators/systemd-fstab-generator",
                    "/bin/mount", "/bin/umount"]
SYSTEMD_UNITS = ["basic.target", "sysinit.target", "local-fs.target",
                 "local-fs-pre.target", "multi-user.target",
                 "shutdown.target", "poweroff.target", "final.target",
                 "umount.target", "sockets.target", "timers.target",
                 "paths.target", "slices.target", "swap.target",
                 "system-update.target", "system-update-pre.target",
                 "emergency.target", "emergency.service",
                 "systemd-poweroff.service", "systemd-remount-fs.service",
                 "systemd-udevd.service", "systemd-udevd-control.socket",
                 "systemd-udevd-kernel.socket", "systemd-udev-trigger.service",
                 ]
E2E_UNIT = """[Unit]
Description=tsctui e2e: the test's commands, then power off
After=multi-user.target tsctui-boot.service

[Service]
Type=oneshot
ExecStart=/sbin/tsctui-e2e-run
ExecStartPost=/bin/systemctl --no-block poweroff
"""


def start(name):
    """A scenario's work directory under build/e2e (emptied) and its TAP
    writer; bails out when `make test-deps` has not fetched the kernel."""
    work = os.path.join(BUILD, "e2e", name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    kernel_version()
    return work, Tap()


def kernel_dir():
    """Where the guest's kernel line is unpacked (tests/e2e/fetch)."""
    return os.path.join(DIST, rig.KERNELS[LINE])


def kernel_version():
    p = kernel_dir() + "-version"
    if not os.path.exists(p):
        raise SystemExit(f"Bail out! no kernel in {DIST}: run `make test-deps`")
    return open(p).read().strip()


def run(*cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, **kw)


def module_files(ver):
    """The .ko files for MODULES and their dependencies, in load order."""
    out, seen = [], set()
    kdir = kernel_dir()
    for m in MODULES:
        r = run("modprobe", "-d", kdir, "-S", ver, "--show-depends", m,
                text=True)
        for line in r.stdout.splitlines():
            parts = line.split()
            if parts[:1] == ["insmod"] and parts[1] not in seen:
                seen.add(parts[1])
                out.append(parts[1])
    return out


def busybox_links(root, dest_dir, skip=()):
    """busybox at dest_dir/busybox and a link for each applet beside it."""
    bb = os.path.join(DIST, "busybox", "bin", "busybox")
    d = os.path.join(root, dest_dir.lstrip("/"))
    os.makedirs(d, exist_ok=True)
    shutil.copy(bb, os.path.join(d, "busybox"))
    applets = run(bb, "--list", text=True).stdout.split()
    for a in applets:
        p = os.path.join(d, a)
        if a not in skip and a != "busybox" and not os.path.lexists(p):
            os.symlink("busybox", p)


def initramfs(path):
    """A newc cpio of busybox, the modules and /init."""
    ver = kernel_version()
    d = path + ".d"
    shutil.rmtree(d, ignore_errors=True)
    for sub in ("proc", "sys", "dev", "root", "modules"):
        os.makedirs(os.path.join(d, sub))
    busybox_links(d, "/bin")
    load = []
    for ko in module_files(ver):
        # 6.12 ships its modules xz-compressed; busybox's insmod takes
        # them plain, so they are unpacked here, not in the guest.
        dest = os.path.join("/modules", os.path.basename(ko))
        if ko.endswith(".xz"):
            dest = dest[:-len(".xz")]
            with open(os.path.join(d, dest.lstrip("/")), "wb") as f:
                subprocess.run(["xz", "-dc", ko], stdout=f, check=True)
        else:
            shutil.copy(ko, os.path.join(d, dest.lstrip("/")))
        load.append(dest)
    with open(os.path.join(d, "modules.load"), "w") as f:
        f.write("\n".join(load) + "\n")
    fx.write(d, "/init", INITRAMFS_INIT, 0o755)
    files = run("find", ".", cwd=d).stdout
    with open(path, "wb") as f:
        subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], input=files,
                       stdout=f, cwd=d, check=True)
    shutil.rmtree(d)
    return path


copy_with_libs = fx.copy_with_libs


def add_systemd(root):
    """systemd as the guest's init (boot with init=/lib/systemd/systemd):
    udev makes the /dev/disk links, the fstab generator mounts the ESP, and
    the installed tsctui-boot.service runs as on a real system."""
    for b in SYSTEMD_BINARIES:
        for name in ("mount", "umount"):
            p = os.path.join(root, "bin", name)
            if b == f"/bin/{name}" and os.path.islink(p):
                os.remove(p)  # util-linux's, not busybox's
        copy_with_libs(root, b)
    shutil.copytree("/lib/udev", os.path.join(root, "lib/udev"),
                    dirs_exist_ok=True)
    for h in os.listdir("/lib/udev"):
        p = os.path.join("/lib/udev", h)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            copy_with_libs(root, p)
    units = os.path.join(root, "lib/systemd/system")
    os.makedirs(units, exist_ok=True)
    for u in SYSTEMD_UNITS:
        shutil.copy(os.path.join("/lib/systemd/system", u), units)
    os.symlink("multi-user.target", os.path.join(units, "default.target"))
    for target, u in (("sockets.target", "systemd-udevd-control.socket"),
                      ("sockets.target", "systemd-udevd-kernel.socket"),
                      ("sysinit.target", "systemd-udevd.service"),
                      ("sysinit.target", "systemd-udev-trigger.service"),
                      ("local-fs.target", "systemd-remount-fs.service")):
        d = os.path.join(units, f"{target}.wants")
        os.makedirs(d, exist_ok=True)
        os.symlink(f"../{u}", os.path.join(d, u))
    fx.write(root, "/etc/systemd/system/tsctui-e2e.service", E2E_UNIT)
    d = os.path.join(root, "etc/systemd/system/multi-user.target.wants")
    os.makedirs(d, exist_ok=True)
    os.symlink("/etc/systemd/system/tsctui-e2e.service",
               os.path.join(d, "tsctui-e2e.service"))
    fx.write(root, "/etc/machine-id", "")
    # No fsck in the guest: pass number 0.
    fx.write(root, "/etc/fstab",
             f"UUID={ROOT_UUID} / ext4 rw 0 0\n"
             f"UUID={ESP_UUID} /boot/efi vfat umask=0077 0 0\n")


GRUB_DEFAULT = """GRUB_DEFAULT=0
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=Debian
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="console=ttyS0,115200 panic=-1"
GRUB_TERMINAL=console
GRUB_DISABLE_OS_PROBER=true
"""


def add_grub_tools(root):
    """What grub-install and Debian's grub packages leave on a system, so
    that grub.cfg is made in the guest by the real grub-mkconfig and its
    /etc/grub.d scripts: the tools, the scripts, /etc/default/grub, and the
    modules under /boot/grub/x86_64-efi (GRUB's prefix there)."""
    for b in ("/usr/sbin/grub-mkconfig", "/usr/sbin/grub-probe",
              "/usr/bin/grub-mkrelpath", "/usr/bin/grub-script-check",
              "/usr/bin/grub-editenv", "/usr/bin/grub-file"):
        copy_with_libs(root, b)
    d = os.path.join(root, "etc/grub.d")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir("/etc/grub.d"):
        if not os.path.exists(os.path.join(d, f)):
            shutil.copy2(os.path.join("/etc/grub.d", f), d)
    os.makedirs(os.path.join(root, "usr/share/grub"), exist_ok=True)
    shutil.copy("/usr/share/grub/grub-mkconfig_lib",
                os.path.join(root, "usr/share/grub"))
    mods = os.path.join(root, "boot/grub/x86_64-efi")
    os.makedirs(mods, exist_ok=True)
    for f in os.listdir("/usr/lib/grub/x86_64-efi"):
        if f.endswith((".mod", ".lst")):
            shutil.copy(os.path.join("/usr/lib/grub/x86_64-efi", f), mods)
    fx.write(root, "/etc/default/grub", GRUB_DEFAULT)


def staging(root, loader="grub"):
    """The guest's root as a directory, looking to `tsctui --root` as the
    booted system will (mount table, /dev/disk links, efivarfs, the files
    `make install` puts down).  Call finish() before making the image: it
    removes the host-side stand-ins for /proc, /sys and /dev."""
    ver = kernel_version()
    esp = "/boot/efi"
    if loader == "systemd-boot":
        fx.base(root, esp=esp, esp_dev="/dev/sda1", root_dev="/dev/sda2",
                esp_uuid=ESP_UUID)
        # What systemd-boot tells the OS; the real one sets it at boot.
        fx.efivar(root, "LoaderInfo", fx.LOADER,
                  fx.utf16("systemd-boot 252"), attrs=0x6)
    else:
        fx.debian_grub(root, esp_dev="/dev/sda1", root_dev="/dev/sda2",
                       esp_uuid=ESP_UUID)
        # The real GRUB goes in by the test; no stand-ins in the image.
        os.remove(os.path.join(root, "boot/efi/EFI/debian/grubx64.efi"))
        os.remove(os.path.join(root, "boot/grub/grub.cfg"))
    busybox_links(root, "/bin", skip=("blkid",))
    for b in (os.path.join(TOP, "tui", "tsctui"), "/usr/bin/efibootmgr",
              "/usr/sbin/blkid"):
        copy_with_libs(root, b, dest="/usr/local/sbin/tsctui"
                       if b.endswith("tui/tsctui") else None)
    kdir = os.path.join(kernel_dir(), "boot")
    shutil.copy(os.path.join(kdir, f"vmlinuz-{ver}"),
                os.path.join(root, "boot", f"vmlinuz-{ver}"))
    initramfs(os.path.join(root, "boot", f"initrd.img-{ver}"))
    fx.write(root, "/sbin/tsctui-e2e-init",
             ROOT_INIT.replace("@ESP_UUID@", ESP_UUID), 0o755)
    fx.write(root, "/sbin/tsctui-e2e-run", RUNNER, 0o755)
    fx.write(root, "/etc/os-release", open("/etc/os-release").read())
    fx.write(root, "/etc/hostname", "e2e\n")
    fx.write(root, "/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
    fx.write(root, "/etc/group", "root:x:0:\n")
    fx.write(root, "/etc/fstab",
             f"UUID={ROOT_UUID} / ext4 rw 0 1\n"
             f"UUID={ESP_UUID} {esp} vfat umask=0077 0 1\n")
    for d in ("root", "tmp", "run", "var/lib"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    return root


SD_BOOT = "/usr/lib/systemd/boot/efi/systemd-bootx64.efi"


def sd_entry(ver):
    return f"loader/entries/debian-{ver}.conf"


def systemd_boot_esp(root, options=CMDLINE):
    """The ESP (in the staging root) as Debian's systemd-boot and
    kernel-install leave it: the boot manager, the kernel and initramfs
    under /debian/VERSION/, loader.conf and the entry."""
    ver = kernel_version()
    esp = os.path.join(root, "boot/efi")
    for dest in ("EFI/systemd/systemd-bootx64.efi", "EFI/BOOT/BOOTX64.EFI"):
        os.makedirs(os.path.dirname(os.path.join(esp, dest)), exist_ok=True)
        shutil.copy(SD_BOOT, os.path.join(esp, dest))
    os.makedirs(os.path.join(esp, "debian", ver))
    for src, dest in ((f"boot/vmlinuz-{ver}", "linux"),
                      (f"boot/initrd.img-{ver}", f"initrd.img-{ver}")):
        shutil.copy(os.path.join(root, src),
                    os.path.join(esp, "debian", ver, dest))
    fx.write(esp, "/loader/loader.conf", "timeout 0\n")
    fx.write(esp, "/" + sd_entry(ver),
             f"title Debian GNU/Linux 12 (bookworm)\nversion {ver}\n"
             f"machine-id debian\nsort-key debian\noptions {options}\n"
             f"linux /debian/{ver}/linux\n"
             f"initrd /debian/{ver}/initrd.img-{ver}\n")


def finish(root):
    """The host-side stand-ins out (the guest mounts proc, sys and
    devtmpfs there), and the ESP's files out of the root (the guest mounts
    the ESP over /boot/efi): returns the ESP's directory, moved aside."""
    for d in ("proc", "sys", "dev", "run"):
        p = os.path.join(root, d)
        shutil.rmtree(p, ignore_errors=True)
        os.makedirs(p)
    esp = os.path.join(root, "boot", "efi")
    aside = root.rstrip("/") + ".esp"
    shutil.rmtree(aside, ignore_errors=True)
    shutil.move(esp, aside)
    os.makedirs(esp)
    return aside


def grub_image(path, config_body=None, configfile=False):
    """GRUB as grub-mkstandalone builds it, its embedded grub.cfg shaped as
    a distribution's: find the root, the grub.d block, the Linux entry.
    With configfile, it is what grub-install embeds instead: find the root,
    set the prefix to its /boot/grub and load grub.cfg from there (and, while
    there is none yet, boot the kernel directly)."""
    ver = kernel_version()
    cfg = path + ".cfg"
    if configfile:
        with open(cfg, "w") as f:
            f.write(f"search --no-floppy --fs-uuid --set=root {ROOT_UUID}\n"
                    "set prefix=($root)/boot/grub\n"
                    "if [ -s $prefix/grub.cfg ]; then\n"
                    "  configfile $prefix/grub.cfg\n"
                    "fi\n"
                    "echo 'tsctui-e2e: no grub.cfg yet'\n"
                    f"linux /boot/vmlinuz-{ver} {CMDLINE}\n"
                    f"initrd /boot/initrd.img-{ver}\n"
                    "boot\n")
        run("grub-mkstandalone", "-O", "x86_64-efi", "-o", path,
            f"--modules={GRUB_MODULES} configfile normal",
            f"boot/grub/grub.cfg={cfg}")
        return path
    with open(cfg, "w") as f:
        # As grub-mkconfig's 00_header: the default grubenv first.
        f.write(f"search --no-floppy --fs-uuid --set=root {ROOT_UUID}\n"
                "set prefix=($root)/boot/grub\n"
                "if [ -s $prefix/grubenv ]; then\n"
                "  set have_grubenv=true\n"
                "  load_env\n"
                "fi\n"
                f"{config_body}"
                "echo 'tsctui-e2e: GRUB loading Linux'\n"
                f"linux /boot/vmlinuz-{ver} {CMDLINE}\n"
                f"initrd /boot/initrd.img-{ver}\n"
                "boot\n")
    run("grub-mkstandalone", "-O", "x86_64-efi", "-o", path,
        f"--modules={GRUB_MODULES}", f"boot/grub/grub.cfg={cfg}")
    return path


def generator_block(root):
    """What the installed grub.d generator emits for this root."""
    return run(os.path.join(root, "etc/grub.d/05_tsctui"), text=True,
               env={**os.environ, "TSCTUI_CONF": os.path.join(
                   root, "etc/tsctui/tsctui.conf")}).stdout


def put_tree(disk, src, dest=""):
    """A directory's files onto a FAT partition, with mtools."""
    for dirpath, _dirs, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        for name in files:
            target = "/".join(x for x in (dest, "" if rel == "." else rel,
                                          name) if x)
            disk.put(os.path.join(dirpath, name), target)


def make_disk(path, root_dir, esp_dir):
    disk = qemu.Disk(path, parts=[(ESP_MB, ESP_SERIAL),
                                  (ROOT_MB, qemu.Ext4(ROOT_UUID, root_dir)),
                                  (CTL_MB, CTL_SERIAL)])
    put_tree(disk, esp_dir)
    return disk


def seasoned_vars(path):
    """An OVMF variable store seasoned on the guest's AHCI port
    (qemu.seasoned_vars)."""
    return qemu.seasoned_vars(path, "ahci")


class Guest:
    """One test system: its disk and OVMF variable store, booted step by
    step; each boot runs the given commands in the guest.  With skew
    ({cpu: cycles}), it runs on the TSC rig (tests/lib/rig.py): a laptop's
    CPU without the hypervisor bit, TSC writes honoured, and that firmware
    fault at every reset, so the release stage's writes are judged by the
    kernel."""

    def __init__(self, work, disk, tap, cpu="EPYC", smp=4, skew=None):
        self.work, self.disk, self.t = work, disk, tap
        self.skew = skew
        if skew is not None:
            rig.require()
            cpu = rig.LAPTOP_CPU
        self.cpu, self.smp = cpu, smp
        self.vars = seasoned_vars(os.path.join(work, "vars.fd"))
        self.n = 0

    def boot(self, name, commands=(), until=None, timeout=150, cpu=None):
        """Boots once.  Returns (outputs, console text, qemu result);
        outputs[i] = (rc, stdout, stderr) of commands[i], None when the
        guest never ran it."""
        ctl = self.disk.on(2)
        self.disk.format(2)
        ctl.write("commands", "".join(c + "\n" for c in commands))
        self.n += 1
        log = os.path.join(self.work, f"{self.n}-{name}.log")
        on_rig = {}
        if self.skew is not None:
            on_rig = {"binary": rig.QEMU, "extra": rig.SMBIOS,
                      "env": {rig.SKEW_ENV: rig.skew_spec(self.skew)},
                      "pin": rig.pinning()}
        res = qemu.boot(self.disk, self.vars, cpu=cpu or self.cpu,
                        smp=self.smp,
                        timeout=timeout, until=until, log_path=log,
                        memory=512, bus="ahci", **on_rig)
        text = res.console()
        self.t.diag(f"boot {name}: {res.seconds:.1f} s"
                    f"{' (stopped)' if until or res.timed_out else ''}")
        outs = []
        for i in range(1, len(commands) + 1):
            rc = ctl.read(f"out/{i}.rc")
            if rc is None:
                outs.append(None)
                continue
            outs.append((int(rc.decode().strip() or -1),
                         (ctl.read(f"out/{i}.out") or b"").decode(),
                         (ctl.read(f"out/{i}.err") or b"").decode()))
        if until is None and None in outs:
            self.t.diag(f"boot {name}: the guest did not run every "
                        f"command: {res.ending()}")
        return outs, text, res

    def ext4_read(self, path):
        return self.disk.ext4_read(1, path)

    def ext4_write(self, path, data, mode=0o644):
        self.disk.ext4_write(1, path, data, mode)


def js(out):
    """A command's stdout as JSON, or None (not run, empty, or not JSON)."""
    try:
        return json.loads(out[1]) if out and out[1].strip() else None
    except ValueError:
        return None


def check_nvram(t, guest, before, boots):
    """The stage added or changed no variable in the store but OVMF's own,
    and never stored its (volatile) report there."""
    after = ovmfvars.parse(guest.vars)
    bad = ovmfvars.unexpected(before, after)
    t.ok(before and not bad,
         f"NVRAM: {boots} added or changed no variable but OVMF's own", bad)
    t.ok(not [k for k in after if k[0] == ovmfvars.REPORT_GUID],
         "NVRAM: the report variable never reaches the store")


# ---- The user's story on the TSC rig, for every loader ---------------------
# warp boot (nothing installed) -> install -> measure boot -> mode sync ->
# sync boot -> a boot stopped after the stage armed the guard -> the guard
# trips -> recovery.  Each check below is one step's assertions, shared by
# grub-live.t, systemd-boot.t and efi-entry.t.
STAGE_DONE = b"--- tsctui report end ---"
LAG = -RIG_E595[0]


def diag(status):
    d = (status or {}).get("diagnosis") or {}
    return d.get("code"), d.get("recommendations") or []


def story_warp(t, label, st):
    """Before install: the kernel measured the firmware's warp, dropped the
    TSC, and tsctui says to install the stage in measure mode."""
    warps = [e for e in (st or {}).get("kernel", {}).get("events", [])
             if e["kind"] == "warp"]
    # The kernel's warp is the lag less the time between the two CPUs'
    # reads it compared: under TCG on a busy host that was 1.1e6 cycles
    # once, so within 0.1% of the lag, which still says "this fault".
    t.ok(st and diag(st) == ("boot-warp", ["install-measure"]) and
         warps and abs(warps[0]["cycles"] - LAG) < LAG // 1000 and
         st["clocksource"]["current"] == "hpet" and
         not st["virtual_machine"],
         f"{label}: without the stage the kernel measures the firmware's "
         "warp and drops the TSC; status: boot-warp, install-measure",
         st and (diag(st), warps, st["clocksource"]))


def story_measure(t, label, rep, st):
    """A measure boot: the release stage saw the BSP behind every AP and
    wrote nothing; tsctui says to enable sync."""
    t.ok(rep and rep["build"] == "release" and rep["mode"] == "measure" and
         rep["msr_writes"] == 0 and rep["result"] == "out-of-sync" and
         rep["cpus"] and
         all(abs(c["survey_offset"] - LAG) < 100000 for c in rep["cpus"]),
         f"{label}: the release stage measures the BSP ~6.8e9 cycles behind "
         "every AP and writes nothing", rep and {
             k: rep[k] for k in ("build", "mode", "result", "msr_writes")})
    t.ok(st and diag(st) == ("boot-warp", ["enable-sync"]),
         f"{label}: status: boot-warp, enable-sync", st and diag(st))


# A sync boot's first commands, read by story_sync.
SYNC_COMMANDS = ["tsctui report --json", "tsctui status --json",
                 "tsctui boot-ok --json", "tsctui history --json"]


# The verdict's ok limit, in cycles, from the one copy the code uses.
OK_LIMIT = c_define("common/verdict.h", "TSC_OK_LIMIT")


def story_sync(t, label, outs, res):
    """A sync boot (SYNC_COMMANDS first): the release stage moved the BSP,
    the kernel kept the TSC, status says healthy and the history shows the
    fix.  res: the boot's QEMU result (the rig's truth as QEMU ended)."""
    rep, st, hist = js(outs[0]), js(outs[1]), js(outs[3])
    exits = rig.Oracle(res.stderr).groups("exit")
    truth = exits[-1] if exits else {}
    # In-sync, or unsure when an AP ended between the ok and bad limits.
    # Out-of-sync only when the rig's truth agrees that an AP is beyond the
    # ok limit: the stage said so honestly (a fresh-clone CI run: an AP
    # truly at -56, read at -66, called bad) and the kernel, a lenient
    # judge on this rig, kept the TSC.  Its convergence is issue 25's.
    honest = rep and rep["result"] == "out-of-sync" and any(
        abs(truth.get(c["apic_id"], 0)) > OK_LIMIT for c in rep["cpus"])
    t.ok(rep and rep["build"] == "release" and rep["mode"] == "sync" and
         (rep["result"] in ("in-sync", "unsure") or honest) and
         rep["msr_writes"] >= 1
         and abs(rep["bsp_shift_cycles"] - LAG) < 100000,
         f"{label}: the release stage moves the BSP forward ~6.8e9 cycles: "
         "in-sync or unsure (out-of-sync only where the rig's truth has an "
         "AP beyond the ok limit)", (rep and {k: rep[k] for k in (
             "result", "msr_writes", "bsp_shift_cycles")}, truth))
    kinds = [e["kind"] for e in (st or {}).get("kernel", {}).get("events",
                                                                  [])]
    t.ok(st and st["clocksource"]["current"] == "tsc" and
         "warp" not in kinds and "unstable" not in kinds and
         diag(st)[0] == "healthy",
         f"{label}: the kernel's own check passes and it keeps the TSC; "
         "status: healthy", st and (st["clocksource"], kinds, diag(st)))
    hist = hist or []
    t.ok(len(hist) >= 2 and hist[-1]["stage_mode"] == "sync" and
         rep and hist[-1]["stage_result"] == rep["result"] and
         hist[-1]["clocksource"] == "tsc" and
         hist[-2]["clocksource"] == "hpet",
         f"{label}: the history's last row is the fix (sync, the stage's "
         "result, tsc) after a boot on hpet", hist[-2:])


def story_stopped(t, label, guest, until, state, where, name="stopped"):
    """A boot stopped after the stage returned and before Linux's user
    space: a sync boot whose kernel hangs, another system chosen, or the
    power cut at the menu.  The stage had returned, so pending is clear;
    state() checks the guard's markers (`where`, for the message)."""
    outs, text, res = guest.boot(name, until=until, timeout=150)
    t.ok(not res.timed_out and "Linux up" not in text and state(),
         f"{label}: stopped after the stage returned, before Linux ran "
         f"({where})")
    return text


# A probation boot's commands, read by story_probation.
PROBATION_COMMANDS = ["tsctui report --json", "tsctui guard status --json",
                      "tsctui boot-ok --json", "tsctui guard status"]


def story_probation(t, label, outs, text, grub):
    """The boot after an unconfirmed sync boot (PROBATION_COMMANDS first):
    the stage measured only and said why, the guard is pending, not
    tripped; boot-ok counts strike 1."""
    rep, gs, ok = js(outs[0]), js(outs[1]), js(outs[2])
    said = ("this boot measures only" in text if grub else
            rep and "not confirmed by Linux" in (rep["reason"] or ""))
    t.ok(rep and rep["mode"] == "measure" and rep["msr_writes"] == 0 and
         said and gs and gs["guard"] == "pending",
         f"{label}: the last sync boot was not confirmed: a probation boot, "
         "measure only, saying why; the guard pending, not tripped",
         (rep and {k: rep[k] for k in ("mode", "msr_writes", "reason")},
          outs[1]))
    t.ok(ok and ok["ok"] and "strike 1 of 3" in ok["message"] and
         outs[3] and outs[3][1].startswith("clear") and
         "strikes: 1 of 3" in outs[3][1],
         f"{label}: boot-ok counts strike 1 (a write-free boot reached Linux "
         "after one with writes did not); the guard clear", (outs[2],
                                                             outs[3]))


def grubenv_list(guest, work):
    """`grub-editenv list` on the grubenv extracted from the image."""
    data = guest.ext4_read("/boot/grub/grubenv")
    if data is None:
        return {}
    p = os.path.join(work, "grubenv.extracted")
    with open(p, "wb") as f:
        f.write(data)
    out = run("grub-editenv", p, "list", text=True).stdout
    return dict(line.split("=", 1) for line in out.splitlines()
                if "=" in line)


def grubenv_edit(guest, work, *args):
    """grub-editenv on the extracted grubenv, copied back to the image."""
    p = os.path.join(work, "grubenv.extracted")
    with open(p, "wb") as f:
        f.write(guest.ext4_read("/boot/grub/grubenv"))
    run("grub-editenv", p, *args)
    guest.ext4_write("/boot/grub/grubenv", open(p, "rb").read())


def tsctui_host(root, *args):
    """The release tsctui on the host, against the staging root."""
    return subprocess.run([TSCTUI, "--root", root, "--json", *args],
                          capture_output=True, text=True)

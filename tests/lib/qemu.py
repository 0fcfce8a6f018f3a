"""The QEMU/OVMF harness the stage, boot-integration and end-to-end tests
share: a GPT disk image with an ESP (sfdisk and mtools, no loop mounts), a
per-test copy of the OVMF variable store, the serial console captured with
timestamps, and a timeout after which the VM is stopped (for tests that hang
on purpose).  Under TCG only: this machine has no KVM."""
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time

import ovmfvars
from paths import BUILD

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
ESP_TYPE = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"
ESP_OFFSET = 1024 * 1024  # the partition starts at 1 MiB
SHELL_PROMPT = b"any other key to continue"


LINUX_TYPE = "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
# The QEMU every boot runs unless it names another (the TSC rig's):
# Debian's own, rebuilt by `make test-deps` with multi-threaded TCG's race
# between translating guest code and writing it closed (tests/rig/build,
# docs/DESIGN.md 11.2 item 10).  The installed binary oopses a guest now
# and then when Linux patches its code live, so it is never used instead.
QEMU_TCG = os.path.join(BUILD, "rig", "qemu-tcg")
# A QEMU built from source installs no firmware blobs: QEMU's and
# SeaBIOS's option ROMs come from Debian's packages.
FIRMWARE = ["-L", "/usr/share/qemu", "-L", "/usr/share/seabios"]


def default_binary():
    if not os.access(QEMU_TCG, os.X_OK):
        raise SystemExit(f"Bail out! no {QEMU_TCG}: run `make test-deps` "
                         "(tests/rig/build builds it)")
    return QEMU_TCG


class Ext4:
    """A partition spec for Disk: an ext4 file system with this UUID, made
    by mkfs.ext4 -d from the directory src (owners and modes kept)."""

    def __init__(self, uuid, src, label="root"):
        self.uuid, self.src, self.label = uuid, src, label


class Disk:
    """A GPT disk of FAT partitions edited with mtools; the first is the
    ESP.  parts: a list of (size in MiB, volume serial or None or an Ext4);
    a serial such as 0x1A2B3C4D is what GRUB's search --fs-uuid knows as
    1A2B-3C4D.  Methods act on partition `part` (0: the ESP); an ext4
    partition is read and written with debugfs (ext4_* methods)."""

    def __init__(self, path, size_mb=64, parts=None):
        self.path = path
        parts = parts or [(size_mb - 2, None)]
        total = sum(p[0] for p in parts) + 2
        with open(path, "wb") as f:
            f.truncate(total * 1024 * 1024)
        script = "label: gpt\n"
        self.offsets = []
        start = 2048
        for i, (mb, _serial) in enumerate(parts):
            kind = ESP_TYPE if i == 0 else LINUX_TYPE
            script += f"start={start}, size={mb * 2048}, type={kind}\n"
            self.offsets.append(start * 512)
            start += mb * 2048
        subprocess.run(["sfdisk", "-q", path], input=script, text=True,
                       check=True, capture_output=True)
        self.parts = parts
        for i, (mb, spec) in enumerate(parts):
            if isinstance(spec, Ext4):
                subprocess.run(["mkfs.ext4", "-q", "-F", "-E",
                                f"offset={self.offsets[i]}", "-U", spec.uuid,
                                "-L", spec.label, "-d", spec.src, path,
                                f"{mb}M"], check=True, capture_output=True)
            else:
                self.format(i)
        self.part = 0

    def format(self, i):
        """A fresh FAT file system on partition i (its serial kept)."""
        mb, serial = self.parts[i]
        cmd = ["mformat", "-i", self.part_img(i), "-v", f"PART{i}"]
        if mb >= 33:
            cmd.append("-F")
        if serial is not None:
            cmd += ["-N", f"{serial:08X}"]
        subprocess.run(cmd + ["::"], check=True, capture_output=True)

    def _debugfs(self, i, requests, write=False):
        img = f"{self.path}?offset={self.offsets[i]}"
        r = subprocess.run(["debugfs"] + (["-w"] if write else []) +
                           ["-f", "-", img], input="\n".join(requests) + "\n",
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"debugfs {requests}: {r.stderr.strip()}")
        return r

    def ext4_read(self, i, path):
        """The bytes of a file in ext4 partition i, or None."""
        img = f"{self.path}?offset={self.offsets[i]}"
        r = subprocess.run(["debugfs", "-R", f"cat {path}", img],
                           capture_output=True)
        if r.returncode != 0 or b"File not found" in r.stderr:
            return None
        return r.stdout

    def ext4_write(self, i, path, data, mode=0o644):
        """Replaces (or creates) a file in ext4 partition i."""
        with tempfile.NamedTemporaryFile(delete=False) as f:
            f.write(data.encode() if isinstance(data, str) else data)
        try:
            self._debugfs(i, [f"rm {path}", f"write {f.name} {path}",
                              f"set_inode_field {path} mode 0{0o100000 | mode:o}"],
                          write=True)
        finally:
            os.unlink(f.name)

    def part_img(self, i):
        return f"{self.path}@@{self.offsets[i]}"

    def on(self, part):
        """The same disk, addressing partition `part`."""
        view = Disk.__new__(Disk)
        view.__dict__.update(self.__dict__)
        view.part = part
        return view

    @property
    def img(self):
        return self.part_img(self.part)

    def mkdir(self, path):
        parts = [p for p in path.strip("/").split("/") if p]
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if not self.exists(d):
                subprocess.run(["mmd", "-i", self.img, f"::/{d}"],
                               check=True, capture_output=True)

    def put(self, local, dest):
        self.mkdir(os.path.dirname(dest))
        subprocess.run(["mcopy", "-o", "-i", self.img, local, f"::/{dest}"],
                       check=True, capture_output=True)

    def write(self, dest, data):
        with tempfile.NamedTemporaryFile(delete=False) as f:
            f.write(data.encode() if isinstance(data, str) else data)
        try:
            self.put(f.name, dest)
        finally:
            os.unlink(f.name)

    def read(self, path):
        r = subprocess.run(["mtype", "-i", self.img, f"::/{path}"],
                           capture_output=True)
        return r.stdout if r.returncode == 0 else None

    def exists(self, path):
        return subprocess.run(["mdir", "-b", "-i", self.img, f"::/{path}"],
                              capture_output=True).returncode == 0

    def remove(self, path):
        subprocess.run(["mdel", "-i", self.img, f"::/{path}"],
                       capture_output=True)


class Result:
    """log: the serial console; stderr: QEMU's standard error, kept apart
    (the TSC rig's oracle lines, docs/DESIGN.md 11.2)."""

    def __init__(self, log, timed_out, seconds, exit_code, stderr=b""):
        self.log = log
        self.timed_out = timed_out
        self.seconds = seconds
        self.exit_code = exit_code
        self.stderr = stderr

    def text(self):
        return self.log.decode("utf-8", "replace")

    def console(self):
        """The serial output as a person reads it: terminal escape
        sequences (the firmware's colours and cursor moves) and carriage
        returns taken out."""
        return re.sub(r"\x1b\[[0-9;=?]*[A-Za-z]", "",
                      self.text()).replace("\r", "")

    def ending(self, lines=12):
        """How the guest ended, for a test's diagnostics when it stopped
        short of what the test waited for: QEMU's exit (status, timeout),
        any oops or panic lines of the kernel, and the console's last
        lines.  A CI log is all that reaches the people who read a failed
        run, so it must say whether the guest died and where."""
        text = self.console()
        alarms = [ln for ln in text.splitlines() if re.search(
            r"Oops|BUG:|Kernel panic|RIP: |general protection|"
            r"Call Trace|end trace|watchdog: .*stuck|rcu: .*stall", ln)]
        tail = [ln for ln in text.splitlines() if ln.strip()][-lines:]
        return (f"qemu {'timed out' if self.timed_out else 'exited'} "
                f"after {self.seconds:.1f} s (status {self.exit_code}); "
                f"kernel alarms: {alarms[:20]}; console's last lines: "
                f"{tail}")


# How long a stopped QEMU gets to exit by itself before it is killed: it
# prints the rig's oracle lines on its way out.
STOP_GRACE_S = 20


def stop(p, fds, collect, sig=signal.SIGTERM):
    """Stops QEMU process p with sig (SIGTERM, as a person's kill would;
    SIGINT, as Ctrl-C), reads what it still writes on fds into
    collect(fd, chunk) until it exits, and kills it after STOP_GRACE_S."""
    if p.poll() is None:
        p.send_signal(sig)
    deadline = time.monotonic() + STOP_GRACE_S
    fds = list(fds)
    while fds:
        left = deadline - time.monotonic()
        if left <= 0:
            p.kill()
            break
        ready, _, _ = select.select(fds, [], [], min(left, 1.0))
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                collect(fd, chunk)
            else:
                fds.remove(fd)
    p.wait()


def fresh_vars(path):
    shutil.copyfile(OVMF_VARS, path)
    return path


# The Shell's startup options (ShellPkg reads this variable as its command
# line when BDS starts it with none): no countdown before startup.nsh, which
# otherwise costs a whole second even with a key pressed (it polls once a
# second).
SHELL_OPT_GUID = "158DEF5A-F656-419C-B027-7A3192C079D2"
SHELL_OPT = "Shell -delay 0"


def seasoned_vars(path, bus):
    """An OVMF variable store that has been through one boot of a disk on
    this bus (the firmware's own first-boot variables made, about 0.8 s of
    TCG a boot), copied to path.  Made once per OVMF build and bus, under
    BUILD/ovmf-vars; also what a scenario's NVRAM comparison wants, its
    first boot included.  On virtio (the Shell's disk in the stage and rig
    suites) the seasoning boot is the Shell's, which sets SHELL_OPT, so
    that later Shell boots run startup.nsh at once; on AHCI (the e2e
    guests' port) it boots shutdown.efi."""
    cache_dir = os.path.join(BUILD, "ovmf-vars")
    st = os.stat(OVMF_CODE)
    cache = os.path.join(cache_dir,
                         f"vars-{bus}-{st.st_size}-{int(st.st_mtime)}.fd")
    if not os.path.exists(cache):
        os.makedirs(cache_dir, exist_ok=True)
        d = Disk(cache + ".img", size_mb=40)
        if bus == "virtio":
            d.write("startup.nsh",
                    f"setvar ShellOpt -guid {SHELL_OPT_GUID} -bs -nv "
                    f"=L\"{SHELL_OPT}\" =0000\r\n"
                    "echo tsctui-test: shutdown\r\nreset -s\r\n")
        else:
            d.put(os.path.join(BUILD, "tests", "efi", "shutdown.efi"),
                  "EFI/BOOT/BOOTX64.EFI")
        fresh_vars(cache + ".tmp")
        res = boot(d, cache + ".tmp", timeout=120, bus=bus)
        os.remove(d.path)
        if res.timed_out or b"tsctui-test: shutdown" not in res.log:
            raise SystemExit("Bail out! the seasoning boot did not power off")
        if bus == "virtio" and (SHELL_OPT_GUID.lower(), "ShellOpt") not in \
                ovmfvars.parse(cache + ".tmp"):
            raise SystemExit("Bail out! the seasoning boot set no ShellOpt")
        os.rename(cache + ".tmp", cache)
    shutil.copyfile(cache, path)
    return path


def pin_vcpus(pid, host_cpu_of, count, wait_s=10.0):
    """Pins each of the count vCPU threads of QEMU process pid (named
    "CPU n/TCG": boot() asks for debug-threads) to the host CPUs
    host_cpu_of(n) returns; waits (bounded) for the threads to appear.
    Returns an error string when it could not pin them all: a boot that
    was asked to pin must not run unpinned without saying so (until the
    threads had names, every rig boot ran unpinned and this wait held the
    console reader back for its whole 10 s)."""
    deadline = time.monotonic() + wait_s
    pinned = set()
    while time.monotonic() < deadline:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return "QEMU ended before its vCPU threads were pinned"
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    m = re.match(r"CPU (\d+)/TCG", f.read())
            except OSError:
                continue
            if m and tid not in pinned:
                os.sched_setaffinity(int(tid), host_cpu_of(int(m.group(1))))
                pinned.add(tid)
        if len(pinned) >= count:
            return None
        time.sleep(0.01)
    return f"pinned {len(pinned)} of {count} vCPU threads in {wait_s} s"


def boot(disk, vars_path, cpu="EPYC", smp=4, timeout=120, until=None,
         log_path=None, memory=256, reboot=False, bus="virtio",
         binary=None, extra=(), env=None, pin=None,
         readonly=False, stop_signal=signal.SIGTERM):
    """Boots OVMF from disk; returns when QEMU exits, when `until` (bytes)
    appears in the serial output (the VM is then stopped: SIGTERM, so QEMU
    ends as it would for a person, see stop), or at the timeout (the VM is
    stopped, timed_out is set).  The serial console and QEMU's standard
    error are kept apart (Result.log, Result.stderr).  With log_path, writes
    the raw serial output there and a timestamped copy beside it.  With
    reboot, a guest reset restarts the firmware instead of ending QEMU.
    bus: virtio (virtio-blk) or ahci (a SATA disk on the q35 chipset's
    AHCI controller, as on a laptop).  binary (default: QEMU_TCG), extra
    (more arguments), env (more environment) and pin (vCPU index -> set of
    host CPUs) are for the TSC rig (tests/lib/rig.py).  readonly: the disk is write-protected
    (the firmware's Block I/O refuses writes, as GRUB's save_env sees on a
    medium it cannot write).  stop_signal: how the VM is stopped."""
    if bus == "ahci":
        dev = ["-device", "ide-hd,drive=esp,bus=ide.0,bootindex=1"]
    else:
        dev = ["-device", "virtio-blk-pci,drive=esp,bootindex=1"]
    cmd = [binary or default_binary(), *FIRMWARE, "-machine", "q35",
           "-accel", "tcg,thread=multi", "-cpu", cpu, "-smp", str(smp),
           "-m", str(memory), "-display", "none", "-vga", "none",
           "-monitor", "none",
           "-serial", "stdio", "-net", "none",
           # Names the vCPU threads "CPU n/TCG", for pin_vcpus.
           "-name", "tsctui,debug-threads=on"] + ([] if reboot else
                                                  ["-no-reboot"]) + [
           "-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
           "-drive", f"if=pflash,format=raw,unit=1,file={vars_path}",
           "-drive", f"file={disk.path},format=raw,if=none,id=esp" +
           (",readonly=on" if readonly else "")] + dev + \
        list(extra)
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE,
                         env=dict(os.environ, **(env or {})))
    if pin:
        why = pin_vcpus(p.pid, pin, smp)
        if why:
            p.kill()
            p.wait()
            raise SystemExit(f"Bail out! {why}")
    log = b""
    err = []
    stamped = []
    pressed = False
    timed_out = False
    out_fd, err_fd = p.stdout.fileno(), p.stderr.fileno()

    def collect(fd, chunk):
        nonlocal log
        if fd == err_fd:
            err.append(chunk)
            return
        log += chunk
        stamped.append(f"[{time.monotonic() - start:7.2f}] ".encode() + chunk)

    open_fds = [out_fd, err_fd]
    while out_fd in open_fds:
        left = timeout - (time.monotonic() - start)
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select(open_fds, [], [], min(left, 1.0))
        if not ready:
            if p.poll() is not None:
                break
            continue
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                collect(fd, chunk)
            else:
                open_fds.remove(fd)
        if not pressed and SHELL_PROMPT in log:
            # Skip the Shell's 5 s countdown before startup.nsh.  A VM
            # that already ended (a reset under -no-reboot) has closed
            # its stdin: nothing left to skip.
            try:
                p.stdin.write(b" ")
                p.stdin.flush()
            except BrokenPipeError:
                pass
            pressed = True
        if until and until in log:
            break
    stop(p, open_fds, collect, stop_signal)
    stderr = b"".join(err)
    if log_path:
        # The raw stream for parsers, and a copy with the time each chunk
        # arrived for people reading a failure; QEMU's own messages beside.
        with open(log_path, "wb") as f:
            f.write(log)
        with open(log_path + ".stamped", "wb") as f:
            f.write(b"".join(stamped))
        with open(log_path + ".stderr", "wb") as f:
            f.write(stderr)
    return Result(log, timed_out, time.monotonic() - start, p.returncode,
                  stderr)

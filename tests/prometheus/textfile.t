#!/usr/bin/env python3
"""tsctui-textfile with the real Debian prometheus-node-exporter: what
`make install` puts down (service, timer, script; nothing enabled; the
units pass `systemd-analyze verify`; the default directory is
node_exporter's own), the service's command run directly (systemd is not
PID 1 here) on fixture roots, node_exporter (as nobody, on a free loopback
port, the textfile collector alone, pointed at a test directory) serving
the file, and a second run replacing it while /metrics is scraped in a
loop: every scrape holds the first file's series or the second's, whole,
never part of one.  A writer that writes in place is caught by the same
loop.  Stopped halfway, or given bad input: exit 2, the file untouched,
nothing left."""
import os
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import prom  # noqa: E402
from tap import Tap  # noqa: E402

from paths import TOP, TSCTUI  # noqa: E402
EXPORTER = "/usr/bin/prometheus-node-exporter"
t = Tap()
# Under /tmp, reachable by anyone: node_exporter runs as nobody, and must
# not depend on the permissions of the directories above the checkout.
WORK = tempfile.mkdtemp(prefix="tsctui-textfile-")
os.chmod(WORK, 0o755)
DEST = os.path.join(WORK, "dest")
TEXTDIR = os.path.join(WORK, "textfile")
os.makedirs(TEXTDIR)
os.chmod(TEXTDIR, 0o755)
FIXTURES = os.path.join(WORK, "fixtures")
UNITS = os.path.join(DEST, "usr/local/lib/systemd/system")
exporter = None


def unit_keys(path):
    """{key: [values]} of a unit file."""
    keys = {}
    for line in open(path):
        m = re.match(r"^([A-Za-z]+)=(.*)$", line.strip())
        if m:
            keys.setdefault(m.group(1), []).append(m.group(2))
    return keys


free_port = prom.free_port
scrape = prom.scrape


def start_exporter():
    """node_exporter as nobody on a free port; (process, port)."""
    nobody = pwd.getpwnam("nobody")
    for _ in range(3):
        port = free_port()
        p = subprocess.Popen(
            ["setpriv", f"--reuid={nobody.pw_uid}",
             f"--regid={nobody.pw_gid}", "--clear-groups", EXPORTER,
             f"--web.listen-address=127.0.0.1:{port}",
             "--web.disable-exporter-metrics", "--collector.disable-defaults",
             "--collector.textfile",
             f"--collector.textfile.directory={TEXTDIR}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and p.poll() is None:
            try:
                scrape(port)
                return p, port
            except OSError:
                time.sleep(0.1)
        p.kill()
        p.wait()
    return None, None


def tsctui_samples(text):
    """The tsctui_ samples of an exposition, parsed."""
    s, _ = prom.parse(text)
    return {k: v for k, v in s.items() if k[0].startswith("tsctui_")}


try:
    # ---- what make install puts down -----------------------------------
    r = subprocess.run(["make", "-s", "-C", TOP, "install",
                        f"DESTDIR={DEST}", "PREFIX=/usr/local"],
                       capture_output=True, text=True)
    service = os.path.join(UNITS, "tsctui-textfile.service")
    timer = os.path.join(UNITS, "tsctui-textfile.timer")
    script = os.path.join(DEST, "usr/local/lib/tsctui/tsctui-textfile")
    t.ok(r.returncode == 0 and os.path.isfile(service) and
         os.path.isfile(timer) and os.access(script, os.X_OK),
         "make install puts down tsctui-textfile.service, its timer and the "
         "script", r.stderr)
    svc, tmr = unit_keys(service), unit_keys(timer)
    enabled = [os.path.join(d, f) for d, _, fs in
               os.walk(os.path.join(DEST, "etc/systemd")) for f in fs]
    t.ok(tmr.get("OnUnitActiveSec") == ["1min"] and
         tmr.get("WantedBy") == ["timers.target"] and not enabled and
         svc.get("Type") == ["oneshot"],
         "the timer runs the service every minute once enabled; make "
         "install enables nothing", (tmr, enabled))
    # systemd-analyze resolves the units' commands and dependencies under
    # the root: the system's own targets, and what make install put down.
    shutil.copytree("/lib/systemd/system", os.path.join(DEST, "lib/systemd/"
                                                        "system"),
                    symlinks=True, dirs_exist_ok=True)
    r = subprocess.run(["systemd-analyze", "verify", "--man=no",
                        f"--root={DEST}", "tsctui-textfile.service",
                        "tsctui-textfile.timer"],
                       capture_output=True, text=True)
    t.ok(r.returncode == 0 and r.stdout + r.stderr == "",
         "systemd-analyze verify: both units, no warning, the command "
         "installed", r.stdout + r.stderr)

    env_dir = [e.split("=", 1)[1] for e in svc.get("Environment", [])
               if e.startswith("TSCTUI_TEXTFILE_DIR=")]
    r = subprocess.run([EXPORTER, "--help"], capture_output=True,
                       text=True)
    default = re.search(r'--collector\.textfile\.directory="([^"]*)"',
                        r.stdout + r.stderr)
    t.ok(env_dir == ["/var/lib/prometheus/node-exporter"] and default and
         default.group(1) == env_dir[0] and
         svc.get("EnvironmentFile") == ["-/etc/default/tsctui-textfile"],
         "the default directory is Debian's node_exporter's own default; "
         "/etc/default/tsctui-textfile may name another",
         (env_dir, default and default.group(1)))

    # The service's command as systemd runs it: ${TSCTUI_TEXTFILE_DIR}
    # expanded (here the operator's own directory), the script's path
    # under DESTDIR, tsctui the one built here; plus fixture roots.
    exec_start = shlex.split(svc["ExecStart"][0])
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C",
           "TSCTUI": TSCTUI}
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
        if k in os.environ:
            env[k] = os.environ[k]

    def command(directory, *opts, prog=None):
        argv = [prog or DEST + exec_start[0]] + [
            a.replace("${TSCTUI_TEXTFILE_DIR}", directory)
            for a in exec_start[1:]]
        return argv + list(opts)

    def fixture(name, log, **kw):
        return ["--root", prom.host(FIXTURES, name, **kw), "--kernel-log",
                os.path.join(prom.LOGS, log)]

    A = fixture("e595", "e595-bios128-warp.dmesg")
    B = fixture("healthy", "healthy-synced.dmesg", current="tsc",
                bios="R11ET38W (1.30 )")
    prom_file = os.path.join(TEXTDIR, "tsctui.prom")

    # ---- the first run, served -----------------------------------------
    r = subprocess.run(command(TEXTDIR, *A), capture_output=True, text=True,
                       env=env)
    first = open(prom_file).read() if os.path.exists(prom_file) else ""
    good, said = prom.promtool_check(first)
    t.ok(r.returncode == 0 and r.stderr == "" and good and
         os.listdir(TEXTDIR) == ["tsctui.prom"] and
         os.stat(prom_file).st_mode & 0o777 == 0o644,
         "the service's command writes tsctui.prom (mode 0644, nothing else "
         "left in the directory); promtool check metrics passes it",
         r.stderr + said + str(os.listdir(TEXTDIR)))
    exporter, port = start_exporter()
    t.ok(exporter is not None, "prometheus-node-exporter serves /metrics on "
         "a free loopback port, as nobody")
    if exporter is None:
        raise SystemExit
    text = scrape(port)
    s1 = tsctui_samples(first)
    got, _ = prom.parse(text)
    t.ok(prom.value(got, "node_textfile_scrape_error") == 0 and s1 and
         tsctui_samples(text) == s1 and
         prom.value(got, "tsctui_clocksource_tsc") == 0 and
         prom.value(got, "tsctui_boot_warp_cycles") == 6601281288 and
         prom.value(got, "node_textfile_mtime_seconds", file=prom_file),
         "a scrape holds every tsctui series of the file (the E595: hpet, "
         "its boot warp), no textfile error, the file's mtime",
         text[:1500])

    # ---- the second run, scraped in a loop -----------------------------
    def replace_while_scraping(argv):
        """Runs argv while scraping; (process, [tsctui samples], errors)."""
        scrapes, errors = [], []
        p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)

        def loop():
            after = 5
            while after:
                if p.poll() is not None:
                    after -= 1
                text = scrape(port)
                s, _ = prom.parse(text)
                if prom.value(s, "node_textfile_scrape_error") != 0:
                    errors.append(text[:600])
                scrapes.append(tsctui_samples(text))
                time.sleep(0.02)

        th = threading.Thread(target=loop)
        th.start()
        p.communicate(timeout=60)
        th.join()
        return p, scrapes, errors

    p, scrapes, errors = replace_while_scraping(command(TEXTDIR, *B))
    second = open(prom_file).read()
    s2 = tsctui_samples(second)
    old = sum(1 for s in scrapes if s == s1)
    new = sum(1 for s in scrapes if s == s2)
    t.ok(p.returncode == 0 and s2 != s1 and
         prom.value(s2, "tsctui_clocksource_tsc") == 1,
         "the second run (a healthy host on tsc) replaced the file",
         p.stderr)
    t.ok(not errors and old + new == len(scrapes) and old >= 10 and new >= 1
         and scrapes[-1] == s2,
         f"{len(scrapes)} scrapes while it ran: each the old file's series "
         f"({old}) or the new file's ({new}), whole; none half-written",
         f"errors {errors[:2]}, other "
         f"{[s for s in scrapes if s not in (s1, s2)][:1]}")

    # ---- the loop can fail: a writer that writes in place --------------
    src = open(script).read()
    bad = src.replace('tmp=$(mktemp "$dir/.tsctui.prom.XXXXXX" 2>/dev/null)',
                      'tmp=$dir/tsctui.prom; : >"$tmp"').replace(
        'mv -f "$tmp" "$dir/tsctui.prom" || exit 2', ':')
    inplace = os.path.join(WORK, "inplace")
    with open(inplace, "w") as f:
        f.write(bad)
    os.chmod(inplace, 0o755)
    p, scrapes, errors = replace_while_scraping(
        command(TEXTDIR, *A, prog=inplace))
    s3 = tsctui_samples(open(prom_file).read())
    partial = [s for s in scrapes if s not in (s2, s3)]
    t.ok(bad != src and p.returncode == 0 and (partial or errors),
         f"a writer that writes in place: {len(partial)} of {len(scrapes)} "
         "scrapes held part of a file (the same loop catches it)",
         p.stderr)
    r = subprocess.run(command(TEXTDIR, *B), capture_output=True, text=True,
                       env=env)
    last = open(prom_file).read()

    # ---- stopped halfway, as systemd stops a unit (SIGTERM to them all) --
    p = subprocess.Popen(command(TEXTDIR, *A), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env,
                         start_new_session=True)
    deadline = time.monotonic() + 10
    while len(os.listdir(TEXTDIR)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    during = sorted(os.listdir(TEXTDIR))
    os.killpg(p.pid, signal.SIGTERM)
    p.communicate(timeout=30)
    t.ok(len(during) == 2 and p.returncode == 2 and
         open(prom_file).read() == last and
         os.listdir(TEXTDIR) == ["tsctui.prom"],
         "stopped while it runs: exit 2, the file as it was, the temporary "
         "one (not *.prom) removed", (during, p.returncode))

    # ---- bad input -------------------------------------------------------
    r = subprocess.run(command(TEXTDIR, "--root", os.path.join(WORK, "nope"),
                               "--kernel-log", A[3]),
                       capture_output=True, text=True, env=env)
    t.ok(r.returncode == 2 and r.stderr.count("\n") == 1 and
         open(prom_file).read() == last and
         os.listdir(TEXTDIR) == ["tsctui.prom"],
         "tsctui refuses the root: exit 2, one line, the file as it was, no "
         "temporary file left", r.stderr + str(os.listdir(TEXTDIR)))
    missing = os.path.join(WORK, "no-such-dir")
    r = subprocess.run(command(missing, *A), capture_output=True, text=True,
                       env=env)
    t.ok(r.returncode == 2 and r.stderr.count("\n") == 1 and
         "not a directory" in r.stderr and not os.path.exists(missing),
         "a directory that does not exist: exit 2, one line, nothing made",
         r.stderr)
    r = subprocess.run([DEST + exec_start[0]], capture_output=True,
                       text=True, env=env)
    t.ok(r.returncode == 2 and r.stderr.startswith("tsctui-textfile: usage")
         and r.stderr.count("\n") == 1,
         "no directory: exit 2, the usage line", r.stderr)

    r = subprocess.run(["make", "-s", "-C", TOP, "uninstall",
                        f"DESTDIR={DEST}", "PREFIX=/usr/local"],
                       capture_output=True, text=True)
    t.ok(r.returncode == 0 and not any(
        os.path.exists(f) for f in (service, timer, script)),
        "make uninstall removes the service, the timer and the script",
        r.stderr)
finally:
    if exporter is not None:
        exporter.terminate()
        try:
            exporter.wait(timeout=10)
        except subprocess.TimeoutExpired:
            exporter.kill()
            exporter.wait()
    shutil.rmtree(WORK, ignore_errors=True)

sys.exit(t.done())

"""Where the test suites find the tree, the build and the program (the
runner exports BUILD_DIR and TSCTUI; run alone, the defaults apply)."""
import os

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD_DIR", os.path.join(TOP, "build"))
TSCTUI = os.environ.get("TSCTUI", os.path.join(TOP, "tui", "tsctui"))


def c_define(header, name):
    """The integer a #define in header (a path under TOP) gives name: the
    tests take a limit from the one copy the code uses."""
    import re
    with open(os.path.join(TOP, header)) as f:
        m = re.search(rf"^#define {name}\s+\(?(-?\d+)[uUlL]*\)?\s*$",
                      f.read(), re.M)
    if not m:
        raise ValueError(f"{header}: no integer #define {name}")
    return int(m.group(1))


def nobody_place(binary=None):
    """A directory anyone can reach (under /tmp, mode 0755), holding a copy
    of tsctui: a test that runs it as nobody must not depend on the
    permissions of the directories above the checkout.  Returns (dir, the
    copy)."""
    import shutil
    import tempfile
    d = tempfile.mkdtemp(prefix="tsctui-nobody-")
    os.chmod(d, 0o755)
    exe = os.path.join(d, "tsctui")
    shutil.copy2(binary or TSCTUI, exe)
    os.chmod(exe, 0o755)
    return d, exe

#!/usr/bin/env python3
"""The report variable's firmware-visible name, pinned by a literal.

Every other suite takes the variable's name and vendor GUID from
common/report_var.h (tests/lib/reportvar.py), so a change there would pass
them all while stages already installed, tsctui versions already
installed, and users' scripts reading
/sys/firmware/efi/efivars/TsctuiReport-<GUID> stop finding each other's
report.  This suite spells it out once: the header, tsctui reading the
variable, and the release stage image writing it must all agree with it."""
import os
import subprocess
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import fixtures as fx  # noqa: E402
import prom  # noqa: E402
import reportvar  # noqa: E402
from paths import BUILD, TOP, TSCTUI  # noqa: E402
from tap import Tap  # noqa: E402

# The name the firmware shows; changing it breaks every installed pair.
NAME = "TsctuiReport"
GUID = "503ecfa9-0287-4bb9-a4e1-41751a6d7c4c"

t = Tap(plan=3)
t.ok((reportvar.NAME, reportvar.GUID) == (NAME, GUID),
     f"common/report_var.h spells the variable {NAME}-{GUID}",
     (reportvar.NAME, reportvar.GUID))

root = os.path.join(BUILD, "report-var")
fx.base(root)
fx.efivar(root, NAME, GUID, prom.report("in-sync").encode(), attrs=0x6)
r = subprocess.run([TSCTUI, "--root", root, "report", "--json"],
                   capture_output=True, text=True)
t.ok(r.returncode == 0 and '"result":"in-sync"' in r.stdout.replace(" ", ""),
     f"tsctui reads this boot's report from efivars/{NAME}-{GUID}",
     f"rc {r.returncode}: {r.stderr.strip()} {r.stdout[:200]}")

# The stage sets the variable by its name (UTF-16) and its EFI_GUID, whose
# first three fields are little-endian: uuid's bytes_le.
with open(os.path.join(TOP, "efi", "tsctui.efi"), "rb") as f:
    image = f.read()
t.ok(NAME.encode("utf-16-le") + b"\0\0" in image and
     uuid.UUID(GUID).bytes_le in image,
     "the release stage (efi/tsctui.efi) carries the name in UTF-16 and the "
     "GUID as an EFI_GUID")

sys.exit(t.done())

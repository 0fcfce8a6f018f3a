"""Where the stage leaves its report: the EFI variable's name and vendor
GUID, and the console lines around its copy, read from the one header
that spells them for the stage and tsctui (common/report_var.h)."""
import os
import re

_HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "common", "report_var.h")


def _read():
    with open(_HEADER) as f:
        text = f.read()
    strings = dict(re.findall(r'#define (TSC_RE\w+) "([^"]*)"', text))
    parts = re.search(r"TSC_REPORT_VAR_GUID\(X\)\s*\\\s*X\(([^)]*)\)", text)
    if not parts or "TSC_REPORT_VAR_NAME" not in strings:
        raise ValueError(f"{_HEADER}: no variable name or GUID parts")
    p = [x.strip() for x in parts.group(1).split(",")]
    guid = "-".join([p[0], p[1], p[2], "".join(p[3:5]), "".join(p[5:])])
    return (strings["TSC_REPORT_VAR_NAME"], guid,
            strings["TSC_REPORT_BEGIN"], strings["TSC_REPORT_END"],
            strings["TSC_RESUME_VAR_NAME"])


# RESUME_NAME: the stage's resume-guard variable, under the same GUID.
NAME, GUID, BEGIN, END, RESUME_NAME = _read()

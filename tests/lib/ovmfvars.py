"""Reads an OVMF variable store file (the VARS copy a VM boots with): the
firmware volume header, the authenticated variable store header, then
variable records (REFERENCE.md: 0x55AA, State, Attributes, MonotonicCount,
TimeStamp, PubKeyIndex, NameSize, DataSize, VendorGuid; then name, data;
records 4-byte aligned).  A record is live when its State is 0x3F."""
import struct
import uuid

from reportvar import GUID as REPORT_GUID  # noqa: F401 (tests use it here)

GLOBAL = "8be4df61-93ca-11d2-aa0d-00e098032b8c"
MTC_GUID = "eb704011-1402-11d3-8e77-00a0c969723b"
# OVMF rewrites these on every boot (REFERENCE.md).
OVMF_OWN = {(GLOBAL, "ConIn"), (GLOBAL, "ConOut"), (GLOBAL, "ErrOut"),
            (MTC_GUID, "MTC")}
VAR_ADDED = 0x3F
NON_VOLATILE = 0x1
HEADER = struct.Struct("<HBBIQ16sIII16s")  # 60 bytes


def parse(path):
    """Returns {(guid, name): (attributes, data)} for the live variables."""
    with open(path, "rb") as f:
        buf = f.read()
    if buf[40:44] != b"_FVH":
        raise ValueError(f"{path}: no firmware volume header")
    fv_header_len = struct.unpack_from("<H", buf, 48)[0]
    store = fv_header_len
    size = struct.unpack_from("<I", buf, store + 16)[0]
    end = store + size
    off = store + 28
    out = {}
    while off + HEADER.size <= end:
        (start, state, _r, attrs, _mc, _ts, _pk, name_size, data_size,
         guid) = HEADER.unpack_from(buf, off)
        if start != 0x55AA:
            break
        name_off = off + HEADER.size
        data_off = name_off + name_size
        if data_off + data_size > end:
            raise ValueError(f"{path}: record at {off:#x} runs past the store")
        if state == VAR_ADDED:
            name = buf[name_off:data_off].decode("utf-16-le").rstrip("\0")
            key = (str(uuid.UUID(bytes_le=guid)), name)
            out[key] = (attrs, buf[data_off:data_off + data_size])
        off = (data_off + data_size + 3) & ~3
    return out


def changes(before, after):
    """Names added, removed or changed between two parses."""
    added = sorted(k for k in after if k not in before)
    removed = sorted(k for k in before if k not in after)
    changed = sorted(k for k in after if k in before and after[k] != before[k])
    return added, removed, changed


def unexpected(before, after, own=OVMF_OWN):
    """Variables added, removed or changed that are not in `own`."""
    added, removed, changed = changes(before, after)
    return [k for k in added + removed + changed if k not in own]

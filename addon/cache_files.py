"""Cache files: one compact, versioned binary file per simulated frame (cage node x and v of every body, and the
solver's motion: the last steps' accelerations its next step extrapolates, core.World.motion)."""
import os
import re
import struct

import numpy as np

MAGIC = b"SOFTFEMC"
VERSION = 2            # 2: each body's motion after its x and v; version 1 files (without) are read too
SUFFIX = ".sfc"
_HEADER = struct.Struct("<8sIi32sI")   # magic, version, frame, signature (32 ascii), body count
_BODY = {1: struct.Struct("<HI"),      # name length, node count
         2: struct.Struct("<HIB")}     # name length, node count, whether its motion (a, p) follows x and v


class CacheFileError(ValueError):
    """A cache file that is truncated, foreign or from another version (ignored with a warning)."""


def safe_name(name):
    """A file-name-safe form of a name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "scene"


def frame_path(directory, prefix, frame):
    """Path of one frame's cache file: <prefix>_<frame>.sfc, the frame as six digits after a minus if negative."""
    sign = "-" if frame < 0 else ""
    return os.path.join(directory, f"{safe_name(prefix)}_{sign}{abs(frame):06d}{SUFFIX}")


def list_frames(directory, prefix):
    """{frame: path} of the files named like cache files with this prefix in `directory` (also the
    `_-00005.sfc` names of negative frames that earlier versions wrote, so Free Bake removes them)."""
    pattern = re.compile(re.escape(safe_name(prefix)) + r"_(-?\d{5,})" + re.escape(SUFFIX) + "$")
    try:
        names = os.listdir(directory)
    except OSError:
        return {}
    found = {}
    for name in names:
        m = pattern.match(name)
        if m:
            found[int(m.group(1))] = os.path.join(directory, name)
    return found


def write_frame(path, frame, signature, bodies):
    """Write bodies [(name, x (N,3), v (N,3), motion: None or (a, p), two (N,3))] atomically (temp file then
    rename)."""
    parts = [_HEADER.pack(MAGIC, VERSION, frame, signature.encode("ascii")[:32].ljust(32), len(bodies))]
    for name, x, v, motion in bodies:
        encoded = name.encode("utf-8")
        parts.append(_BODY[VERSION].pack(len(encoded), len(x), motion is not None))
        parts.append(encoded)
        for array in (x, v) + (() if motion is None else tuple(motion)):
            parts.append(np.ascontiguousarray(array, "<f8").tobytes())
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(b"".join(parts))
    os.replace(tmp, path)


def is_cache_file(path):
    """True if the file starts with SoftFEM's cache magic (whatever its version)."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def read_frame(path):
    """(frame, signature, [(name, x, v, motion)]) from a cache file (motion: None or (a, p)); CacheFileError if
    truncated/foreign/other version."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise CacheFileError(f"cannot read {os.path.basename(path)}: {exc.strerror}") from None
    base = os.path.basename(path)
    if len(data) < _HEADER.size or data[:len(MAGIC)] != MAGIC:
        raise CacheFileError(f"{base} is not a SoftFEM cache file")
    magic, version, frame, signature, count = _HEADER.unpack_from(data, 0)
    if version not in _BODY:
        raise CacheFileError(f"{base} is from cache format version {version} (this SoftFEM reads "
                             f"{', '.join(str(k) for k in _BODY)})")
    record = _BODY[version]
    offset = _HEADER.size
    bodies = []
    for _ in range(count):
        if offset + record.size > len(data):
            raise CacheFileError(f"{base} is truncated")
        name_len, n, *flags = record.unpack_from(data, offset)
        offset += record.size
        arrays = 4 if flags and flags[0] else 2
        end = offset + name_len + 24 * arrays * n
        if end > len(data):
            raise CacheFileError(f"{base} is truncated")
        name = data[offset:offset + name_len].decode("utf-8", "replace")
        offset += name_len
        a = np.frombuffer(data, "<f8", 3 * arrays * n, offset).reshape(arrays, n, 3).copy()
        bodies.append((name, a[0], a[1], (a[2], a[3]) if arrays == 4 else None))
        offset = end
    if offset != len(data):
        raise CacheFileError(f"{base} has trailing data")
    return frame, signature.decode("ascii", "replace").strip(), bodies

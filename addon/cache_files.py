"""Cache files: one compact, versioned binary file per simulated frame (cage node x and v of every body, the solver's
motion: the last steps' accelerations its next step extrapolates, core.World.motion, and the rest of what the next step
reads, core.World.carried())."""
import os
import re
import struct

import numpy as np

MAGIC = b"SOFTFEMC"
VERSION = 3            # 2: each body's motion after its x and v; 3: the World's carried arrays after the bodies.
                       # Version 1 and 2 files (without) are read too: their frames carry nothing
SUFFIX = ".sfc"
_HEADER = struct.Struct("<8sIi32sI")   # magic, version, frame, signature (32 ascii), body count
_BODY = {1: struct.Struct("<HI"),      # name length, node count
         2: struct.Struct("<HIB"),     # name length, node count, whether its motion (a, p) follows x and v
         3: struct.Struct("<HIB")}
_COUNT = struct.Struct("<I")           # how many carried arrays follow the bodies (version 3)
_ARRAY = struct.Struct("<H4sB")        # name length, dtype ('<f8', '<i8', '|i1', '|b1'), dimensions; then the name,
                                       # the shape (one <Q each) and the data
_DTYPES = ("<f8", "<i8", "|i1", "|b1")


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


def write_frame(path, frame, signature, bodies, carried=None):
    """Write bodies [(name, x (N,3), v (N,3), motion: None or (a, p), two (N,3))] and `carried` ({name: array} of
    float64, int64, int8 or bool, or None) atomically (temp file then rename)."""
    parts = [_HEADER.pack(MAGIC, VERSION, frame, signature.encode("ascii")[:32].ljust(32), len(bodies))]
    for name, x, v, motion in bodies:
        encoded = name.encode("utf-8")
        parts.append(_BODY[VERSION].pack(len(encoded), len(x), motion is not None))
        parts.append(encoded)
        for array in (x, v) + (() if motion is None else tuple(motion)):
            parts.append(np.ascontiguousarray(array, "<f8").tobytes())
    carried = {} if carried is None else carried
    parts.append(_COUNT.pack(len(carried)))
    for name, array in carried.items():
        a = np.asarray(array)
        dtype = a.dtype.newbyteorder("<").str if a.dtype.kind != "b" else "|b1"
        if dtype not in _DTYPES:
            raise ValueError(f"carried '{name}' has dtype {a.dtype}, which cache files do not hold")
        encoded = name.encode("utf-8")
        parts.append(_ARRAY.pack(len(encoded), dtype.encode("ascii"), a.ndim) + encoded)
        parts.append(struct.pack(f"<{a.ndim}Q", *a.shape) + np.ascontiguousarray(a, dtype).tobytes())
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
    """(frame, signature, [(name, x, v, motion)], carried) from a cache file (motion: None or (a, p); carried: {name:
    array}, None in a file of a version before 3); CacheFileError if truncated/foreign/other version."""
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
    carried = _read_carried(data, offset, base) if version >= 3 else (None, offset)
    if carried[1] != len(data):
        raise CacheFileError(f"{base} has trailing data")
    return frame, signature.decode("ascii", "replace").strip(), bodies, carried[0]


def _read_carried(data, offset, base):
    """({name: array}, the offset after them) of the carried arrays at `offset`; CacheFileError if truncated or
    foreign."""
    if offset + _COUNT.size > len(data):
        raise CacheFileError(f"{base} is truncated")
    count, = _COUNT.unpack_from(data, offset)
    offset += _COUNT.size
    carried = {}
    for _ in range(count):
        if offset + _ARRAY.size > len(data):
            raise CacheFileError(f"{base} is truncated")
        name_len, dtype, ndim = _ARRAY.unpack_from(data, offset)
        offset += _ARRAY.size
        dtype = dtype.rstrip(b"\0").decode("ascii", "replace")
        if dtype not in _DTYPES:
            raise CacheFileError(f"{base} holds an array of unknown type {dtype!r}")
        if offset + name_len + 8 * ndim > len(data):
            raise CacheFileError(f"{base} is truncated")
        name = data[offset:offset + name_len].decode("utf-8", "replace")
        offset += name_len
        shape = struct.unpack_from(f"<{ndim}Q", data, offset)
        offset += 8 * ndim
        size = int(np.prod(shape, dtype=np.int64))
        end = offset + size * np.dtype(dtype).itemsize
        if end > len(data):
            raise CacheFileError(f"{base} is truncated")
        carried[name] = np.frombuffer(data, dtype, size, offset).reshape(shape).astype(np.dtype(dtype).newbyteorder("="))
        offset = end
    return carried, offset

"""The prebuilt kernel cache a package ships: numba's kernels compiled by the build for one platform and a generic
CPU, described by a marker file, and copied into the user's cache folder on first use so nothing is compiled."""
import json
import os
import shutil
import uuid

import numba

from .warmup import cold

MARKER = "prebuilt.json"


def magic():
    """What numba's cache index keys a kernel by, besides its signature and bytecode: target triple, CPU name and
    CPU features of this process (a prebuilt kernel loads only where these are equal)."""
    from numba.core.registry import cpu_target
    return [str(part) for part in cpu_target.target_context.codegen().magic_tuple()]


def describe():
    """The marker of the cache this process compiles into (numba.config.CACHE_DIR)."""
    return {"folder": os.path.basename(os.path.normpath(numba.config.CACHE_DIR)), "package": __package__,
            "numba": numba.__version__,
            "cpu_name": numba.config.CPU_NAME, "magic": magic()}


def write(destination):
    """Lay out a prebuilt cache in `destination`: the kernels this process's core compiled into numba's cache
    folder, and the marker describing them."""
    source = numba.config.CACHE_DIR
    shutil.copytree(source, os.path.join(destination, os.path.basename(os.path.normpath(source))))
    with open(os.path.join(destination, MARKER), "w", encoding="utf-8") as fh:
        json.dump(describe(), fh, indent=1)


def read_marker(folder):
    """The marker of the prebuilt cache in `folder`, or None if there is none (or it cannot be read)."""
    try:
        with open(os.path.join(folder, MARKER), encoding="utf-8") as fh:
            marker = json.load(fh)
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def install(folder):
    """Copy the prebuilt kernels in `folder` into numba's cache folder when they are this core's and load in this
    process (same numba, triple, CPU name and features) and that folder holds no kernel yet; True if copied.
    Each file is copied beside its place and renamed into it, the indexes last, so an interrupted copy leaves
    only kernels numba can load or will compile again (an index never names a missing file)."""
    marker = read_marker(folder)
    target = numba.config.CACHE_DIR
    if (marker is None or not target or not cold() or marker.get("numba") != numba.__version__
            or marker.get("folder") != os.path.basename(os.path.normpath(target)) or marker.get("magic") != magic()):
        return False
    source = os.path.join(folder, marker["folder"])
    files = sorted((name.endswith(".nbi"), os.path.relpath(os.path.join(root, name), source))
                   for root, _dirs, names in os.walk(source) for name in names)
    if not files:
        return False
    for _index, relative in files:
        destination = os.path.join(target, relative)
        partial = f"{destination}.partial-{uuid.uuid4().hex[:8]}"
        try:
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            shutil.copyfile(os.path.join(source, relative), partial)
            os.replace(partial, destination)
        except OSError:   # a full disk, say: what is missing compiles on first use
            if os.path.exists(partial):
                os.remove(partial)
            return False
    return True

"""Hashes of mesh data the cache signature depends on, kept until a depsgraph update edits the object.

The panel's draw() asks for the cache signature on every redraw: hashing every body and collider mesh each
time would cost a CRC over all their vertices per redraw. Blender also has no bulk read of deform weights
(walking 35k vertices takes ~50 ms). So each hash is computed once and dropped when a user's edit (a
depsgraph update of the object's geometry) may have changed it; a frame change re-hashes the meshes (not the
weights), as before."""
import zlib

from . import bridge

_HASHES = {}   # (object name, what) -> hash
_LAST = {}     # mesh name -> its last fingerprint, for while it is in Edit Mode


def _cached(obj, what, compute, fresh=False):
    key = (obj.name, what)
    value = None if fresh else _HASHES.get(key)
    if value is None:
        value = _HASHES[key] = compute()
    return value


def fingerprint(obj, fresh=False):
    """bridge.fingerprint of the object's rest mesh (counts and a CRC of the basis positions); `fresh` hashes it
    again (a cheap CRC) and keeps the new value. A mesh in Edit Mode keeps its last one: its data holds no positions
    until the user leaves Edit Mode (hashing it raised, which stopped every body of the scene), and its edits are
    not in it before."""
    if obj.data.is_editmode:
        return _LAST.get(obj.data.name, "edit mode")
    value = _LAST[obj.data.name] = _cached(obj, ("mesh", obj.data.name), lambda: bridge.fingerprint(obj.data), fresh)
    return value


def unchanged(obj):
    """Whether the object's mesh hashes as its kept fingerprint does (False when none is kept)."""
    kept = _HASHES.get((obj.name, ("mesh", obj.data.name)))
    return kept is not None and not obj.data.is_editmode and kept == bridge.fingerprint(obj.data)


def group_hash(obj, name):
    """Hash of the weights of vertex group `name` ('' for no group, 'missing' if the object has none such)."""
    if not name:
        return ""
    if obj.vertex_groups.get(name) is None:
        return "missing"
    return _cached(obj, ("group", name), lambda: "%08x" % zlib.crc32(bridge.group_weights(obj, name).tobytes()))


def forget(object_names=None):
    """Drop the hashes of these objects (all of them for None)."""
    if object_names is None:
        _HASHES.clear()
        _LAST.clear()
        return
    for key in [k for k in _HASHES if k[0] in object_names]:
        del _HASHES[key]


def any_cached():
    """Whether some hash is kept (then the frame handler's own depsgraph updates must not look like edits)."""
    return bool(_HASHES)

"""The frame cache of a scene's simulation: each frame's state in memory and in files, found, validated, moved and
deleted."""
import os

from . import cache_files
from .scene_settings import UNSAVED


class FrameCache:
    """Cached frames: states in memory (`frames`: frame -> [(x, v, motion)] per body), what else the World carried to
    the next step (`carry`: frame -> core.World.carried() or None), their files (`disk`: frame -> path), the files this
    session wrote (`written`), and where files go (`directory`, `prefix`). `warn` reports a bad file or folder in one
    line."""

    def __init__(self, warn):
        self.warn = warn
        self.frames, self.carry, self.disk, self.written = {}, {}, {}, set()
        self.directory = self.prefix = None

    def cached(self):
        """Sorted frames available from memory or disk."""
        return sorted(set(self.frames) | set(self.disk))

    def last(self):
        """The last cached frame, or None."""
        frames = self.cached()
        return frames[-1] if frames else None

    def open(self, location):
        """Forget the frames in memory and list the files at `location` ((directory, prefix)); returns whether any
        frame was cached before."""
        had_cache = bool(self.frames or self.disk)
        self.frames, self.carry = {}, {}
        self.directory, self.prefix = location
        self.disk = cache_files.list_frames(self.directory, self.prefix)
        return had_cache

    def file_signature(self, frame):
        """The signature the frame's file was written with; None without a file or when it cannot be read."""
        path = self.disk.get(frame)
        if not path:
            return None
        try:
            return cache_files.read_frame(path)[1]
        except cache_files.CacheFileError as exc:
            self.warn(f"{exc}; ignored")
            return None

    def state(self, frame, bodies):
        """Cached [(x, v, motion)] of a frame for `bodies` (the runtime bodies, in order), from memory or a file
        that holds exactly those bodies and cages; None if unavailable (a bad file is warned about and dropped)."""
        state = self.frames.get(frame)
        if state is not None:
            return state
        path = self.disk.get(frame)
        if path is None:
            return None
        try:
            file_frame, _sig, stored, carried = cache_files.read_frame(path)
            if file_frame != frame:
                raise cache_files.CacheFileError(f"{os.path.basename(path)} holds frame {file_frame}")
            if [b[0] for b in stored] != [b.key for b in bodies]:
                raise cache_files.CacheFileError(   # (one message for all such files: one line, not one a frame)
                    f"the cached frames are of other soft bodies than the scene's {[b.name for b in bodies]} "
                    "(one deleted, or added again?)")
            for body, (_n, x, *_) in zip(bodies, stored):
                if len(x) != body.tm.num_nodes:
                    raise cache_files.CacheFileError(
                        f"{os.path.basename(path)}: '{body.name}' has {len(x)} nodes, its cage {body.tm.num_nodes}")
        except cache_files.CacheFileError as exc:
            self.warn(f"{exc}; ignored, the frame is simulated again")
            del self.disk[frame]
            return None
        state = [(x, v, motion) for _n, x, v, motion in stored]
        self.frames[frame] = state
        self.carry[frame] = carried or None
        return state

    def carried(self, frame, bodies):
        """What the World carried on from a cached frame (core.World.carried()), None if nothing (the start frame, a
        file written before it was cached) or the frame is not cached."""
        if self.state(frame, bodies) is None:
            return None
        return self.carry.get(frame)

    def store(self, frame, signature, bodies, state, carried=None):
        """Keep a frame's state (and what the World carried on from it, or None) in memory and write its file (in
        memory only, warned, if the folder is not writable)."""
        self.frames[frame] = state
        self.carry[frame] = carried
        path = cache_files.frame_path(self.directory, self.prefix, frame)
        try:
            os.makedirs(self.directory, exist_ok=True)
            cache_files.write_frame(path, frame, signature, [(b.key, *s) for b, s in zip(bodies, state)], carried)
        except OSError as exc:
            self.warn(f"cache folder '{self.directory}' is not writable ({exc.strerror}): frames kept in memory only")
            return
        self.written.add(path)
        self.disk[frame] = path

    def delete_files(self, location):
        """Delete the cache files (ours by name and magic) at `location` ((directory, prefix)) and forget every cached
        frame; return how many files were deleted."""
        paths = set(cache_files.list_frames(*location).values())
        removed = 0
        for path in paths:
            if path in self.written or cache_files.is_cache_file(path):
                os.remove(path)
                removed += 1
        self.written -= paths
        self.disk.clear()
        self.frames.clear()
        self.carry.clear()
        return removed

    def relocate(self, location, signature, bodies):
        """The cached frames follow to `location` ((directory, prefix)); the files of an unsaved file's cache
        move, a saved file's stay where they are (they belong to that file)."""
        if self.directory is None or location == (self.directory, self.prefix):
            return
        states = {f: self.state(f, bodies) for f in self.cached()}
        carry = {f: self.carry.get(f) for f in states}
        old = (self.directory, self.prefix)
        self.directory, self.prefix = location
        self.disk = {}
        for frame, state in states.items():
            if state is not None:
                self.store(frame, signature, bodies, state, carry[frame])
        if old[1].startswith(UNSAVED + "_"):
            for path in cache_files.list_frames(*old).values():
                if path in self.written:
                    os.remove(path)
                    self.written.discard(path)

"""Timing a benchmark's parts by wrapping functions in place: each part's exclusive time, per named phase."""
import collections
import functools
import time


class Timers:
    """Seconds per named part (`seconds`, cleared by the caller), by wrapping functions in place. A part's time
    excludes the timed parts it calls; parts timed inside a solver phase (e.g. detection, the implicit solve) are
    labelled with it."""

    def __init__(self):
        self.seconds = collections.defaultdict(float)
        self.stack = []
        self.phase = None

    def wrap(self, owner, name, label, phase=None):
        """Replace owner.name by a timed copy adding its exclusive time to `label` (prefixed by the current
        phase when label starts with ':'); `phase`, a callable, names the phase the call opens."""
        real = getattr(owner, name)

        @functools.wraps(real)
        def timed(*args, **kwargs):
            outer = self.phase
            if phase is not None:
                self.phase = phase()
            key = f"solver {self.phase}{label}" if label.startswith(":") else label
            t0 = time.perf_counter()
            self.stack.append(0.0)
            try:
                return real(*args, **kwargs)
            finally:
                self.phase = outer
                inner = self.stack.pop()
                spent = time.perf_counter() - t0
                self.seconds[key] += spent - inner
                if self.stack:
                    self.stack[-1] += spent
        setattr(owner, name, timed)

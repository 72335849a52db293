"""How many threads a world's kernels run on: the element kernels' count chosen by measurement, the solver's fixed."""
import contextlib

import numba

from .blas_threads import one_blas_thread

# The element kernels (rotations, forces, assembly) may run on a thread per this many tets, all at most. They write
# per tet or per node in an order no thread count changes, so the motion is the same bit for bit on any count
# (tests/core/test_thread_count.py) and the count may follow the machine: on 2 idle cores the 5.9k-tet icosphere drop
# took 0.69-0.79x the time a frame on 2 threads through the add-on; with the other core busy (another process),
# 2-3x the time of 1 thread, the kernels waiting at each barrier for the thread the system had set aside.
TETS_PER_THREAD = 2500
# One step in this many runs on the count not in use, to notice when the machine's load changes.
EXPLORE_EVERY = 16
# Each count's time is the median of its last this many steps (one step the system delayed does not decide), not
# counting its first step (the first parallel launch starts the thread pool: 18.6 ms against ~0.5).
SAMPLES = 3


class ElementThreads:
    """A world's element-kernel thread count: 1 or up to a thread per TETS_PER_THREAD tets, whichever ran the
    rotations (the step's largest parallel kernel, a fixed amount of work a step) faster lately."""

    def __init__(self, num_tets):
        most = max(1, min(num_tets // TETS_PER_THREAD, numba.config.NUMBA_NUM_THREADS))
        self.counts = (most, 1) if most > 1 else (1,)
        self.samples = {c: [] for c in self.counts}
        self.warm = set()
        self.best = most
        self.steps = 0

    def next(self):
        """The thread count for the next step: the faster one, the other now and then (and each, until measured)."""
        self.steps += 1
        if len(self.counts) == 1:
            return self.best
        short = [c for c in self.counts if len(self.samples[c]) < SAMPLES]
        if short:
            return min(short, key=lambda c: len(self.samples[c]))
        if self.steps % EXPLORE_EVERY == 0:
            return next(c for c in self.counts if c != self.best)
        return self.best

    def record(self, count, seconds):
        """A step on `count` threads spent `seconds` in its rotations."""
        if count not in self.warm:
            self.warm.add(count)
            return
        samples = self.samples[count]
        samples.append(seconds)
        del samples[:-SAMPLES]
        if all(self.samples.values()):   # (the middle sample by sorting: np.median costs ~15 us a step)
            self.best = min(self.counts, key=lambda c: sorted(self.samples[c])[len(self.samples[c]) // 2])


@contextlib.contextmanager
def running_on(count):
    """Run the enclosed kernels on `count` threads and OpenBLAS on one (core.blas_threads) (then restore)."""
    before = numba.get_num_threads()
    numba.set_num_threads(count)
    try:
        with one_blas_thread():
            yield
    finally:
        numba.set_num_threads(before)


# Below this many tets the CG's iterations and the contact stage run on one thread, above it on all: they launch many
# short parallel loops a step (three a CG iteration), on one thread the CG's product reads half the matrix
# (core.fem.block_sparse.upper_product), and their sums depend on the thread count, which is therefore fixed here,
# never the element kernels' measured one. The icosphere drop (the add-on's defaults but finer cages) took 0.65-0.69x
# the time at 13k and 25k tets with them on one thread, the same at 65k (benchmarks/RESULTS.md, FEM step).
PARALLEL_MIN_SOLVE_TETS = 50000


@contextlib.contextmanager
def solver_threads(num_tets):
    """Run the enclosed CG or contact kernels on one thread below PARALLEL_MIN_SOLVE_TETS, else on all (then
    restore)."""
    before = numba.get_num_threads()
    numba.set_num_threads(1 if num_tets < PARALLEL_MIN_SOLVE_TETS else numba.config.NUMBA_NUM_THREADS)
    try:
        yield
    finally:
        numba.set_num_threads(before)

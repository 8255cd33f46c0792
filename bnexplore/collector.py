"""Python's cyclic garbage collector during the long searches on wide data.

The collector's oldest generation is scanned whole every time enough objects
have survived two younger collections. In a process that has loaded
bnexplore's compiled kernels that generation holds numba's dispatchers,
types and the modules (about 150,000 objects), and the parent-set explorer
on wide data creates and keeps enough small containers to trigger such a
scan about twice a second.

:func:`old_objects_skipped` freezes what is alive when a search starts
(``gc.freeze``: those objects move to a permanent generation the collector
does not scan) and unfreezes it when the search ends. Everything the search
creates is collected as usual, and the frozen objects that become garbage
meanwhile are collected after the thaw. The parent-set explorer and the
ordering search (its seed, pool and climbs, and the result's build) run under
it. Measured with the explorer under it, on the 10,000-variable learner
(``benchmarks/bench_wide_synthetic.py``'s network, 120 s, the code before and
after side by side, one core each, GC callbacks timed): time in the
collector 13.7 -> 5.4 s, in full scans 9.0 -> 0.7 s; parent sets scored in
the explorer's 60 s 3.04 -> 3.64 million; peak memory 371 -> 331 MiB.

The freeze is process-wide: nested and concurrent searches (two app users)
share one, counted, and the last to end thaws it; objects someone else froze
before are left frozen.
"""

import contextlib
import gc
import threading

_lock = threading.Lock()
_depth = 0
_thaw = False  # whether the freeze is this module's (nothing was frozen when the first search began)


@contextlib.contextmanager
def old_objects_skipped():
    """Keep the collector's full scans off the objects alive now while the block runs.

    Examples
    --------
    >>> import gc
    >>> with old_objects_skipped():
    ...     gc.get_freeze_count() > 0
    True
    >>> gc.get_freeze_count()
    0
    """
    global _depth, _thaw
    with _lock:
        if _depth == 0:
            _thaw = gc.get_freeze_count() == 0
            if _thaw:
                gc.freeze()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _thaw:
                gc.unfreeze()

"""The time numba spends compiling kernels, kept apart from the searches' own time.

numba compiles a kernel on its first call when its disk cache (``cache=True``)
does not hold it yet: on a fresh install, seconds per kernel. The app compiles
every kernel before its first search (:mod:`bnexplore.warmup`); the command
line and the Python API compile on first use. :func:`search_clock` stands
still while numba compiles, and the searches' time limits and seconds run on
it (:class:`bnexplore.control.Control`, :class:`bnexplore.search.run.SearchRun` and every
computation that records its own seconds; only the warm-up reads the wall clock),
so a time limit is the search's own: before, on a cold cache, ``bnexplore learn
alarm.csv --algorithm hc --time-limit 5`` spent its budget compiling and returned
the empty graph after 11.6 s.

It listens to numba's event API (:mod:`numba.core.event`): the
``"numba:compile"`` event is broadcast around each compile, never around a
load from the cache. Compiles are serialised by numba's compiler lock, so
one count serves every thread.
"""

import contextlib
import time

from numba.core import event


class _Compiling(event.Listener):
    """Sums the seconds of the outermost compiles (a kernel's compile compiles the kernels it calls)."""

    def __init__(self):
        self.seconds = 0.0
        self.depth = 0
        self.began = 0.0
        self.watchers = []

    def on_start(self, ev):
        if self.depth == 0:
            self.began = time.perf_counter()
            for watcher in list(self.watchers):
                watcher(ev.data["dispatcher"].py_func.__name__)
        self.depth += 1

    def on_end(self, ev):
        self.depth -= 1
        if self.depth == 0:
            self.seconds += time.perf_counter() - self.began

    def total(self):
        now = time.perf_counter()
        return self.seconds + (now - self.began if self.depth else 0.0)


_LISTENER = _Compiling()
event.register("numba:compile", _LISTENER)


def compile_seconds():
    """Seconds this process has spent compiling numba kernels so far (a compile under way counted too).

    Examples
    --------
    >>> compile_seconds() >= 0.0
    True
    """
    return _LISTENER.total()


def search_clock():
    """:func:`time.perf_counter` less :func:`compile_seconds`: a clock that stands still while numba compiles.

    Examples
    --------
    >>> start = search_clock()
    >>> search_clock() >= start
    True
    """
    return time.perf_counter() - _LISTENER.total()


@contextlib.contextmanager
def watching(callback):
    """Within the block, call ``callback(kernel name)`` when numba starts compiling a kernel (not its callees).

    The command line says so through it: a compile is a wait the user should know is not the search.

    Examples
    --------
    >>> seen = []
    >>> with watching(seen.append):
    ...     pass
    >>> seen
    []
    """
    _LISTENER.watchers.append(callback)
    try:
        yield
    finally:
        _LISTENER.watchers.remove(callback)

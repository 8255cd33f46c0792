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

Every kernel is declared with this module's :data:`njit`, so that numba's
CPU target is set up before any kernel compiles or loads, and without SciPy's
linear algebra (:func:`_load_cpu_target`): numba's array functions import
``scipy.linalg`` once, only to learn whether ``np.convolve`` may call BLAS,
which no kernel here does; that import held 15-22 MiB of every process (the
app, a command, each Dask worker) and 0.1-0.4 s of its first kernel.
"""

import contextlib
import importlib
import importlib.abc
import sys
import threading
import time

import numba
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


class _NoLinearAlgebra(importlib.abc.MetaPathFinder):
    """Refuses ``scipy.linalg`` and its submodules to one thread (an import hook, see :mod:`importlib.abc`)."""

    def __init__(self):
        self.thread = threading.get_ident()

    def find_spec(self, name, path=None, target=None):
        if (name == "scipy.linalg" or name.startswith("scipy.linalg.")) and threading.get_ident() == self.thread:
            raise ModuleNotFoundError(f"{name} is not loaded while numba sets up its CPU target", name=name)
        return None


def _load_cpu_target():
    """Import numba's array functions while this thread cannot import ``scipy.linalg``.

    numba's :mod:`numba.np.arraymath` asks at import whether
    ``scipy.linalg.cython_blas`` loads, and uses the answer only to choose
    BLAS for ``np.convolve`` and ``np.correlate`` in compiled code (a plain
    loop otherwise). Everything else that needs BLAS in numba (``np.dot``,
    ``np.linalg``) imports it when such a kernel compiles, so nothing is lost:
    SciPy stays importable by every other thread, and by this one afterwards.
    A process that has loaded ``scipy.linalg`` or numba's array functions
    already is left as it is.
    """
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    hook = _NoLinearAlgebra()
    sys.meta_path = [hook, *sys.meta_path]  # a new list: another thread's import may be walking the old one
    try:
        importlib.import_module("numba.np.arraymath")
    finally:
        sys.meta_path = [finder for finder in sys.meta_path if finder is not hook]


_load_cpu_target()

njit = numba.njit
"""numba's :func:`numba.njit`, taken from here by every kernel so that the CPU target above is set up first.

Examples
--------
>>> import numpy as np
>>> @njit(cache=False)
... def total(x):
...     return x.sum()
>>> float(total(np.ones(3)))
3.0
"""


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

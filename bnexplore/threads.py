"""How numba's parallel kernels share the cores: chosen once, when bnexplore is imported.

numba runs ``parallel=True`` kernels on its OpenMP threading layer where
libgomp is installed (Linux). By default libgomp's threads *spin* while they
wait for the next parallel region, and bnexplore launches thousands of short
regions (one per batch of local scores). On a machine with another CPU-heavy
process beside it (a second app user searching, a build) the spinning threads
and the neighbour take turns on the cores, and a search becomes many times
slower than one thread would be. With the threads sleeping while they wait
(``OMP_WAIT_POLICY=PASSIVE``) it takes what one thread takes, and on a quiet
machine the parallel kernels are as fast as with spinning threads (the
figures: benchmarks/BENCHMARKS.md, "Beside a busy process").

libgomp reads ``OMP_WAIT_POLICY`` once, when numba first loads it for a
parallel kernel, so :func:`configure` runs at ``import bnexplore``, before
any kernel. It leaves everything as the user set it: when
``NUMBA_THREADING_LAYER``, ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` is in
the environment, or numba has already started its threads, it changes
nothing. The variable is set in ``os.environ``, so processes bnexplore starts
(bootstrap workers) inherit it.
"""

import os
import sys

WAIT_POLICY = "PASSIVE"
"""The OpenMP wait policy bnexplore asks for: waiting threads sleep instead of spinning."""

USER_SETTINGS = ("NUMBA_THREADING_LAYER", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
"""Environment variables that, when the user has set any of them, leave the threading to the user."""


def configure(environ=None):
    """Ask for sleeping OpenMP threads unless the user chose the threading.

    Parameters
    ----------
    environ : mutable mapping, optional
        The environment to read and change (default ``os.environ``).

    Returns
    -------
    bool
        True when ``OMP_WAIT_POLICY`` was set to :data:`WAIT_POLICY`.

    Examples
    --------
    ``import bnexplore`` has called it already; in a process where no
    numba kernel has run yet, an empty environment gains the policy:

    >>> env = {}
    >>> configure(env), env  # doctest: +SKIP
    (True, {'OMP_WAIT_POLICY': 'PASSIVE'})

    and a user's choice is kept:

    >>> configure({"NUMBA_THREADING_LAYER": "workqueue"})
    False
    """
    environ = os.environ if environ is None else environ
    if any(name in environ for name in USER_SETTINGS) or _started():
        return False
    environ["OMP_WAIT_POLICY"] = WAIT_POLICY
    return True


def _started():
    """True once numba has started its threads (too late to change how they wait)."""
    numba = sys.modules.get("numba")
    if numba is None:  # not imported yet (``import bnexplore`` does not load it), so no thread has started
        return False
    try:
        numba.threading_layer()
    except ValueError:  # raised until the first parallel kernel has run
        return False
    return True

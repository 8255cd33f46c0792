"""How the data rooms use threads: one worker count, and per-column work spread over it.

Coding the columns of a large table and reading row ranges of large CSV text
are both work that numpy, pandas and Arrow do outside the GIL, so threads
(not processes) share the cores.
"""

import concurrent.futures
import os

WORKERS = min(os.cpu_count() or 1, 8)
"""Threads that read and code large tables (one per core, at most 8: more gains nothing on memory-bound work)."""

THREADED_CELLS = 1 << 22
"""Cells from which :func:`each` codes columns on several threads (below, starting threads costs more)."""


def each(function, items, n_rows):
    """``[function(item) for item in items]``, on a thread per core when the columns are long.

    For work that is one column per item and lets other threads run (numpy,
    pandas' factorization), as coding the columns of a large table is.

    Parameters
    ----------
    function : callable
    items : sequence
        One item per column.
    n_rows : int
        Rows of each column (with ``len(items)``, the cells of the work).

    Returns
    -------
    list

    Examples
    --------
    >>> each(lambda j: j * j, range(4), n_rows=10)
    [0, 1, 4, 9]
    """
    if n_rows * len(items) < THREADED_CELLS or WORKERS < 2:
        return [function(item) for item in items]
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(function, items))

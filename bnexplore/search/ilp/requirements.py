"""What the integer-programming engine requires: SCIP and memory.

SCIP comes through PySCIPOpt, an optional dependency (the ``exact`` extra:
``pip install pyscipopt``); it is imported where a model is built or its
presence is asked, never when :mod:`bnexplore` is imported.
"""

from ...errors import SearchError

INSTALL_HINT = "the integer-programming engine needs PySCIPOpt: pip install pyscipopt"


def available():
    """True when PySCIPOpt (and so SCIP) can be imported."""
    try:
        import pyscipopt  # noqa: F401  optional and heavy: loaded when asked for, not with bnexplore
    except ImportError:
        return False
    return True


def require_scip():
    """Raise SearchError with the install hint when PySCIPOpt is missing."""
    if not available():
        raise SearchError(INSTALL_HINT)


BYTES_PER_FAMILY = 6 << 10
"""Rough memory of one family in SCIP (variable, column, its share of rows and cuts)."""


BASE_MEMORY = 128 << 20
"""Rough memory of SCIP itself and of the Python objects around a model, whatever its size."""


def exploration_memory(n, limit):
    """Bytes :meth:`~bnexplore.search.ilp.enumeration.EnumerationRun.explore` may hold: at most twice ``limit`` DAGs waiting, as family rows in tuples."""
    return 2 * limit * (8 * n + 200)


def ilp_memory(n_families):
    """Rough bytes the integer programme over ``n_families`` family variables needs."""
    return BASE_MEMORY + BYTES_PER_FAMILY * int(n_families)

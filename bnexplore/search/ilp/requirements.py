"""What the integer-programming engine requires: memory.

SCIP comes through PySCIPOpt, a requirement of bnexplore (requirements.txt); it is
imported where a model is built, never when :mod:`bnexplore` is imported.
"""


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

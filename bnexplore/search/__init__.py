"""Structure searches. :func:`learn` is the one entry point for all of them; :data:`SEARCHES` (the
registry, :mod:`bnexplore.search.registry`) says what each search is and takes.

Each name loads from its module on first use (PEP 562, as :mod:`bnexplore` does), so reading the
registry (the command line builds its names and flags from it) loads no search and no numba kernel.
"""

import importlib

EXPORTS = {
    "credible": ["CredibleSet", "credible_set"],
    "exact": ["ENGINES", "choose_engine", "exact_search"],
    "hillclimb": ["hill_climb", "tabu_search"],
    "learning": ["ALGORITHMS", "learn", "search_options"],
    "ordering": ["asobs", "obs"],
    "registry": ["COMMON", "Option", "SEARCHES", "SearchSpec", "search_spec"],
    "rpdag": ["rpdag_hill_climb", "rpdag_tabu_search"],
}
"""The module of :mod:`bnexplore.search` each public name is loaded from."""

HOME = {name: module for module, names in EXPORTS.items() for name in names}

__all__ = sorted(HOME)


def __getattr__(name):
    """Load a public name from its module the first time it is asked for (PEP 562)."""
    if name not in HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{HOME[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *__all__})

"""Structure searches. :func:`learn` is the one entry point for all of them; :data:`SEARCHES` (the
registry, :mod:`bnexplore.search.registry`) says what each search is and takes.

Each name loads from its module on first use (PEP 562, as :mod:`bnexplore` does), so reading the
registry (the command line builds its names and flags from it) loads no search and no numba kernel.
"""

from ..exports import lazy_exports

EXPORTS = {
    "credible": ["CredibleSet", "EffectRange", "credible_set", "effect_range", "fitted_networks"],
    "exact": ["ENGINES", "choose_engine", "exact_search"],
    "hillclimb": ["hill_climb", "tabu_search"],
    "learning": ["ALGORITHMS", "MISSING", "learn", "search_options"],
    "ordering": ["asobs", "obs"],
    "registry": ["COMMON", "EM_OPTIONS", "Option", "SEARCHES", "SearchSpec", "expected_count_searches", "search_spec"],
    "rpdag": ["rpdag_hill_climb", "rpdag_tabu_search"],
}
"""The module of :mod:`bnexplore.search` each public name is loaded from. No name here is also a
module's name (``ges``, ``mmhc``): Python binds a submodule to its package's attribute once it loads,
which would replace the function; those searches are reached through :func:`learn` or their module, and so is
structural EM (:func:`learn` with blank cells, or ``bnexplore.search.structural_em.structural_em``)."""

HOME, __all__, __getattr__, __dir__ = lazy_exports(__name__, EXPORTS)

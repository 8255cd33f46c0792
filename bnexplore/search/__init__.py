"""Structure searches. :func:`learn` is the one entry point for all of them."""

import inspect

from ..errors import SearchError
from ..options import seed_number
from ..scores import Scorer
from .credible import CredibleSet, credible_set
from .exact import ENGINES, choose_engine, exact_search
from .hillclimb import hill_climb, tabu_search
from .ordering import asobs, obs
from .rpdag import rpdag_hill_climb, rpdag_tabu_search

ALGORITHMS = {
    "hc": hill_climb,
    "tabu": tabu_search,
    "rpdag": rpdag_hill_climb,
    "rpdag-tabu": rpdag_tabu_search,
    "exact": exact_search,
    "obs": obs,
    "asobs": asobs,
}
"""Search functions by name; each takes ``(scorer, **options)`` and returns a Result."""


def learn(data, algorithm="hc", score="bdeu", ess=1.0, scorer=None, **options):
    """Learn a Bayesian network structure from data.

    Parameters
    ----------
    data : Dataset
        Encoded data (numeric columns discretized). Ignored when ``scorer``
        is given.
    algorithm : str
        One of :data:`ALGORITHMS`.
    score : str
        Local score (see :class:`bnexplore.scores.Scorer`).
    ess : float
        BDeu equivalent sample size.
    scorer : Scorer, optional
        Reuse a scorer (and its cache) instead of building one.
    **options
        Passed to the algorithm's function (for example ``max_indegree``,
        ``time_limit``, ``progress``, ``stop``, and for "exact" ``engine``:
        "auto", "dp" or "ilp"); unknown names are an error.

    Returns
    -------
    Result

    Raises
    ------
    BNExploreError
        On an unknown algorithm or option, or an impossible value (an
        :class:`bnexplore.errors.OptionError` naming the keyword, e.g.
        ``ess='1'``, ``time_limit=-5``, ``seed='abc'``), before any search.
    """
    try:
        function = ALGORITHMS[algorithm]
    except (KeyError, TypeError):
        raise SearchError(f"unknown algorithm {algorithm!r}: choose one of {', '.join(ALGORITHMS)}") from None
    accepted = set(inspect.signature(function).parameters) - {"scorer"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise SearchError(f"{algorithm} does not take {', '.join(unknown)}; it takes {', '.join(sorted(accepted))}")
    if "seed" in options:
        options["seed"] = seed_number(options["seed"])
    if scorer is None:
        scorer = Scorer(data, score=score, ess=ess)
    return function(scorer, **options)


__all__ = ["ALGORITHMS", "CredibleSet", "ENGINES", "asobs", "choose_engine", "credible_set", "exact_search",
           "hill_climb", "learn", "obs", "rpdag_hill_climb", "rpdag_tabu_search", "tabu_search"]

"""Structure searches. :func:`learn` is the one entry point for all of them."""

import inspect

from ..errors import SearchError
from ..options import positive_number, seed_number, whole_number
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

OPTION_CHECKS = {
    "seed": seed_number,
    "perturb": lambda v: whole_number(v, "perturb", 0),
    "tabu_length": lambda v: whole_number(v, "tabu_length", 0),
    "iterations": lambda v: whole_number(v, "iterations", 0),
    "max_evaluations": lambda v: whole_number(v, "max_evaluations", 0),
    "time_per_variable": lambda v: positive_number(v, "time_per_variable", unit=" of seconds"),
}
"""Checks :func:`learn` makes of the numeric options it passes on (when given, not None), so a
string or NaN is an OptionError naming the keyword, not a TypeError deep in a search."""


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
    for name, check in OPTION_CHECKS.items():
        if options.get(name) is not None:
            options[name] = check(options[name])
    if scorer is None:
        scorer = Scorer(data, score=score, ess=ess)
    return function(scorer, **options)


def search_options(knowledge, algorithm, names, max_indegree=None):
    """The keyword options that make search ``algorithm`` honour ``knowledge``.

    The knowledge is checked first (:meth:`bnexplore.knowledge.Knowledge.bind`),
    so a door (the CLI, :func:`bnexplore.bootstrap.bootstrap`, the app)
    refuses a contradiction before any work; every search of
    :data:`ALGORITHMS` takes ``knowledge=`` and gets the object itself.

    Parameters
    ----------
    knowledge : Knowledge or None
    algorithm : str
        A name in :data:`ALGORITHMS`.
    names : list of str or anything with ``.names``
    max_indegree : int, optional

    Returns
    -------
    dict
        Empty when ``knowledge`` is None or empty.

    Raises
    ------
    SearchError
        On contradictory knowledge, or an unknown algorithm.

    Examples
    --------
    >>> from bnexplore.knowledge import Knowledge
    >>> search_options(Knowledge(require=[("A", "B")]), "hc", ["A", "B"])
    {'knowledge': Knowledge(1 required, 0 forbidden arcs, 0 forbidden edges, 0 tiers)}
    """
    if not knowledge:
        return {}
    if algorithm not in ALGORITHMS:
        raise SearchError(f"unknown algorithm {algorithm!r}: choose one of {', '.join(ALGORITHMS)}")
    knowledge.bind(names, max_indegree)
    return {"knowledge": knowledge}


__all__ = ["ALGORITHMS", "CredibleSet", "ENGINES", "asobs", "choose_engine", "credible_set", "exact_search",
           "hill_climb", "learn", "obs", "rpdag_hill_climb", "rpdag_tabu_search", "search_options",
           "tabu_search"]

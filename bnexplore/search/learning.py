"""The one entry point of the searches: :func:`learn` runs any search of the registry by name, and
:func:`search_options` gives the options that make it honour background knowledge."""

import inspect

from ..errors import SearchError
from ..scores import Scorer
from .registry import SEARCHES, search_spec

ALGORITHMS = {name: spec.function for name, spec in SEARCHES.items()}
"""Search functions by name (from :data:`SEARCHES`); each takes ``(scorer, **options)`` and returns a Result."""


def learn(data, algorithm="hc", score="bdeu", ess=1.0, scorer=None, **options):
    """Learn a Bayesian network structure from data.

    Parameters
    ----------
    data : Dataset
        Encoded data (numeric columns discretized). Ignored when ``scorer``
        is given.
    algorithm : str
        A name in :data:`SEARCHES` (:mod:`bnexplore.search.registry`): "hc",
        "tabu", "rpdag", "rpdag-tabu", "exact", "obs", "asobs".
    score : str
        Local score (see :class:`bnexplore.scores.Scorer`).
    ess : float
        BDeu equivalent sample size.
    scorer : Scorer, optional
        Reuse a scorer (and its cache) instead of building one.
    **options
        Passed to the algorithm's function: those every search takes
        (:data:`COMMON`: ``max_indegree``, ``knowledge``, ``time_limit``,
        ``progress``, ``stop``, ``control``) and the search's own
        (``SEARCHES[algorithm].options``, checked here: for "exact"
        ``engine``, "auto", "dp" or "ilp"); unknown names are an error.

    Returns
    -------
    Result

    Raises
    ------
    BNExploreError
        On an unknown algorithm or option, or an impossible value (an
        :class:`bnexplore.errors.OptionError` naming the keyword, e.g.
        ``ess='1'``, ``time_limit=-5``, ``seed='abc'``), before any search.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> b = (a + (rng.random(500) < 0.1)) % 2          # b copies a, with 10% noise
    >>> c = rng.integers(0, 3, 500)                      # c is on its own
    >>> data = Dataset.from_codes(np.column_stack([a, b, c]), names=["a", "b", "c"])
    >>> result = learn(data, "hc", score="bic")
    >>> result.graph.to_json()["arcs"]
    [['a', 'b']]
    >>> round(result.score, 6) == round(learn(data, "exact", score="bic").score, 6)  # hill climbing found the optimum
    True
    """
    spec = search_spec(algorithm)
    accepted = set(inspect.signature(spec.function).parameters) - {"scorer"}
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise SearchError(f"{algorithm} does not take {', '.join(unknown)}; it takes {', '.join(sorted(accepted))}")
    for option in spec.options:
        if options.get(option.name) is not None:
            options[option.name] = option.check(options[option.name])
    if scorer is None:
        scorer = Scorer(data, score=score, ess=ess)
    return spec.function(scorer, **options)


def search_options(knowledge, algorithm, names, max_indegree=None):
    """The keyword options that make search ``algorithm`` honour ``knowledge``.

    The knowledge is checked first (:meth:`bnexplore.knowledge.Knowledge.bind`),
    so a door (the CLI, :func:`bnexplore.bootstrap.bootstrap`, the app)
    refuses a contradiction before any work; every search of
    :data:`SEARCHES` takes ``knowledge=`` (its ``knowledge`` flag) and gets the object itself.

    Parameters
    ----------
    knowledge : Knowledge or None
    algorithm : str
        A name in :data:`SEARCHES`.
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
    if not search_spec(algorithm).knowledge:
        raise SearchError(f"{algorithm} does not take knowledge")
    knowledge.bind(names, max_indegree)
    return {"knowledge": knowledge}

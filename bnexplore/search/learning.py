"""The one entry point of the searches: :func:`learn` runs any search of the registry by name, and
:func:`search_options` gives the options that make it honour background knowledge."""

from ..data import check_dataset, require_complete
from ..errors import OptionError, SearchError, subject
from ..knowledge import check_knowledge
from ..scores import Scorer
from .registry import SEARCHES, search_spec
from .structural_em import structural_em

MISSING = ("em", "drop", "error")
"""What :func:`learn` does with blank cells: structural EM, learn from the complete rows, or refuse."""

ALGORITHMS = {name: spec.function for name, spec in SEARCHES.items()}
"""Search functions by name (from :data:`SEARCHES`); each takes ``(scorer, **options)`` and returns a Result."""


def learn(data, algorithm="hc", score="bdeu", ess=1.0, scorer=None, missing="em", em_iterations=None,
          completions=None, **options):
    """Learn a Bayesian network structure from data.

    Parameters
    ----------
    data : Dataset
        Encoded data (numeric columns discretized), possibly with blank cells
        (read with ``missing="em"``): a table becomes one with
        :class:`bnexplore.data.Encoder` or :func:`bnexplore.data.read_table`
        (a DataFrame is refused, saying so). Ignored when ``scorer`` is given.
    algorithm : str
        A name in :data:`SEARCHES` (:mod:`bnexplore.search.registry`), e.g.
        "hc", "tabu", "rpdag", "exact", "asobs", "pc", "ges", "mmhc".
    score : str
        Local score (see :class:`bnexplore.scores.Scorer`).
    ess : float
        BDeu equivalent sample size.
    scorer : Scorer, optional
        Reuse a scorer (and its cache) instead of building one.
    missing : {"em", "drop", "error"}
        What to do when ``data`` has blank cells: learn from every row by
        structural EM (:func:`~bnexplore.search.structural_em.structural_em`:
        the searches with ``expected_counts``), learn from the rows without a
        blank cell, or refuse. Data without blank cells is learnt from as it is.
    em_iterations, completions : int, optional
        Structural EM's options (:data:`~bnexplore.search.registry.EM_OPTIONS`;
        default 10 and 1).
    **options
        Passed to the algorithm's function: those every search takes
        (:data:`COMMON`: ``max_indegree``, ``knowledge``, ``time_limit``,
        ``progress``, ``stop``, ``control``) and the search's own
        (``SEARCHES[algorithm].options``, checked here: for "exact"
        ``engine``, "auto", "dp" or "ilp"); unknown names are an error.

    Returns
    -------
    Result
        With ``extra["em"]`` (iterations, log-likelihoods) when learnt by structural EM.

    Raises
    ------
    BNExploreError
        On an unknown algorithm or option, or an impossible value (an
        :class:`bnexplore.errors.OptionError` naming the keyword, e.g.
        ``ess='1'``, ``time_limit=-5``, ``seed='abc'``), before any search;
        on blank cells with ``missing="error"``, or with ``missing="em"`` and a
        search that cannot learn from expected counts (naming those that can).

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

    With a tenth of the cells blank, structural EM learns from every row
    (Friedman 1997), and ``missing="drop"`` from the complete ones:

    >>> codes = np.column_stack([a, b, c])
    >>> codes[rng.random(codes.shape) < 0.1] = -1
    >>> blanks = Dataset.from_codes(codes, names=["a", "b", "c"], missing="em")
    >>> em = learn(blanks, "hc", score="bic")
    >>> em.graph.to_json()["arcs"], [round(step["log_likelihood"]) for step in em.extra["em"]["iterations"]]
    ([['a', 'b']], [-908, -908])
    >>> learn(blanks, "hc", score="bic", missing="drop").graph.to_json()["arcs"], blanks.complete_rows().n_rows
    ([['a', 'b']], 335)
    """
    if missing not in MISSING:
        raise OptionError(f"{subject('missing', missing)} is not one of {', '.join(MISSING)}: 'em' learns from every "
                          "row by structural EM, 'drop' from the complete rows, 'error' refuses blank cells")
    spec = search_spec(algorithm)
    if scorer is None:
        data = check_dataset(data)
        if getattr(data, "blank", None) is not None:
            if missing == "em":
                em = {key: value for key, value in (("em_iterations", em_iterations), ("completions", completions))
                      if value is not None}
                return structural_em(data, algorithm, score=score, ess=ess, **em, **options)
            if missing == "error":
                require_complete(data, f"learning with {subject('missing', 'error')}")
            data = data.complete_rows()
    options = spec.checked(options)
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
    if not check_knowledge(knowledge):
        return {}
    if not search_spec(algorithm).knowledge:
        raise SearchError(f"{algorithm} does not take knowledge")
    knowledge.bind(names, max_indegree)
    return {"knowledge": knowledge}

"""The scoreboard: every network learned on one data set, beside the proven optimum and the truth.

One row per network: its score; the gap to the exact optimum when a finished
exact search (or credible set) on the same data and score covers its graph
(:func:`covers`); whether its equivalence class lies inside the credible set at
a Bayes factor (:func:`in_credible_set`); the structural Hamming distance of its
class to the true class and to the optimum's; adjacency and arrowhead precision
and recall against the truth (:mod:`bnexplore.graphs.compare`). A number that
cannot be known (no optimum, no truth, 0/0) is None. The app's Compare page
and the command line's ``compare`` read these rows.

References
----------
.. [1] J. Liao, M. Zhang, J. Lee et al. (2019). Finding all Bayesian network
   structures within a factor of optimal. AAAI 33, 7892-7899 (the credible
   set: every DAG scoring at least OPT - ln BF).
"""

import math

from ..graphs import PDAG, shd
from ..graphs.compare import adjacency_precision_recall, arrowhead_precision_recall
from ..knowledge import Knowledge
from ..numerics import tie_tolerance
from ..scores.registry import SCORES

EXACT_ALGORITHMS = ("exact", "credible")
"""Results whose score is the proven optimum of their search space when they were not stopped."""

COLUMNS = ("algorithm", "score_name", "score", "gap", "in_credible_set", "shd_truth", "shd_optimum",
           "adjacency_precision", "adjacency_recall", "arrowhead_precision", "arrowhead_recall", "edges")
"""The keys of a row, in the order the doors show them."""


def learned_class(result):
    """The equivalence class a result stands for, as a PDAG.

    The class a search reports itself (PC's and GES's ``extra["cpdag"]``; PC's
    may hold orientation conflicts, and is then compared as it is), else the
    CPDAG of its DAG.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> from bnexplore.result import Result
    >>> learned_class(Result(DAG.from_arcs([("a", "b")], ["a", "b"]), -1.0, "bic", "hc")).to_json()["links"]
    [['a', 'b']]
    """
    reported = result.extra.get("cpdag")
    return reported if isinstance(reported, PDAG) else result.graph.cpdag()


def covers(optimum, result):
    """True when ``optimum`` is a proven optimum of a search space holding ``result``'s graph.

    ``optimum`` must be an exact search or a credible set that was not stopped,
    with the same score and score settings, whose in-degree bound (if any)
    allows each node of ``result``'s graph its parents and whose knowledge (if
    any) allows the graph. Then no graph ``result`` could be scores above it,
    and the gap is a true one. That both were learned on the same data is the
    caller's to know.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> from bnexplore.result import Result
    >>> g = DAG.from_arcs([("a", "c"), ("b", "c")], ["a", "b", "c"])
    >>> best = Result(DAG.empty(["a", "b", "c"]), -1.0, "bic", "exact", params={"max_indegree": 1})
    >>> covers(best, Result(g, -2.0, "bic", "hc"))
    False
    """
    if optimum.algorithm not in EXACT_ALGORITHMS or optimum.stats.get("stopped"):
        return False
    if optimum.score_name != result.score_name or optimum.params.get("ess") != result.params.get("ess"):
        return False
    if sorted(optimum.names) != sorted(result.names):
        return False
    graph = result.graph
    bound = optimum.params.get("max_indegree")
    if bound is not None and max((len(ps) for ps in graph.parent_sets()), default=0) > bound:
        return False
    known = optimum.params.get("knowledge")
    return not known or Knowledge.from_json(known).bind(graph.names).allows(graph)


def optimum_for(result, candidates):
    """The first of ``candidates`` (Results on the same data) that :func:`covers` ``result``, or None.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> from bnexplore.result import Result
    >>> g = DAG.from_arcs([("a", "b")], ["a", "b"])
    >>> best = Result(g, -1.0, "bic", "exact")
    >>> optimum_for(Result(DAG.empty(["a", "b"]), -2.0, "bic", "hc"), [best]) is best
    True
    """
    return next((candidate for candidate in candidates if covers(candidate, result)), None)


def in_credible_set(score, optimum, bf, score_name):
    """Whether a network's equivalence class lies inside the credible set at Bayes factor ``bf``.

    The credible set ([1]_) holds every DAG scoring at least ``optimum - ln bf``
    (up to :func:`bnexplore.numerics.tie_tolerance`). Under a score-equivalent
    score every DAG of a class has the same score, so the class is inside iff
    ``score`` is.

    Parameters
    ----------
    score : float
        The network's score.
    optimum : float or None
        The proven optimum of a search space holding the network (None: not known).
    bf : float
        The Bayes factor, > 1.
    score_name : str
        The score's name in :data:`bnexplore.scores.SCORES`.

    Returns
    -------
    bool or None
        None when it cannot be told: no optimum, or a score that is not
        score-equivalent (K2), where the DAGs of a class score differently.

    Examples
    --------
    >>> in_credible_set(-102.9, -100.0, 20.0, "bic"), in_credible_set(-103.1, -100.0, 20.0, "bic")
    (True, False)
    >>> in_credible_set(-100.0, None, 20.0, "bic") is None, in_credible_set(-100.0, -100.0, 20.0, "k2") is None
    (True, True)
    """
    spec = SCORES.get(score_name)
    if optimum is None or spec is None or not spec.equivalent:
        return None
    return bool(score >= optimum - math.log(bf) - tie_tolerance(optimum))


def scoreboard_row(result, truth=None, optimum=None, bf=20.0):
    """One network's row of the scoreboard.

    Parameters
    ----------
    result : Result
    truth : PDAG, optional
        The true DAG (or its class); compared as its CPDAG. Ignored when its
        variables differ from the result's.
    optimum : Result, optional
        A proven optimum; used only when it :func:`covers` ``result``.
    bf : float
        The Bayes factor of the credible set.

    Returns
    -------
    dict
        The keys of :data:`COLUMNS`: ``gap`` (optimum minus score), ``in_credible_set``
        (:func:`in_credible_set`), ``shd_truth`` and ``shd_optimum`` (SHD between
        the equivalence classes, CPDAGs), the four precisions and recalls
        against the truth (None when 0/0), ``edges``.

    Examples
    --------
    >>> from bnexplore.graphs import DAG
    >>> from bnexplore.result import Result
    >>> names = ["a", "b", "c"]
    >>> truth = DAG.from_arcs([("a", "c"), ("b", "c")], names)
    >>> best = Result(truth, -10.0, "bic", "exact")
    >>> row = scoreboard_row(Result(DAG.from_arcs([("a", "c")], names), -11.0, "bic", "hc"), truth, best)
    >>> row["gap"], row["in_credible_set"], row["shd_truth"], row["adjacency_recall"]
    (1.0, True, 2, 0.5)
    """
    graph = learned_class(result)
    if optimum is not None and not covers(optimum, result):
        optimum = None
    best = None if optimum is None else optimum.score
    row = {"algorithm": result.algorithm, "score_name": result.score_name, "score": result.score,
           "gap": None if best is None else best - result.score,
           "in_credible_set": in_credible_set(result.score, best, bf, result.score_name),
           "shd_truth": None, "shd_optimum": None if optimum is None else shd(graph, optimum.graph.cpdag()),
           "adjacency_precision": None, "adjacency_recall": None, "arrowhead_precision": None,
           "arrowhead_recall": None, "edges": graph.n_edges}
    if truth is not None and sorted(truth.names) == sorted(graph.names):
        true_class = truth.cpdag()
        row["shd_truth"] = shd(graph, true_class)
        row["adjacency_precision"], row["adjacency_recall"] = adjacency_precision_recall(graph, true_class)
        row["arrowhead_precision"], row["arrowhead_recall"] = arrowhead_precision_recall(graph, true_class)
    return row


def scoreboard(results, truth=None, bf=20.0, optima=None):
    """The scoreboard of networks learned on one data set: one row per result.

    Parameters
    ----------
    results : dict of str to Result
        The networks by name, all learned on the same data.
    truth : PDAG, optional
        The true DAG, when the data were drawn from a known network.
    bf : float
        The Bayes factor of the credible set.
    optima : list of Result, optional
        Proven optima to take the gap from (default: the exact searches and
        credible sets among ``results``); each row uses the first that covers it.

    Returns
    -------
    list of dict
        ``{"name": ..., **scoreboard_row(...)}`` in the order of ``results``.

    Examples
    --------
    >>> from bnexplore import read_csv
    >>> from bnexplore.search import learn
    >>> data = read_csv("sample_data/asia.csv")
    >>> results = {name: learn(data, name, score="bic") for name in ("hc", "exact")}
    >>> [(row["name"], row["gap"] >= 0, row["in_credible_set"]) for row in scoreboard(results)]
    [('hc', True, True), ('exact', True, True)]
    """
    optima = [r for r in results.values() if r.algorithm in EXACT_ALGORITHMS] if optima is None else optima
    return [{"name": name, **scoreboard_row(result, truth, optimum_for(result, optima), bf)}
            for name, result in results.items()]


COMPARE_TEXT = (("name", "{}"), ("algorithm", "{}"), ("score", "{:.4f}"), ("gap", "{:.4f}"),
                ("in_credible_set", "{}"), ("shd_truth", "{}"), ("shd_optimum", "{}"),
                ("adjacency_precision", "{:.3f}"), ("adjacency_recall", "{:.3f}"),
                ("arrowhead_precision", "{:.3f}"), ("arrowhead_recall", "{:.3f}"))
"""The columns of the scoreboard as text (the command line's ``compare --text``) and how each value is
written (None is written "-")."""


def scoreboard_text(payload):
    """The rows of the command line's ``compare`` JSON (:func:`scoreboard`'s rows, with the score settings,
    Bayes factor, optimum and truth) as an aligned plain-text table."""
    def cell(value, form):
        if value is None:
            return "-"
        return {True: "yes", False: "no"}[value] if isinstance(value, bool) else form.format(value)
    table = [[name for name, _ in COMPARE_TEXT]] + [[cell(row[name], form) for name, form in COMPARE_TEXT]
                                                    for row in payload["rows"]]
    widths = [max(len(line[i]) for line in table) for i in range(len(COMPARE_TEXT))]
    lines = ["  ".join(value.ljust(width) for value, width in zip(line, widths)).rstrip() for line in table]
    optimum = payload["optimum"]
    lines.append(f"score {payload['score_name']}; Bayes factor {payload['bf']:g}; optimum "
                 + (f"{optimum['score']:.4f} ({optimum['from']})" if optimum else "unknown (-)")
                 + "; SHD between equivalence classes (CPDAGs); precision and recall against the truth"
                 + ("" if payload["truth"] else " (no --truth: -)"))
    return "\n".join(lines)

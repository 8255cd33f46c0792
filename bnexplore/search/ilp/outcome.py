"""What one branch-and-cut solve found, and how far from optimal it may be.

Nothing here needs SCIP: a remembered optimum is returned as an
:class:`Outcome` without a solve (:func:`bnexplore.search.ilp.search.optimum`).
"""

from ...numerics import tie_tolerance

class Outcome:
    """What one solve found.

    Attributes
    ----------
    parents : int64 array or None
        Parent bitmask of every node of the best DAG (optimisation), None when
        there is none.
    score, bound, gap : float or None
        The best DAG's score (sum of its candidates' scores), the proven upper
        bound, ``bound - score``.
    optimal : bool
        Proven optimal (optimisation) or the enumeration ran to the end.
    status : str
        SCIP's status.
    stats : dict
        Nodes, LP iterations, cut and heuristic counters, seconds by phase.
    trajectory : list of dict
        ``(seconds, score, bound, gap, nodes)`` points, one per change.
    collector : bnexplore.search.kbest.Collector or None
    cuts : KnownCuts
        Every cluster and 4B cut the search added: valid for every DAG, so
        another search over the same candidates may start from them.
    """


def gap(score, bound):
    """``bound - score`` (0 when proven optimal), or None while either is unknown."""
    if score is None or bound is None:
        return None
    return max(0.0, bound - score)


def describe_gap(score, bound):
    """One line for progress and results: the incumbent and how far from optimal it may be."""
    if score is None:
        return "no network found yet" if bound is None else f"no network yet, bound {bound:.4f}"
    g = gap(score, bound)
    if g is None:
        return f"best {score:.4f}, no bound yet"
    if g <= tie_tolerance(score):
        return f"optimal {score:.4f}"
    return f"best {score:.4f}, within {g:.4g} of optimal (bound {bound:.4f})"

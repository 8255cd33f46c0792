"""What each arc of a DAG is worth to its score (the numbers the Networks page shows on hover)."""


def arc_contributions(scorer, dag):
    """Score contribution of every arc: ``s(v, Pa(v)) - s(v, Pa(v) minus {u})``.

    How much the score would drop if the arc u -> v were deleted (a negative
    number: deleting it would raise the score).

    Parameters
    ----------
    scorer : bnexplore.scores.Scorer
        Over the same variable names as ``dag``.
    dag : bnexplore.graphs.DAG

    Returns
    -------
    dict
        ``(u, v)`` name pair -> float.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.graphs import DAG
    >>> from bnexplore.scores import Scorer
    >>> x = np.arange(200) % 2
    >>> data = Dataset.from_codes(np.column_stack([x, x]), names=["x", "y"])  # y copies x
    >>> worth = arc_contributions(Scorer(data, score="bic"), DAG.from_arcs([("x", "y")], ["x", "y"]))
    >>> worth[("x", "y")] > 0  # deleting the arc would lower the score
    True
    """
    names = dag.names
    out = {}
    for v in range(dag.n):
        parents = [names[p] for p in dag.parents(v)]
        full = scorer.local(names[v], parents)
        for p in parents:
            out[(p, names[v])] = full - scorer.local(names[v], [q for q in parents if q != p])
    return out

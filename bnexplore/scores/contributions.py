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
    """
    names = dag.names
    out = {}
    for v in range(dag.n):
        parents = [names[p] for p in dag.parents(v)]
        full = scorer.local(names[v], parents)
        for p in parents:
            out[(p, names[v])] = full - scorer.local(names[v], [q for q in parents if q != p])
    return out

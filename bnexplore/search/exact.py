"""The optimal network: by dynamic programming over variable subsets, or by branch and cut.

:func:`exact_search` builds the candidate parent sets
(:mod:`bnexplore.search.candidate_sets`), chooses the engine
(:mod:`bnexplore.search.engine`) and runs the subset DP of Silander &
Myllymaki (2006, Section 3; :mod:`bnexplore.search.subsets`) or the integer
programme (:func:`bnexplore.search.ilp.ilp_search`). The DP's kernels, the
engine choice and the memory checks live in those modules; their public names
are importable from here too.
"""

import math

import numpy as np

from ..compiling import search_clock
from ..control import Control
from ..errors import SearchError
from ..graphs import DAG
from ..knowledge import knowledge_params
from ..resources import check_memory, format_bytes
from ..result import Result
from ..scores.scorer import check_scorer
from .candidate_sets import prepare_parent_sets
from .engine import DP_PREFERRED_SECONDS, DP_PREFERRED_SECONDS_CREDIBLE, ENGINES, REESTIMATED, choose_engine, dp_hint
from .ilp import ilp_search
from .subsets import (DP_SECONDS_PER_CHECK, DP_SECONDS_PER_STEP, MAX_VARIABLES, PARALLEL_STEPS, CandidateArrays,
                      check_size, dp_checks, dp_memory, dp_seconds, greedy_completion, mask_to_parents, optimal_parents,
                      scan_lengths, subset_table)

__all__ = ["DP_PREFERRED_SECONDS", "DP_PREFERRED_SECONDS_CREDIBLE", "DP_SECONDS_PER_CHECK", "DP_SECONDS_PER_STEP",
           "ENGINES", "MAX_VARIABLES", "PARALLEL_STEPS", "REESTIMATED", "check_memory", "choose_engine", "dp_checks",
           "dp_memory", "dp_seconds", "exact_search", "format_bytes", "mask_to_parents", "optimal_parents",
           "prepare_parent_sets", "scan_lengths", "subset_table"]


def exact_search(scorer, max_indegree=None, parent_sets=None, engine="auto", knowledge=None, progress=None,
                 time_limit=None, stop=None, control=None):
    """The highest-scoring DAG: by dynamic programming over subsets, or by branch and cut.

    Silander & Myllymaki (2006), Section 3, over the candidate parent sets of
    :func:`bnexplore.parents.pruning.candidate_parent_sets` (pruned for the
    optimum, ``epsilon = 0``) or the given ones; or, for large problems, the
    integer programme of :func:`bnexplore.search.ilp.ilp_search` over the
    same candidates (see :func:`bnexplore.search.engine.choose_engine`).

    Parameters
    ----------
    scorer : Scorer
    max_indegree : int, optional
        Largest number of parents of a node.
    parent_sets : ParentSets, optional
        Candidate parent sets to search over (computed when not given).
    engine : {"auto", "dp", "ilp"}
        ``auto`` picks by :func:`~bnexplore.search.engine.choose_engine`, and where it picked the DP
        before the candidates were known, picks again with them (tens of
        thousands of candidate sets per node make the DP's scans slow).
    knowledge : Knowledge, optional
        Background knowledge (:class:`bnexplore.knowledge.Knowledge`, checked
        first): the candidates are built under it, so the result is the best
        DAG that honours it (a DP state where a node has no candidate inside
        its predecessors holds no DAG and is skipped).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`. Progress reports carry
        ``score`` (incumbent), ``bound`` (proven upper bound) and ``gap``
        for the ILP; the fraction of subsets done for the DP. When stopped
        early the DP returns a DAG built greedily above the completed layers,
        the ILP its incumbent; ``stats["exact"]`` is then False and
        ``stats["gap"]`` says how far from optimal it may be.

    Returns
    -------
    Result
        ``algorithm = "exact"``; ``stats`` hold ``engine``, ``seconds``,
        ``seconds_candidates``, ``candidate_sets``, ``memory_bytes``, ``opt``
        (the proven optimum, None when stopped), ``exact``, ``bound`` (a
        proven upper bound on any DAG's score) and ``gap`` (``bound - score``,
        0 when proven optimal); the DP adds ``seconds_dp``, the ILP the keys
        of :func:`bnexplore.search.ilp.ilp_search`.

    Raises
    ------
    ResourceError
        When the table needs more memory than is available (checked before
        allocating; :func:`bnexplore.search.subsets.dp_memory`).
    SearchError
        On an unknown engine or contradictory knowledge.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> from bnexplore.scores import Scorer
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> b = (a + (rng.random(500) < 0.1)) % 2          # b copies a, with 10% noise
    >>> c = rng.integers(0, 3, 500)                      # c is on its own
    >>> data = Dataset.from_codes(np.column_stack([a, b, c]), names=["a", "b", "c"])
    >>> result = exact_search(Scorer(data, "bic"))
    >>> result.graph.n_edges, result.stats["engine"], result.stats["exact"], result.stats["gap"]
    (1, 'dp', True, 0.0)
    """
    check_scorer(scorer, "exact_search")
    n = scorer.n_vars
    if knowledge:
        knowledge.bind(scorer, max_indegree)
    chosen, reason, _ = choose_engine(n, parent_sets, "optimum", engine=engine)
    control = Control.of(control, progress, time_limit, stop)
    if chosen == "ilp":
        result = ilp_search(scorer, max_indegree=max_indegree, parent_sets=parent_sets, knowledge=knowledge,
                            control=control)
        result.stats["engine_reason"] = reason
        return result
    start = search_clock()
    snapshot = scorer.snapshot()
    check_size(n)
    needed = dp_memory(n)
    check_memory(needed, f"the exact search over {n} variables", dp_hint())
    control.report(done=0.0, message=f"exact: needs {format_bytes(needed)} for {n} variables")
    estimated = parent_sets is not None  # the choice above already counted the given candidates
    parent_sets = prepare_parent_sets(scorer, parent_sets, max_indegree, 0.0, control, knowledge=knowledge)
    seconds_candidates = search_clock() - start
    if engine == "auto" and not estimated and not control.should_stop():
        chosen, reason, _ = choose_engine(n, parent_sets, "optimum")  # their scans may make the DP slow
        if chosen == "ilp":
            result = ilp_search(scorer, parent_sets=parent_sets, knowledge=knowledge, control=control)
            result.stats.update(engine_reason=reason + REESTIMATED,
                                seconds=result.stats["seconds"] + seconds_candidates,
                                seconds_candidates=seconds_candidates)
            return result
    candidates = CandidateArrays(parent_sets)
    table, size = subset_table(candidates, control)
    if size == n:
        if np.isneginf(table[-1]):
            raise SearchError("no DAG fits the candidate parent sets: give every node the empty parent set")
        masks = optimal_parents(table, np.int64((1 << n) - 1), n, candidates.masks, candidates.scores,
                                candidates.offsets)
    else:
        masks = greedy_completion(candidates, table, size)
    parents = [mask_to_parents(m, n) for m in masks]
    graph = DAG.from_parents(parents, scorer.names)
    score = scorer.total(parents)
    if parent_sets.stats.get("complete", True) is False:
        bound = None  # stopped while the candidates were computed: no bound holds for the others
    else:
        bound = score if size == n else float(candidates.top.sum())  # each node at its best parents

    stats = {"seconds": search_clock() - start, "seconds_candidates": seconds_candidates,
             "seconds_dp": search_clock() - start - seconds_candidates, "iterations": size,
             "structures_evaluated": int(sum(math.comb(n, k) for k in range(size + 1))),
             **scorer.stats(snapshot), "candidate_sets": len(parent_sets), "memory_bytes": needed,
             "opt": float(table[-1]) if size == n else None, "exact": size == n, "engine": "dp",
             "engine_reason": reason, "bound": bound, "gap": None if bound is None else max(0.0, bound - score),
             "edges": graph.n_edges, "stopped": control.reason}
    params = {**scorer.params, "max_indegree": max_indegree, "engine": "dp", **knowledge_params(knowledge)}
    control.finish(message="exact: done", score=score, bound=bound, gap=stats["gap"])
    return Result(graph=graph, score=score, score_name=scorer.score_name, algorithm="exact", params=params,
                  stats=stats, extra={"candidates": parent_sets.stats})

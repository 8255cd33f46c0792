"""The engine's entry points: the optimum (:func:`optimum`, :func:`ilp_search`) and the enumeration
(:func:`enumerate_credible`) by branch and cut on SCIP.

They load the SCIP modules (:mod:`~bnexplore.search.ilp.model`,
:mod:`~bnexplore.search.ilp.optimisation`,
:mod:`~bnexplore.search.ilp.enumeration`) where a search runs, so that
importing :mod:`bnexplore` does not load PySCIPOpt. A proven optimum is
remembered in a :class:`~bnexplore.search.memo.Memo` (:data:`PROVEN`) that
:func:`optimum` is given.
"""


import numpy as np

from ...compiling import search_clock
from ...control import Control
from ...graphs import DAG
from ...knowledge import knowledge_params
from ...resources import check_memory, format_bytes
from ...result import Result
from ...scores.scorer import check_scorer
from ..candidate_sets import prepare_parent_sets
from ..kbest import Collector, lp_margin, tie_slack
from ..memo import Memo, digest
from ..ordering import Candidates as OrderCandidates
from ..ordering import climb_restart
from ..subsets import CandidateArrays, mask_to_parents
from .families import forbidden_families
from .outcome import Outcome, describe_gap, gap
from .requirements import ilp_memory

SEED_WORK = 10_000_000
"""Family visits the ASOBS restarts of the starting incumbent may spend (:func:`seed_restarts`)."""


SEED_RESTARTS = (10, 300)
"""Fewest and most ASOBS restarts for the starting incumbent (seeded, so runs repeat).

A restart costs a fraction of a microsecond per family, so hundreds take well under a second, and a
better seed both starts the proof closer to the optimum and shortens it (fewer tree nodes): a few
restarts often miss the optimum that a few hundred find."""


def seed_restarts(n_families):
    """ASOBS restarts for the starting incumbent over ``n_families`` families: :data:`SEED_WORK` spread
    over them, within :data:`SEED_RESTARTS` (a count, not a clock, so runs repeat on any machine)."""
    fewest, most = SEED_RESTARTS
    return int(min(most, max(fewest, SEED_WORK // max(1, int(n_families)))))


def seed_incumbent(order_candidates, control, restarts=None, seed=0):
    """Chosen family of every node of the best ASOBS DAG over the candidates (Scanagatta et al. 2015).

    ``restarts`` defaults to :func:`seed_restarts` of the family count."""
    if restarts is None:
        restarts = seed_restarts(len(order_candidates.scores))
    rng = np.random.default_rng(seed)
    counters = {"swaps": 0, "insertions": 0, "orderings": 0}
    best, best_score = None, -np.inf
    for r in range(restarts):
        chosen, score = climb_restart(order_candidates, rng.permutation(order_candidates.n), "asobs", control, counters)
        if score > best_score:
            best, best_score = chosen, score
        if control.should_stop():
            break
    return np.asarray(best, np.int64), float(best_score)


PROVEN_KEPT = 16
"""Proven optima this process remembers for :func:`optimum` (``reuse=True``)."""

PROVEN = Memo(PROVEN_KEPT)
"""The proven optima of this process, by :func:`problem_key`: :func:`optimum`'s ``memo`` by default."""


def problem_key(candidates, zero, covered):
    """A digest of everything the optimum depends on: the families, their scores, the excluded ones."""
    return digest((candidates.masks, candidates.scores, candidates.offsets, zero), "covered" if covered else "all")


def reused(proven):
    """A fresh :class:`Outcome` for a remembered proven optimum: no search, so every counter is 0."""
    out = Outcome()
    out.parents, out.score, out.bound, out.gap = proven.parents.copy(), proven.score, proven.score, 0.0
    out.optimal, out.stopped, out.status, out.collector = True, False, "optimal", None
    out.cuts = proven.cuts
    out.seed_score = proven.seed_score
    out.trajectory = [{"step": 1, "op": "end", "args": [], "delta": None, "score": out.score, "bound": out.score,
                       "gap": 0.0, "seconds": 0.0, "nodes": 0}]
    out.stats = {**{k: 0 for k, v in proven.stats.items() if isinstance(v, (int, float)) and not isinstance(v, bool)},
                 "status": "optimal", "seed_score": proven.seed_score, "reused": True}
    return out


def optimum(candidates, order_candidates, control, allowed=None, required=None, covered=False, statistics=False,
            reuse=False, memo=PROVEN):
    """The best DAG over the candidates by branch and cut: an :class:`Outcome` with ``seed_score`` and ``seconds``.

    Starts from an ASOBS incumbent; a stopped search returns the incumbent
    with its proven bound (at worst the sum of every node's best score).
    Every proven optimum is remembered in ``memo`` (a
    :class:`~bnexplore.search.memo.Memo`, by default :data:`PROVEN`); with
    ``reuse`` one remembered for the same families and scores is returned
    without a search (``stats["reused"]`` True): the credible sets of one
    data set at several Bayes factors prove their optimum once.
    """
    from .model import Problem  # SCIP loads here, where it is used: import bnexplore must not pay for it
    from .optimisation import OptimisationRun
    from .branch_and_cut import solve

    t0 = search_clock()
    zero = forbidden_families(candidates, allowed, required)
    key = problem_key(candidates, zero, covered)
    if reuse and memo.get(key) is not None:
        return reused(memo.get(key))
    if zero.any():
        order_candidates = None  # the climb would not know the excluded families
    seed, seed_score = (None, None) if order_candidates is None else seed_incumbent(order_candidates, control)
    t_seed = search_clock()
    problem = Problem(candidates, allowed, required, covered=covered and not zero.any())
    out = solve(OptimisationRun(problem, control, order_candidates), seed=seed, statistics=statistics)
    if out.parents is None and seed is not None:  # stopped before SCIP took the seed
        out.parents = candidates.masks[seed]
        out.score = seed_score
    trivial = float(candidates.top.sum())
    out.bound = trivial if out.bound is None else min(out.bound, trivial)
    if out.score is not None and out.optimal:
        out.bound = out.score
    out.gap = gap(out.score, out.bound)
    out.seed_score = seed_score
    out.stats.update(seconds_seed=t_seed - t0, seed_score=seed_score)
    if out.optimal and out.parents is not None:
        memo.put(key, reused(out))  # its own copy: what the caller does with ``out`` cannot change it
    return out


def enumerate_credible(candidates, threshold, limit, control, scale, covered=False, known=None, statistics=False,
                   start=None, explore=True):
    """Every DAG over the candidates scoring at least ``threshold`` (the best ``limit``), by branch and cut.

    ``covered`` (score-equivalent scores only) searches with the covered-arc
    constraints of :class:`~bnexplore.search.ilp.model.Problem` and adds each
    equivalence class whole. ``known``
    (:class:`~bnexplore.search.ilp.families.KnownCuts`, e.g. the
    optimisation's ``Outcome.cuts``) go to SCIP's cut pool from the start;
    ``statistics`` adds SCIP's time breakdown to the outcome's stats. With
    ``covered`` and ``explore`` the search also explores the credible DAGs
    around every class it records
    (:meth:`~bnexplore.search.ilp.enumeration.EnumerationRun.explore`), first
    around ``start`` (parent bitmasks of a DAG, e.g. the optimum);
    ``explore=False`` leaves the tree search alone. Returns ``(collector,
    outcome)``; ``outcome.optimal`` is True when the tree search ran to the
    end; ``collector.full_at`` is ``control.clock()`` when ``limit`` DAGs were
    first held.
    """
    from .model import Problem  # SCIP loads here, where it is used: import bnexplore must not pay for it
    from .enumeration import EnumerationRun
    from .branch_and_cut import solve

    problem = Problem(candidates, covered=covered, branching=False)
    if known is not None:
        problem.add_known_cuts(known)
    collector = Collector(candidates.n, threshold, limit, slack=tie_slack(scale), clock=control.clock)
    seed = None if start is None else problem.families(start)
    run = EnumerationRun(problem, control, collector, margin=lp_margin(scale), explore=explore)
    out = solve(run, seed=seed, statistics=statistics)
    return collector, out


def ilp_search(scorer, max_indegree=None, parent_sets=None, knowledge=None, progress=None, time_limit=None,
               stop=None, control=None, statistics=False):
    """The highest-scoring DAG by branch and cut on SCIP (see :mod:`bnexplore.search.ilp`).

    The ILP engine of :func:`bnexplore.search.exact.exact_search` (which
    chooses it automatically for large problems): the same arguments, the same
    :class:`~bnexplore.result.Result`.

    Parameters
    ----------
    scorer : Scorer
    max_indegree : int, optional
    parent_sets : ParentSets, optional
        Candidate parent sets (computed, pruned for the optimum, when not given).
    knowledge : Knowledge, optional
        Background knowledge: the candidates are built under it (see
        :func:`bnexplore.search.candidate_sets.prepare_parent_sets`), so every family
        honours it.
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`. Reports carry ``score`` (the
        incumbent), ``bound`` (proven upper bound), ``gap`` and ``nodes``.
        When stopped the incumbent is returned with its proven gap.
    statistics : bool
        Add SCIP's own statistics (time in LP, separation, branching) as
        ``stats["scip"]``.

    Returns
    -------
    Result
        ``algorithm = "exact"``; ``stats`` add ``engine`` ("ilp"),
        ``bound``, ``gap`` (0 when proven optimal), ``exact``, ``opt`` (None
        unless proven), ``message``, ``seconds_candidates``, ``seconds_seed``,
        ``seconds_ilp``, ``nodes``, ``lp_iterations``, ``cluster_cuts`` and the
        separation and heuristic counters; ``trajectory`` holds one entry per
        change of the incumbent or the bound (``seconds``, ``score``,
        ``bound``, ``gap``, ``nodes``).

    Raises
    ------
    ResourceError
        When the programme would need more memory than is available.
    """
    check_scorer(scorer, "ilp_search")
    control = Control.of(control, progress, time_limit, stop)
    start = search_clock()
    snapshot = scorer.snapshot()
    parent_sets = prepare_parent_sets(scorer, parent_sets, max_indegree, 0.0, control, knowledge=knowledge)
    needed = ilp_memory(len(parent_sets))
    check_memory(needed, f"the integer programme over {len(parent_sets):,} candidate parent sets",
                 "set max_indegree (fewer candidate parent sets) or use a heuristic search")
    control.report(done=None, message=f"exact (ILP): {len(parent_sets):,} candidate parent sets, "
                                      f"about {format_bytes(needed)}")
    t_candidates = search_clock()
    candidates = CandidateArrays(parent_sets)
    out = optimum(candidates, OrderCandidates(parent_sets), control, statistics=statistics)
    parents = [mask_to_parents(m, scorer.n_vars) for m in out.parents]
    graph = DAG.from_parents(parents, scorer.names)
    score = scorer.total(parents)
    complete = parent_sets.stats.get("complete", True) is not False
    proven = out.optimal and not out.stopped and complete
    bound = score if proven else (out.bound if complete else None)  # no bound over a part of the candidates
    message = describe_gap(score, bound) if complete else (
        f"best {score:.4f} over the candidate parent sets found before the stop (no optimality bound)")
    stats = {"seconds": search_clock() - start, "seconds_candidates": t_candidates - start,
             "seconds_ilp": search_clock() - t_candidates, "iterations": out.stats["nodes"],
             "structures_evaluated": out.stats["nodes"], **scorer.stats(snapshot),
             "candidate_sets": len(parent_sets), "memory_bytes": needed, "engine": "ilp",
             "opt": score if proven else None, "exact": proven, "message": message, "edges": graph.n_edges,
             "stopped": control.reason, **out.stats, "bound": bound, "gap": gap(score, bound)}
    params = {**scorer.params, "max_indegree": max_indegree, "engine": "ilp", **knowledge_params(knowledge)}
    control.finish(message=f"exact (ILP): {message}", score=score, bound=bound, gap=stats["gap"])
    return Result(graph=graph, score=score, score_name=scorer.score_name, algorithm="exact", params=params,
                  stats=stats, trajectory=out.trajectory, extra={"candidates": parent_sets.stats})

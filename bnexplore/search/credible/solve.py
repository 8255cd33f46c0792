"""The credible set's orchestration: checks, the engine, the candidates, the sets remembered.

:func:`credible_set` checks its arguments, chooses the engine
(:func:`bnexplore.search.engine.choose_engine`), builds the candidate parent
sets with the epsilon-relaxed pruning rules (which keep the parent sets of
every credible DAG) and runs the subset DP's enumeration
(:mod:`bnexplore.search.credible.dp`) or the ILP's
(:func:`bnexplore.search.ilp.enumerate_credible`), or, where the DP would be
slow, the ILP first for a share of the DP's time. A finished set cut by the
counting limit is remembered (:data:`LIMITED_SETS`): it answers every larger
Bayes factor.
"""

import json
import math

import numpy as np

from ...compiling import search_clock
from ...control import Control
from ...errors import SearchError, subject
from ...knowledge import check_knowledge, knowledge_params
from ...parents.pruning import RULES, tolerance
from ...resources import check_memory, format_bytes
from ...scores import Scorer
from ...scores.registry import score_equivalent
from .. import ilp
from ..candidate_sets import prepare_parent_sets
from ..engine import DP_PREFERRED_SECONDS, REESTIMATED, choose_engine, dp_hint
from ..kbest import DEFAULT_LIMIT, enumeration_memory, limited_set
from ..memo import Memo, digest
from ..ordering import Candidates as OrderCandidates
from ..subsets import CandidateArrays, dp_memory
from .dp import dp_set
from .sets import CredibleSet

ILP_FIRST_SHARE = 0.25
"""Share of the subset DP's estimated time that ``auto`` first gives the ILP, for a credible set the DP
would take more than :data:`bnexplore.search.engine.DP_PREFERRED_SECONDS` over (:func:`credible_set`).

Small sets, like most at small Bayes factors, come out of the ILP in a fraction of the DP's time, while the
DP builds its whole table first; large ones (a hundred thousand DAGs and more) the DP enumerates much
faster, so a set the ILP has not finished within this share goes to the DP, which then costs at most a
quarter of its estimate more (the measurements are in BENCHMARKS.md)."""


LIMITED_KEPT = 2
"""Finished sets cut by the counting limit that :func:`credible_set` remembers for a larger Bayes factor."""

LIMITED_SETS = Memo(LIMITED_KEPT)
"""Finished sets cut by the counting limit, by request digest (:func:`request_key`): :func:`credible_set`'s
``memo`` by default."""


def _checked_epsilon(bf, epsilon):
    if epsilon is None:
        if not (isinstance(bf, (int, float, np.integer, np.floating)) and math.isfinite(bf) and bf >= 1):
            raise SearchError(f"the Bayes factor must be a finite number >= 1, got {subject('bf', bf)}")
        return math.log(bf)
    if not (isinstance(epsilon, (int, float, np.integer, np.floating)) and math.isfinite(epsilon) and epsilon >= 0):
        raise SearchError(f"{subject('epsilon')} must be a finite number >= 0, got {epsilon!r}")
    return float(epsilon)


def _checked_limit(limit):
    if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
        raise SearchError(f"limit must be a whole number >= 1 (the most DAGs to collect), got {limit!r}")
    return int(limit)


def credible_set(data_or_scorer, score="bic", bf=20, epsilon=None, ess=1.0, max_indegree=None, limit=DEFAULT_LIMIT,
                 pruning=True, parent_sets=None, engine="auto", knowledge=None, progress=None, time_limit=None,
                 stop=None, control=None, statistics=False, memo=LIMITED_SETS):
    """Every DAG whose score is within ``log(bf)`` of the optimum.

    Liao, Sharma, Cussens & van Beek (2019), Eq. (3), solved exactly by
    dynamic programming and a bounded enumeration (see the module docstring),
    or, beyond the DP's reach, by branch and cut on SCIP
    (:func:`bnexplore.search.ilp.enumerate_credible`: the optimum, then one tree
    search that records every DAG above ``OPT - epsilon`` and branches it
    away). Both engines give the same set and the same limit semantics.

    Parameters
    ----------
    data_or_scorer : Dataset or Scorer
        The data, or a Scorer (then ``score`` and ``ess`` are ignored).
    score : {"bic", "bdeu"} or another Scorer score
    bf : float
        Bayes factor >= 1 (3, 20 and 150 mark positive, strong and very strong
        evidence on the Kass & Raftery scale the paper uses).
    epsilon : float, optional
        The margin ``log(BF)`` directly; overrides ``bf``.
    ess : float
        BDeu equivalent sample size.
    max_indegree : int, optional
        Only DAGs with at most this many parents per node.
    limit : int
        Most DAGs to collect; when more exist the set is truncated and says so
        (``truncated_reason``): it then holds the best DAGs, every one within
        the smaller margin ``complete_epsilon`` of the optimum (see
        :func:`bnexplore.search.credible.dp.collect`), like the paper's counting limit on a solver that
        finds networks best first.
    pruning : bool
        Use the pruning rules (False scores every parent set: slow, for checks).
    parent_sets : ParentSets, optional
        Reuse candidate parent sets built by
        :func:`~bnexplore.parents.pruning.candidate_parent_sets` for this
        scorer with an epsilon at least this one (then ``pruning`` is ignored).
    engine : {"auto", "dp", "ilp"}
        See :func:`bnexplore.search.engine.choose_engine` (``auto`` keeps the
        DP wherever it fits and should finish within
        :data:`~bnexplore.search.engine.DP_PREFERRED_SECONDS_CREDIBLE`,
        estimated again with the candidate parent sets once they are built;
        where it should take more than
        :data:`~bnexplore.search.engine.DP_PREFERRED_SECONDS`, the ILP is tried first for
        :data:`ILP_FIRST_SHARE` of the DP's estimated time, and the DP runs
        only if the ILP has not finished by then).
    knowledge : Knowledge, optional
        Background knowledge (:class:`bnexplore.knowledge.Knowledge`, checked
        before any work): the set is then every DAG honouring it within
        ``epsilon`` of the best DAG honouring it (the candidates are built
        under it; the ILP enumerates without the covered-arc constraints,
        whose one member per class may break the knowledge).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`. With the ILP, reports carry
        ``found`` (DAGs so far), ``score`` and ``bound``; a stop returns the
        DAGs found so far (``truncated_reason`` says so).
    statistics : bool
        With the ILP, keep the stats of the optimum's and the enumeration's
        solves, with SCIP's own time breakdown (LP, strong branching,
        separation), under ``optimum_stats`` and ``enumeration_stats``: where
        the time went, for benchmarks.
    memo : Memo
        Where finished sets cut by the counting limit are remembered and
        looked up (:class:`bnexplore.search.memo.Memo`; by default
        :data:`LIMITED_SETS`, shared by the process).

    Returns
    -------
    CredibleSet
        ``stats`` hold ``engine``, ``engine_reason``, the seconds of each
        phase (``seconds_candidates``, ``seconds_dp`` or ``seconds_ilp`` (the
        optimum), ``seconds_enumeration``, ``seconds_grouping``, and
        ``seconds_ilp_attempt`` when the ILP tried first did not finish),
        ``candidate_sets``, ``search_steps`` (DP steps or ILP tree nodes),
        ``seconds_to_limit`` (seconds from the start of the search, the
        candidates built, to the moment ``limit`` DAGs were first held, None
        if never: where GOBNILP's counting limit, which the paper used, would
        have ended the search),
        ``memory_bytes`` and the candidate statistics under ``candidates``.

    Raises
    ------
    SearchError
        On a bad Bayes factor, epsilon, limit or engine, or contradictory knowledge.
    ResourceError
        When the table and the collected DAGs need more memory than is available.

    Examples
    --------
    >>> import numpy as np
    >>> from bnexplore.data import Dataset
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> b = (a + (rng.random(500) < 0.1)) % 2          # b copies a, with 10% noise
    >>> c = rng.integers(0, 3, 500)                      # c is on its own
    >>> data = Dataset.from_codes(np.column_stack([a, b, c]), names=["a", "b", "c"])
    >>> found = credible_set(data, score="bic", bf=20)
    >>> len(found), len(found.classes), found.truncated    # a -> b and b -> a: one equivalence class
    (2, 1, False)
    >>> found.classes[0].cpdag.to_json()["links"]
    [['a', 'b']]
    >>> found.adjacency_probabilities.round(3).tolist()[0]
    [0.0, 1.0, 0.0]
    """
    scorer = data_or_scorer if isinstance(data_or_scorer, Scorer) else Scorer(data_or_scorer, score=score, ess=ess)
    epsilon = _checked_epsilon(bf, epsilon)
    limit = _checked_limit(limit)
    if check_knowledge(knowledge):
        knowledge.bind(scorer, max_indegree)
    control = Control.of(control, progress, time_limit, stop)
    start = search_clock()
    snapshot = scorer.snapshot()
    n = scorer.n_vars
    chosen, reason, dp_estimate = choose_engine(n, parent_sets, "credible", limit, engine)
    params = {**scorer.params, "bf": math.exp(epsilon), "epsilon": epsilon, "max_indegree": max_indegree,
              "limit": limit, "pruning": bool(pruning), "engine": chosen, **knowledge_params(knowledge)}
    key = request_key(scorer, parent_sets, params)
    earlier = memo.get(key)
    if earlier is not None and earlier.epsilon <= epsilon:
        stats = {k: v for k, v in earlier.stats.items() if not k.startswith("seconds")}  # no search ran
        stats["reused_from_bf"] = math.exp(earlier.epsilon)
        result = CredibleSet(scorer.names, earlier.parent_masks.copy(), earlier.scores.copy(), earlier.opt, epsilon,
                             scorer.score_name, params=params, stats=stats, truncated_reason=earlier.truncated_reason,
                             complete_epsilon=earlier.complete_epsilon)
    else:
        if chosen == "dp":  # before the candidates are built: the table may not fit
            needed = dp_memory(n) + enumeration_memory(n, limit)
            check_memory(needed, f"the credible set over {n} variables with limit={limit:,}", dp_hint())
            control.report(done=None, message=f"credible set: needs {format_bytes(needed)}")
        t0, estimated = search_clock(), parent_sets is not None  # given candidates were counted above
        parent_sets = prepare_parent_sets(scorer, parent_sets, max_indegree, epsilon, control,
                                          rules=RULES if pruning else (), knowledge=knowledge)
        seconds_candidates = search_clock() - t0
        if chosen == "dp" and engine == "auto" and not estimated and not control.should_stop():
            chosen, reason, dp_estimate = choose_engine(n, parent_sets, "credible", limit)  # with their scans
            if chosen == "ilp":
                reason += REESTIMATED
        args = (scorer, parent_sets, epsilon, limit)
        budget = ilp_first_budget(chosen, dp_estimate) if engine == "auto" else None
        if chosen == "ilp":
            masks, scores, opt, why, complete, stats = ilp_set(*args, control, knowledge, statistics)
        elif budget is not None:
            chosen, reason, (masks, scores, opt, why, complete, stats) = _ilp_first(
                args, control, knowledge, statistics, budget, reason)
        else:
            masks, scores, opt, why, complete, stats = dp_set(*args, control)
        params["engine"] = chosen
        stats.update(seconds_candidates=seconds_candidates, candidate_sets=len(parent_sets), stopped=control.reason,
                     engine=chosen, engine_reason=reason, **scorer.stats(snapshot), candidates=parent_sets.stats)
        result = CredibleSet(scorer.names, masks, scores, opt, epsilon, scorer.score_name, params=params,
                             stats=stats, truncated_reason=why, complete_epsilon=complete)
        if control.reason is None and why is not None:  # finished, cut by the counting limit
            memo.put(key, result)
    result.stats["seconds"] = search_clock() - start
    control.finish(message=f"credible set: {len(result):,} DAGs in {result.stats['n_classes']:,} classes",
                   score=result.opt, found=len(result))
    return result


def request_key(scorer, parent_sets, params):
    """A digest of what a credible set depends on besides epsilon: the data, the settings, the candidates given.

    A finished set cut by the counting limit at ``epsilon`` is the answer at
    every larger epsilon too: more than ``limit`` DAGs are within ``epsilon``
    of the optimum, so the best ``limit`` of a wider margin are the same DAGs
    (the candidates built for the wider margin add only DAGs further from the
    optimum than ``epsilon``), and so is the complete margin stated. The app's
    Bayes factor slider and a benchmark's rising Bayes factors meet this on
    every data set with more than ``limit`` DAGs at the smallest.
    """
    settings = {k: v for k, v in params.items() if k not in ("bf", "epsilon")}
    arrays = [scorer.cols, scorer.arities]
    if parent_sets is not None:
        given = CandidateArrays(parent_sets)
        arrays += [given.masks, given.scores, given.offsets]
    return digest(arrays, json.dumps([scorer.names, settings], sort_keys=True, default=str))


def ilp_first_budget(chosen, dp_estimate):
    """Seconds an ``auto`` credible set gives the ILP before the subset DP: :data:`ILP_FIRST_SHARE` of
    ``dp_estimate`` when ``chosen`` is the DP and it should take more than
    :data:`bnexplore.search.exact.DP_PREFERRED_SECONDS`, else None."""
    if chosen == "dp" and dp_estimate > DP_PREFERRED_SECONDS:
        return ILP_FIRST_SHARE * dp_estimate
    return None


def _ilp_first(args, control, knowledge, statistics, budget, dp_reason):
    """``auto`` where the DP would take long: the ILP within ``budget`` seconds
    (:func:`ilp_first_budget`), then, unless it finished or the caller stopped, the DP.
    ``(engine, reason, set)``."""
    limit = budget if control.remaining is None else min(budget, control.remaining)
    attempt = Control(progress=control.progress, time_limit=max(limit, 1e-9), stop=control.should_stop,
                      min_interval=control.min_interval, clock=control.clock)
    t0, start = search_clock(), control.clock()
    out = ilp_set(*args, attempt, knowledge, statistics)
    tried = f"tried first for up to {budget:.3g} s, {ILP_FIRST_SHARE:.0%} of the subset DP's estimated time"
    if attempt.reason is None or control.should_stop():
        ended = "it finished" if attempt.reason is None else f"{control.reason} while it ran"
        return "ilp", f"ILP engine (branch and cut on SCIP), {tried}: {ended} [{dp_reason}]", out
    seconds = search_clock() - t0
    masks, scores, opt, why, complete, stats = dp_set(*args, control, start=start)
    stats["seconds_ilp_attempt"] = seconds
    return "dp", f"{dp_reason}; the ILP engine, {tried}, had not finished", (masks, scores, opt, why, complete,
                                                                                stats)


def ilp_set(scorer, parent_sets, epsilon, limit, control, knowledge=None, statistics=False):
    """The credible set over the candidates by branch and cut: the optimum, then every DAG above
    ``OPT - epsilon`` in one tree search. Returns what :func:`bnexplore.search.credible.dp.dp_set` does."""
    n = scorer.n_vars
    needed = ilp.ilp_memory(len(parent_sets)) + enumeration_memory(n, limit) + ilp.exploration_memory(n, limit)
    check_memory(needed, f"the credible set (ILP) over {len(parent_sets):,} candidate parent sets with "
                         f"limit={limit:,}", "set max_indegree, a smaller Bayes factor or a smaller limit")
    start = control.clock()
    candidates = CandidateArrays(parent_sets)
    t_candidates = search_clock()
    best = ilp.optimum(candidates, OrderCandidates(parent_sets), control, reuse=True, statistics=statistics)
    t_opt = search_clock()
    stats = {"seconds_ilp": t_opt - t_candidates, "memory_bytes": needed,
             "opt_nodes": best.stats["nodes"], "opt_reused": best.stats.get("reused", False), "bound": best.bound,
             "gap": best.gap}
    if not best.optimal:
        stats.update(seconds_enumeration=0.0, search_steps=0, seconds_to_limit=None)
        reason = (f"{control.reason}: stopped before the optimum was proven "
                  f"({ilp.describe_gap(best.score, best.bound)})")
        return np.zeros((0, n), np.int64), np.zeros(0), None, reason, None, stats
    opt = best.score
    collector, out = ilp.enumerate_credible(candidates, opt - epsilon - tolerance(opt), limit, control, opt,
                                        covered=score_equivalent(scorer.score_name) and not knowledge,
                                        known=best.cuts, statistics=statistics, start=best.parents)
    masks, scores = collector.masks[:collector.count], collector.scores[:collector.count]
    if out.stopped:
        reason = f"{control.reason}: the search ended after {collector.count:,} DAGs, more may exist"
        complete = None
    else:
        masks, scores, reason, complete = limited_set(masks, scores, opt, epsilon, limit, collector.overflow)
    stats.update(seconds_enumeration=search_clock() - t_opt, search_steps=out.stats["nodes"],
                 seconds_to_limit=None if collector.full_at is None else collector.full_at - start,
                 enumeration_nodes=out.stats["nodes"], objective_limit_raised=out.stats["objective_limit_raised"],
                 cluster_cuts=best.stats["cluster_cuts"]
                 + out.stats["cluster_cuts"], lp_iterations=best.stats["lp_iterations"] + out.stats["lp_iterations"])
    if statistics:
        stats.update(optimum_stats=best.stats, enumeration_stats=out.stats)
    return masks, scores, opt, reason, complete, stats

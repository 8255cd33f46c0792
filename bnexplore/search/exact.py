"""The optimal network by dynamic programming over variable subsets.

Silander & Myllymaki (2006), "A simple approach for finding the globally
optimal Bayesian network structure", UAI, Section 3: every DAG over a set
``S`` has a sink ``v`` whose parents lie in ``S - v``, so the best score of a
DAG over ``S`` is

    B(S) = max over v in S of  bp(v, S - v) + B(S - v),    B({}) = 0,

where ``bp(v, R)`` is the best local score of ``v`` with all parents inside
``R``. Here ``bp`` is not tabulated (that needs ``n 2^(n-1)`` entries): the
candidate parent sets of ``v`` are kept best first as bitmasks
(:class:`bnexplore.parents.ParentSets`), so ``bp(v, R)`` is the score of the
first candidate whose mask is a subset of ``R``. Only ``B`` is stored, one
float64 per subset (``8 * 2^n`` bytes), filled layer by layer (all subsets of
one size, in parallel) so that a layer only reads the one before it.
"""

import math
import time

import numpy as np
from numba import njit, prange

from ..control import Control
from ..errors import ResourceError, SearchError, subject
from ..graphs import DAG
from ..knowledge import knowledge_params
from ..parents import ParentSets
from ..parents.pruning import RULES, candidate_parent_sets
from ..resources import available_memory, check_memory, format_bytes
from ..result import Result

MAX_VARIABLES = 62
"""Subsets are int64 bitmasks: at most this many variables (memory runs out long before)."""

_OVERHEAD = 64 << 20
"""Bytes allowed beyond the table for candidates, Python and numba."""

_SLICE = 1 << 21
"""Subsets per kernel call, between two checks of the stop flag."""

ENGINES = ("auto", "dp", "ilp")
"""Exact engines: the dynamic programme over subsets, branch and cut on SCIP, or the faster of the two."""

DP_SECONDS_PER_STEP = 1.2e-8
"""Seconds per (node, subset) step of the dynamic programme on 2 cores (autos, n = 26: 23 s; benchmarks)."""

DP_SECONDS_PER_CHECK = 6e-10
"""Seconds per candidate parent set the DP's scans check (:func:`dp_checks`), on 2 cores (22 variables with
4,000 and 40,000 candidate sets of 4-6 parents per node: 6 and 12 s against 0.6 s with the empty set only)."""

DP_CHECK_SAMPLES = 256
"""Subsets per layer and node that :func:`dp_checks` samples (layers this small are counted exactly)."""

DP_PREFERRED_SECONDS = 30.0
"""``auto`` runs the DP for the optimum when it should take at most this long (the ILP beyond)."""

DP_PREFERRED_SECONDS_CREDIBLE = 600.0
"""``auto`` runs the DP for a credible set up to this long: it enumerates far faster than the ILP (beyond
:data:`DP_PREFERRED_SECONDS` :func:`bnexplore.search.credible.credible_set` tries the ILP first, for
``credible.ILP_FIRST_SHARE`` of the DP's estimated time: small sets come out of it in seconds)."""


REESTIMATED = " [estimated again with the candidate parent sets]"
"""Ends ``engine_reason`` where ``auto`` switched to the ILP once the candidates' scans were counted."""


def memory_needed(n):
    """Bytes the dynamic programme over ``n`` variables needs (the table ``B`` and headroom)."""
    return 8 * (1 << int(n)) + _OVERHEAD


def dp_seconds(n, candidates=None):
    """Rough seconds of the dynamic programme over ``n`` variables.

    ``n 2^n`` (node, subset) steps, and with ``candidates`` (a
    :class:`Candidates`) the candidates its scans check (:func:`dp_checks`):
    with tens of thousands of candidate sets per node these dominate (sensors,
    25 variables: about 10 s from the steps alone, minutes in all). Infinite
    beyond :data:`MAX_VARIABLES` (the DP cannot run; ``2.0 ** n`` would
    overflow from 1,024 variables).
    """
    if n > MAX_VARIABLES:
        return math.inf
    seconds = DP_SECONDS_PER_STEP * n * 2.0 ** n
    if candidates is not None:
        seconds += DP_SECONDS_PER_CHECK * dp_checks(candidates)
    return seconds


def dp_checks(candidates, samples=DP_CHECK_SAMPLES, seed=0):
    """Expected number of candidates the DP's scans (:func:`best_within`) check over all subsets.

    ``sum over v and k of C(n - 1, k) * mean scan length`` for node ``v``
    among ``k`` other nodes (:func:`scan_lengths`; exact where a layer has at
    most ``samples`` subsets, sampled beyond). An upper figure: the DP skips
    a scan when even the node's best score cannot beat the subset's best so far.
    """
    n = candidates.n
    sizes = np.array([math.comb(n - 1, k) for k in range(n)], np.float64)
    return float((scan_lengths(candidates.masks, candidates.offsets, n, sizes, samples, seed) * sizes).sum())


@njit(cache=True)
def _spread(bits, v):
    """Bitmask over ``n - 1`` positions to a subset of the nodes other than ``v`` (a 0 inserted at bit ``v``)."""
    low = bits & ((np.int64(1) << v) - 1)
    return low | ((bits ^ low) << 1)


@njit(cache=True)
def _scan_length(masks, lo, hi, allowed):
    """Candidates :func:`best_within` checks in ``lo:hi`` for ``allowed`` (all of them when none fits)."""
    j = best_within(masks, lo, hi, allowed)
    return j - lo + 1 if j >= 0 else hi - lo


@njit(cache=True)
def scan_lengths(masks, offsets, n, sizes, samples, seed):
    """Mean candidates :func:`best_within` checks for node ``v`` in a subset of ``k`` other nodes: ``(n, n)``, ``[v, k]``.

    A check stops at the first candidate inside the subset (all of them when
    none fits). Layers of at most ``samples`` subsets (``sizes[k]`` is
    ``C(n - 1, k)``) are counted exactly; larger ones over ``samples``
    uniform random subsets (seeded).
    """
    np.random.seed(seed)
    out = np.zeros((n, n))
    pool = np.arange(n - 1)
    for v in range(n):
        lo, hi = offsets[v], offsets[v + 1]
        for k in range(n):
            total = 0.0
            if sizes[k] <= samples:
                bits = (np.int64(1) << k) - 1
                for _ in range(int(sizes[k])):
                    total += _scan_length(masks, lo, hi, _spread(bits, v))
                    if bits != 0:
                        bits = _next_subset(bits)
                out[v, k] = total / sizes[k]
            else:
                for _ in range(samples):
                    bits = np.int64(0)
                    for i in range(k):
                        r = i + np.random.randint(n - 1 - i)
                        pool[i], pool[r] = pool[r], pool[i]
                        bits |= np.int64(1) << pool[i]
                    total += _scan_length(masks, lo, hi, _spread(bits, v))
                out[v, k] = total / samples
    return out


def _dp_hint():
    from . import ilp

    if ilp.available():
        return f"use {subject('engine', 'ilp')} (branch and cut, memory grows with the candidate parent sets, not 2^n)"
    return ("install pyscipopt for the integer-programming engine (pip install pyscipopt), or use fewer variables "
            "or a heuristic search")


def choose_engine(n_vars, parent_sets=None, task="optimum", limit=None, engine="auto"):
    """Which exact engine runs, why, and roughly how long it takes.

    The subset DP (:func:`exact_search`'s ``engine="dp"``) needs ``8 * 2^n``
    bytes and ``~n 2^n`` steps whatever the data; branch and cut on SCIP
    (``engine="ilp"``, :mod:`bnexplore.search.ilp`) grows with the candidate
    parent sets and with how tight its LP relaxation is, which no formula
    predicts. ``auto`` takes the DP while it fits in memory and should take at
    most :data:`DP_PREFERRED_SECONDS` (:data:`DP_PREFERRED_SECONDS_CREDIBLE`
    for a credible set, where the DP's enumeration is much faster than the
    ILP's), else the ILP. Measured crossover (BENCHMARKS.md): the DP wins up to
    about 26 variables on the eBNSL data; the ILP proves alarm (37) in under
    a second at N = 1,000.

    Parameters
    ----------
    n_vars : int
    parent_sets : ParentSets, optional
        The candidates, when known (their number enters the reason).
    task : {"optimum", "credible"}
    limit : int, optional
        Most DAGs a credible set collects (its memory).
    engine : {"auto", "dp", "ilp"}
        A named engine is checked (installed, fits in memory) and returned.

    Returns
    -------
    (engine, reason, seconds)
        ``engine`` is "dp" or "ilp"; ``reason`` one sentence for the user;
        ``seconds`` a rough estimate, or None when none can be given.

    Raises
    ------
    SearchError
        On an unknown engine or task, or "ilp" without PySCIPOpt.
    ResourceError
        When no engine can run (the DP does not fit and PySCIPOpt is missing).
    """
    from . import ilp

    if engine not in ENGINES:
        raise SearchError(f"unknown exact engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if task not in ("optimum", "credible"):
        raise SearchError(f"unknown task {task!r}: 'optimum' or 'credible'")
    n = int(n_vars)
    needed = memory_needed(n) if n <= MAX_VARIABLES else None
    if task == "credible" and needed is not None:
        from .credible import DEFAULT_LIMIT, enumeration_memory

        needed += enumeration_memory(n, DEFAULT_LIMIT if limit is None else limit)
    available = available_memory()
    fits = needed is not None and (available is None or needed <= available)
    known = isinstance(parent_sets, ParentSets) and parent_sets.n_vars == n and fits  # checked by the search
    seconds = dp_seconds(n, Candidates(parent_sets) if known else None)
    sets = "" if parent_sets is None else (f" over {len(parent_sets):,} candidate parent sets (about "
                                           f"{format_bytes(ilp.memory_needed(len(parent_sets)))})")
    ilp_reason = (f"branch and cut on SCIP{sets}: its time depends on how tight the LP relaxation is "
                  "(seconds for most data sets of this size, hours for a few)")
    if engine == "ilp" or (engine == "auto" and not fits):
        if not ilp.available():
            if engine == "ilp":
                raise SearchError(ilp.INSTALL_HINT)
            need = "more than 62 variables" if needed is None else f"{format_bytes(needed)} of memory"
            raise ResourceError(f"the subset DP over {n} variables needs {need} and the integer-programming "
                                "engine is not installed: pip install pyscipopt, or use a heuristic search")
        why = "as asked" if engine == "ilp" else (
            f"the subset DP over {n} variables would need {format_bytes(needed)} of memory"
            if needed is not None else f"the subset DP handles at most {MAX_VARIABLES} variables")
        return "ilp", f"ILP engine ({why}): {ilp_reason}", None
    if engine == "dp" and needed is None:
        raise ResourceError(f"the subset DP handles at most {MAX_VARIABLES} variables (subsets are 64-bit masks), "
                            f"this problem has {n}; {_dp_hint()}")
    dp_reason = f"subset DP over {n} variables: {format_bytes(needed)} of memory, about {seconds:.2g} s"
    if engine == "dp":
        if not fits:
            raise ResourceError(f"the subset DP over {n} variables needs {format_bytes(needed)} of memory but "
                                f"only {format_bytes(available)} is available; {_dp_hint()}")
        return "dp", f"{dp_reason} (as asked)", seconds
    preferred = DP_PREFERRED_SECONDS_CREDIBLE if task == "credible" else DP_PREFERRED_SECONDS
    if seconds <= preferred or not ilp.available():
        why = "" if seconds <= preferred else " (the ILP engine is not installed: pip install pyscipopt)"
        return "dp", f"{dp_reason}{why}", seconds
    return "ilp", (f"ILP engine (the subset DP over {n} variables would take about {seconds:.2g} s): "
                   f"{ilp_reason}"), None


def _checked_size(n):
    if n > MAX_VARIABLES:
        raise ResourceError(f"the exact search handles at most {MAX_VARIABLES} variables (parent sets are 64-bit "
                            f"masks), this problem has {n}; use a heuristic search (hill climbing, ordering-based)")


class Candidates:
    """Candidate parent sets of all nodes as flat arrays for the kernels.

    ``masks[offsets[v]:offsets[v + 1]]`` and ``scores[...]`` are node ``v``'s
    candidates best first; ``top[v]`` its best score; ``forced[v]`` the
    parents every candidate of ``v`` holds (its required parents, under
    background knowledge).
    """

    def __init__(self, parent_sets):
        n = parent_sets.n_vars
        _checked_size(n)
        masks = [parent_sets.masks(v) for v in range(n)]
        scores = [np.asarray(parent_sets.scores(v), np.float64) for v in range(n)]
        for v, m in enumerate(masks):
            if len(np.unique(m)) != len(m):
                raise SearchError(f"node {parent_sets.names[v]!r} lists a candidate parent set twice")
        self.n = n
        self.offsets = np.zeros(n + 1, np.int64)
        self.offsets[1:] = np.cumsum([len(m) for m in masks])
        self.masks = np.concatenate(masks).astype(np.int64)
        self.scores = np.concatenate(scores)
        self.top = np.array([s[0] for s in scores])
        self.forced = np.array([np.bitwise_and.reduce(m) for m in masks], np.int64)


@njit(cache=True)
def best_within(masks, lo, hi, allowed):
    """Index of the first candidate in ``lo:hi`` whose mask lies inside ``allowed`` (-1 if none)."""
    for j in range(lo, hi):
        if masks[j] & ~allowed == 0:
            return j
    return -1


@njit(cache=True)
def _unrank(rank, k, binom):
    """The ``k``-subset of colexicographic rank ``rank``, as a bitmask."""
    mask = np.int64(0)
    for i in range(k, 0, -1):
        c = i - 1
        while binom[c + 1, i] <= rank:
            c += 1
        rank -= binom[c, i]
        mask |= np.int64(1) << c
    return mask


@njit(cache=True)
def _next_subset(s):
    """The next bitmask with as many bits as ``s`` (Gosper's hack: colex order)."""
    c = s & -s
    r = s + c
    return (((r ^ s) >> 2) // c) | r


@njit(cache=True)
def _subset_score(table, s, n, masks, scores, offsets, top):
    """``B(s)``: the best sink ``v`` of ``s`` and its best parents inside ``s - v``."""
    best = -np.inf
    for v in range(n):
        bit = np.int64(1) << v
        if s & bit:
            rest = s ^ bit
            below = table[rest]
            if top[v] + below > best:
                j = best_within(masks, offsets[v], offsets[v + 1], rest)
                if j >= 0 and scores[j] + below > best:
                    best = scores[j] + below
    return best


@njit(cache=True)
def fill_range(table, k, lo, hi, n, masks, scores, offsets, top, binom):
    """Fill ``B`` for the subsets of size ``k`` of colex ranks ``lo`` to ``hi - 1``, on one thread.

    The subsets of size ``k - 1`` must be filled. The first is unranked, the
    others follow by Gosper's hack.
    """
    if lo == hi:
        return
    s = _unrank(lo, k, binom)
    for _ in range(hi - lo):
        table[s] = _subset_score(table, s, n, masks, scores, offsets, top)
        s = _next_subset(s)


@njit(cache=True, parallel=True)
def fill_layer(table, k, first, count, n, masks, scores, offsets, top, binom):
    """:func:`fill_range` for the ``count`` subsets of size ``k`` from colex rank ``first`` on,
    cut into pieces filled in parallel (a piece writes only its own subsets)."""
    pieces = min(count, 512)
    for p in prange(pieces):
        fill_range(table, k, first + count * p // pieces, first + count * (p + 1) // pieces, n, masks, scores,
                   offsets, top, binom)


PARALLEL_STEPS = 1 << 15
"""(node, subset) steps from which a slice of a layer is filled in parallel (:func:`fill_layer`): below
that, waking the threads costs more than they save (the small layers of every search, all of a small one)."""


@njit(cache=True)
def optimal_parents(table, full, n, masks, scores, offsets):
    """Parent bitmask of every node in an optimal DAG over ``full``, from a filled table.

    Walks down from ``full``: at ``S`` the first sink ``v`` whose best parent
    set inside ``S - v`` attains ``B(S)`` (the same sum as in the table, so the
    comparison is exact). Nodes outside ``full``, and every node when
    ``B(full)`` is minus infinity (no DAG fits the candidates), get -1.
    """
    parents = np.full(n, -1, np.int64)
    s = full
    found = True
    while s != 0 and found:
        found = False
        for v in range(n):
            bit = np.int64(1) << v
            if s & bit:
                rest = s ^ bit
                j = best_within(masks, offsets[v], offsets[v + 1], rest)
                if j >= 0 and scores[j] + table[rest] == table[s]:
                    parents[v] = masks[j]
                    s = rest
                    found = True
                    break
    return parents


def _binomials(n):
    table = np.zeros((n + 2, n + 2), np.int64)
    for a in range(n + 2):
        for b in range(a + 1):
            table[a, b] = math.comb(a, b)
    return table


def subset_table(candidates, control):
    """Fill the table ``B`` over all subsets of the candidates' nodes.

    Returns ``(table, size)``: ``size`` is the largest subset size whose
    layer is complete (``n`` unless the stop flag or time limit fired).
    """
    n = candidates.n
    table = np.empty(1 << n, np.float64)
    table[0] = 0.0
    binom = _binomials(n)
    done = 1
    total = float(1 << n)
    for k in range(1, n + 1):
        count = int(binom[n, k])
        for first in range(0, count, _SLICE):
            if control.should_stop():
                return table, k - 1
            size = min(_SLICE, count - first)
            arrays = (n, candidates.masks, candidates.scores, candidates.offsets, candidates.top, binom)
            if size * n >= PARALLEL_STEPS:
                fill_layer(table, k, first, size, *arrays)
            else:
                fill_range(table, k, first, first + size, *arrays)
            done += size
            control.report(done=done / total, message=f"exact: subsets of size {k} of {n}")
    return table, n


def mask_to_parents(mask, n):
    """The node indices in a bitmask, ascending."""
    return [u for u in range(n) if (int(mask) >> u) & 1]


def _greedy_completion(candidates, table, size):
    """A DAG from a table complete up to ``size``: greedy sinks above it, optimal below.

    Above ``size`` each step removes the sink whose best parent set among the
    remaining nodes scores highest, never a node another remaining node must
    have as a parent (``Candidates.forced``), so a DAG always remains below;
    used when the search was stopped early.
    """
    n = candidates.n
    parents = np.full(n, -1, np.int64)
    s = (1 << n) - 1
    while bin(s).count("1") > size:
        best, choice = -np.inf, None
        needed = int(np.bitwise_or.reduce(candidates.forced[mask_to_parents(s, n)]))
        for v in mask_to_parents(s & ~needed, n):
            rest = s ^ (1 << v)
            j = best_within(candidates.masks, candidates.offsets[v], candidates.offsets[v + 1],
                            rest)
            if j >= 0 and candidates.scores[j] > best:
                best, choice = candidates.scores[j], (v, j)
        if choice is None:
            raise SearchError("no candidate parent set fits: give every node the empty parent set")
        parents[choice[0]] = candidates.masks[choice[1]]
        s ^= 1 << choice[0]
    if np.isneginf(table[s]):
        raise SearchError("no DAG fits the candidate parent sets: give every node the empty parent set")
    below = optimal_parents(table, np.int64(s), n, candidates.masks, candidates.scores, candidates.offsets)
    return np.where(parents >= 0, parents, below)


def prepare_parent_sets(scorer, parent_sets, max_indegree, epsilon, control, rules=RULES, knowledge=None):
    """The given candidate sets (checked, cut to ``max_indegree``) or new ones pruned for ``epsilon``.

    Given sets must come from the scorer's variables and score and, when
    their ``stats`` say how they were pruned, be complete and pruned for at
    least ``epsilon`` (sets kept for a larger margin are a superset of those
    a smaller one needs). With ``knowledge`` new sets are built under it
    (:func:`candidate_parent_sets`); given ones must have been built under the
    same knowledge, or scored without pruning (then filtered): filtering
    pruned sets could lose the best DAG honouring it (DESIGN.md, "Knowledge").
    """
    if parent_sets is None:
        _checked_size(scorer.n_vars)
        return candidate_parent_sets(scorer, epsilon=epsilon, max_indegree=max_indegree, rules=rules,
                                     knowledge=knowledge, control=control)
    if not isinstance(parent_sets, ParentSets):
        raise SearchError(f"parent_sets must be a ParentSets, got {type(parent_sets).__name__}")
    if list(parent_sets.names) != list(scorer.names):
        raise SearchError("parent_sets were built for other variables than the scorer's data")
    if parent_sets.score_name != scorer.score_name:
        raise SearchError(f"parent_sets hold {parent_sets.score_name} scores but the scorer computes "
                          f"{scorer.score_name}")
    pruned_for = parent_sets.stats.get("epsilon", epsilon)
    if pruned_for < epsilon:
        raise SearchError(f"the candidate parent sets were pruned for epsilon={pruned_for:g}, less than the "
                          f"{epsilon:g} needed: rebuild them for this Bayes factor")
    if parent_sets.stats.get("complete") is False:
        raise SearchError("the candidate parent sets are incomplete (their computation was stopped): rebuild them")
    if knowledge and parent_sets.stats.get("knowledge") != knowledge.to_json():
        if "knowledge" in parent_sets.stats or parent_sets.stats.get("rules") != []:
            raise SearchError("the candidate parent sets were not built under this knowledge: rebuild them with "
                              "candidate_parent_sets(..., knowledge=...), or leave parent_sets out")
        parent_sets = knowledge.bind(scorer, max_indegree).filter(parent_sets)
    if max_indegree is None:
        return parent_sets
    kept = [[(ps, s) for ps, s in zip(parent_sets.sets(v), parent_sets.scores(v)) if len(ps) <= max_indegree]
            for v in range(parent_sets.n_vars)]
    return ParentSets(parent_sets.names, kept, parent_sets.score_name, parent_sets.stats)


def exact_search(scorer, max_indegree=None, parent_sets=None, engine="auto", knowledge=None, progress=None,
                 time_limit=None, stop=None, control=None):
    """The highest-scoring DAG: by dynamic programming over subsets, or by branch and cut.

    Silander & Myllymaki (2006), Section 3, over the candidate parent sets of
    :func:`bnexplore.parents.pruning.candidate_parent_sets` (pruned for the
    optimum, ``epsilon = 0``) or the given ones; or, for large problems, the
    integer programme of :func:`bnexplore.search.ilp.ilp_search` over the
    same candidates (see :func:`choose_engine`).

    Parameters
    ----------
    scorer : Scorer
    max_indegree : int, optional
        Largest number of parents of a node.
    parent_sets : ParentSets, optional
        Candidate parent sets to search over (computed when not given).
    engine : {"auto", "dp", "ilp"}
        ``auto`` picks by :func:`choose_engine`, and where it picked the DP
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
        allocating; :func:`memory_needed`).
    SearchError
        On an unknown engine, ``engine="ilp"`` without PySCIPOpt, or
        contradictory knowledge.
    """
    from .ilp import ilp_search

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
    start = time.perf_counter()
    snapshot = scorer.snapshot()
    _checked_size(n)
    needed = memory_needed(n)
    check_memory(needed, f"the exact search over {n} variables", _dp_hint())
    control.report(done=0.0, message=f"exact: needs {format_bytes(needed)} for {n} variables")
    estimated = parent_sets is not None  # the choice above already counted the given candidates
    parent_sets = prepare_parent_sets(scorer, parent_sets, max_indegree, 0.0, control, knowledge=knowledge)
    seconds_candidates = time.perf_counter() - start
    if engine == "auto" and not estimated and not control.should_stop():
        chosen, reason, _ = choose_engine(n, parent_sets, "optimum")  # their scans may make the DP slow
        if chosen == "ilp":
            result = ilp_search(scorer, parent_sets=parent_sets, knowledge=knowledge, control=control)
            result.stats.update(engine_reason=reason + REESTIMATED,
                                seconds=result.stats["seconds"] + seconds_candidates,
                                seconds_candidates=seconds_candidates)
            return result
    candidates = Candidates(parent_sets)
    table, size = subset_table(candidates, control)
    if size == n:
        if np.isneginf(table[-1]):
            raise SearchError("no DAG fits the candidate parent sets: give every node the empty parent set")
        masks = optimal_parents(table, np.int64((1 << n) - 1), n, candidates.masks, candidates.scores,
                                candidates.offsets)
    else:
        masks = _greedy_completion(candidates, table, size)
    parents = [mask_to_parents(m, n) for m in masks]
    graph = DAG.from_parents(parents, scorer.names)
    score = scorer.total(parents)
    if parent_sets.stats.get("complete", True) is False:
        bound = None  # stopped while the candidates were computed: no bound holds for the others
    else:
        bound = score if size == n else float(candidates.top.sum())  # each node at its best parents

    stats = {"seconds": time.perf_counter() - start, "seconds_candidates": seconds_candidates,
             "seconds_dp": time.perf_counter() - start - seconds_candidates, "iterations": size,
             "structures_evaluated": int(sum(math.comb(n, k) for k in range(size + 1))),
             **scorer.stats(snapshot), "candidate_sets": len(parent_sets), "memory_bytes": needed,
             "opt": float(table[-1]) if size == n else None, "exact": size == n, "engine": "dp",
             "engine_reason": reason, "bound": bound, "gap": None if bound is None else max(0.0, bound - score),
             "edges": graph.n_edges, "stopped": control.reason}
    params = {**scorer.params, "max_indegree": max_indegree, "engine": "dp", **knowledge_params(knowledge)}
    control.finish(message="exact: done", score=score, bound=bound, gap=stats["gap"])
    return Result(graph=graph, score=score, score_name=scorer.score_name, algorithm="exact", params=params,
                  stats=stats, extra={"candidates": parent_sets.stats})

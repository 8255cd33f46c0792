"""The credible set by the subset DP: a bounded enumeration over the table ``B``.

Liao, Sharma, Cussens & van Beek (2019) collect the credible DAGs with
GOBNILP; here they are enumerated exactly, each once, from the table of
:mod:`bnexplore.search.subsets`: a depth-first search over canonical
constructions (:func:`enumerate_table`) bounded by ``B`` emits every DAG
scoring at least ``OPT - epsilon - tolerance(OPT)``, and :func:`collect` keeps
them all, or the best ``limit`` (:mod:`bnexplore.search.kbest`).
"""


import numpy as np

from ...compiling import njit, search_clock
from ...parents.pruning import tolerance
from ..kbest import enumeration_memory, heapify, limited_set, sift_down
from ..subsets import CandidateArrays, dp_memory, subset_table

STEPS = 2_000_000
"""Search steps per kernel call, between two checks of the stop flag."""


@njit(cache=True)
def enumerate_table(table, masks, scores, offsets, n, threshold, subset, need, acc, node, choice, depth,
                   out_masks, out_scores, count, max_steps, heap):
    """Depth-first enumeration of every DAG scoring at least ``threshold``, resumable.

    Each DAG is built by one canonical sequence: remove its highest-index sink
    ``v`` from the node set ``S``, record ``v``'s parents ``P`` (inside
    ``R = S - v``), continue on ``R``. The search state at depth ``d`` is
    ``(S, need, acc)``: ``need`` holds the nodes of ``S`` that must still get
    a child from a node removed later (they may not be sinks here) and
    ``acc`` the local scores so far. From a state it tries every ``v`` in
    ``S - need`` and, best first, every candidate ``P`` of ``v`` inside ``R``
    with ``acc + s(v, P) + B(R) >= threshold`` (stopping at the first that
    falls short), and moves to ``(R, (need | {u in R: u > v}) - P, acc +
    s(v, P))``: the nodes above ``v`` must not be sinks of the DAG on ``S``,
    so each needs a child, and the members of ``P`` just got one.

    Exactly once: the sinks removed are forced (the highest-index sink at
    each step), so two different paths give two different DAGs, and every
    DAG's canonical sequence obeys the ``need`` rule. None missed: ``B(R)`` is
    the best score of any DAG over ``R``, so the bound never cuts the
    canonical path of a DAG above the threshold; branches whose ``need``
    cannot be met die without emitting.

    Parameters
    ----------
    table : float64 array
        ``B`` over all subsets (:func:`bnexplore.search.subsets.subset_table`).
    masks, scores, offsets : arrays
        Candidate parent sets, best first per node (see
        :class:`bnexplore.search.subsets.CandidateArrays`).
    n : int
    threshold : float
    subset, need, acc, node, choice : arrays of length ``n + 1``
        The search stack (state and the candidate chosen at each depth);
        start with ``subset[0] = 2**n - 1``, ``need[0] = acc[0] = 0``,
        ``node[0] = choice[0] = -1`` and depth 0.
    depth : int
    out_masks : (capacity, n) int64 array
        Row t receives the parent bitmask of every node of DAG t.
    out_scores : float64 array
        Its score (the sum of its local scores in removal order).
    count : int
        Rows of ``out_masks`` already filled.
    max_steps : int
        Return after this many steps (the stack holds the state to resume).
    heap : int64 array
        Empty: stop when ``out_masks`` is full. Else the rows of the full
        ``out_masks`` as a min-heap on ``out_scores`` (:func:`heapify`): a new
        DAG better than the worst kept one replaces it, and the threshold
        rises to the worst kept score, so the search ends holding the best
        ``capacity`` DAGs (branch and bound for the k best).

    Returns
    -------
    count : int
    depth : int
        -1 once the search is finished; else pass it back to resume.
    steps : int
        Search steps taken (states visited plus DAGs emitted).
    threshold : float
        The threshold now (raised in heap mode).
    overflow : int
        DAGs met while ``out_masks`` was full (kept or not).
    """
    d = depth
    steps = 0
    overflow = 0
    capacity = out_masks.shape[0]
    keep_best = heap.shape[0] > 0
    while d >= 0 and (count < capacity or keep_best) and steps < max_steps:
        steps += 1
        s = subset[d]
        if s == 0:
            row = count
            if count == capacity:
                overflow += 1
                row = heap[0]
                if acc[d] <= out_scores[row]:
                    d -= 1
                    continue
            for i in range(d):
                out_masks[row, node[i]] = masks[choice[i]]
            out_scores[row] = acc[d]
            if row == count:
                count += 1
            else:
                sift_down(heap, out_scores, 0)
                threshold = max(threshold, out_scores[heap[0]])
            d -= 1
            continue
        v = node[d]
        j = choice[d] + 1
        found = False
        while v < n:
            if v >= 0 and (s >> v) & 1 and not (need[d] >> v) & 1:
                rest = s ^ (np.int64(1) << v)
                below = table[rest]
                while j < offsets[v + 1]:
                    if acc[d] + scores[j] + below < threshold:
                        break
                    if masks[j] & ~rest == 0:
                        found = True
                        break
                    j += 1
                if found:
                    break
            v += 1
            if v < n:
                j = offsets[v]
        if not found:
            d -= 1
            continue
        node[d] = v
        choice[d] = j
        rest = s ^ (np.int64(1) << v)
        above = rest & ~((np.int64(2) << v) - 1)
        subset[d + 1] = rest
        need[d + 1] = (need[d] | above) & ~masks[j]
        acc[d + 1] = acc[d] + scores[j]
        node[d + 1] = -1
        choice[d + 1] = -1
        d += 1
    return count, d, steps, threshold, overflow


def collect(candidates, table, opt, epsilon, limit, control):
    """The credible DAGs, or the ``limit`` best of them when there are more.

    Runs :func:`enumerate_table` to the end or to a stop. Until ``limit`` DAGs
    are found every one is kept; from then on the search keeps the best
    ``limit`` (heap mode) and its threshold rises to the worst kept score.
    When more than ``limit`` credible DAGs exist, the DAGs tied (within
    :func:`bnexplore.search.kbest.tie_slack`) with the worst kept one are dropped, so what remains is
    *every* DAG within a smaller margin ``complete_epsilon`` of the optimum:
    a DAG scoring at least ``worst + tie_slack`` has a computed score above
    every threshold used, so it was met, and it was never evicted, since only
    DAGs at most the final worst score are.

    Returns
    -------
    parent_masks, scores : arrays
    reason : str or None
        Why the set is incomplete (None when it is every credible DAG).
    steps : int
    complete_epsilon : float or None
        The set is every DAG with score >= OPT - complete_epsilon (epsilon
        itself when complete); None after a stop, or when the limit is smaller
        than the number of DAGs tied at the worst kept score.
    full_at : float or None
        ``control.clock()`` when ``limit`` DAGs were first held (None if never).
    """
    n = candidates.n
    threshold = opt - epsilon - tolerance(opt)
    subset = np.zeros(n + 1, np.int64)
    subset[0] = (1 << n) - 1
    need = np.zeros(n + 1, np.int64)
    acc = np.zeros(n + 1)
    node = np.full(n + 1, -1, np.int64)
    choice = np.full(n + 1, -1, np.int64)
    capacity = min(limit, 1 << 16)
    out_masks = np.zeros((capacity, n), np.int64)
    out_scores = np.empty(capacity)
    heap = np.zeros(0, np.int64)
    count, depth, steps, overflow, full_at = 0, 0, 0, 0, None
    while depth >= 0:
        if control.should_stop():
            reason = f"{control.reason}: the search ended after {count:,} DAGs, more may exist"
            return out_masks[:count], out_scores[:count], reason, steps, None, full_at
        if count == capacity and not len(heap):
            if capacity == limit:
                heap = heapify(out_scores)
                full_at = control.clock()
            else:
                capacity = min(2 * capacity, limit)
                out_masks = np.concatenate([out_masks, np.zeros((capacity - len(out_masks), n), np.int64)])
                out_scores = np.concatenate([out_scores, np.empty(capacity - len(out_scores))])
        count, depth, done, threshold, extra = enumerate_table(
            table, candidates.masks, candidates.scores, candidates.offsets, n, threshold, subset, need, acc, node,
            choice, depth, out_masks, out_scores, count, STEPS, heap)
        steps += done
        overflow += extra
        worst = f"; the worst kept is {opt - out_scores[heap[0]]:.4g} below OPT" if len(heap) else ""
        control.report(done=None, message=f"credible set: {count:,} DAGs kept{worst}")
    if full_at is None and count == limit:  # filled by the last chunk of steps
        full_at = control.clock()
    masks, scores, reason, complete = limited_set(out_masks[:count], out_scores[:count], opt, epsilon, limit,
                                                  overflow)
    return masks, scores, reason, steps, complete, full_at


def dp_set(scorer, parent_sets, epsilon, limit, control, start=None):
    """The credible set over the candidates by the subset DP and :func:`collect`:
    ``(masks, scores, opt, truncated reason, complete epsilon, stats)``; ``start`` (``control.clock()``
    when the search began, by default now) dates ``seconds_to_limit``."""
    n = scorer.n_vars
    start = control.clock() if start is None else start
    candidates = CandidateArrays(parent_sets)
    t_candidates = search_clock()
    table, size = subset_table(candidates, control)
    t_dp = search_clock()
    opt = float(table[-1]) if size == n else None
    if opt is None:
        masks, scores, steps, complete, full_at = np.zeros((0, n), np.int64), np.zeros(0), 0, None, None
        reason = f"{control.reason}: stopped before the optimum was found"
    else:
        masks, scores, reason, steps, complete, full_at = collect(candidates, table, opt, epsilon, limit, control)
    del table
    stats = {"seconds_dp": t_dp - t_candidates, "seconds_enumeration": search_clock() - t_dp,
             "search_steps": steps, "memory_bytes": dp_memory(n) + enumeration_memory(n, limit),
             "seconds_to_limit": None if full_at is None else full_at - start}
    return masks, scores, opt, reason, complete, stats

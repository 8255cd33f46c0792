"""The numba kernels of the ordering searches, OBS and ASOBS, over one flat copy of the candidates.

The candidates (:class:`bnexplore.search.ordering.Candidates`) are ``parents`` (C x k, padded with
-1), ``sizes``, ``scores`` and ``offsets`` (node ``v`` owns rows ``offsets[v]:offsets[v + 1]``, best
first); an ordering is ``order`` (the nodes, first to last) with ``pos`` its inverse, and a choice is
``chosen`` (one row per node).

OBS (Teyssier & Koller, "Ordering-based search", UAI 2005): each node's best candidate with all
parents earlier (:func:`obs_parents`), adjacent swaps (:func:`swap_delta`, :func:`climb_swaps`) and
our insertion moves (:func:`best_insertion`: the best of all ``n (n - 1)`` moves without an
``n x n`` table; :func:`apply_insertion` makes one, updating only the span it crosses). ASOBS
(Scanagatta, de Campos, Corani & Zaffalon, "Learning Bayesian Networks with Thousands of
Variables", NIPS 2015, Section 4): nodes from last to first, each taking its best
candidate that closes no cycle (:func:`asobs_step`, :func:`asobs_parents`); and the topological
orders that follow an ordering where they can (:func:`respecting_order`, :func:`topological_order`).
"""

import numpy as np

from ..compiling import njit


@njit(cache=True)
def first_consistent(parents, sizes, start, stop, pos, limit):
    """First row in ``start:stop`` whose parents all have ``pos < limit`` (-1 if none)."""
    for t in range(start, stop):
        ok = True
        for s in range(sizes[t]):
            if pos[parents[t, s]] >= limit:
                ok = False
                break
        if ok:
            return t
    return -1


@njit(cache=True)
def obs_parents(parents, sizes, offsets, order):
    """OBS choice for an ordering: each node's best candidate with all parents
    earlier (Teyssier & Koller 2005, Section 3). Returns ``(chosen rows, pos)``."""
    n = order.shape[0]
    pos = np.empty(n, np.int64)
    for j in range(n):
        pos[order[j]] = j
    chosen = np.empty(n, np.int64)
    for v in range(n):
        chosen[v] = first_consistent(parents, sizes, offsets[v], offsets[v + 1], pos, pos[v])
    return chosen, pos


@njit(cache=True)
def _contains(parents, sizes, t, x):
    for s in range(sizes[t]):
        if parents[t, s] == x:
            return True
    return False


@njit(cache=True)
def swap_delta(parents, sizes, scores, offsets, order, pos, chosen, j):
    """Score change of swapping ``order[j]`` and ``order[j + 1]`` under OBS.

    Only the two swapped nodes' choices change (Teyssier & Koller 2005,
    Section 3.2): ``a = order[j]`` may now use ``b`` (its new best is at or
    before its current one), ``b`` loses ``a`` (it must look further only if
    its current set contains ``a``). Returns ``(delta, new row of a, new row
    of b)``; ``pos`` is restored. The delta is minus infinity when no
    candidate of ``b`` fits without ``a`` (``a`` is a required parent of ``b``).
    """
    a = order[j]
    b = order[j + 1]
    pos[a] = j + 1
    pos[b] = j
    new_a = first_consistent(parents, sizes, offsets[a], chosen[a] + 1, pos, j + 1)
    new_b = chosen[b]
    if _contains(parents, sizes, new_b, a):
        new_b = first_consistent(parents, sizes, new_b + 1, offsets[b + 1], pos, j)
    pos[a] = j
    pos[b] = j + 1
    if new_b < 0:
        return -np.inf, new_a, new_b
    delta = (scores[new_a] - scores[chosen[a]]) + (scores[new_b] - scores[chosen[b]])
    return delta, new_a, new_b


@njit(cache=True)
def swap_deltas(parents, sizes, scores, offsets, order, pos, chosen):
    """:func:`swap_delta` of every adjacent pair (``n - 1`` values)."""
    n = order.shape[0]
    deltas = np.empty(max(n - 1, 0))
    for j in range(n - 1):
        deltas[j] = swap_delta(parents, sizes, scores, offsets, order, pos, chosen, j)[0]
    return deltas


@njit(cache=True)
def climb_swaps(parents, sizes, scores, offsets, order, pos, chosen, deltas, max_swaps, tol):
    """Best-improvement hill climbing over adjacent swaps, in place.

    Applies the swap of largest gain while it gains more than ``tol``, at
    most ``max_swaps`` times; after a swap at ``j`` only the gains at
    ``j - 1, j, j + 1`` change (the set of nodes before every other pair is
    the same). Returns the number of swaps made.
    """
    n = order.shape[0]
    swaps = 0
    while swaps < max_swaps and n > 1:
        j = np.argmax(deltas)
        if deltas[j] <= tol:
            break
        _, new_a, new_b = swap_delta(parents, sizes, scores, offsets, order, pos, chosen, j)
        a = order[j]
        b = order[j + 1]
        order[j] = b
        order[j + 1] = a
        pos[b] = j
        pos[a] = j + 1
        chosen[a] = new_a
        chosen[b] = new_b
        for i in range(max(j - 1, 0), min(j + 2, n - 1)):
            deltas[i] = swap_delta(parents, sizes, scores, offsets, order, pos, chosen, i)[0]
        swaps += 1
    return swaps


@njit(cache=True)
def apply_insertion(parents, sizes, scores, offsets, order, pos, chosen, deltas, v, j):
    """Make the insertion move ``(v, j)`` of :func:`best_insertion` in place: ``v`` to position
    ``j``, the nodes between shifted by one, their OBS choices and the swap gains updated.

    Only the nodes between ``v``'s old and new positions (``v`` included) change their set of
    predecessors, so only their choices change, and only the adjacent pairs that touch them
    (from one before that span to its end) change their swap gain; every other pair keeps the
    same two nodes with the same predecessors. The result is the one :func:`obs_parents` and
    :func:`swap_deltas` give on the moved ordering, in time proportional to that span's
    candidates rather than the whole table's.
    """
    n = order.shape[0]
    i = pos[v]
    if j < i:
        for p in range(i, j, -1):
            order[p] = order[p - 1]
    else:
        for p in range(i, j):
            order[p] = order[p + 1]
    order[j] = v
    lo, hi = min(i, j), max(i, j)
    for p in range(lo, hi + 1):
        pos[order[p]] = p
    for p in range(lo, hi + 1):
        u = order[p]
        chosen[u] = first_consistent(parents, sizes, offsets[u], offsets[u + 1], pos, p)
    for p in range(max(lo - 1, 0), min(hi + 1, n - 1)):
        deltas[p] = swap_delta(parents, sizes, scores, offsets, order, pos, chosen, p)[0]


@njit(cache=True)
def by_node(nodes, positions, gains, count, n):
    """Entries ``0:count`` of ``(node, position, gain)`` grouped by node, stably (a counting
    sort): node ``v``'s are ``start[v]:start[v + 1]`` of the returned positions and gains."""
    start = np.zeros(n + 1, np.int64)
    for e in range(count):
        start[nodes[e] + 1] += 1
    for v in range(n):
        start[v + 1] += start[v]
    fill = start[:n].copy()
    out_positions = np.empty(count, np.int64)
    out_gains = np.empty(count)
    for e in range(count):
        v = nodes[e]
        out_positions[fill[v]] = positions[e]
        out_gains[fill[v]] = gains[e]
        fill[v] += 1
    return start, out_positions, out_gains


@njit(cache=True)
def insertion_neighbours(parents, sizes, scores, offsets, order, pos, chosen):
    """What an insertion move does to the nodes it passes, as sparse lists per moved node.

    Moving ``v`` earlier, to or before position ``p``, lets the node ``u`` at ``p`` use
    ``v``: its gain is its best candidate better than its current one whose only parent
    at or after ``p`` is ``v`` (one scan of those candidates, best first, gives it for
    every such ``v`` at once); ``enter`` holds one entry per (``u``, such ``v``). Moving
    ``v`` later, past ``u``, takes ``v`` away from ``u`` when ``u``'s chosen set holds it:
    ``u`` falls back on its best candidate without ``v`` (minus infinity when it has none,
    ``v`` being a required parent); ``leave`` holds one entry per parent of a chosen set.
    Returns ``(enter start, positions, gains, leave start, positions, gains)``, grouped
    by ``v`` (see :func:`by_node`) in increasing position; memory O(C + nk).
    """
    n = order.shape[0]
    enter_nodes = np.empty(parents.shape[0], np.int64)
    enter_positions = np.empty(parents.shape[0], np.int64)
    enter_gains = np.empty(parents.shape[0])
    leave_nodes = np.empty(n * parents.shape[1], np.int64)
    leave_positions = np.empty(n * parents.shape[1], np.int64)
    leave_gains = np.empty(n * parents.shape[1])
    n_enter = 0
    n_leave = 0
    stamp = np.full(n, -1, np.int64)
    for p in range(n):
        u = order[p]
        current = scores[chosen[u]]
        for t in range(offsets[u], chosen[u]):
            missing = -1
            count = 0
            for s in range(sizes[t]):
                if pos[parents[t, s]] >= p:
                    missing = parents[t, s]
                    count += 1
            if count == 1 and stamp[missing] != u:
                stamp[missing] = u
                enter_nodes[n_enter] = missing
                enter_positions[n_enter] = p
                enter_gains[n_enter] = scores[t] - current
                n_enter += 1
        c = chosen[u]
        for s in range(sizes[c]):
            v = parents[c, s]
            gain = -np.inf
            for t in range(c + 1, offsets[u + 1]):
                if first_consistent(parents, sizes, t, t + 1, pos, p) == t and not _contains(parents, sizes, t, v):
                    gain = scores[t] - current
                    break
            leave_nodes[n_leave] = v
            leave_positions[n_leave] = p
            leave_gains[n_leave] = gain
            n_leave += 1
    return (by_node(enter_nodes, enter_positions, enter_gains, n_enter, n)
            + by_node(leave_nodes, leave_positions, leave_gains, n_leave, n))


@njit(cache=True)
def best_insertion(parents, sizes, scores, offsets, order, pos, chosen):
    """The best insertion move under OBS: ``(v, j, gain)``, in O(Ck + C log C + n) time and
    O(Ck + n) memory.

    The move takes node ``v`` (at ``i = pos[v]``) out and puts it back just before the node
    now at ``j`` (``j < i``) or just after it (``j > i``); ``j = i`` is no move (gain 0).
    Adjacent swaps are the moves with ``j = i +- 1``. Its gain is ``v``'s own change, its
    best candidate with all parents before ``j`` (``j < i``) or at or before ``j``
    (``j > i``) minus its current one, plus the changes of the nodes it passes
    (:func:`insertion_neighbours`): summed from ``i - 1`` down to ``j``, or from ``i + 1``
    up to ``j``, in that order. As a function of ``j`` each part is a step function, so
    each ``v`` is evaluated only where a step starts: its candidates' latest parent
    positions (sorted, read as a running maximum) and its neighbours' positions. Among
    equal gains the smallest ``v``, then the smallest ``j``: the first maximum of the
    ``n x n`` table of all moves read row by row, which is never built.
    """
    n = order.shape[0]
    enter_start, enter_positions, enter_gains, leave_start, leave_positions, leave_gains = \
        insertion_neighbours(parents, sizes, scores, offsets, order, pos, chosen)
    best, best_v, best_j = -np.inf, -1, -1
    for v in range(n):
        a, b = offsets[v], offsets[v + 1]
        i = pos[v]
        current = scores[chosen[v]]
        latest = np.empty(b - a, np.int64)
        for t in range(a, b):
            last = -1
            for s in range(sizes[t]):
                last = max(last, pos[parents[t, s]])
            latest[t - a] = last
        by_latest = np.argsort(latest)
        e0, e1 = enter_start[v], enter_start[v + 1]
        l0, l1 = leave_start[v], leave_start[v + 1]
        starts = np.empty(b - a + max(e1 - e0, l1 - l0) + 1, np.int64)
        # earlier (j < i): v may use the parents before j; the nodes at j .. i - 1 may use v
        tail = np.empty(e1 - e0 + 1)
        tail[e1 - e0] = 0.0
        for e in range(e1 - 1, e0 - 1, -1):
            tail[e - e0] = tail[e - e0 + 1] + enter_gains[e]
        m = 0
        if i > 0:
            starts[m] = 0
            m += 1
        for q in range(b - a):
            if latest[q] + 1 < i:
                starts[m] = latest[q] + 1
                m += 1
        for e in range(e0, e1):
            if enter_positions[e] + 1 < i:
                starts[m] = enter_positions[e] + 1
                m += 1
        q = 0
        own = -np.inf
        e = e0
        for j in np.sort(starts[:m]):
            while q < b - a and latest[by_latest[q]] < j:
                own = max(own, scores[a + by_latest[q]])
                q += 1
            while e < e1 and enter_positions[e] < j:
                e += 1
            gain = own - current + tail[e - e0]
            if gain > best:
                best, best_v, best_j = gain, v, j
        if 0.0 > best:
            best, best_v, best_j = 0.0, v, i
        # later (j > i): v may use the parents at or before j; the nodes at i + 1 .. j lose v
        m = 0
        if i < n - 1:
            starts[m] = i + 1
            m += 1
        for r in range(b - a):
            if latest[r] > i:
                starts[m] = latest[r]
                m += 1
        for e in range(l0, l1):
            starts[m] = leave_positions[e]
            m += 1
        total = 0.0
        e = l0
        for j in np.sort(starts[:m]):
            while q < b - a and latest[by_latest[q]] <= j:
                own = max(own, scores[a + by_latest[q]])
                q += 1
            while e < l1 and leave_positions[e] <= j:
                total += leave_gains[e]
                e += 1
            gain = own - current + total
            if gain > best:
                best, best_v, best_j = gain, v, j
    return best_v, best_j, best


@njit(cache=True)
def first_acyclic(parents, sizes, start, stop, descendants_of_v):
    """First row in ``start:stop`` with no parent among the marked descendants."""
    for t in range(start, stop):
        ok = True
        for s in range(sizes[t]):
            if descendants_of_v[parents[t, s]]:
                ok = False
                break
        if ok:
            return t
    return -1


@njit(cache=True)
def asobs_step(v, parents, sizes, offsets, chosen, desc, todo):
    """One step of an ASOBS pass (Scanagatta et al. 2015, Section 4, steps 2a-2d).

    Node ``v`` takes its best candidate with no parent among its descendants
    (``desc[v, y]``: y is a descendant of v), so no cycle closes. Then every
    ancestor of ``v`` gains ``v`` and ``v``'s descendants: for each such
    ``y`` a todo list (a stack) starts with ``v``'s new parents and is passed
    up the parent links, and a node is passed on only when its cell
    ``desc[x, y]`` turns from false to true. Each cell turns true at most once
    per pass, so all steps together cost O(Ck + k n^2). ``chosen[x] = -1``
    marks nodes not yet processed (no parents yet). Returns the chosen row.
    """
    t = first_acyclic(parents, sizes, offsets[v], offsets[v + 1], desc[v])
    chosen[v] = t
    n = desc.shape[0]
    for y in range(n):
        if y != v and not desc[v, y]:
            continue
        top = 0
        for s in range(sizes[t]):
            p = parents[t, s]
            if not desc[p, y]:
                desc[p, y] = True
                todo[top] = p
                top += 1
        while top > 0:
            top -= 1
            x = todo[top]
            tx = chosen[x]
            if tx < 0:
                continue
            for s in range(sizes[tx]):
                p = parents[tx, s]
                if not desc[p, y]:
                    desc[p, y] = True
                    todo[top] = p
                    top += 1
    return t


@njit(cache=True)
def asobs_parents(parents, sizes, offsets, order):
    """ASOBS choice for an ordering: nodes from last to first, each taking its
    best candidate that closes no cycle. Returns the chosen rows."""
    n = order.shape[0]
    chosen = np.full(n, -1, np.int64)
    desc = np.zeros((n, n), np.bool_)
    todo = np.empty(n, np.int64)
    for j in range(n - 1, -1, -1):
        asobs_step(order[j], parents, sizes, offsets, chosen, desc, todo)
    return chosen


@njit(cache=True)
def respecting_order(order, before):
    """An ordering with every ``u`` before ``v`` where ``before[u, v]``, following
    ``order`` where it can: repeatedly the earliest node (in ``order``) whose
    ``before`` nodes are all placed. -1 fills the rest when ``before`` has a cycle."""
    n = order.shape[0]
    missing = np.zeros(n, np.int64)
    for u in range(n):
        for v in range(n):
            if before[u, v]:
                missing[v] += 1
    placed = np.zeros(n, np.bool_)
    out = np.full(n, -1, np.int64)
    for i in range(n):
        v = -1
        for j in range(n):
            if not placed[order[j]] and missing[order[j]] == 0:
                v = order[j]
                break
        if v < 0:
            break
        placed[v] = True
        out[i] = v
        for c in range(n):
            if before[v, c]:
                missing[c] -= 1
    return out


@njit(cache=True)
def topological_order(parents, sizes, chosen, order):
    """A topological order of the chosen DAG that follows ``order`` where it
    can: repeatedly the earliest node (in ``order``) whose parents are all
    placed (:func:`respecting_order` of its arcs). O(n^2 + nk)."""
    n = order.shape[0]
    children = np.zeros((n, n), np.bool_)
    for v in range(n):
        t = chosen[v]
        for s in range(sizes[t]):
            children[parents[t, s], v] = True
    return respecting_order(order, children)

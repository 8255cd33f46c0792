"""Numba kernels of the integer programme: cluster cuts, cycles, sink heuristic.

The integer programme of :mod:`bnexplore.search.ilp` has one variable
``x[f]`` per family ``f = (v, J)`` (node ``v``, candidate parent set ``J``);
the families are laid out as in :class:`bnexplore.search.subsets.CandidateArrays`:
node ``v`` owns ``masks[offsets[v]:offsets[v + 1]]`` (parent bitmasks, best
score first). Acyclicity is imposed by *cluster constraints* (Jaakkola,
Sontag, Globerson & Meila 2010, Section 3; Cussens 2011; Bartlett & Cussens
2017, AIJ 244, Section 3): for every set ``C`` of at least two nodes,

    g(C) = sum over v in C of  sum over families (v, J) with J disjoint from C  of x[v, J]  >=  1,

that is, some node of ``C`` has no parent inside ``C``. A point ``x`` violates
the constraint of ``C`` when ``g(C) < 1``. Finding the most violated cluster
is NP-hard (Cussens, Jaervisalo, Korhonen & Bartlett 2017, JAIR 58), so
:func:`separate` combines cheap searches:

* *peeling* (the acyclicity reasoning of Troesser, de Givry & Katsirelos,
  IJCAI 2021, Section 4, applied to the LP support): nodes are placed one by
  one while some family with ``x > tau`` has all its parents placed; the nodes
  never placed form a cluster every one of whose heavy families meets it;
* its *strongly connected components*: a violated cluster may always be taken
  strongly connected in the support graph (an arc ``u -> v`` when a family of
  ``v`` with positive value contains ``u``), because the source component of a
  cluster's support graph is at least as violated as the cluster itself;
* *local search* on ``g`` (add or remove one node while ``g`` falls), from each
  component;
* an exact *branch and bound* over the subsets of one strongly connected
  component (the sub-IP of Bartlett & Cussens 2017, Section 4.1, solved by
  enumeration with the bound ``g >= sum over chosen v of the mass of v's
  families inside the excluded nodes``), with a node budget.

The same searches find violated *k-cluster* constraints (Jaakkola et al.
2010, Section 3.1): ``g_k(C) >= k``, where ``g_k`` counts the families with
fewer than ``k`` parents inside ``C``. They cut the half-integral points the
cluster constraints leave (half a dense subgraph, half the empty parent set),
which make the LP bound weak on large samples.

Where no cluster constraint is violated, :func:`separate_four_b` looks for
violated *4B inequalities* (Cussens, Jaervisalo, Korhonen & Bartlett 2017,
JAIR 58; pygobnilp's ``add_constraints_4b``), facets of the family polytope on
four nodes that cluster constraints do not imply (:func:`four_b_value`).

Integer points are checked exactly (:func:`integer_cycles`). The primal
heuristic (:func:`sink_order`) is Cussens's sink-finding heuristic (Bartlett &
Cussens 2017, Section 5): repeatedly remove, as a sink of the remaining nodes,
the node whose best still-allowed family has the largest LP value.
"""

import numpy as np

from ..compiling import njit

_EPS = 1e-9


@njit(cache=True)
def popcount(mask):
    """Number of set bits of a non-negative int64."""
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True)
def cluster_value(x, masks, offsets, cluster, k):
    """``g_k(C)``: the mass of the families of ``C``'s nodes with fewer than ``k`` parents inside ``C``.

    ``g_1`` is the ``g`` of the cluster constraint; the ``k``-cluster
    constraint (Jaakkola et al. 2010, Section 3.1) is ``g_k(C) >= k`` for
    ``|C| > k``: in a DAG the first ``k`` nodes of ``C`` in a topological
    order have fewer than ``k`` parents in ``C``.
    """
    total = 0.0
    n = offsets.shape[0] - 1
    for v in range(n):
        if (cluster >> v) & 1:
            for f in range(offsets[v], offsets[v + 1]):
                if popcount(masks[f] & cluster) < k:
                    total += x[f]
    return total


@njit(cache=True)
def support(x, masks, offsets, tol):
    """The families with ``x > tol`` as compact arrays ``(x, masks, offsets)`` (same layout)."""
    n = offsets.shape[0] - 1
    keep = x > tol
    m = np.count_nonzero(keep)
    sx = np.empty(m)
    smasks = np.empty(m, np.int64)
    soffsets = np.zeros(n + 1, np.int64)
    j = 0
    for v in range(n):
        for f in range(offsets[v], offsets[v + 1]):
            if keep[f]:
                sx[j] = x[f]
                smasks[j] = masks[f]
                j += 1
        soffsets[v + 1] = j
    return sx, smasks, soffsets


@njit(cache=True)
def support_parents(x, masks, offsets, tau):
    """``par[v]``: the union of the parent sets of ``v``'s families with ``x > tau``."""
    n = offsets.shape[0] - 1
    par = np.zeros(n, np.int64)
    for v in range(n):
        for f in range(offsets[v], offsets[v + 1]):
            if x[f] > tau:
                par[v] |= masks[f]
    return par


@njit(cache=True)
def peel(x, masks, offsets, tau):
    """Nodes left after placing, while possible, a node with a family of value > ``tau`` inside the placed ones.

    Every family with ``x > tau`` of every node left meets the set left, so
    that set ``R`` has ``g_1(R) <= sum over v in R`` of the mass of ``v``'s
    families with ``x <= tau``.
    """
    n = offsets.shape[0] - 1
    placed = np.int64(0)
    changed = True
    while changed:
        changed = False
        for v in range(n):
            if (placed >> v) & 1:
                continue
            for f in range(offsets[v], offsets[v + 1]):
                if x[f] > tau and masks[f] & ~placed == 0:
                    placed |= np.int64(1) << v
                    changed = True
                    break
    return ((np.int64(1) << n) - 1) & ~placed


@njit(cache=True)
def reach_closure(par, nodes):
    """``up[v]``: the nodes of ``nodes`` from which a path of ``par`` arcs (inside ``nodes``) leads to ``v``."""
    n = par.shape[0]
    up = np.zeros(n, np.int64)
    for v in range(n):
        if (nodes >> v) & 1:
            up[v] = par[v] & nodes
    changed = True
    while changed:
        changed = False
        for v in range(n):
            if not (nodes >> v) & 1:
                continue
            acc = up[v]
            rest = up[v]
            while rest:
                low = rest & -rest
                acc |= up[popcount(low - 1)]
                rest ^= low
            if acc != up[v]:
                up[v] = acc
                changed = True
    return up


@njit(cache=True)
def strong_components(par, nodes):
    """Strongly connected components (bitmasks, each of at least two nodes) of the graph ``par`` on ``nodes``."""
    n = par.shape[0]
    up = reach_closure(par, nodes)
    down = np.zeros(n, np.int64)
    for v in range(n):
        rest = up[v]
        while rest:
            low = rest & -rest
            down[popcount(low - 1)] |= np.int64(1) << v
            rest ^= low
    out = np.zeros(n, np.int64)
    count = 0
    seen = np.int64(0)
    for v in range(n):
        if not (nodes >> v) & 1 or (seen >> v) & 1:
            continue
        comp = (up[v] & down[v]) | (np.int64(1) << v)
        seen |= comp
        if comp & (comp - 1) and (up[v] >> v) & 1:
            out[count] = comp
            count += 1
    return out[:count]


@njit(cache=True)
def improve_cluster(x, masks, offsets, cluster, allowed, k):
    """Local search on ``g_k``: add (from ``allowed``) or drop one node at a time while ``g_k`` falls.

    Keeps more than ``k`` nodes. Returns ``(cluster, g_k)``.
    """
    n = offsets.shape[0] - 1
    best = cluster_value(x, masks, offsets, cluster, k)
    improved = True
    while improved:
        improved = False
        move = np.int64(0)
        move_value = best - _EPS
        for u in range(n):
            bit = np.int64(1) << u
            if (cluster >> u) & 1:
                trial = cluster ^ bit
                if popcount(trial) <= k:
                    continue
            elif (allowed >> u) & 1:
                trial = cluster | bit
            else:
                continue
            value = cluster_value(x, masks, offsets, trial, k)
            if value < move_value:
                move_value = value
                move = trial
        if move != 0:
            cluster = move
            best = move_value
            improved = True
    return cluster, best


@njit(cache=True)
def descend_cluster(x, masks, offsets, cluster, k):
    """Greedy removal path: drop, one at a time, the node whose removal leaves the least ``g_k``.

    Walks from ``cluster`` down to ``k + 1`` nodes, through increases too, and
    returns the best ``(cluster, g_k)`` on the way (local search alone stops
    at the first local minimum).
    """
    n = offsets.shape[0] - 1
    best_cluster = cluster
    best = cluster_value(x, masks, offsets, cluster, k)
    while popcount(cluster) > k + 1:
        step = np.int64(0)
        step_value = np.inf
        for u in range(n):
            if (cluster >> u) & 1:
                trial = cluster ^ (np.int64(1) << u)
                value = cluster_value(x, masks, offsets, trial, k)
                if value < step_value:
                    step_value = value
                    step = trial
        cluster = step
        if step_value < best - _EPS:
            best = step_value
            best_cluster = cluster
    return best_cluster, best


@njit(cache=True)
def exact_min(x, masks, offsets, comp, k, limit, budget):
    """The cluster inside ``comp`` (more than ``k`` nodes) of least ``g_k`` below ``limit``, by branch and bound.

    The exact counterpart of the sub-IP of Bartlett & Cussens (2017, Section
    4.1), by enumeration. Nodes of ``comp`` are decided in index order, in
    first, in decreasing order of the mass of the families they are a parent
    in (it prunes far earlier than index order). A partial choice (``inside`` chosen, ``outside`` excluded) has
    ``g_k >= sum over v in inside`` of the mass of ``v``'s families with fewer
    than ``k`` parents among the nodes not excluded: they keep fewer than
    ``k`` parents in any completion. A branch is cut when that bound reaches
    the best ``g_k`` met, at first ``limit``. Returns ``(cluster, g_k,
    steps)``: ``cluster`` 0 when no cluster has ``g_k < limit``; ``steps``
    more than ``budget`` when the budget ran out first (the cluster is then
    the best met).
    """
    n = offsets.shape[0] - 1
    weight = np.zeros(n)  # mass of the families a node is a parent in: decided first
    for v in range(n):
        for f in range(offsets[v], offsets[v + 1]):
            rest = masks[f] & comp
            while rest:
                low = rest & -rest
                weight[popcount(low - 1)] += x[f]
                rest ^= low
    nodes = np.empty(n, np.int64)
    size = 0
    for v in np.argsort(-weight):
        if (comp >> v) & 1:
            nodes[size] = v
            size += 1
    best_value = limit
    best_cluster = np.int64(0)
    inside = np.zeros(size + 1, np.int64)
    outside = np.zeros(size + 1, np.int64)
    choice = np.zeros(size + 1, np.int64)
    depth = 0
    choice[0] = -1
    steps = 0
    while depth >= 0:
        steps += 1
        if steps > budget:
            return best_cluster, best_value, steps
        choice[depth] += 1
        if choice[depth] > 1 or depth == size:
            depth -= 1
            continue
        bit = np.int64(1) << nodes[depth]
        ins = inside[depth] | bit if choice[depth] == 0 else inside[depth]
        outs = outside[depth] if choice[depth] == 0 else outside[depth] | bit
        possible = comp & ~outs
        bound = 0.0
        rest = ins
        while rest:
            low = rest & -rest
            v = popcount(low - 1)
            for f in range(offsets[v], offsets[v + 1]):
                if popcount(masks[f] & possible) < k:
                    bound += x[f]
            rest ^= low
        if bound >= best_value - _EPS:
            continue
        if popcount(ins) > k:
            value = cluster_value(x, masks, offsets, ins, k)
            if value < best_value - _EPS:
                best_value = value
                best_cluster = ins
        inside[depth + 1] = ins
        outside[depth + 1] = outs
        choice[depth + 1] = -1
        depth += 1
    return best_cluster, best_value, steps


@njit(cache=True)
def _add_cut(clusters, ks, count, cluster, k):
    for i in range(count):
        if clusters[i] == cluster and ks[i] == k:
            return count
    if count < clusters.shape[0]:
        clusters[count] = cluster
        ks[count] = k
        count += 1
    return count


@njit(cache=True)
def separate(x, masks, offsets, kmax, min_violation, max_cuts, taus, budget):
    """``k``-cluster constraints (``k <= kmax``) that ``x`` violates by at least ``min_violation``.

    Works on the families with positive value only. Starting points: the
    strongly connected components of the support graph, the clusters already
    found and, for ``k = 1``, what :func:`peel` leaves for every threshold in
    ``taus`` and its components. Each start is improved by
    :func:`improve_cluster`, directly and after :func:`descend_cluster`.
    When that finds nothing and ``budget > 0``, every strongly
    connected component of the support graph is searched exactly
    (:func:`exact_min`, at most ``budget`` search nodes each), ``k = 1``
    first.

    Returns
    -------
    clusters, ks : int64 arrays
        Distinct violated (cluster bitmask, k) pairs, at most ``max_cuts``.
    complete : bool
        True when the exact search ran to the end on every component for
        every ``k`` and found nothing: no such constraint is violated.
    """
    n = offsets.shape[0] - 1
    sx, smasks, soffsets = support(x, masks, offsets, _EPS)
    clusters = np.zeros(max_cuts, np.int64)
    ks = np.zeros(max_cuts, np.int64)
    count = 0
    full = (np.int64(1) << n) - 1
    whole = strong_components(support_parents(sx, smasks, soffsets, 0.0), full)
    for k in range(1, kmax + 1):
        before = count
        starts = np.zeros(4 * n + count + whole.shape[0], np.int64)
        m = 0
        for c in range(whole.shape[0]):
            starts[m] = whole[c]
            m += 1
        for c in range(count):
            starts[m] = clusters[c]
            m += 1
        if k == 1:
            for i in range(taus.shape[0]):
                rest = peel(sx, smasks, soffsets, taus[i])
                if popcount(rest) < 2:
                    continue
                comps = strong_components(support_parents(sx, smasks, soffsets, taus[i]), rest)
                for c in range(comps.shape[0]):
                    if m < starts.shape[0]:
                        starts[m] = comps[c]
                        m += 1
                if m < starts.shape[0]:
                    starts[m] = rest
                    m += 1
        for c in range(m):
            if popcount(starts[c]) <= k:
                continue
            for descend in range(2):
                cluster = starts[c]
                if descend:
                    cluster, _ = descend_cluster(sx, smasks, soffsets, cluster, k)
                cluster, value = improve_cluster(sx, smasks, soffsets, cluster, full, k)
                if value <= k - min_violation:
                    count = _add_cut(clusters, ks, count, cluster, k)
        if count == before and k > 1:
            break
    complete = False
    if count == 0 and budget > 0:
        complete = True
        for k in range(1, kmax + 1):
            for c in range(whole.shape[0]):
                cluster, value, steps = exact_min(sx, smasks, soffsets, whole[c], k, k - min_violation, budget)
                complete = complete and steps <= budget
                if cluster != 0:
                    count = _add_cut(clusters, ks, count, cluster, k)
            if count:
                complete = False
                break
    return clusters[:count], ks[:count], complete


@njit(cache=True)
def _in_four_b(m, y, pair, both):
    """Whether parent set ``m`` counts in a 4B term: ``y`` in it or (``both``) ``pair`` inside it,
    or (not ``both``) ``y`` in it and a node of ``pair`` too."""
    has_y = (m >> y) & 1
    if both:
        return has_y != 0 or (m & pair) == pair
    return has_y != 0 and (m & pair) != 0


@njit(cache=True)
def _four_b_term(x, masks, offsets, v, y, pair, both):
    total = 0.0
    for f in range(offsets[v], offsets[v + 1]):
        if _in_four_b(masks[f], y, pair, both):
            total += x[f]
    return total


@njit(cache=True)
def four_b_value(x, masks, offsets, a, b, c, d):
    """Left-hand side of the 4B inequality of the pairs ``{a, b}`` and ``{c, d}`` (valid: ``<= 2``).

    The inequality (Cussens, Jaervisalo, Korhonen & Bartlett 2017, JAIR 58,
    the "4B" facets of the family-variable polytope on four nodes) sums

    * for ``(v, y)`` in ``(a, b), (b, a)``: the families of ``v`` with ``y``
      a parent or both ``c`` and ``d`` parents;
    * for ``(v, y)`` in ``(c, d), (d, c)``: the families of ``v`` with ``y`` a
      parent and a parent in ``{a, b}``.

    In a DAG at most two of the four terms are 1 (the ``(c, d)`` terms would
    make a 2-cycle together; either with both ``(a, b)`` terms closes a
    cycle through ``a`` or ``b``), yet an LP point that violates no cluster
    constraint may put more than 2 here.
    """
    ab = (np.int64(1) << a) | (np.int64(1) << b)
    cd = (np.int64(1) << c) | (np.int64(1) << d)
    return (_four_b_term(x, masks, offsets, a, b, cd, True) + _four_b_term(x, masks, offsets, b, a, cd, True)
            + _four_b_term(x, masks, offsets, c, d, ab, False) + _four_b_term(x, masks, offsets, d, c, ab, False))


@njit(cache=True)
def separate_four_b(x, masks, offsets, min_violation, max_cuts):
    """The 4B inequalities (:func:`four_b_value`) that ``x`` violates most, by at least ``min_violation``.

    Every pair ``{c, d}`` adjacent in the support (else the last two terms
    vanish and the sum is at most 2) against every disjoint pair ``{a, b}``,
    over the families with positive value.

    Returns
    -------
    quads : (k, 4) int64 array
        ``(a, b, c, d)`` rows, most violated first, ``k <= max_cuts``.
    violations : float array
        ``four_b_value - 2`` of each.
    """
    n = offsets.shape[0] - 1
    sx, smasks, soffsets = support(x, masks, offsets, _EPS)
    par = support_parents(sx, smasks, soffsets, 0.0)
    quads = np.zeros((max_cuts, 4), np.int64)
    violations = np.zeros(max_cuts)
    count = 0
    for c in range(n):
        for d in range(c + 1, n):
            if not ((par[c] >> d) & 1 or (par[d] >> c) & 1):
                continue
            for a in range(n):
                if a == c or a == d:
                    continue
                for b in range(a + 1, n):
                    if b == c or b == d:
                        continue
                    excess = four_b_value(sx, smasks, soffsets, a, b, c, d) - 2.0
                    if excess < min_violation:
                        continue
                    slot = count
                    if count == max_cuts:  # full: replace the least violated when this one beats it
                        slot = np.argmin(violations)
                        if excess <= violations[slot]:
                            continue
                    else:
                        count += 1
                    quads[slot, 0], quads[slot, 1], quads[slot, 2], quads[slot, 3] = a, b, c, d
                    violations[slot] = excess
    order = np.argsort(-violations[:count])
    return quads[:count][order], violations[:count][order]


@njit(cache=True)
def four_b_families(masks, offsets, a, b, c, d):
    """Families with coefficient 1 in the 4B inequality of ``{a, b}`` and ``{c, d}`` (see :func:`four_b_value`)."""
    ab = (np.int64(1) << a) | (np.int64(1) << b)
    cd = (np.int64(1) << c) | (np.int64(1) << d)
    nodes = (a, b, c, d)
    others = (b, a, d, c)
    pairs = (cd, cd, ab, ab)
    out = np.empty(masks.shape[0], np.int64)
    count = 0
    for i in range(4):
        for f in range(offsets[nodes[i]], offsets[nodes[i] + 1]):
            if _in_four_b(masks[f], others[i], pairs[i], i < 2):
                out[count] = f
                count += 1
    return out[:count]


@njit(cache=True)
def chosen_parents(x, masks, offsets):
    """Parent bitmask of every node at an integral point (the family with ``x > 0.5``; -1 if none)."""
    n = offsets.shape[0] - 1
    out = np.full(n, -1, np.int64)
    for v in range(n):
        for f in range(offsets[v], offsets[v + 1]):
            if x[f] > 0.5:
                out[v] = masks[f]
                break
    return out


@njit(cache=True)
def integer_cycles(parents):
    """Disjoint directed cycles (node bitmasks) of the graph with parent bitmasks ``parents``; empty when acyclic.

    Nodes whose parents are all placed are placed until none is left; every
    node left has a parent left, so walking parent links from one of them
    closes a cycle. Each cycle found is a cluster whose constraint the point
    violates by 1 (every node of the cycle has a parent in it); its nodes are
    removed and the search repeats.
    """
    n = parents.shape[0]
    placed = np.int64(0)
    changed = True
    while changed:
        changed = False
        for v in range(n):
            if not (placed >> v) & 1 and parents[v] & ~placed == 0:
                placed |= np.int64(1) << v
                changed = True
    full = (np.int64(1) << n) - 1
    left = full & ~placed
    out = np.zeros(n, np.int64)
    count = 0
    order = np.empty(n + 1, np.int64)
    while left:
        v = popcount((left & -left) - 1)
        seen = np.int64(0)
        length = 0
        while not (seen >> v) & 1:
            seen |= np.int64(1) << v
            order[length] = v
            length += 1
            inside = parents[v] & left
            if inside == 0:
                break
            v = popcount((inside & -inside) - 1)
        if not (seen >> v) & 1:
            left &= ~seen
            continue
        cycle = np.int64(0)
        for i in range(length - 1, -1, -1):
            cycle |= np.int64(1) << order[i]
            if order[i] == v:
                break
        out[count] = cycle
        count += 1
        left &= ~cycle
        changed = True
        while changed:  # drop the nodes that now have no parent left
            changed = False
            for u in range(n):
                if (left >> u) & 1 and parents[u] & left == 0:
                    left &= ~(np.int64(1) << u)
                    changed = True
    return out[:count]


@njit(cache=True)
def sink_order(x, scores, masks, offsets):
    """A total order of the nodes from the LP point ``x`` by repeatedly choosing a sink.

    Among the remaining nodes ``R``, each node's best allowed family is the one
    of largest ``x`` (then best score) with all parents in ``R - v``; the node
    whose best allowed family has the largest ``x`` (ties: the smallest score
    loss against its unrestricted best family) is removed as the sink of ``R``
    (Bartlett & Cussens 2017, Section 5). Returns the order, first node first
    (sinks come last).
    """
    n = offsets.shape[0] - 1
    left = (np.int64(1) << n) - 1
    order = np.empty(n, np.int64)
    for step in range(n - 1, -1, -1):
        pick = -1
        pick_x = -1.0
        pick_loss = np.inf
        for v in range(n):
            if not (left >> v) & 1:
                continue
            allowed = left & ~(np.int64(1) << v)
            bx = -1.0
            bs = -np.inf
            for f in range(offsets[v], offsets[v + 1]):
                if masks[f] & ~allowed == 0:
                    if x[f] > bx + _EPS or (x[f] > bx - _EPS and scores[f] > bs):
                        bx = x[f]
                        bs = scores[f]
            if bx < 0:
                continue
            loss = scores[offsets[v]] - bs
            if bx > pick_x + _EPS or (bx > pick_x - _EPS and loss < pick_loss):
                pick = v
                pick_x = bx
                pick_loss = loss
        if pick < 0:  # no node has a family inside the rest: give up (the empty set is missing)
            return order[:0]
        order[step] = pick
        left &= ~(np.int64(1) << pick)
    return order


@njit(cache=True)
def order_families(masks, offsets, order):
    """The best family of every node whose parents all come earlier in ``order`` (-1 when none fits)."""
    n = order.shape[0]
    chosen = np.full(n, -1, np.int64)
    before = np.int64(0)
    for i in range(n):
        v = order[i]
        for f in range(offsets[v], offsets[v + 1]):
            if masks[f] & ~before == 0:
                chosen[v] = f
                break
        before |= np.int64(1) << v
    return chosen


@njit(cache=True)
def cut_families(masks, offsets, cluster, k):
    """Families of the ``k``-cluster constraint of ``cluster`` in its shorter form.

    The constraint ``g_k(C) >= k`` and, by one parent set per node, its
    equivalent ``sum over v in C of sum over J with |J & C| >= k of x[v, J]
    <= |C| - k`` have complementary families; returns ``(families, inside)``
    with ``inside`` True for the second form.
    """
    n = offsets.shape[0] - 1
    few = 0
    many = 0
    for v in range(n):
        if (cluster >> v) & 1:
            for f in range(offsets[v], offsets[v + 1]):
                if popcount(masks[f] & cluster) < k:
                    few += 1
                else:
                    many += 1
    inside = many < few
    out = np.empty(min(many, few), np.int64)
    j = 0
    for v in range(n):
        if (cluster >> v) & 1:
            for f in range(offsets[v], offsets[v + 1]):
                if (popcount(masks[f] & cluster) >= k) == inside:
                    out[j] = f
                    j += 1
    return out, inside

"""Slow, obviously-correct twins of the numba kernels.

Each function here is written for clarity, with plain Python loops and
dictionaries, and the tests compare the fast kernels with it on random inputs.
"""

import functools
import itertools
import math
from collections import Counter

import numpy as np


# -- scores (bnexplore.scores.kernels) --------------------------------------

def family_counts(codes, child, parents):
    """``{parent configuration tuple: Counter(child state -> count)}``."""
    return weighted_family_counts(codes, itertools.repeat(1), child, parents)


def weighted_family_counts(codes, weights, child, parents):
    """``{parent configuration tuple: Counter(child state -> sum of the weights of its rows)}``."""
    table = {}
    for row, w in zip(codes, weights):
        config = tuple(int(row[p]) for p in parents)
        table.setdefault(config, Counter())[int(row[child])] += w
    return table


def local_score(codes, arities, child, parents, score, ess=1.0):
    """Local score by its textbook formula (natural log, higher is better)."""
    return weighted_local_score(codes, [1] * len(codes), arities, child, parents, score, ess)


def weighted_local_score(codes, weights, arities, child, parents, score, ess=1.0):
    """Local score by its textbook formula on the weighted counts (``N`` the total weight)."""
    n_rows = sum(weights)
    r = int(arities[child])
    q = 1
    for p in parents:
        q *= int(arities[p])
    table = weighted_family_counts(codes, weights, child, parents)
    if score in ("bdeu", "k2"):
        a_jk = ess / (q * r) if score == "bdeu" else 1.0
        a_j = a_jk * r
        total = 0.0
        for counts in table.values():
            n_j = sum(counts.values())
            total += math.lgamma(a_j) - math.lgamma(a_j + n_j)
            for n_jk in counts.values():
                total += math.lgamma(a_jk + n_jk) - math.lgamma(a_jk)
        return total
    ll = 0.0
    for counts in table.values():
        n_j = sum(counts.values())
        for n_jk in counts.values():
            ll += n_jk * math.log(n_jk / n_j)
    if score == "ll":
        return ll
    if score == "bic":
        return ll - 0.5 * math.log(n_rows) * q * (r - 1)
    if score == "aic":
        return ll - q * (r - 1)
    raise ValueError(score)


def weighted_local_scores(codes, weights, arities, children, parent_sets, score, ess=1.0):
    """:func:`weighted_local_score` of ``children[t]`` with ``parent_sets[t]``, for each t."""
    return [weighted_local_score(codes, weights, arities, c, ps, score, ess) for c, ps in zip(children, parent_sets)]


def weighted_added_parent_scores(codes, weights, arities, child, parents, extras, score, ess=1.0):
    """:func:`weighted_local_score` of ``child`` with ``parents`` plus each ``u`` in ``extras``."""
    return [weighted_local_score(codes, weights, arities, child, sorted([*parents, u]), score, ess) for u in extras]


def entropy(codes, variables):
    """Empirical joint entropy in nats."""
    return weighted_entropy(codes, [1] * len(codes), variables)


def weighted_entropy(codes, weights, variables):
    """Empirical joint entropy in nats, each row counting its weight."""
    n = sum(weights)
    counts = Counter()
    for row, w in zip(codes, weights):
        counts[tuple(int(row[v]) for v in variables)] += w
    return -sum(c / n * math.log(c / n) for c in counts.values())


def kl_statistic(codes, arities, labels, child, parents):
    """BNKL ``(R_i, df_i)``, Balov (2013) Eq. (3), sdnet's empty-cell rules."""
    n_rows = len(codes)
    every = family_counts(codes, child, parents)
    zero = family_counts([row for row, c in zip(codes, labels) if c == 0], child, parents)
    total = 0.0
    for config, counts in every.items():
        counts0 = zero.get(config)
        if not counts0:
            continue
        n_j = sum(counts.values())
        n0_j = sum(counts0.values())
        for k, n_jk in counts.items():
            if counts0[k] > 0:
                total += n_jk * math.log((n_jk / n_j) / (counts0[k] / n0_j))
    q = 1
    for p in parents:
        q *= int(arities[p])
    return total / n_rows, q * (int(arities[child]) - 1)


# -- local search (bnexplore.search.dagstate) --------------------------------

def reachability(adj):
    """``R[a][b]`` is True when a directed path of length >= 1 leads from a to b."""
    n = len(adj)
    reach = [[False] * n for _ in range(n)]
    for a in range(n):
        stack = [b for b in range(n) if adj[a][b]]
        while stack:
            b = stack.pop()
            if not reach[a][b]:
                reach[a][b] = True
                stack.extend(c for c in range(n) if adj[b][c])
    return reach


def legal_moves(adj, reach, allow_add, white, room):
    """Sets of the legal additions, deletions and reversals ``(u, v)`` of a DAG, by their definitions."""
    n = len(adj)
    add, delete, reverse = set(), set(), set()
    for u in range(n):
        for v in range(n):
            if adj[u][v] and not white[u][v]:
                delete.add((u, v))
                if allow_add[v][u] and room[u]:
                    reverse.add((u, v))
            if (allow_add[u][v] and not adj[u][v] and not adj[v][u] and not reach[v][u] and room[v]):
                add.add((u, v))
    return add, delete, reverse


def best_move(delta, add, delete, reverse, adj, tol):
    """``(op, u, v, gain)`` of the best move in the sets (op 0 add, 1 delete, 2 reverse, -1 none).

    Within a kind the first move in row-major order within ``tol`` of the
    kind's best wins; a deletion must beat the addition, a reversal both, by
    more than ``tol``; a reversal is taken only if the DAG stays acyclic
    (checked by building the reversed graph and searching it for a cycle).
    """
    n = len(delta)
    best = (-1, -1, -1, -math.inf)

    def first_within(moves, gain):
        moves = sorted((m for m in moves if gain(m) > -math.inf), key=lambda m: m[0] * n + m[1])
        if not moves:
            return None
        top = max(gain(m) for m in moves)
        return next(m for m in moves if gain(m) >= top - tol)

    for kind, moves in ((0, add), (1, delete)):
        m = first_within(moves, lambda m: delta[m[0]][m[1]])
        if m is not None and (best[0] < 0 or delta[m[0]][m[1]] > best[3] + tol):
            best = (kind, m[0], m[1], delta[m[0]][m[1]])
    floor = best[3] + tol if best[0] >= 0 else -math.inf
    rev_gain = lambda m: delta[m[0]][m[1]] + delta[m[1]][m[0]]  # noqa: E731
    left = {m for m in reverse if rev_gain(m) > floor}
    while (m := first_within(left, rev_gain)) is not None:
        reversed_ = [list(row) for row in adj]
        reversed_[m[0]][m[1]], reversed_[m[1]][m[0]] = False, True
        if not any(reachability(reversed_)[a][a] for a in range(n)):
            return 2, m[0], m[1], rev_gain(m)
        left.discard(m)
    return best


# -- RPDAG search (bnexplore.search.rpdag) ------------------------------------

def partial_reach(adj, starts, banned):
    """``R[i][v]`` (v != starts[i]): a path from starts[i] to v along arcs
    forwards and links either way (``adj[u][v]`` true), never using the link
    starts[i] -- banned[i] (banned[i] = -1 bans nothing)."""
    n = len(adj)
    out = []
    for s, b in zip(starts, banned):
        row = [False] * n
        stack = [v for v in range(n) if adj[s][v] and v != b]
        while stack:
            v = stack.pop()
            if v == s or row[v]:
                continue
            row[v] = True
            stack.extend(w for w in range(n) if adj[v][w])
        out.append(row)
    return out


# -- epsilon-BNSL: pruning, exact search, credible sets ------------------------

def set_statistics(codes, variables):
    """``(joint entropy in nats, number of occurring configurations)`` of a variable set."""
    counts = Counter(tuple(int(row[v]) for v in variables) for row in codes)
    return entropy(codes, variables), len(counts)


@functools.cache
def all_dags(n):
    """Every DAG on nodes 0..n-1 as a tuple of parent bitmasks (one per node), sorted.

    Every DAG has a topological order; for each of the n! orders take every
    subset of the forward pairs, and drop the repeats.
    """
    dags = set()
    for order in itertools.permutations(range(n)):
        pairs = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)]
        for chosen in range(1 << len(pairs)):
            parents = [0] * n
            for t, (u, v) in enumerate(pairs):
                if (chosen >> t) & 1:
                    parents[v] |= 1 << u
            dags.add(tuple(parents))
    return tuple(sorted(dags))


def dag_score(local, dag):
    """Score of a DAG (tuple of parent masks) from ``local[(v, mask)]``."""
    return sum(local[(v, mask)] for v, mask in enumerate(dag))


def subset_table(local, n):
    """``B(S)`` of Silander & Myllymaki for every subset, from ``local[(v, mask)]`` (plain recursion)."""
    table = {0: 0.0}
    for s in sorted(range(1, 1 << n), key=lambda m: bin(m).count("1")):
        best = -math.inf
        for v in range(n):
            if (s >> v) & 1:
                rest = s ^ (1 << v)
                fits = [score for (w, mask), score in local.items() if w == v and mask & ~rest == 0]
                if fits:
                    best = max(best, max(fits) + table[rest])
        table[s] = best
    return [table[s] for s in range(1 << n)]


def scan_lengths(masks, offsets, n):
    """``[v][k]``: mean position (from 1) of the first candidate of ``v`` inside a ``k``-subset of the other
    nodes, over every such subset (the number of candidates when none fits)."""
    out = []
    for v in range(n):
        own = [int(m) for m in masks[offsets[v]:offsets[v + 1]]]
        others = [u for u in range(n) if u != v]
        row = []
        for k in range(n):
            lengths = []
            for chosen in itertools.combinations(others, k):
                allowed = sum(1 << u for u in chosen)
                fits = [i for i, m in enumerate(own) if m & ~allowed == 0]
                lengths.append(fits[0] + 1 if fits else len(own))
            row.append(sum(lengths) / len(lengths))
        out.append(row)
    return out


def colex_subsets(n, k):
    """The k-subsets of 0..n-1 as bitmasks in colexicographic order (= increasing integers)."""
    return sorted(sum(1 << u for u in c) for c in itertools.combinations(range(n), k))


def optimal_parents(table, local, n):
    """Parent mask of every node of an optimal DAG: walk down ``B`` choosing a sink that attains it."""
    parents = [0] * n
    s = (1 << n) - 1
    while s:
        for v in range(n):
            if (s >> v) & 1:
                rest = s ^ (1 << v)
                fits = [(score, mask) for (w, mask), score in local.items() if w == v and mask & ~rest == 0]
                score, mask = max(fits)
                if math.isclose(score + table[rest], table[s], rel_tol=0, abs_tol=1e-9):
                    parents[v] = mask
                    s = rest
                    break
    return parents


def credible_dags(local, n, epsilon, slack):
    """Brute force: ``{dag: score}`` for every DAG whose parent sets are all in
    ``local`` and whose score is at least ``OPT - epsilon - slack``; and OPT."""
    scores = {dag: dag_score(local, dag) for dag in all_dags(n)
              if all((v, mask) in local for v, mask in enumerate(dag))}
    opt = max(scores.values())
    return {dag: s for dag, s in scores.items() if s >= opt - epsilon - slack}, opt


def mec_key(dag):
    """Skeleton and v-structures of a DAG (tuple of parent masks), from the definitions."""
    n = len(dag)
    parents = [{u for u in range(n) if (dag[v] >> u) & 1} for v in range(n)]
    skeleton = frozenset(frozenset((u, v)) for v in range(n) for u in parents[v])
    colliders = frozenset((a, v, b) for v in range(n) for a in parents[v] for b in parents[v]
                          if a < b and frozenset((a, b)) not in skeleton)
    return skeleton, colliders


def rpdag_key(dag):
    """Skeleton and head-to-head patterns (shielded or not) of a DAG."""
    n = len(dag)
    parents = [{u for u in range(n) if (dag[v] >> u) & 1} for v in range(n)]
    skeleton = frozenset(frozenset((u, v)) for v in range(n) for u in parents[v])
    patterns = frozenset((a, v, b) for v in range(n) for a in parents[v] for b in parents[v] if a < b)
    return skeleton, patterns


def arc_probabilities(dags, opt):
    """Model-averaged arc probabilities over ``{dag: score}`` with weights exp(score - opt)."""
    n = len(next(iter(dags)))
    weights = {dag: math.exp(s - opt) for dag, s in dags.items()}
    total = sum(weights.values())
    return [[sum(w for dag, w in weights.items() if (dag[v] >> u) & 1) / total for v in range(n)]
            for u in range(n)]


# -- ordering-based search (bnexplore.search.ordering) -----------------------

def best_fitting(candidates, allowed):
    """First of ``candidates`` (``(parents, score)``, best first) inside ``allowed``."""
    for parents, score in candidates:
        if set(parents) <= set(allowed):
            return tuple(parents), score
    return None


def obs_choice(candidates, order):
    """OBS: every node's best candidate whose parents all come earlier in ``order``."""
    return [best_fitting(candidates[v], order[: list(order).index(v)]) for v in range(len(order))]


def descendants(parent_lists, v):
    """Nodes reachable from ``v`` along arcs parent -> child (``v`` excluded)."""
    seen, stack = set(), [v]
    while stack:
        u = stack.pop()
        for c, ps in enumerate(parent_lists):
            if u in ps and c not in seen:
                seen.add(c)
                stack.append(c)
    return seen


def asobs_choice(candidates, order):
    """ASOBS: from the last node of ``order`` to the first, the best candidate
    that has no descendant of the node among its parents (so no cycle)."""
    lists = [()] * len(order)
    chosen = [None] * len(order)
    for v in reversed(list(order)):
        below = descendants(lists, v)
        chosen[v] = next((tuple(ps), s) for ps, s in candidates[v] if not set(ps) & below)
        lists[v] = chosen[v][0]
    return chosen


def topological_order_following(parent_lists, order):
    """Repeatedly the earliest node of ``order`` whose parents are all placed."""
    placed = []
    while len(placed) < len(order):
        placed.append(next(v for v in order if v not in placed and set(parent_lists[v]) <= set(placed)))
    return placed


def obs_total(candidates, order):
    """OBS score of ``order``; minus infinity when a node has no candidate inside its predecessors."""
    choice = obs_choice(candidates, order)
    return -math.inf if None in choice else sum(s for _, s in choice)


def obs_swap_gain(candidates, order, j):
    """OBS score after swapping positions ``j`` and ``j + 1`` minus before."""
    swapped = list(order)
    swapped[j], swapped[j + 1] = swapped[j + 1], swapped[j]
    return obs_total(candidates, swapped) - obs_total(candidates, order)


def obs_insertion_gain(candidates, order, v, j):
    """OBS score after moving ``v`` next to the node at position ``j`` (before
    it when ``j`` is earlier than ``v``, after it when later) minus before."""
    moved = [u for u in order if u != v]
    moved.insert(j, v)
    return obs_total(candidates, moved) - obs_total(candidates, order)


def apply_insertion(candidates, order, v, j):
    """``v`` moved next to the node at position ``j`` (before it when ``j`` is earlier than ``v``,
    after it when later), as a new ordering with its OBS choice and every adjacent swap's gain
    computed from scratch: ``(order, choice, gains)``."""
    moved = [u for u in order if u != v]
    moved.insert(j, v)
    return moved, obs_choice(candidates, moved), [obs_swap_gain(candidates, moved, p) for p in range(len(moved) - 1)]


def insertion_gains(parents, sizes, scores, offsets, order, pos, chosen):
    """The ``n x n`` table of every insertion move's OBS score change from the flat candidates
    (``gains[v, j]``: ``v`` moved next to the node at ``j``, as :func:`obs_insertion_gain`), built
    densely: ``enter[v, p]`` what the node at ``p`` gains when ``v`` comes before it, ``leave[v, p]``
    what it loses when ``v`` goes after it, and ``v``'s own best for every cut of the ordering."""
    n = len(order)

    def fits(t, limit, without):
        ps = parents[t, :sizes[t]].tolist()
        return without not in ps and all(pos[x] < limit for x in ps)

    enter, leave = np.zeros((n, n)), np.zeros((n, n))
    for u in range(n):
        p, current, entered = pos[u], scores[chosen[u]], set()
        for t in range(offsets[u], chosen[u]):  # better than u's choice, best first
            missing = [x for x in parents[t, :sizes[t]].tolist() if pos[x] >= p]
            if len(missing) == 1 and missing[0] not in entered:
                entered.add(missing[0])
                enter[missing[0], p] = scores[t] - current
        for v in parents[chosen[u], :sizes[chosen[u]]].tolist():
            rows = [t for t in range(chosen[u] + 1, offsets[u + 1]) if fits(t, p, without=v)]
            leave[v, p] = scores[rows[0]] - current if rows else -math.inf
    gains = np.zeros((n, n))
    for v in range(n):
        own = [-math.inf] * (n + 1)
        for t in range(offsets[v], offsets[v + 1]):
            latest = max((pos[x] for x in parents[t, :sizes[t]].tolist()), default=-1)
            own[latest + 1] = max(own[latest + 1], scores[t])
        own = list(itertools.accumulate(own, max))
        i, current = pos[v], scores[chosen[v]]
        total = 0.0
        for j in range(i - 1, -1, -1):
            total += enter[v, j]
            gains[v, j] = own[j] - current + total
        total = 0.0
        for j in range(i + 1, n):
            total += leave[v, j]
            gains[v, j] = own[j + 1] - current + total
    return gains


def obs_climb(candidates, order, tol):
    """Best-improvement adjacent-swap climbing with every gain recomputed from scratch."""
    order = list(order)
    while len(order) > 1:
        gains = [obs_swap_gain(candidates, order, j) for j in range(len(order) - 1)]
        j = max(range(len(gains)), key=lambda i: (gains[i], -i))
        if gains[j] <= tol:
            return order
        order[j], order[j + 1] = order[j + 1], order[j]
    return order


# -- parent-set exploration (bnexplore.parents.explore) ----------------------

def interaction_information(codes, a, b, x):
    """``ii(A; B; X) = I(A; B | X) - I(A; B)`` from joint entropies (lists of columns)."""
    def h(*groups):
        return entropy(codes, [v for g in groups for v in g])
    conditional = h(a, x) + h(b, x) - h(a, b, x) - h(x)
    marginal = h(a) + h(b) - h(a, b)
    return conditional - marginal


# -- inference (bnexplore.junction, bnexplore.inference) ---------------------

def table_project(table, variables, cards, fixed, outputs):
    """Sum the cells of ``table`` (C order over ``variables``) that agree with
    ``fixed`` ({variable: state}) onto each output variable list; returns
    ``(total, [dict config -> sum])``."""
    sums = [dict() for _ in outputs]
    total = 0.0
    for flat, config in enumerate(itertools.product(*(range(cards[v]) for v in variables))):
        state = dict(zip(variables, config))
        if any(state[v] != s for v, s in fixed.items() if v in state):
            continue
        x = table[flat]
        total += x
        for out, keep in zip(sums, outputs):
            key = tuple(state[v] for v in keep)
            out[key] = out.get(key, 0.0) + x
    return total, sums


def table_multiply(table, variables, cards, fixed, factor, factor_variables):
    """``table * factor`` on the cells that agree with ``fixed`` (others kept as they were)."""
    out = list(table)
    for flat, config in enumerate(itertools.product(*(range(cards[v]) for v in variables))):
        state = dict(zip(variables, config))
        if any(state[v] != s for v, s in fixed.items() if v in state):
            continue
        key = tuple(state[v] for v in factor_variables)
        out[flat] = table[flat] * factor[key]
    return out


def elimination_order(adj, logcard, fill_first):
    """Greedy elimination: min-fill (ties: smaller clique weight) or
    min-weight (ties: less fill); the first variable wins remaining ties."""
    n = len(adj)
    nb = {u: {w for w in range(n) if adj[u][w] and w != u} for u in range(n)}
    alive = set(range(n))
    order, cliques = [], []
    while alive:
        def score(u):
            ns = sorted(nb[u] & alive)
            fill = sum(1 for i, a in enumerate(ns) for b in ns[i + 1:] if b not in nb[a])
            weight = logcard[u] + sum(logcard[w] for w in ns)
            return fill, weight
        best = None
        for u in sorted(alive):
            f, w = score(u)
            if best is None:
                best = (u, f, w)
                continue
            _, bf, bw = best
            better = (f < bf or (f == bf and w < bw - 1e-12)) if fill_first else (
                w < bw - 1e-12 or (abs(w - bw) <= 1e-12 and f < bf))
            if better:
                best = (u, f, w)
        v = best[0]
        ns = nb[v] & alive
        cliques.append({v} | ns)
        for a in ns:
            nb[a] |= ns - {a}
        alive.discard(v)
        order.append(v)
    return order, cliques


def joint_query(network, targets, evidence, likelihood=None):
    """Posteriors ``{target: [p per state]}`` and P(e) by summing the full joint.

    ``evidence`` is ``{variable index: state index}``; ``likelihood``
    ``{variable index: weights}``. P(e) = 0 gives posteriors of None.
    """
    likelihood = likelihood or {}
    n = network.n_vars
    cards = [len(s) for s in network.states]
    sums = {t: [0.0] * cards[t] for t in targets}
    pe = 0.0
    for config in itertools.product(*(range(c) for c in cards)):
        if any(config[v] != s for v, s in evidence.items()):
            continue
        p = 1.0
        for v in range(n):
            p *= float(network.cpts[v][tuple(config[u] for u in network.parents[v]) + (config[v],)])
        for v, w in likelihood.items():
            p *= w[config[v]]
        pe += p
        for t in targets:
            sums[t][config[t]] += p
    if pe == 0:
        return None, 0.0
    return {t: [x / pe for x in sums[t]] for t in targets}, pe


def _factor_product(f, g):
    """Product of two factors ``(variables, array)`` over the union of their variables."""
    fv, fa = f
    gv, ga = g
    union = list(fv) + [v for v in gv if v not in fv]

    def expand(vs, arr):
        arr = arr.reshape(arr.shape + (1,) * (len(union) - len(vs)))
        missing = [v for v in union if v not in vs]
        current = list(vs) + missing
        return arr.transpose([current.index(v) for v in union])

    return tuple(union), expand(fv, fa) * expand(gv, ga)


def variable_elimination(network, target, evidence):
    """``P(target | evidence)`` (array) and P(e) by variable elimination:
    factors are the CPTs reduced by the evidence, variables summed out one at
    a time (the one whose elimination makes the smallest factor first)."""
    factors = []
    for v in range(network.n_vars):
        variables = list(network.parents[v]) + [v]
        table = network.cpts[v]
        index = tuple(evidence.get(u, slice(None)) for u in variables)
        factors.append((tuple(u for u in variables if u not in evidence), table[index]))
    cards = [len(s) for s in network.states]
    remaining = {v for v in range(network.n_vars) if v not in evidence and v != target}
    while remaining:
        def size(v):
            scope = set()
            for vs, _ in factors:
                if v in vs:
                    scope |= set(vs)
            return math.prod(cards[u] for u in scope)
        v = min(sorted(remaining), key=size)
        touching = [f for f in factors if v in f[0]]
        factors = [f for f in factors if v not in f[0]]
        if touching:
            product = functools.reduce(_factor_product, touching)
            factors.append((tuple(u for u in product[0] if u != v), product[1].sum(axis=product[0].index(v))))
        remaining.discard(v)
    result = ((), np.ones(()))
    for f in factors:
        result = _factor_product(result, f)
    variables, table = result
    if target in evidence:
        pe = float(table.sum())
        out = np.zeros(cards[target])
        out[evidence[target]] = 1.0
        return out, pe
    marginal = table.sum(axis=tuple(i for i, u in enumerate(variables) if u != target)) if variables else table
    pe = float(marginal.sum())
    return marginal / pe, pe
# -- integer programme (bnexplore.search.cuts) --------------------------------
# Families are (node, parent bitmask) pairs listed per node; x maps each to its LP value.

def members(mask):
    return [u for u in range(64) if (mask >> u) & 1]


def k_cluster_value(families, x, cluster, k):
    """``g_k(C)``: mass of the families of C's nodes with fewer than k parents in C."""
    return sum(value for (v, mask), value in zip(families, x)
               if (cluster >> v) & 1 and bin(mask & cluster).count("1") < k)


def most_violated(families, x, n, k):
    """Brute force over every cluster of more than k nodes: ``(least g_k, its clusters)``."""
    best, where = math.inf, []
    for cluster in range(1 << n):
        if bin(cluster).count("1") <= k:
            continue
        value = k_cluster_value(families, x, cluster, k)
        if value < best - 1e-12:
            best, where = value, [cluster]
        elif abs(value - best) <= 1e-12:
            where.append(cluster)
    return best, where


def strong_components(parents, nodes):
    """SCCs (bitmasks, at least two nodes, inside ``nodes``) of the graph with arcs u -> v for u in parents[v]."""
    n = len(parents)
    inside = [v for v in range(n) if (nodes >> v) & 1]

    def reach(v):
        seen, stack = set(), [v]
        while stack:
            w = stack.pop()
            for c in inside:
                if (parents[c] >> w) & 1 and c not in seen:
                    seen.add(c)
                    stack.append(c)
        return seen
    down = {v: reach(v) for v in inside}
    comps = set()
    for v in inside:
        comp = {v} | {w for w in down[v] if v in down[w]}
        if len(comp) >= 2:
            comps.add(sum(1 << w for w in comp))
    return comps


def is_acyclic(parents):
    """True when the graph with parent bitmasks ``parents`` has no directed cycle."""
    left = set(range(len(parents)))
    while left:
        sources = [v for v in left if not any((parents[v] >> u) & 1 for u in left)]
        if not sources:
            return False
        left -= set(sources)
    return True


def is_cycle(parents, cycle):
    """True when the nodes of ``cycle`` (a bitmask) lie on one directed cycle of the graph."""
    nodes = members(cycle)
    arcs = {(u, v) for v in nodes for u in nodes if (parents[v] >> u) & 1}
    for order in itertools.permutations(nodes[1:]):
        ring = [nodes[0], *order]
        if all((ring[i], ring[(i + 1) % len(ring)]) in arcs for i in range(len(ring))):
            return True
    return False


def sink_order(families, x, scores, n):
    """Cussens's sink-finding heuristic: the order obtained by removing sinks (plain restatement)."""
    left = set(range(n))
    order = []
    while left:
        best = None
        for v in sorted(left):
            allowed = sum(1 << u for u in left if u != v)
            fits = [(x[f], scores[f]) for f, (w, mask) in enumerate(families) if w == v and mask & ~allowed == 0]
            if not fits:
                continue
            bx = max(value for value, _ in fits)
            bs = max(score for value, score in fits if value >= bx - 1e-9)
            top = max(scores[f] for f, (w, _) in enumerate(families) if w == v)
            key = (bx, -(top - bs))
            if best is None or key[0] > best[0][0] + 1e-9 or (key[0] > best[0][0] - 1e-9 and key[1] > best[0][1]):
                best = (key, v)
        order.append(best[1])
        left.remove(best[1])
    return order[::-1]


def order_families(families, scores, order):
    """Every node's best family with all parents earlier in ``order`` (index into ``families``)."""
    chosen = {}
    before = 0
    for v in order:
        fits = [f for f, (w, mask) in enumerate(families) if w == v and mask & ~before == 0]
        chosen[v] = max(fits, key=lambda f: (scores[f], -f))
        before |= 1 << v
    return [chosen[v] for v in range(len(order))]


def constrained_optimum(local, n, allowed=None, required=None):
    """Brute force: the best score over every DAG respecting forbidden / required arcs."""
    best = -math.inf
    for dag in all_dags(n):
        ok = all((v, m) in local for v, m in enumerate(dag))
        for v, mask in enumerate(dag):
            for u in range(n):
                has = (mask >> u) & 1
                if allowed is not None and has and not allowed[u][v]:
                    ok = False
                if required is not None and required[u][v] and not has:
                    ok = False
        if ok:
            best = max(best, dag_score(local, dag))
    return best


def covered_arcs(dag):
    """Covered arcs ``(u, v)`` of a DAG (tuple of parent masks): pa(v) = pa(u) + {u}."""
    n = len(dag)
    return [(u, v) for v in range(n) for u in range(n) if (dag[v] >> u) & 1 and dag[v] == dag[u] | (1 << u)]


def four_b_value(families, x, a, b, c, d):
    """Left side of the 4B inequality of pairs {a, b} and {c, d}, read off its definition."""
    total = 0.0
    for (v, mask), value in zip(families, x):
        parents = set(members(mask))
        if v in (a, b):
            other = b if v == a else a
            counts = other in parents or {c, d} <= parents
        elif v in (c, d):
            other = d if v == c else c
            counts = other in parents and bool(parents & {a, b})
        else:
            counts = False
        total += value if counts else 0.0
    return total


def member_families(members, masks, offsets):
    """Family index of every node of every member DAG (-1 where its parent set is no candidate), by dict."""
    index = {(v, int(masks[f])): f for v in range(len(offsets) - 1) for f in range(offsets[v], offsets[v + 1])}
    return np.array([[index.get((v, int(m)), -1) for v, m in enumerate(row)] for row in members], np.int64)


def family_changes(chosen, masks, scores, offsets, min_gain):
    """``(node, family)`` of every one-family change of a DAG that stays acyclic and gains at least
    ``min_gain``: every candidate of every node tried, acyclicity by :func:`is_acyclic`."""
    out = []
    for v in range(len(chosen)):
        for f in range(offsets[v], offsets[v + 1]):
            parents = [int(masks[g]) for g in chosen]
            parents[v] = int(masks[f])
            if f != chosen[v] and scores[f] - scores[chosen[v]] >= min_gain and is_acyclic(parents):
                out.append((v, f))
    return sorted(out)


def connected_credible(dags, start):
    """The DAGs of ``dags`` (tuples of parent masks) reachable from ``start`` through ``dags`` by steps that
    change one node's parent set or stay in the Markov equivalence class (:func:`mec_key`)."""
    reached, todo = {start}, [start]
    while todo:
        dag = todo.pop()
        for other in dags - reached:
            if sum(a != b for a, b in zip(dag, other)) == 1 or mec_key(other) == mec_key(dag):
                reached.add(other)
                todo.append(other)
    return reached


# -- independence tests (bnexplore.independence) -------------------------------

def strata(codes, z):
    """``(order, starts)``: the row indices sorted by their ``z`` configuration (Python's sort is stable),
    and the positions in ``order`` where a configuration begins, then the number of rows."""
    def config(s):
        return tuple(int(codes[s, v]) for v in z)
    order = sorted(range(len(codes)), key=config)
    starts = [i for i in range(len(order)) if i == 0 or config(order[i]) != config(order[i - 1])]
    return order, starts + [len(order)]


def ci_statistic(codes, x, y, z, pearson):
    """``(statistic, dof)`` of x and y given z from dictionaries: per z configuration that occurs, the
    x-y table; G2 (or Pearson's X2) summed, dof = sum of (occurring x states - 1)(occurring y states - 1)."""
    tables = {}
    for row in codes:
        config = tuple(int(row[v]) for v in z)
        tables.setdefault(config, Counter())[(int(row[x]), int(row[y]))] += 1
    statistic, dof = 0.0, 0
    for table in tables.values():
        n_z = sum(table.values())
        n_x, n_y = Counter(), Counter()
        for (a, b), c in table.items():
            n_x[a] += c
            n_y[b] += c
        dof += (len(n_x) - 1) * (len(n_y) - 1)
        for a in n_x:
            for b in n_y:
                c = table[(a, b)]
                expected = n_x[a] * n_y[b] / n_z
                if pearson:
                    statistic += (c - expected) ** 2 / expected
                elif c > 0:
                    statistic += 2 * c * math.log(c / expected)
    return statistic, dof


def permuted_statistics(xs, ys, starts, uniforms):
    """G2 after each permutation of the list ``xs`` within the strata ``starts`` (shuffled in place:
    Fisher-Yates from the top of each stratum, row i swapping with ``s + floor(u[i] (i - s + 1))``)."""
    out = []
    for u in uniforms:
        for k in range(len(starts) - 1):
            s = starts[k]
            for i in range(starts[k + 1] - 1, s, -1):
                j = s + int(u[i] * (i - s + 1))
                xs[i], xs[j] = xs[j], xs[i]
        stratum = [k for k in range(len(starts) - 1) for _ in range(starts[k], starts[k + 1])]
        out.append(ci_statistic(np.column_stack([stratum, xs, ys]), 1, 2, [0], False)[0])
    return out


# -- completions of incomplete rows (bnexplore.em.completions, bnexplore.em.imputation) -------------

def _cpt_entry(row, v, arities, parent_start, parents, cpt_start, cpt):
    """``P(row[v] | row's parents)`` read from the flat CPT."""
    config = 0
    for p in parents[parent_start[v]:parent_start[v + 1]]:
        config = config * int(arities[p]) + int(row[p])
    return float(cpt[cpt_start[v] + config * arities[v] + row[v]])


def _joint(row, arities, parent_start, parents, cpt_start, cpt):
    """The full joint probability of a complete row: the product of every family's CPT entry."""
    return math.prod(_cpt_entry(row, v, arities, parent_start, parents, cpt_start, cpt) for v in range(len(row)))


def _draw(row, v, u, arities, parent_start, parents, cpt_start, cpt):
    """The first state whose cumulative probability exceeds ``u`` (zero-probability states skipped)."""
    probabilities = [_cpt_entry([*row[:v], k, *row[v + 1:]], v, arities, parent_start, parents, cpt_start, cpt)
                     for k in range(int(arities[v]))]
    positive = [k for k, pk in enumerate(probabilities) if pk > 0]
    cumulative = 0.0
    for k in positive:
        cumulative += probabilities[k]
        if u < cumulative:
            return k
    return positive[-1] if positive else 0


def complete_patterns(patterns, counts, exact, out_start, uniform_start, uniforms, order, arities, parent_start,
                      parents, child_start, children, cpt_start, cpt, out_codes, out_weights):
    """Enumerated completions weighted by the full joint, or likelihood-weighted samples weighted by the
    product of every observed variable's CPT entry; each pattern's weights normalised to its count."""
    for p, pattern in enumerate(patterns):
        blanks = [v for v in range(len(pattern)) if pattern[v] < 0]
        size = out_start[p + 1] - out_start[p]
        rows, weights = [], []
        u = uniform_start[p]
        for j in range(size):
            row = [int(x) for x in pattern]
            if exact[p]:
                states = list(itertools.product(*(range(int(arities[b])) for b in blanks)))[j]
                for b, s in zip(blanks, states):
                    row[b] = s
                weight = _joint(row, arities, parent_start, parents, cpt_start, cpt)
            else:
                for v in order:
                    if pattern[v] < 0:
                        row[v] = _draw(row, v, uniforms[u], arities, parent_start, parents, cpt_start, cpt)
                        u += 1
                weight = math.prod(_cpt_entry(row, v, arities, parent_start, parents, cpt_start, cpt)
                                   for v in range(len(row)) if pattern[v] >= 0)
            rows.append(row)
            weights.append(weight)
        total = sum(weights)
        for j, (row, weight) in enumerate(zip(rows, weights)):
            out_codes[out_start[p] + j] = row
            out_weights[out_start[p] + j] = weight * counts[p] / total if total > 0 else counts[p] / size


def _weighted_choice(weights, u):
    """The first index whose cumulative weight exceeds ``u`` times the total (zero weights skipped); a
    uniform index when every weight is 0."""
    total = sum(weights)
    if total <= 0:
        return min(int(u * len(weights)), len(weights) - 1)
    cumulative, chosen = 0.0, 0
    for j, weight in enumerate(weights):
        cumulative += weight
        if weight > 0:
            chosen = j
            if u * total < cumulative:
                break
    return chosen


def impute_patterns(patterns, mode, exact, joint, uniform_start, uniforms, samples, order, arities, parent_start,
                    parents, child_start, children, cpt_start, cpt, out_codes):
    """Every completion enumerated with its full joint (the first largest, or one drawn by weight), or
    ``samples`` likelihood-weighted samples: the one of largest joint improved one cell at a time while the
    full joint strictly rises, or one drawn by its likelihood weight."""
    net = (arities, parent_start, parents, cpt_start, cpt)
    for p, pattern in enumerate(patterns):
        blanks = [v for v in range(len(pattern)) if pattern[v] < 0]
        at = uniform_start[p]
        if exact[p]:
            rows = []
            for states in itertools.product(*(range(int(arities[b])) for b in blanks)):
                row = [int(x) for x in pattern]
                for b, s in zip(blanks, states):
                    row[b] = s
                rows.append(row)
            weights = [_joint(row, *net) for row in rows]
            chosen = weights.index(max(weights)) if mode else _weighted_choice(weights, uniforms[at])
            row = rows[chosen]
        else:
            rows, likelihoods = [], []
            for k in range(samples):
                row = [int(x) for x in pattern]
                u = at + k * len(blanks)
                for v in order:
                    if pattern[v] < 0:
                        row[v] = _draw(row, v, uniforms[u], *net)
                        u += 1
                rows.append(row)
                likelihoods.append(math.prod(_cpt_entry(row, v, *net) for v in range(len(row)) if pattern[v] >= 0))
            if mode:
                joints = [_joint(row, *net) for row in rows]
                row = rows[joints.index(max(joints))]
                changed = True
                while changed:
                    changed = False
                    for b in blanks:
                        options = [_joint([*row[:b], s, *row[b + 1:]], *net) for s in range(int(arities[b]))]
                        best = max(range(len(options)), key=lambda s: (options[s], s == row[b], -s))
                        if options[best] > options[row[b]]:
                            row[b] = best
                            changed = True
            else:
                row = rows[_weighted_choice(likelihoods, uniforms[at + samples * len(blanks)])]
        out_codes[p] = row


# -- parameter EM (bnexplore.em.expected, bnexplore.junction.expected_family_counts) ------------------

def expected_family_counts(network, patterns, weights):
    """``(counts, log_likelihood)`` by summing the full joint over every completion of each pattern:
    ``counts[v]`` (shaped like v's CPT) holds ``w * P(family | e)`` summed over the patterns in which
    v's family has a blank member; ``log_likelihood`` is ``sum w log P(e)`` (None when some P(e) is 0)."""
    cards = [len(s) for s in network.states]
    counts = [np.zeros(t.shape) for t in network.cpts]
    total = 0.0
    for pattern, w in zip(patterns, weights):
        blanks = [v for v in range(len(cards)) if pattern[v] < 0]
        joint = {}
        for states in itertools.product(*(range(cards[b]) for b in blanks)):
            row = [int(x) for x in pattern]
            for b, s in zip(blanks, states):
                row[b] = s
            p = 1.0
            for v in range(len(cards)):
                p *= float(network.cpts[v][tuple(row[u] for u in network.parents[v]) + (row[v],)])
            joint[tuple(row)] = p
        pe = sum(joint.values())
        if pe == 0:
            return counts, None
        total += w * math.log(pe)
        for v in range(len(cards)):
            family = list(network.parents[v]) + [v]
            if all(pattern[u] >= 0 for u in family):
                continue
            for row, p in joint.items():
                counts[v][tuple(row[u] for u in family)] += w * p / pe
    return counts, total


# -- groups of blank cells (bnexplore.em.groups) ------------------------------------------------------

def blank_groups(pattern, parent_start, parents, child_start, children):
    """``(n_groups, start, members)``: the connected components of the moral graph restricted to the
    blank variables, each sorted, ordered by their smallest member."""
    n = len(pattern)
    pa = [set(int(u) for u in parents[parent_start[v]:parent_start[v + 1]]) for v in range(n)]
    moral = {v: set() for v in range(n)}
    for c in range(n):
        family = pa[c] | {c}
        for a in family:
            moral[a] |= family - {a}
    blank = {v for v in range(n) if pattern[v] < 0}
    groups, seen = [], set()
    for s in sorted(blank):
        if s in seen:
            continue
        component, todo = {s}, [s]
        while todo:
            v = todo.pop()
            for u in moral[v] & blank:
                if u not in component:
                    component.add(u)
                    todo.append(u)
        seen |= component
        groups.append(sorted(component))
    start = np.cumsum([0] + [len(g) for g in groups]).astype(np.int64)
    return len(groups), start, np.array([v for g in groups for v in g], np.int64)


def enumerable_patterns(patterns, cap, parent_start, parents, child_start, children, arities):
    """Whether every group of each pattern has at most ``cap`` joint states."""
    out = []
    for pattern in patterns:
        n_groups, start, members = blank_groups(pattern, parent_start, parents, child_start, children)
        out.append(all(math.prod(int(arities[v]) for v in members[start[g]:start[g + 1]]) <= cap
                       for g in range(n_groups)))
    return np.array(out, bool)


def _completions_of(pattern, arities):
    """Every completion of the pattern's blank cells, as lists."""
    blanks = [v for v in range(len(pattern)) if pattern[v] < 0]
    for states in itertools.product(*(range(int(arities[b])) for b in blanks)):
        row = [int(x) for x in pattern]
        for b, s in zip(blanks, states):
            row[b] = s
        yield row


def _cell(row, v, arities, parent_start, parents, cpt_start):
    """The flat CPT index of ``row``'s cell of ``v``'s family."""
    config = 0
    for p in parents[parent_start[v]:parent_start[v + 1]]:
        config = config * int(arities[p]) + int(row[p])
    return int(cpt_start[v] + config * arities[v] + row[v])


def group_cells(row, members, touched, arities, parent_start, parents, cpt_start, base, stride):
    """By differences: ``base[t]`` the cell with every member at 0, ``stride[t * m + i]`` the cell with member
    ``i`` at 1 (the others at 0) minus ``base[t]``."""
    m = len(members)
    for i in members:
        row[i] = 0
    for t, f in enumerate(touched):
        base[t] = _cell(row, f, arities, parent_start, parents, cpt_start)
        for i, u in enumerate(members):
            moved = list(row)
            moved[u] = 1
            stride[t * m + i] = _cell(moved, f, arities, parent_start, parents, cpt_start) - base[t]


def _completed_rows(members, arities, size, row):
    """``(j, row with the j-th completion of members written in)`` for the first ``size`` completions
    (itertools.product: last member fastest)."""
    for j, states in enumerate(itertools.product(*(range(int(arities[u])) for u in members))):
        if j == size:
            return
        full = list(row)
        for u, s in zip(members, states):
            full[u] = s
        yield j, full


def completion_weights(members, width, arities, base, stride, cpt, size, weights, cells, row=None, touched=None,
                       parent_start=None, parents=None, cpt_start=None):
    """Each completion written into ``row`` (itertools.product: last member fastest) and its touched families'
    cells found from the row (``base`` and ``stride`` are ignored)."""
    total = 0.0
    for j, full in _completed_rows(members, arities, size, row):
        weight = 1.0
        for t in range(width):
            cells[j * width + t] = _cell(full, touched[t], arities, parent_start, parents, cpt_start)
            weight *= cpt[cells[j * width + t]]
        weights[j] = weight
        total += weight
    return total


def completion_cells(members, width, arities, base, stride, size, cells, at, row=None, touched=None,
                     parent_start=None, parents=None, cpt_start=None):
    """Each completion written into ``row`` (itertools.product: last member fastest), its touched families'
    cells found from the row and written from ``at`` on (``base`` and ``stride`` are ignored)."""
    for j, full in _completed_rows(members, arities, size, row):
        for t in range(width):
            cells[at + j * width + t] = _cell(full, touched[t], arities, parent_start, parents, cpt_start)


def cell_weights(cells, at, width, size, cpt, weights):
    """``weights[j] = prod(cpt[cells[at + j * width + t]] for t)``, and their sum."""
    for j in range(size):
        weights[j] = math.prod(float(cpt[c]) for c in cells[at + j * width:at + (j + 1) * width])
    return float(sum(weights[:size]))


def stored_cells(patterns, cap, group_ptr, member_ptr, members, touched_ptr, touched, arities, parent_start, parents,
                 cpt_start, store):
    """Each group's completions' cells found from its completed rows (:func:`completion_weights`), stored while
    the total fits in ``store``."""
    cell_ptr, cells = [0], []
    for p, pattern in enumerate(patterns):
        for g in range(group_ptr[p], group_ptr[p + 1]):
            group, families = members[member_ptr[g]:member_ptr[g + 1]], touched[touched_ptr[g]:touched_ptr[g + 1]]
            size = min(math.prod(int(arities[u]) for u in group), cap + 1)
            if cell_ptr[-1] + size * len(families) > store:
                cell_ptr.append(cell_ptr[-1])
                continue
            found = np.zeros(size * len(families), np.int64)
            completion_cells(group, len(families), arities, None, None, size, found, 0, pattern.astype(np.int64),
                             families, parent_start, parents, cpt_start)
            cells += found.tolist()
            cell_ptr.append(cell_ptr[-1] + len(found))
    return np.array(cell_ptr, np.int64), np.array(cells, np.int64)


def group_expected_counts(blocks, patterns, weights, cap, group_ptr, member_ptr, members, touched_ptr, touched,
                          cell_ptr, stored, arities, parent_start, parents, cpt_start, cpt, counts):
    """By the full joint over every completion of each pattern (the groups and stored cells ignored):
    ``w P(cell | e)`` added to the cells of the families with a blank member, and ``sum w (log P(e) - sum of
    the log entries of the families observed whole)``; the first pattern with P(e) = 0, or -1."""
    n = patterns.shape[1]
    total = 0.0
    for p, (pattern, w) in enumerate(zip(patterns, weights)):
        joint = [(row, _joint(row, arities, parent_start, parents, cpt_start, cpt))
                 for row in _completions_of(pattern, arities)]
        pe = sum(x for _, x in joint)
        if pe <= 0:
            return total, p
        whole = [v for v in range(n) if all(pattern[u] >= 0 for u in [v, *parents[parent_start[v]:parent_start[v + 1]]])]
        total += w * (math.log(pe) - sum(math.log(_cpt_entry(pattern, v, arities, parent_start, parents, cpt_start,
                                                             cpt)) for v in whole))
        for v in range(n):
            if v in whole:
                continue
            for row, x in joint:
                config = 0
                for u in parents[parent_start[v]:parent_start[v + 1]]:
                    config = config * int(arities[u]) + row[u]
                counts[cpt_start[v] + config * arities[v] + row[v]] += w * x / pe
    return total, -1


def group_sample_patterns(blocks, patterns, counts, pick, group_ptr, member_ptr, members, touched_ptr, touched,
                          cell_ptr, stored, out_start, uniform_start, uniforms, k, cap, arities, parent_start, parents,
                          cpt_start, cpt, out_codes, out_weights, child_start=None, children=None):
    """Each group's posterior by summing the full joint over every completion; ``k`` systematic draws at the
    quantiles ``(j + u) / k`` (zero-probability states skipped), dealt to the rows by a Fisher-Yates shuffle
    with the group's next uniforms; weights ``count / k``. The groups are found afresh from the graph
    (``child_start``, ``children``: the layout the kernel reads is ignored)."""
    for n_th, p in enumerate(pick):
        pattern = patterns[p]
        start = out_start[n_th]
        rows = [[int(x) for x in pattern] for _ in range(k)]
        joint = [(row, _joint(row, arities, parent_start, parents, cpt_start, cpt))
                 for row in _completions_of(pattern, arities)]
        n_groups, gstart, found = blank_groups(pattern, parent_start, parents, child_start, children)
        for g in range(n_groups):
            group = [int(v) for v in found[gstart[g]:gstart[g + 1]]]
            states = list(itertools.product(*(range(int(arities[b])) for b in group)))
            mass = [sum(x for row, x in joint if tuple(row[b] for b in group) == s) for s in states]
            total = sum(mass)
            if total <= 0:
                mass, total = [1.0] * len(states), float(len(states))
            at = uniform_start[n_th] + g * k
            deal = []
            for j in range(k):
                quantile = (j + uniforms[at]) / k
                cumulative, chosen = 0.0, None
                for i, m in enumerate(mass):
                    cumulative += m / total
                    if m > 0:
                        chosen = i
                        if cumulative > quantile:
                            break
                deal.append(chosen)
            for j in range(k - 1, 0, -1):
                i = int(uniforms[at + j] * (j + 1))
                deal[i], deal[j] = deal[j], deal[i]
            for j in range(k):
                for b, s in zip(group, states[deal[j]]):
                    rows[j][b] = s
        for j in range(k):
            out_codes[start + j] = rows[j]
            out_weights[start + j] = counts[p] / k


# -- graphs (bnexplore.graphs.adjacency) -------------------------------------

def smallest_first_order(adj):
    """Topological order of the arcs of a 0/1 matrix (links ignored): at each step the smallest node not yet
    placed whose parents along arcs are all placed; shorter than n when the arcs hold a directed cycle."""
    n = len(adj)
    placed = []
    while True:
        free = [v for v in range(n) if v not in placed
                and all(u in placed for u in range(n) if adj[u][v] and not adj[v][u])]
        if not free:
            return placed
        placed.append(free[0])


def first_cycle(adj):
    """The directed cycle the graph classes name, or None: from the smallest node that
    :func:`smallest_first_order` cannot place, step to its smallest unplaced parent until a node comes
    back; the nodes of that loop in arc order, starting at the smallest."""
    n = len(adj)
    placed = smallest_first_order(adj)
    if len(placed) == n:
        return None
    left = [v for v in range(n) if v not in placed]
    path = [left[0]]
    while True:
        v = min(u for u in left if adj[u][path[-1]] and not adj[path[-1]][u])
        if v in path:
            loop = path[path.index(v):][::-1]
            first = loop.index(min(loop))
            return loop[first:] + loop[:first]
        path.append(v)


def packed_parent_sets(candidates):
    """Each node's ``(parents padded with -1, sizes, scores)``, best first (ties: smaller sets, then
    lexicographically): :class:`bnexplore.parents.ParentSets`' layout, one node and one set at a time."""
    out = []
    for items in candidates:
        items = sorted(((tuple(sorted(int(p) for p in ps)), float(s)) for ps, s in items),
                       key=lambda item: (-item[1], len(item[0]), item[0]))
        width = max(1, max(len(ps) for ps, _ in items))
        parents = np.array([list(ps) + [-1] * (width - len(ps)) for ps, _ in items], np.int64).reshape(-1, width)
        out.append((parents, np.array([len(ps) for ps, _ in items], np.int64), np.array([s for _, s in items])))
    return out

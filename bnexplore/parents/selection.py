"""Independence selection on arrays: numba kernels for the explorer of many variables.

Scanagatta, de Campos, Corani & Zaffalon, "Learning Bayesian Networks with
Thousands of Variables", NIPS 2015, Section 3.2. The search is the one of
:mod:`bnexplore.parents.explore` (its Python explorer is this module's
obviously-correct twin, and the tests compare the two set by set): score the
empty set and the singletons, then repeatedly pop the open sets of best BIC*
(:data:`POP_BATCH` at a time), drop those the bounds rule out, score the
rest and open their extensions. Here every piece of state is an array, so
the per-set work that dominated the Python explorer on data with few rows
(dictionary look-ups of tuples, the heap of streams, the Theorem 2
estimates) runs compiled:

- the *store*: every set seen (scored, or pruned: "dead") as a row of a
  ``(capacity, width)`` int64 array (the set's variables, ascending, then
  -1), with its size, status, score and floor (the best score among its
  scored subsets, itself included), in the order first seen; an
  open-addressing hash table of row ids finds a set;
- the *streams* of the open list (one per scored set and arity of the
  variables added; see ``_Streams`` in :mod:`bnexplore.parents.explore`) and
  a binary heap of their heads keyed by (-BIC*, stream id), the stream id
  breaking ties in opening order as the Python heap does.

The state is a tuple of arrays (see :func:`start`) that :func:`advance`
takes and returns, a few batches at a time, so the caller checks its clock
and stop flag between calls. The sets stored are the variables added to the
required parents (``required``); scores, configurations and the kept sets
are of the full parent sets.

Example
-------
>>> import numpy as np
>>> from bnexplore.data import Dataset
>>> from bnexplore.parents.selection import Selection
>>> from bnexplore.scores import Scorer
>>> rng = np.random.default_rng(0)
>>> a = rng.integers(0, 2, 500)
>>> data = Dataset.from_codes(np.column_stack([a, a ^ (rng.random(500) < 0.1), rng.integers(0, 2, 500)]))
>>> scorer = Scorer(data, "bic")
>>> search = Selection(scorer, 0, [1, 2], max_size=2, budget=100)
>>> while search.open:
...     search.advance(batches=8)
>>> [parents for parents, score in search.kept()]
[(), (1,)]
"""

import math

import numpy as np
from numba import njit

from ..scores import kernels, penalty_weight

POP_BATCH = 16
"""Sets independence selection pops from its open list per scoring call.

The paper pops one at a time; scoring a few at once amortises the cost of a
kernel call. A constant, so results do not depend on the machine."""

MAX_WIDTH = 64
"""Widest stored set; an exploration that could score larger sets runs the Python explorer."""

N_SETS, N_STREAMS, HEAP, EVALUATED, PRUNED, FAMILIES, VARIABLES = range(7)
"""Positions in the counters (the last array of the state): sets stored, streams opened, heads in the heap,
sets scored (the empty set included), sets pruned, and the families and variables counted for the scorer."""

_SCORED, _DEAD = 1, 2
_WEIGHT, _STAR_WEIGHT, _EMPTY, _N, _ESS = range(5)  # the float parameters
_CHILD, _CODE, _DENSE, _MAX_SIZE, _BUDGET = range(5)  # the integer parameters


# -- the store: sets seen, their scores and floors, and a hash table of them ----------------------

@njit(cache=True)
def _hash(row, k):
    h = np.uint64(14695981039346656037) ^ np.uint64(k)
    for i in range(k):
        h = (h ^ np.uint64(row[i])) * np.uint64(1099511628211)
    return h


@njit(cache=True)
def _find(sets, sizes, slots, row, k):
    """Id of the set ``row[:k]``, or ``-1 - slot`` (the free slot where it would go)."""
    mask = slots.shape[0] - 1
    i = np.int64(_hash(row, k) & np.uint64(mask))
    while True:
        t = slots[i]
        if t < 0:
            return -1 - i
        if sizes[t] == k:
            same = True
            for j in range(k):
                if sets[t, j] != row[j]:
                    same = False
                    break
            if same:
                return t
        i = (i + 1) & mask


@njit(cache=True)
def _grown(a, rows):
    out = np.full((rows,) + a.shape[1:], -1, a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _add(store, counters, row, k, status, score, floor):
    """Store the set ``row[:k]`` (not stored yet); return the store (grown when full) and its id."""
    sets, sizes, status_of, values, slots = store
    t = counters[N_SETS]
    if t == sets.shape[0]:
        sets, sizes, status_of, values = (_grown(sets, 2 * t), _grown(sizes, 2 * t), _grown(status_of, 2 * t),
                                          _grown(values, 2 * t))
    if 2 * (t + 1) > slots.shape[0]:
        slots = np.full(2 * slots.shape[0], -1, np.int64)
        for u in range(t):
            slots[-1 - _find(sets, sizes, slots, sets[u], sizes[u])] = u
    sets[t, :k] = row[:k]
    sizes[t] = k
    status_of[t] = status
    values[t, 0] = score
    values[t, 1] = floor
    slots[-1 - _find(sets, sizes, slots, row, k)] = t
    counters[N_SETS] = t + 1
    return (sets, sizes, status_of, values, slots), t


@njit(cache=True)
def _without(row, k, i, out):
    """``row[:k]`` without its i-th variable, into ``out``."""
    for j in range(i):
        out[j] = row[j]
    for j in range(i + 1, k):
        out[j - 1] = row[j]


@njit(cache=True)
def _with(row, k, y, out):
    """``row[:k]`` with ``y`` added in order, into ``out``."""
    j = 0
    while j < k and row[j] < y:
        out[j] = row[j]
        j += 1
    out[j] = y
    for i in range(j, k):
        out[i + 1] = row[i]


@njit(cache=True)
def _scored_id(store, row, k):
    """Id of the set when it was scored, else -1."""
    sets, sizes, status_of, _, slots = store
    t = _find(sets, sizes, slots, row, k)
    return t if t >= 0 and status_of[t] == _SCORED else -1


# -- scores, configurations and bounds ------------------------------------------------------------

@njit(cache=True)
def _configs(arities, row, k, q):
    for i in range(k):
        q *= arities[row[i]]
    return q


@njit(cache=True)
def _interaction(weight, child_arity, q1, q2, empty):
    """``inter(X, P1, P2)`` of Eq. (1), as :func:`bnexplore.parents.explore.interaction` computes it."""
    return weight * (child_arity - 1) * (q1 + q2 - q1 * q2 - 1) - empty


@njit(cache=True)
def _score_sets(data, params, ints, required, batch, batch_sizes, m, counters):
    """Scores of the full parent sets (``required`` with each of ``batch[:m]``), by the scorer's batch kernels."""
    cols, arities, weights = data
    width = batch.shape[1] + required.shape[0]
    parents = np.zeros((m, max(width, 1)), np.int64)
    sizes = np.empty(m, np.int64)
    for t in range(m):
        k = batch_sizes[t]
        i = j = 0
        while i < required.shape[0] or j < k:
            if j == k or (i < required.shape[0] and required[i] < batch[t, j]):
                parents[t, i + j] = required[i]
                i += 1
            else:
                parents[t, i + j] = batch[t, j]
                j += 1
        sizes[t] = i + j
    children = np.full(m, ints[_CHILD], np.int64)
    code, ess, dense = ints[_CODE], params[_ESS], ints[_DENSE]
    counters[FAMILIES] += m
    counters[VARIABLES] += sizes.sum() + m
    if weights.shape[0] > 0:
        return kernels.weighted_local_scores_serial(cols, arities, children, parents, sizes, weights, code, ess,
                                                    dense)
    return kernels.local_scores_serial(cols, arities, children, parents, sizes, code, ess, dense)


@njit(cache=True)
def _estimated_floor(data, params, ints, required, entropies, store, row, k, rest):
    """Lower bound on the score of the unscored set ``row[:k]`` from Corollary 1 (Theorem 2):
    ``BIC*(X, P - {y}, {y}) - N min{H(X), H(P - {y}), H(y)}`` over the splits with both parts scored
    (``_Family._estimated_floor`` of :mod:`bnexplore.parents.explore`)."""
    arities = data[1]
    best = -math.inf
    if required.shape[0] > 0 or k < 2:
        return best
    child = ints[_CHILD]
    values = store[3]
    for i in range(k):
        y = row[i]
        _without(row, k, i, rest)
        t_rest = _scored_id(store, rest, k - 1)
        t_y = _scored_id(store, row[i:], np.int64(1))
        if t_rest < 0 or t_y < 0:
            continue
        q_rest = _configs(arities, rest, k - 1, 1.0)
        h = 0.0
        for j in range(k - 1):
            h += entropies[rest[j]]
        h_rest = min(math.log(q_rest), h)
        error = params[_N] * min(entropies[child], h_rest, entropies[y])
        star = values[t_rest, 0] + values[t_y, 0] + _interaction(params[_STAR_WEIGHT], arities[child], q_rest,
                                                                    float(arities[y]), params[_EMPTY])
        best = max(best, star - error)
    return best


@njit(cache=True)
def _alive(data, params, ints, required, entropies, store, counters, row, k, scratch, rest):
    """False (and the set stored as dead) when ``row[:k]`` provably cannot be an optimal parent set
    (``_Family.alive`` of :mod:`bnexplore.parents.explore`, with the estimates)."""
    sets, sizes, status_of, values, slots = store
    ids = np.empty(k, np.int64)
    dead = False
    for i in range(k):
        _without(row, k, i, scratch)
        ids[i] = _find(sets, sizes, slots, scratch, k - 1)
        dead = dead or (ids[i] >= 0 and status_of[ids[i]] == _DEAD)
    if not dead and not math.isnan(params[_WEIGHT]):
        bound = values[0, 1]
        for i in range(k):
            if ids[i] >= 0 and status_of[ids[i]] == _SCORED:
                bound = max(bound, values[ids[i], 1])
            else:
                _without(row, k, i, scratch)
                bound = max(bound, _estimated_floor(data, params, ints, required, entropies, store, scratch,
                                                    k - 1, rest))
        penalty = params[_WEIGHT] * (data[1][ints[_CHILD]] - 1) * _configs(data[1], row, k, _required_configs(
            data[1], required))
        dead = bound + penalty > 0
    if dead:
        counters[PRUNED] += 1
    return not dead


@njit(cache=True)
def _required_configs(arities, required):
    return _configs(arities, required, required.shape[0], 1.0)


# -- the open list: streams of extensions and a heap of their heads -------------------------------

@njit(cache=True)
def _heap_less(keys, ids, a, b):
    return keys[a] < keys[b] or (keys[a] == keys[b] and ids[a] < ids[b])


@njit(cache=True)
def _heap_push(heap, counters, key, stream):
    keys, ids = heap
    n = counters[HEAP]
    if n == keys.shape[0]:
        keys, ids = _grown(keys, 2 * n), _grown(ids, 2 * n)
    keys[n] = key
    ids[n] = stream
    while n > 0:
        parent = (n - 1) // 2
        if not _heap_less(keys, ids, n, parent):
            break
        keys[n], keys[parent] = keys[parent], keys[n]
        ids[n], ids[parent] = ids[parent], ids[n]
        n = parent
    counters[HEAP] += 1
    return keys, ids


@njit(cache=True)
def _heap_pop(heap, counters):
    keys, ids = heap
    top = ids[0]
    n = counters[HEAP] - 1
    counters[HEAP] = n
    keys[0], ids[0] = keys[n], ids[n]
    i = 0
    while True:
        low = i
        for c in (2 * i + 1, 2 * i + 2):
            if c < n and _heap_less(keys, ids, c, low):
                low = c
        if low == i:
            return top
        keys[i], keys[low] = keys[low], keys[i]
        ids[i], ids[low] = ids[low], ids[i]
        i = low


@njit(cache=True)
def _advance_stream(streams, heap, counters, groups, store, s):
    """Move stream ``s`` to its next variable not in its set and push its head (none left: drop it)."""
    positions, values = streams
    group_start, group_ys, group_scores = groups[1], groups[2], groups[3]
    base, g, at = positions[s, 0], positions[s, 1], positions[s, 2] + 1
    sets, sizes = store[0], store[1]
    while at < group_start[g + 1] and _contains(sets[base], sizes[base], group_ys[at]):
        at += 1
    if at < group_start[g + 1]:
        positions[s, 2] = at
        heap = _heap_push(heap, counters, -(values[s] + group_scores[at]), s)
    return heap


@njit(cache=True)
def _contains(row, k, y):
    for i in range(k):
        if row[i] == y:
            return True
    return False


@njit(cache=True)
def _open(data, params, ints, required, groups, store, streams, heap, counters, base, score):
    """Open one stream of ``base``'s extensions per arity the pruning bound leaves (``_Streams.open``)."""
    arities = data[1]
    group_arity = groups[0]
    positions, values = streams
    if store[1][base] >= store[0].shape[1]:  # no room for an extension (the caller's width rules it out)
        return streams, heap
    q = _configs(arities, store[0][base], store[1][base], _required_configs(arities, required))
    r_child = arities[ints[_CHILD]]
    weight = 0.0 if math.isnan(params[_WEIGHT]) else params[_WEIGHT]
    denominator = weight * (r_child - 1) * q
    max_arity = math.inf
    if denominator > 0:
        max_arity = -store[3][base, 1] / denominator
    for g in range(group_arity.shape[0]):
        if group_arity[g] <= max_arity:
            s = counters[N_STREAMS]
            if s == positions.shape[0]:
                positions, values = _grown(positions, 2 * s), _grown(values, 2 * s)
            positions[s, 0] = base
            positions[s, 1] = g
            positions[s, 2] = groups[1][g] - 1  # the stream's variables: group_ys[groups[1][g]:groups[1][g + 1]]
            values[s] = score + _interaction(params[_STAR_WEIGHT], r_child, q, float(group_arity[g]),
                                             params[_EMPTY])
            counters[N_STREAMS] = s + 1
            heap = _advance_stream((positions, values), heap, counters, groups, store, s)
    return (positions, values), heap


@njit(cache=True)
def _pop(streams, heap, counters, groups, store, out):
    """The next candidate of the open list not seen yet, into ``out``; its size, or -1 when the list is empty."""
    sets, sizes, _, _, slots = store
    while counters[HEAP] > 0:
        s = _heap_pop(heap, counters)
        base = streams[0][s, 0]
        k = sizes[base]
        _with(sets[base], k, groups[2][streams[0][s, 2]], out)
        heap = _advance_stream(streams, heap, counters, groups, store, s)
        if _find(sets, sizes, slots, out, k + 1) < 0:
            return k + 1, heap
    return -1, heap


# -- the search ------------------------------------------------------------------------------------

@njit(cache=True)
def _start(data, ints, params, required, others, store, streams, heap, counters, entropies, width):
    """Score the empty set (its score is ``params[_EMPTY]``, given) and every singleton the bounds leave;
    group the singletons by arity, best first; open their extensions."""
    row = np.full(width, -1, np.int64)
    scratch = np.full(width, -1, np.int64)
    rest = np.full(width, -1, np.int64)
    one = np.int64(1)
    store, _ = _add(store, counters, row, np.int64(0), np.int8(_SCORED), params[_EMPTY], params[_EMPTY])
    counters[EVALUATED] = 1
    alive = np.zeros(others.shape[0], np.bool_)
    for i in range(others.shape[0]):
        row[0] = others[i]
        alive[i] = _alive(data, params, ints, required, entropies, store, counters, row, one, scratch, rest)
        if not alive[i]:
            store, _ = _add(store, counters, row, one, np.int8(_DEAD), 0.0, 0.0)
    singles = others[alive][: max(0, ints[_BUDGET] - counters[EVALUATED])]
    batch = singles.reshape((-1, 1))
    scores = _score_sets(data, params, ints, required, batch, np.ones(singles.shape[0], np.int64),
                         singles.shape[0], counters)
    counters[EVALUATED] += singles.shape[0]
    ids = np.empty(singles.shape[0], np.int64)
    for t in range(singles.shape[0]):
        row[0] = singles[t]
        store, ids[t] = _add(store, counters, row, one, np.int8(_SCORED), scores[t], max(scores[t], params[_EMPTY]))
    groups = _arity_groups(data[1], singles, scores)
    if ints[_MAX_SIZE] > 1:
        for t in range(singles.shape[0]):
            streams, heap = _open(data, params, ints, required, groups, store, streams, heap, counters, ids[t],
                                  scores[t])
    return store, streams, heap, groups


@njit(cache=True)
def _arity_groups(arities, singles, scores):
    """The scored singletons by decreasing score (ties: in order), grouped by arity in order of first
    appearance: ``(arity of each group, start of each group and the end, variables, their scores)``."""
    order = np.argsort(-scores, kind="mergesort")
    seen = np.zeros(0, np.int64)
    for t in order:
        if not _contains(seen, seen.shape[0], arities[singles[t]]):
            seen = np.append(seen, arities[singles[t]])
    start = np.zeros(seen.shape[0] + 1, np.int64)
    ys = np.empty(singles.shape[0], np.int64)
    ys_scores = np.empty(singles.shape[0])
    at = 0
    for g in range(seen.shape[0]):
        start[g] = at
        for t in order:
            if arities[singles[t]] == seen[g]:
                ys[at] = singles[t]
                ys_scores[at] = scores[t]
                at += 1
    start[seen.shape[0]] = at
    return seen, start, ys, ys_scores


@njit(cache=True)
def _advance(data, ints, params, required, entropies, groups, store, streams, heap, counters, batches):
    """Up to ``batches`` rounds: pop up to :data:`POP_BATCH` candidates the bounds leave, score them, open
    their extensions (the loop of ``_independence`` in :mod:`bnexplore.parents.explore`)."""
    width = store[0].shape[1]
    batch = np.full((POP_BATCH, width), -1, np.int64)
    batch_sizes = np.zeros(POP_BATCH, np.int64)
    row = np.full(width, -1, np.int64)
    scratch = np.full(width, -1, np.int64)
    rest = np.full(width, -1, np.int64)
    for _ in range(batches):
        room = ints[_BUDGET] - counters[EVALUATED]
        if counters[HEAP] == 0 or room <= 0:
            break
        m = 0
        while m < min(POP_BATCH, room):
            k, heap = _pop(streams, heap, counters, groups, store, row)
            if k < 0:
                break
            if _in_batch(batch, batch_sizes, m, row, k):
                continue
            if not _alive(data, params, ints, required, entropies, store, counters, row, k, scratch, rest):
                store, _ = _add(store, counters, row, k, np.int8(_DEAD), 0.0, 0.0)
            else:
                batch[m, :k] = row[:k]
                batch_sizes[m] = k
                m += 1
        if m == 0:
            continue
        scores = _score_sets(data, params, ints, required, batch, batch_sizes, m, counters)
        counters[EVALUATED] += m
        ids = np.empty(m, np.int64)
        for t in range(m):
            store, ids[t] = _add_scored(store, counters, params, batch[t], batch_sizes[t], scores[t], scratch)
        for t in range(m):
            if batch_sizes[t] < ints[_MAX_SIZE]:
                streams, heap = _open(data, params, ints, required, groups, store, streams, heap, counters,
                                      ids[t], scores[t])
    return store, streams, heap


@njit(cache=True)
def _in_batch(batch, batch_sizes, m, row, k):
    for t in range(m):
        if batch_sizes[t] == k:
            same = True
            for j in range(k):
                if batch[t, j] != row[j]:
                    same = False
                    break
            if same:
                return True
    return False


@njit(cache=True)
def _add_scored(store, counters, params, row, k, score, scratch):
    """Store a scored set with its floor: the best of its score, the empty set's and its scored
    immediate subsets' floors."""
    floor = max(score, store[3][0, 1])
    for i in range(k):
        _without(row, k, i, scratch)
        t = _scored_id(store, scratch, k - 1)
        if t >= 0:
            floor = max(floor, store[3][t, 1])
    return _add(store, counters, row, k, np.int8(_SCORED), score, floor)


@njit(cache=True)
def _kept(store, counters, width):
    """Ids of the scored sets that beat every scored subset, by size and then in the order scored (the
    empty set first)."""
    sets, sizes, status_of, values, _ = store
    n = counters[N_SETS]
    best_within = np.full(n, -math.inf)
    scratch = np.full(width, -1, np.int64)
    top = sizes[:n].max()
    out = []
    for size in range(top + 1):
        for t in range(n):
            if sizes[t] != size or status_of[t] != _SCORED:
                continue
            below = values[0, 0] if size > 0 else -math.inf
            for i in range(size):
                _without(sets[t], size, i, scratch)
                u = _scored_id(store, scratch, size - 1)
                if u >= 0:
                    below = max(below, best_within[u])
            best_within[t] = max(values[t, 0], below)
            if values[t, 0] > below:
                out.append(t)
    kept = np.empty(len(out), np.int64)
    for i in range(len(out)):
        kept[i] = out[i]
    return kept


class Selection:
    """Independence selection for one variable, a few batches at a time.

    Parameters
    ----------
    scorer : Scorer
    child : int
    others : sequence of int
        The variables that may be added (allowed, not required), in the order the singletons are tried.
    required : sequence of int, optional
        Parents every set holds.
    entropies : sequence of float, optional
        ``H(v)`` of every variable, for the Theorem 2 estimates (penalised scores).
    max_size : int
        Most variables added to the required ones.
    budget : int, optional
        Sets scored, the empty set (the required parents) included.
    empty : float, optional
        The score of the required parents alone, when the caller has it.
    width : int, optional
        Widest set stored (see :func:`store_width`; the default computes it).
    """

    def __init__(self, scorer, child, others, required=(), entropies=None, max_size=1, budget=None, empty=None,
                 width=None):
        required = np.array(sorted(int(u) for u in required), np.int64)
        others = np.array(others, np.int64)
        weight = penalty_weight(scorer.score_name, scorer.n_rows)
        if empty is None:
            empty = scorer.local(child, required.tolist())
        if width is None:
            width = store_width(scorer, child, others, required, max_size, empty)
        star_weight = math.log(scorer.n_rows) / 2 if weight is None else weight
        self.scorer = scorer
        self._data = (scorer.cols, scorer.arities, scorer.weights if scorer.weighted else np.zeros(0))
        self._params = np.array([np.nan if weight is None else weight, star_weight, empty, float(scorer.n_rows),
                                 scorer.ess])
        self._ints = np.array([child, scorer.spec.code, scorer.dense_cells, max_size,
                               _BUDGET_CAP if budget is None else min(int(budget), _BUDGET_CAP)], np.int64)
        self._required = required
        self._entropies = (np.zeros(scorer.n_vars) if entropies is None
                           else np.ascontiguousarray(entropies, dtype=np.float64))
        self.counters = np.zeros(7, np.int64)
        self._recorded = (0, 0)
        store = (np.full((64, max(width, 1)), -1, np.int64), np.zeros(64, np.int64), np.zeros(64, np.int8),
                 np.zeros((64, 2)), np.full(128, -1, np.int64))
        streams = (np.zeros((64, 3), np.int64), np.zeros(64))
        heap = (np.zeros(64), np.zeros(64, np.int64))
        self._store, self._streams, self._heap, self._groups = _start(
            self._data, self._ints, self._params, required, others, store, streams, heap, self.counters,
            self._entropies, max(width, 1))
        self._record()

    @property
    def open(self):
        """True while the open list holds candidates and the budget has room."""
        return bool(self.counters[HEAP] > 0 and self.counters[EVALUATED] < self._ints[_BUDGET])

    @property
    def evaluated(self):
        return int(self.counters[EVALUATED])

    @property
    def pruned(self):
        return int(self.counters[PRUNED])

    def advance(self, batches):
        """Run up to ``batches`` rounds of :data:`POP_BATCH` candidates."""
        self._store, self._streams, self._heap = _advance(
            self._data, self._ints, self._params, self._required, self._entropies, self._groups, self._store,
            self._streams, self._heap, self.counters, int(batches))
        self._record()

    def _record(self):
        families, variables = int(self.counters[FAMILIES]), int(self.counters[VARIABLES])
        self.scorer.record_computed(families - self._recorded[0], variables - self._recorded[1])
        self._recorded = (families, variables)

    def kept(self):
        """The scored sets that beat every scored subset, as ``[(full parent set, score)]``."""
        sets, sizes, _, values, _ = self._store
        required = self._required.tolist()
        out = []
        for t in _kept(self._store, self.counters, sets.shape[1]).tolist():
            added = sets[t, : sizes[t]].tolist()
            out.append((tuple(sorted(required + added)) if required else tuple(added), float(values[t, 0])))
        return out


_BUDGET_CAP = 1 << 62


def store_width(scorer, child, others, required, max_size, empty):
    """Most variables a stored set can hold: one more than the largest set the penalty bound lets be
    scored (``s(R) + w (|X| - 1) |Pi| > 0`` prunes a set before it is scored, de Campos & Ji 2011,
    Theorem 4, so no scored set is larger than the ``k`` smallest arities allow), and never more than
    ``max_size``."""
    weight = penalty_weight(scorer.score_name, scorer.n_rows)
    if weight is None or weight <= 0:
        return int(max_size)
    arities = sorted(int(scorer.arities[v]) for v in others)
    q = float(np.prod([float(scorer.arities[u]) for u in required])) if len(required) else 1.0
    step = weight * (int(scorer.arities[child]) - 1)
    k = 0
    while k < min(max_size, len(arities)) and empty + step * q * arities[k] <= 0:
        q *= arities[k]
        k += 1
    return int(min(max_size, k + 2))

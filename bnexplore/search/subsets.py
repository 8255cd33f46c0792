"""The subset DP's table and kernels: ``B(S)`` for every subset of the variables.

Silander & Myllymaki (2006), "A simple approach for finding the globally
optimal Bayesian network structure", UAI, Section 3: every DAG over a set
``S`` has a sink ``v`` whose parents lie in ``S - v``, so the best score of a
DAG over ``S`` is

    B(S) = max over v in S of  bp(v, S - v) + B(S - v),    B({}) = 0,

where ``bp(v, R)`` is the best local score of ``v`` with all parents inside
``R``. Here ``bp`` is not tabulated (that needs ``n 2^(n-1)`` entries): the
candidate parent sets of ``v`` are kept best first as bitmasks
(:class:`CandidateArrays`), so ``bp(v, R)`` is the score of the first
candidate whose mask is a subset of ``R``. Only ``B`` is stored, one float64
per subset (``8 * 2^n`` bytes), filled layer by layer (all subsets of one
size, in parallel) so that a layer only reads the one before it. The optimum
(:mod:`bnexplore.search.exact`) and the credible set
(:mod:`bnexplore.search.credible`) both start from this table.
"""

import math

import numpy as np
from numba import prange

from ..compiling import njit
from ..errors import ResourceError, SearchError

MAX_VARIABLES = 62
"""Subsets are int64 bitmasks: at most this many variables (memory runs out long before)."""


DP_OVERHEAD = 64 << 20
"""Bytes allowed beyond the table for candidates, Python and numba."""


SLICE = 1 << 21
"""Subsets per kernel call, between two checks of the stop flag."""


DP_SECONDS_PER_STEP = 1.2e-8
"""Seconds per (node, subset) step of the dynamic programme on 2 cores (measured by benchmarks/bench_exact.py)."""


DP_SECONDS_PER_CHECK = 6e-10
"""Seconds per candidate parent set the DP's scans check (:func:`dp_checks`), on 2 cores: with thousands of
candidate sets of several parents per node the scans, not the subsets, set the DP's time."""


DP_CHECK_SAMPLES = 256
"""Subsets per layer and node that :func:`dp_checks` samples (layers this small are counted exactly)."""


def dp_memory(n):
    """Bytes the dynamic programme over ``n`` variables needs (the table ``B`` and headroom)."""
    return 8 * (1 << int(n)) + DP_OVERHEAD


def dp_seconds(n, candidates=None):
    """Rough seconds of the dynamic programme over ``n`` variables.

    ``n 2^n`` (node, subset) steps, and with ``candidates`` (a
    :class:`CandidateArrays`) the candidates its scans check (:func:`dp_checks`):
    with tens of thousands of candidate sets per node these dominate. Infinite
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
                        bits = next_subset(bits)
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


def check_size(n):
    """Raise ResourceError beyond :data:`MAX_VARIABLES` variables (parent sets are 64-bit masks)."""
    if n > MAX_VARIABLES:
        raise ResourceError(f"the exact search handles at most {MAX_VARIABLES} variables (parent sets are 64-bit "
                            f"masks), this problem has {n}; use a heuristic search (hill climbing, ordering-based)")


class CandidateArrays:
    """Candidate parent sets of all nodes as flat arrays for the kernels.

    ``masks[offsets[v]:offsets[v + 1]]`` and ``scores[...]`` are node ``v``'s
    candidates best first; ``top[v]`` its best score; ``forced[v]`` the
    parents every candidate of ``v`` holds (its required parents, under
    background knowledge).
    """

    def __init__(self, parent_sets):
        n = parent_sets.n_vars
        check_size(n)
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
def unrank(rank, k, binom):
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
def next_subset(s):
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
    s = unrank(lo, k, binom)
    for _ in range(hi - lo):
        table[s] = _subset_score(table, s, n, masks, scores, offsets, top)
        s = next_subset(s)


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


def binomial_table(n):
    """``table[a, b] = C(a, b)`` for ``0 <= b <= a <= n + 1`` (int64): the colex ranks of :func:`unrank`."""
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
    binom = binomial_table(n)
    done = 1
    total = float(1 << n)
    for k in range(1, n + 1):
        count = int(binom[n, k])
        for first in range(0, count, SLICE):
            if control.should_stop():
                return table, k - 1
            size = min(SLICE, count - first)
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


def greedy_completion(candidates, table, size):
    """A DAG from a table complete up to ``size``: greedy sinks above it, optimal below.

    Above ``size`` each step removes the sink whose best parent set among the
    remaining nodes scores highest, never a node another remaining node must
    have as a parent (``CandidateArrays.forced``), so a DAG always remains below;
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

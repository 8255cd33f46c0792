"""The candidate parent sets of every node, best first: one structure shared by
the exact search, the credible-set enumeration and the ordering-based searches."""

import itertools

import numpy as np

from ..errors import SearchError


class ParentSets:
    """Candidate parent sets with their local scores, per node, best first.

    Parameters
    ----------
    names : list of str
        Variable names (node ``v`` is ``names[v]``).
    candidates : list of iterables of ``(parent tuple, score)``
        For each node, its candidate parent sets and local scores, in any
        order. Each node must have at least one candidate.
    score_name : str
        The local score the scores were computed with.
    stats : dict, optional
        How the candidates were found (per-node counts, per-rule pruning
        counts, seconds); kept as given.

    Notes
    -----
    Per node the sets are stored as a ``(m, k)`` int64 array padded with -1,
    sorted by decreasing score (ties: smaller sets first, then
    lexicographically, so the order is deterministic). With at most 63 nodes
    each set is also a bitmask (:meth:`masks`), which the dynamic programme
    over subsets uses: the best parent set of ``v`` inside a set ``S`` is the
    first candidate whose mask is a subset of ``S``.
    """

    def __init__(self, names, candidates, score_name, stats=None):
        self._store(names, [pack_items(items) for items in candidates], score_name, stats)

    @classmethod
    def of_packed(cls, names, packed, score_name, stats=None):
        """Candidates given as arrays: ``packed[v]`` is node ``v``'s ``(parents, sizes, scores)`` as
        :func:`pack_items` (or :meth:`packed`) gives them, in any order. The explorers keep each variable's sets
        so, packed as they find them: on DEBD's cr52 their 140,000 sets as tuples and floats took about 25 MB."""
        self = cls.__new__(cls)
        self._store(names, packed, score_name, stats)
        return self

    def _store(self, names, packed, score_name, stats):
        self.names = list(names)
        self.score_name = score_name
        self.stats = dict(stats or {})
        n = len(self.names)
        if len(packed) != n:
            raise SearchError(f"candidate parent sets given for {len(packed)} nodes, expected {n}")
        counts = np.fromiter((len(sizes) for _, sizes, _ in packed), np.int64, n)
        parents = np.full((int(counts.sum()), max([p.shape[1] for p, _, _ in packed] + [1])), _PAD, np.int64)
        for (p, sizes, _), start in zip(packed, (np.cumsum(counts) - counts).tolist()):
            parents[start:start + len(sizes), :p.shape[1]] = np.where(np.arange(p.shape[1]) < sizes[:, None], p, _PAD)
        parents.sort(axis=1)
        sizes = np.concatenate([np.empty(0, np.int64)] + [sizes for _, sizes, _ in packed]).astype(np.int64)
        scores = np.concatenate([np.empty(0)] + [scores for _, _, scores in packed]).astype(np.float64)
        node = np.repeat(np.arange(n), counts)
        _check(parents, node, counts, self.names)
        # each node's sets best first; ties: smaller sets, then lexicographically (the padding sorts last)
        order = np.lexsort([parents[:, c] for c in range(parents.shape[1] - 1, -1, -1)] + [sizes, -scores, node])
        parents, sizes, scores = np.where(parents[order] == _PAD, -1, parents[order]), sizes[order], scores[order]
        ends = np.cumsum(counts)
        starts = ends - counts
        widths = np.maximum(np.maximum.reduceat(sizes, starts), 1) if n else counts
        self._parents = [parents[lo:hi, :w] if w == parents.shape[1] else np.ascontiguousarray(parents[lo:hi, :w])
                         for lo, hi, w in zip(starts.tolist(), ends.tolist(), widths.tolist())]
        self._sizes = [sizes[lo:hi] for lo, hi in zip(starts.tolist(), ends.tolist())]
        self._scores = [scores[lo:hi] for lo, hi in zip(starts.tolist(), ends.tolist())]

    @property
    def n_vars(self):
        return len(self.names)

    def __len__(self):
        """Total number of candidate sets over all nodes."""
        return sum(len(s) for s in self._scores)

    def __repr__(self):
        return f"ParentSets({self.n_vars} nodes, {len(self)} candidates, {self.score_name})"

    def counts(self):
        """Number of candidates of each node (int array)."""
        return np.array([len(s) for s in self._scores])

    def sets(self, v):
        """Candidate parent sets of node ``v`` as tuples, best first."""
        return [tuple(row[:size]) for row, size in zip(self._parents[v].tolist(), self._sizes[v].tolist())]

    def scores(self, v):
        """Local scores of node ``v``'s candidates, best first (float array)."""
        return self._scores[v]

    def packed(self, v):
        """``(parents, sizes, scores)`` arrays of node ``v``, best first."""
        return self._parents[v], self._sizes[v], self._scores[v]

    def masks(self, v):
        """Bitmasks of node ``v``'s candidates (int64; needs at most 63 nodes)."""
        if self.n_vars > 63:
            raise SearchError(f"bitmask parent sets need at most 63 variables, this problem has {self.n_vars}")
        bits = np.where(self._parents[v] >= 0, np.left_shift(np.int64(1), np.maximum(self._parents[v], 0)), 0)
        return bits.sum(axis=1).astype(np.int64)

    def best(self, v, allowed=None):
        """Best candidate of ``v`` whose parents all lie in ``allowed``.

        Returns ``(parent tuple, score)``, or None when no candidate fits.
        ``allowed`` is a collection of node indices (None allows all).
        """
        if allowed is None:
            return self.sets(v)[0], float(self._scores[v][0])
        ok = np.zeros(self.n_vars + 1, bool)  # index -1 (padding) maps to the last, True, cell
        ok[list(allowed)] = True
        ok[-1] = True
        fits = ok[self._parents[v]].all(axis=1)
        if not fits.any():
            return None
        t = int(np.argmax(fits))
        return tuple(self._parents[v][t, : self._sizes[v][t]].tolist()), float(self._scores[v][t])

    def table(self):
        """All candidates as rows ``(node, parents, score)`` (for display and export)."""
        return [(self.names[v], [self.names[p] for p in ps], float(s))
                for v in range(self.n_vars) for ps, s in zip(self.sets(v), self._scores[v])]


_PAD = np.iinfo(np.int64).max
"""The padding of the rows while they are sorted (after every node index); -1 once sorted."""


def pack_items(items):
    """One node's ``(parent tuple, score)`` pairs as arrays: ``(parents, sizes, scores)``, the parents ``(m, k)``
    int64 padded with -1, in the pairs' order (as :meth:`ParentSets.packed` gives a node's, best first).

    Examples
    --------
    >>> parents, sizes, scores = pack_items([((2, 0), -1.5), ((), -3.0)])
    >>> parents.tolist(), sizes.tolist(), scores.tolist()
    ([[2, 0], [-1, -1]], [2, 0], [-1.5, -3.0])
    """
    items = items if isinstance(items, list) else list(items)
    sizes = np.fromiter((len(c) for c, _ in items), np.int64, len(items))
    flat = np.fromiter(itertools.chain.from_iterable(c for c, _ in items), np.int64, int(sizes.sum()))
    parents = np.full((len(items), max(1, int(sizes.max(initial=0)))), -1, np.int64)
    parents[np.arange(parents.shape[1]) < sizes[:, None]] = flat
    return parents, sizes, np.fromiter((score for _, score in items), np.float64, len(items))


def _check(parents, node, counts, names):
    """Refuse the first node (in order) with no candidate or with a set holding itself or no node."""
    padded = parents == _PAD
    bad = ((parents < 0) | (parents >= len(names)) | (parents == node[:, None])) & ~padded
    first_bad = np.flatnonzero(bad.any(axis=1))
    empty = np.flatnonzero(counts == 0)
    if len(empty) and (not len(first_bad) or empty[0] <= node[first_bad[0]]):
        raise SearchError(f"node {names[empty[0]]!r} has no candidate parent set")
    if len(first_bad):
        t = first_bad[0]
        ps = tuple(parents[t][~padded[t]].tolist())
        raise SearchError(f"invalid candidate parent set {ps} for node {names[node[t]]!r}")

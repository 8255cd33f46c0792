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
        self._store(names, (pack_items(items) for items in candidates), score_name, stats)

    @classmethod
    def of_packed(cls, names, packed, score_name, stats=None):
        """Candidates given as arrays: ``packed`` yields node ``v``'s ``(parents, sizes, scores)`` as
        :func:`pack_items` (or :meth:`packed`) gives them, in any order, node by node (a list, or an iterator
        that lets each node's arrays go once read). The explorers keep each variable's sets so, packed as they
        find them: on DEBD's cr52 their 140,000 sets as tuples and floats took about 25 MB.

        Examples
        --------
        >>> sets = ParentSets.of_packed(["a", "b"], iter([pack_items([((), -2.0)]),
        ...                                               pack_items([((), -3.0), ((0,), -1.0)])]), "bic")
        >>> sets.sets(1), sets.scores(1).tolist()
        ([(0,), ()], [-1.0, -3.0])
        """
        self = cls.__new__(cls)
        self._store(names, packed, score_name, stats)
        return self

    def _store(self, names, packed, score_name, stats):
        """Sort and keep each node's arrays as they come, node by node: the whole pool sorted at once held
        every set several times over (DEBD's voting: 1.58 million sets, 204 MB above the explorer's)."""
        self.names = list(names)
        self.score_name = score_name
        self.stats = dict(stats or {})
        self._parents, self._sizes, self._scores = [], [], []
        packed = iter(packed)
        for v, (parents, sizes, scores) in enumerate(packed):
            if v == self.n_vars:
                raise SearchError(f"candidate parent sets given for {v + 1 + sum(1 for _ in packed)} nodes, "
                                  f"expected {self.n_vars}")
            parents, sizes, scores = _sorted_node(parents, sizes, scores, v, self.names)
            self._parents.append(parents)
            self._sizes.append(sizes)
            self._scores.append(scores)
        if len(self._parents) != self.n_vars:
            raise SearchError(f"candidate parent sets given for {len(self._parents)} nodes, expected {self.n_vars}")

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
        return set_tuples(self._parents[v], self._sizes[v])

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


def set_tuples(parents, sizes):
    """Packed parent sets (rows padded with -1, and their sizes) as a list of tuples: the inverse of
    :func:`pack_items`' parents.

    Examples
    --------
    >>> set_tuples(np.array([[2, 0], [-1, -1]]), np.array([2, 0]))
    [(2, 0), ()]
    """
    return [tuple(row[:size]) for row, size in zip(parents.tolist(), sizes.tolist())]


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


def best_first(parents, sizes, scores):
    """One node's sets in the order of a :class:`ParentSets`: best first, ties smaller sets first, then
    lexicographically (each set's parents in increasing order, padded with -1), as wide as the largest set.

    Examples
    --------
    >>> parents, sizes, scores = best_first(np.array([[2, 0], [1, -1], [-1, -1]]), np.array([2, 1, 0]),
    ...                                     np.array([-1.0, -1.0, -3.0]))
    >>> parents.tolist(), sizes.tolist()
    ([[1, -1], [0, 2], [-1, -1]], [1, 2, 0])
    """
    sizes = np.asarray(sizes, np.int64)
    parents = np.asarray(parents).reshape(len(sizes), -1)
    inside = np.arange(parents.shape[1]) < sizes[:, None]
    rows = np.where(inside, parents, _PAD).astype(np.int64)
    rows.sort(axis=1)
    scores = np.asarray(scores, np.float64)
    order = np.lexsort([rows[:, c] for c in range(rows.shape[1] - 1, -1, -1)] + [sizes, -scores])
    rows = rows[order, :max(1, int(sizes.max(initial=0)))]
    return np.where(rows == _PAD, -1, rows), sizes[order], scores[order]


def _sorted_node(parents, sizes, scores, v, names):
    """Node ``v``'s arrays :func:`best_first`; refused when it has no candidate, or a set holding ``v`` itself
    or no node."""
    sizes = np.asarray(sizes, np.int64)
    if not len(sizes):
        raise SearchError(f"node {names[v]!r} has no candidate parent set")
    parents = np.asarray(parents).reshape(len(sizes), -1)
    if not parents.shape[1]:  # empty sets only, given without a column
        parents = np.full((len(sizes), 1), -1, np.int64)
    inside = np.arange(parents.shape[1]) < sizes[:, None]
    bad = ((parents < 0) | (parents >= len(names)) | (parents == v)) & inside
    if bad.any():
        t = int(np.flatnonzero(bad.any(axis=1))[0])
        raise SearchError(f"invalid candidate parent set {tuple(sorted(parents[t][inside[t]].tolist()))} "
                          f"for node {names[v]!r}")
    return best_first(parents, sizes, scores)

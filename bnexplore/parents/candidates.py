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
        self.names = list(names)
        self.score_name = score_name
        self.stats = dict(stats or {})
        n = len(self.names)
        if len(candidates) != n:
            raise SearchError(f"candidate parent sets given for {len(candidates)} nodes, expected {n}")
        per_node = [items if isinstance(items, list) else list(items) for items in candidates]
        counts = np.fromiter(map(len, per_node), np.int64, n)
        items = list(itertools.chain.from_iterable(per_node))
        parents, sizes, node = _padded([ps for ps, _ in items], counts)
        scores = np.fromiter((score for _, score in items), np.float64, len(items))
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
"""The padding of :func:`_padded`'s rows while they are sorted (after every node index); -1 once sorted."""


def _padded(sets, counts):
    """The parent sets as rows ``(len(sets), width)`` int64, each row sorted ascending and padded with
    :data:`_PAD`; their sizes; and the node of each (``counts[v]`` sets of node ``v``, in order)."""
    sizes = np.fromiter(map(len, sets), np.int64, len(sets))
    flat = np.fromiter(itertools.chain.from_iterable(sets), np.int64, int(sizes.sum()))
    parents = np.full((len(sets), max(1, int(sizes.max(initial=0)))), _PAD, np.int64)
    starts = np.cumsum(sizes) - sizes
    parents[np.repeat(np.arange(len(sets)), sizes), np.arange(len(flat)) - np.repeat(starts, sizes)] = flat
    parents.sort(axis=1)
    return parents, sizes, np.repeat(np.arange(len(counts)), counts)


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

"""The candidate parent sets of every node, best first: one structure shared by
the exact search, the credible-set enumeration and the ordering-based searches."""

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
        if len(candidates) != len(self.names):
            raise SearchError(f"candidate parent sets given for {len(candidates)} nodes, expected {len(self.names)}")
        self._parents, self._sizes, self._scores = [], [], []
        for v, items in enumerate(candidates):
            items = [(tuple(sorted(int(p) for p in ps)), float(s)) for ps, s in items]
            if not items:
                raise SearchError(f"node {self.names[v]!r} has no candidate parent set")
            for ps, _ in items:
                if v in ps or any(not 0 <= p < len(self.names) for p in ps):
                    raise SearchError(f"invalid candidate parent set {ps} for node {self.names[v]!r}")
            items.sort(key=lambda item: (-item[1], len(item[0]), item[0]))
            width = max(1, max(len(ps) for ps, _ in items))
            packed = np.full((len(items), width), -1, np.int64)
            for t, (ps, _) in enumerate(items):
                packed[t, : len(ps)] = ps
            self._parents.append(packed)
            self._sizes.append(np.array([len(ps) for ps, _ in items], np.int64))
            self._scores.append(np.array([s for _, s in items]))

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

"""Scoring RPDAG neighbours: the score change of every operator from at most two local scores.

Proposition 6 of Acid & de Campos (2003) [1]_. :class:`RpdagState` keeps, like
:class:`~bnexplore.search.dagstate.DagState` does for DAGs, a *toggle* matrix
``T[x, y] = g(y, Pa(y) xor {x}) - g(y, Pa(y))`` over the RPDAG's parent sets
(a column changes only when ``Pa(y)`` does) and, for every link ``y -- z``, the
row ``g(y, {x, z}) - g(y, {z})`` over all ``x`` (these never change, so they
are cached for the whole run). Proposition 6 then reads:

======================  ==========================
operator                score change
======================  ==========================
``A_link(x, y)``        ``T[x, y]``  (``Pa(y)`` is empty)
``A_arc(x, y)``         ``T[x, y]``
``D_arc(x, y)``         ``T[x, y]``
``D_link(x, y)``        ``-T[x, y]`` (``Pa(y)`` is empty)
``A_hh(x, y, z)``       ``g(y, {x, z}) - g(y, {z})``
======================  ==========================

After a move only the toggle columns of the nodes whose parent set changed are
recomputed (the node receiving or losing the arc, plus the nodes Complete or
Undo touched), and a new link costs one row of 2 (n - 2) look-ups.

The score must be score equivalent (BDeu, BIC, AIC, LL): an RPDAG stands for a
set of equivalent DAGs and is scored as any one of them.

References
----------
.. [1] S. Acid and L. M. de Campos (2003). Searching for Bayesian network
   structures in the space of restricted acyclic partially directed graphs.
   JAIR 18, 445-490.
"""

import numpy as np

from ...numerics import tie_tolerance
from ...scores import kernels
from ..dagstate import check_pass_memory
from ..run import first_best
from .operators import OPERATORS, RpdagGraph, honouring_extension, indegree_bound

class RpdagState(RpdagGraph):
    """The current RPDAG of a search, with Proposition 6 deltas for every move.

    Parameters
    ----------
    scorer : Scorer
        A score-equivalent scorer.
    rpdag : RPDAG
        The start (valid, node order of the scorer).
    max_indegree : int or None
        Bound on the parents in every consistent extension.
    bound : BoundKnowledge, optional
        Background knowledge: only operators whose result still has an
        extension honouring it are offered (see :mod:`bnexplore.search.rpdag.search`).

    Attributes
    ----------
    score : float
        Score of the current RPDAG (of any of its extensions), kept up to date
        by adding each move's delta.
    toggle : ndarray, shape (n, n)
        ``g(y, Pa(y) xor {x}) - g(y, Pa(y))`` over the RPDAG's parent sets
        (additions beyond ``max_indegree`` are -inf).
    """

    def __init__(self, scorer, rpdag, max_indegree=None, bound=None, control=None):
        check_pass_memory(scorer.n_vars, "the RPDAG search")
        super().__init__(rpdag.adj)
        self.scorer = scorer
        self.bound = bound
        self.max_indegree = indegree_bound(max_indegree, self.n)
        self.toggle = np.full((self.n, self.n), -np.inf)
        self._hh = {}
        self._hh_stack = (None, None)
        self._refresh(range(self.n), control)
        self.score = scorer.total(rpdag.extension())
        self.last_post = {}

    def _refresh(self, nodes, control=None):
        """Recompute the toggle columns of ``nodes`` in batched look-ups of about
        :func:`~bnexplore.scores.kernels.families_per_check` local scores; with
        ``control``, its stop flag and clock are checked between two (the first
        pass over wide data is long), and once it says stop the
        columns not reached stay minus infinity."""
        per_check = kernels.families_per_check(self.scorer.rows)
        batch = []
        for v in nodes:
            batch.append(v)
            if len(batch) * self.n >= per_check:
                self._refresh_batch(batch)
                batch = []
                if control is not None and control.should_stop():
                    return
        if batch:
            self._refresh_batch(batch)

    def _refresh_batch(self, nodes):
        """Recompute the toggle columns of ``nodes`` in one batched look-up."""
        keys, columns = [], []
        for v in nodes:
            ps = self.parents[v]
            base = sorted(ps)
            room = len(ps) < self.max_indegree
            others = [u for u in range(self.n) if u != v and (room or u in ps)]
            keys.append((v, tuple(base)))
            keys.extend((v, tuple(p for p in base if p != u) if u in ps else tuple(sorted(base + [u])))
                        for u in others)
            columns.append((v, others))
        values = self.scorer.lookup(keys)
        t = 0
        for v, others in columns:
            self.toggle[:, v] = -np.inf
            self.toggle[others, v] = values[t + 1: t + 1 + len(others)] - values[t]
            t += 1 + len(others)

    def _hh_row(self, y, z):
        """``g(y, {x, z}) - g(y, {z})`` over x for the link y -- z; it depends on y
        and z only, so it is computed once per run."""
        if (y, z) not in self._hh:
            self._compute_hh([(y, z)])
        return self._hh[(y, z)]

    def _compute_hh(self, pairs):
        """Fill :meth:`_hh_row` for several links in one batched look-up."""
        keys = []
        for y, z in pairs:
            keys.append((y, (z,)))
            keys.extend((y, (x, z) if x < z else (z, x)) for x in range(self.n) if x not in (y, z))
        values = self.scorer.lookup(keys)
        width = self.n - 1
        for t, (y, z) in enumerate(pairs):
            row = np.full(self.n, -np.inf)
            row[[x for x in range(self.n) if x not in (y, z)]] = values[t * width + 1: (t + 1) * width] - values[t * width]
            self._hh[(y, z)] = row

    def _hh_matrix(self, pairs):
        """The :meth:`_hh_row` of every link ``(y, z)`` in ``pairs`` (m x 2 array),
        stacked; the stack is reused while the links do not change."""
        if self._hh_stack[0] != pairs.tobytes():
            pairs_list = [tuple(pair) for pair in pairs.tolist()]
            missing = [pair for pair in pairs_list if pair not in self._hh]
            if missing:
                self._compute_hh(missing)
            matrix = np.array([self._hh[pair] for pair in pairs_list]).reshape(len(pairs_list), self.n)
            self._hh_stack = (pairs.tobytes(), matrix)
        return self._hh_stack[1]

    def _values(self, moves):
        """Score change of every cell of every mask (Proposition 6)."""
        return {"A_arc": self.toggle, "A_link": self.toggle, "D_arc": self.toggle, "D_link": -self.toggle,
                "A_hh": self._hh_matrix(moves.hh_pairs)}

    def delta(self, op, nodes):
        """Score change of one operator (Proposition 6 of [1]_)."""
        x, y = nodes[:2]
        if op == "A_hh":
            return float(self._hh_row(y, nodes[2])[x])
        return float(-self.toggle[x, y] if op == "D_link" else self.toggle[x, y])

    def _moves(self):
        """The applicable operators (:meth:`moves`), less those the knowledge's masks rule out."""
        moves = self.moves(self.max_indegree)
        return moves if self.bound is None else moves.honouring(self.bound)

    def honours_after(self, op, nodes):
        """True when the operator's result (post-processing included) has an extension honouring the knowledge."""
        if self.bound is None:
            return True
        graph = RpdagGraph(self.adj)
        graph.apply(op, nodes)
        return honouring_extension(graph.adj, self.bound) is not None

    def scored_moves(self):
        """Every applicable operator (under the knowledge, if any) as ``(op, nodes, delta)``."""
        moves = self._moves()
        values = self._values(moves)
        listed = [(op, moves.nodes(op, index), float(values[op][tuple(index)]))
                  for op in OPERATORS for index in np.argwhere(moves.masks[op])]
        return [move for move in listed if self.honours_after(*move[:2])]

    def _pick(self, moves, values):
        """The best move among ``moves`` as ``(op, nodes, delta)``, or None;
        moves within a rounding tolerance of the best tie and the first wins
        (operators in :data:`OPERATORS` order, then by position). Under
        knowledge a move whose result cannot honour it is dropped from
        ``moves`` and the next best taken."""
        while True:
            best = self._pick_any(moves, values)
            if best is None or self.honours_after(*best[:2]):
                return best
            moves.masks[best[0]][moves.index(*best[:2])] = False

    def _pick_any(self, moves, values):
        """:meth:`_pick` without the knowledge test."""
        tol = tie_tolerance(self.score)
        best = None
        for op in OPERATORS:
            mask = moves.masks[op]
            if not mask.any():
                continue
            masked = np.where(mask, values[op], -np.inf)
            index = np.unravel_index(first_best(masked, tol), masked.shape)
            if best is None or masked[index] > best[2] + tol:
                best = (op, moves.nodes(op, index), float(masked[index]))
        return best

    def best_move(self, tabu=None, aspiration=np.inf):
        """The applicable operator with the largest score change.

        With ``tabu``, a pair ``(add, delete)`` of symmetric boolean matrices
        marking the node pairs that may not gain / lose an edge, the greedy
        choice is kept when its gain exceeds ``aspiration`` (it reaches a new
        best RPDAG) or when it is not tabu; otherwise the best operator that
        is not tabu. Tabu search thus repeats the greedy climb's moves for as
        long as they improve on the best RPDAG seen.

        Returns
        -------
        tuple or None
            ``(op, nodes, delta, evaluated)``, ``evaluated`` being the number
            of neighbours scored (the paper's Ind); None when no operator is
            applicable.
        """
        moves = self._moves()
        values = self._values(moves)
        evaluated = sum(int(np.count_nonzero(mask)) for mask in moves.masks.values())
        best = self._pick(moves, values)
        if tabu is not None and best is not None and best[2] <= aspiration \
                and moves.is_tabu(best[0], best[1], *tabu):
            best = self._pick(moves.without(*tabu), values)
        return None if best is None else (*best, evaluated)

    def apply(self, op, *nodes):
        """Apply an operator, its post-processing, and update the score and deltas."""
        delta = self.delta(op, nodes)
        changed, post, edges = super().apply(op, nodes)
        self.score += delta
        self._refresh(changed)
        names = self.scorer.names
        self.last_post = {"post": post, "post_edges": [[names[u], names[v]] for u, v in edges]}

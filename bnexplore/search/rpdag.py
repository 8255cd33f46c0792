"""Local search in the space of restricted PDAGs (RPDAGs).

Implements Acid & de Campos (2003) [1]_: greedy search (their "RPDAG") and tabu
search ("TS-RPDAG", Section 6) over RPDAGs (Definition 1), with

- the five operators of Section 4.3, ``A_arc``, ``A_link``, ``D_arc``,
  ``D_link`` and ``A_hh``, applicable under the conditions of Table 2
  (including the cycle tests UC and DC), followed by the post-processing
  ``Complete(y)`` (Section 4.2.1) or ``Undo(y)`` (Section 4.2.2);
- the score of every neighbour from at most two local scores (Proposition 6);
- the states A-G of Table 1 / Figure 10 (:func:`pair_state`), recorded in the
  trajectory so a teacher can show which case a chosen pair was in.

The search keeps, like :class:`~bnexplore.search.dagstate.DagState` does for
DAGs, a *toggle* matrix ``T[x, y] = g(y, Pa(y) xor {x}) - g(y, Pa(y))`` over the
RPDAG's parent sets (a column changes only when ``Pa(y)`` does) and, for every
link ``y -- z``, the row ``g(y, {x, z}) - g(y, {z})`` over all ``x`` (these never
change, so they are cached for the whole run). Proposition 6 then reads:

======================  ==========================
operator                score change
======================  ==========================
``A_link(x, y)``        ``T[x, y]``  (``Pa(y)`` is empty)
``A_arc(x, y)``         ``T[x, y]``
``D_arc(x, y)``         ``T[x, y]``
``D_link(x, y)``        ``-T[x, y]`` (``Pa(y)`` is empty)
``A_hh(x, y, z)``       ``g(y, {x, z}) - g(y, {z})``
======================  ==========================

Every iteration computes the cycle tests of all pairs at once with one numba
kernel (:func:`partial_reach`: one graph search from every node and from every
end of every link, O((n + 2 l)(n + e)) for l links and e edges), builds the
masks of applicable operators with O(n^2) numpy work and picks the best. After
a move only the toggle columns of the nodes whose parent set changed are
recomputed (the node receiving or losing the arc, plus the nodes Complete or
Undo touched), and a new link costs one row of 2 (n - 2) look-ups.

The score must be score equivalent (BDeu, BIC, AIC, LL): an RPDAG stands for a
set of equivalent DAGs and is scored as any one of them.

Notes
-----
Readings of the paper that are not literal:

- DC(x -> y <- z) for ``A_hh`` looks for a partially directed path from y to x
  that does not use the link y -- z, since that link becomes z -> y. A path
  through it cannot close a cycle: in x -- a -- y -- t (state C),
  ``A_hh(x, y, a)`` gives the valid RPDAG x -> y <- a, y -> t, x -- a, which a
  test along y -- a -- x would reject. The guard of Table 2 for this test is
  "(c(y) != 0 or n(y) >= 2) and (p(x) != 0 or n(x) != 0)" (the OCR'd table
  reads only "n(y) >= 2"; a child of y can close a cycle too). With these
  readings an operator is applicable exactly when its result is an RPDAG, and
  the neighbours are exactly the RPDAGs of the DAGs one edge away from an
  extension (both checked by brute force in the tests).
- The tabu list (Section 6 only says it "stores forbidden operators") holds
  node pairs: after an edge between x and y is added, deleting it is tabu;
  after it is deleted, adding any edge between x and y is. A pair-level
  inverse is needed because Undo / Complete can change the kind of an edge,
  so the exact inverse operator is not always the same. A tabu operator is
  allowed when it reaches a new best RPDAG (aspiration, Glover 1989): without
  it the tabu list forbade the greedy climb's own later moves (alarm, N =
  5,000: deleting an arc added 40 steps earlier), and TS-RPDAG ended below
  the greedy search from the same start.
- Background knowledge (:class:`bnexplore.knowledge.Knowledge`; the paper
  only says, Section 4, that prior knowledge may give the start): the search
  starts from the RPDAG of the required arcs (added to the start graph) and
  offers an operator only when its result still has an extension that
  honours the knowledge (:func:`honouring_extension`): cheap masks first
  (no forbidden arc added, no link both of whose directions are forbidden,
  no required edge deleted), then, for the operator chosen, the full test
  on the result of its post-processing (Complete may orient a link the wrong
  way); a failing operator is dropped and the next best taken. Edges are
  never deleted when required, so every required arc stays, as an arc or a
  link, and the result is an extension that honours the knowledge.

References
----------
.. [1] S. Acid and L. M. de Campos (2003). Searching for Bayesian network
   structures in the space of restricted acyclic partially directed graphs.
   JAIR 18, 445-490.
"""

from collections import deque

import numpy as np
from numba import njit

from ..control import Control
from ..errors import SearchError
from ..graphs import DAG, PDAG, RPDAG
from ..knowledge import knowledge_params
from ..numerics import tie_tolerance
from ..scores import kernels
from ..scores.registry import equivalent_names
from .dagstate import check_pass_memory
from .run import SearchRun, first_best

OPERATORS = ("A_arc", "A_link", "D_arc", "D_link", "A_hh")
"""Operator names of [1]_, Section 4.3, in the order ties are broken."""

SCORE_EQUIVALENT = equivalent_names()
"""Scores that give equivalent DAGs equal scores, which the RPDAG search needs (from the score registry)."""


# ---------------------------------------------------------------------------
# the cycle tests of Table 2


@njit(cache=True)
def partial_reach(adj, starts, banned):
    """Nodes reachable along partially directed paths, for many start nodes.

    A partially directed path follows arcs forwards and links either way
    ([1]_, Section 4.3: "a path from y to x containing only either links or
    arcs directed away from y"). In an RPDAG such a path from y runs through
    y's link tree, then along arcs only (a node with a parent has no link).

    Parameters
    ----------
    adj : ndarray of bool, shape (n, n)
        ``adj[u, v]`` when u -> v is an arc or u -- v a link.
    starts : ndarray of int64, shape (m,)
    banned : ndarray of int64, shape (m,)
        For start ``starts[i]`` the path may not use the link
        ``starts[i] -- banned[i]``; -1 bans nothing.

    Returns
    -------
    ndarray of bool, shape (m, n)
        ``reach[i, v]`` for ``v != starts[i]``: such a path leads from
        ``starts[i]`` to v. ``reach[i, starts[i]]`` is False.
    """
    n = adj.shape[0]
    offsets = np.zeros(n + 1, np.int64)
    for u in range(n):
        offsets[u + 1] = offsets[u] + np.count_nonzero(adj[u])
    targets = np.empty(offsets[n], np.int64)
    for u in range(n):
        k = offsets[u]
        for v in range(n):
            if adj[u, v]:
                targets[k] = v
                k += 1
    reach = np.zeros((starts.shape[0], n), np.bool_)
    stack = np.empty(n, np.int64)
    for i in range(starts.shape[0]):
        s = starts[i]
        seen = reach[i]
        top = 0
        for k in range(offsets[s], offsets[s + 1]):
            v = targets[k]
            if v != banned[i]:
                seen[v] = True
                stack[top] = v
                top += 1
        while top > 0:
            top -= 1
            u = stack[top]
            for k in range(offsets[u], offsets[u + 1]):
                v = targets[k]
                if v != s and not seen[v]:
                    seen[v] = True
                    stack[top] = v
                    top += 1
    return reach


# ---------------------------------------------------------------------------
# Table 1 / Figure 10


def _state_letter(p_x, p_y, n_x, n_y):
    """Leaf of the decision tree of Figure 10 for parent / neighbour counts."""
    if n_x == 0 and n_y == 0:
        return "A" if p_x == 0 and p_y == 0 else "B"
    if p_x == 0 and p_y == 0:
        if n_x and n_y:
            return "C"
        return "D" if n_x == 0 else "E"
    return "F" if n_x == 0 else "G"


def pair_state(rpdag, x, y):
    """State (A-G) of a non-adjacent pair, by Table 1 and Figure 10 of [1]_.

    With p(v) the number of parents and n(v) the number of neighbours (links)
    of v in the RPDAG (a node with a parent has no neighbour, Definition 1):

    - **A**: no parents and no neighbours at x or y. One neighbour: the link
      x -- y.
    - **B**: no neighbours at x or y, and x or y has a parent. Two: x -> y and
      y -> x (each rejected if it closes a directed cycle).
    - **C**: neither has a parent, both have neighbours. The link x -- y
      (rejected when x and y are joined by a path of links), the patterns
      x -> y <- z for each neighbour z of y and z -> x <- y for each
      neighbour z of x: n(x) + n(y) + 1.
    - **D**: neither has a parent, x has no neighbour, y has some. The link
      x -- y and x -> y <- z for each neighbour z of y: n(y) + 1.
    - **E**: D with x and y swapped: n(x) + 1.
    - **F**: x has a parent (hence no neighbour), y has no parent and has
      neighbours. y -> x, x -> y (then y's links are completed away from y),
      and x -> y <- z for each neighbour z of y: n(y) + 2.
    - **G**: F with x and y swapped: n(x) + 2.

    The counts are the table's; neighbours closing a directed cycle are
    rejected by the search (Table 1, columns "Directed cycles?").

    Parameters
    ----------
    rpdag : RPDAG
    x, y : int or str
        Two distinct non-adjacent nodes. The order matters: (x, y) in state D
        is (y, x) in state E, and F and G likewise.

    Returns
    -------
    str
        One of ``"A"`` ... ``"G"``.
    """
    x, y = rpdag.index(x), rpdag.index(y)
    if x == y or rpdag.adjacent(x, y):
        raise SearchError(f"pair_state needs two distinct non-adjacent nodes; {rpdag.names[x]} and "
                          f"{rpdag.names[y]} are {'the same node' if x == y else 'adjacent'}")
    return _state_letter(len(rpdag.parents(x)), len(rpdag.parents(y)),
                         len(rpdag.neighbours(x)), len(rpdag.neighbours(y)))


# ---------------------------------------------------------------------------
# the operators


class _Moves:
    """Which operators are applicable to one RPDAG (masks over node pairs).

    ``a_arc[x, y]``, ``d_arc[x, y]`` for the arc x -> y; ``a_link[x, y]`` and
    ``d_link[x, y]`` with x < y (each unordered pair once); ``a_hh[i, x]`` for
    ``A_hh(x, y, z)`` with ``(y, z) = hh_pairs[i]``.
    """

    def __init__(self, a_arc, a_link, d_arc, d_link, a_hh, hh_pairs):
        self.masks = {"A_arc": a_arc, "A_link": a_link, "D_arc": d_arc, "D_link": d_link, "A_hh": a_hh}
        self.hh_pairs = hh_pairs

    def nodes(self, op, index):
        """Operator arguments of a cell of ``op``'s mask."""
        if op == "A_hh":
            i, x = index
            y, z = self.hh_pairs[i]
            return int(x), int(y), int(z)
        return int(index[0]), int(index[1])

    def without(self, add, delete):
        """The moves left when the pairs set in ``add`` / ``delete`` (symmetric
        boolean matrices) may not gain / lose an edge (a tabu list)."""
        keep = {"A_arc": ~add, "A_link": ~add, "D_arc": ~delete, "D_link": ~delete,
                "A_hh": ~add[self.hh_pairs[:, 0]]}
        return _Moves(*(self.masks[op] & keep[op] for op in ("A_arc", "A_link", "D_arc", "D_link", "A_hh")),
                      self.hh_pairs)

    def index(self, op, nodes):
        """The cell of ``op``'s mask for the operator on ``nodes`` (inverse of :meth:`nodes`)."""
        if op == "A_hh":
            x, y, z = nodes
            i = int(np.flatnonzero((self.hh_pairs[:, 0] == y) & (self.hh_pairs[:, 1] == z))[0])
            return i, x
        return nodes[0], nodes[1]

    def honouring(self, bound):
        """The moves left when no operator may add a forbidden arc, a link forbidden both
        ways, or delete a required edge (the cheap part of the knowledge test)."""
        allowed, required = bound.allowed, bound.required | bound.required.T
        y, z = self.hh_pairs[:, 0], self.hh_pairs[:, 1]
        keep = {"A_arc": allowed, "A_link": allowed | allowed.T, "D_arc": ~required, "D_link": ~required,
                "A_hh": allowed[:, y].T & allowed[z, y][:, None]}
        return _Moves(*(self.masks[op] & keep[op] for op in ("A_arc", "A_link", "D_arc", "D_link", "A_hh")),
                      self.hh_pairs)

    def is_tabu(self, op, nodes, add, delete):
        """Whether the operator ``op`` on ``nodes`` is removed by :meth:`without`."""
        return bool((add if op.startswith("A_") else delete)[nodes[0], nodes[1]])

    def listed(self):
        """Every applicable operator as ``(op, nodes)``."""
        return [(op, self.nodes(op, index)) for op in OPERATORS for index in np.argwhere(self.masks[op])]


class _Graph:
    """A mutable RPDAG: the five operators, their applicability and post-processing.

    Parameters
    ----------
    adj : array_like of bool, shape (n, n)
        Adjacency of a valid RPDAG (not checked here).
    """

    def __init__(self, adj):
        self.adj = np.array(adj, dtype=np.bool_)
        self.n = self.adj.shape[0]
        self._upper = np.triu(np.ones((self.n, self.n), np.bool_), 1)
        self._distinct = ~np.eye(self.n, dtype=np.bool_)
        self.parents = [set() for _ in range(self.n)]
        for u, v in zip(*np.nonzero(self.adj & ~self.adj.T)):
            self.parents[v].add(int(u))

    def neighbours(self, v):
        """Nodes t with a link v -- t."""
        return np.flatnonzero(self.adj[v] & self.adj[:, v]).tolist()

    def children(self, v):
        """Nodes c with an arc v -> c."""
        return np.flatnonzero(self.adj[v] & ~self.adj[:, v]).tolist()

    def rpdag(self, names):
        """The current graph as an (immutable) :class:`RPDAG`."""
        return RPDAG(self.adj.astype(np.uint8), names)

    def pair_state(self, x, y):
        """:func:`pair_state` of a non-adjacent pair of this graph."""
        return _state_letter(len(self.parents[x]), len(self.parents[y]),
                             len(self.neighbours(x)), len(self.neighbours(y)))

    def _orient(self, u, v):
        """Make u -> v an arc (from nothing or from the link u -- v)."""
        self.adj[u, v], self.adj[v, u] = True, False
        self.parents[v].add(u)

    def _unorient(self, u, v):
        """Turn the arc u -> v into the link u -- v."""
        self.adj[v, u] = True
        self.parents[v].discard(u)

    def complete(self, y):
        """Complete(y) ([1]_, Sections 4.2.1 and 4.3), after y gained a parent.

        Every link y -- t becomes y -> t, and the same is repeated from each
        such t, down y's link tree.

        Returns
        -------
        list of tuple
            The arcs made from links.
        """
        made = []
        queue = [y]
        while queue:
            v = queue.pop()
            for t in self.neighbours(v):
                self._orient(v, t)
                made.append((v, t))
                queue.append(t)
        return made

    def undo(self, y):
        """Undo(y) ([1]_, Section 4.2.2), after an arc into y was deleted.

        When y is left with one parent u and u has no parent, u -> y becomes
        the link u -- y. Then, if y has no parent, every arc y -> c where y is
        c's only parent becomes the link y -- c, repeated from each such c
        (Proposition 2's construction applied locally).

        Returns
        -------
        list of tuple
            The arcs ``(u, v)`` turned into links.
        """
        made = []
        if len(self.parents[y]) == 1:
            (u,) = self.parents[y]
            if not self.parents[u]:
                self._unorient(u, y)
                made.append((u, y))
        queue = [] if self.parents[y] else [y]
        while queue:
            v = queue.pop()
            for c in self.children(v):
                if self.parents[c] == {v}:
                    self._unorient(v, c)
                    made.append((v, c))
                    queue.append(c)
        return made

    def apply(self, op, nodes):
        """Apply an operator (no applicability check) and its post-processing.

        Returns
        -------
        changed : list of int
            Nodes whose parent set changed.
        post : str or None
            ``"Complete"`` or ``"Undo"`` when Table 2 calls for it.
        edges : list of tuple
            Arcs made by Complete, or arcs turned into links by Undo.
        """
        x, y = nodes[:2]
        if op == "A_link":
            self.adj[x, y] = self.adj[y, x] = True
            return [], None, []
        if op == "D_link":
            self.adj[x, y] = self.adj[y, x] = False
            return [], None, []
        if op == "D_arc":
            undo = len(self.parents[y]) <= 2
            self.adj[x, y] = False
            self.parents[y].discard(x)
            edges = self.undo(y) if undo else []
            return [y] + [v for _, v in edges], "Undo" if undo else None, edges
        if op == "A_hh":
            self._orient(nodes[2], y)
        elif op != "A_arc":
            raise SearchError(f"unknown RPDAG operator {op!r}; use one of {', '.join(OPERATORS)}")
        self._orient(x, y)
        edges = self.complete(y)
        return [y] + [v for _, v in edges], "Complete" if edges else None, edges

    def moves(self, max_indegree):
        """Masks of the applicable operators: Table 2 of [1]_ for all pairs at once.

        With R the partially directed reachability (:func:`partial_reach`):

        - ``A_link(x, y)``: x, y not adjacent, ``p(x) = p(y) = 0``, and not
          UC(x -- y). For parentless x and y a partially directed path can
          only be a path of links (an arc leads to a node with a parent, and
          such a node has no link), so UC(x -- y) is ``R[y, x]``.
        - ``A_arc(x, y)``: x, y not adjacent, ``p(x) != 0`` or ``p(y) != 0``,
          and not DC(x -> y) = ``R[y, x]`` (after Complete(y) the links of y's
          tree point away from y, so a cycle through x -> y exists iff such a
          path does).
        - ``A_hh(x, y, z)``: x, y not adjacent, z a neighbour of y, and not
          DC(x -> y <- z): no partially directed path from y to x that avoids
          the link y -- z, which becomes z -> y.
        - ``D_arc``, ``D_link``: any arc, any link.

        Table 2 guards each cycle test with a condition under which no cycle
        is possible (e.g. "if p(x) != 0 and (c(y) != 0 or n(y) != 0)"); the
        masks run the test everywhere, which gives the same answer.

        ``max_indegree`` bounds the parents in every consistent extension
        (Proposition 5: a parentless node of the RPDAG has at most one parent
        in an extension): ``A_link`` needs a bound of at least 1, ``A_arc(x,
        y)`` room for one more parent of y, ``A_hh`` a bound of at least 2.
        Complete gives its nodes one parent; Undo never adds any.
        """
        adj = self.adj
        n = self.n
        arc = adj & ~adj.T
        link = adj & adj.T
        n_parents = arc.sum(axis=0)
        parentless = n_parents == 0
        non_adjacent = ~(adj | adj.T) & self._distinct
        hh_pairs = np.argwhere(link) if max_indegree >= 2 else np.empty((0, 2), np.int64)
        starts = np.concatenate([np.arange(n), hh_pairs[:, 0]]).astype(np.int64)
        banned = np.concatenate([np.full(n, -1), hh_pairs[:, 1]]).astype(np.int64)
        reach = partial_reach(adj, starts, banned)
        no_path_back = non_adjacent & ~reach[:n].T  # [x, y]: no path y ~> x
        both_parentless = np.outer(parentless, parentless)
        a_link = no_path_back & both_parentless & self._upper & (max_indegree >= 1)
        a_arc = no_path_back & ~both_parentless & (n_parents < max_indegree)[None, :]
        a_hh = non_adjacent[hh_pairs[:, 0]] & ~reach[n:]
        d_arc = arc
        d_link = link & self._upper
        return _Moves(a_arc, a_link, d_arc, d_link, a_hh, hh_pairs)


def honouring_extension(adj, bound, require=True):
    """Parent lists of a consistent extension of an RPDAG that honours background knowledge, or None.

    An extension orients every link tree of the RPDAG away from one root
    ([1]_, Propositions 1-5), so it is a choice of root per tree: in-degree at
    most one along the links. The links the knowledge fixes (a required arc,
    or a link with one direction forbidden) are oriented first, every node
    given a parent along a link then sends its other links away (the cascade
    of Complete), and what is left of each tree is oriented away from its
    first node. None when an arc is forbidden, a link is fixed both ways or a
    node would get two parents along links (a new v-structure: another class),
    or, with ``require``, a required arc is missing (neither arc nor link).

    Parameters
    ----------
    adj : array_like of bool, shape (n, n)
        An RPDAG (``adj[u, v]`` for an arc u -> v or a link u -- v).
    bound : BoundKnowledge
    require : bool
        Check that every required arc is there (as an arc or a link).

    Returns
    -------
    list of lists of int, or None
    """
    adj = np.asarray(adj, dtype=np.bool_)
    arc, link = adj & ~adj.T, adj & adj.T
    if (arc & ~bound.allowed).any() or (require and (bound.required & ~adj).any()):
        return None
    fixed = link & (bound.required | ~bound.allowed.T)  # the link u -- v must become u -> v
    if (fixed & fixed.T).any() or (fixed.sum(axis=0) > 1).any():
        return None
    dag = arc | fixed
    open_ = link & ~fixed & ~fixed.T
    has_parent = fixed.any(axis=0)
    queue = np.flatnonzero(has_parent).tolist()
    roots = iter(range(adj.shape[0]))
    while True:
        if not queue:  # the rest of a tree: orient it away from its first node
            root = next((r for r in roots if open_[r].any()), None)
            if root is None:
                break
            queue = [root]
        v = queue.pop()
        for t in np.flatnonzero(open_[v]).tolist():
            if has_parent[t]:
                return None
            dag[v, t] = True
            open_[v, t] = open_[t, v] = False
            has_parent[t] = True
            queue.append(t)
    return [np.flatnonzero(dag[:, v]).tolist() for v in range(adj.shape[0])]


def _knowledge_start(rpdag, bound, scorer, max_indegree):
    """The start RPDAG with the required arcs added (an extension honouring the rest of the knowledge,
    plus the required arcs, made an RPDAG again); SearchError when the start cannot honour it."""
    parents = honouring_extension(rpdag.adj, bound, require=False)
    if parents is None:
        adj = rpdag.adj.astype(np.bool_)
        names = scorer.names
        arcs = np.argwhere(adj & ~adj.T & ~bound.allowed)
        links = np.argwhere(adj & adj.T & ~bound.allowed & ~bound.allowed.T)
        problem = (f"arc {names[arcs[0][0]]} -> {names[arcs[0][1]]} breaks the "
                   f"{bound.forbidden_because(*arcs[0])}" if len(arcs) else
                   f"link {names[links[0][0]]} - {names[links[0][1]]} breaks the "
                   f"{bound.forbidden_because(*links[0])}" if len(links) else
                   "its links cannot be oriented to honour the required and forbidden arcs together")
        raise SearchError(f"the start graph cannot honour the knowledge: {problem}")
    parents = [sorted(set(ps) | set(bound.required_parents(v).tolist())) for v, ps in enumerate(parents)]
    return start_rpdag(scorer, DAG.from_parents(parents, scorer.names), max_indegree)


def _checked_rpdag(rpdag):
    """``rpdag`` itself, once it is known to satisfy Definition 1."""
    if not isinstance(rpdag, RPDAG):
        raise SearchError(f"expected an RPDAG, got {type(rpdag).__name__}; convert a DAG with dag.rpdag()")
    violations = rpdag.violations()
    if violations:
        raise SearchError(f"the graph is not a valid RPDAG: {violations[0]}")
    return rpdag


def _cap(max_indegree, n):
    """The in-degree bound as a number (``n``, no bound, for None)."""
    return n if max_indegree is None else _whole(max_indegree, "max_indegree", n)


def applicable_operators(rpdag, max_indegree=None):
    """Every operator of Table 2 ([1]_) applicable to an RPDAG.

    Parameters
    ----------
    rpdag : RPDAG
    max_indegree : int, optional
        Bound on the parents of every node in every consistent extension.

    Returns
    -------
    list of tuple
        ``(op, nodes)`` with ``nodes`` ints: ``(x, y)``, or ``(x, y, z)`` for
        ``A_hh``; ordered by operator (:data:`OPERATORS`), then by nodes.
    """
    rpdag = _checked_rpdag(rpdag)
    return _Graph(rpdag.adj).moves(_cap(max_indegree, rpdag.n)).listed()


def apply_operator(rpdag, op, *nodes):
    """The neighbouring RPDAG an operator gives, post-processing included.

    Parameters
    ----------
    rpdag : RPDAG
    op : str
        One of :data:`OPERATORS`.
    *nodes : int or str
        ``x, y`` (``x, y, z`` for ``A_hh``).

    Returns
    -------
    RPDAG

    Raises
    ------
    SearchError
        When the operator is unknown or not applicable (the message says
        which condition of Definition 1 its result would break).
    """
    rpdag = _checked_rpdag(rpdag)
    if op not in OPERATORS:
        raise SearchError(f"unknown RPDAG operator {op!r}; use one of {', '.join(OPERATORS)}")
    arity = 3 if op == "A_hh" else 2
    if len(nodes) != arity:
        raise SearchError(f"{op} takes {arity} nodes, got {len(nodes)}")
    nodes = tuple(rpdag.index(v) for v in nodes)
    names = rpdag.names
    call = f"{op}({', '.join(names[v] for v in nodes)})"
    graph = _Graph(rpdag.adj)
    problem = _structural_problem(rpdag, op, nodes)
    listed = (op, tuple(sorted(nodes)) if op == "A_link" else nodes)
    applicable = problem is None and listed in graph.moves(rpdag.n).listed()
    if problem is None:
        graph.apply(op, nodes)
    if applicable:
        return graph.rpdag(names)
    raise SearchError(f"{call} is not applicable: {problem or _broken_condition(graph, names)}")


def _structural_problem(rpdag, op, nodes):
    """Why the nodes cannot take the operator at all, or None."""
    x, y = nodes[:2]
    names = rpdag.names
    if op.startswith("A_") and (x == y or rpdag.adjacent(x, y)):
        return f"{names[x]} and {names[y]} must be distinct and not adjacent"
    if op == "A_hh" and nodes[2] not in rpdag.neighbours(y):
        return f"{names[nodes[2]]} -- {names[y]} is not a link"
    if op == "D_arc" and x not in rpdag.parents(y):
        return f"{names[x]} -> {names[y]} is not an arc"
    if op == "D_link" and x not in rpdag.neighbours(y):
        return f"{names[x]} -- {names[y]} is not a link"
    return None


def _broken_condition(graph, names):
    """The first condition of Definition 1 a graph breaks, as text."""
    found = graph.rpdag(names).violations()
    return f"the result would break {found[0]}" if found else "the result is not an RPDAG"


# ---------------------------------------------------------------------------
# scoring (Proposition 6)


class RpdagState(_Graph):
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
        extension honouring it are offered (see the module docstring).

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
        self.max_indegree = _cap(max_indegree, self.n)
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
        pass over wide data is long: issue 30, item 4), and once it says stop the
        columns not reached stay minus infinity."""
        per_check = kernels.families_per_check(self.scorer.n_rows)
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
        graph = _Graph(self.adj)
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


# ---------------------------------------------------------------------------
# the searches


def _whole(value, name, default):
    """A whole number >= 0 from a parameter (``default`` for None)."""
    if value is None:
        return default
    if (isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
            and np.isfinite(value) and value >= 0 and value == int(value)):
        return int(value)
    raise SearchError(f"{name} must be a whole number >= 0, got {value!r}")


def _aligned(graph, names):
    """The graph with its nodes in the data's order (matched by name)."""
    if list(graph.names) == names:
        return graph
    if sorted(graph.names) != sorted(names):
        extra = sorted(set(graph.names) - set(names))[:5]
        missing = sorted(set(names) - set(graph.names))[:5]
        raise SearchError(f"the start graph's nodes do not match the data's variables (only in the graph: "
                          f"{extra}, only in the data: {missing}); give a graph over the data's columns")
    order = [graph.index(name) for name in names]
    return type(graph)(graph.adj[np.ix_(order, order)], names)


def start_rpdag(scorer, start=None, max_indegree=None):
    """The RPDAG a search starts from.

    Parameters
    ----------
    scorer : Scorer
    start : None, RPDAG, DAG, PDAG or parent lists
        None gives the empty graph; a DAG (or parent lists, as for
        :func:`~bnexplore.search.hillclimb.hill_climb`) is converted with
        :meth:`DAG.rpdag` (Proposition 2); another PDAG (e.g. a CPDAG) through
        its consistent extension. Graph nodes are matched to the data by name.
    max_indegree : int, optional

    Returns
    -------
    RPDAG
    """
    names = scorer.names
    if start is None:
        rpdag = RPDAG(np.zeros((scorer.n_vars, scorer.n_vars), np.uint8), names)
    elif isinstance(start, RPDAG):
        rpdag = _checked_rpdag(_aligned(start, names))
    elif isinstance(start, DAG):
        rpdag = _aligned(start, names).rpdag()
    elif isinstance(start, PDAG):
        rpdag = _aligned(start, names).extension().rpdag()
    else:
        rpdag = DAG.from_parents(scorer.parent_lists(start), names).rpdag()
    if max_indegree is not None:
        adj = rpdag.adj.astype(np.bool_)
        arc, link = adj & ~adj.T, adj & adj.T
        indegree = np.where(arc.any(axis=0), arc.sum(axis=0), link.any(axis=0))
        v = int(np.argmax(indegree))
        if indegree[v] > max_indegree:
            raise SearchError(f"node {names[v]!r} has {indegree[v]} parents in the start graph's extensions, "
                              f"more than max_indegree={max_indegree}")
    return rpdag


def _step(run, state, move, done=None, **extra):
    """Apply a move through the run, recording Table 1's state and the post-processing."""
    op, nodes, delta, evaluated = move
    letter = state.pair_state(*nodes[:2]) if op.startswith("A_") else None
    run.step(state, op, nodes, delta, evaluated, done=done, **extra)
    run.trajectory[-1].update(state=letter, **state.last_post)


def _climb(state, run):
    """Greedy ascent: apply the best operator while it improves the score."""
    tolerance = tie_tolerance(state.score)
    while not run.control.should_stop():
        move = state.best_move()
        if move is None or move[2] <= tolerance:
            if move is not None:
                run.evaluated += move[3]
            return
        _step(run, state, move)


def _tabu(state, run, tabu_length, iterations):
    """TS-RPDAG: the best operator that is not tabu each iteration, a tabu one
    when it reaches a new best (aspiration); never stops while a move reaches
    a new best. Returns the best RPDAG seen and its iteration."""
    names = state.scorer.names
    tolerance = tie_tolerance(state.score)
    best, best_score, best_iteration = state.rpdag(names), state.score, 0
    recent = deque(maxlen=tabu_length)
    it = 0
    while not run.control.should_stop():
        blocked = np.zeros((2, state.n, state.n), np.bool_)
        for kind, x, y in recent:
            blocked[kind, x, y] = blocked[kind, y, x] = True
        aspiration = best_score + tolerance - state.score
        move = state.best_move(tuple(blocked), aspiration)
        if move is None or (it >= iterations and move[2] <= aspiration):
            break
        it += 1
        op, (x, y) = move[0], move[1][:2]
        addition = op.startswith("A_")
        _step(run, state, move, done=min(1.0, it / max(iterations, 1)), tabu=bool(blocked[1 - addition, x, y]))
        recent.append((int(addition), x, y))  # after an addition deleting is tabu (1), after a deletion adding (0)
        if state.score > best_score + tolerance:
            best, best_score, best_iteration = state.rpdag(names), state.score, it
    return best, best_iteration


def rpdag_search(scorer, start=None, max_indegree=None, tabu=False, tabu_length=None, iterations=None,
                 knowledge=None, progress=None, time_limit=None, stop=None, control=None):
    """Greedy or tabu search in the space of RPDAGs (Acid & de Campos 2003).

    Greedy (``tabu=False``, the paper's "RPDAG"): apply the applicable
    operator (Table 2) with the largest score gain until none improves the
    score. Tabu (``tabu=True``, "TS-RPDAG", Section 6): each iteration apply
    the best operator that is not tabu, even when it lowers the score; after
    adding an edge between x and y deleting the edge between them is tabu,
    after deleting it adding any edge between them is, for the next
    ``tabu_length`` iterations. A tabu operator is applied when it reaches
    an RPDAG better than every one seen (aspiration), and the best RPDAG
    seen is returned, so from the same start tabu search makes the greedy
    search's moves up to its local optimum and ends at or above it.

    Each neighbour is scored from at most two local scores (Proposition 6);
    see the module docstring for the per-iteration algorithm.

    Parameters
    ----------
    scorer : Scorer
        Score-equivalent score: bdeu, bic, aic or ll (not k2).
    start : None, RPDAG, DAG, PDAG or parent lists, optional
        Start graph (default empty); see :func:`start_rpdag`.
    max_indegree : int, optional
        Bound on the parents of every node in every DAG of the result's
        extension: a node with parents in the RPDAG has exactly those, a
        parentless node with links has one in all but one of them
        (Proposition 5), so links need a bound of 1, A_hh one of 2.
    tabu : bool
        Tabu search instead of greedy search.
    tabu_length : int, optional
        Tabu list length (default n, as in the paper). Tabu search only.
    iterations : int, optional
        Iterations of tabu search (default n (n - 1), as in the paper); it
        never stops while its move reaches a new best, so it always completes
        the greedy climb (``iterations=0`` is the greedy search).
    knowledge : Knowledge, optional
        Background knowledge (:class:`bnexplore.knowledge.Knowledge`, checked
        first): the search starts from the start graph plus the required
        arcs, offers only operators whose result can still honour it, and
        returns an extension that does (see the module docstring).
    progress, time_limit, stop, control
        See :class:`bnexplore.control.Control`.

    Returns
    -------
    Result
        ``graph``: a consistent extension (DAG) of the learned RPDAG, which is
        in ``extra["rpdag"]`` (under knowledge, an extension honouring it);
        ``extra["start"]``: the start RPDAG unless empty (the trajectory
        starts there); ``score``: the scorer's total of ``graph``.
        ``stats``: seconds, iterations, structures_evaluated (Ind: neighbours
        scored), local_scores_computed (EstEv), local_score_lookups (TEst),
        nvar (NVar), cache_hits, edges, stopped, and for tabu search
        best_iteration (trajectory steps then also have ``tabu``: True for
        a tabu operator let through by aspiration). ``trajectory``: per applied operator ``op``, ``args``
        (x, y, and z for A_hh), ``delta``, ``score``, ``state`` (Table 1 state
        of (x, y) for additions, else None), ``post`` ("Complete", "Undo" or
        None) and ``post_edges`` (arcs made by Complete / turned into links by
        Undo).
    """
    if scorer.score_name not in SCORE_EQUIVALENT:
        raise SearchError(f"the RPDAG search needs a score-equivalent score ({', '.join(SCORE_EQUIVALENT)}); "
                          f"{scorer.score_name} scores equivalent DAGs differently")
    n = scorer.n_vars
    max_indegree = None if max_indegree is None else _whole(max_indegree, "max_indegree", None)
    if not tabu and (tabu_length is not None or iterations is not None):
        raise SearchError("tabu_length and iterations apply to tabu search only; pass tabu=True")
    bound = knowledge.bind(scorer, max_indegree) if knowledge else None
    control = Control.of(control, progress, time_limit, stop)
    if tabu:
        tabu_length = _whole(tabu_length, "tabu_length", n)
        iterations = _whole(iterations, "iterations", n * (n - 1))
        params = {"max_indegree": max_indegree, "tabu_length": tabu_length, "iterations": iterations,
                  **knowledge_params(knowledge)}
        run = SearchRun(scorer, control, "rpdag-tabu", params)
    else:
        run = SearchRun(scorer, control, "rpdag", {"max_indegree": max_indegree, **knowledge_params(knowledge)})
    rpdag = start_rpdag(scorer, start, max_indegree)
    if bound is not None:
        rpdag = _knowledge_start(rpdag, bound, scorer, max_indegree)
    state = RpdagState(scorer, rpdag, max_indegree, bound, control)
    if tabu:
        best, best_iteration = _tabu(state, run, tabu_length, iterations)
        stats = {"best_iteration": best_iteration}
    else:
        _climb(state, run)
        best, stats = state.rpdag(scorer.names), {}
    parents = best.extension().parent_sets() if bound is None else honouring_extension(best.adj, bound)
    extra = {"rpdag": best, **({"start": rpdag} if rpdag.adj.any() else {})}
    return run.result(parents, extra=extra, **stats)


def rpdag_hill_climb(scorer, start=None, max_indegree=None, knowledge=None, progress=None, time_limit=None,
                     stop=None, control=None):
    """Greedy RPDAG search: :func:`rpdag_search` with ``tabu=False`` (``learn(..., algorithm="rpdag")``)."""
    return rpdag_search(scorer, start=start, max_indegree=max_indegree, knowledge=knowledge, progress=progress,
                        time_limit=time_limit, stop=stop, control=control)


def rpdag_tabu_search(scorer, start=None, max_indegree=None, tabu_length=None, iterations=None, knowledge=None,
                      progress=None, time_limit=None, stop=None, control=None):
    """TS-RPDAG: :func:`rpdag_search` with ``tabu=True`` (``learn(..., algorithm="rpdag-tabu")``)."""
    return rpdag_search(scorer, start=start, max_indegree=max_indegree, tabu=True, tabu_length=tabu_length,
                        iterations=iterations, knowledge=knowledge, progress=progress, time_limit=time_limit,
                        stop=stop, control=control)

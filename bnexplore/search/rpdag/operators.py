"""RPDAG operators: the five operators of Acid & de Campos (2003) [1]_, when they apply, what they give.

- the five operators of Section 4.3, ``A_arc``, ``A_link``, ``D_arc``,
  ``D_link`` and ``A_hh``, applicable under the conditions of Table 2
  (including the cycle tests UC and DC, :func:`partial_reach`), followed by
  the post-processing ``Complete(y)`` (Section 4.2.1) or ``Undo(y)``
  (Section 4.2.2): :class:`RpdagGraph`, :func:`applicable_operators`,
  :func:`apply_operator`;
- the states A-G of Table 1 / Figure 10 (:func:`pair_state`), recorded in the
  trajectory so a teacher can show which case a chosen pair was in;
- the consistent extension that honours background knowledge
  (:func:`honouring_extension`).

Every iteration of a search computes the cycle tests of all pairs at once with
one numba kernel (:func:`partial_reach`: one graph search from every node and
from every end of every link, O((n + 2 l)(n + e)) for l links and e edges) and
builds the masks of applicable operators (:class:`Moves`) with O(n^2) numpy
work.

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

References
----------
.. [1] S. Acid and L. M. de Campos (2003). Searching for Bayesian network
   structures in the space of restricted acyclic partially directed graphs.
   JAIR 18, 445-490.
"""

import numpy as np

from ...compiling import njit
from ...errors import SearchError
from ...graphs import RPDAG
from ...options import whole_number

OPERATORS = ("A_arc", "A_link", "D_arc", "D_link", "A_hh")
"""Operator names of [1]_, Section 4.3, in the order ties are broken."""

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


class Moves:
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
        return Moves(*(self.masks[op] & keep[op] for op in ("A_arc", "A_link", "D_arc", "D_link", "A_hh")),
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
        return Moves(*(self.masks[op] & keep[op] for op in ("A_arc", "A_link", "D_arc", "D_link", "A_hh")),
                      self.hh_pairs)

    def is_tabu(self, op, nodes, add, delete):
        """Whether the operator ``op`` on ``nodes`` is removed by :meth:`without`."""
        return bool((add if op.startswith("A_") else delete)[nodes[0], nodes[1]])

    def listed(self):
        """Every applicable operator as ``(op, nodes)``."""
        return [(op, self.nodes(op, index)) for op in OPERATORS for index in np.argwhere(self.masks[op])]


class RpdagGraph:
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
        return Moves(a_arc, a_link, d_arc, d_link, a_hh, hh_pairs)


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


def checked_rpdag(rpdag):
    """``rpdag`` itself, once it is known to satisfy Definition 1 (SearchError naming the first condition
    it breaks, or the type when it is not an RPDAG)."""
    if not isinstance(rpdag, RPDAG):
        raise SearchError(f"expected an RPDAG, got {type(rpdag).__name__}; convert a DAG with dag.rpdag()")
    violations = rpdag.violations()
    if violations:
        raise SearchError(f"the graph is not a valid RPDAG: {violations[0]}")
    return rpdag


def indegree_bound(max_indegree, n):
    """The in-degree bound as a number (``n``, no bound, for None); SearchError unless a whole number >= 0."""
    return n if max_indegree is None else whole_number(max_indegree, "max_indegree", 0, error=SearchError)


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
    rpdag = checked_rpdag(rpdag)
    return RpdagGraph(rpdag.adj).moves(indegree_bound(max_indegree, rpdag.n)).listed()


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
    rpdag = checked_rpdag(rpdag)
    if op not in OPERATORS:
        raise SearchError(f"unknown RPDAG operator {op!r}; use one of {', '.join(OPERATORS)}")
    arity = 3 if op == "A_hh" else 2
    if len(nodes) != arity:
        raise SearchError(f"{op} takes {arity} nodes, got {len(nodes)}")
    nodes = tuple(rpdag.index(v) for v in nodes)
    names = rpdag.names
    call = f"{op}({', '.join(names[v] for v in nodes)})"
    graph = RpdagGraph(rpdag.adj)
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

"""The graph kinds: PDAG and its DAG, CPDAG and RPDAG, immutable, with their conversions.

Every graph is an ``uint8`` n x n adjacency matrix over the nodes ``0..n-1`` plus a
list of node names (used only for JSON, printing and error messages):
``adj[u, v] = 1, adj[v, u] = 0`` is the arc u -> v and ``adj[u, v] = adj[v, u] = 1``
is the link (undirected edge) u -- v.

A graph object is immutable: its ``adj`` is read-only, so it can be hashed and
used as a dictionary key. Build a changed graph from ``graph.adj.copy()``. The
algorithms behind the conversions work on plain matrices
(:mod:`bnexplore.graphs.equivalence`, :mod:`bnexplore.graphs.orientations`).

References
----------
.. [1] S. Acid and L. M. de Campos (2003). Searching for Bayesian network
   structures in the space of restricted acyclic partially directed graphs.
   JAIR 18, 445-490. Section 3 (RPDAGs, Definitions 1-2, Propositions 1-5).
.. [2] D. M. Chickering (1995). A transformational characterization of
   equivalent Bayesian network structures. UAI. Covered arcs (Lemma 1,
   Theorem 2) and Find-Compelled (DAG -> CPDAG).
.. [3] D. Dor and M. Tarsi (1992). A simple algorithm to construct a consistent
   extension of a partially oriented graph. Technical report R-185, UCLA.
.. [4] Y. He, J. Jia and B. Yu (2015). Counting and exploring sizes of Markov
   equivalence classes of directed acyclic graphs. JMLR 16, 2589-2609.
"""

import itertools
import math

import numpy as np

from bnexplore.errors import SearchError
from bnexplore.graphs.adjacency import (components, find_cycle, from_smallest, is_acyclic, row_lists,
                                        topological_order, tree_path)
from bnexplore.graphs.equivalence import consistent_extension, essential_graph, rpdag_of_dag
from bnexplore.graphs.nodes import checked_adjacency, checked_names, names_argument, resolve_node
from bnexplore.graphs.orientations import count_orientations, orientations

_REPR_EDGES = 8
"""How many edges a graph's ``repr`` shows before "...": enough to recognise a small graph."""


class PDAG:
    """A partially directed graph: arcs and links over the nodes ``0..n-1``.

    Parameters
    ----------
    adj : array_like, shape (n, n)
        0/1 adjacency: ``adj[u, v] = 1, adj[v, u] = 0`` is the arc u -> v,
        ``adj[u, v] = adj[v, u] = 1`` the link u -- v. It is copied and stored
        read-only as ``uint8``.
    names : sequence of str, optional
        One unique name per node; default ``X0, X1, ...``.

    Raises
    ------
    SearchError
        When the matrix is not square, holds values other than 0/1, has a self
        loop, or the names do not fit.
    """

    def __init__(self, adj, names=None):
        self.adj, self.names = checked_adjacency(adj, names)
        self._index = {name: i for i, name in enumerate(self.names)}
        a = self.adj.astype(bool)
        self._arc = a & ~a.T
        self._link = a & a.T
        self._hash = None

    # --- basic queries ---------------------------------------------------

    @property
    def n(self):
        """Number of nodes."""
        return self.adj.shape[0]

    @property
    def n_edges(self):
        """Number of adjacent node pairs (arcs plus links)."""
        return int(self._arc.sum() + self._link.sum() // 2)

    def index(self, node):
        """Index of a node given by name or by index."""
        return resolve_node(node, self.names, self._index, "node")

    def arcs(self):
        """Arcs as a sorted list of ``(u, v)`` for u -> v."""
        return [tuple(e) for e in np.argwhere(self._arc).tolist()]

    def links(self):
        """Links as a sorted list of ``(u, v)`` with ``u < v``."""
        return [tuple(e) for e in np.argwhere(np.triu(self._link, 1)).tolist()]

    def edges(self):
        """Every adjacent pair (the skeleton) as a sorted list of ``(u, v)``, ``u < v``."""
        return [tuple(e) for e in np.argwhere(np.triu(self.skeleton(), 1)).tolist()]

    def parents(self, v):
        """Nodes u with an arc u -> v, ascending."""
        return np.flatnonzero(self._arc[:, v]).tolist()

    def children(self, v):
        """Nodes w with an arc v -> w, ascending."""
        return np.flatnonzero(self._arc[v]).tolist()

    def neighbours(self, v):
        """Nodes w with a link v -- w, ascending."""
        return np.flatnonzero(self._link[v]).tolist()

    def adjacent(self, u, v):
        """True when u and v are joined by an arc or a link."""
        return bool(self.adj[u, v] or self.adj[v, u])

    def skeleton(self):
        """Symmetric boolean matrix of adjacency (arcs and links alike)."""
        a = self.adj.astype(bool)
        return a | a.T

    def chain_components(self):
        """Connected components of the links (singletons included).

        Returns
        -------
        list of list of int
            Each component's nodes ascending; components ordered by their
            smallest node.
        """
        neighbours = [set(ne) for ne in row_lists(self._link)]
        return sorted(sorted(c) for c in components(neighbours, range(self.n)))

    def hh_patterns(self):
        """Head-to-head patterns ``a -> v <- b``, shielded or not.

        Returns
        -------
        list of tuple
            Sorted ``(a, v, b)`` with ``a < b``. See [1]_, Section 3.
        """
        out = []
        for v, pa in enumerate(row_lists(self._arc.T)):
            out.extend((a, v, b) for a, b in itertools.combinations(pa, 2))
        return sorted(out)

    def v_structures(self):
        """V-structures: head-to-head patterns ``a -> v <- b`` with a, b not adjacent.

        Returns
        -------
        list of tuple
            Sorted ``(a, v, b)`` with ``a < b``.
        """
        skeleton = self.skeleton()
        return [(a, v, b) for a, v, b in self.hh_patterns() if not skeleton[a, b]]

    # --- conversions -----------------------------------------------------

    def extension(self):
        """A consistent extension (Dor & Tarsi [3]_); see :func:`pdag_extension`."""
        return pdag_extension(self)

    def cpdag(self):
        """The CPDAG of the equivalence class of this graph's consistent extensions.

        Every consistent extension has this graph's skeleton and v-structures,
        so all of them are Markov equivalent and the result does not depend on
        which one is used.
        """
        return self.extension().cpdag()

    def copy(self):
        """An equal graph of the same class."""
        return type(self)(self.adj, self.names)

    # --- JSON ------------------------------------------------------------

    def to_json(self):
        """``{"nodes": names, "arcs": [[u, v], ...], "links": [[u, v], ...]}`` by name."""
        names = self.names
        return {"nodes": list(names),
                "arcs": [[names[u], names[v]] for u, v in self.arcs()],
                "links": [[names[u], names[v]] for u, v in self.links()]}

    @classmethod
    def from_json(cls, d):
        """Build a graph of this class from its JSON form.

        Parameters
        ----------
        d : dict
            ``{"nodes": [...], "arcs": [[u, v], ...], "links": [[u, v], ...]}``;
            the end points are node names or int indices; "arcs" and "links"
            may be left out.

        Raises
        ------
        SearchError
            On a missing "nodes" list, an unknown node, a self loop, or a pair
            of nodes listed twice (twice as an arc, or as an arc and a link).
        """
        if not isinstance(d, dict) or not isinstance(d.get("nodes"), list):
            raise SearchError('graph JSON must be an object with a "nodes" list and '
                              '"arcs" and "links" lists of node pairs')
        names = checked_names(d["nodes"], len(d["nodes"]))
        index = {name: i for i, name in enumerate(names)}
        adj = np.zeros((len(names), len(names)), dtype=np.uint8)
        listed = {}
        for kind in ("arcs", "links"):
            items = d.get(kind, [])
            if not isinstance(items, list):
                raise SearchError(f'graph JSON "{kind}" must be a list of node pairs')
            for item in items:
                where = f"{kind} entry {item!r}"
                if not isinstance(item, (list, tuple)) or len(item) != 2:
                    raise SearchError(f"{where} is not a pair of nodes; write [from, to]")
                u, v = (resolve_node(x, names, index, where) for x in item)
                if u == v:
                    raise SearchError(f"{where} is a self loop on {names[u]}; remove it")
                pair = (min(u, v), max(u, v))
                if pair in listed:
                    raise SearchError(f"the pair {names[u]}, {names[v]} is listed twice "
                                      f"({listed[pair]} and {where}); keep one edge per pair")
                listed[pair] = where
                adj[u, v] = 1
                if kind == "links":
                    adj[v, u] = 1
        return cls(adj, names)

    # --- identity --------------------------------------------------------

    def __eq__(self, other):
        if not isinstance(other, PDAG):
            return NotImplemented
        return self.names == other.names and np.array_equal(self.adj, other.adj)

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((tuple(self.names), self.adj.tobytes()))
        return self._hash

    def __repr__(self):
        names = self.names
        edges = ([f"{names[u]} -> {names[v]}" for u, v in self.arcs()]
                 + [f"{names[u]} -- {names[v]}" for u, v in self.links()])
        shown = ", ".join(edges[:_REPR_EDGES]) + (", ..." if len(edges) > _REPR_EDGES else "")
        return f"{type(self).__name__}({self.n} nodes, {len(edges)} edges: {shown})"


class DAG(PDAG):
    """A directed acyclic graph.

    Parameters
    ----------
    adj : array_like, shape (n, n)
        0/1 adjacency with ``adj[u, v] = 1`` for the arc u -> v.
    names : sequence of str, optional

    Raises
    ------
    SearchError
        When two nodes point at each other or the arcs contain a directed
        cycle (the message names the cycle).
    """

    def __init__(self, adj, names=None):
        super().__init__(adj, names)
        names = self.names
        if self._link.any():
            u, v = self.links()[0]
            raise SearchError(f"{names[u]} and {names[v]} point at each other; "
                              "a DAG needs one direction per edge (use PDAG for links)")
        cycle = find_cycle(self._arc)
        if cycle is not None:
            path = " -> ".join(names[v] for v in cycle + cycle[:1])
            raise SearchError(f"the graph has a directed cycle {path}; "
                              "remove or reverse one of its arcs")

    is_acyclic = staticmethod(is_acyclic)

    @classmethod
    def from_parents(cls, parent_lists, names=None):
        """DAG from one parent list per node (parents as indices or names)."""
        names = checked_names(names, len(parent_lists))
        index = {name: i for i, name in enumerate(names)}
        adj = np.zeros((len(names), len(names)), dtype=np.uint8)
        for v, parents in enumerate(parent_lists):
            for p in parents:
                adj[resolve_node(p, names, index, f"parents of {names[v]}"), v] = 1
        return cls(adj, names)

    @classmethod
    def from_arcs(cls, arcs, names):
        """DAG from ``(u, v)`` pairs (indices or names); ``names`` a list or a node count."""
        names = names_argument(names)
        index = {name: i for i, name in enumerate(names)}
        adj = np.zeros((len(names), len(names)), dtype=np.uint8)
        for arc in arcs:
            where = f"arc {arc!r}"
            if not isinstance(arc, (list, tuple)) or len(arc) != 2:
                raise SearchError(f"{where} is not a pair of nodes; write (from, to)")
            u, v = (resolve_node(x, names, index, where) for x in arc)
            adj[u, v] = 1
        return cls(adj, names)

    @classmethod
    def empty(cls, names):
        """DAG without arcs; ``names`` a list of names or a node count."""
        names = names_argument(names)
        return cls(np.zeros((len(names), len(names)), dtype=np.uint8), names)

    def parent_sets(self):
        """Parent set of every node as a tuple of ascending indices."""
        return [tuple(p) for p in row_lists(self._arc.T)]

    def topological_order(self):
        """Nodes in an order where every arc points forward (smallest index first on ties)."""
        return topological_order(self._arc)

    def _reach(self, v, mat):
        """Nodes reachable from v along the rows of ``mat`` (v excluded), ascending."""
        seen = np.zeros(self.n, dtype=bool)
        queue = [v]
        while queue:
            step = mat[queue].any(axis=0) & ~seen
            seen |= step
            queue = np.flatnonzero(step).tolist()
        seen[v] = False
        return np.flatnonzero(seen).tolist()

    def ancestors(self, v):
        """Nodes with a directed path to v, ascending."""
        return self._reach(v, self._arc.T)

    def descendants(self, v):
        """Nodes with a directed path from v, ascending."""
        return self._reach(v, self._arc)

    def is_covered(self, u, v):
        """True when u -> v is a covered arc: ``Pa(v) = Pa(u) + {u}`` (Chickering [2]_).

        Reversing a covered arc gives a Markov-equivalent DAG, and every
        member of the class is reachable that way ([2]_, Theorem 2).
        """
        if not self._arc[u, v]:
            return False
        expected = self._arc[:, u].copy()
        expected[u] = True
        return bool(np.array_equal(expected, self._arc[:, v]))

    def covered_arcs(self):
        """All covered arcs, sorted."""
        return [(u, v) for u, v in self.arcs() if self.is_covered(u, v)]

    def reverse(self, u, v):
        """A new DAG with the arc u -> v reversed.

        Raises
        ------
        SearchError
            If u -> v is not an arc or the reversal closes a directed cycle.
        """
        if not self._arc[u, v]:
            raise SearchError(f"{self.names[u]} -> {self.names[v]} is not an arc of this DAG")
        adj = self.adj.copy()
        adj[u, v], adj[v, u] = 0, 1
        return DAG(adj, self.names)

    def extension(self):
        """The DAG itself."""
        return self

    def cpdag(self):
        """The completed PDAG (essential graph) of this DAG's equivalence class.

        Compelled arcs stay arcs, reversible ones become links: Chickering's
        [2]_ Find-Compelled labelling
        (:func:`bnexplore.graphs.equivalence.essential_graph`).
        """
        return CPDAG(essential_graph(self._arc), self.names)

    def rpdag(self):
        """The RPDAG whose extension contains this DAG ([1]_, Proposition 2).

        Keeps the skeleton and every head-to-head pattern; an arc x -> y with
        no parent of x and x the only parent of y becomes the link x -- y,
        repeatedly (a cascade down from the parentless nodes).
        """
        return RPDAG(rpdag_of_dag(self._arc), self.names)


class CPDAG(PDAG):
    """A completed PDAG (essential graph): the unique graph of a Markov equivalence class.

    Arcs are the compelled edges (same direction in every member DAG), links
    the reversible ones. Build one with :meth:`DAG.cpdag`; a graph built
    directly from a matrix or JSON is checked by :meth:`is_valid` before
    :meth:`n_dags` and :meth:`dags` use it.
    """

    def __init__(self, adj, names=None):
        super().__init__(adj, names)
        self._valid = None

    def is_compelled(self, u, v):
        """True when u -> v is a compelled arc."""
        return bool(self._arc[u, v])

    def compelled_arcs(self):
        """Compelled arcs (same as :meth:`arcs`)."""
        return self.arcs()

    def reversible_edges(self):
        """Reversible edges (same as :meth:`links`)."""
        return self.links()

    def is_valid(self):
        """True when this is the CPDAG of some DAG: it has a consistent
        extension and equals that extension's CPDAG."""
        if self._valid is None:
            try:
                self._valid = self.extension().cpdag() == self
            except SearchError:
                self._valid = False
        return self._valid

    def _undirected_parts(self):
        """Link neighbour sets and the chain components with more than one node."""
        if not self.is_valid():
            raise SearchError("this graph is not a valid CPDAG (it differs from the CPDAG of its "
                              "own consistent extension); build it with DAG.cpdag()")
        neighbours = [set(ne) for ne in row_lists(self._link)]
        comps = [frozenset(c) for c in self.chain_components() if len(c) > 1]
        return neighbours, comps

    def n_dags(self):
        """Number of DAGs in the equivalence class.

        The product over chain components of the number of acyclic
        orientations without v-structures, counted by the root recursion of
        He, Jia & Yu [4]_ with memoisation over node sets; trees (k nodes, k
        orientations) and cliques (k!) are counted in closed form. Exact (Python
        ints). Limit: the recursion is exponential in the worst case, so dense
        components of a few dozen nodes are slow; trees and cliques of any size
        are counted in closed form.
        """
        neighbours, comps = self._undirected_parts()
        memo = {}
        return math.prod(count_orientations(neighbours, c, memo) for c in comps)

    def dags(self):
        """Iterate over every DAG of the equivalence class, each exactly once.

        Each chain component's orientations are listed by the root recursion
        of [4]_ (so keep components small, as for :meth:`n_dags`), then
        combined with the compelled arcs.
        """
        neighbours, comps = self._undirected_parts()
        per_component = [orientations(neighbours, c) for c in comps]
        base = self._arc.astype(np.uint8)
        for choice in itertools.product(*per_component):
            adj = base.copy()
            for arcs in choice:
                for u, v in arcs:
                    adj[u, v] = 1
            yield DAG(adj, self.names)


class RPDAG(PDAG):
    """A restricted PDAG ([1]_, Definition 1): the search space of the RPDAG search.

    Its extensions ([1]_, Definition 2) are the DAGs with its skeleton, its
    arcs and its head-to-head patterns; they are Markov equivalent, and every
    DAG is in the extension of exactly one RPDAG (Propositions 1-4).
    """

    def _violations(self):
        """``(condition, message)`` for every broken condition of Definition 1."""
        names = self.names
        out = []
        n_parents = self._arc.sum(axis=0)
        for y in np.flatnonzero((n_parents > 0) & self._link.any(axis=1)):
            p, q = self.parents(y)[0], self.neighbours(y)[0]
            out.append((1, f"condition 1: {names[y]} has the parent {names[p]} and the link "
                           f"{names[y]} -- {names[q]}; a node with a parent has no links"))
        cycle = find_cycle(self._arc)
        if cycle is not None:
            path = " -> ".join(names[v] for v in cycle + cycle[:1])
            out.append((2, f"condition 2: directed cycle {path}"))
        cycle = self._link_cycle()
        if cycle is not None:
            path = " -- ".join(names[v] for v in cycle + cycle[:1])
            out.append((3, f"condition 3: cycle of links {path}"))
        for x, y in self.arcs():
            if n_parents[y] < 2 and n_parents[x] == 0:
                out.append((4, f"condition 4: the arc {names[x]} -> {names[y]} is in no "
                               f"head-to-head pattern and {names[x]} has no parent; "
                               "it should be a link"))
        return out

    def _link_cycle(self):
        """Nodes of a cycle made only of links, or None when the links form a forest."""
        forest = [[] for _ in range(self.n)]
        root = list(range(self.n))

        def find(v):
            while root[v] != v:
                root[v] = root[root[v]]
                v = root[v]
            return v

        for u, v in self.links():
            ru, rv = find(u), find(v)
            if ru == rv:
                return from_smallest(tree_path(forest, u, v))
            root[ru] = rv
            forest[u].append(v)
            forest[v].append(u)
        return None

    def violations(self):
        """Readable descriptions of the broken conditions of Definition 1 ([1]_)."""
        return [message for _, message in self._violations()]

    def is_valid(self):
        """True when conditions 1-4 of Definition 1 ([1]_) hold."""
        return not self._violations()

    def _link_trees(self):
        """Chain components with more than one node; raises unless conditions 1-3 hold.

        Conditions 1-3 are what Proposition 1 ([1]_) needs for the extension
        to be well defined; condition 4 only makes the RPDAG maximal.
        """
        for condition, message in self._violations():
            if condition < 4:
                raise SearchError(f"this graph has no RPDAG extension: {message}")
        return [c for c in self.chain_components() if len(c) > 1]

    def n_dags(self):
        """Number of DAGs in the extension: the product of the chain components'
        sizes, one DAG per choice of root in each link tree ([1]_, Section 3.1)."""
        return math.prod(len(c) for c in self._link_trees())

    def dags(self):
        """Iterate over the extension: every choice of one root per link tree,
        each tree oriented away from its root."""
        trees = self._link_trees()
        for roots in itertools.product(*trees):
            yield self._oriented(roots)

    def extension(self):
        """The extension with each link tree oriented away from its smallest node."""
        return self._oriented([c[0] for c in self._link_trees()])

    def _oriented(self, roots):
        """DAG with the link tree of each root oriented away from it."""
        neighbours = row_lists(self._link)
        adj = self._arc.astype(np.uint8)
        for root in roots:
            queue = [root]
            seen = {root}
            while queue:
                u = queue.pop()
                for w in neighbours[u]:
                    if w not in seen:
                        seen.add(w)
                        adj[u, w] = 1
                        queue.append(w)
        return DAG(adj, self.names)


def pdag_extension(pdag):
    """A consistent extension of a PDAG (Dor & Tarsi [3]_).

    A DAG with the PDAG's skeleton, its arcs, and no v-structure the PDAG does
    not have; see :func:`bnexplore.graphs.equivalence.consistent_extension`.

    Parameters
    ----------
    pdag : PDAG

    Returns
    -------
    DAG

    Raises
    ------
    SearchError
        When the PDAG admits no consistent extension.

    Examples
    --------
    >>> pdag_extension(PDAG([[0, 1, 0], [1, 0, 1], [0, 1, 0]], ["a", "b", "c"]))
    DAG(3 nodes, 2 edges: b -> a, c -> b)
    """
    a = pdag.adj.astype(bool)
    return DAG(consistent_extension(a & ~a.T, a & a.T, pdag.names), pdag.names)

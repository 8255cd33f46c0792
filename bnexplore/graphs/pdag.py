"""The graph kinds: PDAG and its DAG, CPDAG and RPDAG, immutable, with their conversions.

Every graph is an ``uint8`` n x n adjacency matrix over the nodes ``0..n-1`` plus a
list of node names (used only for JSON, printing and error messages):
``adj[u, v] = 1, adj[v, u] = 0`` is the arc u -> v and ``adj[u, v] = adj[v, u] = 1``
is the link (undirected edge) u -- v.

A graph object is immutable: its ``adj`` is read-only, so it can be hashed and
used as a dictionary key. Build a changed graph from ``graph.adj.copy()``. The
algorithms behind the conversions work on plain matrices
(:mod:`bnexplore.graphs.equivalence`, :mod:`bnexplore.graphs.orientations`).

Beside its matrix a graph keeps its entries as lists (arcs, links, each node's
parents), read from the matrix once or, when built from parent or arc lists,
never read: queries, the acyclicity check and the topological order cost what
the arcs cost, not n x n, and a graph holds one n x n matrix (10,000 nodes: one
``uint8`` matrix of 100 MB, no boolean copies of it).

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

import functools
import itertools
import math

import numpy as np

from bnexplore.errors import SearchError
from bnexplore.graphs.adjacency import (components, cycle_of_arcs, entries, from_smallest, grouped, is_acyclic,
                                        matrix_of, order_of_arcs, tree_path)
from bnexplore.graphs.equivalence import consistent_extension, essential_graph, rpdag_of_dag
from bnexplore.graphs.nodes import checked_adjacency, checked_names, names_argument, refuse_self_loops, resolve_node
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
        adj, names = checked_adjacency(adj, names)
        rows, cols = entries(adj)
        self._setup(adj, names, rows * len(names) + cols)

    @classmethod
    def _built(cls, rows, cols, names):
        """A graph of this class with ``adj[rows[i], cols[i]] = 1``: one scatter into zeros, no n x n pass.

        ``rows`` and ``cols`` are valid node indices (a pair may repeat), ``names``
        checked names; a self loop is refused as :func:`checked_adjacency` refuses it.
        The conversions pass the entries of the 0/1 matrix they built, which is
        read once and not copied.
        """
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        refuse_self_loops(rows[rows == cols], names)
        graph = cls.__new__(cls)
        graph._setup(None, names, np.unique(rows * len(names) + cols))
        return graph

    def _setup(self, adj, names, keys):
        """Keep the names, the entries ``u * n + v`` (ascending) and the checked read-only matrix (None: built
        from the entries when first read, :attr:`adj`).

        The entries split into arcs and links (both directions), each in row-major
        order; the subclasses check and add what their kind needs.
        """
        if adj is not None:
            self.adj = adj
        self.names = names
        self._index = {name: i for i, name in enumerate(names)}
        self._keys = keys
        rows, cols = np.divmod(keys, max(len(names), 1))
        reverse = cols * len(names) + rows
        at = np.minimum(np.searchsorted(keys, reverse), max(len(keys) - 1, 0))
        mutual = keys[at] == reverse if len(keys) else np.zeros(0, bool)
        self._arc_ends = rows[~mutual], cols[~mutual]
        self._link_ends = rows[mutual], cols[mutual]
        self._hash = None

    @functools.cached_property
    def adj(self):
        """The read-only n x n ``uint8`` adjacency matrix (see the class).

        A graph built from parents, arcs or another graph makes it on first use: on 10,000 nodes its
        100 MB take a third of a second to fill, which a learner returning a graph need not pay."""
        adj = matrix_of(self.n, *np.divmod(self._keys, max(self.n, 1)))
        adj.flags.writeable = False
        return adj

    @functools.cached_property
    def _parent_lists(self):
        """Each node's parents (tails of its arcs), ascending."""
        tails, heads = self._arc_ends
        return grouped(heads, tails, self.n)

    @functools.cached_property
    def _child_lists(self):
        """Each node's children, ascending."""
        return grouped(*self._arc_ends, self.n)

    @functools.cached_property
    def _neighbour_lists(self):
        """Each node's neighbours along links, ascending."""
        return grouped(*self._link_ends, self.n)

    # --- basic queries ---------------------------------------------------

    @property
    def n(self):
        """Number of nodes."""
        return len(self.names)

    @property
    def n_edges(self):
        """Number of adjacent node pairs (arcs plus links)."""
        return len(self._arc_ends[0]) + len(self._link_ends[0]) // 2

    def index(self, node):
        """Index of a node given by name or by index."""
        return resolve_node(node, self.names, self._index, "node")

    def arcs(self):
        """Arcs as a sorted list of ``(u, v)`` for u -> v."""
        return list(zip(*(ends.tolist() for ends in self._arc_ends)))

    def links(self):
        """Links as a sorted list of ``(u, v)`` with ``u < v``."""
        u, v = self._link_ends
        return list(zip(u[u < v].tolist(), v[u < v].tolist()))

    def edges(self):
        """Every adjacent pair (the skeleton) as a sorted list of ``(u, v)``, ``u < v``."""
        n = max(self.n, 1)
        rows, cols = np.divmod(self._keys, n)
        u, v = np.divmod(np.unique(np.minimum(rows, cols) * n + np.maximum(rows, cols)), n)
        return list(zip(u.tolist(), v.tolist()))

    def parents(self, v):
        """Nodes u with an arc u -> v, ascending."""
        return list(self._parent_lists[v])

    def children(self, v):
        """Nodes w with an arc v -> w, ascending."""
        return list(self._child_lists[v])

    def neighbours(self, v):
        """Nodes w with a link v -- w, ascending."""
        return list(self._neighbour_lists[v])

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
        neighbours = [set(ne) for ne in self._neighbour_lists]
        return sorted(sorted(c) for c in components(neighbours, range(self.n)))

    def hh_patterns(self):
        """Head-to-head patterns ``a -> v <- b``, shielded or not.

        Returns
        -------
        list of tuple
            Sorted ``(a, v, b)`` with ``a < b``. See [1]_, Section 3.
        """
        out = []
        for v, pa in enumerate(self._parent_lists):
            out.extend((a, v, b) for a, b in itertools.combinations(pa, 2))
        return sorted(out)

    def v_structures(self):
        """V-structures: head-to-head patterns ``a -> v <- b`` with a, b not adjacent.

        Returns
        -------
        list of tuple
            Sorted ``(a, v, b)`` with ``a < b``.
        """
        return [(a, v, b) for a, v, b in self.hh_patterns() if not self.adjacent(a, b)]

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
        return type(self)._built(*np.divmod(self._keys, max(self.n, 1)), self.names)

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
        rows, cols = [], []
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
                rows.append(u)
                cols.append(v)
                if kind == "links":
                    rows.append(v)
                    cols.append(u)
        return cls._built(rows, cols, names)

    # --- identity --------------------------------------------------------

    def __eq__(self, other):
        if not isinstance(other, PDAG):
            return NotImplemented
        return self.names == other.names and np.array_equal(self._keys, other._keys)

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((tuple(self.names), self._keys.tobytes()))
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

    def _setup(self, adj, names, keys):
        """Refuse links and directed cycles; keep the topological order the check finds."""
        super()._setup(adj, names, keys)
        if len(self._link_ends[0]):
            u, v = self.links()[0]
            raise SearchError(f"{names[u]} and {names[v]} point at each other; "
                              "a DAG needs one direction per edge (use PDAG for links)")
        self._order = order_of_arcs(self.n, *self._arc_ends)
        if len(self._order) < self.n:
            cycle = cycle_of_arcs(self.n, *self._arc_ends)
            path = " -> ".join(names[v] for v in cycle + cycle[:1])
            raise SearchError(f"the graph has a directed cycle {path}; "
                              "remove or reverse one of its arcs")

    @property
    def _arc(self):
        """Boolean matrix of the arcs: a view of ``adj`` (a DAG has no links)."""
        return self.adj.view(bool)

    is_acyclic = staticmethod(is_acyclic)

    @classmethod
    def from_parents(cls, parent_lists, names=None):
        """DAG from one parent list per node (parents as indices or names)."""
        names = checked_names(names, len(parent_lists))
        index = {name: i for i, name in enumerate(names)}
        tails, heads = [], []
        for v, parents in enumerate(parent_lists):
            for p in parents:
                tails.append(resolve_node(p, names, index, f"parents of {names[v]}"))
                heads.append(v)
        return cls._built(tails, heads, names)

    @classmethod
    def from_arcs(cls, arcs, names):
        """DAG from ``(u, v)`` pairs (indices or names); ``names`` a list or a node count."""
        names = names_argument(names)
        index = {name: i for i, name in enumerate(names)}
        tails, heads = [], []
        for arc in arcs:
            where = f"arc {arc!r}"
            if not isinstance(arc, (list, tuple)) or len(arc) != 2:
                raise SearchError(f"{where} is not a pair of nodes; write (from, to)")
            u, v = (resolve_node(x, names, index, where) for x in arc)
            tails.append(u)
            heads.append(v)
        return cls._built(tails, heads, names)

    @classmethod
    def empty(cls, names):
        """DAG without arcs; ``names`` a list of names or a node count."""
        return cls._built([], [], names_argument(names))

    def parent_sets(self):
        """Parent set of every node as a tuple of ascending indices."""
        return [tuple(p) for p in self._parent_lists]

    def topological_order(self):
        """Nodes in an order where every arc points forward (smallest index first on ties)."""
        return list(self._order)

    @staticmethod
    def _reach(v, lists):
        """Nodes reachable from v along ``lists`` (v excluded), ascending."""
        seen = {v}
        queue = [v]
        while queue:
            for w in lists[queue.pop()]:
                if w not in seen:
                    seen.add(w)
                    queue.append(w)
        seen.discard(v)
        return sorted(seen)

    def ancestors(self, v):
        """Nodes with a directed path to v, ascending."""
        return self._reach(v, self._parent_lists)

    def descendants(self, v):
        """Nodes with a directed path from v, ascending."""
        return self._reach(v, self._child_lists)

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
        tails, heads = self._arc_ends
        kept = (tails != u) | (heads != v)
        return DAG._built(np.append(tails[kept], v), np.append(heads[kept], u), self.names)

    def extension(self):
        """The DAG itself."""
        return self

    def cpdag(self):
        """The completed PDAG (essential graph) of this DAG's equivalence class.

        Compelled arcs stay arcs, reversible ones become links: Chickering's
        [2]_ Find-Compelled labelling
        (:func:`bnexplore.graphs.equivalence.essential_graph`).
        """
        return CPDAG._built(*entries(essential_graph(self._arc)), self.names)

    def rpdag(self):
        """The RPDAG whose extension contains this DAG ([1]_, Proposition 2).

        Keeps the skeleton and every head-to-head pattern; an arc x -> y with
        no parent of x and x the only parent of y becomes the link x -- y,
        repeatedly (a cascade down from the parentless nodes).
        """
        return RPDAG._built(*entries(rpdag_of_dag(self._arc)), self.names)


class CPDAG(PDAG):
    """A completed PDAG (essential graph): the unique graph of a Markov equivalence class.

    Arcs are the compelled edges (same direction in every member DAG), links
    the reversible ones. Build one with :meth:`DAG.cpdag`; a graph built
    directly from a matrix or JSON is checked by :meth:`is_valid` before
    :meth:`n_dags` and :meth:`dags` use it.
    """

    def _setup(self, adj, names, keys):
        """A CPDAG built from a matrix or JSON is checked when first asked (:meth:`is_valid`)."""
        super()._setup(adj, names, keys)
        self._valid = None

    def is_compelled(self, u, v):
        """True when u -> v is a compelled arc."""
        return bool(self.adj[u, v] and not self.adj[v, u])

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
        neighbours = [set(ne) for ne in self._neighbour_lists]
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
        base = matrix_of(self.n, *self._arc_ends)
        for choice in itertools.product(*per_component):
            adj = base.copy()
            for arcs in choice:
                for u, v in arcs:
                    adj[u, v] = 1
            yield DAG._built(*entries(adj), self.names)


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
        n_parents = np.bincount(self._arc_ends[1], minlength=self.n)
        has_link = np.bincount(self._link_ends[0], minlength=self.n) > 0
        for y in np.flatnonzero((n_parents > 0) & has_link):
            p, q = self.parents(y)[0], self.neighbours(y)[0]
            out.append((1, f"condition 1: {names[y]} has the parent {names[p]} and the link "
                           f"{names[y]} -- {names[q]}; a node with a parent has no links"))
        cycle = cycle_of_arcs(self.n, *self._arc_ends)
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
        neighbours = self._neighbour_lists
        adj = matrix_of(self.n, *self._arc_ends)
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
        return DAG._built(*entries(adj), self.names)


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
    arc, link = (matrix_of(pdag.n, *ends).view(bool) for ends in (pdag._arc_ends, pdag._link_ends))
    return DAG._built(*entries(consistent_extension(arc, link, pdag.names)), pdag.names)

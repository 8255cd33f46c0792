"""Graphs: DAG, PDAG, CPDAG and RPDAG, their conversions, extensions, keys and distances.

Every graph is an ``uint8`` n x n adjacency matrix over the nodes ``0..n-1`` plus a
list of node names (used only for JSON, printing and error messages):
``adj[u, v] = 1, adj[v, u] = 0`` is the arc u -> v and ``adj[u, v] = adj[v, u] = 1``
is the link (undirected edge) u -- v.

A graph object is immutable: its ``adj`` is read-only, so it can be hashed and
used as a dictionary key. Build a changed graph from ``graph.adj.copy()``.

References
----------
.. [1] S. Acid and L. M. de Campos (2003). Searching for Bayesian network
   structures in the space of restricted acyclic partially directed graphs.
   JAIR 18, 445-490. Section 3 (RPDAGs, Definitions 1-2, Propositions 1-5) and
   Section 6 (the structural errors A, D, I and H).
.. [2] D. M. Chickering (1995). A transformational characterization of
   equivalent Bayesian network structures. UAI. The procedures Order-Edges and
   Find-Compelled (DAG -> CPDAG) and covered arcs (Lemma 1, Theorem 2).
.. [3] D. Dor and M. Tarsi (1992). A simple algorithm to construct a consistent
   extension of a partially oriented graph. Technical report R-185, UCLA.
.. [4] C. Meek (1995). Causal inference and causal explanation with background
   knowledge. UAI. Orientation rule R1.
.. [5] Y. He, J. Jia and B. Yu (2015). Counting and exploring sizes of Markov
   equivalence classes of directed acyclic graphs. JMLR 16, 2589-2609.
   Section 3: every acyclic orientation without v-structures of a connected
   chordal graph has exactly one root, and the orientations with root v are
   the extensions of the v-rooted essential graph.
.. [6] I. Tsamardinos, L. E. Brown and C. F. Aliferis (2006). The max-min
   hill-climbing Bayesian network structure learning algorithm. Machine
   Learning 65, 31-78. The structural Hamming distance (SHD).
"""

import heapq
import itertools
import math
from collections import deque

import numpy as np
from scipy.sparse.csgraph import connected_components

from bnexplore.errors import SearchError

_REPR_EDGES = 8


# ---------------------------------------------------------------------------
# small helpers on plain matrices


def _row_lists(mat):
    """Column indices of the nonzero entries of each row.

    Parameters
    ----------
    mat : ndarray, shape (n, n)

    Returns
    -------
    list of list of int
        ``out[i]`` lists the ``j`` with ``mat[i, j] != 0``, ascending.
    """
    out = [[] for _ in range(mat.shape[0])]
    rows, cols = np.nonzero(mat)
    for i, j in zip(rows.tolist(), cols.tolist()):
        out[i].append(j)
    return out


def _arc_matrix(adj):
    """Boolean matrix of the arcs (not the links) of an adjacency matrix."""
    a = np.asarray(adj).astype(bool)
    return a & ~a.T


def _kahn_order(arc):
    """Topological order of the arcs, smallest index first among free nodes.

    Returns a shorter list than ``n`` when the arcs contain a directed cycle.
    """
    n = arc.shape[0]
    children = _row_lists(arc)
    indegree = arc.sum(axis=0).tolist()
    free = [v for v in range(n) if indegree[v] == 0]
    heapq.heapify(free)
    order = []
    while free:
        v = heapq.heappop(free)
        order.append(v)
        for c in children[v]:
            indegree[c] -= 1
            if indegree[c] == 0:
                heapq.heappush(free, c)
    return order


def find_cycle(adj):
    """A directed cycle made of the arcs of an adjacency matrix, or None.

    Parameters
    ----------
    adj : array_like, shape (n, n)
        0/1 adjacency in the bnexplore convention. Links (symmetric pairs)
        are ignored: only arcs can form a directed cycle.

    Returns
    -------
    list of int or None
        The nodes ``[v0, v1, ..., vk]`` of a cycle ``v0 -> v1 -> ... -> vk -> v0``,
        starting at its smallest node, or None when the arcs are acyclic.
    """
    arc = _arc_matrix(adj)
    order = _kahn_order(arc)
    if len(order) == arc.shape[0]:
        return None
    # Every node Kahn could not remove has a parent that was not removed either:
    # walk up such parents until a node repeats.
    left = np.ones(arc.shape[0], dtype=bool)
    left[order] = False
    v = int(np.flatnonzero(left)[0])
    seen = {}
    path = []
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = int(np.flatnonzero(arc[:, v] & left)[0])
    return _from_smallest(path[seen[v]:][::-1])


def _from_smallest(cycle):
    """The same cycle, rotated to start at its smallest node."""
    first = cycle.index(min(cycle))
    return cycle[first:] + cycle[:first]


def is_acyclic(adj):
    """True when the arcs of ``adj`` (links ignored) contain no directed cycle."""
    return find_cycle(adj) is None


def _checked_names(names, n):
    """Default names ``X0..X{n-1}``, or the given names as unique strings."""
    if names is None:
        return [f"X{i}" for i in range(n)]
    names = [str(name) for name in names]
    if len(names) != n:
        raise SearchError(f"got {len(names)} node names for {n} nodes; give one name per node")
    seen = set()
    for name in names:
        if name in seen:
            raise SearchError(f"node name {name!r} appears twice; node names must be unique")
        seen.add(name)
    return names


def _names_argument(names):
    """Names from ``names`` given as a node count or as a list of names."""
    if isinstance(names, (int, np.integer)) and not isinstance(names, bool):
        return _checked_names(None, int(names))
    return _checked_names(names, len(names))


def _checked_adjacency(adj, names):
    """Validated read-only uint8 copy of an adjacency matrix."""
    try:
        a = np.array(adj)
    except ValueError:
        raise SearchError("an adjacency matrix must be square (n x n) "
                          "with rows of equal length") from None
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise SearchError(f"an adjacency matrix must be square (n x n), got shape {a.shape}")
    names = _checked_names(names, a.shape[0])
    if a.dtype.kind not in "biuf":
        raise SearchError(f"adjacency entries must be 0 or 1, got values of type {a.dtype}")
    bad = np.argwhere((a != 0) & (a != 1))
    if len(bad):
        i, j = bad[0]
        raise SearchError(f"adjacency entries must be 0 or 1; found {a[i, j].item()!r} "
                          f"at row {i}, column {j} ({names[i]}, {names[j]})")
    a = a.astype(np.uint8)
    loops = np.flatnonzero(np.diagonal(a))
    if len(loops):
        raise SearchError(f"node {names[loops[0]]} has a self loop; "
                          "a node cannot be its own parent")
    a.flags.writeable = False
    return a, names


def _resolve(node, names, index, where):
    """Node index of ``node`` given as an int index or as a name."""
    if isinstance(node, (int, np.integer)) and not isinstance(node, bool):
        if 0 <= node < len(names):
            return int(node)
        raise SearchError(f"{where}: node index {node} is out of range 0..{len(names) - 1}")
    if isinstance(node, str) and node in index:
        return index[node]
    raise SearchError(f"{where}: unknown node {node!r}; use one of the graph's node names "
                      f"or an index 0..{len(names) - 1}")


def _components(neighbours, nodes):
    """Connected components (frozensets) of an undirected graph given as neighbour sets."""
    todo = set(nodes)
    out = []
    while todo:
        start = todo.pop()
        comp = {start}
        queue = [start]
        while queue:
            u = queue.pop()
            for w in neighbours[u]:
                if w in todo:
                    todo.discard(w)
                    comp.add(w)
                    queue.append(w)
        out.append(frozenset(comp))
    return out


# ---------------------------------------------------------------------------
# graph classes


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
        self.adj, self.names = _checked_adjacency(adj, names)
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
        return _resolve(node, self.names, self._index, "node")

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
        n_comp, label = connected_components(self._link, directed=False)
        comps = [[] for _ in range(n_comp)]
        for v, c in enumerate(label):
            comps[c].append(v)
        return sorted(comps)

    def hh_patterns(self):
        """Head-to-head patterns ``a -> v <- b``, shielded or not.

        Returns
        -------
        list of tuple
            Sorted ``(a, v, b)`` with ``a < b``. See [1]_, Section 3.
        """
        out = []
        for v, pa in enumerate(_row_lists(self._arc.T)):
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
        names = _checked_names(d["nodes"], len(d["nodes"]))
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
                u, v = (_resolve(x, names, index, where) for x in item)
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
        names = _checked_names(names, len(parent_lists))
        index = {name: i for i, name in enumerate(names)}
        adj = np.zeros((len(names), len(names)), dtype=np.uint8)
        for v, parents in enumerate(parent_lists):
            for p in parents:
                adj[_resolve(p, names, index, f"parents of {names[v]}"), v] = 1
        return cls(adj, names)

    @classmethod
    def from_arcs(cls, arcs, names):
        """DAG from ``(u, v)`` pairs (indices or names); ``names`` a list or a node count."""
        names = _names_argument(names)
        index = {name: i for i, name in enumerate(names)}
        adj = np.zeros((len(names), len(names)), dtype=np.uint8)
        for arc in arcs:
            where = f"arc {arc!r}"
            if not isinstance(arc, (list, tuple)) or len(arc) != 2:
                raise SearchError(f"{where} is not a pair of nodes; write (from, to)")
            u, v = (_resolve(x, names, index, where) for x in arc)
            adj[u, v] = 1
        return cls(adj, names)

    @classmethod
    def empty(cls, names):
        """DAG without arcs; ``names`` a list of names or a node count."""
        names = _names_argument(names)
        return cls(np.zeros((len(names), len(names)), dtype=np.uint8), names)

    def parent_sets(self):
        """Parent set of every node as a tuple of ascending indices."""
        return [tuple(p) for p in _row_lists(self._arc.T)]

    def topological_order(self):
        """Nodes in an order where every arc points forward (smallest index first on ties)."""
        return _kahn_order(self._arc)

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

        Compelled arcs stay arcs, reversible ones become links. Chickering's
        [2]_ Find-Compelled labelling: edges are taken in Order-Edges order
        (children in topological order, for each child its parents from the
        last in topological order), so every edge into ``x`` is labelled
        before the edges out of ``x``. For child ``y`` with last parent ``x``:
        if a compelled ``w -> x`` has ``w`` not a parent of ``y``, every arc
        into ``y`` is compelled; otherwise each such ``w -> y`` is compelled,
        and the remaining arcs into ``y`` are compelled when ``y`` has a
        parent not adjacent to ``x`` (a v-structure), reversible when not.
        """
        order = self.topological_order()
        position = [0] * self.n
        for i, v in enumerate(order):
            position[v] = i
        parents = _row_lists(self._arc.T)
        parent_sets = [set(pa) for pa in parents]
        compelled = [set() for _ in range(self.n)]  # compelled[y]: parents p with p -> y compelled
        for y in order:
            pa = parents[y]
            if not pa:
                continue
            x = max(pa, key=position.__getitem__)
            if not compelled[x] <= parent_sets[y]:
                compelled[y] = parent_sets[y]
            elif any(z != x and z not in parent_sets[x] for z in pa):
                compelled[y] = parent_sets[y]
            else:
                compelled[y] = set(compelled[x])
        adj = self._arc.astype(np.uint8)
        for y, pa in enumerate(parents):
            for p in pa:
                if p not in compelled[y]:
                    adj[y, p] = 1
        return CPDAG(adj, self.names)

    def rpdag(self):
        """The RPDAG whose extension contains this DAG ([1]_, Proposition 2).

        Keeps the skeleton and every head-to-head pattern; an arc x -> y with
        no parent of x and x the only parent of y becomes the link x -- y,
        repeatedly (a cascade down from the parentless nodes).
        """
        parents = _row_lists(self._arc.T)
        children = _row_lists(self._arc)
        adj = self._arc.astype(np.uint8)
        queue = deque(v for v in range(self.n) if len(parents[v]) == 0)
        while queue:
            x = queue.popleft()
            for y in children[x]:
                if len(parents[y]) == 1:
                    adj[y, x] = 1
                    queue.append(y)
        return RPDAG(adj, self.names)


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
        neighbours = [set(ne) for ne in _row_lists(self._link)]
        comps = [frozenset(c) for c in self.chain_components() if len(c) > 1]
        return neighbours, comps

    def n_dags(self):
        """Number of DAGs in the equivalence class.

        The product over chain components of the number of acyclic
        orientations without v-structures, counted by the root recursion of
        He, Jia & Yu [5]_ with memoisation over node sets; trees (k nodes, k
        orientations) and cliques (k!) are counted in closed form. Exact (Python
        ints). Limit: the recursion is exponential in the worst case. Measured
        on random chordal components: up to 15 nodes well under a second
        whatever the density; 20-25 nodes from 0.1 s (sparse) to a few seconds
        (dense); dense components of 25-30 nodes can take minutes. Trees and
        cliques of any size are instant.
        """
        neighbours, comps = self._undirected_parts()
        memo = {}
        return math.prod(_count_orientations(neighbours, c, memo) for c in comps)

    def dags(self):
        """Iterate over every DAG of the equivalence class, each exactly once.

        Each chain component's orientations are listed by the root recursion
        of [5]_ (so keep components small, as for :meth:`n_dags`), then
        combined with the compelled arcs.
        """
        neighbours, comps = self._undirected_parts()
        per_component = [_orientations(neighbours, c) for c in comps]
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
                return _from_smallest(_tree_path(forest, u, v))
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
        neighbours = _row_lists(self._link)
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


def _tree_path(forest, u, v):
    """Path from u to v in a forest given as adjacency lists (u, v connected)."""
    previous = {u: None}
    queue = deque([u])
    while v not in previous:
        a = queue.popleft()
        for b in forest[a]:
            if b not in previous:
                previous[b] = a
                queue.append(b)
    path = [v]
    while path[-1] != u:
        path.append(previous[path[-1]])
    return path[::-1]


# ---------------------------------------------------------------------------
# orientations of the chain components of a CPDAG


def _rooted(neighbours, nodes, root):
    """Orient a connected chordal component with ``root`` as its source.

    Orients every link at ``root`` away from it, then applies Meek's [4]_
    rule R1 (a -> b -- c with a, c not adjacent gives b -> c) until nothing
    changes. For a rooted connected chordal graph R1 alone yields the
    root-rooted essential graph ([5]_, Section 3); the tests check the counts
    against brute force and against an independent inclusion-exclusion count.

    Returns
    -------
    arcs : list of tuple
        Arcs oriented inside the component.
    components : list of frozenset
        Components of the links left, with more than one node.
    """
    und = {u: neighbours[u] & nodes for u in nodes}
    arcs = []
    queue = []

    def orient(a, b):
        und[a].discard(b)
        und[b].discard(a)
        arcs.append((a, b))
        queue.append((a, b))

    for u in list(und[root]):
        orient(root, u)
    while queue:
        a, b = queue.pop()
        for c in list(und[b]):
            if c not in neighbours[a]:
                orient(b, c)
    return arcs, [c for c in _components(und, nodes) if len(c) > 1]


def _count_orientations(neighbours, nodes, memo):
    """Acyclic orientations without v-structures of a connected chordal component.

    Sum over the possible roots ([5]_: each orientation has exactly one) of
    the product of the counts of the rooted graph's chain components.
    """
    k = len(nodes)
    n_links = sum(len(neighbours[u] & nodes) for u in nodes) // 2
    if n_links == k - 1:
        return k
    if n_links == k * (k - 1) // 2:
        return math.factorial(k)
    if nodes not in memo:
        memo[nodes] = sum(
            math.prod(_count_orientations(neighbours, c, memo)
                      for c in _rooted(neighbours, nodes, root)[1])
            for root in nodes)
    return memo[nodes]


def _orientations(neighbours, nodes):
    """Every acyclic orientation without v-structures of a connected chordal
    component, as lists of arcs (same recursion as :func:`_count_orientations`)."""
    out = []
    for root in sorted(nodes):
        arcs, comps = _rooted(neighbours, nodes, root)
        for parts in itertools.product(*(_orientations(neighbours, c) for c in comps)):
            out.append(arcs + [arc for part in parts for arc in part])
    return out


# ---------------------------------------------------------------------------
# consistent extension


def pdag_extension(pdag):
    """A consistent extension of a PDAG (Dor & Tarsi [3]_).

    A DAG with the PDAG's skeleton, its arcs, and no v-structure the PDAG does
    not have. Repeatedly take a node x with no outgoing arc whose every link
    neighbour is adjacent to all other nodes adjacent to x, orient its links
    into x and remove x (smallest eligible index first, so the result is
    deterministic). A node once eligible stays eligible, so only the nodes
    adjacent to a removed node are re-examined.

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
    """
    n = pdag.n
    pa = [set(x) for x in _row_lists(pdag._arc.T)]
    ch = [set(x) for x in _row_lists(pdag._arc)]
    ne = [set(x) for x in _row_lists(pdag._link)]

    def eligible(x):
        if ch[x]:
            return False
        around = pa[x] | ne[x]
        return all(around - {y} <= (pa[y] | ch[y] | ne[y]) for y in ne[x])

    adj = pdag._arc.astype(np.uint8)
    queued = np.zeros(n, dtype=bool)
    heap = [x for x in range(n) if eligible(x)]
    queued[heap] = True
    n_removed = 0
    while heap:
        x = heapq.heappop(heap)
        n_removed += 1
        for y in ne[x]:
            adj[y, x] = 1
            ne[y].discard(x)
        for y in pa[x]:
            ch[y].discard(x)
        for y in pa[x] | ne[x]:
            if not queued[y] and eligible(y):
                queued[y] = True
                heapq.heappush(heap, y)
    if n_removed < n:
        stuck = [pdag.names[v] for v in np.flatnonzero(~queued)[:10]]
        raise SearchError("this PDAG has no consistent extension: the edges among "
                          f"{', '.join(stuck)} cannot be oriented without a directed cycle "
                          "or a new v-structure")
    return DAG(adj, pdag.names)


# ---------------------------------------------------------------------------
# keys and distances


def mec_key(graph):
    """Hashable key of a graph's Markov equivalence class.

    Parameters
    ----------
    graph : DAG, CPDAG or RPDAG
        For a CPDAG or an RPDAG the key is that of the DAGs it stands for.

    Returns
    -------
    tuple
        ``(n, skeleton edges, v-structures)``: two DAGs on the same nodes have
        equal keys iff they are Markov equivalent (Verma & Pearl).
    """
    return graph.n, tuple(graph.edges()), tuple(graph.v_structures())


def rpdag_key(graph):
    """Hashable key of a graph's RPDAG class.

    Parameters
    ----------
    graph : DAG or RPDAG

    Returns
    -------
    tuple
        ``(n, skeleton edges, head-to-head patterns)``: two DAGs have equal
        keys iff they have the same RPDAG ([1]_, Proposition 4). Finer than
        :func:`mec_key`.
    """
    return graph.n, tuple(graph.edges()), tuple(graph.hh_patterns())


def _aligned_adjacency(a, b):
    """``b.adj`` with its nodes put in ``a``'s order (matched by name)."""
    if a.names == b.names:
        return b.adj
    only_a = [name for name in a.names if name not in b._index]
    only_b = [name for name in b.names if name not in a._index]
    if only_a or only_b:
        raise SearchError(f"the graphs have different nodes (only in the first: {only_a[:5]}, "
                          f"only in the second: {only_b[:5]}); compare graphs over the same "
                          "variables")
    order = [b._index[name] for name in a.names]
    return b.adj[np.ix_(order, order)]


def _pair_states(adj):
    """Edge state of every pair u < v: 0 none, 1 u -> v, 2 v -> u, 3 link."""
    a = adj.astype(np.int8)
    return (a + 2 * a.T)[np.triu_indices(a.shape[0], 1)]


def shd(a, b):
    """Structural Hamming distance between two graphs, as given.

    The number of node pairs whose edge differs: present in one graph only,
    or present in both with a different mark (opposite arcs, or an arc in one
    and a link in the other). Each pair counts once, as in Tsamardinos et al.
    [6]_. Pass two CPDAGs (``dag.cpdag()``) for their SHD between equivalence
    classes; two Markov-equivalent DAGs can be at a positive distance.

    Parameters
    ----------
    a, b : PDAG
        Graphs over the same node names (matched by name when the orders differ).

    Returns
    -------
    int
    """
    return int(np.count_nonzero(_pair_states(a.adj) != _pair_states(_aligned_adjacency(a, b))))


def structural_errors(learned, true, equivalence=True):
    """Added, deleted and wrongly oriented edges of a learned graph ([1]_, Section 6).

    With ``equivalence=True`` (the paper's H, which ignores "the differences
    between equivalent structures") both graphs are first replaced by the
    CPDAG of their equivalence class, so a DAG, its CPDAG and any RPDAG of
    its class all score the same. Then, over node pairs:

    - ``A``: adjacent in the learned graph, not in the true one;
    - ``D``: adjacent in the true graph, not in the learned one;
    - ``I``: adjacent in both with different marks: opposite arcs, or an arc
      in one and a link in the other (a link where the true class has a
      compelled arc counts, and so does the reverse);
    - ``H = A + D + I``, which equals ``shd`` of the two compared graphs.

    Parameters
    ----------
    learned, true : PDAG
        DAG, CPDAG, RPDAG or any PDAG with a consistent extension, over the
        same node names.
    equivalence : bool, default True
        False compares the graphs as given.

    Returns
    -------
    dict
        ``{"A": int, "D": int, "I": int, "H": int}``.
    """
    if equivalence:
        learned, true = learned.cpdag(), true.cpdag()
    states_learned = _pair_states(learned.adj)
    states_true = _pair_states(_aligned_adjacency(learned, true))
    in_learned, in_true = states_learned > 0, states_true > 0
    added = int(np.count_nonzero(in_learned & ~in_true))
    deleted = int(np.count_nonzero(in_true & ~in_learned))
    inverted = int(np.count_nonzero(in_learned & in_true & (states_learned != states_true)))
    return {"A": added, "D": deleted, "I": inverted, "H": added + deleted + inverted}

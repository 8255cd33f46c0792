"""Conversions between graph kinds, on plain matrices: DAG -> CPDAG, DAG -> RPDAG, PDAG -> DAG.

Each function takes the arcs (and links) of a graph as boolean matrices and returns
the ``uint8`` adjacency of the converted graph; the graph classes of
:mod:`bnexplore.graphs.pdag` wrap them.

References
----------
.. [1] S. Acid and L. M. de Campos (2003). Searching for Bayesian network
   structures in the space of restricted acyclic partially directed graphs.
   JAIR 18, 445-490. Section 3, Proposition 2 (the RPDAG of a DAG).
.. [2] D. M. Chickering (1995). A transformational characterization of
   equivalent Bayesian network structures. UAI. The procedures Order-Edges and
   Find-Compelled (DAG -> CPDAG).
.. [3] D. Dor and M. Tarsi (1992). A simple algorithm to construct a consistent
   extension of a partially oriented graph. Technical report R-185, UCLA.
"""

import heapq
from collections import deque

import numpy as np

from bnexplore.errors import SearchError
from bnexplore.graphs.adjacency import row_lists, topological_order


def essential_graph(arc):
    """Adjacency of the CPDAG (essential graph) of a DAG's equivalence class.

    Compelled arcs stay arcs, reversible ones become links. Chickering's [2]_
    Find-Compelled labelling: edges are taken in Order-Edges order (children
    in topological order, for each child its parents from the last in
    topological order), so every edge into ``x`` is labelled before the edges
    out of ``x``. For child ``y`` with last parent ``x``: if a compelled
    ``w -> x`` has ``w`` not a parent of ``y``, every arc into ``y`` is
    compelled; otherwise each such ``w -> y`` is compelled, and the remaining
    arcs into ``y`` are compelled when ``y`` has a parent not adjacent to
    ``x`` (a v-structure), reversible when not.

    Parameters
    ----------
    arc : ndarray of bool, shape (n, n)
        The arcs of an acyclic graph.

    Returns
    -------
    ndarray of uint8, shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> chain = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], dtype=bool)
    >>> essential_graph(chain).tolist()  # a chain's edges are all reversible
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    n = arc.shape[0]
    order = topological_order(arc)
    position = [0] * n
    for i, v in enumerate(order):
        position[v] = i
    parents = row_lists(arc.T)
    parent_sets = [set(pa) for pa in parents]
    compelled = [set() for _ in range(n)]  # compelled[y]: parents p with p -> y compelled
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
    adj = arc.astype(np.uint8)
    for y, pa in enumerate(parents):
        for p in pa:
            if p not in compelled[y]:
                adj[y, p] = 1
    return adj


def rpdag_of_dag(arc):
    """Adjacency of the RPDAG whose extension contains a DAG ([1]_, Proposition 2).

    Keeps the skeleton and every head-to-head pattern; an arc x -> y with no
    parent of x and x the only parent of y becomes the link x -- y,
    repeatedly (a cascade down from the parentless nodes).

    Parameters
    ----------
    arc : ndarray of bool, shape (n, n)
        The arcs of an acyclic graph.

    Returns
    -------
    ndarray of uint8, shape (n, n)

    Examples
    --------
    >>> import numpy as np
    >>> collider = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]], dtype=bool)
    >>> rpdag_of_dag(collider).tolist()  # a head-to-head pattern stays
    [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    """
    parents = row_lists(arc.T)
    children = row_lists(arc)
    adj = arc.astype(np.uint8)
    queue = deque(v for v in range(arc.shape[0]) if len(parents[v]) == 0)
    while queue:
        x = queue.popleft()
        for y in children[x]:
            if len(parents[y]) == 1:
                adj[y, x] = 1
                queue.append(y)
    return adj


def consistent_extension(arc, link, names):
    """Adjacency of a consistent extension of a PDAG (Dor & Tarsi [3]_).

    A DAG with the PDAG's skeleton, its arcs, and no v-structure the PDAG does
    not have. Repeatedly take a node x with no outgoing arc whose every link
    neighbour is adjacent to all other nodes adjacent to x, orient its links
    into x and remove x (smallest eligible index first, so the result is
    deterministic). A node once eligible stays eligible, so only the nodes
    adjacent to a removed node are re-examined.

    Parameters
    ----------
    arc, link : ndarray of bool, shape (n, n)
        The PDAG's arcs, and its links (symmetric).
    names : list of str
        Node names, for the error message.

    Returns
    -------
    ndarray of uint8, shape (n, n)

    Raises
    ------
    SearchError
        When the PDAG admits no consistent extension.

    Examples
    --------
    >>> import numpy as np
    >>> link = np.array([[0, 1], [1, 0]], dtype=bool)
    >>> consistent_extension(np.zeros((2, 2), bool), link, ["a", "b"]).tolist()
    [[0, 0], [1, 0]]
    """
    n = arc.shape[0]
    pa = [set(x) for x in row_lists(arc.T)]
    ch = [set(x) for x in row_lists(arc)]
    ne = [set(x) for x in row_lists(link)]

    def eligible(x):
        if ch[x]:
            return False
        around = pa[x] | ne[x]
        return all(around - {y} <= (pa[y] | ch[y] | ne[y]) for y in ne[x])

    adj = arc.astype(np.uint8)
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
        stuck = [names[v] for v in np.flatnonzero(~queued)[:10]]
        raise SearchError("this PDAG has no consistent extension: the edges among "
                          f"{', '.join(stuck)} cannot be oriented without a directed cycle "
                          "or a new v-structure")
    return adj

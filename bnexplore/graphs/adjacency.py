"""Plain 0/1 adjacency matrices: arcs, row lists, topological order, directed cycles, undirected paths.

The helpers every graph class and conversion builds on, on plain numpy arrays and
neighbour lists (no graph objects): ``adj[u, v] = 1, adj[v, u] = 0`` is the arc
u -> v and ``adj[u, v] = adj[v, u] = 1`` the link u -- v.
"""

import heapq
from collections import deque

import numpy as np


def row_lists(mat):
    """Column indices of the nonzero entries of each row.

    Parameters
    ----------
    mat : ndarray, shape (n, n)

    Returns
    -------
    list of list of int
        ``out[i]`` lists the ``j`` with ``mat[i, j] != 0``, ascending.

    Examples
    --------
    >>> import numpy as np
    >>> row_lists(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]]))
    [[1, 2], [2], []]
    """
    out = [[] for _ in range(mat.shape[0])]
    rows, cols = np.nonzero(mat)
    for i, j in zip(rows.tolist(), cols.tolist()):
        out[i].append(j)
    return out


def arc_matrix(adj):
    """Boolean matrix of the arcs (not the links) of an adjacency matrix.

    Examples
    --------
    >>> import numpy as np
    >>> arc_matrix(np.array([[0, 1], [0, 0]])).astype(int).tolist()
    [[0, 1], [0, 0]]
    >>> bool(arc_matrix(np.array([[0, 1], [1, 0]])).any())  # a link is no arc
    False
    """
    a = np.asarray(adj).astype(bool)
    return a & ~a.T


def topological_order(arc):
    """Kahn's topological order of the arcs, smallest index first among free nodes.

    Parameters
    ----------
    arc : ndarray of bool, shape (n, n)
        Arcs only (see :func:`arc_matrix`).

    Returns
    -------
    list of int
        Shorter than ``n`` when the arcs contain a directed cycle.

    Examples
    --------
    >>> import numpy as np
    >>> topological_order(np.array([[0, 0], [1, 0]], dtype=bool))
    [1, 0]
    """
    n = arc.shape[0]
    children = row_lists(arc)
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

    Examples
    --------
    >>> find_cycle([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    [0, 1, 2]
    >>> find_cycle([[0, 1], [0, 0]]) is None
    True
    """
    arc = arc_matrix(adj)
    order = topological_order(arc)
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
    return from_smallest(path[seen[v]:][::-1])


def is_acyclic(adj):
    """True when the arcs of ``adj`` (links ignored) contain no directed cycle.

    Examples
    --------
    >>> is_acyclic([[0, 1], [1, 0]])  # a link, not a cycle
    True
    """
    return find_cycle(adj) is None


def from_smallest(cycle):
    """The same cycle, rotated to start at its smallest node.

    Examples
    --------
    >>> from_smallest([3, 1, 2])
    [1, 2, 3]
    """
    first = cycle.index(min(cycle))
    return cycle[first:] + cycle[:first]


def tree_path(forest, u, v):
    """Path from u to v in a forest given as adjacency lists (u and v connected).

    Examples
    --------
    >>> tree_path([[1], [0, 2], [1]], 0, 2)
    [0, 1, 2]
    """
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


def components(neighbours, nodes):
    """Connected components of an undirected graph given as neighbour sets.

    Parameters
    ----------
    neighbours : sequence of set of int
        ``neighbours[u]``: the nodes joined to u.
    nodes : iterable of int
        The nodes to split; neighbours outside them are ignored.

    Returns
    -------
    list of frozenset

    Examples
    --------
    >>> sorted(sorted(c) for c in components([{1}, {0}, set()], range(3)))
    [[0, 1], [2]]
    """
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

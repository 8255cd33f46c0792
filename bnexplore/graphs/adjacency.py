"""Plain 0/1 adjacency matrices and arc lists: entries, row lists, topological order, directed cycles, paths.

The helpers every graph class and conversion builds on, on plain numpy arrays and
neighbour lists (no graph objects): ``adj[u, v] = 1, adj[v, u] = 0`` is the arc
u -> v and ``adj[u, v] = adj[v, u] = 1`` the link u -- v. A graph's matrix is read
once, into the lists of its entries (:func:`entries`); orders and cycles are
found on those lists, so their cost grows with the arcs, not with n x n.
"""

import heapq
from collections import deque

import numpy as np


_WORD_SCAN_FROM = 4096
"""Entries from which :func:`entries` reads a one-byte matrix eight bytes at a time: below it
(graphs of up to 64 nodes) numpy's own nonzero is quicker than the word scan's fixed cost."""


def entries(mat):
    """Row and column indices of the nonzero entries of a 2-d array, in row-major order.

    What ``np.nonzero`` gives, without its visit of every entry one at a time on a
    one-byte matrix (bool, uint8): the matrix is read eight bytes at a time, and only
    the few nonzero words of a sparse graph are looked into. A transposed matrix is
    read in its own memory order, without a copy.

    Parameters
    ----------
    mat : array_like, shape (m, n)

    Returns
    -------
    rows, cols : ndarray of int64
        Sorted by row, then column.

    Examples
    --------
    >>> import numpy as np
    >>> rows, cols = entries(np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]], dtype=np.uint8))
    >>> rows.tolist(), cols.tolist()
    ([0, 0, 2], [1, 2, 0])
    """
    a = np.asarray(mat)
    if not a.flags.c_contiguous and a.T.flags.c_contiguous:
        cols, rows = entries(a.T)
        order = np.lexsort((cols, rows))
        return rows[order], cols[order]
    flat = a.ravel()
    keys = _nonzero_bytes(flat) if flat.dtype.itemsize == 1 and flat.size >= _WORD_SCAN_FROM else np.flatnonzero(flat)
    return np.divmod(keys.astype(np.int64), max(a.shape[1], 1))


def _nonzero_bytes(flat):
    """``np.flatnonzero`` of a one-byte 1-d array, through its nonzero eight-byte words."""
    whole = flat.size // 8 * 8
    words = np.flatnonzero(flat[:whole].view(np.uint64))
    inside = (words[:, None] * 8 + np.arange(8)).ravel()
    return np.concatenate([inside[flat[inside] != 0], whole + np.flatnonzero(flat[whole:])])


def grouped(keys, values, n):
    """``values`` grouped by ``keys``: one list per key ``0..n-1``, in the order given.

    Parameters
    ----------
    keys, values : ndarray of int, same length
    n : int
        Number of groups; every key is in ``0..n-1``.

    Returns
    -------
    list of list of int
        ``out[k]`` lists the ``values[i]`` with ``keys[i] == k``, in the order of ``i``.

    Examples
    --------
    >>> import numpy as np
    >>> grouped(np.array([2, 0, 2]), np.array([5, 6, 7]), 3)
    [[6], [], [5, 7]]
    """
    out = [[] for _ in range(n)]
    for k, value in zip(np.asarray(keys).tolist(), np.asarray(values).tolist()):
        out[k].append(value)
    return out


def matrix_of(n, rows, cols):
    """The n x n ``uint8`` matrix with ones at ``(rows[i], cols[i])`` and zeros elsewhere.

    Examples
    --------
    >>> matrix_of(2, [0], [1]).tolist()
    [[0, 1], [0, 0]]
    """
    mat = np.zeros((n, n), dtype=np.uint8)
    mat[rows, cols] = 1
    return mat


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
    rows, cols = entries(mat)
    return grouped(rows, cols, mat.shape[0])


def order_of_arcs(n, tails, heads):
    """Kahn's topological order of the arcs ``tails[i] -> heads[i]``, smallest index first among free nodes.

    Parameters
    ----------
    n : int
        Number of nodes.
    tails, heads : ndarray of int
        The arcs, any order, each listed once.

    Returns
    -------
    list of int
        Shorter than ``n`` when the arcs contain a directed cycle.

    Examples
    --------
    >>> import numpy as np
    >>> order_of_arcs(3, np.array([2, 1]), np.array([0, 0]))
    [1, 2, 0]
    """
    children = grouped(tails, heads, n)
    indegree = np.bincount(np.asarray(heads, dtype=np.int64), minlength=n).tolist()
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


def topological_order(arc):
    """Kahn's topological order of the arcs, smallest index first among free nodes.

    Parameters
    ----------
    arc : ndarray of bool, shape (n, n)
        Arcs only, no links (see :func:`arc_entries`).

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
    return order_of_arcs(arc.shape[0], *entries(arc))


def cycle_of_arcs(n, tails, heads):
    """A directed cycle made of the arcs ``tails[i] -> heads[i]``, or None.

    Parameters
    ----------
    n : int
        Number of nodes.
    tails, heads : ndarray of int
        The arcs, any order, each listed once.

    Returns
    -------
    list of int or None
        The nodes ``[v0, v1, ..., vk]`` of a cycle ``v0 -> v1 -> ... -> vk -> v0``,
        starting at its smallest node, or None when the arcs are acyclic. The
        cycle is found from the smallest node Kahn's algorithm cannot remove,
        walking to its smallest parent that is not removed either until a node
        repeats.

    Examples
    --------
    >>> import numpy as np
    >>> cycle_of_arcs(4, np.array([0, 1, 2, 3]), np.array([1, 2, 1, 0]))
    [1, 2]
    """
    order = order_of_arcs(n, tails, heads)
    if len(order) == n:
        return None
    left = np.ones(n, dtype=bool)
    left[order] = False
    keep = left[tails] & left[heads]
    parents = [sorted(pa) for pa in grouped(np.asarray(heads)[keep], np.asarray(tails)[keep], n)]
    # Every node Kahn could not remove has a parent that was not removed either:
    # walk up such parents until a node repeats.
    v = int(np.flatnonzero(left)[0])
    seen = {}
    path = []
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = parents[v][0]
    return from_smallest(path[seen[v]:][::-1])


def arc_entries(adj):
    """The arcs (not the links) of an adjacency matrix, as tails and heads in row-major order.

    Examples
    --------
    >>> tails, heads = arc_entries([[0, 1, 1], [1, 0, 0], [0, 0, 0]])  # 0 -- 1 is a link
    >>> tails.tolist(), heads.tolist()
    ([0], [2])
    """
    a = np.asarray(adj)
    rows, cols = entries(a)
    arc = a[cols, rows] == 0
    return rows[arc], cols[arc]


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
        starting at its smallest node, or None when the arcs are acyclic
        (see :func:`cycle_of_arcs`).

    Examples
    --------
    >>> find_cycle([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    [0, 1, 2]
    >>> find_cycle([[0, 1], [0, 0]]) is None
    True
    """
    a = np.asarray(adj)
    return cycle_of_arcs(a.shape[0], *arc_entries(a))


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

"""Acyclic orientations without v-structures of a chordal component, counted and listed.

The DAGs of a Markov equivalence class are the CPDAG's compelled arcs combined
with one such orientation of each chain component (connected undirected part).
Each orientation has exactly one root; the orientations with root v are found by
orienting the links at v away from it and closing under Meek's rule R1.

References
----------
.. [1] C. Meek (1995). Causal inference and causal explanation with background
   knowledge. UAI. Orientation rule R1.
.. [2] Y. He, J. Jia and B. Yu (2015). Counting and exploring sizes of Markov
   equivalence classes of directed acyclic graphs. JMLR 16, 2589-2609.
   Section 3: every acyclic orientation without v-structures of a connected
   chordal graph has exactly one root, and the orientations with root v are
   the extensions of the v-rooted essential graph.
"""

import itertools
import math

from bnexplore.graphs.adjacency import components


def rooted(neighbours, nodes, root):
    """Orient a connected chordal component with ``root`` as its source.

    Orients every link at ``root`` away from it, then applies Meek's [1]_
    rule R1 (a -> b -- c with a, c not adjacent gives b -> c) until nothing
    changes. For a rooted connected chordal graph R1 alone yields the
    root-rooted essential graph ([2]_, Section 3); the tests check the counts
    against brute force and against an independent inclusion-exclusion count.

    Parameters
    ----------
    neighbours : sequence of set of int
        Link neighbours of every node.
    nodes : frozenset of int
        The component.
    root : int

    Returns
    -------
    arcs : list of tuple
        Arcs oriented inside the component.
    components : list of frozenset
        Components of the links left, with more than one node.

    Examples
    --------
    >>> rooted([{1}, {0, 2}, {1}], frozenset({0, 1, 2}), 0)
    ([(0, 1), (1, 2)], [])
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
    return arcs, [c for c in components(und, nodes) if len(c) > 1]


def count_orientations(neighbours, nodes, memo):
    """Number of acyclic orientations without v-structures of a connected chordal component.

    Sum over the possible roots ([2]_: each orientation has exactly one) of
    the product of the counts of the rooted graph's chain components; trees (k
    nodes, k orientations) and cliques (k!) in closed form.

    Parameters
    ----------
    neighbours : sequence of set of int
    nodes : frozenset of int
    memo : dict
        Counts already known, by node set (filled in).

    Returns
    -------
    int

    Examples
    --------
    >>> count_orientations([{1, 2}, {0, 2}, {0, 1}], frozenset({0, 1, 2}), {})  # a triangle: 3!
    6
    """
    k = len(nodes)
    n_links = sum(len(neighbours[u] & nodes) for u in nodes) // 2
    if n_links == k - 1:
        return k
    if n_links == k * (k - 1) // 2:
        return math.factorial(k)
    if nodes not in memo:
        memo[nodes] = sum(
            math.prod(count_orientations(neighbours, c, memo)
                      for c in rooted(neighbours, nodes, root)[1])
            for root in nodes)
    return memo[nodes]


def orientations(neighbours, nodes):
    """Every acyclic orientation without v-structures of a connected chordal component.

    The same recursion as :func:`count_orientations`, listing instead of counting.

    Returns
    -------
    list of list of tuple
        One list of arcs per orientation.

    Examples
    --------
    >>> orientations([{1}, {0}], frozenset({0, 1}))
    [[(0, 1)], [(1, 0)]]
    """
    out = []
    for root in sorted(nodes):
        arcs, comps = rooted(neighbours, nodes, root)
        for parts in itertools.product(*(orientations(neighbours, c) for c in comps)):
            out.append(arcs + [arc for part in parts for arc in part])
    return out

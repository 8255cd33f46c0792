"""Meek's orientation rules R1-R4: a pattern closed to its maximally oriented PDAG.

A constraint-based search finds a skeleton and its v-structures (and perhaps arcs
fixed by background knowledge); the rules orient every further link that has
the same direction in every DAG with that skeleton, those v-structures and
those arcs. Without background knowledge R1-R3 give the CPDAG of the class
([1]_, Theorem 2); with required arcs R4 is needed too ([1]_, Theorem 4).

References
----------
.. [1] C. Meek (1995). Causal inference and causal explanation with background
   knowledge. UAI, 403-410. Section 2, rules R1-R4.
.. [2] J. Ramsey, J. Zhang and P. Spirtes (2006). Adjacency-faithfulness and
   conservative causal inference. UAI. Section 4: under the conservative rule
   R1 and R3 must not read an ambiguous triple as a non-collider.
"""

import numpy as np

from bnexplore.graphs.pdag import PDAG

RULES = ("R1", "R2", "R3", "R4")
"""The rules' names, in the order they are tried."""


def _count(a, b):
    """``(a @ b)`` of two boolean matrices, as counts (float32 BLAS, exact below 2^24)."""
    return a.astype(np.float32) @ b.astype(np.float32)


def _r1(arc, link, nonadj, ambiguous):
    """R1: a -> b -- c, a and c not adjacent: b -> c (unless (a, b, c) is ambiguous)."""
    found = link & (_count(arc.T, nonadj) > 0)
    out = []
    for b, c in np.argwhere(found):
        sources = np.flatnonzero(arc[:, b] & nonadj[:, c])
        if any((a, b, c) not in ambiguous for a in sources.tolist()):
            out.append((int(b), int(c)))
    return out


def _r2(arc, link, nonadj, ambiguous):
    """R2: a -> b -> c and a -- c: a -> c."""
    return [(int(a), int(c)) for a, c in np.argwhere(link & (_count(arc, arc) > 0))]


def _r3(arc, link, nonadj, ambiguous):
    """R3: a -- c -> b, a -- d -> b, c and d not adjacent, a -- b: a -> b
    (unless (c, a, d) is ambiguous)."""
    out = []
    for a, b in np.argwhere(link & (_count(link, arc) > 1)):
        middle = np.flatnonzero(link[a] & arc[:, b]).tolist()
        if any(nonadj[c, d] and (c, a, d) not in ambiguous
               for i, c in enumerate(middle) for d in middle[i + 1:]):
            out.append((int(a), int(b)))
    return out


def _r4(arc, link, nonadj, ambiguous):
    """R4: a -- d -> c -> b, a adjacent to c, d and b not adjacent, a -- b: a -> b."""
    adjacent = ~nonadj
    out = []
    for a, b in np.argwhere(link):
        via = np.flatnonzero(arc[:, b] & adjacent[a])
        starts = np.flatnonzero(link[a] & nonadj[:, b])
        if len(via) and len(starts) and arc[np.ix_(starts, via)].any():
            out.append((int(a), int(b)))
    return out


_APPLY = {"R1": _r1, "R2": _r2, "R3": _r3, "R4": _r4}


def meek_orient(pdag, ambiguous=(), keep=()):
    """Close a PDAG under Meek's rules R1-R4 ([1]_).

    The rules are tried in the order R1, R2, R3, R4; the first that applies
    orients every link it finds (row-major order), and the search starts
    again from R1, until no rule applies. Arcs are never changed, only links
    oriented, so arcs fixed by knowledge stay as they are. When the input is
    the pattern of a DAG (its skeleton and v-structures, as links and arcs) the
    result is that DAG's CPDAG.

    Parameters
    ----------
    pdag : PDAG
    ambiguous : iterable of (int, int, int), optional
        Unshielded triples ``(a, b, c)`` whose middle node the conservative
        or majority rule could not decide ([2]_): R1 and R3 do not read
        them as non-colliders. Either order of the end points.
    keep : iterable of (int, int), optional
        Links no rule orients (either order): edges whose direction the
        evidence contradicts, such as one two v-structures orient both ways.

    Returns
    -------
    graph : PDAG
        The maximally oriented graph.
    applied : list of (int, int, str)
        Every orientation ``(u, v, rule)``: u -- v became u -> v by ``rule``,
        in the order applied.

    Examples
    --------
    >>> g = PDAG([[0, 1, 0], [0, 0, 1], [0, 1, 0]], ["a", "b", "c"])  # a -> b -- c
    >>> graph, applied = meek_orient(g)
    >>> graph.arcs(), applied
    ([(0, 1), (1, 2)], [(1, 2, 'R1')])
    """
    adj = pdag.adj.astype(bool)
    n = adj.shape[0]
    skeleton = adj | adj.T
    nonadj = ~skeleton & ~np.eye(n, dtype=bool)
    ambiguous = {(int(a), int(b), int(c)) for a, b, c in ambiguous}
    ambiguous |= {(c, b, a) for a, b, c in ambiguous}
    kept = {(int(u), int(v)) for u, v in keep}
    kept |= {(v, u) for u, v in kept}
    applied = []
    changed = True
    while changed:
        changed = False
        arc = adj & ~adj.T
        link = adj & adj.T
        if not link.any():
            break
        for rule in RULES:
            found = _APPLY[rule](arc, link, nonadj, ambiguous)
            for u, v in found:
                if adj[u, v] and adj[v, u] and (u, v) not in kept:
                    adj[v, u] = False
                    applied.append((u, v, rule))
                    changed = True
            if changed:
                break
    return PDAG(adj.astype(np.uint8), pdag.names), applied

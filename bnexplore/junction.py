"""Junction trees of discrete Bayesian networks: triangulation, the tree, and
the numba kernels that propagate evidence through it.

The tree is built as in Koller & Friedman (2009), "Probabilistic Graphical
Models", Sections 9.4 and 10.4.1: moralise the DAG, eliminate the variables
one at a time in a greedy order (min-fill, ties broken by the weight of the
clique; and min-weight, ties broken by fill: the one with the smaller total
table wins, as Kjaerulff 1990 compares them), take the elimination cliques,
link each to the clique of its earliest-eliminated neighbour (the elimination
tree, Section 10.4.1) and contract every edge whose one end contains the
other, so that only maximal cliques remain and the running intersection
property holds.

Propagation is Hugin's (Jensen, Lauritzen & Olesen 1990; Koller & Friedman
Section 10.3): a message projects a clique onto a separator and multiplies
the receiving clique by the ratio of the new separator to the old. Every
table is a flat float64 array in C order over its clique's variables (the
last varies fastest); separators likewise. Hard evidence never writes zeros:
every loop visits only the cells that agree with it (the evidence variables'
digits are fixed), so a clique holding an observed variable with ``r``
states costs ``1/r`` of its size.
"""

import math

import numpy as np
from numba import prange

from .compiling import njit
from .errors import ResourceError


# -- triangulation ------------------------------------------------------------

def moral_graph(parents, n):
    """Dense moral graph (uint8 ``n x n``): parent-child arcs and married parents, undirected."""
    adj = np.zeros((n, n), np.uint8)
    for v, ps in enumerate(parents):
        family = list(ps) + [v]
        for a in family:
            for b in family:
                if a != b:
                    adj[a, b] = 1
    return adj


@njit(cache=True)
def _fill(adj, alive, u):
    """Edges elimination of ``u`` would add between its live neighbours."""
    n = adj.shape[0]
    nb = np.empty(n, np.int64)
    k = 0
    for w in range(n):
        if alive[w] and adj[u, w]:
            nb[k] = w
            k += 1
    fill = 0
    for i in range(k):
        a = nb[i]
        for j in range(i + 1, k):
            if not adj[a, nb[j]]:
                fill += 1
    return fill


@njit(cache=True)
def _weight(adj, alive, logcard, u):
    """log of the table size of ``u``'s elimination clique."""
    w = logcard[u]
    for x in range(adj.shape[0]):
        if alive[x] and adj[u, x]:
            w += logcard[x]
    return w


@njit(cache=True)
def elimination_order(adj, logcard, fill_first):
    """Greedy elimination order on an undirected graph (modified in place).

    Parameters
    ----------
    adj : uint8 array (n, n)
        Symmetric adjacency; fill edges are added to it.
    logcard : float64 array (n,)
        log of each variable's number of states.
    fill_first : bool
        True: min-fill, ties by weight. False: min-weight, ties by fill.

    Returns
    -------
    order : int64 array (n,)
        Elimination order.
    cliques : uint8 array (n, n)
        Row ``i`` marks the elimination clique of ``order[i]`` (the variable and
        its neighbours still alive when it is eliminated).

    Notes
    -----
    Scores are kept per variable and recomputed only for the variables within
    two steps of the one eliminated (the only ones whose fill or weight can
    change).
    """
    n = adj.shape[0]
    alive = np.ones(n, np.bool_)
    fill = np.empty(n, np.int64)
    weight = np.empty(n, np.float64)
    for u in range(n):
        fill[u] = _fill(adj, alive, u)
        weight[u] = _weight(adj, alive, logcard, u)
    order = np.empty(n, np.int64)
    cliques = np.zeros((n, n), np.uint8)
    touched = np.zeros(n, np.bool_)
    for step in range(n):
        best = -1
        for u in range(n):
            if not alive[u]:
                continue
            if best < 0:
                best = u
                continue
            if fill_first:
                better = fill[u] < fill[best] or (fill[u] == fill[best] and weight[u] < weight[best] - 1e-12)
            else:
                better = weight[u] < weight[best] - 1e-12 or (abs(weight[u] - weight[best]) <= 1e-12
                                                              and fill[u] < fill[best])
            if better:
                best = u
        v = best
        order[step] = v
        cliques[step, v] = 1
        nb = np.empty(n, np.int64)
        k = 0
        for w in range(n):
            if alive[w] and adj[v, w] and w != v:
                nb[k] = w
                k += 1
                cliques[step, w] = 1
        for i in range(k):
            for j in range(i + 1, k):
                adj[nb[i], nb[j]] = 1
                adj[nb[j], nb[i]] = 1
        alive[v] = False
        touched[:] = False
        for i in range(k):
            a = nb[i]
            touched[a] = True
            for w in range(n):
                if alive[w] and adj[a, w]:
                    touched[w] = True
        for u in range(n):
            if touched[u] and alive[u]:
                fill[u] = _fill(adj, alive, u)
                weight[u] = _weight(adj, alive, logcard, u)
    return order, cliques


class JunctionTree:
    """The cliques and separators of a junction tree, without any table.

    Built by :func:`junction_tree`; holds what is needed to estimate memory
    before any table is allocated.

    Attributes
    ----------
    cliques : list of tuple of int
        Variables of every clique, ascending.
    parent : int array
        Parent clique of every clique in the tree rooted at clique 0 (-1 for
        the root; a network in several pieces gives a forest whose roots are
        joined to clique 0 by empty separators).
    cells : int array
        Table size of every clique (product of its variables' state counts).
    separator_cells : int array
        Size of the separator between each clique and its parent (1 for the root).
    heuristic : str
        "min-fill" or "min-weight": the order that gave the smaller total.
    """

    def __init__(self, cliques, parent, cards, heuristic):
        self.cliques = cliques
        self.parent = np.asarray(parent, np.int64)
        self.heuristic = heuristic
        self.cells = np.array([_cells(c, cards) for c in cliques], np.float64)
        seps = []
        for c, p in enumerate(self.parent):
            seps.append(_cells(sorted(set(cliques[c]) & set(cliques[p])), cards) if p >= 0 else 1.0)
        self.separator_cells = np.array(seps, np.float64)

    @property
    def largest(self):
        """Cells of the largest clique table."""
        return float(self.cells.max(initial=1.0))

    @property
    def total(self):
        """Cells of all clique tables together."""
        return float(self.cells.sum())

    @property
    def width(self):
        """Most variables in one clique, minus one (the tree width of this tree)."""
        return max((len(c) for c in self.cliques), default=1) - 1


def _cells(variables, cards):
    out = 1.0
    for v in variables:
        out *= float(cards[v])
    return out


def junction_tree(parents, cards):
    """Triangulate a network's moral graph and build its junction tree.

    Parameters
    ----------
    parents : list of list of int
    cards : sequence of int
        Number of states of every variable.

    Returns
    -------
    JunctionTree
        From the better (smaller total table size) of the min-fill and
        min-weight elimination orders.
    """
    n = len(parents)
    cards = np.asarray(cards, np.int64)
    logcard = np.log(np.maximum(cards, 1).astype(np.float64))
    moral = moral_graph(parents, n)
    best = None
    for fill_first, name in ((True, "min-fill"), (False, "min-weight")):
        order, marks = elimination_order(moral.copy(), logcard, fill_first)
        total = float(np.exp(marks.astype(np.float64) @ logcard).sum())
        if best is None or total < best[0]:
            best = (total, order, marks, name)
    _, order, marks, name = best
    cliques, parent = _elimination_tree(order, marks)
    return JunctionTree(cliques, parent, cards, name)


def _elimination_tree(order, marks):
    """Maximal cliques and a rooted junction tree from an elimination.

    The elimination clique of step ``i`` hangs below that of the
    earliest-eliminated other member (Koller & Friedman, Section 10.4.1);
    an edge between a clique and one that contains it is contracted.
    """
    n = len(order)
    position = np.empty(n, np.int64)
    position[order] = np.arange(n)
    sets = [frozenset(np.flatnonzero(marks[i]).tolist()) for i in range(n)]
    up = np.full(n, -1, np.int64)
    for i in range(n):
        later = [position[u] for u in sets[i] if position[u] > i]
        if later:
            up[i] = min(later)
    # contract containment edges: keep the larger clique, re-hang the other's neighbours
    alias = list(range(n))

    def find(i):
        while alias[i] != i:
            alias[i] = alias[alias[i]]
            i = alias[i]
        return i

    for i in range(n):  # children come before parents in elimination order
        j = up[i]
        if j < 0:
            continue
        a, b = find(i), find(j)
        if sets[a] <= sets[b]:
            alias[a] = b
        elif sets[b] <= sets[a]:
            alias[b] = a
            sets[b] = sets[a]
    keep = sorted({find(i) for i in range(n)})
    number = {k: t for t, k in enumerate(keep)}
    neighbours = [set() for _ in keep]
    for i in range(n):
        if up[i] >= 0:
            a, b = number[find(i)], number[find(up[i])]
            if a != b:
                neighbours[a].add(b)
                neighbours[b].add(a)
    cliques = [tuple(sorted(sets[k])) for k in keep]
    parent = np.full(len(keep), -1, np.int64)
    seen = np.zeros(len(keep), bool)
    for root in range(len(keep)):  # one BFS per piece of a forest; extra roots hang below clique 0
        if seen[root]:
            continue
        if root:
            parent[root] = 0
        seen[root] = True
        queue = [root]
        for c in queue:
            for d in neighbours[c]:
                if not seen[d]:
                    seen[d] = True
                    parent[d] = c
                    queue.append(d)
    return cliques, parent


def check_size(tree, max_cells, what="the network"):
    """Refuse a tree whose tables would hold more than ``max_cells`` cells.

    Raises
    ------
    ResourceError
        Naming the largest clique and the total, in cells and bytes.
    """
    if tree.total > max_cells:
        raise ResourceError(
            f"the largest clique of {what} would hold {tree.largest:.2g} cells and all cliques together "
            f"{tree.total:.2g} ({tree.total * 16 / 2**30:.1f} GiB), more than the limit of {max_cells:.2g} "
            "cells; remove evidence-free barren nodes or query fewer variables (bx.query prunes them), "
            "or raise max_cells")


# -- propagation kernels ------------------------------------------------------

@njit(cache=True)
def work_size(k, m):
    """Int64 cells of the work space :func:`project_with` / :func:`multiply_with` need for a clique of
    ``k`` variables and ``m`` outputs."""
    return 2 * m + 3 * k + m * k + 1


@njit(cache=True)
def _restrict(cvars, strides, cards, fixed, ostr, obase, buf):
    """The loop over one clique's cells that agree with the hard evidence.

    ``fixed[v]`` is the observed state of variable ``v`` or -1. Returns
    ``(base, bases, dcard, dstr, dostr, nd)``: the offset of the first
    consistent cell and each output's offset there, and the ``nd`` axes left
    to loop over (states, stride in the clique, stride in each output).
    Neighbouring free axes that step through the clique and every output as
    one longer axis would are merged into it, so the innermost loop is long
    and the odometer carries seldom. The arrays returned are views of the
    int64 work space ``buf`` (:func:`work_size` cells), so a caller that
    loops allocates nothing.
    """
    k = cvars.shape[0]
    m = ostr.shape[0]
    base = 0
    bases = buf[:m]
    bases[:] = obase
    dcard = buf[m:m + k]
    dstr = buf[m + k:m + 2 * k]
    dostr = buf[m + 2 * k:m + 2 * k + m * k].reshape(m, k)
    nd = 0
    for i in range(k):
        s = fixed[cvars[i]]
        if s >= 0:
            base += s * strides[i]
            for j in range(m):
                bases[j] += s * ostr[j, i]
            continue
        c = cards[cvars[i]]
        if nd > 0:
            p = nd - 1
            merge = dstr[p] == strides[i] * c
            for j in range(m):
                merge = merge and dostr[j, p] == ostr[j, i] * c
            if merge:
                dcard[p] *= c
                dstr[p] = strides[i]
                for j in range(m):
                    dostr[j, p] = ostr[j, i]
                continue
        dcard[nd] = c
        dstr[nd] = strides[i]
        for j in range(m):
            dostr[j, nd] = ostr[j, i]
        nd += 1
    return base, bases, dcard, dstr, dostr, nd


@njit(cache=True)
def project(src, off, cvars, strides, cards, fixed, ostr, obase, out):
    """Sum the consistent cells of one clique table onto several outputs.

    Parameters
    ----------
    src : float64 array
        Holds the clique table at ``src[off:off + size]``.
    cvars, strides : int64 arrays (k,)
        The clique's variables and their strides in its table.
    cards : int64 array
        States of every variable.
    fixed : int64 array
        Observed state of every variable, or -1.
    ostr : int64 array (m, k)
        Stride of each clique variable in each output (0: summed out).
    obase : int64 array (m,)
        Offset of each output in ``out`` (added to, not cleared).
    out : float64 array

    Returns
    -------
    float
        Sum of the consistent cells.
    """
    return project_with(src, off, cvars, strides, cards, fixed, ostr, obase, out,
                        np.empty(work_size(cvars.shape[0], ostr.shape[0]), np.int64))


@njit(cache=True)
def project_with(src, off, cvars, strides, cards, fixed, ostr, obase, out, buf):
    """:func:`project` in the int64 work space ``buf`` (at least :func:`work_size` cells): allocates nothing."""
    base, bases, dcard, dstr, dostr, nd = _restrict(cvars, strides, cards, fixed, ostr, obase, buf)
    m = ostr.shape[0]
    k = cvars.shape[0]
    base += off
    if nd == 0:
        x = src[base]
        for j in range(m):
            out[bases[j]] += x
        return x
    length = dcard[nd - 1]
    step = dstr[nd - 1]
    ostep = buf[2 * k + m + m * k:2 * k + 2 * m + m * k]
    ostep[:] = dostr[:, nd - 1]
    digits = buf[2 * k + 2 * m + m * k:3 * k + 2 * m + m * k + 1]
    digits[:] = 0
    total = 0.0
    idx = base
    while True:
        if m == 1:
            o, s1 = bases[0], ostep[0]
            if s1 == 0:
                acc = 0.0
                for t in range(length):
                    acc += src[idx + t * step]
                out[o] += acc
                total += acc
            else:
                for t in range(length):
                    x = src[idx + t * step]
                    total += x
                    out[o + t * s1] += x
        else:
            for t in range(length):
                x = src[idx + t * step]
                total += x
                for j in range(m):
                    out[bases[j] + t * ostep[j]] += x
        f = nd - 2
        while f >= 0:
            digits[f] += 1
            idx += dstr[f]
            for j in range(m):
                bases[j] += dostr[j, f]
            if digits[f] < dcard[f]:
                break
            c = dcard[f]
            idx -= dstr[f] * c
            for j in range(m):
                bases[j] -= dostr[j, f] * c
            digits[f] = 0
            f -= 1
        if f < 0:
            return total


@njit(cache=True)
def multiply(dst, src, off, cvars, strides, cards, fixed, rstr, rbase, ratio):
    """``dst = src * ratio`` on the consistent cells of one clique table.

    ``ratio`` is indexed like a projection output (strides ``rstr`` aligned
    with ``cvars``, offset ``rbase``); ``dst`` and ``src`` may be the same array.
    """
    multiply_with(dst, src, off, cvars, strides, cards, fixed, rstr, rbase, ratio,
                  np.empty(work_size(cvars.shape[0], 1), np.int64))


@njit(cache=True)
def multiply_with(dst, src, off, cvars, strides, cards, fixed, rstr, rbase, ratio, buf):
    """:func:`multiply` in the int64 work space ``buf`` (at least :func:`work_size` cells): allocates nothing."""
    k = cvars.shape[0]
    ostr = rstr.reshape(1, -1)
    obase = buf[2 * k + 2 + k:2 * k + 3 + k]
    obase[0] = rbase
    base, bases, dcard, dstr, dostr, nd = _restrict(cvars, strides, cards, fixed, ostr, obase, buf)
    base += off
    r = bases[0]
    if nd == 0:
        dst[base] = src[base] * ratio[r]
        return
    length = dcard[nd - 1]
    step = dstr[nd - 1]
    rstep = dostr[0, nd - 1]
    digits = buf[2 * k + 3 + k:3 * k + 3 + k]
    digits[:] = 0
    idx = base
    while True:
        if rstep == 0:
            y = ratio[r]
            for t in range(length):
                dst[idx + t * step] = src[idx + t * step] * y
        else:
            for t in range(length):
                dst[idx + t * step] = src[idx + t * step] * ratio[r + t * rstep]
        f = nd - 2
        while f >= 0:
            digits[f] += 1
            idx += dstr[f]
            r += dostr[0, f]
            if digits[f] < dcard[f]:
                break
            c = dcard[f]
            idx -= dstr[f] * c
            r -= dostr[0, f] * c
            digits[f] = 0
            f -= 1
        if f < 0:
            return


@njit(cache=True)
def normalise_segments(values, offsets):
    """Divide each segment ``values[offsets[i]:offsets[i + 1]]`` by its sum (in place; empty
    or all-zero segments are left as they are)."""
    for i in range(offsets.shape[0] - 1):
        total = 0.0
        for j in range(offsets[i], offsets[i + 1]):
            total += values[j]
        if total > 0.0:
            for j in range(offsets[i], offsets[i + 1]):
                values[j] /= total


@njit(cache=True)
def propagate(prior, work, live, cl_ptr, cl_vars, cl_str, cl_off, cards, fixed,
              sep_prior, sep_work, sep_live, sep_off, sep_size, e_child, e_cptr, e_str_child, e_pptr, e_str_parent,
              soft_clique, soft_var, soft_ptr, soft_values,
              vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars, vis_collect, marg_off, scratch):
    """Run one query's schedule of messages over a calibrated junction tree.

    Clique ``c``'s current table is ``work[cl_off[c]:...]`` when ``live[c]``,
    else its calibrated prior in ``prior``; likewise separators. Soft evidence
    is multiplied in first, then every visit projects its clique onto its
    out-edges' separators and its target variables in one pass, and sends
    each message (Hugin's ratio update) to the clique across the edge.
    Collect visits (``vis_collect``) normalise their messages and add the
    log of the normaliser to the log evidence probability.

    ``scratch`` holds the new separators at ``sep_off`` and the marginals
    after them at ``marg_off``.

    Returns
    -------
    status : int
        0, or 1 when a collect message is all zeros (evidence of probability 0).
    logz : float
        Sum of the logs of the collect normalisers.
    top_total : float
        Sum of the consistent cells of the first visited clique that is not
        a collect visit (the top of the collect).
    """
    buf, obuf = propagation_space(cl_ptr, vis_eptr, vis_mptr)
    return propagate_with(prior, work, live, cl_ptr, cl_vars, cl_str, cl_off, cards, fixed,
                          sep_prior, sep_work, sep_live, sep_off, sep_size, e_child, e_cptr, e_str_child, e_pptr, e_str_parent,
                          soft_clique, soft_var, soft_ptr, soft_values,
                          vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars, vis_collect, marg_off, scratch, buf, obuf)


@njit(cache=True)
def propagation_space(cl_ptr, vis_eptr, vis_mptr):
    """The int64 work spaces :func:`propagate_with` needs for a tree and a schedule: ``(buf, obuf)``."""
    k = 1
    for c in range(cl_ptr.shape[0] - 1):
        k = max(k, cl_ptr[c + 1] - cl_ptr[c])
    m = 1
    for t in range(vis_eptr.shape[0] - 1):
        m = max(m, vis_eptr[t + 1] - vis_eptr[t] + vis_mptr[t + 1] - vis_mptr[t])
    return np.empty(work_size(k, m), np.int64), np.empty(m * k + m, np.int64)


@njit(cache=True)
def propagate_with(prior, work, live, cl_ptr, cl_vars, cl_str, cl_off, cards, fixed,
                   sep_prior, sep_work, sep_live, sep_off, sep_size, e_child, e_cptr, e_str_child, e_pptr, e_str_parent,
                   soft_clique, soft_var, soft_ptr, soft_values,
                   vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars, vis_collect, marg_off, scratch, buf, obuf):
    """:func:`propagate` in the work spaces of :func:`propagation_space` (reused over many calls, so a
    loop of propagations allocates nothing per message)."""

    for t in range(soft_clique.shape[0]):
        c = soft_clique[t]
        a, b = cl_ptr[c], cl_ptr[c + 1]
        cv = cl_vars[a:b]
        rstr = np.zeros(b - a, np.int64)
        for i in range(b - a):
            if cv[i] == soft_var[t]:
                rstr[i] = 1
        src = work if live[c] else prior
        multiply_with(work, src, cl_off[c], cv, cl_str[a:b], cards, fixed, rstr, soft_ptr[t], soft_values, buf)
        live[c] = 1
    logz = 0.0
    top_total = -1.0
    for k in range(vis_clique.shape[0]):
        x = vis_clique[k]
        a, b = cl_ptr[x], cl_ptr[x + 1]
        cv = cl_vars[a:b]
        e0, e1 = vis_eptr[k], vis_eptr[k + 1]
        m0, m1 = vis_mptr[k], vis_mptr[k + 1]
        m = (e1 - e0) + (m1 - m0)
        ostr = obuf[:m * (b - a)].reshape(m, b - a)
        ostr[:] = 0
        obase = obuf[m * (b - a):m * (b - a) + m]
        for j in range(e1 - e0):
            e = vis_edges[e0 + j]
            if e_child[e] == x:
                ostr[j, :] = e_str_child[e_cptr[e]:e_cptr[e] + (b - a)]
            else:
                ostr[j, :] = e_str_parent[e_pptr[e]:e_pptr[e] + (b - a)]
            obase[j] = sep_off[e]
            scratch[sep_off[e]:sep_off[e] + sep_size[e]] = 0.0
        for j in range(m1 - m0):
            v = vis_mvars[m0 + j]
            row = (e1 - e0) + j
            for i in range(b - a):
                if cv[i] == v:
                    ostr[row, i] = 1
            obase[row] = marg_off[v]
            scratch[marg_off[v]:marg_off[v] + cards[v]] = 0.0
        src = work if live[x] else prior
        total = project_with(src, cl_off[x], cv, cl_str[a:b], cards, fixed, ostr, obase, scratch, buf)
        if not vis_collect[k] and top_total < 0:
            top_total = total
        for j in range(e1 - e0):
            e = vis_edges[e0 + j]
            d = vis_dst[e0 + j]
            lo, hi = sep_off[e], sep_off[e] + sep_size[e]
            z = 0.0
            for i in range(lo, hi):
                z += scratch[i]
            if not z > 0.0:
                if vis_collect[k]:
                    return 1, logz, top_total
                z = 1.0
            if vis_collect[k]:
                logz += math.log(z)
            old = sep_work if sep_live[e] else sep_prior
            for i in range(lo, hi):
                new = scratch[i] / z
                o = old[i]
                sep_work[i] = new
                scratch[i] = new / o if o > 0.0 else 0.0
            sep_live[e] = 1
            da, db = cl_ptr[d], cl_ptr[d + 1]
            if e_child[e] == d:
                rstr = e_str_child[e_cptr[e]:e_cptr[e] + (db - da)]
            else:
                rstr = e_str_parent[e_pptr[e]:e_pptr[e] + (db - da)]
            dsrc = work if live[d] else prior
            multiply_with(work, dsrc, cl_off[d], cl_vars[da:db], cl_str[da:db], cards, fixed, rstr, lo, scratch,
                          buf)
            live[d] = 1
    return 0, logz, top_total


@njit(cache=True)
def expected_family_counts(patterns, weights, want_counts, initial, work, live, sep_ones, sep_work, sep_live, scratch,
                           cl_ptr, cl_vars, cl_str, cl_off, cards, sep_off, sep_size, e_child, e_cptr, e_str_child,
                           e_pptr, e_str_parent, vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars,
                           vis_collect, marg_off, fam_ptr, fam_vars, fam_clique, fam_optr, fam_ostr, fam_off, counts):
    """The E-step of EM over many evidence patterns: one propagation per pattern.

    For each pattern (a row of observed codes, -1 where blank) of weight
    ``w``, the hard evidence of its observed cells is propagated
    (:func:`propagate_with`, from the CPT products ``initial`` and separators
    of ones): collected over the whole tree (``vis_*`` is a full collect and
    distribute), which gives ``P(e)``, and distributed only towards the
    cliques holding a family with a blank member (the others are never
    read); then
    ``w * P(family | e)`` is added to the expected counts of every family
    with a blank member (Lauritzen 1995, "The EM algorithm for graphical
    association models with missing data", Section 3: the E-step is a
    propagation of each case's evidence, the family marginals read from the
    clique holding the family), and ``w * log P(e)`` to the log-likelihood.
    Families observed whole in a pattern are left to the caller, who counts
    them directly.

    Parameters
    ----------
    patterns : signed integer array (n_patterns, n_vars)
        Observed state of every variable, or -1 when blank.
    weights : float64 array (n_patterns,)
        How many rows (or how much weight) each pattern stands for.
    want_counts : bool
        False computes the log-likelihood alone.
    initial, work, live, sep_ones, sep_work, sep_live, scratch
        Tables, work space and flags as :func:`propagate` takes them
        (``initial`` is not written; the rest are overwritten).
    cl_ptr ... marg_off
        The compiled tree and the schedule, as :func:`propagate` takes them.
    fam_ptr, fam_vars : int64 arrays
        Members (parents and child) of variable ``v``'s family at
        ``fam_vars[fam_ptr[v]:fam_ptr[v + 1]]``.
    fam_clique : int64 array
        The clique holding each family.
    fam_optr, fam_ostr : int64 arrays
        Stride in ``v``'s count table of each variable of its clique (0 when
        not in the family), at ``fam_ostr[fam_optr[v]:...]``.
    fam_off : int64 array (n_vars + 1,)
        Offset of each count table (CPT layout) in ``counts``.
    counts : float64 array
        Added to.

    Returns
    -------
    bad : int
        -1, or the first pattern whose evidence has probability 0 (then the
        results are partial).
    log_likelihood : float
        ``sum_p w_p log P(e_p)``.
    """
    n_vars = patterns.shape[1]
    no_int = np.zeros(0, np.int64)
    no_float = np.zeros(0, np.float64)
    zero_base = np.zeros(1, np.int64)
    largest = 1
    for v in range(n_vars):
        largest = max(largest, fam_off[v + 1] - fam_off[v])
    family = np.zeros(largest)
    buf, obuf = propagation_space(cl_ptr, vis_eptr, vis_mptr)
    n_cl = cl_ptr.shape[0] - 1
    n_visits = vis_clique.shape[0]
    parent = np.full(n_cl, -1, np.int64)
    for k in range(n_visits):
        if vis_collect[k]:
            parent[vis_clique[k]] = vis_dst[vis_eptr[k]]
    needed = np.zeros(n_cl, np.uint8)
    f_clique = np.empty(n_visits, np.int64)
    f_eptr = np.zeros(n_visits + 1, np.int64)
    f_edges = np.empty(vis_edges.shape[0], np.int64)
    f_dst = np.empty(vis_edges.shape[0], np.int64)
    f_collect = np.empty(n_visits, np.uint8)
    total_ll = 0.0
    for p in range(patterns.shape[0]):
        fixed = patterns[p]
        w = weights[p]
        live[:] = 0
        sep_live[:] = 0
        # distribute only towards the cliques holding a family a blank touches (the collect, which gives
        # P(e), goes everywhere)
        needed[:] = 0
        for k in range(n_visits):
            if not vis_collect[k]:
                needed[vis_clique[k]] = 1  # the top of the distribution
                break
        for v in range(n_vars if want_counts else 0):
            for t in range(fam_ptr[v], fam_ptr[v + 1]):
                if fixed[fam_vars[t]] < 0:
                    c = fam_clique[v]
                    while c >= 0 and not needed[c]:
                        needed[c] = 1
                        c = parent[c]
                    break
        nv, ne = 0, 0
        for k in range(n_visits):
            x = vis_clique[k]
            if not vis_collect[k] and not needed[x]:
                continue
            start = ne
            for j in range(vis_eptr[k], vis_eptr[k + 1]):
                if vis_collect[k] or needed[vis_dst[j]]:
                    f_edges[ne] = vis_edges[j]
                    f_dst[ne] = vis_dst[j]
                    ne += 1
            if ne == start and not vis_collect[k] and nv > 0 and not f_collect[nv - 1]:
                continue  # a distribution visit sending nothing (its clique is read afterwards from work)
            f_clique[nv] = x
            f_collect[nv] = vis_collect[k]
            nv += 1
            f_eptr[nv] = ne
        status, logz, top = propagate_with(initial, work, live, cl_ptr, cl_vars, cl_str, cl_off, cards, fixed,
                                           sep_ones, sep_work, sep_live, sep_off, sep_size, e_child, e_cptr,
                                           e_str_child, e_pptr, e_str_parent, no_int, no_int, no_int, no_float,
                                           f_clique[:nv], f_eptr[:nv + 1], f_edges[:ne], f_dst[:ne],
                                           vis_mptr[:nv + 1], vis_mvars, f_collect[:nv], marg_off, scratch, buf,
                                           obuf)
        if status != 0 or not top > 0.0:
            return p, total_ll
        total_ll += w * (logz + math.log(top))
        if not want_counts:
            continue
        for v in range(n_vars):
            blank = False
            for t in range(fam_ptr[v], fam_ptr[v + 1]):
                if fixed[fam_vars[t]] < 0:
                    blank = True
            if not blank:
                continue
            c = fam_clique[v]
            a, b = cl_ptr[c], cl_ptr[c + 1]
            size = fam_off[v + 1] - fam_off[v]
            family[:size] = 0.0
            ostr = fam_ostr[fam_optr[v]:fam_optr[v] + (b - a)].reshape(1, -1)
            src = work if live[c] else initial
            total = project_with(src, cl_off[c], cl_vars[a:b], cl_str[a:b], cards, fixed, ostr, zero_base, family,
                                 buf)
            if not total > 0.0:
                return p, total_ll
            scale = w / total
            base = fam_off[v]
            for i in range(size):
                counts[base + i] += family[i] * scale
    return -1, total_ll


@njit(cache=True, parallel=True)
def expected_family_counts_blocks(blocks, patterns, weights, want_counts, initial, cl_ptr, cl_vars, cl_str, cl_off,
                                  cards, sep_off, sep_size, e_child, e_cptr, e_str_child, e_pptr, e_str_parent,
                                  vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars, vis_collect, marg_off,
                                  fam_ptr, fam_vars, fam_clique, fam_optr, fam_ostr, fam_off, counts):
    """:func:`expected_family_counts` on ``blocks`` consecutive pieces of the patterns at once, one thread
    and one work space (the tree's tables, separators and counts) each.

    The pieces' counts and log-likelihoods are added to ``counts`` and summed
    in piece order, so a result depends on ``blocks`` (in the last bits) but
    not on which thread ran what. Arguments are those of
    :func:`expected_family_counts` without the work spaces.

    Returns
    -------
    bad : int
        -1, or the first pattern (of all) whose evidence has probability 0.
    log_likelihood : float
    """
    n = patterns.shape[0]
    n_cl = cl_ptr.shape[0] - 1
    n_sep = sep_off[n_cl]
    out = np.zeros((blocks, counts.shape[0]))
    lls = np.zeros(blocks)
    bads = np.full(blocks, -1, np.int64)
    for b in prange(blocks):
        lo, hi = n * b // blocks, n * (b + 1) // blocks
        bad, ll = expected_family_counts(
            patterns[lo:hi], weights[lo:hi], want_counts, initial, np.empty_like(initial), np.zeros(n_cl, np.uint8),
            np.ones(n_sep), np.empty(n_sep), np.zeros(n_cl, np.uint8), np.zeros(n_sep + cards.sum()), cl_ptr,
            cl_vars, cl_str, cl_off, cards, sep_off, sep_size, e_child, e_cptr, e_str_child, e_pptr, e_str_parent,
            vis_clique, vis_eptr, vis_edges, vis_dst, vis_mptr, vis_mvars, vis_collect, marg_off, fam_ptr, fam_vars,
            fam_clique, fam_optr, fam_ostr, fam_off, out[b])
        bads[b] = bad + lo if bad >= 0 else -1
        lls[b] = ll
    total = 0.0
    for b in range(blocks):
        if bads[b] >= 0:
            return bads[b], total
        total += lls[b]
        counts += out[b]
    return -1, total

"""The blank cells of a row in independent groups: EM's E-step by enumeration, and sampled completions.

Given the observed cells of a row, its blank cells split into groups that are
independent of each other: the connected components of the moral graph
restricted to the blank variables (two blank variables are joined when one is a
parent of the other or both are parents of one variable; observed cells
separate the rest, Lauritzen 1996, "Graphical Models", Section 3.2.2, as the
junction tree does). The joint of a completion is the product of every family's
CPT entry; the families no blank cell touches are the same for every completion,
and each touched family (a blank variable or a child of one) has its blank
members in one group. So the posterior of a row is the product of its groups'
posteriors, each the normalised product of its touched families' entries, and

- ``P(observed cells) = product of the untouched families' entries times, per
  group, the sum over its completions of its touched families' product``;
- ``E[N(x_F) | observed cells]`` of a touched family is the sum over the
  completions of its group alone.

With a tenth of the cells blank most groups are one variable or two, so
enumerating every group costs a few dozen products per row, where one
junction-tree propagation visits every clique. :func:`group_expected_counts` is
that E-step (exact) for the rows whose groups all have at most
:data:`MAX_GROUP_STATES` joint states; :func:`group_sample_patterns` draws
completions of a row from the same exact group posteriors (structural EM's
completed data, :mod:`bnexplore.em.completions`). Both take the flat network
arrays of :class:`bnexplore.em.completions.NetworkArrays`.
"""

import numpy as np
from numba import prange

from ..compiling import njit

MAX_GROUP_STATES = 4096
"""Most joint states of one group of blank cells that is enumerated. A row with a larger group goes to the
junction tree (the E-step) or to likelihood-weighted samples (the completed data): the sum over its states
then costs about what a propagation through a junction tree of a few dozen variables does."""

STORED_CELLS = 2 ** 22
"""Most completion cells (32 MiB) that :func:`group_layout` stores for a layout, so that each E-step of a fit
and the completed data read a group's cells instead of finding them again (storing them costs about one
E-step; each E-step then takes about half as long). A tenth of the cells blank, alarm or insurance at 10,000
rows: 0.9 and 2 million; groups past the bound have theirs found on each use."""


@njit(cache=True)
def blank_groups(pattern, parent_start, parents, child_start, children):
    """The groups of ``pattern``'s blank cells (-1): ``(n_groups, start, members)``.

    Group ``g`` is ``members[start[g]:start[g + 1]]`` in increasing order; groups are numbered by their
    smallest member. Two blank variables share a group when a path of blank variables joins them in the
    moral graph (parent and child, or two parents of one variable).
    """
    n = pattern.shape[0]
    group = np.full(n, -1, np.int64)
    members = np.empty(n, np.int64)
    start = np.zeros(n + 1, np.int64)
    g = fill_blank_groups(pattern, parent_start, parents, child_start, children, group, members, start,
                          np.empty(n, np.int64))
    return g, start[:g + 1].copy(), members[:start[g]].copy()


@njit(cache=True)
def fill_blank_groups(pattern, parent_start, parents, child_start, children, group, members, start, stack):
    """:func:`blank_groups` written into work arrays (one slot per variable, ``start`` one more): returns
    ``n_groups``, group ``g`` is ``members[start[g]:start[g + 1]]``. ``group`` must be -1 everywhere and is
    left so: the kernels that lay out many patterns allocate nothing per pattern."""
    n = pattern.shape[0]
    placed = 0
    g = 0
    start[0] = 0
    for s in range(n):
        if pattern[s] >= 0 or group[s] >= 0:
            continue
        group[s] = g
        stack[0] = s
        top = 1
        while top > 0:
            top -= 1
            v = stack[top]
            members[placed] = v
            placed += 1
            for t in range(parent_start[v], parent_start[v + 1]):
                u = parents[t]
                if pattern[u] < 0 and group[u] < 0:
                    group[u] = g
                    stack[top] = u
                    top += 1
            for t in range(child_start[v], child_start[v + 1]):
                c = children[t]
                if pattern[c] < 0 and group[c] < 0:
                    group[c] = g
                    stack[top] = c
                    top += 1
                for t2 in range(parent_start[c], parent_start[c + 1]):
                    u = parents[t2]
                    if pattern[u] < 0 and group[u] < 0:
                        group[u] = g
                        stack[top] = u
                        top += 1
        for i in range(start[g] + 1, placed):  # insertion sort: a group is a few variables
            v = members[i]
            j = i - 1
            while j >= start[g] and members[j] > v:
                members[j + 1] = members[j]
                j -= 1
            members[j + 1] = v
        g += 1
        start[g] = placed
    for t in range(placed):
        group[members[t]] = -1
    return g


@njit(cache=True)
def group_touched(members, child_start, children, mark, label, out):
    """The families whose CPT entry changes with the completion of ``members`` (the members and their
    children), written in increasing order into ``out`` (room for the members and their children); returns
    how many. ``mark`` (int64, one per variable) is scratch, set to ``label`` there."""
    for v in members:
        mark[v] = label
        for t in range(child_start[v], child_start[v + 1]):
            mark[children[t]] = label
    count = 0
    for v in range(mark.shape[0]):
        if mark[v] == label:
            out[count] = v
            count += 1
    return count


@njit(cache=True)
def group_states(members, arities, cap):
    """Joint states of ``members``, capped at ``cap + 1``."""
    size = 1
    for v in members:
        size = min(size * arities[v], cap + 1)
    return size


@njit(cache=True)
def enumerable_patterns(patterns, cap, parent_start, parents, child_start, children, arities):
    """Whether every group of each pattern's blank cells has at most ``cap`` joint states."""
    n = patterns.shape[1]
    out = np.ones(patterns.shape[0], np.bool_)
    group, members, start, stack = np.full(n, -1, np.int64), np.empty(n, np.int64), np.empty(n + 1, np.int64), \
        np.empty(n, np.int64)
    for p in range(patterns.shape[0]):
        n_groups = fill_blank_groups(patterns[p], parent_start, parents, child_start, children, group, members, start,
                                     stack)
        for g in range(n_groups):
            if group_states(members[start[g]:start[g + 1]], arities, cap) > cap:
                out[p] = False
                break
    return out


@njit(cache=True)
def family_cell(row, v, arities, parent_start, parents, cpt_start):
    """The flat index of ``row``'s cell of ``v``'s family (the layout of the flat CPT)."""
    config = 0
    for t in range(parent_start[v], parent_start[v + 1]):
        p = parents[t]
        config = config * arities[p] + row[p]
    return cpt_start[v] + config * arities[v] + row[v]


@njit(cache=True)
def group_cells(row, members, touched, arities, parent_start, parents, cpt_start, base, stride):
    """Where the group's completions fall in its touched families' tables: ``base[t]`` is the flat cell of
    family ``touched[t]`` with every member at state 0, and ``stride[t * m + i]`` (``m`` members) how far one
    state of member ``i`` moves it (0 when the member is not in that family), so a completion's cell is
    ``base[t] + sum_i state_i * stride[t * m + i]``: one multiply-add per member where
    :func:`family_cell` walks the family's parents for every completion. ``row`` gets 0 at the members."""
    m = members.shape[0]
    for i in range(m):
        row[members[i]] = 0
    for t in range(touched.shape[0]):
        f = touched[t]
        base[t] = family_cell(row, f, arities, parent_start, parents, cpt_start)
        for i in range(m):
            stride[t * m + i] = 1 if members[i] == f else 0
        step = arities[f]  # a parent's stride: the child's arity times the arities of the parents after it
        for q in range(parent_start[f + 1] - 1, parent_start[f] - 1, -1):
            u = parents[q]
            for i in range(m):
                if members[i] == u:
                    stride[t * m + i] = step
            step *= arities[u]


@njit(cache=True)
def completion_weights(members, width, arities, base, stride, cpt, size, weights, cells):
    """``weights[j]``: the product of the touched families' entries at the group's ``j``-th completion (mixed
    radix over the members, last fastest), its cells in ``cells[j * width:(j + 1) * width]``; returns the sum
    of the weights. ``base`` and ``stride`` are :func:`group_cells`'."""
    completion_cells(members, width, arities, base, stride, size, cells, 0)
    return cell_weights(cells, 0, width, size, cpt, weights)


@njit(cache=True)
def completion_cells(members, width, arities, base, stride, size, cells, at):
    """The touched families' cells of the group's ``j``-th completion (mixed radix over the members, last
    fastest) in ``cells[at + j * width:at + (j + 1) * width]``, for ``j < size`` (at most the members' joint
    states); ``base`` and ``stride`` are :func:`group_cells`'. Each completion's cells are an earlier one's plus
    one member's strides (an odometer: no division per member and completion)."""
    m = members.shape[0]
    for t in range(width):
        cells[at + t] = base[t]
    fastest = arities[members[m - 1]] if m else 1
    state = 0  # the last member's state in completion j
    for j in range(1, size):
        # completion j is completion j - period with member i one state higher: i the last member whose state
        # in j is not 0, period the product of the arities after it
        state += 1
        i, period = m - 1, 1
        if state == fastest:
            state = 0
            i, period = m - 2, fastest
            while j % (period * arities[members[i]]) == 0:
                period *= arities[members[i]]
                i -= 1
        here = at + j * width
        there = here - period * width
        for t in range(width):
            cells[here + t] = cells[there + t] + stride[t * m + i]


@njit(cache=True)
def cell_weights(cells, at, width, size, cpt, weights):
    """``weights[j]``: the product of ``cpt`` at ``cells[at + j * width:at + (j + 1) * width]`` (in that
    order), for ``j < size``; returns their sum."""
    total = 0.0
    for j in range(size):
        weight = 1.0
        for t in range(at + j * width, at + (j + 1) * width):
            weight *= cpt[cells[t]]
        weights[j] = weight
        total += weight
    return total


@njit(cache=True)
def set_group_state(row, members, j, arities):
    """Write the group's ``j``-th completion into ``row`` (mixed radix, last member fastest)."""
    rest = j
    for t in range(members.shape[0] - 1, -1, -1):
        b = members[t]
        row[b] = rest % arities[b]
        rest //= arities[b]


@njit(cache=True)
def group_layout(patterns, weights, cap, arities, parent_start, parents, child_start, children, cpt_start,
                 n_cells, store):
    """The groups of every pattern, laid out once for :func:`group_expected_counts` and
    :func:`group_sample_patterns` (they do not depend on the tables), the touched families' cells of each
    group's completions (up to ``store`` cells in all), and the weighted count of every family cell no blank
    cell touches.

    Every group of every pattern must have at most ``cap`` joint states (:func:`enumerable_patterns`).

    Returns
    -------
    group_ptr : int64 (n_patterns + 1,)
        Pattern ``p``'s groups are ``group_ptr[p]:group_ptr[p + 1]``.
    member_ptr, members : int64
        Group ``g``'s blank variables are ``members[member_ptr[g]:member_ptr[g + 1]]``.
    touched_ptr, touched : int64
        The families its completion changes, likewise.
    cell_ptr, cells : int64
        Group ``g``'s completions' cells (:func:`completion_cells`) are ``cells[cell_ptr[g]:cell_ptr[g + 1]]``,
        stored for the groups in order while they fit in ``store`` cells in all; a group stored with none has
        them computed on each use. They depend on the observed cells alone, and an E-step runs several times
        per layout.
    untouched : float64 (n_cells,)
        ``sum_p weights[p]`` over the patterns whose family cell (flat CPT layout) it is, for the families no
        blank cell of the pattern touches.
    """
    n_patterns, n = patterns.shape
    n_blank = 0
    bound = 0
    for p in range(n_patterns):
        for v in range(n):
            if patterns[p, v] < 0:
                n_blank += 1
                bound += 1 + child_start[v + 1] - child_start[v]
    group_ptr = np.zeros(n_patterns + 1, np.int64)
    member_ptr = np.zeros(n_blank + 1, np.int64)
    members = np.empty(n_blank, np.int64)
    touched_ptr = np.zeros(n_blank + 1, np.int64)
    touched = np.empty(bound, np.int64)
    untouched = np.zeros(n_cells)
    mark = np.full(n, -1, np.int64)
    hit = np.zeros(n, np.bool_)
    in_group, group_members, start, stack = np.full(n, -1, np.int64), np.empty(n, np.int64), \
        np.empty(n + 1, np.int64), np.empty(n, np.int64)
    g_all = 0
    t_all = 0
    for p in range(n_patterns):
        row = patterns[p]
        n_groups = fill_blank_groups(row, parent_start, parents, child_start, children, in_group, group_members, start,
                                     stack)
        hit[:] = False
        for g in range(n_groups):
            group = group_members[start[g]:start[g + 1]]
            members[member_ptr[g_all]:member_ptr[g_all] + group.shape[0]] = group
            member_ptr[g_all + 1] = member_ptr[g_all] + group.shape[0]
            count = group_touched(group, child_start, children, mark, g_all, touched[t_all:])
            for f in touched[t_all:t_all + count]:
                hit[f] = True
            t_all += count
            touched_ptr[g_all + 1] = t_all
            g_all += 1
        group_ptr[p + 1] = g_all
        for v in range(n):
            if not hit[v]:
                untouched[family_cell(row, v, arities, parent_start, parents, cpt_start)] += weights[p]
    member_ptr, touched_ptr = member_ptr[:g_all + 1].copy(), touched_ptr[:g_all + 1].copy()
    touched = touched[:t_all].copy()
    cell_ptr, cells = stored_cells(patterns, cap, group_ptr, member_ptr, members, touched_ptr, touched, arities,
                                   parent_start, parents, cpt_start, store)
    return group_ptr, member_ptr, members, touched_ptr, touched, cell_ptr, cells, untouched


@njit(cache=True)
def stored_cells(patterns, cap, group_ptr, member_ptr, members, touched_ptr, touched, arities, parent_start, parents,
                 cpt_start, store):
    """:func:`group_layout`'s ``cell_ptr`` and ``cells``: each group's completions' cells, for the groups in
    order while their total stays within ``store``."""
    n_groups = member_ptr.shape[0] - 1
    n = patterns.shape[1]
    cell_ptr = np.zeros(n_groups + 1, np.int64)
    widest = 1
    for g in range(n_groups):
        width = touched_ptr[g + 1] - touched_ptr[g]
        widest = max(widest, width)
        need = group_states(members[member_ptr[g]:member_ptr[g + 1]], arities, cap) * width
        cell_ptr[g + 1] = cell_ptr[g] + (need if cell_ptr[g] + need <= store else 0)
    cells = np.empty(cell_ptr[n_groups], np.int64)
    row = np.empty(n, np.int64)
    base = np.empty(widest, np.int64)
    stride = np.empty(widest * n, np.int64)
    for p in range(patterns.shape[0]):
        for v in range(n):
            row[v] = patterns[p, v]
        for g in range(group_ptr[p], group_ptr[p + 1]):
            if cell_ptr[g + 1] == cell_ptr[g]:
                continue
            group = members[member_ptr[g]:member_ptr[g + 1]]
            families = touched[touched_ptr[g]:touched_ptr[g + 1]]
            group_cells(row, group, families, arities, parent_start, parents, cpt_start, base, stride)
            completion_cells(group, families.shape[0], arities, base, stride, group_states(group, arities, cap), cells,
                             cell_ptr[g])
    return cell_ptr, cells


@njit(cache=True)
def completions_at(row, group, families, lo, hi, stored, cells, arities, parent_start, parents, cpt_start, base,
                   stride, size):
    """Where a group's completions' cells are: ``(stored, lo)`` when :func:`group_layout` stored them
    (``hi > lo``), else ``(cells, 0)`` after writing them there from ``row`` (the pattern's codes; 0 is
    written at the members)."""
    if hi > lo:
        return stored, lo
    group_cells(row, group, families, arities, parent_start, parents, cpt_start, base, stride)
    completion_cells(group, families.shape[0], arities, base, stride, size, cells, 0)
    return cells, 0


@njit(cache=True, parallel=True)
def group_expected_counts(blocks, patterns, weights, cap, group_ptr, member_ptr, members, touched_ptr, touched,
                          cell_ptr, stored, arities, parent_start, parents, cpt_start, cpt, counts):
    """The E-step of enumerable patterns: expected counts of the touched families and each group's share of
    the log-likelihood.

    Adds ``weights[p] * P(family cell | pattern p's observed cells)`` to
    ``counts`` (the flat CPT layout, ``cpt_start``) for every family a blank
    cell of pattern ``p`` touches, summing each group's completions apart (the
    groups are independent given the observed cells); the groups are
    :func:`group_layout`'s, with the completions' cells it ``stored`` (the
    others found here). The patterns are cut into ``blocks`` pieces run in
    parallel, each with its own counts.

    Returns
    -------
    (float, int)
        ``sum_p weights[p] sum_groups log Z_g`` (``Z_g`` the sum over the
        group's completions of its touched families' product: with the
        untouched families' entries, ``log P(observed cells)``), and the first
        pattern with a group of probability 0 (-1 if none; the log-likelihood
        is then not meaningful).
    """
    n_patterns, n = patterns.shape
    widest = 1
    for g in range(touched_ptr.shape[0] - 1):
        widest = max(widest, touched_ptr[g + 1] - touched_ptr[g])
    block_counts = np.zeros((blocks, counts.shape[0]))
    block_ll = np.zeros(blocks)
    block_bad = np.full(blocks, -1, np.int64)
    for b in prange(blocks):
        lo = b * n_patterns // blocks
        hi = (b + 1) * n_patterns // blocks
        buffer = np.empty(cap)
        cells = np.empty(cap * widest, np.int64)  # the touched families' cells of each completion
        base = np.empty(widest, np.int64)
        stride = np.empty(widest * n, np.int64)
        row = np.empty(n, np.int64)
        for p in range(lo, hi):
            for v in range(n):
                row[v] = patterns[p, v]
            w = weights[p]
            log_p = 0.0
            for g in range(group_ptr[p], group_ptr[p + 1]):
                group = members[member_ptr[g]:member_ptr[g + 1]]
                families = touched[touched_ptr[g]:touched_ptr[g + 1]]
                width = families.shape[0]
                size = group_states(group, arities, cap)
                found, at = completions_at(row, group, families, cell_ptr[g], cell_ptr[g + 1], stored, cells, arities,
                                           parent_start, parents, cpt_start, base, stride, size)
                total = cell_weights(found, at, width, size, cpt, buffer)
                if total <= 0:
                    if block_bad[b] < 0:
                        block_bad[b] = p
                    total = 1.0
                log_p += np.log(total)
                for j in range(size):
                    if buffer[j] > 0:
                        share = w * buffer[j] / total
                        for t in range(at + j * width, at + (j + 1) * width):
                            block_counts[b, found[t]] += share
            block_ll[b] += w * log_p
    bad = -1
    for b in range(blocks):
        counts += block_counts[b]
        if bad < 0 and block_bad[b] >= 0:
            bad = block_bad[b]
    return block_ll.sum(), bad


@njit(cache=True, parallel=True)
def group_sample_patterns(blocks, patterns, counts, pick, group_ptr, member_ptr, members, touched_ptr, touched,
                          cell_ptr, stored, out_start, uniform_start, uniforms, k, cap, arities, parent_start,
                          parents, cpt_start, cpt, out_codes, out_weights):
    """``k`` completions of each picked pattern drawn from its exact posterior, one group at a time (stratified).

    The ``i``-th picked pattern, ``p = pick[i]``, fills the ``k`` rows from
    ``out_start[i]``, each weighted ``counts[p] / k``. Each group of its blank
    cells (as :func:`group_layout` laid them out for ``patterns``, with the
    completions' cells it ``stored``, at most ``cap`` joint states each) draws its ``k`` states by systematic sampling
    from its posterior (the ``j``-th draw at the quantile ``(j + u) / k`` for
    one uniform ``u``: each state is drawn its posterior share of the ``k``
    times, to within one), and those draws are dealt to the ``k`` rows in a
    random order (a Fisher-Yates shuffle), so the groups are drawn
    independently as they are in the posterior. Group ``g`` of the pattern
    reads ``k`` uniforms from ``uniforms[uniform_start[i] + g * k]`` on. A
    group whose observed cells have probability 0 is drawn uniformly. The
    picked patterns are cut into ``blocks`` pieces run in parallel, each with
    its own work arrays.
    """
    n_picked = pick.shape[0]
    n = patterns.shape[1]
    widest = 1
    for i in range(n_picked):
        for g in range(group_ptr[pick[i]], group_ptr[pick[i] + 1]):
            widest = max(widest, touched_ptr[g + 1] - touched_ptr[g])
    for b in prange(blocks):
        buffer = np.empty(cap)
        cells = np.empty(cap * widest, np.int64)
        base = np.empty(widest, np.int64)
        stride = np.empty(widest * n, np.int64)
        deal = np.empty(k, np.int64)
        row = np.empty(n, np.int64)
        for i in range(b * n_picked // blocks, (b + 1) * n_picked // blocks):
            p = pick[i]
            start = out_start[i]
            for v in range(n):
                row[v] = patterns[p, v]
            for j in range(k):
                for v in range(n):
                    out_codes[start + j, v] = row[v]
                out_weights[start + j] = counts[p] / k
            for g in range(group_ptr[p + 1] - group_ptr[p]):
                h = group_ptr[p] + g
                group = members[member_ptr[h]:member_ptr[h + 1]]
                families = touched[touched_ptr[h]:touched_ptr[h + 1]]
                size = group_states(group, arities, cap)
                found, at = completions_at(row, group, families, cell_ptr[h], cell_ptr[h + 1], stored, cells, arities,
                                           parent_start, parents, cpt_start, base, stride, size)
                total = cell_weights(found, at, families.shape[0], size, cpt, buffer)
                if total <= 0:
                    buffer[:size] = 1.0
                    total = float(size)
                at = uniform_start[i] + g * k
                state = 0
                cumulative = buffer[0] / total
                for j in range(k):
                    quantile = (j + uniforms[at]) / k
                    while cumulative <= quantile and state < size - 1:
                        state += 1
                        cumulative += buffer[state] / total
                    chosen = state
                    while buffer[chosen] <= 0 and chosen > 0:  # rounding past the last state of positive weight
                        chosen -= 1
                    deal[j] = chosen
                for j in range(k - 1, 0, -1):
                    s = int(uniforms[at + j] * (j + 1))
                    deal[s], deal[j] = deal[j], deal[s]
                for j in range(k):
                    set_group_state(row, group, deal[j], arities)
                    for v in group:
                        out_codes[start + j, v] = row[v]

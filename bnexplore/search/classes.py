"""Markov equivalence classes of DAGs given as parent bitmasks (numba kernels).

Two DAGs are Markov equivalent when they have the same skeleton and the same
v-structures (Verma & Pearl 1990), and exactly when covered-arc reversals
turn one into the other (Chickering 1995). Here: keys equal exactly within a
class (:func:`class_keys`, also for the finer RPDAG classes of Acid & de
Campos 2003) and the grouping of many DAGs by them (:func:`group_classes`),
used by the credible set; every member of a class (:func:`equivalence_class`),
its member without covered arcs from a higher to a lower index
(:func:`canonical_member`) and the candidate families of members
(:func:`member_families`), used by the ILP enumeration. Each row is one DAG:
entry ``v`` is the bitmask of ``v``'s parents.
"""

import numpy as np

from ..compiling import njit


@njit(cache=True)
def class_keys(parent_masks, rpdag):
    """Keys that are equal exactly for DAGs of the same class.

    Row t is ``[neighbours of each node..., per node w: V(w)]`` for DAG t,
    where the neighbour masks give the skeleton and ``V(w)`` is, for Markov
    equivalence, the parents of ``w`` that form a v-structure at ``w`` (a
    parent not adjacent to another parent of ``w``). The v-structures at
    ``w`` are exactly the non-adjacent pairs inside ``V(w)``, so the key and
    the pair (skeleton, v-structures) determine each other. For RPDAG classes
    (``rpdag=True``) ``V(w)`` is every parent of ``w`` when ``w`` has at least
    two, which likewise matches the head-to-head patterns one to one.
    """
    k, n = parent_masks.shape
    keys = np.zeros((k, 2 * n), np.int64)
    for t in range(k):
        for w in range(n):
            pa = parent_masks[t, w]
            keys[t, w] |= pa
            for u in range(n):
                if (pa >> u) & 1:
                    keys[t, u] |= np.int64(1) << w
        for w in range(n):
            pa = parent_masks[t, w]
            if rpdag:
                if pa & (pa - 1):
                    keys[t, n + w] = pa
                continue
            marked = np.int64(0)
            for a in range(n):
                if (pa >> a) & 1 and pa & ~keys[t, a] & ~(np.int64(1) << a):
                    marked |= np.int64(1) << a
            keys[t, n + w] = marked
    return keys


def group_classes(parent_masks, rpdag):
    """Class of every DAG (ids in order of first appearance) and each class's members."""
    if len(parent_masks) == 0:
        return np.zeros(0, np.int64), []
    keys = class_keys(parent_masks, rpdag)
    rows = keys.view(np.dtype((np.void, keys.shape[1] * keys.itemsize))).reshape(-1)
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    rank = np.empty(len(first), np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    ids = rank[inverse.reshape(-1)]
    order = np.argsort(ids, kind="stable")
    bounds = np.searchsorted(ids[order], np.arange(len(first) + 1))
    return ids, [order[bounds[c]:bounds[c + 1]] for c in range(len(first))]


@njit(cache=True)
def canonical_member(parents):
    """The member of a DAG's Markov equivalence class with no covered arc ``u -> v`` for ``u > v``.

    An arc ``u -> v`` is covered when ``pa(v) = pa(u) + {u}``; reversing it
    gives a Markov equivalent DAG (Chickering 1995, Lemma 1) with the same
    in-degrees (``pa'(u) = pa(u) + {v}``, ``pa'(v) = pa(u)``). Reversing the
    covered arcs that point from a higher to a lower index raises
    ``sum over arcs of (head - tail)``, so the walk ends, at a DAG the
    constraints ``x[v, K] + x[u, K - u] <= 1`` (``u`` in ``K``, ``u > v``) allow:
    every equivalence class keeps at least one member under them. Works on a
    copy of ``parents``.
    """
    out = parents.copy()
    n = out.shape[0]
    changed = True
    while changed:
        changed = False
        for v in range(n):
            for u in range(v + 1, n):
                if (out[v] >> u) & 1 and out[v] == out[u] | (np.int64(1) << u):
                    out[v] = out[u]
                    out[u] = out[u] | (np.int64(1) << v)
                    changed = True
    return out


@njit(cache=True)
def _mix(position, value):
    """A 64-bit hash of one entry of a row (splitmix64); a row's hash is the XOR over its entries."""
    h = np.uint64(value) + np.uint64(position + 1) * np.uint64(0x9E3779B97F4A7C15)
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


@njit(cache=True)
def _is_reversal(members, j, head, v, new_v, u, new_u):
    """True when ``members[j]`` is ``members[head]`` with entries ``v`` and ``u`` replaced."""
    for i in range(members.shape[1]):
        expected = new_v if i == v else (new_u if i == u else members[head, i])
        if members[j, i] != expected:
            return False
    return True


@njit(cache=True)
def equivalence_class(parents):
    """Parent bitmasks of every DAG Markov equivalent to ``parents`` (rows; ``parents`` first).

    A breadth-first search over covered-arc reversals (Chickering 1995,
    Theorem 2: two DAGs are Markov equivalent exactly when such reversals turn
    one into the other; an arc ``u -> v`` is covered when ``pa(v) = pa(u) +
    {u}``), with an open-addressing hash table of the members met. A
    reversal changes two entries of a row, so its hash (an XOR over the
    entries) is updated in constant time.
    """
    n = parents.shape[0]
    members = np.empty((64, n), np.int64)
    hashes = np.empty(64, np.uint64)
    table = np.full(256, -1, np.int64)
    h = np.uint64(0)
    for i in range(n):
        h ^= _mix(i, parents[i])
    members[0] = parents
    hashes[0] = h
    table[h & np.uint64(len(table) - 1)] = 0
    count = 1
    head = 0
    while head < count:
        for v in range(n):
            for u in range(n):
                pv, pu = members[head, v], members[head, u]
                if not ((pv >> u) & 1 and pv == pu | (np.int64(1) << u)):
                    continue
                new_v, new_u = pu, pu | (np.int64(1) << v)
                h = hashes[head] ^ _mix(v, pv) ^ _mix(v, new_v) ^ _mix(u, pu) ^ _mix(u, new_u)
                mask = np.uint64(len(table) - 1)
                slot = h & mask
                found = False
                while table[slot] >= 0:
                    j = table[slot]
                    if hashes[j] == h and _is_reversal(members, j, head, v, new_v, u, new_u):
                        found = True
                        break
                    slot = (slot + np.uint64(1)) & mask
                if found:
                    continue
                if count == len(members):  # grow, and rebuild the table at a quarter load
                    grown = np.empty((2 * count, n), np.int64)
                    grown[:count] = members
                    members = grown
                    grown_hashes = np.empty(2 * count, np.uint64)
                    grown_hashes[:count] = hashes
                    hashes = grown_hashes
                    table = np.full(8 * count, -1, np.int64)
                    mask = np.uint64(len(table) - 1)
                    for i in range(count):
                        s = hashes[i] & mask
                        while table[s] >= 0:
                            s = (s + np.uint64(1)) & mask
                        table[s] = i
                    slot = h & mask
                    while table[slot] >= 0:
                        slot = (slot + np.uint64(1)) & mask
                members[count] = members[head]
                members[count, v] = new_v
                members[count, u] = new_u
                hashes[count] = h
                table[slot] = count
                count += 1
        head += 1
    return members[:count]


@njit(cache=True)
def member_families(members, sorted_masks, sorted_index, offsets):
    """Family index of every node of every DAG in ``members`` (rows of parent bitmasks), -1 where none.

    ``sorted_masks[offsets[v]:offsets[v + 1]]`` holds node ``v``'s candidate
    parent sets in ascending order and ``sorted_index`` their family indices
    (:func:`bnexplore.search.ilp.families.sorted_families`): a binary search per
    node and member finds whether each member's parent sets are candidates,
    which decides the members of an equivalence class an enumeration records.
    """
    k, n = members.shape
    out = np.empty((k, n), np.int64)
    for v in range(n):
        lo, hi = offsets[v], offsets[v + 1]
        row = sorted_masks[lo:hi]
        for i in range(k):
            j = lo + np.searchsorted(row, members[i, v])
            out[i, v] = sorted_index[j] if j < hi and sorted_masks[j] == members[i, v] else -1
    return out

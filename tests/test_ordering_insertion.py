"""The ordering climb's insertion pass (issue 34): :func:`best_insertion` finds the best of all
``n (n - 1)`` insertion moves without an ``n x n`` table, and gives exactly the move the dense
table's ``argmax`` gives (``naive.insertion_gains``: the same gain, and among equal gains the
smallest ``v``, then the smallest ``j``), on random candidate tables and orderings: ties, equal
scores, required parents (minus infinity), and 1 to 60 nodes. :func:`apply_insertion` makes a
move on the span it crosses and leaves the state a recomputation from scratch gives."""

import numpy as np
import pytest

import naive
from bnexplore.control import Control
from bnexplore.parents import ParentSets
from bnexplore.search.ordering import Candidates, Climb
from bnexplore.search.ordering_kernels import (apply_insertion, best_insertion, insertion_neighbours, obs_parents,
                                               swap_deltas)
from test_knowledge_searches import forced_candidates


def candidate_table(rng, n, max_sets, max_size, levels):
    """Random candidates (the empty set always there); with ``levels`` the scores are small whole
    numbers, so many sets, and many moves, tie exactly."""
    lists = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        sets = {()}
        for _ in range(int(rng.integers(0, max_sets + 1)) if others else 0):
            size = int(rng.integers(1, min(max_size, len(others)) + 1))
            sets.add(tuple(sorted(rng.choice(others, size, replace=False).tolist())))
        lists.append([(c, float(rng.integers(-levels, 1)) if levels else float(rng.normal(-len(c), 2.0)))
                      for c in sets])
    return ParentSets([f"V{v}" for v in range(n)], lists, "bic")


def dense_answer(cands, order, pos, chosen):
    """``(v, j, gain)`` of the first maximum of the dense table, read row by row (np.argmax)."""
    gains = naive.insertion_gains(cands.parents, cands.sizes, cands.scores, cands.offsets, order, pos, chosen)
    v, j = divmod(int(np.argmax(gains)), len(order))
    return v, j, gains[v, j]


def fast_answer(cands, order, pos, chosen):
    v, j, gain = best_insertion(cands.parents, cands.sizes, cands.scores, cands.offsets, order, pos, chosen)
    return int(v), int(j), gain


def check(cands, order):
    chosen, pos = cands.obs(order)
    assert fast_answer(cands, order, pos, chosen) == dense_answer(cands, order, pos, chosen)


@pytest.mark.parametrize("levels", [0, 1, 3])
def test_best_insertion_is_the_argmax_of_the_dense_table(levels):
    rng = np.random.default_rng(34 + levels)
    for trial in range(300):
        n = int(rng.integers(1, 12))
        cands = Candidates(candidate_table(rng, n, int(rng.integers(0, 8)), int(rng.integers(1, 4)), levels))
        for _ in range(3):
            check(cands, rng.permutation(n).astype(np.int64))


def test_best_insertion_on_larger_tables():
    rng = np.random.default_rng(7)
    for n, levels in [(30, 0), (30, 2), (60, 0), (60, 4)]:
        cands = Candidates(candidate_table(rng, n, 12, 3, levels))
        for _ in range(4):
            check(cands, rng.permutation(n).astype(np.int64))


def test_best_insertion_with_required_parents_giving_minus_infinity():
    rng = np.random.default_rng(11)
    infinite = 0
    for _ in range(150):
        n = int(rng.integers(1, 8))
        sets, _ = forced_candidates(rng, n)
        cands = Candidates(sets)
        order = cands.respecting(rng.permutation(n))
        check(cands, order)
        chosen, pos = cands.obs(order)
        gains = naive.insertion_gains(cands.parents, cands.sizes, cands.scores, cands.offsets, order, pos, chosen)
        infinite += int(np.isneginf(gains).any())
    assert infinite > 20  # the cases did have moves that break a required parent


def test_the_smallest_tables_and_a_table_of_ties():
    # one node: only the no-move
    one = Candidates(ParentSets(["a"], [[((), -1.0)]], "bic"))
    check(one, np.array([0], np.int64))
    assert fast_answer(one, np.array([0]), *one.obs(np.array([0]))[::-1]) == (0, 0, 0.0)
    # every set scores the same: every move gains 0, the first one is (0, 0)
    flat = Candidates(ParentSets(["a", "b", "c"], [[((), -1.0), ((1,), -1.0)], [((), -1.0), ((0, 2), -1.0)],
                                                     [((), -1.0)]], "bic"))
    for order in ([2, 1, 0], [1, 2, 0], [0, 1, 2]):
        order = np.array(order, np.int64)
        check(flat, order)
        chosen, pos = flat.obs(order)
        assert fast_answer(flat, order, pos, chosen) == (0, 0, 0.0)
    # b is better with a before it: moving a first gains 2, as does moving b after a; a comes first
    two = Candidates(ParentSets(["a", "b"], [[((), -3.0)], [((0,), -1.0), ((), -3.0)]], "bic"))
    order = np.array([1, 0], np.int64)
    chosen, pos = two.obs(order)
    assert fast_answer(two, order, pos, chosen) == (0, 0, 2.0)
    check(two, order)


def test_the_neighbour_lists_are_sparse_and_in_increasing_position():
    """``enter``: at most one entry per (node, candidate better than its choice), each before the moved
    node; ``leave``: one per parent of a chosen set, each after it; a node's entries in increasing position."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        n = int(rng.integers(2, 15))
        cands = Candidates(candidate_table(rng, n, 8, 3, 0))
        order = rng.permutation(n).astype(np.int64)
        chosen, pos = cands.obs(order)
        e_start, e_pos, _, l_start, l_pos, _ = insertion_neighbours(
            cands.parents, cands.sizes, cands.scores, cands.offsets, order, pos, chosen)
        assert e_start[-1] <= int((chosen - cands.offsets[:-1]).sum())
        assert l_start[-1] == int(cands.sizes[chosen].sum())
        for v in range(n):
            assert np.all(np.diff(e_pos[e_start[v]:e_start[v + 1]]) > 0)
            assert np.all(np.diff(l_pos[l_start[v]:l_start[v + 1]]) > 0)
            assert np.all(e_pos[e_start[v]:e_start[v + 1]] < pos[v])
            assert np.all(l_pos[l_start[v]:l_start[v + 1]] > pos[v])


def climbs_with(monkeypatch, name, kernels, cands, start):
    """One climb from ``start`` with each of ``kernels`` in place of ``ordering.<name>``: per climb its
    ordering, choice and counters."""
    runs = []
    for kernel in kernels:
        monkeypatch.setattr(f"bnexplore.search.ordering.{name}", kernel)
        climb = Climb(cands, start)
        counters = {"swaps": 0, "insertions": 0}
        climb.run(Control(), counters)
        runs.append((climb.order.tolist(), climb.chosen.tolist(), counters))
    return runs


def test_the_climb_makes_the_moves_the_dense_table_made(monkeypatch):
    """Climb.run with best_insertion and with the old pass (the dense table's argmax) swapped in:
    the same orderings, move by move, so the same climbs and counts."""
    rng = np.random.default_rng(9)

    def dense(parents, sizes, scores, offsets, order, pos, chosen):
        gains = naive.insertion_gains(parents, sizes, scores, offsets, order, pos, chosen)
        v, j = divmod(int(np.argmax(gains)), len(order))
        return v, j, gains[v, j]

    for _ in range(30):
        n = int(rng.integers(2, 14))
        cands = Candidates(candidate_table(rng, n, 8, 3, int(rng.integers(0, 3))))
        start = rng.permutation(n).astype(np.int64)
        ours, old = climbs_with(monkeypatch, "best_insertion", (best_insertion, dense), cands, start)
        assert ours == old



def test_apply_insertion_leaves_the_state_of_a_recomputation():
    """Every move (v, j) on random tables and orderings, required parents included: the ordering,
    positions, OBS choice and swap gains bit for bit those of obs_parents + swap_deltas on the moved
    ordering, and the ordering, choice and gains those of the naive twin (from scratch)."""
    rng = np.random.default_rng(21)
    compared = 0
    for trial in range(120):
        n = int(rng.integers(1, 10))
        if trial % 3 == 0:
            sets, _ = forced_candidates(rng, n)
        else:
            sets = candidate_table(rng, n, int(rng.integers(0, 8)), 3, int(rng.integers(0, 3)))
        cands = Candidates(sets)
        lists = [list(zip(sets.sets(u), sets.scores(u).tolist())) for u in range(n)]
        order = cands.respecting(rng.permutation(n)).astype(np.int64)
        for v in range(n):
            for j in range(n):
                climb = Climb(cands, order)
                apply_insertion(cands.parents, cands.sizes, cands.scores, cands.offsets, climb.order, climb.pos,
                                climb.chosen, climb.deltas, v, j)
                fresh = Climb(cands, climb.order.copy())
                assert np.array_equal(climb.pos, fresh.pos) and np.array_equal(climb.chosen, fresh.chosen)
                assert np.array_equal(climb.deltas, fresh.deltas)
                want_order, want_choice, want_gains = naive.apply_insertion(lists, order.tolist(), v, j)
                assert climb.order.tolist() == want_order
                assert [None if t < 0 else row for t, row in zip(climb.chosen, rows(cands, climb.chosen))] \
                    == want_choice
                if None not in want_choice:  # else the naive gains are inf - inf
                    assert climb.deltas.tolist() == pytest.approx(want_gains, abs=1e-9)
                    compared += 1
    assert compared > 1000


def rows(cands, chosen):
    return [(tuple(cands.parents[t, :cands.sizes[t]].tolist()), float(cands.scores[t])) for t in chosen]


def test_a_climb_makes_the_moves_it_made_rebuilding_its_state_after_each_insertion(monkeypatch):
    """On 300 nodes: the climb with apply_insertion and with the previous way (the whole OBS choice and
    every swap gain rebuilt after each insertion) swapped in make the same moves and end alike."""
    def rebuild(parents, sizes, scores, offsets, order, pos, chosen, deltas, v, j):
        moved = [u for u in order.tolist() if u != v]
        moved.insert(j, v)
        order[:] = moved
        chosen[:], pos[:] = obs_parents(parents, sizes, offsets, order)
        deltas[:] = swap_deltas(parents, sizes, scores, offsets, order, pos, chosen)

    rng = np.random.default_rng(4)
    cands = Candidates(candidate_table(rng, 300, 10, 3, 0))
    start = rng.permutation(300).astype(np.int64)
    ours, old = climbs_with(monkeypatch, "apply_insertion", (apply_insertion, rebuild), cands, start)
    assert ours == old
    assert ours[2]["insertions"] > 20

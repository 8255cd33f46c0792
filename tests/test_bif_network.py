"""bnexplore.bif.network: the parent-list topological order and cycle finder against brute force."""

import itertools

import numpy as np
import pytest

from bnexplore.bif.network import parent_order


def has_cycle(parents):
    """Brute force: some variable reaches itself by following parents."""
    n = len(parents)
    for start in range(n):
        frontier, seen = list(parents[start]), set()
        while frontier:
            v = frontier.pop()
            if v == start:
                return True
            if v not in seen:
                seen.add(v)
                frontier.extend(parents[v])
    return False


@pytest.mark.parametrize("seed", range(40))
def test_parent_order_is_an_order_or_names_a_real_cycle(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    density = rng.uniform(0.05, 0.4)
    parents = [[p for p in range(n) if p != v and rng.random() < density] for v in range(n)]
    order, cycle = parent_order(parents)
    if not has_cycle(parents):
        assert cycle == [] and sorted(order) == list(range(n))
        position = {v: i for i, v in enumerate(order)}
        assert all(position[p] < position[v] for v in range(n) for p in parents[v])
    else:
        assert cycle and len(set(cycle)) == len(cycle) and len(order) < n
        for a, b in itertools.pairwise(cycle + cycle[:1]):
            assert a in parents[b], (parents, cycle)  # every step a -> b is an arc: a is a parent of b


def test_two_variables_each_the_others_parent_are_a_cycle():
    assert parent_order([[1], [0]]) == ([], [1, 0])


def test_a_cycle_through_many_variables_is_found_by_one_walk():
    n = 200_000  # a BIF file within the text bound can declare this many; the walk keeps positions in a dict
    parents = [[(v - 1) % n] for v in range(n)]
    order, cycle = parent_order(parents)
    assert order == [] and cycle == list(range(1, n)) + [0]  # 1 -> 2 -> ... -> n-1 -> 0 -> 1

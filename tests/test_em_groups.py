"""The blank cells of a row in independent groups (bnexplore.em.groups): each kernel against its twin (which
sums the full joint over every completion), the E-step by groups against the junction tree's, and the
completed data drawn group by group."""

import numpy as np
import pytest

import naive
from bnexplore.em import completions as em_completions
from bnexplore.em import groups
from bnexplore.em.completions import completed_data, network_arrays, row_patterns
from bnexplore.em.expected import EStep
from test_em_completions import blanked
from test_inference import random_network


def case(seed, fraction=0.35, zeros=0.1):
    """A random network (4-8 variables) and its distinct incomplete rows."""
    rng = np.random.default_rng(seed)
    network = random_network(rng, int(rng.integers(4, 9)), zeros=zeros)
    data = blanked(network, 80, fraction, seed)
    arrays = network_arrays(network, data)
    _, patterns, _, counts = row_patterns(data)
    return network, data, arrays, patterns, counts


def graph_arrays(arrays):
    return arrays.parent_start, arrays.parents, arrays.child_start, arrays.children


@pytest.mark.parametrize("seed", range(8))
def test_blank_groups_and_enumerable_patterns_agree_with_their_twins(seed):
    _, _, arrays, patterns, _ = case(seed)
    for pattern in patterns:
        fast = groups.blank_groups(pattern, *graph_arrays(arrays))
        slow = naive.blank_groups(pattern, *graph_arrays(arrays))
        assert fast[0] == slow[0]
        np.testing.assert_array_equal(fast[1], slow[1])
        np.testing.assert_array_equal(fast[2], slow[2])
    for cap in (1, 4, 30):
        np.testing.assert_array_equal(
            groups.enumerable_patterns(patterns, cap, *graph_arrays(arrays), arrays.arities),
            naive.enumerable_patterns(patterns, cap, *graph_arrays(arrays), arrays.arities))


def test_groups_of_several_variables_and_several_groups_are_exercised():
    sizes, counts = set(), set()
    for seed in range(8):
        _, _, arrays, patterns, _ = case(seed)
        for pattern in patterns:
            n_groups, start, _ = groups.blank_groups(pattern, *graph_arrays(arrays))
            sizes |= set(np.diff(start).tolist())
            counts.add(n_groups)
    assert max(sizes) > 1 and max(counts) > 1


STORES = (0, 40, groups.STORED_CELLS)
"""Completion cells group_layout stores: none, some of the groups' (the others found on each use), all."""


def layout_of(arrays, patterns, counts, store):
    return groups.group_layout(patterns, counts, 4096, arrays.arities, *graph_arrays(arrays), arrays.cpt_start,
                               arrays.cpt.size, store)


@pytest.mark.parametrize("seed", range(8))
def test_group_expected_counts_agrees_with_its_twin(seed):
    """On one thread's block and on three, whatever cells the layout stored; the same counts bit for bit."""
    network, _, arrays, patterns, counts = case(seed, zeros=0.0)
    out = []
    for store in STORES:
        layout = layout_of(arrays, patterns, counts, store)
        for module, blocks in ((groups, 1), (groups, 3), (naive, 1)):
            flat = np.zeros(arrays.cpt.size)
            part, bad = module.group_expected_counts(blocks, patterns, counts, 4096, *layout[:-1], arrays.arities,
                                                     arrays.parent_start, arrays.parents, arrays.cpt_start,
                                                     arrays.cpt, flat)
            assert bad == -1
            out.append((flat, part))
    for flat, part in out:
        np.testing.assert_allclose(flat, out[2][0], rtol=1e-10, atol=1e-12)
        assert part == pytest.approx(out[2][1], rel=1e-10)
    for flat, part in out[3:4] + out[6:7]:  # one thread's block, cells stored or not
        np.testing.assert_array_equal(flat, out[0][0])
        assert part == out[0][1]


@pytest.mark.parametrize("seed", range(8))
def test_stored_cells_agree_with_their_twin(seed):
    """Each group's completions' cells, stored in order while they fit."""
    _, _, arrays, patterns, counts = case(seed)
    keep = groups.enumerable_patterns(patterns, 4096, *graph_arrays(arrays), arrays.arities)
    patterns, counts = patterns[keep], counts[keep]
    for store in STORES:
        layout = layout_of(arrays, patterns, counts, store)
        want = naive.stored_cells(patterns, 4096, *layout[:5], arrays.arities, arrays.parent_start, arrays.parents,
                                  arrays.cpt_start, store)
        np.testing.assert_array_equal(layout[5], want[0])
        np.testing.assert_array_equal(layout[6], want[1])


def test_some_groups_are_stored_and_some_not():
    """The middle store keeps some groups' cells and finds the others' on each use."""
    kinds = set()
    for seed in range(8):
        _, _, arrays, patterns, counts = case(seed)
        keep = groups.enumerable_patterns(patterns, 4096, *graph_arrays(arrays), arrays.arities)
        cell_ptr = layout_of(arrays, patterns[keep], counts[keep], STORES[1])[5]
        kinds |= set((np.diff(cell_ptr) > 0).tolist())
    assert kinds == {True, False}


@pytest.fixture
def propagate_past_the_bound(monkeypatch):
    """Patterns past group_states go to the junction tree however few they are."""
    from bnexplore.em import expected

    monkeypatch.setattr(expected, "FEW_PROPAGATED", -1)


@pytest.mark.parametrize("seed", range(6))
def test_the_e_step_by_groups_equals_the_junction_tree_s(seed, propagate_past_the_bound):
    """Counts and log-likelihood of every pattern summed group by group, or all propagated."""
    network, data, _, _, _ = case(seed, fraction=[0.1, 0.3, 0.5][seed % 3], zeros=0.0)
    by_groups, by_tree = EStep(network, data), EStep(network, data, group_states=0)
    assert len(by_groups.enumerated) == by_groups.patterns and len(by_tree.propagated) == by_tree.patterns
    mixed = EStep(network, data, group_states=4)  # some patterns each way
    for estep in (by_tree, mixed):
        counts, log_likelihood = estep.run()
        want, want_log_likelihood = by_groups.run()
        for got, expect in zip(counts, want):
            np.testing.assert_allclose(got, expect, rtol=1e-10, atol=1e-12)
        assert log_likelihood == pytest.approx(want_log_likelihood, rel=1e-12)


def test_a_few_patterns_past_the_bound_are_enumerated_all_the_same():
    network, data, _, _, _ = case(1, fraction=0.3, zeros=0.0)
    estep = EStep(network, data, group_states=4)
    assert estep.engine is None and len(estep.enumerated) == estep.patterns
    arrays = estep.arrays
    assert not groups.enumerable_patterns(estep.enumerated_codes, 4, *graph_arrays(arrays), arrays.arities).all()
    counts, log_likelihood = estep.run()
    want, want_log_likelihood = EStep(network, data, group_states=0).run()
    for got, expect in zip(counts, want):
        np.testing.assert_allclose(got, expect, rtol=1e-10, atol=1e-12)
    assert log_likelihood == pytest.approx(want_log_likelihood, rel=1e-12)


def test_the_mixed_e_step_is_exercised(propagate_past_the_bound):
    kinds = set()
    for seed in range(6):
        network, data, _, _, _ = case(seed, fraction=[0.1, 0.3, 0.5][seed % 3], zeros=0.0)
        estep = EStep(network, data, group_states=4)
        kinds |= {len(estep.enumerated) > 0 and len(estep.propagated) > 0}
    assert True in kinds


def test_group_cells_and_completion_weights_agree_with_their_twins():
    """Every group of every pattern (eight random networks): the cells and weights of its completions from
    the strides, against each completion's cells found from its row."""
    several = 0
    for seed in range(8):
        several += cells_against_twin(seed)
    assert several


def cells_against_twin(seed):
    """Compare the kernels on every group of case(seed); how many groups had several members."""
    network, _, arrays, patterns, _ = case(seed, zeros=0.0)
    layout = layout_of(arrays, patterns, np.ones(len(patterns)), 0)
    group_ptr, member_ptr, members, touched_ptr, touched = layout[:5]
    net = (arrays.arities, arrays.parent_start, arrays.parents, arrays.cpt_start)
    n = patterns.shape[1]
    several = 0
    for p, pattern in enumerate(patterns):
        for g in range(group_ptr[p], group_ptr[p + 1]):
            group, families = members[member_ptr[g]:member_ptr[g + 1]], touched[touched_ptr[g]:touched_ptr[g + 1]]
            several += len(group) > 1
            width, size = len(families), int(np.prod(arrays.arities[group]))
            got, want = [], []
            for module in (groups, naive):
                row = pattern.astype(np.int64).copy()
                base, stride = np.zeros(width, np.int64), np.zeros(width * n, np.int64)
                module.group_cells(row, group, families, *net, base, stride)
                weights, cells = np.zeros(size), np.zeros(size * width, np.int64)
                extra = ({"row": row, "touched": families, "parent_start": arrays.parent_start,
                          "parents": arrays.parents, "cpt_start": arrays.cpt_start} if module is naive else {})
                total = module.completion_weights(group, width, arrays.arities, base, stride, arrays.cpt, size, weights,
                                                  cells, **extra)
                again = np.zeros(size)
                assert module.cell_weights(cells, 0, width, size, arrays.cpt, again) == total
                np.testing.assert_array_equal(again, weights)
                (got if module is groups else want).append((base, stride[:width * len(group)], weights, cells, total))
            for a, b in zip(got[0], want[0]):
                np.testing.assert_allclose(a, b, rtol=1e-14)
    return several


def sample_groups(module, arrays, patterns, counts, pick, k, seed, blocks=1, store=groups.STORED_CELLS):
    """``k`` completions of each picked pattern by ``module.group_sample_patterns``, on group_layout's layout
    (with at most ``store`` cells stored)."""
    layout = layout_of(arrays, patterns, counts, store)
    out_start = np.arange(len(pick), dtype=np.int64) * k
    draws = k * (patterns[pick] < 0).sum(axis=1)
    uniform_start = np.concatenate([[0], np.cumsum(draws)[:-1]]).astype(np.int64)
    uniforms = np.random.default_rng(seed).random(int(draws.sum()))
    codes = np.zeros((len(pick) * k, patterns.shape[1]), np.int64)
    weights = np.zeros(len(pick) * k)
    extra = {"child_start": arrays.child_start, "children": arrays.children} if module is naive else {}
    module.group_sample_patterns(blocks, patterns, counts, pick, *layout[:-1], out_start, uniform_start, uniforms, k,
                                 4096, arrays.arities, arrays.parent_start, arrays.parents, arrays.cpt_start,
                                 arrays.cpt, codes, weights, **extra)
    return codes, weights


@pytest.mark.parametrize("seed", range(8))
def test_group_sample_patterns_agrees_with_its_twin(seed):
    """Some of the patterns, picked in a random order, on one thread's block and on three, whatever cells the
    layout stored."""
    network, _, arrays, patterns, counts = case(seed)
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 7))
    keep = groups.enumerable_patterns(patterns, 4096, *graph_arrays(arrays), arrays.arities)
    patterns, counts = patterns[keep], counts[keep]
    pick = rng.permutation(len(patterns))[:max(1, len(patterns) * 2 // 3)]
    want = sample_groups(naive, arrays, patterns, counts, pick, k, seed)
    for blocks in (1, 3):
        for store in STORES:
            codes, weights = sample_groups(groups, arrays, patterns, counts, pick, k, seed, blocks, store)
            np.testing.assert_array_equal(codes, want[0])
            np.testing.assert_allclose(weights, want[1], rtol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_each_group_is_drawn_its_posterior_share_of_the_rows_to_within_one(seed):
    """Systematic sampling: a group state of posterior p is drawn floor(k p) or ceil(k p) times of k."""
    network, _, arrays, patterns, counts = case(seed, zeros=0.0)
    k = 3
    codes, weights = sample_groups(groups, arrays, patterns, counts, np.arange(len(patterns)), k, seed)
    np.testing.assert_allclose(weights, np.repeat(counts / k, k))
    net = (arrays.arities, arrays.parent_start, arrays.parents, arrays.cpt_start, arrays.cpt)
    for p, pattern in enumerate(patterns):
        joint = [(row, naive._joint(row, *net)) for row in naive._completions_of(pattern, arrays.arities)]
        pe = sum(x for _, x in joint)
        rows = codes[p * k:(p + 1) * k]
        n_groups, start, members = groups.blank_groups(pattern, *graph_arrays(arrays))
        for g in range(n_groups):
            group = members[start[g]:start[g + 1]].tolist()
            marginal = {}
            for row, x in joint:
                key = tuple(row[v] for v in group)
                marginal[key] = marginal.get(key, 0.0) + x / pe
            drawn = [tuple(r) for r in rows[:, group].tolist()]
            for key, share in marginal.items():
                assert np.floor(k * share - 1e-9) <= drawn.count(key) <= np.ceil(k * share + 1e-9)


def test_completed_data_samples_a_row_with_a_large_group_by_likelihood_weighting():
    """A pattern with a group past the cap keeps the likelihood-weighted samples of complete_patterns."""
    network, data, arrays, patterns, _ = case(1, fraction=0.6)
    assert not groups.enumerable_patterns(patterns, 1, *graph_arrays(arrays), arrays.arities).all()
    before = groups.MAX_GROUP_STATES
    try:
        em_completions.MAX_GROUP_STATES = 1  # every pattern with a blank cell of two or more states
        done = completed_data(network, data, completions=2, seed=0)
    finally:
        em_completions.MAX_GROUP_STATES = before
    assert done.weights.sum() == pytest.approx(data.n_rows)

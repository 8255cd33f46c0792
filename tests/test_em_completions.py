"""The completed data set of structural EM: the kernel against its twin, the weights against the posterior
enumerated by brute force, reproducible samples, and the memory bound."""

import itertools

import numpy as np
import pytest

import naive
from bnexplore import resources
from bnexplore.bif import Network, sample_codes
from bnexplore.data import Dataset
from bnexplore.em import completions as em_completions
from bnexplore.em.completions import completed_data, network_arrays, row_patterns
from bnexplore.errors import DataError, OptionError, ResourceError
from test_inference import random_network


def blanked(network, n, fraction, seed):
    """``n`` rows sampled from ``network`` with a ``fraction`` of the cells blank (completely at random)."""
    rng = np.random.default_rng(seed)
    codes = sample_codes(network, n, seed=seed).astype(np.int64)
    codes[rng.random(codes.shape) < fraction] = -1
    return Dataset.from_codes(codes, arities=network.arities, names=network.names, states=network.states,
                              missing="em")


def posterior(network, row):
    """``{completion tuple: P(completion | observed cells of row)}`` from the full joint, by brute force."""
    blanks = [v for v in range(network.n_vars) if row[v] < 0]
    joint = {}
    for states in itertools.product(*(range(network.arities[b]) for b in blanks)):
        full = list(row)
        for b, s in zip(blanks, states):
            full[b] = s
        joint[tuple(full)] = np.prod([network.cpts[v][tuple(full[p] for p in network.parents[v]) + (full[v],)]
                                      for v in range(network.n_vars)])
    total = sum(joint.values())
    return {key: value / total for key, value in joint.items() if value > 0}


def run_kernel(module, arrays, patterns, counts, completions, seed):
    """The kernel's (or its twin's) output on these patterns."""
    exact, out_start, uniform_start, n_uniforms = em_completions.completion_layout(arrays, patterns, completions)
    uniforms = np.random.default_rng(seed).random(n_uniforms)
    codes = np.zeros((int(out_start[-1]), patterns.shape[1]), np.int64)
    weights = np.zeros(int(out_start[-1]))
    module.complete_patterns(patterns, counts, exact, out_start, uniform_start, uniforms,
                             *arrays.kernel_arguments(), codes, weights)
    return codes, weights, exact


@pytest.mark.parametrize("seed", range(8))
def test_the_kernel_agrees_with_its_twin(seed):
    rng = np.random.default_rng(seed)
    network = random_network(rng, int(rng.integers(3, 7)), zeros=0.1)
    data = blanked(network, 60, 0.3, seed)
    if data.blank is None:
        pytest.skip("no blank cell drawn")
    arrays = network_arrays(network, data)
    _, patterns, _, counts = row_patterns(data)
    completions = int(rng.integers(1, 10))
    fast = run_kernel(em_completions, arrays, patterns, counts, completions, seed)
    slow = run_kernel(naive, arrays, patterns, counts, completions, seed)
    np.testing.assert_array_equal(fast[0], slow[0])
    np.testing.assert_allclose(fast[1], slow[1], rtol=1e-9)


def test_both_kinds_of_rows_are_exercised_by_the_twin_test():
    kinds = set()
    for seed in range(8):
        rng = np.random.default_rng(seed)
        network = random_network(rng, int(rng.integers(3, 7)), zeros=0.1)
        data = blanked(network, 60, 0.3, seed)
        arrays = network_arrays(network, data)
        _, patterns, _, _ = row_patterns(data)
        joint = arrays.completions_of(patterns, int(rng.integers(1, 10)))
        kinds |= set((joint <= int(rng.integers(1, 10))).tolist())
    assert kinds == {True, False}


def weights_by_row(done):
    return {tuple(int(x) for x in row): w for row, w in zip(done.codes, done.weights)}


@pytest.mark.parametrize("seed", range(5))
def test_enumerated_weights_are_the_posterior(seed):
    rng = np.random.default_rng(seed)
    network = random_network(rng, 5, zeros=0.15)
    data = blanked(network, 40, 0.35, seed)
    done = completed_data(network, data, completions=10**6)
    assert done.blank is None and np.all(done.weights > 0)
    want = {}
    codes = np.where(data.blank, -1, data.codes.astype(np.int64))
    for row in codes:
        for key, p in (posterior(network, row) if (row < 0).any() else {tuple(row): 1.0}).items():
            want[key] = want.get(key, 0.0) + p
    got = weights_by_row(done)
    assert got.keys() == want.keys()
    for key in want:
        assert got[key] == pytest.approx(want[key], rel=1e-9)
    assert done.weights.sum() == pytest.approx(data.n_rows)
    assert len(np.unique(done.codes, axis=0)) == done.n_rows  # identical rows merged


def test_sampled_weights_are_seeded_and_estimate_the_posterior():
    rng = np.random.default_rng(3)
    network = random_network(rng, 5, zeros=0.0)
    row = np.array([-1, -1, -1, 0, -1])
    row[3] = sample_codes(network, 1, seed=1)[0, 3]
    data = Dataset.from_codes(row[None, :], arities=network.arities, names=network.names, states=network.states,
                              missing="em")
    joint = int(np.prod(network.arities[row < 0]))
    first = completed_data(network, data, completions=joint - 1, seed=7)
    again = completed_data(network, data, completions=joint - 1, seed=7)
    other = completed_data(network, data, completions=joint - 1, seed=8)
    np.testing.assert_array_equal(first.codes, again.codes)
    np.testing.assert_array_equal(first.weights, again.weights)
    assert not (first.codes.shape == other.codes.shape and np.array_equal(first.weights, other.weights))
    assert first.weights.sum() == pytest.approx(1.0)
    many = weights_by_row(completed_data(network, data, completions=20000, seed=1))
    for key, p in posterior(network, row).items():
        assert many.get(key, 0.0) == pytest.approx(p, abs=0.02)


def test_a_row_of_probability_zero_gets_equal_weights():
    network = Network("zero", ["a", "b"], [["0", "1"], ["0", "1"]], [[], [0]],
                      [[1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]])
    data = Dataset.from_codes([[-1, 1]], names=["a", "b"], arities=[2, 2], missing="em")
    done = completed_data(network, data)
    assert done.codes.tolist() == [[0, 1], [1, 1]] and done.weights.tolist() == [0.5, 0.5]


def test_data_without_blanks_is_returned_as_it_is():
    data = Dataset.from_codes([[0, 1], [1, 0]], names=["a", "b"])
    network = Network("n", ["a", "b"], [["0", "1"], ["0", "1"]], [[], []], [[0.5, 0.5], [0.5, 0.5]])
    assert completed_data(network, data) is data


def test_columns_are_matched_by_name_and_states_checked():
    network = Network("n", ["a", "b"], [["0", "1"], ["0", "1"]], [[], [0]], [[0.5, 0.5], [[0.9, 0.1], [0.1, 0.9]]])
    swapped = Dataset.from_codes([[-1, 1], [0, 0]], names=["b", "a"], arities=[2, 2], missing="em")
    done = completed_data(network, swapped)
    assert weights_by_row(done) == pytest.approx({(0, 0): 1.0, (0, 1): 0.1, (1, 1): 0.9})
    with pytest.raises(DataError, match="'c' is not a variable of the network"):
        completed_data(network, Dataset.from_codes([[-1, 1, 0]], names=["a", "b", "c"], missing="em"))
    other = Dataset.from_codes([[-1, 1]], names=["a", "b"], states=[["x", "y"], ["0", "1"]], arities=[2, 2],
                               missing="em")
    with pytest.raises(DataError, match="column 'a' has the states"):
        completed_data(network, other)


def test_options_are_checked():
    network = Network("n", ["a"], [["0", "1"]], [[]], [[0.5, 0.5]])
    data = Dataset.from_codes([[-1], [0]], names=["a"], arities=[2], missing="em")
    with pytest.raises(OptionError, match="completions must be a whole number >= 1, got 0"):
        completed_data(network, data, completions=0)
    with pytest.raises(OptionError, match="seed"):
        completed_data(network, data, seed=-1)


def test_memory_is_bounded_before_the_completions_are_allocated(monkeypatch):
    rng = np.random.default_rng(0)
    network = random_network(rng, 6, zeros=0.0)
    data = blanked(network, 200, 0.5, 0)
    monkeypatch.setattr(resources, "available_memory", lambda: 10_000)
    with pytest.raises(ResourceError, match=r"the completed data \(.* incomplete rows with up to 64 completions each.*"
                                            r"lower completions \(now 64\)"):
        completed_data(network, data, completions=64)

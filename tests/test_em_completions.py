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
from bnexplore.em import imputation as em_impute
from bnexplore.em import expected_counts
from bnexplore.em.completions import completed_data, distinct_rows, network_arrays, row_patterns
from bnexplore.em import impute
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


@pytest.mark.parametrize("seed", range(3))
def test_weighted_family_counts_of_the_completed_data_are_the_expected_counts(seed):
    """Friedman's expected sufficient statistics: the same numbers as the junction tree's E-step."""
    rng = np.random.default_rng(seed)
    network = random_network(rng, 6, zeros=0.0)
    data = blanked(network, 300, 0.25, seed)
    done = completed_data(network, data, completions=10**6)
    want, _ = expected_counts(network, data)
    for v, name in enumerate(network.names):
        c = data.index(name)
        columns = [data.index(network.names[p]) for p in network.parents[v]] + [c]
        got = np.zeros(network.cpts[v].shape)
        np.add.at(got, tuple(done.codes[:, k].astype(np.intp) for k in columns), done.weights)
        np.testing.assert_allclose(got, want[name], rtol=1e-9, atol=1e-9)


def test_distinct_rows_agrees_with_numpy_unique():
    rng = np.random.default_rng(0)
    for dtype in (np.uint8, np.uint16):
        codes = rng.integers(0, 3, (500, int(rng.integers(1, 20)))).astype(dtype)
        unique, inverse = distinct_rows(codes)
        np.testing.assert_array_equal(unique[inverse], codes)
        assert len(unique) == len(np.unique(codes, axis=0))
        if dtype is np.uint8:
            np.testing.assert_array_equal(unique, np.unique(codes, axis=0))


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
    done = completed_data(network, data, completions=2)
    assert done.codes.tolist() == [[0, 1], [1, 1]] and done.weights.tolist() == [0.5, 0.5]


def test_data_without_blanks_is_returned_as_it_is():
    data = Dataset.from_codes([[0, 1], [1, 0]], names=["a", "b"])
    network = Network("n", ["a", "b"], [["0", "1"], ["0", "1"]], [[], []], [[0.5, 0.5], [0.5, 0.5]])
    assert completed_data(network, data) is data


def test_columns_are_matched_by_name_and_states_checked():
    network = Network("n", ["a", "b"], [["0", "1"], ["0", "1"]], [[], [0]], [[0.5, 0.5], [[0.9, 0.1], [0.1, 0.9]]])
    swapped = Dataset.from_codes([[-1, 1], [0, 0]], names=["b", "a"], arities=[2, 2], missing="em")
    done = completed_data(network, swapped, completions=2)
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


# -- imputation -------------------------------------------------------------------------------------

def run_impute(module, arrays, patterns, mode, limit, seed):
    """The imputation kernel's (or its twin's) completed patterns."""
    joint = arrays.completions_of(patterns, limit)
    exact = joint <= limit
    draws = np.where(exact, 0, limit * (patterns < 0).sum(axis=1)) + (not mode)
    starts = np.concatenate([[0], np.cumsum(draws)[:-1]]).astype(np.int64)
    uniforms = np.random.default_rng(seed).random(int(draws.sum()))
    out = np.zeros(patterns.shape, np.int64)
    module.impute_patterns(patterns, mode, exact, joint, starts, uniforms, limit, *arrays.kernel_arguments(), out)
    return out


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("mode", [True, False])
def test_the_imputation_kernel_agrees_with_its_twin(seed, mode):
    rng = np.random.default_rng(seed)
    network = random_network(rng, int(rng.integers(3, 7)), zeros=0.1)
    data = blanked(network, 60, 0.4, seed)
    arrays = network_arrays(network, data)
    _, patterns, _, _ = row_patterns(data)
    limit = int(rng.integers(2, 9))
    np.testing.assert_array_equal(run_impute(em_impute, arrays, patterns, mode, limit, seed),
                                  run_impute(naive, arrays, patterns, mode, limit, seed))


def joint_probability(network, row):
    return np.prod([network.cpts[v][tuple(row[p] for p in network.parents[v]) + (row[v],)]
                    for v in range(network.n_vars)])


@pytest.mark.parametrize("seed", range(5))
def test_mode_is_the_most_probable_completion_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    network = random_network(rng, 6, zeros=0.0)
    data = blanked(network, 50, 0.4, seed)
    done = impute(network, data)
    assert done.blank is None and done.weights is None and done.warnings == data.warnings
    codes = np.where(data.blank, -1, data.codes.astype(np.int64))
    for row, got in zip(codes, done.codes.astype(np.int64)):
        if not (row < 0).any():
            assert got.tolist() == row.tolist()
            continue
        best = max(posterior(network, row).items(), key=lambda item: item[1])
        assert joint_probability(network, got) == pytest.approx(joint_probability(network, best[0]), rel=1e-12)
        assert all(got[v] == row[v] for v in range(len(row)) if row[v] >= 0)


def test_mode_past_the_limit_is_a_local_optimum_and_says_so():
    rng = np.random.default_rng(11)
    network = random_network(rng, 7, zeros=0.0)
    data = blanked(network, 40, 0.6, 11)
    done = impute(network, data, limit=3, samples=2)
    assert "have more than 3 joint completions" in done.warnings[-1] and "a local optimum" in done.warnings[-1]
    assert "the most probable of 2 likelihood-weighted samples" in done.warnings[-1]
    codes = np.where(data.blank, -1, data.codes.astype(np.int64))
    for row, got in zip(codes, done.codes.astype(np.int64)):
        here = joint_probability(network, got)
        for b in np.flatnonzero(row < 0):
            for s in range(network.arities[b]):
                changed = got.copy()
                changed[b] = s
                assert joint_probability(network, changed) <= here * (1 + 1e-12)
    assert not impute(network, data, limit=10**6).warnings


def test_sample_draws_from_the_posterior_seeded():
    network = Network("copy", ["a", "b"], [["0", "1"], ["0", "1"]], [[], [0]],
                      [[0.3, 0.7], [[0.8, 0.2], [0.4, 0.6]]])
    data = Dataset.from_codes([[-1, 1]] * 4000, names=["a", "b"], arities=[2, 2], missing="em")
    first = impute(network, data, method="sample", seed=5)
    np.testing.assert_array_equal(first.codes, impute(network, data, method="sample", seed=5).codes)
    share = first.codes[:, 0].mean()  # P(a = 1 | b = 1) = 0.42 / (0.42 + 0.06) = 0.875
    assert share == pytest.approx(0.875, abs=0.02)
    noise = Network("copy and noise", ["a", "b", *"cdefgh"], [["0", "1"]] * 8, [[], [0]] + [[]] * 6,
                    [[0.3, 0.7], [[0.8, 0.2], [0.4, 0.6]]] + [[0.5, 0.5]] * 6)
    wide = Dataset.from_codes([[-1, 1] + [-1] * 6] * 4000, names=noise.names, arities=[2] * 8, missing="em")
    sampled = impute(noise, wide, method="sample", seed=5, limit=100, samples=100)  # 2**7 completions: sampled
    assert "4,000 of the 4,000 incomplete rows" in sampled.warnings[-1]
    assert "one of 100 likelihood-weighted samples drawn by weight: approximately a posterior draw" in \
        sampled.warnings[-1]
    assert sampled.codes[:, 0].mean() == pytest.approx(0.875, abs=0.02)


def test_impute_keeps_the_rows_and_refuses_bad_options():
    network = Network("n", ["a", "b"], [["0", "1"], ["0", "1"]], [[], [0]], [[0.5, 0.5], [[0.9, 0.1], [0.1, 0.9]]])
    data = Dataset.from_codes([[1, -1], [0, 0], [-1, -1]], names=["a", "b"], arities=[2, 2], missing="em")
    frame = impute(network, data).to_frame()
    assert frame.to_dict("list") == {"a": ["1", "0", "0"], "b": ["1", "0", "0"]}
    complete = Dataset.from_codes([[0, 1]], names=["a", "b"])
    assert impute(network, complete) is complete
    with pytest.raises(OptionError, match="unknown imputation method='best'"):
        impute(network, data, method="best")
    with pytest.raises(OptionError, match="limit must be a whole number >= 1"):
        impute(network, data, limit=0)
    with pytest.raises(OptionError, match="samples must be a whole number >= 1"):
        impute(network, data, samples=0)

"""Parameter EM: the E-step kernel against its brute-force twin, EM's fixed point against the EM equations
by brute force, the log-likelihood never falling, complete data giving fit_network's tables, pyAgrum's EM,
the stop, time limit and memory guards, and one-line errors naming the keyword."""

import numpy as np
import pandas as pd
import pytest

import bnexplore as bx
import naive
from bnexplore.bif import Network, fit_network, sample_codes
from bnexplore.bif.fit import posterior_table
from bnexplore.control import Control
from bnexplore.data import Dataset
from bnexplore.em import em_fit, expected_counts, observed_log_likelihood
from bnexplore.errors import BNExploreError, DataError, OptionError, ResourceError, ScoreError
from fakes import FakeClock, StopAfter
from test_inference import random_network


def blanked(network, n, fraction, seed):
    """``n`` rows of ``network`` with a ``fraction`` of the cells blank (completely at random), and the codes
    with -1 at the blank cells."""
    rng = np.random.default_rng(seed)
    codes = sample_codes(network, n, seed=seed).astype(np.int64)
    codes[rng.random(codes.shape) < fraction] = -1
    return Dataset.from_codes(codes, arities=network.arities, names=network.names, states=network.states,
                              missing="em"), codes


def brute_expected(network, marked, weights=None):
    """Expected counts over every row by brute force: the twin's sum over completions for the families a
    blank touches, plus one count per row for the families observed whole."""
    weights = np.ones(len(marked)) if weights is None else weights
    counts, log_likelihood = naive.expected_family_counts(network, marked, weights)
    for v in range(network.n_vars):
        family = list(network.parents[v]) + [v]
        for row, w in zip(marked, weights):
            if all(row[u] >= 0 for u in family):
                counts[v][tuple(row[u] for u in family)] += w
    return counts, log_likelihood


@pytest.mark.parametrize("seed", range(8))
def test_expected_counts_equal_the_sum_over_every_completion(seed):
    rng = np.random.default_rng(seed)
    network = random_network(rng, int(rng.integers(3, 6)), zeros=0.0)
    data, marked = blanked(network, 60, [0.1, 0.3, 0.6][seed % 3], seed)
    counts, log_likelihood = expected_counts(network, data)
    want, want_log_likelihood = brute_expected(network, marked)
    for v, name in enumerate(network.names):
        np.testing.assert_allclose(counts[name], want[v], rtol=1e-10, atol=1e-12)
    assert log_likelihood == pytest.approx(want_log_likelihood, rel=1e-12)
    assert observed_log_likelihood(network, data) == pytest.approx(want_log_likelihood, rel=1e-12)
    # every row's counts sum to one per family: the total is the number of rows
    assert all(c.sum() == pytest.approx(60) for c in counts.values())


@pytest.mark.parametrize("seed, n, fraction", [(0, 6, 0.4), (1, 6, 0.4), (2, 6, 0.2), (3, 9, 0.15), (4, 10, 0.1),
                                                (5, 10, 0.05)])
def test_the_kernel_matches_its_twin_on_weighted_patterns(seed, n, fraction):
    """The E-step kernel alone (patterns with weights, no directly counted family) against the twin; few
    blanks in a larger tree leave most cliques out of the distribution."""
    from bnexplore.em.expected import EStep

    rng = np.random.default_rng(100 + seed)
    network = random_network(rng, n, zeros=0.0)
    data, _ = blanked(network, 80, fraction, seed)
    estep = EStep(network, data)
    assert estep.patterns > 0
    observed = [n.copy() for n in estep.observed]
    estep.observed = [np.zeros_like(n) for n in observed]  # leave only what the kernel adds
    estep.complete = [np.zeros_like(n) for n in estep.complete]
    want, want_log_likelihood = naive.expected_family_counts(network, estep.pattern_codes, estep.pattern_weights)
    for blocks in (1, 3):  # one thread, or the patterns cut in three pieces each with its own tables
        estep.blocks = blocks
        counts, log_likelihood = estep.run()
        for got, expect in zip(counts, want):
            np.testing.assert_allclose(got, expect, rtol=1e-10, atol=1e-12)
        assert log_likelihood == pytest.approx(want_log_likelihood, rel=1e-12)


@pytest.mark.parametrize("ess", [0.0, 1.0])
def test_the_fixed_point_satisfies_the_em_equations_by_brute_force(ess):
    """theta = posterior mean of E[N | observed cells, theta], with E computed over every completion."""
    rng = np.random.default_rng(7)
    network = random_network(rng, 4, zeros=0.0)
    data, marked = blanked(network, 200, 0.25, 7)
    fitted = em_fit(network.dag(), data, ess=ess, tolerance=1e-14, max_iterations=5000)
    assert fitted.fit["converged"]
    want, log_likelihood = brute_expected(fitted, marked)
    for v in range(fitted.n_vars):
        np.testing.assert_allclose(fitted.cpts[v], posterior_table(want[v], ess), atol=1e-6)
        np.testing.assert_allclose(fitted.fit["counts"][v], want[v], rtol=1e-9, atol=1e-9)
    assert fitted.fit["log_likelihoods"][-1] == pytest.approx(log_likelihood, rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_the_log_likelihood_never_decreases(seed):
    """Maximum likelihood EM climbs the log-likelihood; with a prior it climbs the log posterior."""
    rng = np.random.default_rng(200 + seed)
    network = random_network(rng, int(rng.integers(4, 8)), zeros=0.0)
    data, _ = blanked(network, 150, [0.15, 0.3, 0.5][seed % 3], seed)
    for ess, key in ((0.0, "log_likelihoods"), (2.0, "log_posteriors")):
        fitted = em_fit(network.dag(), data, ess=ess, tolerance=1e-12, max_iterations=60, restarts=1, seed=seed)
        values = fitted.fit[key]
        assert len(values) == fitted.fit["iterations"] >= 2
        steps = np.diff(values)
        assert (steps >= -1e-9 * np.abs(values[1:])).all(), (ess, steps.min())


def test_on_complete_data_one_iteration_gives_fit_networks_tables_exactly():
    network = bx.read_bif("sample_data/networks/asia.bif.gz")
    codes = sample_codes(network, 500, seed=1)
    data = Dataset.from_codes(codes, arities=network.arities, names=network.names, states=network.states)
    dag = network.dag()
    for ess in (0.0, 1.0, 10.0):
        fitted = em_fit(dag, data, ess=ess)
        plain = fit_network(dag, data, ess=ess)
        assert fitted.fit["iterations"] == 1 and fitted.fit["converged"] and fitted.fit["patterns"] == 0
        assert all(np.array_equal(a, b) for a, b in zip(fitted.cpts, plain.cpts))
        assert all(np.array_equal(a, b) for a, b in zip(fitted.fit["counts"], plain.fit["counts"]))
        assert fitted.fit["log_likelihoods"] == [pytest.approx(bx.bif.log_likelihood(plain, codes), rel=1e-12)]
    through_the_door = bx.fit_network(dag, data, method="em")
    assert all(np.array_equal(a, b) for a, b in zip(through_the_door.cpts, fit_network(dag, data).cpts))


def test_fit_network_refuses_blank_cells_and_points_to_em():
    network = bx.read_bif("sample_data/networks/asia.bif.gz")
    data, _ = blanked(network, 300, 0.1, 3)
    for method in ("bdeu", "ml"):
        with pytest.raises(DataError, match=f"method='{method}' needs complete rows.*method='em'") as error:
            bx.fit_network(network.dag(), data, method=method)
        assert "\n" not in str(error.value)
    fitted = bx.fit_network(network.dag(), data, method="em", max_iterations=3)
    assert fitted.fit["method"] == "em" and fitted.fit["iterations"] == 3 and fitted.fit["blank_cells"] > 0
    with pytest.raises(ScoreError, match="max_iterations is an option of method='em'"):
        bx.fit_network(network.dag(), data.complete_rows(), method="bdeu", max_iterations=3)


def test_restarts_keep_the_best_run_and_repeat_with_a_seed():
    rng = np.random.default_rng(11)
    network = random_network(rng, 5, zeros=0.0)
    data, _ = blanked(network, 100, 0.4, 11)
    one = em_fit(network.dag(), data, restarts=3, seed=5, max_iterations=20)
    again = em_fit(network.dag(), data, restarts=3, seed=5, max_iterations=20)
    runs = one.fit["run_log_likelihoods"]
    assert one.fit["restarts"] == 3 and len(runs) == 4 and one.fit["log_likelihoods"][-1] == max(runs)
    assert all(np.array_equal(a, b) for a, b in zip(one.cpts, again.cpts))
    start = em_fit(network.dag(), data, start=one, max_iterations=1)
    assert start.fit["log_likelihoods"][0] >= max(runs) - 1e-6 * abs(max(runs))


def test_progress_stop_and_time_limit():
    rng = np.random.default_rng(12)
    network = random_network(rng, 5, zeros=0.0)
    data, _ = blanked(network, 100, 0.3, 12)
    reports = []
    fitted = em_fit(network.dag(), data, tolerance=1e-15, max_iterations=6,
                    control=Control(progress=reports.append, min_interval=0))  # every report, whatever the speed
    assert [r["iteration"] for r in reports] == [1, 2, 3, 4, 5, 6, 6]  # the last one is the finish
    assert all(np.isfinite(r["log_likelihood"]) for r in reports)
    assert fitted.fit["stopped"] is None and not fitted.fit["converged"]
    stop = StopAfter(5)
    stopped = em_fit(network.dag(), data, tolerance=1e-15, max_iterations=50, stop=stop)
    assert stopped.fit["stopped"] == "stopped" and 1 <= stopped.fit["iterations"] < 50
    # the tables returned are those the recorded log-likelihood belongs to
    assert observed_log_likelihood(stopped, data) == pytest.approx(stopped.fit["log_likelihoods"][-1], rel=1e-12)
    control = Control(time_limit=3.5, clock=FakeClock(1.0))
    limited = em_fit(network.dag(), data, tolerance=1e-15, max_iterations=50, control=control)
    assert limited.fit["stopped"] == "time limit" and limited.fit["iterations"] < 50


def test_a_row_of_probability_zero_is_named():
    network = Network("zero", ["A", "B"], [["a0", "a1"], ["b0", "b1"]], [[], [0]],
                      [[0.5, 0.5], [[1.0, 0.0], [0.5, 0.5]]])
    codes = np.array([[0, 0], [1, 1], [0, -1], [-1, 1], [0, 1]])
    data = Dataset.from_codes(codes, arities=[2, 2], names=["A", "B"], states=network.states, missing="em")
    with pytest.raises(DataError, match=r"^row 5 of the data has probability 0.*ess=1\.0") as error:
        expected_counts(network, data)
    assert "\n" not in str(error.value)
    codes[4] = [0, -1]
    codes[2] = [0, 1]
    codes[3] = [-1, -1]
    data = Dataset.from_codes(codes, arities=[2, 2], names=["A", "B"], states=network.states, missing="em")
    with pytest.raises(DataError, match=r"^row 3 of the data has probability 0"):
        expected_counts(network, data)
    blank_row = Dataset.from_codes(np.array([[1, -1], [-1, 1], [0, 0]]), arities=[2, 2], names=["A", "B"],
                                   states=network.states, missing="em")
    assert np.isfinite(observed_log_likelihood(network, blank_row))


def test_a_junction_tree_over_max_cells_is_refused_before_allocating():
    network = bx.read_bif("sample_data/networks/alarm.bif.gz")
    data, _ = blanked(network, 50, 0.1, 1)
    with pytest.raises(ResourceError, match="EM on this DAG needs a junction tree.*fewer parents.*max_cells"):
        em_fit(network.dag(), data, max_cells=100)
    # complete data needs no junction tree at all
    complete = Dataset.from_codes(sample_codes(network, 50, seed=1), arities=network.arities, names=network.names,
                                  states=network.states)
    assert em_fit(network.dag(), complete, max_cells=100).fit["iterations"] == 1


def test_the_patterns_are_refused_before_allocating_when_memory_is_short(monkeypatch):
    from bnexplore import resources

    network = bx.read_bif("sample_data/networks/asia.bif.gz")
    data, _ = blanked(network, 200, 0.2, 4)
    monkeypatch.setattr(resources, "available_memory", lambda: 1000)
    with pytest.raises(ResourceError, match="EM on [0-9]+ incomplete rows needs .* missing='drop'"):
        em_fit(network.dag(), data)


@pytest.mark.parametrize("keyword, value", [
    ("ess", -1), ("ess", "1"), ("tolerance", 0), ("tolerance", float("nan")), ("max_iterations", 0),
    ("max_iterations", 2.5), ("restarts", -1), ("seed", -3), ("start", "net"), ("max_cells", 0),
])
def test_bad_options_are_one_line_errors_naming_the_keyword(keyword, value):
    network = bx.read_bif("sample_data/networks/asia.bif.gz")
    data, _ = blanked(network, 40, 0.1, 2)
    with pytest.raises(BNExploreError, match=f"^{keyword}") as error:
        em_fit(network.dag(), data, **{keyword: value})
    assert "\n" not in str(error.value)


def test_a_start_of_another_shape_is_refused():
    network = bx.read_bif("sample_data/networks/asia.bif.gz")
    data, _ = blanked(network, 40, 0.1, 2)
    empty = bx.DAG.from_arcs([], network.names)
    with pytest.raises(OptionError, match="start must have the DAG's variables"):
        em_fit(empty, data, start=network)


def test_parameter_em_agrees_with_pyagrum(tmp_path):
    """pyAgrum's BNLearner with useEM and the BDeu prior of the same ess (its pseudo-count ess / (q r) per cell,
    as ours) on the same DAG and rows ("?" for a blank): both run to a tight rate criterion from their own
    starts and land on the same fixed point, so the tables agree within 1e-3 (in practice within 1e-4; pyAgrum's
    EM takes seconds on a few hundred rows, hence the small table). pyAgrum perturbs its start at random (its
    emNoise, 0.1) and about one start in fifty "diverges" (its log-likelihood falls, it stops after a few
    iterations, 0.03-0.4 away: 1 of 60 unseeded runs here, and a CI run), so its generator is seeded. The rows go
    to pyAgrum as a CSV in the test's own folder: given a DataFrame, pyAgrum writes two temporary files it never
    removes."""
    gum = pytest.importorskip("pyagrum")
    gum.initRandom(1)
    rng = np.random.default_rng(3)
    network = random_network(rng, 5, zeros=0.0)
    data, marked = blanked(network, 150, 0.2, 3)
    ours = em_fit(network.dag(), data, ess=1.0, tolerance=1e-10, max_iterations=1000)
    frame = pd.DataFrame({name: [network.states[v][c] if c >= 0 else "?" for c in marked[:, v]]
                          for v, name in enumerate(network.names)})
    template = gum.BayesNet()
    for v, name in enumerate(network.names):
        template.add(gum.LabelizedVariable(name, name, network.states[v]))
    for v, parents in enumerate(network.parents):
        for p in parents:
            template.addArc(network.names[p], network.names[v])
    frame.to_csv(tmp_path / "rows.csv", index=False)
    learner = gum.BNLearner(str(tmp_path / "rows.csv"), template, ["?"])
    learner.useBDeuPrior(1.0)
    learner.setNumberOfThreads(1)
    learner.useEMWithRateCriterion(1e-7)
    learner.EMsetMaxIter(1000)
    theirs = learner.learnParameters(template.dag())
    for v, name in enumerate(network.names):
        tensor = theirs.cpt(name)
        axes = list(reversed(tensor.names))  # toarray() puts the tensor's last variable first
        order = [network.names[p] for p in ours.parents[v]] + [name]
        table = np.transpose(np.asarray(tensor.toarray()), [axes.index(n) for n in order])
        np.testing.assert_allclose(ours.cpts[v], table, atol=1e-3)


def test_a_weighted_table_is_fitted_as_its_rows_repeated():
    """A completed (weighted) data set: every fit counts weights, so integer weights fit as repeated rows."""
    network = bx.read_bif("sample_data/networks/asia.bif.gz")
    codes = sample_codes(network, 60, seed=5)
    weights = np.random.default_rng(5).integers(1, 4, size=60)
    weighted = Dataset(codes, network.arities, network.names, network.states, weights=weights.astype(float))
    repeated = Dataset(np.repeat(codes, weights, axis=0), network.arities, network.names, network.states)
    dag = network.dag()
    for method in ("bdeu", "ml", "em"):
        a, b = bx.fit_network(dag, weighted, method=method), bx.fit_network(dag, repeated, method=method)
        assert all(np.allclose(x, y, rtol=1e-12, atol=0) for x, y in zip(a.cpts, b.cpts))


def test_data_that_does_not_match_the_network_is_named():
    network = Network("rain", ["rain", "wet"], [["no", "yes"], ["no", "yes"]], [[], [0]],
                      [[0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]]])
    other_states = Dataset.from_codes([[0, 1], [-1, 0]], names=["rain", "wet"], states=[["yes", "no"], ["no", "yes"]],
                                      arities=[2, 2], missing="em")
    with pytest.raises(DataError, match="^column 'rain' has states .* code the data with the network's states"):
        expected_counts(network, other_states)
    no_wet = Dataset.from_codes([[0], [-1]], names=["rain"], arities=[2], states=[["no", "yes"]], missing="em")
    with pytest.raises(DataError, match="^variable 'wet' of the network is not a column of the data"):
        observed_log_likelihood(network, no_wet)
    with pytest.raises(ScoreError, match="unknown fitting method 'em'.*bnexplore.fit_network"):
        fit_network(network.dag(), no_wet, method="em")  # bnexplore.bif's: EM lives a layer above

"""Structural EM (Friedman 1997, 1998) and learn's ``missing=``: the plain search on complete data, the
iteration of best observed-data BIC returned (and said so), the true skeleton recovered from blank data,
deterministic stops, progress, and the refusals."""

import doctest
import math
import re
from pathlib import Path

import numpy as np
import pytest

from bnexplore.bif import Network, sample_codes
from bnexplore.control import Control
from bnexplore.data import Dataset, read_csv
from bnexplore.em import em_fit
from bnexplore.errors import DataError, OptionError, SearchError
from bnexplore.knowledge import Knowledge
from bnexplore.search import EM_OPTIONS, SEARCHES, expected_count_searches, learn
from bnexplore.scores import Scorer
from bnexplore.search.hillclimb import hill_climb
from bnexplore.search.structural_em import TOLERANCE, structural_em
from fakes import FakeClock, StopAfter

ASIA = Path(__file__).resolve().parent.parent / "sample_data" / "asia.csv"


def strong_table(arity, parent_arities, p=0.85):
    """A CPT whose child follows its parent configuration (state ``config mod arity``) with probability p."""
    q = math.prod(parent_arities)
    rows = np.full((q, arity), (1 - p) / (arity - 1))
    rows[np.arange(q), np.arange(q) % arity] = p
    return rows.reshape(tuple(parent_arities) + (arity,))


def five():
    """A -> B, A -> C, B -> D <- C, D -> E: strong links, a v-structure at D."""
    arities = [2, 3, 2, 3, 2]
    parents = [[], [0], [0], [1, 2], [3]]
    tables = [np.array([0.4, 0.6])] + [strong_table(arities[v], [arities[p] for p in parents[v]])
                                       for v in range(1, 5)]
    return Network("five", list("ABCDE"), [[str(k) for k in range(r)] for r in arities], parents, tables)


def blank_sample(network, n, fraction, seed):
    codes = sample_codes(network, n, seed=seed).astype(np.int64)
    codes[np.random.default_rng(seed + 1).random(codes.shape) < fraction] = -1
    return Dataset.from_codes(codes, arities=network.arities, names=network.names, states=network.states,
                              missing="em")


@pytest.fixture(scope="module")
def blanks():
    return blank_sample(five(), 3000, 0.2, 1)


def skeleton(graph):
    return {frozenset(arc) for arc in graph.to_json()["arcs"]} | {frozenset(link) for link in graph.to_json()["links"]}


@pytest.mark.parametrize("algorithm", ["hc", "tabu", "rpdag", "ges"])
def test_on_complete_data_it_is_the_plain_search(algorithm):
    data = read_csv(ASIA).subset(slice(0, 2000))
    plain = learn(data, algorithm)
    em = structural_em(data, algorithm)
    assert em.graph == plain.graph and em.score == plain.score
    assert [(t["op"], t["args"]) for t in em.trajectory] == [(t["op"], t["args"]) for t in plain.trajectory]
    steps = em.extra["em"]["iterations"]
    assert [step["iteration"] for step in steps] == [1] and em.extra["em"]["returned"] == 1
    assert em.extra["em"]["note"] is None and em.extra["em"]["blank_cells"] == 0
    fitted = em_fit(plain.graph, data)
    assert steps[0]["log_likelihood"] == pytest.approx(fitted.fit["log_likelihoods"][-1])
    penalty = steps[0]["expected_score"] - Scorer(data, score="ll").total(plain.graph)  # nothing to complete
    assert steps[0]["observed_score"] == pytest.approx(steps[0]["log_likelihood"] + penalty, rel=1e-12)


def test_on_weighted_data_the_bic_counts_the_total_weight():
    data = Dataset.from_codes([[0, 1], [1, 1], [0, 0]], names=["a", "b"])
    weighted = Dataset(data.codes, data.arities, data.names, data.states, weights=[1.0, 2.5, 0.5])
    (step,) = structural_em(weighted, "hc").extra["em"]["iterations"]
    assert step["log_likelihood"] - step["observed_bic"] == pytest.approx(math.log(4.0) / 2 * 2)


@pytest.mark.parametrize("algorithm", ["hc", "tabu", "rpdag", "rpdag-tabu", "ges"])
def test_the_true_skeleton_is_found_with_a_fifth_of_the_cells_blank(blanks, algorithm):
    result = structural_em(blanks, algorithm)
    assert skeleton(result.graph) == skeleton(five().dag())
    assert result.stats["stopped"] is None and result.algorithm == algorithm
    assert result.params["missing"] == "em" and result.extra["em"]["blank_cells"] == blanks.n_blank


def blanks_as_a_state(data):
    """The data with each blank cell as a state of its own (after the variable's states)."""
    arities = np.asarray(data.arities)
    codes = np.where(data.blank, arities, data.codes.astype(np.int64))
    return Dataset.from_codes(codes, arities=arities + 1, names=data.names)


def test_every_iteration_is_rated_and_the_best_observed_score_returned(blanks):
    result = structural_em(blanks, "hc")
    em = result.extra["em"]
    steps = em["iterations"]
    assert [step["iteration"] for step in steps] == list(range(len(steps))) and len(steps) >= 2
    # the start: the search's graph with a blank as a state of its own (here the truth, so it repeats)
    start = hill_climb(Scorer(blanks_as_a_state(blanks)))
    assert steps[0]["arcs"] == start.graph.n_edges > 0 and steps[0]["changes"] == 0
    n_rows = blanks.n_rows
    for step in steps:
        assert step.keys() == {"iteration", "log_likelihood", "observed_bic", "observed_score", "expected_score",
                               "arcs", "changes", "seconds"}
        assert step["observed_bic"] < step["log_likelihood"] < 0
    best = max(steps, key=lambda step: step["observed_score"])
    assert em["returned"] == steps[-1]["iteration"] and steps[-1]["observed_score"] == best["observed_score"]
    assert em["note"] is None and em["rows"] == n_rows and em["completions"] == 1
    assert steps[-1]["changes"] == 0  # it stopped because the graph repeated
    network = em_fit(result.graph, blanks)  # to convergence: each iteration stops EM at TOLERANCE
    parameters = sum(t.size // t.shape[-1] * (t.shape[-1] - 1) for t in network.cpts)
    assert steps[-1]["observed_bic"] == pytest.approx(network.fit["log_likelihoods"][-1]
                                                      - math.log(n_rows) / 2 * parameters, rel=10 * TOLERANCE)


def three_records():
    """Five variables, a quarter of the cells blank: structural EM visits four graphs (seed 56)."""
    rng = np.random.default_rng(56)
    a = rng.integers(0, 3, 200)
    codes = np.column_stack([a, (a + rng.integers(0, 2, 200)) % 3, rng.integers(0, 3, 200), rng.integers(0, 2, 200),
                             (a > 0) ^ (rng.random(200) < .3)])
    codes[rng.random(codes.shape) < 0.25] = -1
    return Dataset.from_codes(codes, missing="em")


@pytest.mark.parametrize("which", ["repeats the start", "four graphs"])
def test_each_rating_is_cheeseman_stutz_on_the_completed_rows_the_graph_was_scored_on(blanks, monkeypatch, which):
    """Record k: the observed-data log-likelihood at network k's tables plus the search's score of graph k on
    completed table k (the start: on the first) minus that table's maximised log-likelihood, recomputed here
    from the tables and completed rows the run used; a graph met again keeps the rating of its first record
    (one network, one rating)."""
    from bnexplore.search import structural_em as module

    tables, networks = [], []
    real_completed, real_fit = module.completed_data, module.em_fit
    monkeypatch.setattr(module, "completed_data", lambda *a, **k: tables.append(real_completed(*a, **k)) or tables[-1])
    monkeypatch.setattr(module, "em_fit", lambda *a, **k: networks.append(real_fit(*a, **k)) or networks[-1])
    data = blanks if which == "repeats the start" else three_records()
    steps = structural_em(data, "hc", score="bdeu", ess=2.0).extra["em"]["iterations"]
    assert len(steps) >= 2 and len(tables) == len(steps) - 1
    assert any(step["changes"] for step in steps) == (which == "four graphs")
    first_met = {}  # graph -> (its network, its record)
    for k, step in enumerate(steps):
        table = tables[max(k - 1, 0)]
        key = None
        if k == 0 or step["changes"]:
            network = networks[len(first_met)]
            key = network.dag().adj.tobytes()
            assert key not in first_met
            first_met[key] = (network, step)
        else:  # the previous graph again: its network, its rating
            network, earlier = list(first_met.values())[-1]
            assert step["observed_score"] == earlier["observed_score"]
        graph = network.dag()
        expected = Scorer(table, score="bdeu", ess=2.0).total(graph)
        assert step["expected_score"] == pytest.approx(expected, rel=1e-12)
        assert step["log_likelihood"] == max(network.fit["run_log_likelihoods"])
        if key is not None:  # the maximised log-likelihood counted here: sum of N_ijk log(N_ijk / N_ij)
            codes, weights, most = np.asarray(table.codes), table.weights, 0.0
            for v in range(network.n_vars):
                family = [*network.parents[v], v]
                counts = {}
                for row, w in zip(map(tuple, codes[:, family]), weights):
                    counts[row] = counts.get(row, 0.0) + w
                parent_counts = {}
                for row, n in counts.items():
                    parent_counts[row[:-1]] = parent_counts.get(row[:-1], 0.0) + n
                most += sum(n * math.log(n / parent_counts[row[:-1]]) for row, n in counts.items())
            assert step["observed_score"] == pytest.approx(step["log_likelihood"] + expected - most, rel=1e-12)


def test_with_bic_the_rating_is_the_observed_bic(blanks):
    for step in structural_em(three_records(), "hc", score="bic").extra["em"]["iterations"]:
        assert step["observed_score"] == pytest.approx(step["observed_bic"], rel=1e-12)


def test_a_network_rated_below_an_earlier_one_ends_the_run_is_not_returned_and_the_note_says_so():
    result = structural_em(three_records(), "hc")  # its fourth graph draws an arc its rating does not pay for
    em = result.extra["em"]
    steps = em["iterations"]
    assert [step["iteration"] for step in steps] == [0, 1, 2, 3]
    assert steps[3]["observed_score"] < steps[2]["observed_score"] and steps[3]["changes"] > 0
    assert em["returned"] == 2 and result.graph.n_edges == steps[2]["arcs"] < steps[3]["arcs"]
    assert em["note"].startswith("iteration 2 has the best observed-data score") and "iteration 3" in em["note"]
    assert result.score == steps[2]["expected_score"]


def test_a_rating_that_rises_by_less_than_the_tolerance_ends_the_run(monkeypatch):
    """With a tolerance of the whole rating any rise is too small: the run ends at iteration 2 (iteration 3
    was rated below it anyway), the best returned."""
    from bnexplore.search import structural_em as module

    monkeypatch.setattr(module, "RATING_TOLERANCE", 1.0)
    em = structural_em(three_records(), "hc").extra["em"]
    assert [step["iteration"] for step in em["iterations"]] == [0, 1, 2] and em["returned"] == 2


@pytest.mark.parametrize("which", ["five", "three records"])
def test_every_iteration_but_the_last_raised_the_best_rating_by_the_tolerance(blanks, which):
    from bnexplore.search.structural_em import RATING_TOLERANCE

    steps = structural_em(blanks if which == "five" else three_records(), "hc").extra["em"]["iterations"]
    for k in range(2, len(steps) - 1):
        best = max(step["observed_score"] for step in steps[1:k])
        assert steps[k]["observed_score"] >= best + RATING_TOLERANCE * abs(best)


def test_stop_after_k_checks_is_deterministic_and_returns_the_best_so_far(blanks):
    counter = StopAfter(10**9)
    full = structural_em(blanks, "hc", stop=counter)
    assert full.stats["stopped"] is None
    runs = [structural_em(blanks, "hc", stop=StopAfter(counter.calls // 2)) for _ in range(2)]
    for run in runs:
        assert run.stats["stopped"] == "stopped"
        steps = run.extra["em"]["iterations"]
        assert 1 <= len(steps) < len(full.extra["em"]["iterations"])
        assert run.extra["em"]["returned"] == max(steps, key=lambda step: (step["observed_score"],
                                                                           step["iteration"]))["iteration"]
    assert runs[0].graph == runs[1].graph
    assert [s["log_likelihood"] for s in runs[0].extra["em"]["iterations"]] == [
        s["log_likelihood"] for s in runs[1].extra["em"]["iterations"]]
    first = structural_em(blanks, "hc", stop=StopAfter(1))  # stopped at once: the start is what there is
    assert first.stats["stopped"] == "stopped" and first.graph.n_edges == 0
    assert [s["iteration"] for s in first.extra["em"]["iterations"]] == [0]


def test_a_time_limit_on_a_fake_clock_stops_it(blanks):
    control = Control(time_limit=30, clock=FakeClock(1.0))
    result = structural_em(blanks, "hc", control=control)
    assert result.stats["stopped"] == "time limit"
    assert len(result.extra["em"]["iterations"]) >= 1


def test_progress_reports_each_iteration_with_its_log_likelihood():
    reports = []
    many = blank_sample(five(), 3000, 0.5, 3)  # half the cells blank: the start does not repeat at once
    result = structural_em(many, "hc", control=Control(reports.append, min_interval=0), em_iterations=2)
    steps = result.extra["em"]["iterations"]
    assert [s["iteration"] for s in steps] == [0, 1, 2]
    finished = [r for r in reports if re.fullmatch(r"structural EM, iteration \d: log-likelihood \S+", r["message"])]
    assert [r["iteration"] for r in finished] == [0, 1, 2]
    assert [len(r["em"]) for r in finished] == [1, 2, 3]
    assert [r["log_likelihood"] for r in finished] == [s["log_likelihood"] for s in steps]
    assert any(r["message"].startswith("structural EM, iteration 1: hc: step") for r in reports)  # the search's
    assert any(r["message"].startswith("structural EM, iteration 2: EM iteration") for r in reports)  # em_fit's
    assert finished[-1]["em"] == steps and reports[-1]["done"] == 1.0
    assert all(r["message"].startswith("structural EM") for r in reports)


def test_knowledge_and_search_options_reach_every_search(blanks):
    knowledge = Knowledge(require=[("E", "A")], forbid=[("A", "B"), ("B", "A")])
    result = structural_em(blanks, "tabu", knowledge=knowledge, tabu_length=3, iterations=5)
    arcs = [tuple(arc) for arc in result.graph.to_json()["arcs"]]
    assert ("E", "A") in arcs and ("A", "B") not in arcs and ("B", "A") not in arcs
    assert result.params["tabu_length"] == 3 and result.extra["em"]["iterations"][0]["arcs"] >= 1


def test_the_registry_says_which_searches_can_be_the_m_step():
    assert expected_count_searches() == ["hc", "tabu", "rpdag", "rpdag-tabu", "ges"]
    assert [SEARCHES[name].expected_counts for name in ("exact", "obs", "asobs", "pc", "mmhc")] == [False] * 5
    assert [(o.name, o.default, o.low) for o in EM_OPTIONS] == [("em_iterations", 10, 1), ("completions", 1, 1)]
    from bnexplore.em.completions import COMPLETIONS
    assert EM_OPTIONS[1].default == COMPLETIONS


def test_what_structural_em_refuses(blanks):
    with pytest.raises(SearchError, match="pc cannot learn from data with blank cells: .* hc, tabu, rpdag, "
                                          "rpdag-tabu, ges can"):
        structural_em(blanks, "pc")
    with pytest.raises(SearchError, match="it takes no start"):
        structural_em(blanks, "hc", start=None)
    with pytest.raises(SearchError, match="hc does not take alpha"):
        structural_em(blanks, "hc", alpha=0.1)
    with pytest.raises(OptionError, match="em_iterations must be a whole number >= 1, got 0"):
        structural_em(blanks, "hc", em_iterations=0)
    with pytest.raises(OptionError, match="completions must be a whole number >= 1"):
        structural_em(blanks, "hc", completions=0.5)
    with pytest.raises(OptionError, match="restarts must be a whole number >= 0"):
        structural_em(blanks, "hc", restarts=-1)


# -- learn's missing= ------------------------------------------------------------------------------

def test_learn_runs_structural_em_on_blank_data_by_default(blanks):
    result = learn(blanks, "hc", em_iterations=2, completions=8)
    assert result.params["missing"] == "em" and result.params["completions"] == 8
    assert len(result.extra["em"]["iterations"]) <= 3
    assert result.graph == structural_em(blanks, "hc", em_iterations=2, completions=8).graph


def test_learn_drops_the_incomplete_rows_or_refuses_them(blanks):
    dropped = learn(blanks, "hc", missing="drop")
    assert dropped.graph == learn(blanks.complete_rows(), "hc").graph and "em" not in dropped.extra
    with pytest.raises(DataError, match="learning with missing='error' needs complete rows, and the data has "
                                        f"{blanks.n_blank:,} blank cells"):
        learn(blanks, "hc", missing="error")
    with pytest.raises(OptionError, match="missing='state' is not one of em, drop, error"):
        learn(blanks, "hc", missing="state")


def test_learn_names_the_searches_that_can_learn_from_blank_data(blanks):
    for algorithm in ("exact", "pc", "mmhc", "obs"):
        with pytest.raises(SearchError, match=f"{algorithm} cannot learn from data with blank cells.*hc, tabu"):
            learn(blanks, algorithm)
    assert learn(blanks, "pc", missing="drop").algorithm == "pc"


def test_learn_ignores_missing_on_complete_data():
    data = read_csv(ASIA).subset(slice(0, 500))
    plain = learn(data, "hc")
    for missing in ("em", "drop", "error"):
        assert learn(data, "hc", missing=missing).graph == plain.graph
    assert "em" not in plain.extra


# -- Examples that run --------------------------------------------------------------------------------

def example_functions():
    from bnexplore.em import completions, imputation
    from bnexplore.search import registry, structural_em as module
    return [completions.completed_data, completions.network_arrays, completions.distinct_rows, imputation.impute,
            module.structural_em, registry.expected_count_searches]


@pytest.mark.parametrize("function", example_functions(), ids=lambda f: f.__name__)
def test_the_examples_of_the_structural_em_functions_run(function):
    (test,) = doctest.DocTestFinder(recurse=False).find(function, globs=dict(function.__globals__))
    assert test.examples, f"{function.__name__} has no Examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0

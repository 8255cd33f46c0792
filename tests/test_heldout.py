"""Held-out likelihood (bnexplore.heldout, the ``cv`` command): each fold's log-likelihood per row equals one
computed here by counting (the BDeu posterior mean, or maximum likelihood) and summing the log probabilities
of the test rows; the folds are the seed's and the same for every method; a given DAG is never relearned; a
stop keeps what finished and says so; bad input is refused in the words of its door."""

import itertools
import json
import math

import numpy as np
import pytest

from bnexplore import heldout
from bnexplore.cli import main
from bnexplore.data import Dataset
from bnexplore.em import em_fit
from bnexplore.errors import BNExploreError, OptionError
from bnexplore.graphs import DAG
from bnexplore.heldout import cross_validate_networks, fold_assignment
from bnexplore.search import learn
from fakes import StopAfter

NAMES = ["a", "b", "c", "d"]


def random_data(n=160, seed=0):
    """Four variables (arities 2, 3, 2, 3) with dependences, and a state of d seen in one row only."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = (a + rng.integers(0, 2, n)) % 3
    c = (b > 0).astype(int) ^ (rng.random(n) < 0.2)
    d = rng.integers(0, 2, n)
    d[7] = 2  # one row has a state no training set of its fold holds
    return Dataset.from_codes(np.column_stack([a, b, c, d]), names=NAMES)


def counted_log_likelihood(dag, train, test, ess, method):
    """Per test row: the log probability under tables counted from ``train`` for ``dag``, one cell at a time."""
    total = 0.0
    for row in test.codes:
        for v, name in enumerate(dag.names):
            column = train.index(name)
            parents = [train.index(dag.names[p]) for p in dag.parents(v)]
            r = int(train.arities[column])
            q = math.prod(int(train.arities[p]) for p in parents)
            match = np.all(train.codes[:, parents] == row[parents], axis=1) if parents else np.ones(train.n_rows, bool)
            n_j = int(match.sum())
            n_jk = int((match & (train.codes[:, column] == row[column])).sum())
            if method == "bdeu":
                p = (n_jk + ess / (q * r)) / (n_j + ess / q)
            else:
                p = n_jk / n_j if n_j else 1.0 / r
            total += math.log(p) if p > 0 else -math.inf
    return total / test.n_rows


def folds_of(result, data, fold):
    return data.subset(result.assignment != fold), data.subset(result.assignment == fold)


@pytest.mark.parametrize("ess", [1.0, 4.0])
def test_each_fold_equals_counting_and_summing_log_probabilities(ess):
    data = random_data()
    chain = DAG.from_arcs([("a", "b"), ("b", "c")], NAMES)
    methods = {"hc": "hc", "chain": chain, "empty": DAG.empty(NAMES)}
    result = cross_validate_networks(data, methods, folds=4, seed=3, ess=ess)
    table = result.table()
    assert len(table) == 12 and list(table["fold"]) == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    for row in table.to_dict("records"):
        train, test = folds_of(result, data, row["fold"])
        assert row["test_rows"] == test.n_rows
        dag = methods[row["method"]] if row["method"] != "hc" else learn(train, "hc", ess=ess).graph
        assert row["arcs"] == dag.n_edges
        assert row["log_likelihood"] == pytest.approx(counted_log_likelihood(dag, train, test, ess, "bdeu"),
                                                      rel=1e-12)
        assert np.isfinite(row["log_likelihood"])  # the state seen once keeps mass under BDeu
    summary = result.summary().set_index("method")
    for name in methods:
        values = table.loc[table["method"] == name, "log_likelihood"]
        assert summary.loc[name, "folds"] == 4
        assert summary.loc[name, "mean"] == pytest.approx(values.mean())
        assert summary.loc[name, "sd"] == pytest.approx(values.std(ddof=1))
    assert summary.loc["chain", "mean"] > summary.loc["empty", "mean"]  # the dependences predict


def test_maximum_likelihood_gives_an_unseen_state_probability_zero_and_says_so():
    data = random_data()
    methods = {"chain": DAG.from_arcs([("a", "b"), ("b", "c")], NAMES)}
    result = cross_validate_networks(data, methods, folds=4, seed=3, method="ml")
    unseen = int(result.assignment[7])  # the fold testing the one row with d = 2
    for row in result.table().to_dict("records"):
        train, test = folds_of(result, data, row["fold"])
        expected = counted_log_likelihood(methods["chain"], train, test, 1.0, "ml")
        if row["fold"] == unseen:
            assert row["log_likelihood"] == expected == -math.inf
        else:
            assert row["log_likelihood"] == pytest.approx(expected, rel=1e-12)
    assert result.notes == [f"chain, fold {unseen}: a held-out row has probability 0 under the maximum-likelihood "
                            "tables (a state or combination the training rows never show); fit with the BDeu prior "
                            "to give it mass"]
    summary = result.summary()
    assert summary.loc[0, "mean"] == -math.inf and math.isnan(summary.loc[0, "sd"])
    payload = result.to_json()
    json.dumps(payload, allow_nan=False)  # strict JSON: -inf as text, NaN as null
    assert payload["summary"][0]["mean"] == "-inf" and payload["summary"][0]["sd"] is None


def test_the_folds_are_the_seeds_and_the_same_for_every_method():
    data = random_data(n=50)
    methods = {"empty": DAG.empty(NAMES), "ab": DAG.from_arcs([("a", "b")], NAMES)}
    first = cross_validate_networks(data, methods, folds=5, seed=11)
    again = cross_validate_networks(data, methods, folds=5, seed=11)
    other = cross_validate_networks(data, methods, folds=5, seed=12)
    assert np.array_equal(first.assignment, fold_assignment(50, 5, 11))
    assert np.array_equal(first.assignment, again.assignment)
    assert not np.array_equal(first.assignment, other.assignment)
    assert sorted(np.bincount(first.assignment)[1:]) == [10] * 5
    assert first.table().equals(again.table().assign(seconds=first.table()["seconds"]))
    for name in methods:  # every method was tested on the rows of the same fold: the counted values match
        for row in first.table().query("method == @name").to_dict("records"):
            train, test = folds_of(first, data, row["fold"])
            assert row["log_likelihood"] == pytest.approx(
                counted_log_likelihood(methods[name], train, test, 1.0, "bdeu"), rel=1e-12)
    unseeded = cross_validate_networks(data, methods, folds=5)  # the entropy drawn is kept: the run repeats
    repeated = cross_validate_networks(data, methods, folds=5, seed=unseeded.params["seed"])
    assert np.array_equal(unseeded.assignment, repeated.assignment)


def test_a_given_dag_is_not_relearned(monkeypatch):
    data = random_data(n=60)
    calls = []
    real = heldout.learn

    def counting(train, algorithm, **options):
        calls.append((algorithm, train.n_rows, options.get("seed")))
        return real(train, algorithm, **options)

    monkeypatch.setattr(heldout, "learn", counting)
    odd = DAG.from_arcs([("d", "a"), ("c", "d")], NAMES)  # arcs no search finds in these data
    result = cross_validate_networks(data, {"given": odd, "hc": "hc"}, folds=3, seed=5)
    assert calls == [("hc", 40, 5)] * 3  # hill climbing on each training set, with the seed; the DAG never
    given = result.table().query("method == 'given'")
    assert list(given["algorithm"]) == ["given"] * 3 and list(given["arcs"]) == [2] * 3
    assert result.params["algorithms"] == {"given": "given", "hc": "hc"}


def test_a_stop_after_k_checks_keeps_the_folds_that_finished_and_says_so():
    data = random_data(n=40)
    methods = {"empty": DAG.empty(NAMES), "ab": DAG.from_arcs([("a", "b")], NAMES)}
    reports = []
    result = cross_validate_networks(data, methods, folds=4, seed=1, stop=StopAfter(5), progress=reports.append)
    table = result.table()
    assert list(zip(table["method"], table["fold"])) == [("empty", 1), ("ab", 1), ("empty", 2), ("ab", 2)]
    assert result.stats["stopped"] == "stopped" and result.stats["folds_done"] == 2
    assert result.notes[0] == ("stopped after 2 of 4 folds (4 of 8 method-fold pairs): the table holds those that "
                               "finished")
    assert list(result.summary()["folds"]) == [2, 2]
    assert [r["done"] for r in reports] == [0.0, 0.125, 0.25, 0.375, 1.0]
    assert reports[1]["message"] == "fold 1 of 4: ab"


def test_a_search_cut_by_the_stop_is_dropped():
    data = random_data(n=40)
    result = cross_validate_networks(data, {"empty": DAG.empty(NAMES), "hc": "hc"}, folds=4, seed=1,
                                     stop=StopAfter(3))  # the cv's two checks, then the search's first
    assert list(result.table()["method"]) == ["empty"]
    assert result.stats["stopped"] == "stopped" and result.stats["folds_done"] == 0


def test_a_time_limit_ends_the_run_between_folds():
    from fakes import FakeClock
    from bnexplore.control import Control

    data = random_data(n=40)
    control = Control(time_limit=3.5, clock=FakeClock(1.0))  # the start reads 1; each check reads one more
    result = cross_validate_networks(data, {"empty": DAG.empty(NAMES)}, folds=4, seed=1, control=control)
    assert result.stats["stopped"] == "time limit" and len(result.rows) < 4
    assert result.notes[0].startswith("time limit after ")


@pytest.mark.parametrize("folds, words", [
    (1, "folds must be a whole number >= 2 and <= 40, got 1 (from 2 to the data's 40 rows"),
    (41, "folds must be a whole number >= 2 and <= 40, got 41"),
    (2.5, "got 2.5"), ("3", "got '3'"), (True, "got True")])
def test_bad_folds_are_refused(folds, words):
    with pytest.raises(OptionError, match=words.replace("(", r"\(").replace(".", r"\.")):
        cross_validate_networks(random_data(n=40), {"e": DAG.empty(NAMES)}, folds=folds)


def test_bad_input_is_refused_before_any_work():
    data = random_data(n=40)
    with pytest.raises(OptionError, match="needs at least 2 rows, and the data has 1"):
        cross_validate_networks(data.subset([0]), {"e": DAG.empty(NAMES)}, folds=2)
    for methods, words in [({}, "at least one entry"), ({"x": "hx"}, "unknown algorithm 'hx'"),
                           ({"x": DAG.empty(["a", "b"])}, r"only in the data: \['c', 'd'\]"),
                           ({"x": 3}, r"methods\['x'\] must be a search name .* got int"),
                           ({"": "hc"}, "non-empty text")]:
        with pytest.raises(BNExploreError, match=words):
            cross_validate_networks(data, methods, folds=2)
    with pytest.raises(BNExploreError, match="method must be 'bdeu'"):
        cross_validate_networks(data, {"e": DAG.empty(NAMES)}, method="em")
    with pytest.raises(BNExploreError, match="ess must be a finite number >= 0"):
        cross_validate_networks(data, {"e": DAG.empty(NAMES)}, ess=-1)
    blank = Dataset.from_codes([[0, 1], [-1, 0], [1, 1], [0, 0]], names=["a", "b"], missing="em")
    with pytest.raises(BNExploreError, match="pc cannot learn from data with blank cells .* missing='drop'"):
        cross_validate_networks(blank, {"e": DAG.empty(["a", "b"]), "p": "pc"}, folds=2)


def blanked(data, rate=0.15, seed=3):
    """``data`` with each cell blank with probability ``rate`` (read as ``missing="em"``)."""
    codes = np.array(data.codes, dtype=np.int64)
    codes[np.random.default_rng(seed).random(codes.shape) < rate] = -1
    return Dataset.from_codes(codes, names=data.names, arities=data.arities, missing="em")


def summed_log_likelihood(network, test):
    """Per test row: log of the sum, over every completion of its blank cells, of the product of the network's
    table entries (the blank cells summed out by brute force)."""
    total = 0.0
    arities = [len(states) for states in network.states]
    for row, blank in zip(test.codes, test.blank):
        free = np.flatnonzero(blank)
        p = 0.0
        for states in itertools.product(*(range(arities[v]) for v in free)):
            full = np.array(row, dtype=np.int64)
            full[free] = states
            p += math.prod(float(network.cpts[v][tuple(full[list(network.parents[v])]) + (full[v],)])
                           for v in range(len(arities)))
        total += math.log(p)
    return total / test.n_rows


@pytest.mark.parametrize("method, ess", [("bdeu", 1.0), ("ml", 0.0)])
def test_blank_cells_score_the_observed_cells_under_tables_fitted_by_em(method, ess):
    data = blanked(random_data(n=120))
    given = DAG.from_arcs([("a", "b"), ("b", "c")], NAMES)
    result = cross_validate_networks(data, {"given": given, "hc": "hc"}, folds=3, seed=5, ess=max(ess, 1.0),
                                     method=method)
    assert result.params["missing"] == "em" and "blank cells" in result.notes[-1]
    rows = result.table().set_index(["method", "fold"])
    for fold in (1, 2, 3):
        train, test = folds_of(result, data, fold)
        network = em_fit(given, train, ess=ess if method == "ml" else 1.0)
        assert rows.loc[("given", fold), "log_likelihood"] == pytest.approx(summed_log_likelihood(network, test),
                                                                            rel=1e-9)
        learned = learn(train, "hc", seed=result.params["seed"])  # structural EM, as on the training rows
        assert learned.extra["em"]["iterations"]
        fitted = em_fit(learned.graph, train, ess=ess if method == "ml" else 1.0)
        assert rows.loc[("hc", fold), "log_likelihood"] == pytest.approx(summed_log_likelihood(fitted, test),
                                                                         rel=1e-9)


# -- the command line ------------------------------------------------------------------------------------------

ASIA = "sample_data/asia.csv"
ASIA_BIF = "sample_data/networks/asia.bif.gz"


@pytest.fixture
def root(monkeypatch):
    monkeypatch.chdir(__import__("pathlib").Path(__file__).resolve().parent.parent)


def test_the_cv_command_prints_the_summary_and_table_of_the_library(root, capsys):
    code = main(["cv", ASIA, "--algorithm", "hc", "--graph", ASIA_BIF, "--folds", "3", "--seed", "1", "--quiet"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [(row["method"], row["folds"]) for row in out["summary"]] == [("hc", 3), (ASIA_BIF, 3)]
    assert [(row["method"], row["fold"]) for row in out["table"]] == [
        ("hc", 1), (ASIA_BIF, 1), ("hc", 2), (ASIA_BIF, 2), ("hc", 3), (ASIA_BIF, 3)]
    from bnexplore.data import read_table
    from bnexplore.formats import read_graph

    api = cross_validate_networks(read_table(ASIA, missing="state"), {"truth": read_graph(ASIA_BIF)}, folds=3,
                                  seed=1)
    assert [row["log_likelihood"] for row in out["table"] if row["method"] == ASIA_BIF] == pytest.approx(
        list(api.table()["log_likelihood"]), rel=1e-12)
    assert out["params"]["seed"] == 1 and out["params"]["algorithms"] == {"hc": "hc", ASIA_BIF: "given"}


def test_the_cv_command_refuses_bad_flags_in_one_line(root, capsys):
    assert main(["cv", ASIA, "--algorithm", "hc", "--folds", "1"]) == 1
    assert capsys.readouterr().err == "error: --folds must be a whole number >= 2, got 1\n"
    assert main(["cv", ASIA, "--folds", "3"]) == 1
    assert capsys.readouterr().err == "error: give at least one --algorithm or --graph to cross-validate\n"
    assert main(["cv", ASIA, "--graph", ASIA_BIF, "--folds", "6000"]) == 1
    assert capsys.readouterr().err.startswith("error: --folds must be a whole number >= 2 and <= 5,000, got 6000")


@pytest.mark.filterwarnings("ignore:column .respondent_id. looks like a row identifier")
def test_the_cv_command_learns_from_blank_cells_with_missing_em(root, capsys):
    survey = "tests/fixtures/survey.csv"
    flags = ["--missing", "em", "--discretize", "quantile:3", "--folds", "3", "--seed", "2", "--quiet"]
    assert main(["cv", survey, "--algorithm", "hc", *flags]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert any("blank cells" in note for note in payload["notes"])
    assert all(math.isfinite(row["log_likelihood"]) for row in payload["table"])
    assert main(["cv", survey, "--algorithm", "pc", *flags]) == 1
    assert capsys.readouterr().err.startswith("error: pc cannot learn from data with blank cells")


# -- the app ---------------------------------------------------------------------------------------------------

def test_the_compare_page_runs_a_held_out_likelihood_of_two_methods_and_shows_the_librarys_table():
    """On asia: hill climbing and the ground truth, 3 folds, seed 7; the table holds the library's numbers."""
    from test_app import go, new_session, no_exception

    at = new_session()
    go(at, "5_Compare")
    truth = "ground truth: asia"
    at.multiselect(key="keep.cv_searches").set_value(["hc"])
    at.multiselect(key="cv_networks").set_value([truth])
    at.number_input(key="keep.cv_folds").set_value(3)
    at.number_input(key="keep.cv_seed").set_value(7)
    at.run()
    at.button(key="cv_run").click()
    at.run()
    no_exception(at)
    job = at.session_state["cv_job"]
    assert job.wait(600), "the cross-validation did not finish"
    at.run()
    no_exception(at)
    assert not job.errors, job.errors
    tables = [frame.value for frame in at.dataframe if "log_likelihood" in frame.value.columns]
    assert len(tables) == 1
    table = tables[0]
    assert [(m, f) for m, f in zip(table["method"], table["fold"])] == [
        ("hc", 1), (truth, 1), ("hc", 2), (truth, 2), ("hc", 3), (truth, 3)]
    data = at.session_state["dataset"]
    expected = cross_validate_networks(data, {truth: at.session_state["truth"].dag()}, folds=3, seed=7)
    assert list(table.loc[table["method"] == truth, "log_likelihood"]) == pytest.approx(
        list(expected.table()["log_likelihood"]), rel=1e-12)
    summaries = [frame.value for frame in at.dataframe if list(frame.value.columns) == ["method", "folds", "mean", "sd"]]
    assert len(summaries) == 1 and list(summaries[0]["folds"]) == [3, 3]
    assert any("Log-likelihood per held-out row" in md.value for md in at.markdown)


def test_stop_on_the_compare_page_keeps_the_folds_that_finished_and_says_so(monkeypatch):
    """The search of fold 2 waits for Stop: fold 1 is kept for both methods, the cut search is left out."""
    import threading

    from test_app import go, new_session, no_exception
    from test_app_search import until

    waiting, real, calls = threading.Event(), heldout.learn, []

    def learn_waiting_on_fold_2(train, algorithm, stop=None, **options):
        calls.append(algorithm)
        if len(calls) == 2:
            waiting.set()
            until(stop, "Stop to be pressed", seconds=300)
        return real(train, algorithm, stop=stop, **options)

    monkeypatch.setattr(heldout, "learn", learn_waiting_on_fold_2)
    at = new_session()
    go(at, "5_Compare")
    truth = "ground truth: asia"
    at.multiselect(key="keep.cv_searches").set_value(["hc"])
    at.multiselect(key="cv_networks").set_value([truth])
    at.run()
    at.button(key="cv_run").click()
    at.run()
    job = at.session_state["cv_job"]
    until(waiting.is_set, "the search of fold 2 to start")
    at.run()
    at.button(key="cv_stop").click()
    at.run()
    assert job.wait(120)
    at.run()
    no_exception(at)
    table = next(frame.value for frame in at.dataframe if "log_likelihood" in frame.value.columns)
    assert [(m, f) for m, f in zip(table["method"], table["fold"])] == [("hc", 1), (truth, 1)]
    assert any(note.value.startswith("Stopped after 1 of 5 folds (2 of 10 method-fold pairs)") for note in at.info)
    assert at.button(key="cv_run").disabled is False

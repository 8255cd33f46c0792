"""The scoreboard (bnexplore.search.scoreboard): every row's numbers against their definitions, computed
here from the graphs and scores directly; when the gap and the credible verdict must be "unknown"."""

import math

import pytest

from bnexplore import bundled, read_csv
from bnexplore.bif import read_bif
from bnexplore.graphs import DAG, shd
from bnexplore.graphs.compare import adjacency_precision_recall, arrowhead_precision_recall
from bnexplore.knowledge import Knowledge
from bnexplore.scores import Scorer
from bnexplore.search.exact import exact_search
from bnexplore.search.hillclimb import hill_climb, tabu_search
from bnexplore.search.scoreboard import COLUMNS, covers, in_credible_set, learned_class, scoreboard


@pytest.fixture(scope="module")
def asia():
    data = read_csv("sample_data/asia.csv")
    scorer = Scorer(data, score="bic")
    truth = read_bif(bundled.network_path("asia")).dag()
    results = {"hc": hill_climb(scorer), "tabu": tabu_search(scorer), "exact": exact_search(scorer, max_indegree=3)}
    return scorer, truth, results


def test_every_row_against_its_definition(asia):
    scorer, truth, results = asia
    rows = scoreboard(results, truth.cpdag(), bf=20.0)
    assert [row["name"] for row in rows] == ["hc", "tabu", "exact"]
    best = results["exact"]
    for row in rows:
        result = results[row["name"]]
        assert set(row) == {"name", *COLUMNS}
        assert row["score"] == result.score
        assert row["gap"] == pytest.approx(best.score - result.score) and row["gap"] >= -1e-6
        assert row["in_credible_set"] == (result.score >= best.score - math.log(20.0) - 1e-6)
        learned, true = result.graph.cpdag(), truth.cpdag()
        assert row["shd_truth"] == shd(learned, true)
        assert row["shd_optimum"] == shd(learned, best.graph.cpdag())
        assert (row["adjacency_precision"], row["adjacency_recall"]) == adjacency_precision_recall(learned, true)
        assert (row["arrowhead_precision"], row["arrowhead_recall"]) == arrowhead_precision_recall(learned, true)
    assert rows[2]["gap"] == 0 and rows[2]["shd_optimum"] == 0 and rows[2]["in_credible_set"] is True


def test_the_credible_verdict_at_the_threshold():
    opt = -1000.0
    edge = opt - math.log(20.0)
    assert in_credible_set(edge, opt, 20.0, "bdeu") is True
    assert in_credible_set(edge - 1e-3, opt, 20.0, "bdeu") is False
    assert in_credible_set(edge - 1e-3, opt, 21.0, "bdeu") is True  # a larger factor lets it in
    assert in_credible_set(opt, None, 20.0, "bdeu") is None
    assert in_credible_set(opt, opt, 20.0, "k2") is None  # not score-equivalent: the class has many scores


def test_no_gap_when_the_optimum_does_not_cover_the_graph(asia):
    scorer, truth, results = asia
    hc = results["hc"]
    most = max(len(ps) for ps in hc.graph.parent_sets())
    assert most >= 2
    narrow = exact_search(scorer, max_indegree=1)
    assert not covers(narrow, hc)  # its space lacks hc's graph: "optimum" could be below hc's score
    stopped = exact_search(scorer, max_indegree=3)
    stopped.stats["stopped"] = True
    other_score = exact_search(Scorer(scorer.data, score="bdeu", ess=1.0), max_indegree=3)
    arc = next(iter(hc.graph.arcs()))
    forbid = [hc.graph.names[arc[0]], hc.graph.names[arc[1]]]
    forbidden = exact_search(scorer, max_indegree=3, knowledge=Knowledge(forbid=[forbid]))
    for optimum in (narrow, stopped, other_score, forbidden):
        row = scoreboard({"hc": hc}, truth, optima=[optimum])[0]
        assert row["gap"] is None and row["in_credible_set"] is None and row["shd_optimum"] is None
    assert scoreboard({"hc": hc}, truth, optima=[narrow, results["exact"]])[0]["gap"] is not None


def test_unknown_truth_and_other_variables_leave_the_truth_columns_empty(asia):
    _, truth, results = asia
    row = scoreboard({"hc": results["hc"]})[0]
    assert row["shd_truth"] is None and row["adjacency_precision"] is None and row["gap"] is None
    fewer = DAG.from_arcs([("asia", "tub")], ["asia", "tub"])
    row = scoreboard({"hc": results["hc"]}, fewer)[0]
    assert row["shd_truth"] is None and row["arrowhead_recall"] is None


def test_a_class_the_search_reports_is_the_one_compared(asia):
    """PC and GES put their class in extra["cpdag"]: its marks count, not those of its DAG's CPDAG."""
    _, truth, results = asia
    hc = results["hc"]
    reported = truth.cpdag()
    hc.extra["cpdag"] = reported
    try:
        assert learned_class(hc) is reported
        row = scoreboard({"pc": hc}, truth)[0]
        assert row["shd_truth"] == 0 and row["arrowhead_recall"] == 1.0
    finally:
        del hc.extra["cpdag"]


def test_pc_and_ges_rows_compare_the_class_they_report(asia):
    """PC-stable's pattern and GES's CPDAG (extra["cpdag"]) are what the truth and the optimum are compared with;
    their score is that of the DAG each returns, so the gap and the credible verdict read it."""
    from bnexplore.search import learn

    scorer, truth, results = asia
    found = {name: learn(scorer.data, name, score="bic") for name in ("pc", "ges")}
    rows = {row["name"]: row for row in scoreboard({**found, "exact": results["exact"]}, truth, bf=20.0)}
    best = results["exact"]
    for name, result in found.items():
        reported = result.extra["cpdag"]
        row = rows[name]
        assert row["shd_truth"] == shd(reported, truth.cpdag())
        assert row["shd_optimum"] == shd(reported, best.graph.cpdag())
        assert (row["arrowhead_precision"], row["arrowhead_recall"]) == arrowhead_precision_recall(
            reported, truth.cpdag())
        assert row["edges"] == reported.n_edges
        assert row["gap"] == pytest.approx(best.score - result.score)

"""The Compare page's table of every search, as a user clicks it: one click runs every registered search on
the data in use (asia sample) and the table shows each network beside the optimum and the truth, with the
numbers the library computes; Stop ends the run; the exact search is left out when the engine estimate says
it would not finish. Every wait is on a state the job reaches, never on the clock."""

import threading

import pytest

from bnexplore.search import SEARCHES
from bnexplore.search.scoreboard import EXACT_ALGORITHMS, optimum_for, scoreboard_row
from bnexplore_app import algorithms
from test_app import go, new_session, no_exception
from test_app_search import until


@pytest.fixture
def at():
    return new_session()


def run_every(at):
    go(at, "5_Compare")
    at.button(key="cmp_run_every").click()
    at.run()
    no_exception(at)
    return at.session_state["job"]


def shown(value, form="{:.2f}"):
    return "—" if value is None else form.format(value)


def scoreboard_table(at):
    frames = [frame.value for frame in at.dataframe if "SHD truth (CPDAGs)" in frame.value.columns]
    assert len(frames) == 1
    return frames[0].set_index("network")


def test_one_click_runs_every_search_and_the_table_holds_the_librarys_numbers(at):
    job = run_every(at)
    assert [task.algorithm for task in job.tasks] == list(SEARCHES)  # every registered search: asia is small
    assert job.wait(600), "the searches did not finish"
    at.run()
    no_exception(at)
    results = at.session_state["results"]
    ran = {task.name for task, _, _ in job.results}
    assert ran <= set(results)
    table = scoreboard_table(at)
    truth = at.session_state["truth"].dag()
    entries = {name: results[name] for name in ran}
    truth_name = "ground truth: asia"
    assert set(table.index) == ran | {truth_name}
    optima = [e.result for e in entries.values() if e.result.algorithm in EXACT_ALGORITHMS]
    assert optima, "the exact search ran on asia"
    bf = at.session_state["settings"]["bf"]
    for name, entry in entries.items():
        row = scoreboard_row(entry.result, truth, optimum_for(entry.result, optima), bf)
        got = table.loc[name]
        assert got["search"] == entry.result.algorithm
        assert got["score"] == pytest.approx(entry.result.score)
        assert got["gap"] == shown(row["gap"], "{:.4f}")
        assert got[f"credible (BF {bf:g})"] == {True: "yes", False: "no", None: "unknown"}[row["in_credible_set"]]
        assert got["SHD truth (CPDAGs)"] == shown(row["shd_truth"], "{}")
        assert got["SHD optimum (CPDAGs)"] == shown(row["shd_optimum"], "{}")
        for key in ("adjacency precision", "adjacency recall", "arrowhead precision", "arrowhead recall"):
            assert got[key] == shown(row[key.replace(" ", "_")]), key
    hc = next(name for name, e in entries.items() if e.result.algorithm == "hc")
    assert table.loc[hc, "gap"] != "—"  # the exact search's space holds hill climbing's graph
    exact = next(name for name, e in entries.items() if e.result.algorithm == "exact")
    assert table.loc[exact, "gap"] == "0.0000" and table.loc[exact, "SHD optimum (CPDAGs)"] == "0"
    assert table.loc[truth_name, "SHD truth (CPDAGs)"] == "0"
    assert not job.errors, job.errors
    assert [task.algorithm for task, _, _ in job.results] == list(SEARCHES)
    # the constraint-based, equivalence-class and hybrid searches sit in the same table
    assert {"pc", "ges", "mmhc"} <= set(table["search"])


def test_stop_ends_the_run_and_keeps_what_finished(at, monkeypatch):
    """Tabu (second in the registry) waits for Stop; after it, no other search starts."""
    waiting = threading.Event()
    plain = algorithms.REGISTRY["tabu"]

    def run(inputs, options, control):
        waiting.set()
        control.stop.wait(120)
        return plain.run(inputs, options, control)

    monkeypatch.setitem(algorithms.REGISTRY, "tabu", algorithms.Algorithm(
        "tabu", plain.label, plain.about, run, plain.options, plain.replay))
    job = run_every(at)
    until(waiting.is_set, "tabu to start")
    at.run()
    at.button(key="cmp_stop").click()
    at.run()
    assert job.wait(120)
    at.run()
    no_exception(at)
    assert [task.algorithm for task, _, _ in job.results] == ["hc", "tabu"]
    assert set(scoreboard_table(at)["search"]) == {"ground truth", "hc", "tabu"}
    assert at.button(key="cmp_run_every").disabled is False


def test_the_exact_search_is_left_out_when_the_engine_estimate_says_it_would_not_finish(at, monkeypatch):
    monkeypatch.setattr("bnexplore.search.engine.choose_engine", lambda n, task: (
        "ilp", "branch and cut on SCIP: its time depends on how tight the LP relaxation is", None))
    job = run_every(at)
    assert "exact" not in [task.algorithm for task in job.tasks] and "hc" in [task.algorithm for task in job.tasks]
    assert job.wait(600)
    at.run()
    no_exception(at)
    caption = " ".join(c.value for c in at.caption)
    assert "Left out: the exact search (it would run the branch and cut on SCIP, in a time no formula" in caption
    table = scoreboard_table(at)
    assert (table["gap"] == "—").all() and (table["credible (BF 20)"] == "unknown").all()
    assert "need the optimum" in caption


def test_before_any_search_the_table_holds_the_truth_and_the_button(at):
    go(at, "5_Compare")
    assert not any("gets (less when" in m.value for m in at.markdown)  # no constant's words drawn by magic
    table = scoreboard_table(at)
    assert list(table.index) == ["ground truth: asia"]
    assert table.loc["ground truth: asia", "adjacency precision"] == "1.00"
    assert at.button(key="cmp_run_every").disabled is False

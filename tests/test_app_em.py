"""The app on a table with blank cells, as a user clicks it: *Missing values: em* on the Data page, every page
on the blank data, a structural EM search with its log-likelihood chart, Stop, the completed table, and a
saved session that keeps the blanks.

Every wait here is on a state the page or the job reaches (an event, a report), never on the clock.
"""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from bnexplore.control import Control
from bnexplore.search import SEARCHES
from bnexplore_app import algorithms
from test_app import errors, go, new_session, no_exception, upload
from test_app_search import start_search, until
from test_app_session import downloads, open_file  # noqa: F401 - downloads is a fixture

SURVEY = (Path(__file__).resolve().parent / "fixtures" / "survey.csv").read_bytes()
BLANK_COLUMNS = {"age": 4, "education": 3, "income_k": 6, "exercise": 2, "satisfaction": 3, "outcome": 9}


def chart_rows(chart):
    """The rows a drawn Altair chart holds: those in its spec and those Streamlit sends apart (Arrow)."""
    spec = json.loads(chart.proto.spec)
    rows = [row for data in spec.get("datasets", {}).values() for row in data]
    for named in chart.proto.datasets:
        rows += pa.ipc.open_stream(named.data.data).read_all().to_pylist()
    return rows


def missing_values(at):
    return next(radio for radio in at.radio if radio.label == "Missing values")


def with_em(at):
    """Upload the survey (an ID column, numbers, text, 27 blank cells) and choose *Missing values: em*."""
    upload(at, "survey.csv", SURVEY)
    missing_values(at).set_value("em")
    at.run()
    no_exception(at)
    return at.session_state["dataset"]


@pytest.fixture(scope="module")
def at():
    return new_session()


def test_em_is_offered_and_keeps_the_blanks(at):
    go(at, "1_Data")
    assert missing_values(at).options == ["state", "drop", "error", "em"]
    data = with_em(at)
    assert data.n_rows == 300 and "respondent_id" not in data.names  # the ID column is left out, no row dropped
    assert data.blank_columns() == BLANK_COLUMNS and data.n_blank == 27
    assert all("<missing>" not in states for states in data.states)  # a blank is no state of its own
    assert at.session_state["encoding"]["missing"] == "em"
    page = " ".join(block.value for block in at.info)
    assert "27 blank cells in 6 columns" in page and "273 rows without a blank cell" in page
    assert not errors(at)


def test_every_page_works_on_blank_data_and_says_what_scores_count(at):
    with_em(at)
    go(at, "2_Tune")
    assert not errors(at)
    text = " ".join(c.value for c in at.caption) + " ".join(i.value for i in at.info)
    assert "timed on the 273 rows without a blank cell" in text and "need complete rows" in text
    assert "then twice per iteration on the completed rows (by default one per row)" in text  # the library's default
    go(at, "3_Search")
    assert not errors(at)
    offered = at.multiselect(key="keep.search_algorithms").options
    assert sorted(offered) == sorted(algorithms.REGISTRY[k].label for k in algorithms.REGISTRY
                                     if algorithms.learns_by_em(k))
    assert "by structural EM" in " ".join(i.value for i in at.info)
    note = next(c.value for c in at.caption if c.value.startswith("Not offered"))
    assert all(name in note for name in ("Exact optimum", "OBS", "ASOBS", "PC-stable", "MMHC", "Credible set",
                                         "Bootstrap"))
    go(at, "4_Networks")
    go(at, "5_Compare")
    assert not errors(at)
    assert "Left out:" in " ".join(c.value for c in at.caption)


def test_a_structural_em_search_draws_its_log_likelihood_and_gives_the_completed_table(at):
    data = with_em(at)
    go(at, "3_Search")
    at.number_input(key="keep.search_em_em_iterations").set_value(4)
    job = start_search(at, "hc")
    assert job.wait(300), "the search did not finish"
    at.run()
    no_exception(at)
    assert not errors(at)
    task, result, _ = job.results[0]
    assert "structural EM" in task.name and task.name.startswith("hc")  # the run's name says EM
    em = result.extra["em"]
    lls = [it["log_likelihood"] for it in em["iterations"]]
    assert 1 <= len(lls) <= 4
    chart = next(c for c in at.get("vega_lite_chart") if "structural EM iteration" in c.proto.spec)
    drawn = [row for row in chart_rows(chart) if "log_likelihood" in row]
    assert sorted({(row["iteration"], row["log_likelihood"]) for row in drawn}) == sorted(
        (it["iteration"], it["log_likelihood"]) for it in em["iterations"])
    note = " ".join(c.value for c in at.caption) + " ".join(w.value for w in at.warning)
    assert f"returned iteration {em['returned']} of {em['iterations'][-1]['iteration']}" in note
    entry = next(e for e in at.session_state["results"].values() if e.result is result)
    completed = entry.cache["completed"].to_frame()
    assert completed.shape == (300, data.n_vars) and not completed.isna().any().any()
    observed = data.to_frame()
    kept = observed.notna().to_numpy()
    assert (completed.astype(str).to_numpy()[kept] == observed.astype(str).to_numpy()[kept]).all()
    assert any(button.proto.label == "Download the completed table (CSV)" for button in at.get("download_button"))
    go(at, "4_Networks")
    assert not errors(at)
    page = " ".join(c.value for c in at.caption)
    assert "Its expected score" in page and "returned iteration" in page
    assert "rows; one completion per incomplete row, drawn from its posterior." in page  # the default, said so
    assert "Iteration 0 is the start, the search's graph on the rows with each blank cell as a state" in page
    at.radio(key="keep.net_view").set_value("ask")
    at.run()
    no_exception(at)
    assert "by EM, blanks left blank" in " ".join(c.value for c in at.caption)
    go(at, "5_Compare")
    assert not errors(at)
    captions = " ".join(c.value for c in at.caption)
    assert "a structural EM run's score is its expected score" in captions
    assert "each row's blank cells drawn from their posterior" in captions
    go(at, "3_Search")  # its steps are one iteration's search on completed data: no replay from the empty graph
    assert not any(box.label == "Search to replay" for box in at.selectbox)


@pytest.fixture
def hc_until_stop(monkeypatch):
    """Hill climbing as structural EM's step, whose every EM iteration report waits for Stop (whatever the
    machine's speed), so the page is seen while it runs and after Stop."""
    real = algorithms.REGISTRY["hc"]

    def run(inputs, options, control):
        def progress(info):
            control.progress(info)
            if info.get("log_likelihood") is not None:
                control.stop.wait(120)

        return real.run(inputs, options, Control(progress=progress, stop=control.stop, min_interval=0.0))

    monkeypatch.setitem(algorithms.REGISTRY, "hc", dataclasses.replace(real, run=run))
    return "hc"


def test_stop_ends_a_structural_em_search_and_keeps_its_best_iteration(at, hc_until_stop):
    with_em(at)
    job = start_search(at, hc_until_stop, time_limit=3600)
    until(lambda: any(r.get("log_likelihood") is not None for r in job.snapshot()), "an EM iteration")
    at.run()
    no_exception(at)
    progress = at.get("progress")[0].proto.text
    assert "EM iteration" in progress and "log-likelihood" in progress
    at.button(key="search_stop").click()
    at.run()
    assert job.wait(120)
    at.run()
    no_exception(at)
    assert not errors(at) and not job.errors
    _, result, _ = job.results[0]
    assert result.stats.get("stopped") == "stopped" and result.extra["em"]["iterations"]
    assert "Stopped early" in " ".join(s.value for s in at.success)


def test_compare_runs_every_search_that_can_learn_from_blanks_by_structural_em(at):
    with_em(at)
    go(at, "5_Compare")
    at.button(key="cmp_run_every").click()
    at.run()
    no_exception(at)
    job = at.session_state["job"]
    assert [task.algorithm for task in job.tasks] == [key for key, spec in SEARCHES.items() if spec.expected_counts]
    assert job.wait(600), "the searches did not finish"
    at.run()
    no_exception(at)
    assert not job.errors, job.errors
    assert len(job.results) == len(job.tasks)
    assert all("structural EM" in task.name and result.extra["em"]["iterations"] for task, result, _ in job.results)
    captions = " ".join(c.value for c in at.caption)
    assert "Left out: Exact optimum, OBS, ASOBS, PC-stable, MMHC" in captions
    assert "run the exact search (or a credible set) on complete rows (*Missing values: drop*)" in captions


def test_held_out_likelihood_on_blank_data_scores_the_observed_cells(at):
    """Compare's cross-validation on the blank survey: only searches that learn by structural EM are offered,
    and the table holds the library's figures for the same folds (tables by EM, blanks summed out)."""
    from bnexplore.heldout import cross_validate_networks

    data = with_em(at)
    go(at, "5_Compare")
    picker = at.multiselect(key="keep.cv_searches")
    assert [option.split(":")[0] for option in picker.options] == [key for key, spec in SEARCHES.items()
                                                                   if spec.expected_counts]
    picker.set_value(["hc"])
    at.number_input(key="keep.cv_folds").set_value(3)
    at.number_input(key="keep.cv_seed").set_value(4)
    at.run()
    assert "held-out row counts with the probability of its observed cells" in " ".join(c.value for c in at.caption)
    at.button(key="cv_run").click()
    at.run()
    job = at.session_state["cv_job"]
    assert job.wait(600), "the cross-validation did not finish"
    at.run()
    no_exception(at)
    assert not job.errors, job.errors
    table = next(frame.value for frame in at.dataframe if "log_likelihood" in frame.value.columns)
    settings = at.session_state["settings"]
    expected = cross_validate_networks(data, {"hc": "hc"}, folds=3, seed=4, ess=float(settings["ess"]),
                                       score=settings["score"], max_indegree=settings.get("max_indegree") or None)
    assert list(table["log_likelihood"]) == pytest.approx(list(expected.table()["log_likelihood"]), rel=1e-9)
    assert any("blank cells" in block.value for block in at.info)


def test_a_saved_session_keeps_the_blanks(at, downloads):
    data = with_em(at)
    assert start_search(at, "hc").wait(300), "the search did not finish"
    at.run()
    at.sidebar.button(key="session_save").click()
    at.run()
    no_exception(at)
    fresh = new_session()
    open_file(fresh, "em.bnx", downloads["bnexplore-session.bnx"])
    opened = fresh.session_state["dataset"]
    assert fresh.session_state["encoding"]["missing"] == "em"
    assert opened.n_blank == data.n_blank == 27 and np.array_equal(opened.blank, data.blank)
    assert fresh.session_state["data_key"] == at.session_state["data_key"]
    assert list(fresh.session_state["results"]) == list(at.session_state["results"])
    go(fresh, "4_Networks")  # a structural EM result opened from the file: its chart and completed table again
    assert not errors(fresh)
    assert any(h.value.startswith("How structural EM went") for h in fresh.subheader)
    assert any(b.proto.label == "Download the completed table (CSV)" for b in fresh.get("download_button"))

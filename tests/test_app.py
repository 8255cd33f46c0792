"""The app, page by page, with Streamlit's AppTest: what a user sees after each click.

Each test starts a fresh session (so nothing leaks between tests); the first one
pays for loading the numba core, the others reuse Streamlit's process-wide caches.
"""

import io
import json
import math
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from bnexplore.data import Encoder
from bnexplore.graphs import structural_errors
from bnexplore.search import credible
from bnexplore_app import warmup

ROOT = Path(__file__).resolve().parent.parent
ASIA = ["asia", "tub", "smoke", "lung", "bronc", "either", "xray", "dysp"]
HC, TABU = "hc · BDeu(1) · asia 5k", "tabu · BDeu(1) · asia 5k"


def no_exception(at):
    assert not at.exception, [e.value for e in at.exception]


def errors(at):
    return " ".join(e.value for e in at.error)


COMPILE_BOUND = 1200
"""Seconds a new session waits for the background compile before calling it hung."""


def new_session():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    app.run()
    no_exception(app)
    # the fast core compiles in the background on a fresh clone (several minutes beside other work): searches
    # wait for it; the bound only keeps a hang from lasting forever
    assert warmup.CORE.ready.wait(COMPILE_BOUND), "the fast core did not compile"
    app.default_timeout = 30
    return app


@pytest.fixture
def at():
    return new_session()


@pytest.fixture(scope="module")
def searched():
    """One session with hill climbing and tabu search run on asia (shared by the read-only tests)."""
    app = new_session()
    job = run_search(app, algorithms=("hc", "tabu"))
    assert not job.errors and len(job.results) == 2
    return app, job


def go(at, page):
    at.switch_page(f"app_pages/{page}.py")
    at.run()
    no_exception(at)
    return at


def run_search(at, algorithms=("hc",), wait=300, numbers=None):
    """Press Run on the Search page and wait for the background thread; returns the job.
    ``numbers`` sets number inputs of the algorithms' options first (key: value)."""
    go(at, "3_Search")
    at.multiselect(key="keep.search_algorithms").set_value(list(algorithms))
    at.run()
    for key, value in (numbers or {}).items():
        at.number_input(key=key).set_value(value)
    at.button(key="search_run").click()
    at.run()
    no_exception(at)
    job = at.session_state["job"]
    assert job.wait(wait), "the search did not finish"
    at.run()
    no_exception(at)
    return job


def load_sample(at, name):
    go(at, "1_Data")
    at.selectbox(key="data_sample").set_value(name)
    at.button(key="data_load_sample").click()
    at.run()
    no_exception(at)


def draw_sample(at, network, rows, seed=None):
    """On the Data page: draw ``rows`` rows from a bundled network (with ``seed`` when given)."""
    go(at, "1_Data")
    at.radio(key="data_source").set_value("Sample from a known network")
    at.run()
    at.selectbox(key="data_network").set_value(network)
    at.number_input(key="data_rows").set_value(rows)
    if seed is not None:
        at.number_input(key="data_seed").set_value(seed)
    at.button(key="data_draw").click()
    at.run()


def paste(at, text):
    go(at, "1_Data")
    at.radio(key="data_source").set_value("Paste CSV text")
    at.run()
    at.text_area(key="data_paste").set_value(text)
    at.button(key="data_use_paste").click()
    at.run()
    no_exception(at)


def upload(at, name, content):
    go(at, "1_Data")
    at.radio(key="data_source").set_value("Upload a file")
    at.run()
    at.file_uploader(key="data_upload").set_value((name, content, "text/csv"))
    at.run()
    no_exception(at)


def numeric_csv(rows=300, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, rows)
    group = np.where(x + rng.normal(0, 2, rows) > 5, "high", "low")
    lines = ["x,group"] + [f"{a:.4f},{g}" for a, g in zip(x, group)]
    return "\n".join(lines) + "\n", x


# --- home and data ------------------------------------------------------------------


def test_home_loads_a_sample_on_first_start(at):
    assert at.session_state["dataset"].names == ASIA
    assert at.session_state["truth"].name == "asia"
    assert any("Data in use" in c.value and "asia" in c.value for c in at.caption)
    summary = at.dataframe[0].value
    assert summary["name"].tolist() == ASIA and (summary["levels"] == 2).all() and (summary["missing"] == 0).all()


def test_home_names_every_score_the_tune_page_offers(at):
    from bnexplore.scores import SCORES

    tune = next(m.value for m in at.markdown if m.value.startswith("Choose the score"))
    assert tune.startswith(f"Choose the score ({', '.join(spec.label for spec in SCORES.values())})")
    assert len(SCORES) == 5


def test_load_another_bundled_sample(at):
    load_sample(at, "sachs")
    no_exception(at)
    assert at.session_state["dataset"].n_vars == 11
    assert any("Now using" in s.value for s in at.success)
    assert at.session_state["truth"].name == "sachs"


def test_sample_rows_from_a_network_keeps_it_as_ground_truth(at):
    draw_sample(at, "cancer", 500, seed=7)
    no_exception(at)
    data = at.session_state["dataset"]
    assert data.n_rows == 500 and data.n_vars == 5
    assert at.session_state["truth"].name == "cancer"


def test_discretize_a_numeric_column_and_pick_a_class_column(at):
    text, x = numeric_csv()
    paste(at, text)
    data = at.session_state["dataset"]
    assert data.names == ["x", "group"]
    assert data.arities.tolist() == [3, 2]  # uniform3 by default
    q1, q2 = np.percentile(x.round(4), [2.5, 97.5])
    assert data.encoder.cut_points()["x"] == pytest.approx([q1 + (q2 - q1) / 3, q1 + 2 * (q2 - q1) / 3])
    assert at.get("vega_lite_chart"), "the histogram with the cut points is shown"

    key = at.session_state["draft"]["table"].key
    at.selectbox(key=f"col-{key}-method").set_value("quantile")
    at.run()
    at.number_input(key=f"col-{key}-bins").set_value(4)
    at.run()
    no_exception(at)
    data = at.session_state["dataset"]
    assert data.arities[0] == 4
    assert data.encoder.cut_points()["x"] == pytest.approx(np.quantile(x.round(4), [0.25, 0.5, 0.75]))

    at.selectbox(key=f"col-{key}-own-x").set_value("manual")
    at.run()
    at.text_input(key=f"col-{key}-owncuts-x").set_value("2.5, 7.5")
    at.run()
    no_exception(at)
    data = at.session_state["dataset"]
    assert data.encoder.cut_points()["x"] == [2.5, 7.5]
    assert data.states[0] == ["(-inf, 2.5]", "(2.5, 7.5]", "(7.5, inf)"]

    at.selectbox(key="data_class").set_value("group")
    at.run()
    assert at.session_state["class_column"] == "group"

    at.text_input(key=f"col-{key}-owncuts-x").set_value("2.5, abc")
    at.run()
    no_exception(at)
    assert "cut points must be numbers" in errors(at)
    assert at.session_state["dataset"] is data


def test_bad_uploads_show_the_error_and_keep_the_data(at):
    for name, content, message in [("empty.csv", b"", "is empty"), ("header.csv", b"a,b,c\n", "no data rows"),
                                    ("dupes.csv", b"a,b,a\n1,2,3\n", "duplicated column names")]:
        upload(at, name, content)
        assert message in errors(at)
        assert at.session_state["dataset"].names == ASIA
        assert any("still" in i.value and "asia" in i.value for i in at.info)


def test_too_many_levels_is_refused_then_fixed_by_raising_the_limit(at):
    rows = ["id,smoker"] + [f"p{i % 70},{'yes' if i % 3 else 'no'}" for i in range(80)]
    upload(at, "people.csv", ("\n".join(rows) + "\n").encode())
    assert ("'id' has 70 distinct values, more than *Most levels a text column may have* (50); leave it out "
            "(*Leave out these columns: id*) or raise *Most levels a text column may have*") in errors(at)
    assert "max_levels" not in errors(at)
    assert at.session_state["dataset"].names == ASIA
    key = at.session_state["draft"]["table"].key
    at.number_input(key=f"col-{key}-maxlevels").set_value(100)
    at.run()
    no_exception(at)
    assert at.session_state["dataset"].names == ["id", "smoker"]
    assert at.session_state["dataset"].arities.tolist() == [70, 2]


def test_leaving_out_the_offending_column_also_fixes_it(at):
    rows = ["id,smoker,cough"] + [f"p{i % 70},{'yes' if i % 3 else 'no'},{'yes' if i % 2 else 'no'}"
                                  for i in range(80)]
    upload(at, "people.csv", ("\n".join(rows) + "\n").encode())
    key = at.session_state["draft"]["table"].key
    at.multiselect(key=f"col-{key}-leave").set_value(["id"])
    at.run()
    no_exception(at)
    assert at.session_state["dataset"].names == ["smoker", "cough"]


def test_a_tables_own_mark_for_no_value_typed_into_also_missing(at):
    """A column of numbers with '?' for 'no value' reads as text with too many levels: the error names the mark
    and the *Also missing* box; typing '?' there makes the column numbers (discretized) and '?' a missing value
    in the other columns too, as the API's missing_values does."""
    rows = ["age,smoker"] + [f"{'?' if i % 9 == 0 else 20 + i * 0.5},{'?' if i % 7 == 0 else 'yes' if i % 3 else 'no'}"
                             for i in range(80)]
    content = ("\n".join(rows) + "\n").encode()
    upload(at, "marks.csv", content)
    assert ("column 'age' mixes numbers and text (row 1: '?'); it is treated as categorical text: fix that value, or "
            "mark it missing (*Also missing: ?*), if the column should be numeric; otherwise leave it out "
            "(*Leave out these columns: age*)") in errors(at)
    key = at.session_state["draft"]["table"].key
    at.text_input(key=f"col-{key}-marks").input(" ?, ")
    at.run()
    no_exception(at)
    data = at.session_state["dataset"]
    want = Encoder(missing_values="?", discretize="uniform3").fit_transform(pd.read_csv(io.BytesIO(content)))
    assert data.names == ["age", "smoker"] and data.states == want.states and (data.codes == want.codes).all()
    assert data.states[1] == ["no", "yes", "<missing>"] and data.states[0][-1] == "<missing>"
    assert at.session_state["encoding"]["missing_values"] == ["?"]
    at.text_input(key=f"col-{key}-marks").input(",".join(str(k) for k in range(101)))
    at.run()
    no_exception(at)
    assert "*Also missing* takes at most 100 marks for 'no value'; it has 101" in errors(at)
    assert at.session_state["encoding"]["missing_values"] == ["?"] and at.session_state["dataset"] is data


# --- tune -------------------------------------------------------------------------------


def test_tune_bayes_factor_reading_and_estimates(at):
    go(at, "2_Tune")
    at.select_slider(key="tune_bf").set_value(150)
    at.slider(key="tune_indegree").set_value(3)
    at.run()
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ε = ln(BF)"] == f"{math.log(150):.3f}"
    assert metrics["Reading of BF"] == "strong"
    assert metrics["Local scores"] == f"{8 * (1 + 7 + 21 + 35):,}"
    assert metrics["Exact engine"] == "subset DP"
    assert any("The exact search fits" in c.value for c in at.caption)
    assert any("A credible set would run the subset DP over 8 variables" in c.value for c in at.caption)
    # the memory is a bound the check allows, not what 8 variables take (a 2 KiB table): it says so
    assert any("subset DP over 8 variables: at most 64.0 MiB of memory (its table 2.0 KiB, the rest headroom)"
               in c.value for c in at.caption)
    assert at.session_state["settings"]["bf"] == 150.0
    at.select_slider(key="tune_bf").set_value(200)
    at.run()
    assert {m.label: m.value for m in at.metric}["Reading of BF"] == "very strong"


# --- search -------------------------------------------------------------------------------


def test_searches_run_in_the_background_and_are_kept(searched):
    at, job = searched
    go(at, "3_Search")
    hc, tabu = (result for _, result, _ in job.results)
    assert hc.algorithm == "hc" and hc.stats["stopped"] is None and tabu.algorithm == "tabu"
    table = at.dataframe[0].value
    assert table["name"].tolist()[:2] == [HC, TABU]
    assert table["learned on"].tolist()[:2] == ["sample asia"] * 2 and table["data in use?"].tolist()[:2] == ["yes"] * 2
    assert table["edges"].tolist()[:2] == [hc.graph.n_edges, tabu.graph.n_edges]
    assert table["score"].tolist()[:2] == [hc.score, tabu.score]
    assert at.get("vega_lite_chart"), "the score trace is drawn"
    points = [p for p in job.trace() if p["task"] == job.results[0][0].name]
    assert [p["score"] for p in points] == [step["score"] for step in hc.trajectory]  # every step, not a sample
    assert [p["seconds"] for p in points] == sorted(p["seconds"] for p in points)


def test_teaching_mode_replays_the_run(searched):
    at, job = searched
    go(at, "3_Search")
    at.selectbox(key="replay_result").set_value(HC)
    at.run()
    trajectory = job.results[0][1].trajectory
    at.button(key="replay_next").click()
    at.run()
    no_exception(at)
    assert any(f"Step 1 of {len(trajectory)}" in m.value for m in at.markdown)
    at.slider(key="replay_step").set_value(len(trajectory))
    at.run()
    assert any(f"Step {len(trajectory)} of {len(trajectory)}" in m.value for m in at.markdown)
    assert at.get("iframe")


@pytest.fixture
def waiting_search():
    """A search that runs until the Stop button is pressed (whatever the machine's speed), registered for
    one test: the plumbing from the button to the search's Control is what is tested."""
    from bnexplore.result import Result
    from bnexplore_app import algorithms

    def run(inputs, options, control):
        scorer = inputs.scorer()
        graph = __import__("bnexplore").DAG.empty(inputs.dataset.names)
        checks = 0
        while not control.should_stop():
            checks += 1
            control.report(done=None, message=f"waiting: check {checks}", score=scorer.total(graph), iteration=checks)
            threading.Event().wait(0.01)  # yield the interpreter to the page; the stop flag ends the loop
        return Result(graph, scorer.total(graph), scorer.score_name, "wait",
                      stats={"seconds": control.elapsed, "stopped": control.reason, "iterations": checks})

    algorithms.register(algorithms.Algorithm("wait", "Wait for Stop (test)", "Runs until stopped.", run))
    yield "wait"
    del algorithms.REGISTRY["wait"]


def test_stop_button_stops_a_running_search_and_keeps_its_best_network(at, waiting_search):
    go(at, "3_Search")
    at.multiselect(key="keep.search_algorithms").set_value([waiting_search])
    at.number_input(key="keep.search_time_limit").set_value(3600)
    at.run()
    at.button(key="search_run").click()
    at.run()
    job = at.session_state["job"]
    assert job.running  # it only ends when stopped
    at.button(key="search_stop").click()
    at.run()
    assert job.wait(60)
    at.run()
    no_exception(at)
    result = job.results[0][1]
    assert result.stats["stopped"] == "stopped"
    assert at.dataframe[0].value["stopped?"].tolist() == ["stopped early (stopped)"]  # views.stopped_text
    assert any("Stopped early (wait · BDeu(1) · asia 5k)" in s.value for s in at.success)


# --- networks and compare -----------------------------------------------------------------


def test_networks_page_views(searched):
    at, _ = searched
    go(at, "4_Networks")
    for view in ["DAG", "RPDAG", "CPDAG", "class"]:
        at.radio(key="keep.net_view").set_value(view)
        at.run()
        no_exception(at)
        frames = at.get("iframe")
        assert frames and "vis.Network" in frames[0].proto.srcdoc
        labels = [b.label for b in at.main.get("download_button")]
        assert labels == ["JSON", "BIF", "GraphML", "DOT", "HTML", "PNG"]


def test_compare_two_results_against_the_truth(searched):
    at, _ = searched
    go(at, "5_Compare")
    names = [HC, TABU]
    at.multiselect(key="cmp_networks").set_value(["ground truth: asia", *names])
    at.run()
    no_exception(at)
    table = at.dataframe[0].value.set_index("network")
    truth = at.session_state["truth"].dag()
    for name in names:
        expected = structural_errors(at.session_state["results"][name].result.graph, truth)
        assert table.loc[name, "H = A + D + I"] == expected["H"]
        assert table.loc[name, "added A"] == expected["A"]
    assert table.loc["ground truth: asia", "H = A + D + I"] == 0
    at.radio(key="keep.cmp_view").set_value("Side by side")
    at.run()
    no_exception(at)
    assert len(at.get("iframe")) == 2


def test_export_json_and_import_it_again(searched):
    at, job = searched
    original = job.results[0][1]
    go(at, "5_Compare")
    exported = at.session_state["results"][HC].result.dumps(indent=1)
    at.file_uploader(key="cmp_import").set_value(("hc.json", exported.encode(), "application/json"))
    at.run()
    no_exception(at)
    name = f"{HC} (2)"  # the name it was saved under, made unique
    imported = at.session_state["results"][name].result
    messages = " ".join(s.value for s in at.success)
    assert f"Imported `hc.json` as `{name}`" in messages and "learned on the data in use" in messages
    assert "imported imported" not in messages.lower()
    assert at.session_state["results"][name].data_key == at.session_state["data_key"]
    assert imported.graph == original.graph and imported.score == original.score
    assert imported.trajectory == json.loads(exported)["trajectory"]


def test_import_of_a_bad_file_shows_an_error(at):
    go(at, "4_Networks")
    at.file_uploader(key="net_import").set_value(("bad.json", b'{"graph": 1}', "application/json"))
    at.run()
    no_exception(at)
    assert "`bad.json` cannot be imported: `not a bnexplore result file" in errors(at)


def test_results_survive_page_switches(searched):
    at, _ = searched
    for page in ("1_Data", "2_Tune", "4_Networks", "5_Compare", "3_Search"):
        go(at, page)
    assert list(at.session_state["results"])[:2] == [HC, TABU]


# --- the error boundary --------------------------------------------------------------------


def test_error_boundary_turns_exceptions_into_messages():
    def script():
        from bnexplore.errors import DataError
        from bnexplore_app.errors import error_boundary

        with error_boundary("test page"):
            raise DataError("column 'x' row 3 has 'abc'; fix it")
        with error_boundary("test page"):
            raise RuntimeError("boom")

    app = AppTest.from_function(script)
    app.run()
    assert not app.exception
    messages = [e.value for e in app.error]
    assert messages[0] == "column 'x' row 3 has 'abc'; fix it"
    assert "please report" in messages[1].lower() and "RuntimeError" in messages[1]


# --- the other searches ----------------------------------------------------------------------


def test_rpdag_search_refuses_k2_with_a_message(at):
    go(at, "2_Tune")
    at.radio(key="tune_score").set_value("k2")
    at.run()
    job = run_search(at, algorithms=("rpdag",))
    assert not job.results
    assert "score-equivalent" in errors(at)


def test_tune_pruning_chart_counts_candidate_sets(at):
    go(at, "2_Tune")
    at.select_slider(key="tune_bf").set_value(20)
    at.run()
    at.button(key="tune_prune").click()
    at.run()
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    considered = int(metrics["Parent sets considered"].replace(",", ""))
    kept = int(metrics["Kept as candidates"].replace(",", ""))
    assert 0 < kept < considered
    stats = next(iter(at.session_state["pruning"].values())).stats
    assert stats["kept"] == kept and stats["epsilon"] == pytest.approx(math.log(20))
    # under knowledge the count is that of the sets the searches will use
    add_knowledge(at, "smoke", "dysp", "require")
    at.button(key="tune_prune").click()
    at.run()
    no_exception(at)
    constrained = list(at.session_state["pruning"].values())[-1]
    assert all(2 in ps for ps in constrained.sets(7))  # every candidate of dysp holds smoke
    assert int({m.label: m.value for m in at.metric}["Kept as candidates"].replace(",", "")) == len(constrained)


def test_a_credible_set_cut_by_the_limit_says_which_bayes_factor_it_covers(at, monkeypatch):
    credible.LIMITED_SETS.clear()
    go(at, "2_Tune")
    at.select_slider(key="tune_bf").set_value(1000)  # asia, BDeu: over 5,000 credible DAGs
    at.run()
    job = run_search(at, algorithms=("credible",), numbers={"keep.search_credible_limit": 1000})
    assert not job.errors, job.errors
    found = job.results[0][2]["credible"]
    assert found.truncated and len(found) <= 1000 and found.complete_epsilon < math.log(1000)
    go(at, "4_Networks")
    warning = " ".join(w.value for w in at.warning)
    assert "counting limit of 1,000" in warning
    assert f"Every network within a Bayes factor of {math.exp(found.complete_epsilon):.3g} is here" in warning
    # a larger Bayes factor has the same best 1,000 networks: they are reused, and the page says so
    go(at, "2_Tune")
    at.select_slider(key="tune_bf").set_value(3000)
    at.run()
    job = run_search(at, algorithms=("credible",))
    again = job.results[0][2]["credible"]
    assert again.stats["reused_from_bf"] == pytest.approx(1000) and again.bayes_factor == pytest.approx(3000)
    assert np.array_equal(again.scores, found.scores) and again.complete_epsilon == found.complete_epsilon
    go(at, "4_Networks")
    warning = " ".join(w.value for w in at.warning)
    assert "The set at Bayes factor 1,000 was already cut by the limit" in warning


def test_exact_and_credible_set_views_and_gap_to_optimum(at):
    job = run_search(at, algorithms=("hc", "exact", "credible"))
    assert not job.errors, job.errors
    by_algorithm = {result.algorithm: result for _, result, _ in job.results}
    assert by_algorithm["exact"].score == pytest.approx(by_algorithm["credible"].score)
    assert by_algorithm["hc"].score <= by_algorithm["exact"].score + 1e-9
    go(at, "4_Networks")
    names = list(at.session_state["results"])
    at.selectbox(key="net_pick_box").set_value(next(n for n in names if n.startswith("credible")))
    at.run()
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    found = at.session_state["results"][at.session_state["focus"]].cache["credible"]
    assert metrics["Credible DAGs"] == f"{len(found):,}" and len(found) >= 1
    assert any("Markov equivalent DAGs encode" in c.value for c in at.caption)
    at.radio(key=f"cred-group-{at.session_state['focus']}").set_value("rpdag")
    at.run()
    no_exception(at)
    assert any("RPDAG classes" in c.value for c in at.caption)
    go(at, "5_Compare")
    hc_name = next(n for n in names if n.startswith("hc"))
    exact_name = next(n for n in names if n.startswith("exact"))
    at.multiselect(key="cmp_networks").set_value([exact_name, hc_name])
    at.run()
    no_exception(at)
    table = at.dataframe[0].value
    gaps = dict(zip(table["network"], table["gap to exact optimum"]))
    assert gaps[exact_name] == pytest.approx(0.0, abs=1e-9)
    assert gaps[hc_name] == pytest.approx(by_algorithm["exact"].score - by_algorithm["hc"].score)


def test_ordering_search_runs(at):
    job = run_search(at, algorithms=("asobs",), numbers={"keep.search_time_limit": 3})
    at.number_input(key="keep.search_time_limit").set_value(60)  # the default again, for the tests after this
    at.run()
    result = job.results[0][1]
    assert not job.errors and result.algorithm == "asobs"
    # by default the learner splits the time limit itself, seeded by hill climbing, and climbs orderings
    # until the limit (issue 34)
    assert result.params["time_per_variable"] is None and result.params["start"] == "hc"
    assert result.params["restarts"] is None and result.stats["ordering_ended"] in ("time", "finished")


def test_many_variables_make_asobs_the_default_search(at):
    rng = np.random.default_rng(0)
    names = [f"v{i}" for i in range(120)]
    rows = [",".join(names)] + [",".join(map(str, r)) for r in rng.integers(0, 2, (60, 120))]
    paste(at, "\n".join(rows) + "\n")
    assert at.session_state["dataset"].n_vars == 120
    go(at, "3_Search")
    assert at.multiselect(key="keep.search_algorithms").value == ["asobs"]
    assert any("120 variables: ASOBS is the default" in c.value for c in at.caption)


def test_tune_sets_the_two_class_kl_score_the_bnkl_search_uses(at):
    load_sample(at, "breast_cancer_wdbc")
    go(at, "2_Tune")
    assert any("Two-class score" in h.value for h in at.subheader)
    assert any("KL statistics" in c.value for c in at.caption)
    at.radio(key="tune_kl_class0").set_value("malignant")
    at.slider(key="tune_kl_parents").set_value(1)
    at.radio(key="tune_kl_select").set_value("aic")
    at.run()
    no_exception(at)
    job = run_search(at, algorithms=("bnkl",))
    assert not job.errors, job.errors
    result = job.results[0][1]
    assert result.extra["classes"] == ["malignant", "benign"] and result.extra["select"] == "aic"
    assert result.params["max_parents"] == 1 and all(len(ps) <= 1 for ps in result.graph.parent_sets())
    assert job.results[0][0].name == "bnkl · KL · aic rule · wdbc 569"  # named by the rule it used
    assert result.score_name == "kl-aic"


def test_bnkl_on_the_two_class_sample(at):
    load_sample(at, "breast_cancer_wdbc")
    no_exception(at)
    assert at.session_state["class_column"] == "diagnosis"
    job = run_search(at, algorithms=("hc", "bnkl"))
    assert not job.errors, job.errors
    result = job.results[1][1]
    name = job.results[1][0].name
    assert name == "bnkl · KL · bic rule · wdbc 569"  # the app's default rule
    # the score chart draws hill climbing's BDeu only: BNKL's KL is on another scale
    assert {point["task"] for point in job.trace()} == {job.results[0][0].name}
    assert any(f"Not drawn: {name}" in c.value for c in at.caption)
    assert result.graph.n_edges > 0  # a network worth looking at (the ratio rule picks the empty one here)
    assert all(value >= 0 for value in result.extra["marginal_kl"].values())
    assert min(result.extra["marginal_R"].values()) < 0  # the score's sdnet convention, explained on the page
    go(at, "4_Networks")
    assert at.session_state["net_pick_box"] == name  # the newest result is shown
    assert any("Two-class view" in h.value for h in at.subheader)
    frames = at.get("iframe")
    assert len(frames) == 2 and "KL divergence between the classes" in frames[1].proto.srcdoc
    rules = at.dataframe[0].value.set_index("rule")
    assert rules.loc["bic (used)", "network #"] == result.extra["selected"]
    assert rules.loc["ratio", "network #"] == 0 and rules.loc["ratio", "arcs"] == 0
    captions = " ".join(c.value for c in at.caption)
    assert "sdnet" in captions and "never negative" in captions and "Arc width" in captions
    labels = [b.label for b in at.main.get("download_button")]
    assert labels[:2] == ["JSON", "BIF"] and labels[-2:] == ["BIF: class benign", "BIF: class malignant"]
    at.slider(key=f"bnkl-index-{name}").set_value(0)
    at.run()
    no_exception(at)
    assert "This network has no arcs" in " ".join(c.value for c in at.caption)
    # a saved BNKL result, imported again, still exports its selected class networks
    at.file_uploader(key="net_import").set_value(("bnkl.json", result.dumps().encode(), "application/json"))
    at.run()
    no_exception(at)
    assert at.session_state["net_pick_box"] == f"{name} (2)"  # the picker moved to the imported network
    labels = [b.label for b in at.main.get("download_button")]
    assert labels[-2:] == ["BIF: class benign", "BIF: class malignant"]
    # BNKL's network leaves the class out: Compare sets it beside hill climbing's on the 30 shared variables
    hc_name = job.results[0][0].name
    go(at, "5_Compare")
    at.multiselect(key="cmp_networks").set_value([hc_name, name])
    at.run()
    no_exception(at)
    warning = " ".join(w.value for w in at.warning)
    assert "(only in A: diagnosis). They are compared on the 30 variables they share" in warning
    table = at.dataframe[0].value.set_index("network")
    hc_graph, kept = job.results[0][1].graph, set(result.graph.names)
    between = sum(hc_graph.names[u] in kept and hc_graph.names[v] in kept for u, v in hc_graph.arcs())
    assert between < hc_graph.n_edges  # hill climbing has edges at the class, left out here
    assert table.loc[hc_name, "edges"] == between and table.loc[name, "edges"] == result.graph.n_edges
    assert table.loc[hc_name, "score"] == job.results[0][1].score  # the whole network's score
    assert any("only the edges between the 30 shared variables" in c.value for c in at.caption)
    overlay = at.get("iframe")[0].proto.srcdoc
    assert '"diagnosis"' not in overlay and '"radius_mean"' in overlay


# --- the app a lecture can trust ----------------------------------------------------------------


def test_after_a_search_on_new_data_every_page_shows_the_new_network(at):
    run_search(at)
    load_sample(at, "sachs")
    job = run_search(at)
    name = job.results[0][0].name
    assert name == "hc · BDeu(1) · sachs 2k"
    assert any(f"Finished: {name}." in s.value for s in at.success)
    table = at.dataframe[0].value.set_index("name")
    assert table.loc[HC, "data in use?"] == "other data" and table.loc[name, "data in use?"] == "yes"
    assert at.session_state["replay_result"] == name
    go(at, "4_Networks")
    assert at.session_state["net_pick_box"] == name
    assert at.metric[0].value == f"{job.results[0][1].score:,.2f}"
    go(at, "5_Compare")
    assert at.session_state["cmp_networks"] == ["ground truth: sachs", name]
    # the user's own pick stays until the next result arrives
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value(HC)
    at.run()
    go(at, "2_Tune")
    go(at, "4_Networks")
    assert at.session_state["net_pick_box"] == HC
    assert "Learned on other data than the data in use." in " ".join(c.value for c in at.caption)


def test_the_same_search_twice_is_named_apart_and_the_message_says_so(at):
    run_search(at)
    run_search(at)
    assert any(f"Finished: {HC} (2)." in s.value for s in at.success)


def test_search_settings_are_kept_across_pages(at):
    go(at, "3_Search")
    at.multiselect(key="keep.search_algorithms").set_value(["hc", "tabu"])
    at.run()
    at.number_input(key="keep.search_tabu_iterations").set_value(50)
    at.number_input(key="keep.search_hc_restarts").set_value(3)
    at.number_input(key="keep.search_time_limit").set_value(30)
    at.run()
    for page in ("2_Tune", "4_Networks", "1_Data", "3_Search"):
        go(at, page)
    assert at.multiselect(key="keep.search_algorithms").value == ["hc", "tabu"]
    assert at.number_input(key="keep.search_tabu_iterations").value == 50
    assert at.number_input(key="keep.search_hc_restarts").value == 3
    assert at.number_input(key="keep.search_time_limit").value == 30
    at.button(key="search_run").click()
    at.run()
    job = at.session_state["job"]
    assert job.wait(60)
    assert [r.params.get("restarts") for _, r, _ in job.results] == [3, None]
    assert job.results[1][1].params["iterations"] == 50


def test_compare_refuses_networks_without_shared_variables_and_warns_on_other_data(at):
    run_search(at)
    load_sample(at, "sachs")
    run_search(at)
    go(at, "5_Compare")
    at.multiselect(key="cmp_networks").set_value([HC, "hc · BDeu(1) · sachs 2k"])
    at.run()
    no_exception(at)
    assert "share fewer than two variables (only in A: asia, tub, smoke, lung, bronc, either …; only in B: " \
           "Akt, Erk, Jnk, Mek, P38, PIP2 …), so there are no edges to compare" in errors(at)
    assert not at.get("iframe")
    # same variables, other rows: edges compared, scores flagged
    draw_sample(at, "asia", 1000)
    job = run_search(at)
    go(at, "5_Compare")
    at.multiselect(key="cmp_networks").set_value([HC, job.results[0][0].name])
    at.run()
    no_exception(at)
    assert any("were learned on different data" in w.value for w in at.warning)
    assert at.get("iframe")


def test_import_of_a_binary_file_says_what_it_is(at):
    go(at, "4_Networks")
    at.file_uploader(key="net_import").set_value(("picture.json", b"\x89PNG\r\n\x1a\n\x00\x00", "application/json"))
    at.run()
    no_exception(at)
    assert "`picture.json` cannot be imported: `not a bnexplore result file: it is not UTF-8 JSON text" in errors(at)
    assert "UnicodeDecodeError" not in errors(at)


def test_other_encoding_settings_keep_the_class_column_the_user_picked(at):
    rows = ["size,outcome"] + [f"{i * 0.37:.2f},{'won' if i % 3 else 'lost'}" for i in range(120)]
    paste(at, "\n".join(rows) + "\n")
    assert at.session_state["class_column"] is None  # "outcome" is not named like a class: the user picks
    at.selectbox(key="data_class").set_value("outcome")
    at.run()
    key = at.session_state["draft"]["table"].key
    at.selectbox(key=f"col-{key}-method").set_value("quantile")
    at.run()
    no_exception(at)
    assert at.session_state["dataset"].encoder.cut_points()  # the table was encoded again ...
    assert at.session_state["class_column"] == "outcome"  # ... and the pick is kept


def test_class_column_is_picked_only_when_unambiguous(at):
    paste(at, "class,label,x\nyes,a,1\nno,b,2\nyes,b,3\nno,a,4\n")
    assert at.session_state["class_column"] is None
    assert any("could each be the class column" in i.value for i in at.info)
    paste(at, "diagnosis,x\nyes,1\nno,2\nyes,3\nno,4\n")
    assert at.session_state["class_column"] == "diagnosis"


def test_ground_truth_is_captioned_as_the_truth_and_gets_a_true_gap(at):
    job = run_search(at, algorithms=("exact",))
    assert not job.errors, job.errors
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value("ground truth: asia")
    at.run()
    captions = " ".join(c.value for c in at.caption)
    assert "The true network the rows of sample asia were drawn from." in captions
    assert "The learned DAG" not in captions and "Learned by" not in captions
    go(at, "5_Compare")
    table = at.dataframe[0].value.set_index("network")
    truth = at.session_state["truth"]
    exact = job.results[0][1]
    assert max(len(p) for p in truth.parents) <= exact.params["max_indegree"]
    gap = table.loc["ground truth: asia", "gap to exact optimum"]
    assert gap == pytest.approx(exact.score - at.session_state["_truth_entry"][1].result.score) and gap >= -1e-9


def test_rpdag_view_caption_states_the_definition_it_draws(searched):
    at, _ = searched
    go(at, "4_Networks")
    at.radio(key="keep.net_view").set_value("RPDAG")
    at.run()
    captions = " ".join(c.value for c in at.caption)
    assert "hangs below such a pattern" in captions and "head-to-head pattern a → c ← b" in captions
    graph = at.session_state["results"][HC].result.graph
    rpdag = graph.rpdag()
    for u, v in rpdag.arcs():  # every arc drawn is one the caption allows
        assert len(rpdag.parents(v)) >= 2 or rpdag.parents(u)


def test_a_column_with_thousands_of_levels_says_how_many_are_drawn(at):
    rows = ["id,smoker"] + [f"p{i},{'yes' if i % 3 else 'no'}" for i in range(3000)]
    upload(at, "people.csv", ("\n".join(rows) + "\n").encode())
    key = at.session_state["draft"]["table"].key
    at.selectbox(key=f"col-{key}-inspect").set_value("id")
    at.run()
    no_exception(at)
    assert any("the 60 most frequent of 3,000 levels" in m.value for m in at.markdown)
    assert any("2,940 rarer levels are not drawn" in c.value for c in at.caption)


def test_replay_plays_and_pauses(searched):
    at, job = searched
    go(at, "3_Search")
    at.selectbox(key="replay_result").set_value(HC)
    at.run()
    total = len(job.results[0][1].trajectory)
    at.button(key="replay_play").click()
    at.run()
    assert at.session_state["replay_playing"] and at.session_state["replay_step"] == 1
    for _ in range(total + 1):  # each run of the page while playing shows the next step
        at.run()
    no_exception(at)
    assert at.session_state["replay_step"] == total and not at.session_state["replay_playing"]
    assert any(f"Step {total} of {total}" in m.value for m in at.markdown)
    at.button(key="replay_play").click()  # play again from the start, then pause
    at.run()
    at.button(key="replay_play").click()
    at.run()
    assert not at.session_state["replay_playing"] and at.session_state["replay_step"] == 1


def test_tune_says_what_an_exact_search_on_31_variables_would_do(at):
    load_sample(at, "breast_cancer_wdbc")
    go(at, "2_Tune")
    caption = " ".join(c.value for c in at.caption)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Exact engine"] == "branch and cut" and metrics["Exact search time"] == "depends on the data"
    assert "The exact search will run the ILP engine (the subset DP over 31 variables would take about" in caption
    assert "The exact search fits" not in caption
    assert "A credible set would run the ILP engine (the subset DP over 31 variables would " in caption


def test_tune_says_a_credible_set_on_27_variables_tries_branch_and_cut_first(at):
    load_sample(at, "insurance")
    go(at, "2_Tune")
    caption = " ".join(c.value for c in at.caption)
    assert "A credible set would run the subset DP over 27 variables" in caption
    assert "after trying branch and cut for up to 10.9 s: small sets come out of it before" in caption
    assert at.text_area(key="tune_k_tiers").placeholder == "e.g.\nGoodStudent, Age\nSocioEcon\nRiskAversion, VehicleYear"


def test_a_refused_upload_shows_its_error_once(at):
    rows = ["id,smoker"] + [f"p{i % 70},{'yes' if i % 3 else 'no'}" for i in range(80)]
    upload(at, "people.csv", ("\n".join(rows) + "\n").encode())
    assert sum("has 70 distinct values" in e.value for e in at.error) == 1
    assert sum("The data in use are still" in w.value for w in at.warning) == 1
    at.run()  # on the next run the page says it again, still once
    assert sum("has 70 distinct values" in e.value for e in at.error) == 1


def test_save_the_session_and_open_it_in_a_new_one(at):
    from bnexplore_app import state

    rows = ["smoker,cough,x"] + [f"{'yes' if i % 3 else 'no'},{'yes' if i % 2 else 'no'},{i % 7}" for i in range(90)]
    upload(at, "people.csv", ("\n".join(rows) + "\n").encode())
    go(at, "2_Tune")
    at.radio(key="tune_score").set_value("bic")
    at.run()
    job = run_search(at, algorithms=("hc", "credible"))
    assert not job.errors, job.errors
    at.sidebar.button(key="session_save").click()
    at.run()  # tests/test_app_session.py opens the bytes this button gives
    assert [b.label for b in at.sidebar.get("download_button")] == ["Download the session file"]
    data_key, names = at.session_state["data_key"], list(at.session_state["results"])
    credible_size = len(at.session_state["results"][names[1]].cache["credible"])
    saved = state.snapshot(at.session_state).dumps()  # what the Save session button writes
    other = new_session()  # a new user opens the file, on the Data page (which prepares its own table)
    go(other, "1_Data")
    other.sidebar.file_uploader(key="session_open").set_value(("work.bnx", saved, "application/gzip"))
    other.run()
    no_exception(other)
    assert any("Opened `work.bnx`: now using `upload people.csv`, with 2 saved result(s)" in s.value
               for s in other.sidebar.success)
    other.run()  # the Data page's next run keeps the session's data
    no_exception(other)
    assert other.session_state["data_key"] == data_key
    assert other.session_state["settings"]["score"] == "bic"
    results = other.session_state["results"]
    assert list(results) == names and results[names[0]].data_key == data_key
    assert results[names[0]].result.graph == job.results[0][1].graph
    assert len(results[names[1]].cache["credible"]) == credible_size
    go(other, "4_Networks")
    assert other.session_state["net_pick_box"] == names[-1]


def test_a_broken_session_file_is_refused_and_nothing_changes(at):
    at.sidebar.file_uploader(key="session_open").set_value(("old.bnx", b"\x1f\x8b\x08\x00broken", "application/gzip"))
    at.run()
    no_exception(at)
    assert any("`old.bnx` was not opened, nothing changed: `the session file is a damaged gzip file" in e.value
               for e in at.sidebar.error)
    assert at.session_state["dataset"].names == ASIA


# --- after learning: ask the network -----------------------------------------------------------


def set_evidence(at, name, variable, value):
    at.selectbox(key=f"ask-var-{name}").set_value(variable)
    at.run()
    at.radio(key=f"ask-state-{name}-{variable}").set_value(value)
    at.button(key=f"ask-set-{name}").click()
    at.run()
    no_exception(at)


def test_ask_the_learned_network_and_the_truth(searched):
    from bnexplore.bif import fit_network
    from bnexplore.inference import query

    at, job = searched
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value(HC)
    at.radio(key="keep.net_view").set_value("ask")
    at.run()
    no_exception(at)
    assert {m.label: m.value for m in at.metric}["P(evidence)"] == "1 (none yet)"
    set_evidence(at, HC, "smoke", "yes")
    set_evidence(at, HC, "xray", "yes")
    assert at.session_state["evidence"][HC] == {"smoke": "yes", "xray": "yes"}
    network = fit_network(job.results[0][1].graph, at.session_state["dataset"], ess=1.0)
    expected = query(network, evidence={"smoke": "yes", "xray": "yes"})
    assert {m.label: m.value for m in at.metric}["P(evidence)"] == f"{expected.evidence_probability:.4g}"
    page = at.get("iframe")[0].proto.srcdoc
    assert "data:image/svg+xml" in page and f"{100 * expected.posterior['lung']['yes']:.0f}%" in page
    table = at.dataframe[0].value
    assert {"P(no)", "n(no)", "P(yes)", "n(yes)"} <= set(table.columns)
    at.button(key=f"ask-drop-{HC}-smoke").click()
    at.run()
    assert at.session_state["evidence"][HC] == {"xray": "yes"}
    at.button(key=f"ask-clear-{HC}").click()
    at.run()
    assert at.session_state["evidence"][HC] == {}
    # the ground truth is asked with its own tables
    at.selectbox(key="net_pick_box").set_value("ground truth: asia")
    at.run()
    set_evidence(at, "ground truth: asia", "asia", "yes")
    truth = query(at.session_state["truth"], evidence={"asia": "yes"})
    assert {m.label: m.value for m in at.metric}["P(evidence)"] == f"{truth.evidence_probability:.4g}"
    assert any("the true network, with its own probability tables" in c.value for c in at.caption)


def test_evidence_of_probability_zero_is_explained(searched):
    at, _ = searched
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value("ground truth: asia")
    at.radio(key="keep.net_view").set_value("ask")
    at.run()
    set_evidence(at, "ground truth: asia", "tub", "yes")
    set_evidence(at, "ground truth: asia", "either", "no")  # either = tub or lung in the true network
    assert "the evidence has probability 0" in errors(at) and "Remove a piece of evidence" in errors(at)
    at.button(key="ask-clear-ground truth: asia").click()
    at.run()
    assert not at.error


def test_a_credible_class_can_be_kept_and_asked(at):
    job = run_search(at, algorithms=("credible",))
    name = job.results[0][0].name
    go(at, "4_Networks")
    at.button(key=f"cred-keep-{name}-mec-1").click()
    at.run()
    no_exception(at)
    kept = f"{name} · class 1"
    assert at.session_state["net_pick_box"] == kept
    found = job.results[0][2]["credible"]
    assert at.session_state["results"][kept].result.graph == found.classes[0].dag
    at.radio(key="keep.net_view").set_value("ask")
    at.run()
    no_exception(at)
    assert any("tables fitted to sample asia" in c.value for c in at.caption)


# --- after learning: how sure is each arc ------------------------------------------------------------


def test_bootstrap_strengths_threshold_and_the_credible_posterior_beside_them(at):
    go(at, "2_Tune")
    at.radio(key="tune_score").set_value("bic")
    at.run()
    job = run_search(at, algorithms=("credible", "bootstrap"), numbers={"keep.search_bootstrap_R": 20}, wait=180)
    assert not job.errors, job.errors
    name = job.results[1][0].name
    assert name == "bootstrap · BIC · hc × 20 · asia 5k"
    found = job.results[1][2]["bootstrap"]
    assert found.resamples == 20 and found.params["seed"] == 1
    go(at, "4_Networks")
    assert at.session_state["net_pick_box"] == name
    assert any("How sure is each arc" in h.value for h in at.subheader)
    default = {m.label: m.value for m in at.metric}["Estimated threshold"]
    assert default == f"{found.threshold():.3f}"
    assert at.slider(key=f"boot-threshold-{name}").value == pytest.approx(found.threshold())
    assert {m.label: m.value for m in at.metric}["Edges at this threshold"] == str(job.results[1][1].graph.n_edges)
    at.slider(key=f"boot-threshold-{name}").set_value(0.0)
    at.run()
    no_exception(at)
    every = found.averaged(0.0).graph.n_edges
    assert {m.label: m.value for m in at.metric}["Edges at this threshold"] == str(every)
    assert any("Bootstrap strength beside the exact posterior" in m.value for m in at.markdown)
    at.button(key=f"boot-keep-{name}").click()
    at.run()
    no_exception(at)
    kept = at.session_state["results"][f"{name} · threshold 0.000"]
    assert kept.result.graph.n_edges == every


# --- what the user already knows -------------------------------------------------------------------


def add_knowledge(at, u, v, kind):
    """On the Tune page: pick u and v, press Require (kind "require") or Forbid ("forbid")."""
    at.selectbox(key="tune_k_from").set_value(u)
    at.selectbox(key="tune_k_to").set_value(v)
    at.button(key=f"tune_k_add_{kind}").click()
    at.run()


def test_knowledge_set_on_tune_is_honoured_recorded_and_compared(at):
    from bnexplore.knowledge import Knowledge

    go(at, "2_Tune")
    add_knowledge(at, "dysp", "bronc", "require")
    add_knowledge(at, "smoke", "lung", "forbid")
    at.text_area(key="tune_k_tiers").set_value("asia, smoke\ntub, lung, bronc, either, xray, dysp")
    at.run()
    no_exception(at)
    assert at.session_state["knowledge"] == {"require": [["dysp", "bronc"]], "forbid": [["smoke", "lung"]],
                                             "forbid_edges": [], "tiers": [["asia", "smoke"],
                                                                           ["tub", "lung", "bronc", "either",
                                                                            "xray", "dysp"]]}
    assert any("required arc" in f.proto.srcdoc for f in at.get("iframe"))
    job = run_search(at, algorithms=("hc", "tabu"))
    assert not job.errors, job.errors
    bound = Knowledge.from_json(at.session_state["knowledge"]).bind(ASIA)
    for _, result, _ in job.results:
        assert bound.allows(result.graph) and result.graph.adjacent(ASIA.index("dysp"), ASIA.index("bronc"))
        assert result.params["knowledge"] == at.session_state["knowledge"]
    assert any("knowledge: **1 required, 1 forbidden, 2 tiers**" in c.value for c in at.caption)
    go(at, "5_Compare")
    at.multiselect(key="cmp_networks").set_value(["ground truth: asia", HC, TABU])
    at.run()
    table = at.dataframe[0].value.set_index("network")
    assert table.loc[HC, "knowledge"] == table.loc[TABU, "knowledge"] == "1 required, 1 forbidden, 2 tiers"
    assert table.loc["ground truth: asia", "knowledge"] == ""


def test_every_search_of_the_app_honours_the_knowledge(at):
    """Issue 15: the RPDAG searches, the exact optimum, the credible set and ASOBS/OBS take the knowledge too."""
    from bnexplore.knowledge import Knowledge

    go(at, "2_Tune")
    add_knowledge(at, "smoke", "dysp", "require")
    job = run_search(at, algorithms=("hc", "rpdag", "exact", "credible", "asobs"), wait=120,
                     numbers={"keep.search_asobs_restarts": 3})  # not until the time limit: the knowledge is the point
    assert not job.errors, job.errors
    bound = Knowledge.from_json(at.session_state["knowledge"]).bind(ASIA)
    assert len(job.results) == 5
    for _, result, extras in job.results:
        assert bound.allows(result.graph), bound.violations(result.graph)
        if "credible" in extras:
            assert all(bound.allows(dag) for dag, _ in extras["credible"].dags)
        if result.algorithm in ("hc", "rpdag"):  # the replay starts from the required arc
            from bnexplore_app import replay

            frames = replay.graphs(result)
            names = list(result.names)
            assert frames[0].adjacent(names.index("smoke"), names.index("dysp"))
            assert frames[-1] == result.extra.get("rpdag", result.graph)


def test_knowledge_about_other_variables_is_kept_but_not_used(at):
    go(at, "2_Tune")
    add_knowledge(at, "smoke", "dysp", "require")
    load_sample(at, "sachs")
    go(at, "2_Tune")
    assert "Knowledge about dysp, smoke is kept but not used" in " ".join(w.value for w in at.warning)
    add_knowledge(at, "Raf", "Mek", "forbid")  # an edit on these data keeps the other data's knowledge
    job = run_search(at)
    assert not job.errors, job.errors
    assert job.results[0][1].params["knowledge"] == {"require": [], "forbid": [["Raf", "Mek"]],
                                                     "forbid_edges": [], "tiers": []}
    load_sample(at, "asia")
    job = run_search(at)
    assert job.results[0][1].params["knowledge"]["require"] == [["smoke", "dysp"]]
    assert ["smoke", "dysp"] in job.results[0][1].graph.to_json()["arcs"]


def test_contradicting_knowledge_is_refused_before_any_search(at):
    go(at, "2_Tune")
    add_knowledge(at, "smoke", "lung", "require")
    add_knowledge(at, "smoke", "lung", "forbid")
    no_exception(at)
    assert "This knowledge contradicts itself or the data" in errors(at) and "smoke -> lung" in errors(at)
    job = run_search(at, algorithms=("hc",))
    assert not job.results and "smoke -> lung" in errors(at)
    go(at, "2_Tune")
    at.button(key="tune_k_clear").click()
    at.run()
    assert at.session_state["knowledge"] is None


def test_messages_name_the_apps_widgets_and_binary_files_are_refused(at):
    upload(at, "table.csv", b"a,b\n1,x\n,y\n3,z\n")
    key = at.session_state["draft"]["table"].key
    at.radio(key=f"col-{key}-missing").set_value("error")
    at.run()
    no_exception(at)
    message = errors(at)
    assert "is missing (*Missing values: error*)" in message and "*Missing values: state*" in message
    assert "missing=" not in message and "pass missing" not in message
    upload(at, "noise.csv", bytes(range(256)) * 8)
    assert "'noise.csv' is not a text table" in errors(at) and "Error tokenizing" not in errors(at)
    assert at.session_state["dataset"].names == ["a", "b"]


def test_a_parquet_upload_is_read_like_its_csv(at, tmp_path):
    import pandas as pd

    frame = pd.read_csv(ROOT / "sample_data" / "sachs.csv")
    frame.to_parquet(tmp_path / "sachs.parquet")
    upload(at, "sachs.parquet", (tmp_path / "sachs.parquet").read_bytes())
    data = at.session_state["dataset"]
    assert data.names == list(frame.columns) and data.n_rows == len(frame)
    assert at.session_state["data_short"] == "sachs 2k"


# --- the exact optimum past the subset DP: branch and cut ---------------------------------------------


def test_exact_search_on_27_variables_runs_branch_and_cut_and_draws_its_bound(at):
    load_sample(at, "insurance")
    go(at, "2_Tune")
    at.radio(key="tune_score").set_value("bic")
    at.slider(key="tune_indegree").set_value(2)
    at.run()
    assert {m.label: m.value for m in at.metric}["Exact engine"] == "branch and cut"
    job = run_search(at, algorithms=("hc", "exact"), wait=300)
    assert not job.errors, job.errors
    hc, exact = (result for _, result, _ in job.results)
    assert exact.stats["engine"] == "ilp" and exact.stats["exact"] and exact.stats["gap"] == 0
    assert hc.score <= exact.score + 1e-6
    points = [p for p in job.trace() if p["task"] == job.results[1][0].name]
    assert any(p["bound"] is not None for p in points)
    assert any("proven upper bound of an exact search" in c.value for c in at.caption)
    go(at, "5_Compare")
    at.multiselect(key="cmp_networks").set_value([job.results[1][0].name, job.results[0][0].name])
    at.run()
    gaps = at.dataframe[0].value.set_index("network")["gap to exact optimum"]
    assert gaps[job.results[0][0].name] == pytest.approx(exact.score - hc.score)


def test_page_scripts_hold_no_bare_strings_streamlit_would_show():
    """Streamlit's magic writes a bare string statement of a page script on the page (only the module
    docstring is exempt): a constant's docstring there showed up above the Search page's title."""
    import ast

    for path in [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py"))]:
        body = ast.parse(path.read_text()).body
        bare = [node.lineno for node in body[1:]
                if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)]
        assert not bare, f"{path.name}: bare strings at lines {bare}"


def test_a_search_thread_names_options_in_the_app_words():
    """The background thread runs in a copy of the page's context, so a library message raised there names
    the widget, as on the page, not the Python keyword."""
    from bnexplore.errors import SearchError, door, option
    from bnexplore_app.jobs import SearchJob, Task
    from bnexplore_app.page import app_option

    def fails(control):
        raise SearchError(f"too many levels for {option('max_levels', 5)}")

    with door(app_option):
        job = SearchJob([Task("t", "t", fails)], None).start()
    assert job.wait(30)
    assert job.errors[0][1] == f"too many levels for {app_option('max_levels', 5)}"
    assert "max_levels" not in job.errors[0][1]


def test_ask_an_imported_network_fits_the_data_in_use_and_says_so(at):
    from bnexplore.search import learn

    saved = learn(at.session_state["dataset"], "hc").dumps().encode()  # from the library: no data recorded
    go(at, "4_Networks")
    at.file_uploader(key="net_import").set_value(("asia_hc.json", saved, "application/json"))
    at.run()
    name = at.session_state["net_pick_box"]
    assert name == "asia_hc"
    at.radio(key="keep.net_view").set_value("ask")
    at.run()
    no_exception(at)
    assert any("tables fitted to sample asia by" in c.value for c in at.caption)
    draw_sample(at, "asia", 1000)
    label = at.session_state["data_label"]
    assert label != "sample asia"
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value(name)
    at.run()
    no_exception(at)
    assert any(f"tables fitted to {label} by" in c.value for c in at.caption)  # refitted, and named so

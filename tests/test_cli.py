"""The command line, in process: JSON out, files written, errors as one line and a non-zero exit."""

import io
import json
import math
import signal
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bnexplore as bx
from bnexplore import cli, cli_networks

ROOT = Path(__file__).resolve().parent.parent
ASIA = str(ROOT / "sample_data" / "asia.csv")
WDBC = str(ROOT / "sample_data" / "breast_cancer_wdbc.csv")
ASIA_BIF = str(ROOT / "sample_data" / "networks" / "asia.bif.gz")


def run(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_score_prints_total_and_local_scores(capsys):
    code, out, _ = run(capsys, "score", ASIA, "--arcs", "smoke->lung, smoke->bronc", "--score", "bdeu", "--ess", 2)
    assert code == 0
    payload = json.loads(out)
    data = bx.read_csv(ASIA)
    expected = bx.Scorer(data, "bdeu", ess=2).total({"lung": ["smoke"], "bronc": ["smoke"]})
    assert payload["score"] == pytest.approx(expected, rel=1e-12)
    assert sum(payload["local"].values()) == pytest.approx(expected, rel=1e-12)
    assert payload["parents"]["lung"] == ["smoke"] and payload["params"] == {"score": "bdeu", "ess": 2.0}


def test_learn_writes_a_result_that_score_and_from_json_read_back(capsys, tmp_path):
    out_file = tmp_path / "hc.json"
    code, out, _ = run(capsys, "learn", ASIA, "--algorithm", "hc", "--score", "bic", "--json", out_file)
    assert code == 0
    summary = json.loads(out)
    result = bx.Result.from_json(out_file.read_text())
    assert summary["score"] == pytest.approx(result.score) and result.algorithm == "hc"
    assert result.trajectory and result.stats["iterations"] == len(result.trajectory)
    code, out, _ = run(capsys, "score", ASIA, "--graph", out_file, "--score", "bic")
    assert code == 0 and json.loads(out)["score"] == pytest.approx(result.score, rel=1e-12)


@pytest.mark.parametrize("algorithm", ["rpdag", "tabu", "exact"])
def test_learn_other_algorithms(capsys, tmp_path, algorithm):
    code, out, _ = run(capsys, "learn", ASIA, "--algorithm", algorithm, "--max-indegree", 2,
                       "--json", tmp_path / "r.json")
    assert code == 0 and json.loads(out)["algorithm"] == algorithm


def test_enumerate_matches_the_python_api(capsys, tmp_path):
    code, out, _ = run(capsys, "enumerate", ASIA, "--score", "bic", "--bf", 20, "--json", tmp_path / "cs.json")
    assert code == 0
    summary = json.loads(out)
    found = bx.credible_set(bx.read_csv(ASIA), score="bic", bf=20)
    assert summary["networks"] == len(found) and summary["classes"] == len(found.classes)
    assert summary["opt"] == pytest.approx(found.opt, rel=1e-12)
    assert summary["engine"] == "dp" and summary["engine_reason"].startswith("subset DP over 8 variables")
    again = bx.CredibleSet.from_json((tmp_path / "cs.json").read_text())
    assert len(again) == len(found) and summary["complete_epsilon"] == pytest.approx(math.log(20))
    code, out, _ = run(capsys, "enumerate", ASIA, "--score", "bic", "--bf", 20, "--limit", 5)
    cut = json.loads(out)
    assert cut["truncated"] and cut["networks"] <= 5 and cut["complete_epsilon"] < math.log(20)


def test_bnkl_json_holds_path_arcs_and_cross_validation(capsys, tmp_path):
    code, out, _ = run(capsys, "bnkl", WDBC, "--class-column", "diagnosis", "--select", "bic", "--cv", 3,
                       "--json", tmp_path / "b.json")
    assert code == 0
    payload = json.loads((tmp_path / "b.json").read_text())
    assert payload["classes"][0] == "benign" and len(payload["order"]) == 30
    assert payload["path"][0]["arcs"] == [] and all("df" in p and "R" in p for p in payload["path"])
    assert len(payload["cv"]["accuracy"]) == 3 and payload["cv"]["mean"] > 0.8
    assert json.loads(out)["cv_accuracy"] == pytest.approx(payload["cv"]["mean"])


def test_sample_is_seeded(capsys, tmp_path):
    for name in ("a.csv", "b.csv"):
        assert run(capsys, "sample", ASIA_BIF, "-n", 40, "--seed", 3, "-o", tmp_path / name)[0] == 0
    a, b = (pd.read_csv(tmp_path / n) for n in ("a.csv", "b.csv"))
    assert a.shape == (40, 8) and a.equals(b)


@pytest.mark.parametrize("args, message", [
    (["score", "missing.csv", "--arcs", "a->b"], "file not found: 'missing.csv'"),
    (["score", ASIA, "--arcs", "smoke=>lung"], "PARENT->CHILD"),
    (["score", ASIA, "--arcs", "smoke->nope"], "nope"),
    (["learn", ASIA, "--algorithm", "magic"], "unknown algorithm 'magic'"),
    (["learn", WDBC], "numeric"),
    (["sample", ASIA_BIF, "-n", 0], "-n must be a whole number >= 1"),
    (["enumerate", ASIA, "--bf", 0.5], "Bayes factor"),
    (["bnkl", ASIA, "--class-column", "nope"], "no class column 'nope'"),
])
def test_errors_are_one_line_with_a_nonzero_exit(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code != 0 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_progress_bar_draws_on_a_terminal_only():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    bar = cli.TerminalProgress(stream=screen, time_limit=10)
    bar({"done": 0.5, "message": "hc: step 3", "score": -12.5, "elapsed": 2.0})
    bar({"done": None, "message": "working", "elapsed": 3.0})
    bar.close()
    text = screen.getvalue()
    assert "[" + "#" * 14 + "." * 14 + "]  50%" in text and "best -12.5000" in text and "8s left" in text
    quiet = io.StringIO()
    cli.TerminalProgress(stream=quiet)({"done": 1.0, "message": "x"})
    assert quiet.getvalue() == ""


def test_first_ctrl_c_stops_the_search_and_the_second_aborts():
    event = threading.Event()
    previous = signal.getsignal(signal.SIGINT)
    try:
        cli._interrupt_sets(event)
        handler = signal.getsignal(signal.SIGINT)
        handler(signal.SIGINT, None)
        assert event.is_set()
        with pytest.raises(KeyboardInterrupt):
            handler(signal.SIGINT, None)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_stopped_search_still_writes_its_best_network(capsys, tmp_path, monkeypatch):
    """Ctrl-C (here: the stop flag set at once) keeps the best graph so far."""
    monkeypatch.setattr(cli, "_interrupt_sets", lambda event: event.set())
    code, out, _ = run(capsys, "learn", ASIA, "--algorithm", "tabu", "--json", tmp_path / "t.json")
    assert code == 0 and json.loads(out)["stopped"] == "stopped"
    assert np.isfinite(bx.Result.from_json((tmp_path / "t.json").read_text()).score)


def test_every_data_command_reads_parquet_and_feather(capsys, tmp_path):
    asia, wdbc = pd.read_csv(ASIA), pd.read_csv(WDBC)
    asia.to_parquet(tmp_path / "asia.parquet")
    asia.to_feather(tmp_path / "asia.feather")
    wdbc.to_parquet(tmp_path / "wdbc.parquet")
    code, out, _ = run(capsys, "learn", ASIA, "--algorithm", "hc", "--quiet")
    expected = json.loads(out)["score"]
    for name in ("asia.parquet", "asia.feather"):
        code, out, err = run(capsys, "learn", tmp_path / name, "--algorithm", "hc", "--quiet")
        assert code == 0 and json.loads(out)["score"] == pytest.approx(expected, rel=1e-12), err
    code, out, _ = run(capsys, "score", tmp_path / "asia.feather", "--arcs", "smoke->lung")
    assert code == 0 and "lung" in json.loads(out)["local"]
    code, out, _ = run(capsys, "enumerate", tmp_path / "asia.parquet", "--bf", 20, "--limit", 5)
    assert code == 0 and json.loads(out)["networks"] <= 5
    code, out, _ = run(capsys, "bnkl", tmp_path / "wdbc.parquet", "--class-column", "diagnosis", "--quiet",
                       "--json", tmp_path / "b.json")
    assert code == 0 and json.loads(out)["class0"] == "benign"
    assert run(capsys, "learn", ASIA, "--quiet", "--json", tmp_path / "hc.json")[0] == 0
    asked = [run(capsys, "query", data, "--graph", tmp_path / "hc.json", "--evidence", "smoke=yes", "--target", "lung")
             for data in (ASIA, tmp_path / "asia.parquet")]
    assert asked[0][0] == asked[1][0] == 0 and json.loads(asked[0][1]) == json.loads(asked[1][1])


def test_data_messages_name_the_command_line_flags(capsys, tmp_path):
    """Library messages that suggest an option say it as a flag here (never max_levels=, missing=, types=)."""
    (tmp_path / "gaps.csv").write_text("a,b\nx,1\n,2\ny,1\n")
    (tmp_path / "ab.json").write_text('{"nodes": ["a", "b"], "arcs": [["a", "b"]]}')
    pd.DataFrame({"id": [f"p{i}" for i in range(60)], "v": ["a", "b"] * 30}).to_csv(tmp_path / "ids.csv", index=False)
    (tmp_path / "noise.bin").write_bytes(np.random.default_rng(0).bytes(2000))
    pd.DataFrame({"n": range(30), "code": range(100, 160, 2), "v": ["a", "b"] * 15}).to_csv(tmp_path / "numbered.csv",
                                                                                           index=False)
    cases = [
        (["learn", WDBC], "need a discretization: pass --discretize uniform3 (or"),
        (["learn", WDBC], "or --categorical to use their values as categories"),
        (["learn", ASIA, "--max-levels", 1], "--max-levels 1 is not valid; use a whole number >= 2"),
        (["learn", ASIA, "--sep", ";;"], "--sep ';;' is not valid"),
        (["learn", ASIA, "--discretize", "magic"], "--discretize magic is not a discretization method"),
        (["enumerate", ASIA, "--bf", "0.3"], "the Bayes factor must be a finite number >= 1, got --bf 0.3"),
        (["query", tmp_path / "gaps.csv", "--missing", "em", "--graph", tmp_path / "ab.json", "--fit", "bdeu"],
         "fitting with --fit bdeu needs complete rows, and the data has 1 blank cells (first: column 'a', row 2); "
         "fit with --fit em"),
        (["learn", WDBC, "--discretize", "width:10000000000"], "--discretize width:10000000000 is not valid: width "
                                                               "takes at most 1,000 bins, e.g. 'width:5'"),
        (["learn", ASIA, "--encoding", "klingon"], "--encoding klingon is not a known text encoding"),
        (["learn", tmp_path / "gaps.csv", "--missing", "error"],
         "column 'a' row 2 is missing (--missing error); fill it in, or pass --missing state to give missing "
         "values their own state or --missing drop to drop such rows"),
        (["learn", tmp_path / "ids.csv"], "more than --max-levels 50; leave it out (--leave-out id) or raise "
                                          "--max-levels"),
        (["learn", tmp_path / "ids.csv", "--leave-out", "id,idd"], "--leave-out names column(s) 'idd' that the "
                                                                   "table does not have; the columns are 'id', 'v'"),
        (["learn", tmp_path / "numbered.csv"], "or --categorical to use their values as categories; 'n', 'code' "
                                               "look like row identifiers: leave them out (--leave-out n,code)"),
        (["learn", tmp_path / "ids.csv", "--leave-out", "v", "--leave-out", "id"],
         "--leave-out leaves out every column ('id', 'v'); keep at least one"),
        (["score", tmp_path / "noise.bin", "--arcs", ""], "file 'noise.bin' is not a text table (it holds NUL bytes"),
        (["learn", tmp_path / "noise.bin", "--no-header"], "give a CSV, Parquet or Feather file"),
    ]
    for args, message in cases:
        code, out, err = run(capsys, *args)
        assert code == 1 and out == "" and err.count("\n") == 1 and message in err, (args, err)
        assert not any(word in err for word in ("max_levels", "missing=", "discretize=", "types=", "sep=",
                                                "encoding=", "leave_out")), err


def test_leave_out_sets_columns_aside_and_warnings_print_as_the_command_line_does(capsys, tmp_path):
    """An ID column: learn warns in the command line's words (no Python file, line or class) and names the flag;
    --leave-out (comma-separated, repeatable) learns the same network as the table without those columns;
    bnkl takes it too."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 2, 300)
    table = pd.DataFrame({"id": [f"r{i}" for i in range(300)], "a": a, "b": (a + (rng.random(300) < .1)) % 2,
                          "note": [f"free text {i}" for i in range(300)], "c": rng.integers(0, 2, 300)})
    table.to_csv(tmp_path / "ids.csv", index=False)
    table[["a", "b", "c"]].to_csv(tmp_path / "plain.csv", index=False)
    code, _, err = run(capsys, "learn", tmp_path / "ids.csv", "--quiet", "--max-levels", 400)
    assert code == 0
    assert ("warning: column 'id' looks like a row identifier: every row has its own value (300 distinct values "
            "in 300 rows), so it tells a network nothing about other rows; leave it out (--leave-out id)\n") in err
    assert "UserWarning" not in err and ".py:" not in err
    left = [run(capsys, "learn", tmp_path / "ids.csv", "--quiet", *flags)
            for flags in (["--leave-out", "id,note"], ["--leave-out", " note ", "--leave-out", "id"])]
    plain = run(capsys, "learn", tmp_path / "plain.csv", "--quiet")
    assert left[0][0] == left[1][0] == plain[0] == 0 and left[0][2] == left[1][2] == ""
    learnt = [json.loads(out) for _, out, _ in (*left, plain)]
    assert learnt[0]["graph"] == learnt[1]["graph"] == learnt[2]["graph"]
    assert learnt[0]["score"] == learnt[1]["score"] == learnt[2]["score"]
    assert learnt[2]["graph"]["arcs"] in ([["a", "b"]], [["b", "a"]])
    code, out, _ = run(capsys, "bnkl", tmp_path / "ids.csv", "--class-column", "c", "--leave-out", "id,note",
                       "--quiet")
    assert code == 0 and set(json.loads(out)["graph"]["nodes"]) == {"a", "b"}  # the class column is not a node
    code, _, err = run(capsys, "bnkl", tmp_path / "ids.csv", "--class-column", "c", "--leave-out", "nope")
    assert code == 1 and "--leave-out names column(s) 'nope' that the table does not have" in err


def test_missing_values_marks_cells_missing_in_learn_and_bnkl(capsys, tmp_path):
    """'?' and -999 for 'no value': the warning names the flag; with --missing-values the table learns as the
    same table with blank cells does (learn, --missing em too), and bnkl and its --cv take the flag."""
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2, 400)
    frame = pd.DataFrame({"a": a, "b": (a + (rng.random(400) < .1)) % 2, "c": rng.integers(0, 3, 400),
                          "y": np.where(rng.random(400) < .5, "p", "q")})
    blank = frame.astype(object)
    blank.loc[rng.random(400) < .1, "a"] = None
    blank.loc[rng.random(400) < .1, "c"] = None
    marked = blank.copy()
    marked["a"] = marked["a"].where(marked["a"].notna(), "?")
    marked["c"] = marked["c"].where(marked["c"].notna(), -999)
    blank.to_csv(tmp_path / "blank.csv", index=False)
    marked.to_csv(tmp_path / "marked.csv", index=False)
    code, _, err = run(capsys, "learn", tmp_path / "marked.csv", "--quiet")
    assert code == 0 and "warning: column 'a' mixes numbers and text (row " in err
    assert "mark it missing (--missing-values '?')" in err
    for extra in ([], ["--missing", "em"]):
        got = [json.loads(run(capsys, "learn", tmp_path / name, "--quiet", *flags, *extra)[1])
               for name, flags in (("marked.csv", ["--missing-values", "?,-999"]), ("blank.csv", []))]
        assert got[0]["graph"] == got[1]["graph"] and got[0]["score"] == got[1]["score"]
    bnkl = [json.loads(run(capsys, "bnkl", tmp_path / name, "--class-column", "y", "--cv", 3, "--seed", 1, "--quiet",
                           *flags)[1])
            for name, flags in (("marked.csv", ["--missing-values", "?, -999"]), ("blank.csv", []))]
    assert bnkl[0]["graph"] == bnkl[1]["graph"] and bnkl[0]["cv"] == bnkl[1]["cv"]
    marked.loc[3, "y"] = "?"  # a class marked as no value is a missing class, as a blank one is
    marked.to_csv(tmp_path / "marked.csv", index=False)
    code, _, err = run(capsys, "bnkl", tmp_path / "marked.csv", "--class-column", "y", "--missing-values", "?,-999")
    assert code == 1 and "class column 'y' row 4 is missing; give every row one of the two class labels" in err


def test_version_and_the_name_the_command_was_started_by(capsys, monkeypatch):
    for argv0, prog in (("/usr/bin/bnexplore", "bnexplore"), ("/x/bnexplore/__main__.py", "python -m bnexplore")):
        monkeypatch.setattr(sys, "argv", [argv0])
        with pytest.raises(SystemExit):
            cli.main(["--version"])
        assert capsys.readouterr().out.strip() == f"{prog} {bx.__version__}"


# -- query, knowledge, bootstrap (issue 15) ----------------------------------

def test_query_a_bif_network_prints_posteriors_and_the_evidence_probability(capsys):
    code, out, _ = run(capsys, "query", ASIA_BIF, "--evidence", "smoke=yes,xray=yes", "--target", "lung",
                       "--target", "either")
    assert code == 0
    payload = json.loads(out)
    want = bx.query(bx.read_bif(ASIA_BIF), ["lung", "either"], {"smoke": "yes", "xray": "yes"})
    assert payload["posterior"] == want.to_json()["posterior"] and set(payload["posterior"]) == {"lung", "either"}
    assert payload["evidence_probability"] == pytest.approx(want.evidence_probability, rel=1e-12)


def test_query_data_fits_the_learned_graph_then_answers(capsys, tmp_path):
    result = tmp_path / "hc.json"
    assert run(capsys, "learn", ASIA, "--json", result)[0] == 0
    code, out, _ = run(capsys, "query", ASIA, "--graph", result, "--evidence", "smoke=yes", "--target", "lung",
                       "--likelihood", "xray=0.9,0.1", "--fit", "ml")
    assert code == 0
    payload = json.loads(out)
    data = bx.read_csv(ASIA)
    network = bx.fit_network(bx.Result.from_json(result.read_text()).graph, data, method="ml")
    want = bx.query(network, ["lung"], {"smoke": "yes"}, {"xray": [0.9, 0.1]})
    assert payload["posterior"]["lung"] == pytest.approx(want.posterior["lung"], rel=1e-12)
    assert payload["fit"]["method"] == "ml" and payload["fit"]["rows"] == data.n_rows


def test_query_reads_states_that_hold_commas():
    assert cli_networks.split_assignments("A=(0.5, 1.2],B=no", "--evidence") == [("A", "(0.5, 1.2]"), ("B", "no")]


@pytest.mark.parametrize("args, message", [
    (["query", ASIA, "--evidence", "smoke=yes"], "not a BIF network"),
    (["query", ASIA_BIF, "--evidence", "smoke=maybe"], "'maybe' is not a state of 'smoke'; its states are yes, no"),
    (["query", ASIA_BIF, "--evidence", "smoke"], "write VARIABLE=VALUE"),
    (["query", ASIA_BIF, "--target", "lungs"], "no variable 'lungs'"),
    (["query", ASIA_BIF, "--likelihood", "smoke=a,b"], "one number per state"),
    (["learn", ASIA, "--require", "smoke->lung", "--forbid", "smoke->lung"], "both required and forbidden"),
    (["learn", ASIA, "--tiers", "smoke;;lung"], "empty tier"),
    (["learn", ASIA, "--knowledge", "missing.json"], "cannot read --knowledge file"),
    (["learn", ASIA, "--bootstrap", 0], "--bootstrap must be"),
])
def test_query_knowledge_and_bootstrap_errors_are_one_line(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code != 0 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and message in err


def test_learn_honours_required_forbidden_arcs_and_tiers(capsys, tmp_path):
    knowledge_file = tmp_path / "k.json"
    knowledge_file.write_text(json.dumps({"forbid": [["either", "xray"]]}))
    out_file = tmp_path / "r.json"
    code, _, _ = run(capsys, "learn", ASIA, "--algorithm", "tabu", "--require", "asia->smoke", "--tiers",
                     "dysp;bronc", "--knowledge", knowledge_file, "--json", out_file)
    assert code == 0
    payload = json.loads(out_file.read_text())
    knowledge = bx.Knowledge.from_json(payload["knowledge"])
    assert knowledge.require == [("asia", "smoke")] and knowledge.forbid == [("either", "xray")]
    assert knowledge.allows(bx.Result.from_json(payload).graph)


@pytest.mark.parametrize("algorithm", ["rpdag", "rpdag-tabu", "exact", "obs", "asobs"])
def test_every_learn_algorithm_honours_the_knowledge_flags(capsys, tmp_path, algorithm):
    out_file = tmp_path / "r.json"
    extra = ["--time-per-variable", 0.02, "--seed", 1] if algorithm in ("obs", "asobs") else []
    code, _, err = run(capsys, "learn", ASIA, "--algorithm", algorithm, "--score", "bic", "--require",
                       "asia->smoke,tub->dysp", "--forbid", "smoke->lung", "--tiers", "asia,smoke;tub,lung",
                       "--json", out_file, *extra)
    assert code == 0, err
    payload = json.loads(out_file.read_text())
    knowledge = bx.Knowledge.from_json(payload["knowledge"])
    assert knowledge.require == [("asia", "smoke"), ("tub", "dysp")] and payload["params"]["knowledge"] == \
        payload["knowledge"]
    graph = bx.Result.from_json(payload).graph
    assert knowledge.allows(graph) and not graph.adj[graph.index("smoke"), graph.index("lung")]
    assert graph.adj[graph.index("asia"), graph.index("smoke")] and graph.adj[graph.index("tub"), graph.index("dysp")]


def test_enumerate_honours_the_knowledge_flags(capsys, tmp_path):
    out_file = tmp_path / "cs.json"
    code, out, err = run(capsys, "enumerate", ASIA, "--bf", 3, "--require", "smoke->lung,either->xray", "--forbid",
                         "tub->either", "--json", out_file)
    assert code == 0, err
    found = bx.CredibleSet.from_json(json.loads(out_file.read_text()))
    knowledge = bx.Knowledge(require=[("smoke", "lung"), ("either", "xray")], forbid=[("tub", "either")])
    assert found.params["knowledge"] == knowledge.to_json() and len(found) >= 1
    assert all(knowledge.allows(dag) for dag, _ in found.dags)
    want = bx.credible_set(bx.read_csv(ASIA), bf=3, knowledge=knowledge)
    assert found.opt == pytest.approx(want.opt) and len(found) == len(want)
    code, _, err = run(capsys, "enumerate", ASIA, "--require", "smoke->lung", "--forbid", "smoke->lung")
    assert code != 0 and "both required and forbidden" in err


def test_learn_bootstrap_adds_strengths_and_the_averaged_network(capsys, tmp_path):
    out_file = tmp_path / "boot.json"
    code, out, _ = run(capsys, "learn", ASIA, "--bootstrap", 4, "--seed", 1, "--bootstrap-workers", 1,
                       "--threshold", 0.5, "--json", out_file)
    assert code == 0 and json.loads(out)["resamples"] == 4
    payload = json.loads(out_file.read_text())
    want = bx.bootstrap(bx.read_csv(ASIA), "hc", R=4, seed=1, workers=1, max_indegree=None).to_json(0.5)
    assert payload["strength"] == want["strength"] and payload["averaged"] == want["averaged"]
    assert payload["averaged"]["threshold_method"] == "user" and payload["bootstrap"]["resamples"] == 4

"""Every error a user can cause at the command line or the Python API is one line naming the flag or the
keyword (issue 30 items 11, 13, 19, 22): numbers out of range, NaN, the wrong type, graph files that are
not graphs, output files that cannot be written (refused before the search runs)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bnexplore as bx
from bnexplore import cli
from bnexplore.errors import BNExploreError

ROOT = Path(__file__).resolve().parent.parent
ASIA = str(ROOT / "sample_data" / "asia.csv")
ASIA_BIF = str(ROOT / "sample_data" / "networks" / "asia.bif.gz")


def run(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line(code, err, *words):
    assert code != 0 and "Traceback" not in err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1, err
    for word in words:
        assert word in err, err


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("graphs")
    files = {"list": [1, 2], "nodes_text": {"nodes": "asia", "arcs": []}, "number": 5,
             "wide": {"nodes": [f"v{i}" for i in range(100_000)], "arcs": []},
             "unknown": {"graph": {"nodes": ["asia", "nope", {"x": 1}], "arcs": []}}}
    paths = {name: folder / f"{name}.json" for name in files}
    for name, payload in files.items():
        paths[name].write_text(json.dumps(payload))
    paths["deep"] = folder / "deep.json"
    paths["deep"].write_text("[" * 100_000 + "]" * 100_000)
    paths["text"] = folder / "text.json"
    paths["text"].write_text("not json")
    return paths


@pytest.mark.parametrize("args, words", [
    (["learn", ASIA, "--time-limit", "-5"], ["--time-limit", "positive", "-5"]),
    (["learn", ASIA, "--time-limit", "0"], ["--time-limit", "positive"]),
    (["learn", ASIA, "--time-limit", "nan"], ["--time-limit", "nan"]),
    (["learn", ASIA, "--time-limit", "inf"], ["--time-limit", "inf"]),
    (["enumerate", ASIA, "--time-limit", "-1"], ["--time-limit"]),
    (["bnkl", ASIA, "--class-column", "smoke", "--time-limit", "nan"], ["--time-limit"]),
    (["learn", ASIA, "--restarts", "5", "--seed", "-1"], ["--seed", "whole number >= 0", "-1"]),
    (["learn", ASIA, "--restarts", "-3"], ["--restarts"]),
    (["learn", ASIA, "--max-indegree", "-1"], ["--max-indegree"]),
    (["learn", ASIA, "--algorithm", "obs", "--time-per-variable", "0"], ["--time-per-variable"]),
    (["learn", ASIA, "--algorithm", "obs", "--workers", "0"], ["--workers"]),
    (["learn", ASIA, "--bootstrap", "1000000000"], ["--bootstrap", "100,000", "1000000000"]),
    (["learn", ASIA, "--bootstrap", "0"], ["--bootstrap"]),
    (["learn", ASIA, "--bootstrap", "2", "--bootstrap-workers", "0"], ["--bootstrap-workers"]),
    (["learn", ASIA, "--ess", "1e308"], ["--ess", "1,000,000", "1e+308"]),
    (["learn", ASIA, "--ess", "nan"], ["--ess"]),
    (["learn", ASIA, "--ess", "0"], ["--ess"]),
    (["learn", ASIA, "--ess", "1e-9"], ["--ess", "at least 1e-06", "1e-09"]),  # BDeu's prior counts near 0
    (["score", ASIA, "--arcs", "smoke->lung", "--ess", "-1"], ["--ess"]),
    (["enumerate", ASIA, "--ess", "1e7"], ["--ess"]),
    (["sample", ASIA_BIF, "-n", "1000000000000"], ["1,000,000,000,000 rows", "-n"]),
    (["sample", ASIA_BIF, "-n", "0"], ["-n must be a whole number >= 1"]),
    (["sample", ASIA_BIF, "-n", "5", "--seed", "-2"], ["--seed"]),
    (["query", ASIA_BIF, "--max-cells", "nan"], ["--max-cells", "nan"]),
    (["query", ASIA_BIF, "--max-cells", "-1"], ["--max-cells", "-1"]),
    (["query", ASIA_BIF, "--max-cells", "0"], ["--max-cells"]),
    (["bnkl", ASIA, "--class-column", "smoke", "--cv", "0"], ["--cv", "whole number >= 2"]),
    (["bnkl", ASIA, "--class-column", "smoke", "--cv", "1"], ["--cv"]),
    (["bnkl", ASIA, "--class-column", "smoke", "--max-parents", "-1"], ["--max-parents"]),
])
def test_bad_numbers_are_one_line_naming_the_flag(capsys, args, words):
    assert_one_line(*run(capsys, *args)[::2], *words)


@pytest.mark.parametrize("args, words", [
    (["learn", ASIA, "--time-limit", "abc"], ["--time-limit", "invalid float value: 'abc'", "--help"]),
    (["learn", ASIA, "--seed", "1.5"], ["--seed", "invalid int value"]),
    (["nope"], ["invalid choice: 'nope'"]),
    (["learn", ASIA, "--bogus", "1"], ["unrecognized arguments: --bogus 1"]),
    (["query", ASIA_BIF, "--fit", "x"], ["--fit", "invalid choice"]),
])
def test_usage_errors_are_one_line_too(capsys, args, words):
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert_one_line(1, err, *words)


def test_learn_without_data_says_to_give_data_or_a_score_cache(capsys):
    """DATA is optional since a search can run on a score cache (``--scores FILE.jkl``, issue 34)."""
    assert_one_line(*run(capsys, "learn")[::2], "give DATA", "--scores FILE.jkl")


@pytest.mark.parametrize("name, words", [
    ("list", ['"nodes" list']), ("nodes_text", ['"nodes" list']), ("number", ['"nodes" list']),
    ("wide", ["100,000 nodes", "only 8 variables"]), ("unknown", ["does not have", "nope"]),
    ("deep", ["not valid JSON"]), ("text", ["not valid JSON"]),
])
@pytest.mark.parametrize("command", ["score", "query"])
def test_graph_files_that_are_not_graphs_of_the_data_are_one_line(capsys, graphs, name, words, command):
    code, _, err = run(capsys, command, ASIA, "--graph", graphs[name])
    assert_one_line(code, err, str(graphs[name]) if name != "unknown" else "nope", *words)


@pytest.fixture
def no_search(monkeypatch):
    """Fail the test if a search starts."""
    import bnexplore.search as search

    def refuse(*args, **kwargs):
        raise AssertionError("the search ran before the output file was checked")

    monkeypatch.setattr(search, "learn", refuse)
    monkeypatch.setattr(search, "credible_set", refuse)


@pytest.mark.parametrize("command", [["learn", ASIA], ["enumerate", ASIA], ["query", ASIA_BIF],
                                     ["bnkl", ASIA, "--class-column", "smoke"]])
@pytest.mark.parametrize("where, words", [("folder", ["is a folder"]), ("missing", ["does not exist"]),
                                          ("under_a_file", ["does not exist"])])
def test_an_unwritable_json_path_is_refused_before_the_search(capsys, tmp_path, no_search, command, where, words):
    (tmp_path / "file.txt").write_text("x")
    path = {"folder": tmp_path, "missing": tmp_path / "nope" / "r.json",
            "under_a_file": tmp_path / "file.txt" / "r.json"}[where]
    code, out, err = run(capsys, *command, "--json", path)
    assert_one_line(code, err, "--json", *words)
    assert out == ""


def test_sample_output_is_checked_before_sampling(capsys, tmp_path):
    code, out, err = run(capsys, "sample", ASIA_BIF, "-n", 10, "-o", tmp_path)
    assert_one_line(code, err, "-o", "is a folder")


def test_a_write_that_fails_anyway_is_one_line(capsys, tmp_path, monkeypatch):
    def fail(self, text):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "write_text", fail)
    code, out, err = run(capsys, "learn", ASIA, "--max-indegree", 1, "--json", tmp_path / "r.json")
    assert_one_line(code, err, "cannot write --json", "Permission denied")


def test_valid_edge_values_still_run(capsys, tmp_path):
    code, out, _ = run(capsys, "learn", ASIA, "--ess", "1000000", "--seed", 0, "--restarts", 0,
                       "--max-indegree", 0, "--json", tmp_path / "r.json")
    assert code == 0 and json.loads(out)["edges"] == 0
    code, out, _ = run(capsys, "query", ASIA_BIF, "--max-cells", "40", "--target", "dysp")
    assert code == 0 and "dysp" in out


def test_the_installed_command_prints_no_traceback():
    done = subprocess.run([sys.executable, "-m", "bnexplore", "learn", ASIA, "--time-limit", "nan"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == "error: --time-limit must be a positive number of seconds, got nan"


@pytest.fixture(scope="module")
def asia():
    return bx.read_csv(ASIA).subset(slice(0, 500))


@pytest.mark.parametrize("call, keyword", [
    (lambda d: bx.learn(d, ess="1"), "ess"),
    (lambda d: bx.learn(d, ess=1e308), "ess"),
    (lambda d: bx.learn(d, ess=math.nan), "ess"),
    (lambda d: bx.learn(d, time_limit="5"), "time_limit"),
    (lambda d: bx.learn(d, time_limit=-5), "time_limit"),
    (lambda d: bx.learn(d, time_limit=0), "time_limit"),
    (lambda d: bx.learn(d, time_limit=math.nan), "time_limit"),
    (lambda d: bx.learn(d, "tabu", time_limit=math.inf), "time_limit"),
    (lambda d: bx.learn(d, seed="abc"), "seed"),
    (lambda d: bx.learn(d, restarts=5, seed=-1), "seed"),
    (lambda d: bx.learn(d, seed=1.5), "seed"),
    (lambda d: bx.Scorer(d, ess=[1]), "ess"),
    (lambda d: bx.credible_set(d, ess="2"), "ess"),
    (lambda d: bx.bootstrap(d, R=10**9), "R"),
    (lambda d: bx.bootstrap(d, R="5"), "R"),
    (lambda d: bx.bootstrap(d, R=2, seed="abc"), "seed"),
    (lambda d: bx.bootstrap(d, R=2, workers="two"), "workers"),
    (lambda d: bx.bootstrap(d, R=2, workers=1, time_limit="1"), "time_limit"),
])
def test_the_api_names_the_keyword(asia, call, keyword):
    with pytest.raises(BNExploreError) as info:
        call(asia)
    message = str(info.value)
    assert message.startswith(f"{keyword} must be") and "\n" not in message


def test_the_largest_ess_gives_a_finite_score(asia):
    result = bx.learn(asia, ess=1e6, max_indegree=1)
    assert np.isfinite(result.score) and result.score < 0


@pytest.mark.parametrize("max_cells", [math.nan, -1, 0, "1e9"])
def test_the_api_query_refuses_a_max_cells_that_would_turn_the_guard_off(max_cells):
    network = bx.read_bif(ASIA_BIF)
    with pytest.raises(BNExploreError, match="max_cells must be a positive number of cells"):
        bx.query(network, max_cells=max_cells)
    assert bx.query(network, targets=["dysp"], max_cells=40).to_json()


@pytest.mark.parametrize("ess", ["1", math.nan, math.inf, -1, True])
def test_the_api_fit_network_refuses_an_impossible_ess(asia, ess):
    graph = bx.learn(asia, max_indegree=1).graph
    with pytest.raises(BNExploreError, match="ess must be a finite number >= 0"):
        bx.fit_network(graph, asia, ess=ess)


@pytest.mark.parametrize("algorithm, keyword, value", [
    ("hc", "perturb", "x"), ("hc", "perturb", -1), ("tabu", "tabu_length", "x"), ("tabu", "iterations", math.nan),
    ("obs", "time_per_variable", "1"), ("obs", "time_per_variable", -1), ("asobs", "max_evaluations", 1.5),
])
def test_learn_names_the_keyword_of_any_impossible_search_option(asia, algorithm, keyword, value):
    with pytest.raises(BNExploreError, match=f"^{keyword} must be"):
        bx.learn(asia, algorithm, **{keyword: value})


@pytest.mark.parametrize("seed", ["abc", -1, 1.5])
def test_the_api_sample_names_the_seed(seed):
    with pytest.raises(BNExploreError, match="^seed must be a whole number >= 0"):
        bx.sample(bx.read_bif(ASIA_BIF), 5, seed=seed)


@pytest.mark.parametrize("payload, words", [
    ({"require": 5}, ["cannot be read", "lists of"]), ({"tiers": 5}, ["cannot be read", "tiers as lists"]),
    ({"forbid": "zzz"}, ["forbid entries must be"]), ({"tiers": [["A"], 3]}, ["tier 2 must be a list"]),
])
def test_a_knowledge_file_of_the_wrong_shape_is_one_line(capsys, tmp_path, payload, words):
    path = tmp_path / "k.json"
    path.write_text(json.dumps(payload))
    assert_one_line(*run(capsys, "learn", ASIA, "--knowledge", path)[::2], *words)

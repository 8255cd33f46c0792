"""``bnexplore compare`` through the command line: the scoreboard's numbers in its JSON and text, the optimum
from --optimum or from an exact result file of the same score, and one-line refusals of bad input."""

import json

import pytest

from bnexplore import bundled, cli, read_csv
from bnexplore.bif import read_bif
from bnexplore.scores import Scorer
from bnexplore.search.exact import exact_search
from bnexplore.search.hillclimb import hill_climb, tabu_search
from bnexplore.search.scoreboard import scoreboard

ASIA = "sample_data/asia.csv"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("compare")
    data = read_csv(ASIA)
    bic = Scorer(data, score="bic")
    made = {"hc": hill_climb(bic), "tabu": tabu_search(bic), "exact": exact_search(bic, max_indegree=2),
            "exact-bdeu": exact_search(Scorer(data, score="bdeu", ess=1.0), max_indegree=2)}
    paths = {}
    for name, result in made.items():
        paths[name] = str(folder / f"{name}.json")
        with open(paths[name], "w") as f:
            f.write(result.dumps())
    return made, paths


def run(capsys, *argv):
    code = cli.main(["compare", ASIA, *argv, "--quiet"])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_rows_are_the_scoreboards_with_the_optimum_it_runs(files, capsys):
    made, paths = files
    truth = str(bundled.network_path("asia"))
    code, out, err = run(capsys, paths["hc"], paths["tabu"], "--score", "bic", "--truth", truth, "--optimum",
                         "--max-indegree", "2")
    assert code == 0, err
    payload = json.loads(out)
    optimum = exact_search(Scorer(read_csv(ASIA), score="bic"), max_indegree=2)
    expected = scoreboard({paths["hc"]: made["hc"], paths["tabu"]: made["tabu"], "optimum (exact search)": optimum},
                          read_bif(truth).dag(), bf=20.0, optima=[optimum])
    assert len(payload["rows"]) == len(expected)
    for row, want in zip(payload["rows"], expected):
        assert row.keys() == want.keys()
        for key, value in want.items():
            assert row[key] == (pytest.approx(value) if isinstance(value, float) else value), key
    assert payload["optimum"]["score"] == pytest.approx(optimum.score)
    assert all(row["gap"] is not None and row["shd_truth"] is not None for row in payload["rows"])


def test_an_exact_file_of_the_same_score_is_the_optimum_one_of_another_score_is_not(files, capsys):
    made, paths = files
    code, out, err = run(capsys, paths["hc"], paths["exact"], "--score", "bic")
    assert code == 0, err
    rows = {row["name"]: row for row in json.loads(out)["rows"]}
    hc = made["hc"]
    best = made["exact"].score
    assert rows[paths["hc"]]["gap"] == pytest.approx(best - hc.score)
    assert rows[paths["hc"]]["shd_truth"] is None  # no --truth
    code, out, err = run(capsys, paths["hc"], paths["exact-bdeu"], "--score", "bic")
    payload = json.loads(out)
    assert code == 0 and payload["optimum"] is None
    assert all(row["gap"] is None and row["in_credible_set"] is None for row in payload["rows"])


def test_a_graph_file_is_compared_like_a_result(files, capsys, tmp_path):
    """A plain ``{nodes, arcs}`` file (as ``query --graph`` takes) gets a row of its own, scored on the data."""
    made, paths = files
    graph = tmp_path / "mine.json"
    graph.write_text(json.dumps(made["hc"].graph.to_json()))
    code, out, err = run(capsys, str(graph), paths["hc"], "--score", "bic")
    assert code == 0, err
    rows = {row["name"]: row for row in json.loads(out)["rows"]}
    assert rows[str(graph)]["algorithm"] == "graph"
    assert rows[str(graph)]["score"] == pytest.approx(made["hc"].score)
    graph.write_text(json.dumps({"nodes": ["asia", "nobody"], "arcs": []}))
    code, out, err = run(capsys, str(graph))
    assert code != 0 and "nobody" in err and len(err.strip().splitlines()) == 1


def test_text_table_says_unknown_as_a_dash(files, capsys):
    _, paths = files
    code, out, err = run(capsys, paths["hc"], paths["exact-bdeu"], "--score", "bic", "--text")
    assert code == 0, err
    header, first, _, note = out.strip().splitlines()
    assert header.split()[:5] == ["name", "algorithm", "score", "gap", "in_credible_set"]
    assert first.split()[1:] == ["hc", f"{files[0]['hc'].score:.4f}", "-", "-", "-", "-", "-", "-", "-", "-"]
    assert "optimum unknown" in note and "CPDAGs" in note


@pytest.mark.parametrize("argv, words", [
    (["--bf", "1"], "--bf 1: a Bayes factor is a number above 1"),
    (["--bf", "nan"], "--bf nan: a Bayes factor"),
    (["--truth", "sample_data/networks/alarm.bif.gz"], "the network's variables differ from the data's"),
])
def test_bad_flags_are_refused_in_one_line(files, capsys, argv, words):
    _, paths = files
    code, out, err = run(capsys, paths["hc"], *argv)
    assert code == 1 and words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_result_files_are_refused_naming_the_file(files, capsys, tmp_path):
    _, paths = files
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"algorithm": "hc", "score": -1.0, "score_name": "bic",
                                 "graph": {"nodes": ["a", "b"], "arcs": [["a", "b"]]}}))
    names = list(read_csv(ASIA).names)
    huge = tmp_path / "huge.json"  # refused before a 100,000-node matrix is built
    huge.write_text(json.dumps({"algorithm": "hc", "score": -1.0, "score_name": "bic",
                                "graph": {"nodes": names + [f"x{i}" for i in range(100_000)], "arcs": []}}))
    hidden = tmp_path / "hidden.json"  # a graph in extra with names the data lack
    hidden.write_text(json.dumps({"algorithm": "pc", "score": -1.0, "score_name": "bic",
                                  "graph": {"nodes": names, "arcs": []},
                                  "extra": {"cpdag": {"__graph__": "PDAG", "nodes": ["a", "b"], "arcs": []}}}))
    nested = tmp_path / "nested.json"
    nested.write_text('{"algorithm": "hc", "score": 1, "score_name": "bic", "extra": ' + "[" * 100_000
                      + "]" * 100_000 + "}")
    for path, words in ((broken, "invalid JSON"), (other, "its network's variables differ from the data's"),
                        (huge, "its network's variables differ from the data's"),
                        (hidden, "its network's variables differ from the data's"),
                        (nested, "not a bnexplore result file"),
                        (tmp_path / "absent.json", "cannot read result file")):
        code, out, err = run(capsys, paths["hc"], str(path))
        assert code == 1 and str(path) in err and words in err and len(err.strip().splitlines()) == 1

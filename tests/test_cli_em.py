"""The command line on a table with blank cells: ``learn --missing em`` (structural EM, its flags, a line per
EM iteration on a terminal) and ``impute`` (the completed table), through ``cli.main``."""

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnexplore import cli
from bnexplore.data import MISSING_POLICIES

ROOT = Path(__file__).resolve().parent.parent
ASIA = ROOT / "sample_data" / "asia.csv"


def run(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def blanks(tmp_path_factory):
    """800 rows of asia with 8 % of the cells blanked at random: ``(path, frame)``."""
    frame = pd.read_csv(ASIA).head(800)
    rng = np.random.default_rng(3)
    frame = frame.mask(rng.random(frame.shape) < 0.08)
    path = tmp_path_factory.mktemp("em") / "asia_blanks.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_the_missing_choices_are_the_data_policies():
    assert cli.MISSING == MISSING_POLICIES
    parser = cli.build_parser()
    assert parser.parse_args(["learn", "x.csv", "--missing", "em"]).missing == "em"


def test_learn_with_missing_em_runs_structural_em(capsys, blanks, tmp_path):
    path, _ = blanks
    out_file = tmp_path / "em.json"
    code, out, err = run(capsys, "learn", path, "--missing", "em", "--em-iterations", 3, "--completions", 8,
                         "--json", out_file)
    assert code == 0, err
    summary = json.loads(out)
    saved = json.loads(out_file.read_text())
    em = saved["extra"]["em"]
    assert [it["iteration"] for it in em["iterations"]] == list(range(summary["em_iterations"] + 1))  # 0: start
    assert 1 <= summary["em_iterations"] <= 3
    assert summary["em_returned"] == em["returned"] and em["completions"] == 8
    assert summary["edges"] == len(saved["graph"]["arcs"]) + len(saved["graph"].get("links", []))


@pytest.mark.parametrize("args, message", [
    (["--em-iterations", "3"], "--em-iterations applies to --missing em only"),
    (["--missing", "em", "--em-iterations", "0"], "--em-iterations"),
    (["--missing", "em", "--completions", "-2"], "--completions"),
])
def test_em_flags_are_checked_and_named(capsys, blanks, args, message):
    code, out, err = run(capsys, "learn", blanks[0], *args)
    assert code == 1 and out == "" and err.count("\n") == 1 and message in err


def test_a_search_that_cannot_be_structural_em_is_refused_in_one_line(capsys, blanks):
    code, out, err = run(capsys, "learn", blanks[0], "--missing", "em", "--algorithm", "pc")
    assert code == 1 and out == "" and err.startswith("error: ") and err.count("\n") == 1 and "hc" in err


def test_each_em_iteration_is_a_line_on_a_terminal(capsys, blanks, monkeypatch, tmp_path):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    monkeypatch.setattr(cli.TerminalProgress.__init__, "__defaults__", (screen, None, 28))
    code, out, err = run(capsys, "learn", blanks[0], "--missing", "em", "--em-iterations", 3, "--json",
                         tmp_path / "em.json")
    assert code == 0, err
    lines = [line.strip() for line in screen.getvalue().replace("\r", "\n").splitlines()
             if line.startswith("EM iteration")]
    iterations = json.loads((tmp_path / "em.json").read_text())["extra"]["em"]["iterations"]
    assert lines == [f"EM iteration {it['iteration']}: observed-data log-likelihood {it['log_likelihood']:.4f}, "
                     f"{it['arcs']} arcs" for it in iterations]  # each iteration once, in order


def test_impute_writes_the_completed_table(capsys, blanks, tmp_path):
    path, frame = blanks
    result = tmp_path / "em.json"
    assert run(capsys, "learn", path, "--missing", "em", "--em-iterations", 2, "--json", result)[0] == 0
    for method in ("mode", "sample"):
        target = tmp_path / f"completed-{method}.csv"
        code, out, err = run(capsys, "impute", path, result, "--out", target, "--method", method, "--seed", 4)
        assert code == 0, err
        summary = json.loads(out)
        assert summary == {"rows": 800, "blank_cells": int(frame.isna().sum().sum()), "method": method,
                           "warnings": [], "written": str(target)}  # asia's rows are enumerated: exact
        completed = pd.read_csv(target)
        assert completed.shape == frame.shape and not completed.isna().any().any()
        kept = frame.notna().to_numpy()
        assert (completed[frame.columns].astype(str).to_numpy()[kept] == frame.astype(str).to_numpy()[kept]).all()
        assert set(np.unique(completed.to_numpy())) <= {"yes", "no"}


def test_impute_refuses_a_graph_of_other_variables_and_an_unwritable_out(capsys, blanks, tmp_path):
    graph = tmp_path / "g.json"
    graph.write_text(json.dumps({"nodes": ["asia", "tub"], "arcs": [["asia", "tub"]]}))
    code, _, err = run(capsys, "impute", blanks[0], graph, "--out", tmp_path / "c.csv")
    assert code == 1 and "has 2 of the data's 8 variables" in err
    code, _, err = run(capsys, "impute", blanks[0], graph, "--out", tmp_path / "no" / "c.csv")
    assert code == 1 and "--out" in err and "does not exist" in err


def test_impute_takes_the_missing_flag_learn_took_and_only_em(capsys, blanks, tmp_path):
    path, _ = blanks
    graph = tmp_path / "g.json"
    graph.write_text(json.dumps({"nodes": list(pd.read_csv(path).columns), "arcs": [["smoke", "lung"]]}))
    code, _, err = run(capsys, "impute", path, graph, "--missing", "em", "--out", tmp_path / "c.csv")
    assert code == 0, err
    with pytest.raises(SystemExit):
        run(capsys, "impute", path, graph, "--missing", "drop", "--out", tmp_path / "d.csv")
    assert "invalid choice: 'drop' (choose from 'em')" in capsys.readouterr().err


def test_query_fits_the_tables_by_em_on_data_with_blanks(capsys, blanks, tmp_path):
    path, _ = blanks
    graph = tmp_path / "g.json"
    graph.write_text(json.dumps({"nodes": ["smoke", "lung"], "arcs": [["smoke", "lung"]]}))
    code, out, err = run(capsys, "query", path, "--missing", "em", "--graph", graph, "--fit", "em",
                         "--evidence", "smoke=yes", "--target", "lung")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["fit"]["method"] == "em" and answer["fit"]["rows"] == 800
    assert abs(sum(answer["posterior"]["lung"].values()) - 1) < 1e-9
    code, out, err = run(capsys, "query", path, "--missing", "em", "--graph", graph, "--evidence", "smoke=yes")
    assert code == 1 and out == "" and err.count("\n") == 1 and "--fit em" in err  # bdeu on blanks: use EM

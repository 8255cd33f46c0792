"""The command line's ``edit`` (issue 35, item 1) through ``cli.main``: the printed figures are the API's, ``-o``
writes the edited network, a refused edit and bad input end in one line and a non-zero exit."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

import bnexplore as bx
from bnexplore import cli
from bnexplore.formats import read_graph, read_network

ROOT = Path(__file__).resolve().parent.parent
ASIA = str(ROOT / "sample_data" / "asia.csv")
ASIA_BIF = str(ROOT / "sample_data" / "networks" / "asia.bif.gz")
EDITS = [("add", "smoke", "dysp"), ("reverse", "smoke", "lung"), ("delete", "either", "xray")]


def run(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def edit_flags(edits):
    return [word for edit in edits for word in ("--edit", *edit)]


def api(edits, score="bdeu", ess=1.0):
    """The same edits by the Python API: the workbench and its changes."""
    data = bx.read_csv(ASIA)
    bench = bx.Workbench(read_graph(ASIA_BIF), bx.Scorer(data, score=score, ess=ess))
    return data, bench, [bench.apply(edit) for edit in edits]


@pytest.mark.parametrize("score,ess", [("bdeu", 1.0), ("k2", 1.0), ("bdeu", 5.0)])
def test_the_printed_tables_are_the_apis_figures(capsys, tmp_path, score, ess):
    code, out, err = run(capsys, "edit", ASIA, "--graph", ASIA_BIF, *edit_flags(EDITS), "--score", score, "--ess",
                         ess, "--json", tmp_path / "edits.json")
    assert code == 0, err
    data, bench, changes = api(EDITS, score, ess)
    assert f"score {bench.start_score:.6f}" in out
    blocks = out.split("\n\n")[1:-1]
    assert len(blocks) == len(changes)
    for number, (block, change) in enumerate(zip(blocks, changes), 1):
        lines = block.splitlines()
        assert lines[0] == f"edit {number}: {change.edit}"
        rows = [line.split() for line in lines[2:2 + len(change.nodes)]]
        assert [(r[0], float(r[1]), float(r[2]), float(r[3])) for r in rows] == [
            (name, round(before, 6), round(after, 6), round(after - before, 6))
            for name, before, after in change.nodes]
        total = float(re.search(r"total change (\S+)", block).group(1))
        assert total == round(change.change, 6)
        assert ("class: the same" in block) == change.same_class
    assert f"ln BF against the start {bench.log_bayes_factor():+.6f}" in out.splitlines()[-1]
    written = json.loads((tmp_path / "edits.json").read_text())
    assert written["log_bayes_factor"] == bench.log_bayes_factor()  # full precision in the JSON
    assert [e["change"] for e in written["edits"]] == [c.change for c in changes]
    assert [e["now_compelled"] for e in written["edits"]] == [[list(x) for x in c.now_compelled] for c in changes]
    assert bx.DAG.from_json(written["edited"]) == bench.graph


def test_a_reversal_within_the_class_prints_no_change(capsys):
    code, out, _ = run(capsys, "edit", ASIA, "--graph", ASIA_BIF, "--edit", "reverse", "smoke", "lung")
    assert code == 0
    assert "total change +0.000000" in out and "class: the same" in out


@pytest.mark.parametrize("name", ["edited.json", "edited.bif", "edited.xdsl.gz", "edited.modelstring"])
def test_o_writes_the_edited_network(capsys, tmp_path, name):
    path = tmp_path / name
    code, _, err = run(capsys, "edit", ASIA, "--graph", ASIA_BIF, *edit_flags(EDITS), "-o", path)
    assert code == 0, err
    data, bench, _ = api(EDITS)
    graph = bx.DAG.from_json(json.loads(path.read_text())) if name.endswith(".json") else read_graph(path)
    assert graph == bench.graph
    if name.endswith((".bif", ".xdsl.gz")):  # tables fitted to the data with --ess
        fitted = bx.fit_network(bench.graph, data, ess=1.0)
        network = read_network(path)
        assert network.names == fitted.names and network.states == fitted.states
        assert network.parents == fitted.parents
        for read, expected in zip(network.cpts, fitted.cpts):
            assert np.allclose(read, expected, atol=1e-6)


def test_the_edited_json_is_read_back_by_graph(capsys, tmp_path):
    assert run(capsys, "edit", ASIA, "--graph", ASIA_BIF, "--edit", "add", "smoke", "dysp", "-o",
               tmp_path / "one.json")[0] == 0
    code, out, _ = run(capsys, "edit", ASIA, "--graph", tmp_path / "one.json", "--edit", "delete", "smoke", "dysp")
    assert code == 0
    _, bench, changes = api(EDITS[:1])
    assert f"score {bench.score():.6f}" in out
    assert f"ln BF against the start {-changes[0].change:+.6f}" in out


def test_a_refused_edit_prints_the_cycle_writes_nothing_and_exits_1(capsys, tmp_path):
    path = tmp_path / "never.bif"
    code, out, err = run(capsys, "edit", ASIA, "--graph", ASIA_BIF, "--edit", "add", "smoke", "dysp",
                         "--edit", "add", "xray", "asia", "--edit", "delete", "smoke", "dysp", "-o", path)
    assert code == 1 and not path.exists()
    assert "edit 1: add smoke → dysp" in out and "edit 2" not in out
    assert err == ("error: --edit add xray asia (edit 2) refused: xray → asia would close the cycle "
                   "xray → asia → tub → either → xray; nothing written\n")


@pytest.mark.parametrize("edit,words", [
    (("add", "dysp", "nope"), "--edit add dysp nope: unknown node 'nope'; the network's nodes are asia"),
    (("delete", "asia", "dysp"), "--edit delete asia dysp: asia → dysp is not an arc of the network"),
    (("add", "asia", "tub"), "--edit add asia tub: asia → tub is already an arc of the network"),
    (("reverse", "xray", "xray"), "--edit reverse xray xray: a node cannot be its own parent"),
])
def test_a_bad_edit_is_one_line_naming_the_flag(capsys, edit, words):
    code, out, err = run(capsys, "edit", ASIA, "--graph", ASIA_BIF, "--edit", *edit)
    assert code == 1 and err.count("\n") == 1 and words in err


def test_an_unknown_kind_is_a_usage_error_before_the_data_is_read(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["edit", "no_such_file.csv", "--graph", ASIA_BIF, "--edit", "flip", "smoke", "dysp"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert "--edit: KIND 'flip' is not one of add, delete, reverse" in err


def test_o_without_a_network_ending_is_refused_naming_the_flag(capsys, tmp_path):
    code, _, err = run(capsys, "edit", ASIA, "--graph", ASIA_BIF, "-o", tmp_path / "edited.csv")
    assert code == 1 and err.count("\n") == 1 and "-o " in err and ".json" in err and ".bif" in err

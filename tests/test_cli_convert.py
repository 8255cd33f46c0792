"""Issue 36 at the command line: ``bnexplore convert IN OUT`` between every format of the registry, and the
commands that read a network (sample, query, compare --truth, --graph) taking any format.

Each format whose module has not landed yet is skipped with the reason; once every module is on main the
tests cover them all (they are parametrized over ``bnexplore.formats.FORMATS``).
"""

import gzip
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bnexplore as bx
from bnexplore import bundled, cli
from bnexplore.bif import read_bif
from bnexplore.formats import FORMATS, read_graph, read_network

ROOT = Path(__file__).resolve().parent.parent
ASIA_BIF = str(bundled.network_path("asia"))
ASIA_CSV = str(ROOT / "sample_data" / "asia.csv")
ASIA_HC = str(ROOT / "sample_data" / "asia_hc.json")
MODEL_STRING = ("[asia][smoke][tub|asia][lung|smoke][bronc|smoke][either|tub:lung][xray|either]"
                "[dysp|bronc:either]")
"""asia's graph as a bnlearn model string."""


def landed(spec):
    try:
        importlib.import_module(spec.module)
    except ModuleNotFoundError:
        return False
    return True


def format_params(keep=lambda spec: True):
    """The formats ``keep`` takes, each skipped (with the reason) while its module is not on main."""
    return [pytest.param(name, marks=() if landed(spec) else pytest.mark.skip(reason=f"{spec.module} not landed yet"))
            for name, spec in FORMATS.items() if keep(spec)]


ALL_LANDED = all(landed(spec) for spec in FORMATS.values())


def run(capsys, *args):
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_same_network(a, b):
    assert a.names == b.names and a.states == b.states and a.parents == b.parents
    for x, y in zip(a.cpts, b.cpts):
        assert x.shape == y.shape and np.allclose(x, y, rtol=0, atol=1e-12)


def named_arcs(graph):
    return {(graph.names[u], graph.names[v]) for u, v in graph.arcs()}


def assert_refused(code, out, err, *parts):
    assert code != 0 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    for part in parts:
        assert part in err, err


@pytest.fixture(scope="module")
def asia():
    return read_bif(ASIA_BIF)


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("name", format_params(lambda spec: spec.tables))
def test_asia_through_every_format_and_back_to_bif_is_the_same_network(capsys, tmp_path, asia, name, gz):
    spec = FORMATS[name]
    middle = tmp_path / ("asia" + spec.extensions[0] + (".gz" if gz else ""))
    code, out, err = run(capsys, "convert", ASIA_BIF, middle)
    assert code == 0, err
    assert json.loads(out) == {"written": str(middle), "format": name, "variables": 8, "arcs": 8}
    assert out.count("\n") == 1
    assert (middle.read_bytes()[:2] == b"\x1f\x8b") == gz  # gzipped exactly when OUT ends with .gz
    back = tmp_path / "back.bif"
    assert run(capsys, "convert", middle, back)[0] == 0
    assert_same_network(read_bif(back), asia)


@pytest.mark.parametrize("name", format_params(lambda spec: not spec.tables))
def test_asia_to_a_graph_only_format_keeps_its_graph(capsys, tmp_path, asia, name):
    out = tmp_path / ("asia" + FORMATS[name].extensions[0])
    code, printed, err = run(capsys, "convert", ASIA_BIF, out)
    assert code == 0, err
    assert json.loads(printed) == {"written": str(out), "format": name, "variables": 8, "arcs": 8}
    assert named_arcs(read_graph(out)) == named_arcs(asia.dag())


@pytest.mark.parametrize("name", format_params(lambda spec: spec.tables))
def test_to_and_from_name_the_format_whatever_the_ending(capsys, tmp_path, asia, name):
    odd = tmp_path / "asia.data"
    assert run(capsys, "convert", ASIA_BIF, odd, "--to", name)[0] == 0
    assert read_network(odd, name).names == asia.names
    back = tmp_path / "back.bif"
    code, out, err = run(capsys, "convert", odd, back, "--from", name)
    assert code == 0, err
    assert_same_network(read_bif(back), asia)
    if ALL_LANDED:  # without --from the content tells the format (asking every format's module)
        back.unlink()
        assert run(capsys, "convert", odd, back)[0] == 0
        assert_same_network(read_bif(back), asia)


def test_from_overrides_the_ending_of_in(capsys, tmp_path):
    """A BIF file named .xdsl read with --from bif is read as BIF (the ending alone would say XDSL)."""
    named_wrong = tmp_path / "asia.xdsl"
    named_wrong.write_bytes(gzip.decompress(Path(ASIA_BIF).read_bytes()))
    code, out, err = run(capsys, "convert", named_wrong, tmp_path / "a.bif", "--from", "bif")
    assert code == 0, err
    assert json.loads(out)["variables"] == 8


def test_an_existing_out_is_overwritten(capsys, tmp_path, asia):
    """As pgmpy's and pyAgrum's writers, and this command line's -o and --json, do."""
    out = tmp_path / "asia.bif"
    out.write_text("old text")
    assert run(capsys, "convert", ASIA_BIF, out)[0] == 0
    assert_same_network(read_bif(out), asia)


def test_a_bad_input_file_is_one_line_naming_the_line(capsys, tmp_path):
    bad = tmp_path / "bad.bif"
    bad.write_text("network x {\n}\nvariable a {\n  type discrete [ 2 ] { y, n };\n}\n"
                   "probability ( a ) {\n  table 0.5, 0.7;\n}\n")
    out = tmp_path / "out.bif"
    assert_refused(*run(capsys, "convert", bad, out), "BIF line 7", "sum to 1.2")
    assert not out.exists()
    truncated = tmp_path / "cut.bif"
    truncated.write_text(gzip.decompress(Path(ASIA_BIF).read_bytes()).decode()[:700])
    assert_refused(*run(capsys, "convert", truncated, out), "BIF line")
    assert_refused(*run(capsys, "convert", tmp_path / "missing.bif", out), "missing.bif")


@pytest.mark.parametrize("name", format_params(lambda spec: spec.tables))
def test_a_file_cut_short_in_any_format_is_one_line_naming_the_line(capsys, tmp_path, name):
    spec = FORMATS[name]
    whole = tmp_path / ("asia" + spec.extensions[0])
    assert run(capsys, "convert", ASIA_BIF, whole)[0] == 0
    text = whole.read_text()
    cut = tmp_path / ("cut" + spec.extensions[0])
    cut.write_text(text[: len(text) // 2])
    out = tmp_path / "out.bif"
    code, printed, err = run(capsys, "convert", cut, out)
    assert_refused(code, printed, err)
    assert re.search(r"\bline \d+", err), err
    assert not out.exists()


@pytest.mark.parametrize("args", [["g.modelstring"], ["g.txt", "--from", "modelstring"]], ids=["ending", "from"])
def test_a_graph_only_input_to_a_format_with_tables_is_refused(capsys, tmp_path, args):
    source = tmp_path / args[0]
    source.write_text(MODEL_STRING + "\n")
    out = tmp_path / "out.bif"
    assert_refused(*run(capsys, "convert", source, out, *args[1:]), "graph without probability tables",
                   "a BIF file needs them", f"bnexplore query DATA --graph {source}")
    assert not out.exists()


def test_unknown_endings_are_refused_naming_the_endings(capsys, tmp_path):
    code, out, err = run(capsys, "convert", ASIA_BIF, tmp_path / "asia.txt")
    assert_refused(code, out, err, "asia.txt has no ending of a network format", "--to")
    assert all(ending in err for spec in FORMATS.values() for ending in spec.extensions)
    assert not (tmp_path / "asia.txt").exists()
    with pytest.raises(SystemExit) as stop:  # argparse's usage error: one line, exit 2
        cli.main(["convert", ASIA_BIF, str(tmp_path / "a.bif"), "--to", "hugin"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "invalid choice: 'hugin'" in err and "'net'" in err


@pytest.mark.skipif(not ALL_LANDED, reason="telling a file by its content asks every format's module")
def test_an_input_of_no_known_ending_nor_content_is_refused_naming_the_endings(capsys, tmp_path):
    odd = tmp_path / "odd.txt"
    odd.write_text("name,age\nann,3\n")
    code, out, err = run(capsys, "convert", odd, tmp_path / "out.bif")
    assert_refused(code, out, err, "'odd.txt' is in no network format")
    assert all(ending in err for spec in FORMATS.values() for ending in spec.extensions)


def test_out_in_a_missing_folder_is_refused_before_in_is_read(capsys, tmp_path):
    assert_refused(*run(capsys, "convert", tmp_path / "missing.bif", tmp_path / "no" / "a.bif"),
                   "OUT", "does not exist")


def test_help_lists_the_formats_of_the_registry(capsys):
    for command in ("convert", "sample", "query", "compare"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        titles = [spec.title for spec in FORMATS.values() if spec.tables or command in ("convert", "compare")]
        assert all(title in text for title in titles), (command, text)
        assert all(ending in text for spec in FORMATS.values() if spec.title in titles for ending in spec.extensions)


NON_BIF = format_params(lambda spec: spec.tables and spec.name != "bif")


@pytest.mark.parametrize("name", NON_BIF)
def test_sample_and_query_read_a_network_in_another_format(capsys, tmp_path, name):
    other = tmp_path / ("asia" + FORMATS[name].extensions[0])
    assert run(capsys, "convert", ASIA_BIF, other)[0] == 0
    samples = {}
    for network in (ASIA_BIF, other):
        code, out, err = run(capsys, "sample", network, "-n", 30, "--seed", 5)
        assert code == 0, err
        samples[network] = out
    assert samples[ASIA_BIF] == samples[other] and samples[other].count("\n") == 31
    answers = []
    for network in (ASIA_BIF, other):
        code, out, err = run(capsys, "query", network, "--evidence", "smoke=yes,xray=yes", "--target", "lung")
        assert code == 0, err
        answers.append(json.loads(out))
    assert answers[0]["posterior"]["lung"] == pytest.approx(answers[1]["posterior"]["lung"], abs=1e-12)
    assert answers[0]["evidence_probability"] == pytest.approx(answers[1]["evidence_probability"], rel=1e-12)


def test_sample_and_query_refuse_a_graph_only_network_saying_how_to_fit_it(capsys, tmp_path):
    graph = tmp_path / "asia.modelstring"
    graph.write_text(MODEL_STRING)
    assert_refused(*run(capsys, "sample", graph, "-n", 5), "graph without probability tables", "sampling needs them")
    assert_refused(*run(capsys, "query", graph), "graph without probability tables", "a query needs them",
                   "--graph")


def test_query_of_a_file_that_is_no_network_names_the_endings(capsys):
    code, out, err = run(capsys, "query", ASIA_CSV, "--evidence", "smoke=yes")
    assert_refused(code, out, err, "not a BIF network", "--graph RESULT.json")
    assert all(ending in err for spec in FORMATS.values() for ending in spec.extensions)


@pytest.mark.parametrize("name", format_params())
def test_compare_score_and_query_graph_take_a_network_in_any_format(capsys, tmp_path, name):
    other = tmp_path / ("asia" + FORMATS[name].extensions[0])
    assert run(capsys, "convert", ASIA_BIF, other)[0] == 0
    boards = []
    for truth in (ASIA_BIF, other):
        code, out, err = run(capsys, "compare", ASIA_CSV, ASIA_HC, "--truth", truth, "--quiet")
        assert code == 0, err
        boards.append([row["shd_truth"] for row in json.loads(out)["rows"]])
    assert boards[0] == boards[1] and boards[0][0] is not None
    code, out, err = run(capsys, "compare", ASIA_CSV, other, "--truth", ASIA_BIF, "--quiet")  # a network as RESULT
    assert code == 0, err
    assert [row["shd_truth"] for row in json.loads(out)["rows"]] == [0]
    code, out, err = run(capsys, "score", ASIA_CSV, "--graph", other)
    assert code == 0, err
    assert json.loads(out)["parents"]["either"] == ["tub", "lung"]
    answers = []
    for graph in (ASIA_BIF, other):
        code, out, err = run(capsys, "query", ASIA_CSV, "--graph", graph, "--evidence", "smoke=yes")
        assert code == 0, err
        answers.append(json.loads(out)["posterior"])
    assert answers[0] == answers[1]


def test_compare_truth_in_another_format_with_other_variables_is_refused(capsys, tmp_path):
    alarm = tmp_path / "alarm.bif"
    assert run(capsys, "convert", bundled.network_path("alarm"), alarm)[0] == 0
    assert_refused(*run(capsys, "compare", ASIA_CSV, ASIA_HC, "--truth", alarm, "--quiet"),
                   "the network's variables differ from the data's")


def test_python_m_bnexplore_convert(tmp_path, asia):
    out = tmp_path / "asia.bif.gz"
    done = subprocess.run([sys.executable, "-m", "bnexplore", "convert", ASIA_BIF, str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"written": str(out), "format": "bif", "variables": 8, "arcs": 8}
    assert_same_network(read_bif(out), asia)


def test_query_takes_uai_evidence_files_beside_the_uai_network(capsys, tmp_path):
    """UAI's evidence files (issue 36): asia as .uai with 'smoke=yes, xray=yes' written as a .evid gives the
    answer of the same evidence given by name; a bad evidence file is one line naming its line."""
    from bnexplore.formats.uai import write_uai_evidence

    network = tmp_path / "asia.uai"
    assert run(capsys, "convert", ASIA_BIF, network)[0] == 0
    evidence = tmp_path / "asia.uai.evid"
    write_uai_evidence({"smoke": "yes", "xray": "yes"}, read_network(network), evidence)
    answers = []
    for flags in (("--evidence", "smoke=yes,xray=yes"), ("--evidence-file", evidence)):
        code, out, err = run(capsys, "query", network, *flags, "--target", "lung")
        assert code == 0, err
        answers.append(json.loads(out))
    assert answers[0] == answers[1]
    assert answers[0]["posterior"]["lung"] != pytest.approx(json.loads(run(capsys, "query", network, "--target",
                                                                           "lung")[1])["posterior"]["lung"])
    evidence.write_text("2 0 0 9 1\n")  # asia has variables 0-7
    assert_refused(*run(capsys, "query", network, "--evidence-file", evidence), "UAI evidence", "line 1")


def test_compare_scores_a_network_whose_variables_are_in_another_order_by_name(capsys, tmp_path):
    """A result over the data's variables listed in reverse order: its score is the same DAG's (before, the
    scorer read it by position and compare printed another DAG's score)."""
    truth = read_bif(ASIA_BIF).dag()
    data = bx.read_csv(ASIA_CSV)
    names = list(reversed(truth.names))
    reordered = {"graph": {"nodes": names, "arcs": [[truth.names[u], truth.names[v]] for u, v in truth.arcs()],
                           "links": []}, "algorithm": "graph", "score": 0.0, "score_name": "bdeu"}
    path = tmp_path / "reversed.json"
    path.write_text(json.dumps(reordered))
    code, out, err = run(capsys, "compare", ASIA_CSV, path, "--quiet")
    assert code == 0, err
    expected = bx.Scorer(data, "bdeu").total(truth)
    assert [row["score"] for row in json.loads(out)["rows"]] == [pytest.approx(expected, rel=1e-12)]

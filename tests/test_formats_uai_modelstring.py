"""Issue 36: bnlearn model strings (graph only) and UAI files with their evidence files, read and written.

Model strings are checked against the strings bnlearn's own documentation gives for asia, alarm and insurance.
"""

import gzip
import io
import itertools

import numpy as np
import pytest

from bnexplore import bundled
from bnexplore.bif import Network, read_bif, sample_codes, write_bif
from bnexplore.errors import BIFError, ResourceError
from bnexplore.formats import read_graph, read_network, write_network
from bnexplore.formats.modelstring import looks_like as looks_like_modelstring
from bnexplore.formats.modelstring import read_modelstring, write_modelstring
from bnexplore.formats.uai import looks_like as looks_like_uai
from bnexplore.formats.uai import read_uai, read_uai_evidence, write_uai, write_uai_evidence
from bnexplore.graphs import DAG
from bnexplore.inference import InferenceEngine

ROUND_TRIP = ["asia", "alarm", "child", "insurance"]

# The model strings of bnlearn's documentation (the asia example of its manual, man/alarm.Rd, man/insurance.Rd).
BNLEARN_STRINGS = {
    "asia": "[asia][smoke][tub|asia][lung|smoke][bronc|smoke][either|tub:lung][xray|either][dysp|bronc:either]",
    "alarm": "[HIST|LVF][CVP|LVV][PCWP|LVV][HYP][LVV|HYP:LVF][LVF][STKV|HYP:LVF][ERLO][HRBP|ERLO:HR][HREK|ERCA:HR]"
             "[ERCA][HRSA|ERCA:HR][ANES][APL][TPR|APL][ECO2|ACO2:VLNG][KINK][MINV|INT:VLNG][FIO2][PVS|FIO2:VALV]"
             "[SAO2|PVS:SHNT][PAP|PMB][PMB][SHNT|INT:PMB][INT][PRSS|INT:KINK:VTUB][DISC][MVS][VMCH|MVS]"
             "[VTUB|DISC:VMCH][VLNG|INT:KINK:VTUB][VALV|INT:VLNG][ACO2|VALV][CCHL|ACO2:ANES:SAO2:TPR][HR|CCHL]"
             "[CO|HR:STKV][BP|CO:TPR]",
    "insurance": "[Age][Mileage][SocioEcon|Age][GoodStudent|Age:SocioEcon][RiskAversion|Age:SocioEcon]"
                 "[OtherCar|SocioEcon][VehicleYear|SocioEcon:RiskAversion][MakeModel|SocioEcon:RiskAversion]"
                 "[SeniorTrain|Age:RiskAversion][HomeBase|SocioEcon:RiskAversion]"
                 "[AntiTheft|SocioEcon:RiskAversion][RuggedAuto|VehicleYear:MakeModel]"
                 "[Antilock|VehicleYear:MakeModel][DrivingSkill|Age:SeniorTrain]"
                 "[CarValue|VehicleYear:MakeModel:Mileage][Airbag|VehicleYear:MakeModel]"
                 "[DrivQuality|RiskAversion:DrivingSkill][Theft|CarValue:HomeBase:AntiTheft]"
                 "[Cushioning|RuggedAuto:Airbag][DrivHist|RiskAversion:DrivingSkill]"
                 "[Accident|DrivQuality:Mileage:Antilock][ThisCarDam|RuggedAuto:Accident]"
                 "[OtherCarCost|RuggedAuto:Accident][MedCost|Age:Accident:Cushioning][ILiCost|Accident]"
                 "[ThisCarCost|ThisCarDam:Theft:CarValue][PropCost|ThisCarCost:OtherCarCost]",
}

HOSTILE_NAMES = ["x y", "x_y", "Größe", 'say "hi"', "a[1]", "b|c", "d:e", "f,g", "<missing>", "(-inf, 5.667]",
                 "1st", "100%", "%41", "BAYES", "MARKOV", "c", "# not a comment", "tab\there", "line\nbreak"]
HOSTILE_STATES = [["(-inf, 5.667]", "(5.667, 8.333]", "(8.333, inf)"], ["<missing>", "master's degree", "missing"],
                  ["0", "-1"], ["yes", "Yes"], ["é", "e", "ë"], ["{a}", "a"], ["", "//", "/*"], ["a b", "a_b"],
                  ["1.5", "2.5"], ["%20", " "], ["#", "c"], ["BAYES", "MARKOV"], ["x,y", "x;y"], ["[", "]"],
                  ["|", ":"], ["2nd", "3rd"], ["a\tb", "a\nb"], ["ok"], ["s1", "s2", "s3", "s4"]]
HOSTILE_PARENTS = [[], [0], [1], [], [1, 3], [], [5, 4], [6, 0], [7], [8, 2, 0], [], [10], [9, 11], [12], [13],
                   [14, 3], [], [16, 15], [17]]


def hostile_network(seed=0):
    """A random network whose names and states hold what no format takes as it is."""
    rng = np.random.default_rng(seed)
    cpts = [rng.dirichlet(np.ones(len(HOSTILE_STATES[v])), size=[len(HOSTILE_STATES[p]) for p in HOSTILE_PARENTS[v]])
            for v in range(len(HOSTILE_NAMES))]
    return Network("my #1 net", HOSTILE_NAMES, HOSTILE_STATES, HOSTILE_PARENTS, cpts)


def named_arcs(dag):
    return sorted((dag.names[u], dag.names[v]) for u, v in dag.arcs())


# --- model strings ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BNLEARN_STRINGS))
def test_bnlearns_documented_model_strings_are_the_bundled_networks_graphs(name):
    dag = read_modelstring(BNLEARN_STRINGS[name])
    truth = read_bif(bundled.network_path(name)).dag()
    assert dag.names == [block.split("|")[0] for block in BNLEARN_STRINGS[name][1:-1].split("][")]
    if name == "alarm":  # bnlearn's alarm data abbreviates the names (HIST for HISTORY): the same shape
        assert (dag.n, dag.n_edges) == (truth.n, truth.n_edges) == (37, 46)
        assert sorted(map(len, map(dag.parents, range(37)))) == sorted(map(len, map(truth.parents, range(37))))
        return
    assert sorted(dag.names) == sorted(truth.names)
    assert named_arcs(dag) == named_arcs(truth)


def test_the_asia_model_string_is_written_as_bnlearn_writes_it_in_bnlearns_order():
    documented = BNLEARN_STRINGS["asia"]
    dag = read_modelstring(documented)
    assert write_modelstring(dag) == documented


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_bundled_networks_round_trip_as_the_same_dag(name, tmp_path):
    network = read_bif(bundled.network_path(name))
    text = write_modelstring(network)
    back = read_modelstring(text)
    assert back.names == network.names
    assert back == network.dag()
    # a network's parents are written in its own order
    first = next(v for v in range(network.n_vars) if len(network.parents[v]) > 1)
    block = f"[{network.names[first]}|{':'.join(network.names[p] for p in network.parents[first])}]"
    assert block in text
    for path in (tmp_path / f"{name}.modelstring", tmp_path / f"{name}.modelstring.gz"):
        assert write_network(network.dag(), path) == write_modelstring(network.dag())
        assert read_graph(path) == network.dag() == read_modelstring(path)
    assert gzip.decompress(path.read_bytes()).decode() == write_modelstring(network.dag())


def test_hostile_names_round_trip_and_names_bnlearn_takes_are_written_unchanged():
    network = hostile_network()
    text = write_modelstring(network)
    assert "\n" not in text and "\t" not in text
    back = read_modelstring(text)
    assert back.names == network.names and back == network.dag()
    for plain in ["x y", "x_y", "Größe", 'say "hi"', "f,g", "<missing>", "(-inf, 5.667)", "1st", "BAYES", "c"]:
        assert f"[{plain}" in write_modelstring(DAG.empty([plain]))
    assert write_modelstring(DAG.empty(["a[1]", "b|c", "d:e", "100%", "%41", "tab\there"])) == (
        "[a%5B1%5D][b%7Cc][d%3Ae][100%25][%2541][tab%09here]")
    assert read_modelstring("[50%][a%zz]").names == ["50%", "a%zz"]  # a '%' bnlearn wrote is kept


def test_white_space_between_blocks_is_skipped_and_kept_inside_names():
    dag = read_modelstring("  [a b]\n[ c|a b]\r\n")
    assert dag.names == ["a b", " c"] and named_arcs(dag) == [("a b", " c")]


@pytest.mark.parametrize(("text", "message"), [
    ("[a][b|a", r"character 4: this block's '\[' is never closed; add '\]'"),
    ("[a][b|a[c]]", r"character 4: this block's '\[' is never closed"),
    ("[a]]", r"character 4: '\]' closes no block"),
    ("[a]x[b]", r"character 4: expected '\[', found 'x'"),
    ("[a][b] junk", r"character 8: expected '\[', found 'junk' after the last block"),
    ("[a][b|a][a|b]", r"character 9: node 'a' is declared twice \(first at character 1\)"),
    ("[a][b|a:z]", r"character 9: parent 'z' of 'b' is never declared; add a block \[z\]"),
    ("[a][b|a:c][c|b]", r"character 11: the parents form a cycle c -> b -> c; remove one arc"),
    ("[a|a]", r"character 4: 'a' is listed as its own parent"),
    ("[a][b|a:a]", r"character 9: parent 'a' of 'b' is listed twice"),
    ("[a][b|]", r"character 7: an empty name"),
    ("[a][]", r"character 5: an empty name"),
    ("[a%ff]", r"character 2: 'a%ff' holds a %-escape that is not UTF-8"),
    ("  \n ", r"character 1: no node"),
    ("", r"character 1: no node"),
])
def test_malformed_model_strings_are_refused_naming_the_character(text, message):
    with pytest.raises(BIFError, match="^model string " + message):
        read_modelstring(text if "[" in text else io.StringIO(text))


def test_binary_garbage_and_a_gzip_bomb_are_refused(tmp_path, monkeypatch):
    garbage = tmp_path / "garbage.modelstring"
    garbage.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(BIFError, match="^model string character 1: expected '\\['"):
        read_modelstring(garbage)
    monkeypatch.setenv("BNEXPLORE_MAX_EXPANDED_MB", "1")
    bomb = tmp_path / "bomb.modelstring.gz"
    bomb.write_bytes(gzip.compress(b"[a]" * (3 << 20)))
    with pytest.raises(ResourceError, match="nothing was loaded"):
        read_modelstring(bomb)


def test_a_graph_whose_matrix_passes_the_bound_is_refused_before_it_is_made(monkeypatch):
    monkeypatch.setenv("BNEXPLORE_MAX_EXPANDED_MB", "1")
    text = "".join(f"[n{i}]" for i in range(400))  # 400 x 400 x 8 bytes = 1.2 MB
    with pytest.raises(ResourceError, match="declares 400 nodes, whose graph matrix would pass the 1.0 MB limit"):
        read_modelstring(text)
    assert read_modelstring(text[: text.index("[n300]")]).n == 300


def test_writing_refuses_what_a_model_string_cannot_hold():
    with pytest.raises(BIFError, match="node 1 has an empty name"):
        write_modelstring(DAG.empty(["a", ""]))
    with pytest.raises(BIFError, match="from a Network or a DAG, not a str"):
        write_modelstring("[a]")


def test_looks_like_only_model_strings():
    asia = read_bif(bundled.network_path("asia"))
    assert looks_like_modelstring(write_modelstring(asia))
    assert looks_like_modelstring("\n  \t[a b|c]")
    for other in ["network asia {", "<?xml version='1.0'?>", "BAYES\n2\n", "net\n{", "belief network \"x\"",
                  "[a", "a][b]", ""]:
        assert not looks_like_modelstring(other), other


# --- UAI -------------------------------------------------------------------------------------------------------

# The example of the UAI format's description (four binary variables; D's table over B, C, D, D fastest).
STANDARD_UAI = """BAYES
4
2 2 2 2
4
1 0
2 0 1
2 0 2
3 1 2 3

2
0.2 0.8
4
0.6 0.4 0.3 0.7
4
0.25 0.75 0.75 0.25
8
1.0 0.0 0.35 0.65 0.8 0.2 0.0 1.0
"""


def same_network(back, network):
    assert (back.name, back.names, back.states, back.parents) == (network.name, network.names, network.states,
                                                                  network.parents)
    for v, (mine, theirs) in enumerate(zip(network.cpts, back.cpts)):
        assert np.array_equal(mine, theirs), network.names[v]


def test_the_formats_own_example_reads_as_the_standard_says_last_variable_fastest():
    net = read_uai(STANDARD_UAI)
    assert net.names == ["X0", "X1", "X2", "X3"] and net.states == [["0", "1"]] * 4
    assert net.parents == [[], [0], [0], [1, 2]] and net.name == "unknown"
    d = net.cpts[3]
    assert d[0, 1].tolist() == [0.35, 0.65] and d[1, 0].tolist() == [0.8, 0.2]  # (B, C) = (0, 1), then (1, 0)
    assert net.cpts[1].tolist() == [[0.6, 0.4], [0.3, 0.7]]


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_bundled_networks_round_trip_exactly(name, tmp_path):
    network = read_bif(bundled.network_path(name))
    text = write_uai(network)
    same_network(read_uai(text), network)
    for path in (tmp_path / f"{name}.uai", tmp_path / f"{name}.uai.gz"):
        assert write_network(network, path) == text
        same_network(read_network(path), network)
    same_network(read_uai(io.BytesIO(path.read_bytes())), network)


@pytest.mark.parametrize("seed", range(3))
def test_hostile_names_and_tiny_probabilities_round_trip_exactly(seed):
    network = hostile_network(seed)
    network.cpts[0] = np.array([5e-324, 1e-300, 1 - 1e-300 - 5e-324])
    text = write_uai(network)
    assert "e-" not in text.split("\n\n")[1]  # no exponent in the tables
    same_network(read_uai(text), network)


def test_a_file_without_marks_is_named_by_its_file_and_numbers(tmp_path):
    path = tmp_path / "grid.uai.gz"
    path.write_bytes(gzip.compress(STANDARD_UAI.encode()))
    net = read_uai(path)
    assert net.name == "grid" and net.names[3] == "X3"
    pyagrum_comments = STANDARD_UAI.replace("1 0\n", "1 0   # bnexplore\n").replace("2 0 1\n", "2 0 1  # a b\n")
    assert read_uai("c a UAI 2016 comment line\n" + pyagrum_comments).names == net.names  # only marks name


def test_scopes_in_any_order_and_functions_out_of_variable_order_are_read():
    text = "BAYES\n3\n2 3 2\n3\n1 1\n3 1 0 2\n2 1 0\n3\n0.2 0.3 0.5\n12\n" + " ".join(
        ["0.1 0.9", "0.2 0.8", "0.3 0.7", "0.4 0.6", "0.5 0.5", "0.6 0.4"]) + "\n6\n1 0 0 1 0.5 0.5\n"
    net = read_uai(text)
    assert net.parents == [[1], [], [1, 0]]
    assert net.cpts[2][1, 0].tolist() == [0.3, 0.7] and net.cpts[0][2].tolist() == [0.5, 0.5]


def write_then(text, old, new):
    assert old in text, old
    return text.replace(old, new, 1)


ASIA_UAI = None


def asia_text():
    global ASIA_UAI
    if ASIA_UAI is None:
        ASIA_UAI = write_uai(read_bif(bundled.network_path("asia")))
    return ASIA_UAI


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t[: t.index("0.0 1.0")], r"line 40: the file ends inside the table of variable 5: 8 numbers "
                                        r"expected, 6 found; it is cut short"),
    (lambda t: t[: t.index("\n\n")], r"line 21: the file ends where the number of entries of the table of "
                                       r"variable 0 was expected"),
    (lambda t: write_then(t, "\n4\n 0.05", "\n6\n 0.05"), r"line 25: the table of variable 1 has 6 entries; its "
                                                          r"scope \(0, 1\) needs 4"),
    (lambda t: write_then(t, "2 2 3\n", "2 9 3\n"), r"line 17: function 3 names variable 9, which is not declared"),
    (lambda t: write_then(t, " 0.05 0.95", " 0.05 0.85"), r"line 26: row 0 of the table of variable 1 sums to 0.9, "
                                                          r"not 1; a UAI table lists the child \(last in its scope\) "
                                                          r"fastest"),
    (lambda t: write_then(write_then(t, "\n1 0\n", "\n2 7 0\n"), "\n2\n 0.01 0.99", "\n4\n 0.01 0.99\n 0.01 0.99"),
     r"line 15: the parents form a cycle tub -> either -> dysp -> asia -> tub; remove one arc"),
    (lambda t: write_then(t, "name=tub states", "name=asia states"), r"line 4: variables 0 and 1 are both named "
                                                                      r"'asia'"),
    (lambda t: write_then(t, "2 2 4\n", "2 2 3\n"), r"line 18: function 4 is a second table for variable 3 \(the "
                                                    r"first is function 3, on line 17\)"),
    (lambda t: write_then(t, "BAYES", "MARKOV"), r"line 1: this is a MARKOV network \(undirected factors\), not a "
                                                 r"Bayesian network"),
    (lambda t: write_then(t, "BAYES", "BAYESIAN"), r"line 1: expected BAYES first, found 'BAYESIAN'"),
    (lambda t: write_then(t, "\n8\n1 0\n", "\n7\n1 0\n"), r"line 13: 7 functions for 8 variables"),
    (lambda t: t + "0.5\n", r"line 49: expected the end of the file after the last table, found '0.5'"),
    (lambda t: write_then(t, "0.01 0.99", "0.01 nan"), r"line 24: 'nan' in the table of variable 0 is not a "
                                                       r"probability"),
    (lambda t: write_then(t, "0.01 0.99", "0.01 0_99"), r"line 24: '0_99' in the table of variable 0 is not a "
                                                        r"probability"),
    (lambda t: write_then(t, "0.01 0.99", "-0.01 1.01"), r"line 24: '-0.01' in the table"),
    (lambda t: write_then(t, "0.01 0.99", "0.01 x"), r"line 24: 'x' in the table of variable 0"),
    (lambda t: write_then(t, "\n8\n2 2", "\n8\n2 two"), r"line 12: expected the number of states of variable 1 "
                                                        r"\(a whole number >= 1\), found 'two'"),
    (lambda t: write_then(t, "states=yes,no\n", "states=yes\n"), r"line 3: the mark lists 1 states for variable 0, "
                                                                 r"which has 2"),
    (lambda t: write_then(t, "states=yes,no\n", "states=yes,yes\n"), r"line 3: variable 0: state 'yes' appears "
                                                                     r"twice"),
    (lambda t: write_then(t, "variable=0", "variable=8"), r"line 3: the mark names variable 8, which is not "
                                                          r"declared"),
    (lambda t: write_then(t, "variable=1", "variable=0"), r"line 4: a second mark for variable 0 \(the first on "
                                                          r"line 3\)"),
    (lambda t: write_then(t, "name=asia", "name=%ff"), r"line 2: '%ff' in a bnexplore mark is not percent-encoded"),
    (lambda t: write_then(t, "variable=2 name=smoke", "variable=2 nmae=smoke"), r"line 5: a bnexplore mark reads "
                                                                                r"'bnexplore network name=...'"),
    (lambda t: "", r"line 1: the file holds nothing"),
    (lambda t: "# only a comment\n\n", r"line 1: the file holds nothing"),
    (lambda t: "BAYES\n0\n", r"line 2: expected the number of variables \(a whole number >= 1\), found '0'"),
    (lambda t: "BAYES\n1000\n2 2\n", r"line 2: 1,000 variables declared, but the file holds fewer numbers"),
])
def test_malformed_uai_files_are_refused_naming_the_line(change, message):
    with pytest.raises(BIFError, match="^UAI " + message):
        read_uai(io.StringIO(change(asia_text())))


def test_binary_garbage_a_gzip_bomb_and_oversized_tables_are_refused(tmp_path, monkeypatch):
    garbage = tmp_path / "garbage.uai"
    garbage.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(BIFError, match="^UAI line 1: expected BAYES first"):
        read_uai(garbage)
    huge = "BAYES\n3\n100000 100000 100000\n3\n1 0\n1 1\n3 0 1 2\n"
    with pytest.raises(BIFError, match=r"^UAI line 7: the table of variable 2 would have 1,000,000,000,000,000 "
                                       r"cells \(more than 67,108,864\)"):
        read_uai(huge)
    monkeypatch.setenv("BNEXPLORE_MAX_EXPANDED_MB", "1")
    many = "BAYES\n3\n300 300 3\n3\n1 0\n2 0 1\n2 1 2\n"  # 300 + 90,000 + 900 cells, within the bound
    wide = "BAYES\n3\n400 400 2\n3\n1 0\n2 0 1\n2 1 2\n"  # 400 + 160,000 cells > 131,072
    with pytest.raises(BIFError, match=r"^UAI line 6: with the table of variable 1 \(160,000 cells\) the network's "
                                       r"tables would hold 160,400 cells, more than the 131,072"):
        read_uai(wide)
    with pytest.raises(BIFError, match="the file ends where the number of entries"):
        read_uai(many)  # within the bound, so read on to the missing tables
    bomb = tmp_path / "bomb.uai.gz"
    bomb.write_bytes(gzip.compress(b"BAYES\n" + b"0.5 " * (1 << 20)))
    with pytest.raises(ResourceError, match="nothing was loaded"):
        read_uai(bomb)


def test_looks_like_only_uai_files():
    text = asia_text()
    assert looks_like_uai(text) and looks_like_uai("# made by hand\n\n  BAYES 3") and looks_like_uai(
        "c UAI 2016 comment\nc\nMARKOV\n2\n")
    for other in ["network asia {", "<?xml version='1.0'?>", "[a][b|a]", "net\n{", "belief network \"x\"",
                  "BAYESIAN\n2", "BAYES\nx", "", "# BAYES 3\n"]:
        assert not looks_like_uai(other), other


# --- UAI evidence files ----------------------------------------------------------------------------------------


def test_evidence_files_of_both_forms_are_read_and_the_one_line_form_written(tmp_path):
    network = hostile_network()
    evidence = {network.names[9]: "%20", network.names[4]: "ë", network.names[0]: "(-inf, 5.667]"}
    text = write_uai_evidence(evidence, network)
    assert text == "3 0 0 4 2 9 0\n"
    assert read_uai_evidence(text, network) == evidence
    assert read_uai_evidence("1\n3 0 0 4 2 9 0\n", network) == evidence  # the UAI 2008 form, one set
    assert read_uai_evidence("1\n0\n", network) == {} == read_uai_evidence("0", network)
    path = tmp_path / "case.evid"
    assert write_uai_evidence({}, network, path) == "0\n" == path.read_text()
    write_uai_evidence(evidence, network, path)
    assert read_uai_evidence(path, network) == evidence
    back = read_uai(write_uai(network))
    assert read_uai_evidence(path, back) == evidence


@pytest.mark.parametrize(("text", "message"), [
    ("1 20 0", r"line 1: variable 20 is not in the network \(variables 0 to 18\)"),
    ("1 3 2", r"line 1: variable 3 \('say \"hi\"'\) has no state 2 \(states 0 to 1\)"),
    ("2 0 1 0 2", r"line 1: variable 0 \('x y'\) is observed twice"),
    ("3\n1 0 0\n1 1 0\n1 2 0\n", r"line 1: the file holds 3 evidence sets \(the UAI 2008 form\); bnexplore reads one"),
    ("2 0 1", r"line 1: the file ends where a variable index was expected"),
    ("1 0 1 5", r"line 1: expected the end of the file after 1 observed variables, found '5'"),
    ("30 0 1", r"line 1: 30 observed variables, but the network has 19"),
    (" \n", r"line 1: the file holds nothing"),
])
def test_malformed_evidence_is_refused_naming_the_line(text, message):
    with pytest.raises(BIFError, match="^UAI evidence " + message):
        read_uai_evidence(text, hostile_network())


def test_evidence_names_and_states_outside_the_network_are_refused_when_written():
    network = hostile_network()
    with pytest.raises(BIFError, match="has no variable 'nope'"):
        write_uai_evidence({"nope": "0"}, network)
    with pytest.raises(BIFError, match=r"'maybe' is not a state of 'BAYES' \(states: \[, \]\)"):
        write_uai_evidence({"BAYES": "maybe"}, network)


# --- UAI peers: pyAgrum and pgmpy ------------------------------------------------------------------------------


def tree_network(source, seed):
    """``source``'s variables and states, each keeping at most its first parent, with random tables (pyAgrum
    reads a table of one parent as the format says; see the next test for two)."""
    rng = np.random.default_rng(seed)
    states = [labels if len(labels) > 1 else labels + ["other"] for labels in source.states]
    parents = [ps[:1] for ps in source.parents]
    cpts = [rng.dirichlet(np.ones(len(states[v])), size=[len(states[p]) for p in parents[v]])
            for v in range(source.n_vars)]
    return Network(source.name, source.names, states, parents, cpts)


def random_evidence(network, rng, k):
    row = sample_codes(network, 1, seed=rng)[0]
    chosen = rng.choice(network.n_vars, size=min(k, network.n_vars), replace=False)
    return {int(v): int(row[v]) for v in chosen}


def pyagrum():
    return pytest.importorskip("pyagrum")


def pyagrum_posteriors(bn, evidence):
    lazy = pyagrum().LazyPropagation(bn)
    lazy.setEvidence({str(v): s for v, s in evidence.items()})
    lazy.makeInference()
    return [lazy.posterior(str(v)).toarray() for v in range(bn.size())]


def check_same_posteriors(network, bn, rounds, seed):
    engine = InferenceEngine(network)
    rng = np.random.default_rng(seed)
    for k in range(rounds):
        evidence = random_evidence(network, rng, k)
        named = {network.names[v]: network.states[v][s] for v, s in evidence.items()}
        want = engine.query(evidence=named)
        for v, theirs in enumerate(pyagrum_posteriors(bn, evidence)):
            ours = [want.posterior[network.names[v]][state] for state in network.states[v]]
            np.testing.assert_allclose(theirs, ours, rtol=0, atol=1e-9, err_msg=f"{network.names[v]} | {named}")


def float32_tables(network):
    """``network`` with its tables as pyAgrum's UAI reader holds them (32-bit floats)."""
    return Network(network.name, network.names, network.states, network.parents,
                   [t.astype(np.float32).astype(np.float64) for t in network.cpts])


@pytest.mark.parametrize("name", ["alarm", "child", "insurance", "hostile"])
def test_pyagrum_reads_bnexplores_files_with_bnexplores_posteriors(name, tmp_path):
    gum = pyagrum()
    source = Network("h", HOSTILE_NAMES, HOSTILE_STATES, HOSTILE_PARENTS,
                     hostile_network().cpts) if name == "hostile" else read_bif(bundled.network_path(name))
    network = tree_network(source, seed=len(name))
    path = tmp_path / "net.uai"
    write_uai(network, path)
    bn = gum.loadBN(str(path))
    assert [bn.variable(v).domainSize() for v in range(bn.size())] == [len(s) for s in network.states]
    assert sorted(bn.arcs()) == sorted((p, v) for v in range(network.n_vars) for p in network.parents[v])
    check_same_posteriors(float32_tables(network), bn, rounds=4, seed=1)
    same_network(read_uai(path), network)


def test_pyagrum_reads_a_table_of_two_parents_with_the_first_parent_fastest(tmp_path):
    """pyAgrum (3.3) fills a table in its own order (child, first parent, second parent, ...: the first fastest),
    the reverse of the UAI order for the parents: this pins what it does, so a change in it shows here."""
    gum = pyagrum()
    network = read_bif(bundled.network_path("alarm"))
    write_uai(network, tmp_path / "alarm.uai")
    bn = gum.loadBN(str(tmp_path / "alarm.uai"))
    differs = 0
    for v, parents in enumerate(network.parents):
        if len(parents) < 2:
            continue
        cards = [len(network.states[p]) for p in parents]
        flat = network.cpts[v].reshape(-1).astype(np.float32)
        theirs = flat.reshape(cards[::-1] + [len(network.states[v])]).transpose(
            list(range(len(parents) - 1, -1, -1)) + [len(parents)])
        for config in itertools.product(*map(range, cards)):
            row = bn.cpt(v)[{str(p): a for p, a in zip(parents, config)}]
            np.testing.assert_allclose(row, theirs[config], rtol=0, atol=1e-7)
        differs += not np.allclose(theirs, network.cpts[v], atol=1e-6)
    assert differs > 10  # most of alarm's tables of two or more parents are read otherwise than written


def test_files_pyagrum_writes_load_with_pyagrums_posteriors(tmp_path):
    gum = pyagrum()
    bn = gum.fastBN("a[3]->b[2]->c[4];a->d[2];d->e[3];f[5]->e2[2];b->g[3]")
    rng = np.random.default_rng(3)
    for node in bn.nodes():
        parents = sorted(bn.parents(node))
        for config in itertools.product(*(range(bn.variable(p).domainSize()) for p in parents)):
            r = bn.variable(node).domainSize()
            cuts = np.sort(rng.choice(np.arange(1, 64), size=r - 1, replace=False))
            row = np.diff(np.concatenate([[0], cuts, [64]])) / 64  # exact in 32 bits and in pyAgrum's 6 digits
            bn.cpt(node)[{bn.variable(p).name(): a for p, a in zip(parents, config)}] = row.tolist()
    path = tmp_path / "made_by_pyagrum.uai"
    gum.saveBN(bn, str(path))
    network = read_uai(path)
    assert network.name == "made_by_pyagrum" and network.names[0] == "X0"  # pyAgrum's '# name' comments are not marks
    again = gum.loadBN(str(path))
    assert sorted(again.arcs()) == sorted((p, v) for v in range(network.n_vars) for p in network.parents[v])
    check_same_posteriors(network, again, rounds=5, seed=2)


def pgmpy_model(path):
    pytest.importorskip("pgmpy")
    from pgmpy.readwrite import UAIReader

    return UAIReader(str(path)).get_model()


@pytest.mark.parametrize("name", ["asia", "child", "insurance"])
def test_pgmpy_reads_bnexplores_files_and_takes_each_table_in_file_order(name, tmp_path):
    """pgmpy (1.1) reads the structure and the numbers (written without exponents, which its reader does not
    take), but lays each table out with the child slowest: right for a table without parents only."""
    network = read_bif(bundled.network_path(name))
    root = network.parents.index([])
    network.cpts[root] = np.full(len(network.states[root]), 1e-7)
    network.cpts[root][0] = 1 - 1e-7 * (len(network.states[root]) - 1)
    write_uai(network, tmp_path / "net.uai")
    model = pgmpy_model(tmp_path / "net.uai")
    assert sorted(model.edges()) == sorted((f"var_{p}", f"var_{v}") for v in range(network.n_vars)
                                           for p in network.parents[v])
    for v in range(network.n_vars):
        cpd = model.get_cpds(f"var_{v}")
        assert cpd.variable_card == len(network.states[v])
        # the file's numbers in the file's order, read as (child, parents...): the child slowest
        assert np.asarray(cpd.values).shape[0] == len(network.states[v])
        assert np.array_equal(np.asarray(cpd.values).reshape(-1), network.cpts[v].reshape(-1))
    assert np.array_equal(model.get_cpds(f"var_{root}").get_values().reshape(-1), network.cpts[root])


def test_files_pgmpy_writes_load_when_their_tables_have_no_parents_and_are_refused_otherwise(tmp_path):
    pytest.importorskip("pgmpy")
    from pgmpy.readwrite import BIFReader, UAIWriter

    asia = BIFReader(string=write_bif(read_bif(bundled.network_path("asia")))).get_model()
    UAIWriter(asia).write(str(tmp_path / "asia.uai"))
    with pytest.raises(BIFError, match=r"^UAI line \d+: row 0 of the table of variable \d sums to .*, not 1; a UAI "
                                       r"table lists the child \(last in its scope\) fastest"):
        read_uai(tmp_path / "asia.uai")
    roots = Network("roots", ["a", "b", "c"], [["0", "1"], ["0", "1", "2"], ["0", "1"]], [[], [], []],
                    [[0.25, 0.75], [0.5, 0.125, 0.375], [0.9, 0.1]])
    UAIWriter(BIFReader(string=write_bif(roots)).get_model()).write(str(tmp_path / "roots.uai"))
    back = read_uai(tmp_path / "roots.uai")
    model = pgmpy_model(tmp_path / "roots.uai")
    for v in range(back.n_vars):
        assert np.array_equal(back.cpts[v], model.get_cpds(f"var_{v}").get_values().reshape(-1))
    assert sorted(map(tuple, (t.tolist() for t in back.cpts))) == sorted(tuple(t.tolist()) for t in roots.cpts)

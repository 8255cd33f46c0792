"""Issue 36: bnlearn model strings (graph only) and UAI files with their evidence files, read and written.

Model strings are checked against the strings bnlearn's own documentation gives for asia, alarm and insurance.
"""

import gzip
import io

import numpy as np
import pytest

from bnexplore import bundled
from bnexplore.bif import Network, read_bif
from bnexplore.errors import BIFError, ResourceError
from bnexplore.formats import read_graph, write_network
from bnexplore.formats.modelstring import looks_like as looks_like_modelstring
from bnexplore.formats.modelstring import read_modelstring, write_modelstring
from bnexplore.graphs import DAG

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

"""The brace-syntax network formats, Hugin NET and bnlearn DSC (issue 36): round trips, peers' readers and
writers, table order, hostile names and malformed files.

pyAgrum and pgmpy are test extras (requirements-dev.txt): their tests skip without them. pyAgrum (3.3) reads and
writes NET, not DSC; pgmpy (1.1) reads and writes NET; bnlearn (R) is not here, so DSC is tested against its
dialect as bnlearn's read.dsc and write.dsc have it, and files as GeNIe writes them.
"""

import gzip
import io
import re

import numpy as np
import pytest

from bnexplore import bundled
from bnexplore.bif import Network, read_bif, sample_codes
from bnexplore.errors import BIFError, ResourceError
from bnexplore.formats import read_network, write_network
from bnexplore.formats.dsc import looks_like as looks_like_dsc
from bnexplore.formats.dsc import read_dsc, write_dsc
from bnexplore.formats.hugin import looks_like as looks_like_net
from bnexplore.formats.hugin import read_net, write_net
from bnexplore.formats.registry import FORMATS, SNIFF_CHARS
from bnexplore.inference import InferenceEngine
from bnexplore.limits import ENVIRONMENT

ROUND_TRIP = ["asia", "alarm", "child", "insurance"]


def hostile_network(seed=0):
    """A random network whose names and states hold what no identifier rule takes."""
    rng = np.random.default_rng(seed)
    names = ["x y", "X_Y", "x_y", "1st", "table", "Größe", "a;b, \"c\"", "<b>", "node", "NET", " pad ", "potential",
             "data", "(-inf, 5.667]", "é", "anode"]
    states = [["(-inf, 5.667]", "(5.667, 8.333]", "(8.333, inf)"], ["<missing>", "master's degree", "missing"],
              ["0", "-1"], ["yes", "Yes"], ["é", "e", "ë"], ["{a}", "a"], ["", " ", "_"], ["a b", "a_b"],
              ["1.5", "2.5"], ["OUTCOME", "state"], ["a\tb", "a--b"], ["[1]", "a=b"], ["%", "\"q\""],
              ["a,b", "a b"], ["\\", "//"], ["node", "node "]]
    parents = [[], [0], [1], [], [1, 3], [], [5, 4], [6, 0], [7], [8, 2], [], [9, 10], [11], [12], [15, 13, 0], []]
    cpts = [rng.dirichlet(np.ones(len(states[v])), size=[len(states[p]) for p in parents[v]])
            for v in range(len(names))]
    return Network("my <network>, \"net\"", names, states, parents, cpts)


def assert_same(back, network):
    assert (back.name, back.names, back.states, back.parents) == (
        network.name, network.names, network.states, network.parents)
    for a, b, name in zip(back.cpts, network.cpts, network.names):
        assert np.array_equal(a, b), name


def evidence_sets(network, seed=0, sizes=(0, 1, 2, 3)):
    """Evidence on ``k`` variables for every ``k`` of ``sizes``, set to one forward-sampled row (so possible)."""
    rng = np.random.default_rng(seed)
    sets = []
    for k in sizes:
        row = sample_codes(network, 1, seed=rng)[0]
        chosen = rng.choice(network.n_vars, size=min(k, network.n_vars), replace=False)
        sets.append({network.names[v]: network.states[v][row[v]] for v in chosen})
    return sets


def pyagrum_posteriors(bn, evidence):
    """pyAgrum's posterior of every variable by name, as {state: p}."""
    import pyagrum as gum

    lazy = gum.LazyPropagation(bn)
    lazy.setEvidence(evidence)
    lazy.makeInference()
    out = {}
    for v in range(bn.size()):
        variable = bn.variable(v)
        out[variable.name()] = dict(zip(variable.labels(), lazy.posterior(variable.name()).toarray().tolist()))
    return out


def pgmpy_posteriors(model, evidence):
    """pgmpy's posterior of every unobserved variable by name, as {state: p}."""
    from pgmpy.inference import VariableElimination

    engine = VariableElimination(model)
    out = {}
    for name in model.nodes():
        if name not in evidence:
            factor = engine.query([name], evidence=evidence, show_progress=False)
            out[name] = dict(zip(factor.state_names[name], factor.values.tolist()))
    return out


def assert_posteriors(network, theirs_of, sets, written=None):
    """bnexplore's posteriors on ``network`` equal ``theirs_of(evidence)`` to 1e-9 for every evidence set.

    ``written`` is the (names, states) a peer sees for those of ``network`` (default: the same)."""
    names, states = written or (network.names, network.states)
    engine = InferenceEngine(network)
    checked = 0
    for evidence in sets:
        ours = engine.query(evidence=evidence).posterior
        seen = {names[v]: states[v][network.states[v].index(s)] for v, s in
                ((network.index(k), s) for k, s in evidence.items())}
        theirs = theirs_of(seen)
        for v, name in enumerate(network.names):
            if names[v] in theirs:
                got = [theirs[names[v]][state] for state in states[v]]
                want = [ours[name][state] for state in network.states[v]]
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-9, err_msg=f"{name} | {evidence}")
                checked += 1
    assert checked >= network.n_vars


def pyagrum_network(network, path):
    """pyAgrum's BayesNet of ``network``: its graph and states loaded from BIF, its tables set in float64 (pyAgrum's
    text parsers hold numbers as float32)."""
    import itertools

    import pyagrum as gum

    write_network(network, path)
    bn = gum.loadBN(str(path))
    for v in range(network.n_vars):
        parents = network.parents[v]
        rows = network.cpts[v].reshape(-1, len(network.states[v]))
        for row, config in zip(rows, itertools.product(*(range(len(network.states[p])) for p in parents))):
            bn.cpt(bn.variable(v).name())[{bn.variable(p).name(): k for p, k in zip(parents, config)}] = row.tolist()
    return bn


def float32_tables(network):
    """``network`` with its tables rounded to float32, as pyAgrum's NET parser holds numbers."""
    return Network(network.name, network.names, network.states, network.parents,
                   [t.astype(np.float32).astype(np.float64) for t in network.cpts])


def written_net_names(text):
    """The names and states a NET text writes, node by node."""
    names = re.findall(r"^node (\S+)$", text, flags=re.MULTILINE)
    states = [re.findall(r'"([^"]*)"', listed) for listed in re.findall(r"^  states = \((.*)\);$", text,
                                                                         flags=re.MULTILINE)]
    return names, states


# -- Hugin NET ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_net_round_trips_bundled_networks_exactly(name, tmp_path):
    network = read_bif(bundled.network_path(name))
    write_net(network, tmp_path / f"{name}.net.gz")
    assert gzip.decompress((tmp_path / f"{name}.net.gz").read_bytes()).decode() == write_net(network)
    assert_same(read_net(tmp_path / f"{name}.net.gz"), network)
    write_net(network, tmp_path / f"{name}.net")
    assert_same(read_network(tmp_path / f"{name}.net"), network)


@pytest.mark.parametrize("seed", range(3))
def test_net_round_trips_hostile_names(seed):
    network = hostile_network(seed)
    text = write_net(network)
    assert_same(read_net(text), network)
    names, states = written_net_names(text)
    assert len(set(map(str.lower, names))) == network.n_vars
    assert all(name.isidentifier() and name.isascii() for name in names)
    assert names[network.names.index("X_Y")] == "X_Y" and names[network.names.index("node")] == "node_"
    assert names[network.names.index("anode")] == "anode_"
    assert states[0] == ["_-inf_5.667", "_5.667_8.333", "_8.333_inf"] and states[2] == ["0", "-1"]


def test_net_keeps_names_the_format_holds_as_they_are():
    network = read_bif(bundled.network_path("child"))  # states such as "<5" and "5-12" are made safe
    text = write_net(network)
    assert 'node BirthAsphyxia\n{\n  states = ("yes" "no");\n}' in text
    assert "bnexplore_name" not in text.split("node", 1)[1]


# A network with two parents whose table tells the axes apart: P(c=c0 | a=ai, b=bj) = 0.1 * (3 * i + j + 1).
TWO_PARENTS = """% a comment before the net block
net
{
    name = "two";
    HR_Grid_X = "10";
    node_size = (80 40);
}

discrete node a
{
    label = "The a";
    position = (10 20);
    states = ("a0" "a1");
}

node b
{
    states = ("b0" "b1" "b2");  % three states
}

node c
{
    states = (c0 c1);
    HR_Desc = "c holds % and ; in a string";
}

potential ( a | )
{
    data = ( 0.5 0.5 );
}

potential ( b )
{
    data = ( 0.2 0.3 0.5 );
    experience = ( 1 );
}

potential ( c | a b )
{
    data = (((0.1 0.9)    % a=a0 b=b0
             (0.2 0.8)
             (0.3 0.7))
            ((0.4 0.6)
             (0.5 0.5)
             (0.6 0.4)));
}
"""


def test_net_data_lists_the_first_parent_outermost_and_the_child_innermost():
    network = read_net(TWO_PARENTS)
    assert network.name == "two" and network.names == ["a", "b", "c"] and network.states[2] == ["c0", "c1"]
    assert network.parents == [[], [], [0, 1]]
    for i in range(2):
        for j in range(3):
            assert network.cpts[2][i, j, 0] == pytest.approx(0.1 * (3 * i + j + 1), abs=1e-15)


def test_net_reads_escaped_quotes_in_strings_and_a_file_without_a_net_block(tmp_path):
    text = ('node s { states = ("say \\"hi\\"" "back\\\\slash" "100%"); }\n'
            'potential ( s ) { data = (0.2 0.3 0.5); }')
    (tmp_path / "quotes.net").write_text(text)
    network = read_net(tmp_path / "quotes.net")
    assert network.name == "quotes" and network.states == [['say "hi"', "back\\slash", "100%"]]


@pytest.mark.parametrize("kind", ["utility", "function", "discrete decision"])
def test_net_refuses_the_nodes_of_influence_diagrams(kind):
    with pytest.raises(BIFError, match=rf"^Hugin NET line 9: 'a' is a {kind.split()[-1]} node, which belongs to an "
                                       "influence diagram"):
        read_net(TWO_PARENTS.replace("discrete node a", kind + " a"))


def test_net_table_order_is_pyagrums_and_pgmpys(tmp_path):
    gum = pytest.importorskip("pyagrum")
    (tmp_path / "two.net").write_text(TWO_PARENTS.replace("discrete node", "node"))
    bn = gum.loadBN(str(tmp_path / "two.net"))
    for i in range(2):
        for j in range(3):
            assert bn.cpt("c")[{"a": i, "b": j}][0] == pytest.approx(0.1 * (3 * i + j + 1), abs=1e-7)
    network = read_net(TWO_PARENTS)
    assert_posteriors(float32_tables(network), lambda e: pyagrum_posteriors(bn, e), evidence_sets(network, 1))
    pytest.importorskip("pgmpy")
    from pgmpy.readwrite import NETReader

    model = NETReader(string=write_net(network)).get_model()
    assert_posteriors(network, lambda e: pgmpy_posteriors(model, e), evidence_sets(network, 2))


def _pyagrum_check(network, path):
    gum = pytest.importorskip("pyagrum")
    text = write_net(network, path)
    bn = gum.loadBN(str(path))
    names, states = written_net_names(text)
    assert [bn.variable(v).name() for v in range(bn.size())] == names
    assert [list(bn.variable(v).labels()) for v in range(bn.size())] == states
    assert_posteriors(float32_tables(network), lambda e: pyagrum_posteriors(bn, e), evidence_sets(network, 3),
                      (names, states))


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_pyagrum_reads_bnexplores_net_with_its_posteriors(name, tmp_path):
    _pyagrum_check(read_bif(bundled.network_path(name)), tmp_path / f"{name}.net")


@pytest.mark.parametrize("seed", range(2))
def test_pyagrum_reads_hostile_names_in_net(seed, tmp_path):
    _pyagrum_check(hostile_network(seed), tmp_path / "hostile.net")


@pytest.mark.parametrize("name", ["asia", "child", "hostile"])
def test_pgmpy_reads_bnexplores_net_with_its_posteriors(name, tmp_path):
    pytest.importorskip("pgmpy")
    from pgmpy.readwrite import NETReader

    network = hostile_network(4) if name == "hostile" else read_bif(bundled.network_path(name))
    text = write_net(network, tmp_path / "x.net")
    model = NETReader(str(tmp_path / "x.net")).get_model()
    assert_posteriors(network, lambda e: pgmpy_posteriors(model, e), evidence_sets(network, 5, (0, 2, 3)),
                      written_net_names(text))


@pytest.mark.parametrize("name", ["asia", "alarm", "child", "insurance"])
def test_bnexplore_reads_pyagrums_net_with_its_posteriors(name, tmp_path):
    gum = pytest.importorskip("pyagrum")
    bn = pyagrum_network(read_bif(bundled.network_path(name)), tmp_path / "x.bif")
    gum.saveBN(bn, str(tmp_path / f"{name}.net"))  # bare-word states, '%' comments in the data
    network = read_net(tmp_path / f"{name}.net")
    assert network.names == [bn.variable(v).name() for v in range(bn.size())]
    assert_posteriors(network, lambda e: pyagrum_posteriors(bn, e), evidence_sets(network, 6))


@pytest.mark.parametrize("name", ["asia", "child", "sachs"])
def test_bnexplore_reads_pgmpys_net_with_its_posteriors(name, tmp_path):
    pytest.importorskip("pgmpy")
    from pgmpy.readwrite import BIFReader, NETReader, NETWriter

    write_network(read_bif(bundled.network_path(name)), tmp_path / "x.bif")
    NETWriter(BIFReader(str(tmp_path / "x.bif")).get_model()).write(str(tmp_path / f"{name}.net"))
    model = NETReader(str(tmp_path / f"{name}.net")).get_model()  # as pgmpy wrote it: 8 decimals
    network = read_net(tmp_path / f"{name}.net")
    assert sorted(network.names) == sorted(model.nodes())
    assert_posteriors(network, lambda e: pgmpy_posteriors(model, e), evidence_sets(network, 7, (0, 2)))


def _net_case(old, new):
    return lambda text: text.replace(old, new, 1)


@pytest.mark.parametrize("change, message", [
    (lambda text: text[:text.index("(0.5 0.5)")], r"line 40: the 'data' of 'c' never ends with ';'.*cut short"),
    (lambda text: text[:text.index("potential ( c")] + "potential ( c | a",
     r"line 38: the file ends where the '\)' closing the potential's variables should be"),
    (_net_case("(0.6 0.4)))", "(0.6 0.4 0.0)))"), r"line 40: the table of 'c' holds 13 numbers.* need 12"),
    (_net_case("( 0.2 0.3 0.5 )", "( 0.2 0.3 )"), r"line 34: the table of 'b' holds 2 numbers"),
    (_net_case("( c | a b )", "( c | a z )"), r"line 38: 'potential' names 'z', which no node declares"),
    (_net_case("potential ( b )", "potential ( q )"), r"line 32: 'potential' names 'q', which no node"),
    (_net_case("(0.4 0.6)", "(0.4 0.7)"), r"line 40: probabilities of 'c' in parent configuration 4 sum to 1.1"),
    (_net_case("potential ( a | )\n{\n    data = ( 0.5 0.5 );",
               "potential ( a | c )\n{\n    data = ( 0.5 0.5 0.5 0.5 );"),
     r"line 27: the parents form a cycle a -> c -> a|line 38: the parents form a cycle"),
    (_net_case("node b\n", "node a\n"), r"line 16: node 'a' is declared twice \(first on line 9\)"),
    (lambda text: io.StringIO(""), r"line 1: the file is empty"),
    (lambda text: "\x00\x9f\x12garbage{{", r"line 1: expected 'net', 'node' or 'potential', found"),
    (_net_case("node c\n", "continuous node c\n"), r"line 21: node 'c' is continuous; .*discretise it"),
    (_net_case("node c\n", "decision c\n"), r"line 21: 'c' is a decision node, which belongs to an influence"),
    (lambda text: "class top\n{\n}\n", r"line 1: this is an object-oriented network \('class'\)"),
    (lambda text: text + 'node d { label = "oops; }\n', r"line 47: this string's '\"' is never closed"),
    (_net_case("data = ( 0.2 0.3 0.5 );", "model_data = ( 1 );"), r"line 32: the potential of 'b' has no 'data"),
    (_net_case("potential ( b )\n{\n    data = ( 0.2 0.3 0.5 );\n    experience = ( 1 );\n}\n", ""),
     r"line 16: node 'b' has no 'potential \( b \.\.\. \)' block"),
    (_net_case("0.5 0.5 )", "0.5 x )"), r"line 29: 'x' in the table of 'a' is not a number"),
    (_net_case("(0.5 0.5)", "(0.5 0.5"), r"line 40: the parentheses of the 'data' of 'c' do not balance"),
    (_net_case('states = ("a0" "a1");', 'states = ("a0" "a0");'), r"line 13: node 'a': state 'a0' appears twice"),
    (_net_case("potential ( b )", "potential ( b a )"), r"line 32: 'potential' names 2 variables before '\|'"),
    (_net_case("net\n{", "net\n{ net"), r"line 4: expected '=' after 'net' in the net block"),
])
def test_a_malformed_net_is_refused_naming_the_line(change, message):
    with pytest.raises(BIFError, match=r"^Hugin NET " + message):
        read_net(change(TWO_PARENTS))


def test_a_net_gzip_bomb_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv(ENVIRONMENT, "8")
    bomb = gzip.compress(TWO_PARENTS.encode() + b" " * (64 << 20))
    (tmp_path / "bomb.net.gz").write_bytes(bomb)
    for source in (tmp_path / "bomb.net.gz", io.BytesIO(bomb)):
        with pytest.raises(ResourceError, match="limit of this server"):
            read_net(source)


def test_a_net_table_past_the_bound_is_refused_before_it_is_made(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, "8")  # tables at most 2**20 cells
    states = " ".join(f'"s{k}"' for k in range(1100))
    text = (f"net {{ }}\nnode a {{ states = ({states}); }}\nnode b {{ states = ({states}); }}\n"
            "potential ( b | a ) { data = ( 1 ); }")
    with pytest.raises(ResourceError, match=r"Hugin NET line 4: .*1,210,000 cells.*nothing was allocated"):
        read_net(text)


def test_net_reads_the_original_names_only_from_bnexplores_attributes():
    text = TWO_PARENTS.replace('label = "The a";', 'label = "The a"; bnexplore_name = "the%20%C3%A1";')
    assert read_net(text).names == ["the á", "b", "c"] and read_net(TWO_PARENTS).names == ["a", "b", "c"]
    wrong = TWO_PARENTS.replace('label = "The a";', 'bnexplore_states = "x";')
    with pytest.raises(BIFError, match=r"Hugin NET line 11: 'bnexplore_states' of 'a' lists 1 names"):
        read_net(wrong)
    with pytest.raises(BIFError, match=r"Hugin NET line 11: 'bnexplore_name' is not percent-encoded"):
        read_net(TWO_PARENTS.replace('label = "The a";', 'bnexplore_name = "%FF";'))


def test_net_looks_like_only_net():
    text = write_net(hostile_network())
    assert looks_like_net(text[:SNIFF_CHARS]) and looks_like_net(TWO_PARENTS)
    assert looks_like_net("\n  % Hugin\n% more\ndiscrete node a {") and looks_like_net("class top {")
    for other in ("network unknown {\n}", 'belief network "unknown"\n', "<?xml version='1.0'?>\n<BIF>",
                  "BAYES\n2\n", "[a][b|a]", "networks {"):
        assert not looks_like_net(other)
    assert read_network(text).names == hostile_network().names
    assert write_network(hostile_network(), format="net") == text
    assert FORMATS["net"].looks_like(text[:SNIFF_CHARS])


# -- DSC ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_dsc_round_trips_bundled_networks_exactly(name, tmp_path):
    network = read_bif(bundled.network_path(name))
    write_dsc(network, tmp_path / f"{name}.dsc.gz")
    assert gzip.decompress((tmp_path / f"{name}.dsc.gz").read_bytes()).decode() == write_dsc(network)
    assert_same(read_dsc(tmp_path / f"{name}.dsc.gz"), network)
    write_dsc(network, tmp_path / f"{name}.dsc")
    assert_same(read_network(tmp_path / f"{name}.dsc"), network)


@pytest.mark.parametrize("seed", range(3))
def test_dsc_round_trips_hostile_names(seed):
    network = hostile_network(seed)
    text = write_dsc(network)
    assert_same(read_dsc(text), network)
    names = re.findall(r"^node (\S+) \{$", text, flags=re.MULTILINE)
    assert len(set(map(str.lower, names))) == network.n_vars
    assert all(name.isidentifier() and name.isascii() for name in names)
    assert names[network.names.index("X_Y")] == "X_Y" and names[network.names.index("node")] == "node_"
    assert '{ "a b", "a_b" }' in text  # a state with a space is kept as it is


def bnlearn_reads(text):
    """What bnlearn's ``read.dsc`` (R/foreign-read.R) takes from a DSC text, by its line-based rules: the node
    names (``^node (\\w+)``), one ``type : discrete`` per node, the levels between the braces split at
    ``"\\s*,``, and each row ``(i, j) : p, q`` by its zero-based indices. Returns {name: (levels, parents,
    {indices: probabilities})}."""
    lines = [re.sub(r"//.*", "", line).strip() for line in text.split("\n")]
    lines = [line for line in lines if line]
    assert lines[0].startswith("belief network")
    nodes = [re.sub(r"node\s+(\w+)\s*\{*", r"\1", line) for line in lines if re.match(r"^node .+", line)]
    assert sum(bool(re.search(r"type\s*:?\s*discrete", line)) for line in lines) == len(nodes)
    found, block = {}, None
    for line in lines:
        if line.startswith("node "):
            block = re.match(r"node\s+(\w+)", line).group(1)
        elif (levels := re.match(r'.*type\s*:?\s*discrete\s*\[\s*\d+\s*\]\s+=?\s*\{\s*(.+)\s*\}.*', line)):
            found[block] = ([re.sub(r'^\s*"*(.+?)"*\s*$', r"\1", s) for s in re.split(r'"\s*,', levels.group(1))],
                            [], {})
        elif line.startswith("probability"):
            header = re.match(r"probability\s*\(\s*(\w+)\s*(?:\|\s*(.+?))?\s*\)", line)
            block = header.group(1)
            found[block][1].extend(p.strip() for p in (header.group(2) or "").split(",") if p.strip())
        elif line != "}" and block in found:
            row = re.match(r"(?:\((.*)\)\s*:?)?\s*(.+?)\s*;$", line)
            indices = tuple(int(i) for i in (row.group(1) or "").split(",") if i.strip())
            found[block][2][indices] = [float(p) for p in row.group(2).split(",")]
    assert sorted(found) == sorted(nodes)
    return found


@pytest.mark.parametrize("name", ["asia", "child", "hostile"])
def test_bnlearns_read_dsc_rules_take_bnexplores_dsc(name):
    network = hostile_network(1) if name == "hostile" else read_bif(bundled.network_path(name))
    text = write_dsc(network)
    found = bnlearn_reads(text)
    back = read_dsc(text)
    names = list(found)
    for v, written in enumerate(names):
        levels, parents, rows = found[written]
        assert len(levels) == len(network.states[v]) and parents == [names[p] for p in network.parents[v]]
        table = back.cpts[v].reshape(-1, len(levels))
        for indices, row in rows.items():
            config = int(np.ravel_multi_index(indices, [len(network.states[p]) for p in network.parents[v]])) \
                if indices else 0
            assert row == table[config].tolist() == network.cpts[v].reshape(-1, len(levels))[config].tolist()


# As bnlearn's write.dsc writes it: rows named by indices, the first parent fastest (R's expand.grid), numbers
# formatted by R; P(c=c0 | a=ai, b=bj) = 0.1 * (3 * i + j + 1).
BNLEARN_DSC = """belief network "unknown"
node a {
  type : discrete [ 2 ] = { "a0", "a1" };
}
node b {
  type : discrete [ 3 ] = { "b 0", "b1", "b2" };
}
node c {
  type : discrete [ 2 ] = { "c0", "c1" };
}
probability ( a ) {
   0.5, 0.5;
}
probability ( b ) {
   0.2, 0.3, 0.5;
}
probability ( c | a, b ) {
  (0, 0) : 0.1, 0.9;
  (1, 0) : 0.4, 0.6;
  (0, 1) : 0.2, 0.8;
  (1, 1) : 0.5, 0.5;
  (0, 2) : 0.3, 0.7;
  (1, 2) : 0.6, 0.4;
}
"""

SAME_AS_BIF = """network unknown { }
variable a { type discrete [ 2 ] { a0, a1 }; }
variable b { type discrete [ 3 ] { b0, b1, b2 }; }
variable c { type discrete [ 2 ] { c0, c1 }; }
probability ( a ) { table 0.5, 0.5; }
probability ( b ) { table 0.2, 0.3, 0.5; }
probability ( c | a, b ) {
  (a0, b0) 0.1, 0.9; (a0, b1) 0.2, 0.8; (a0, b2) 0.3, 0.7; (a1, b0) 0.4, 0.6; (a1, b1) 0.5, 0.5; (a1, b2) 0.6, 0.4;
}
"""


def test_dsc_rows_are_named_by_parent_state_indices(tmp_path):
    (tmp_path / "abc.dsc").write_text(BNLEARN_DSC)
    network = read_dsc(tmp_path / "abc.dsc")
    assert network.name == "abc" and network.states[1] == ["b 0", "b1", "b2"]
    want = read_bif(SAME_AS_BIF)
    assert network.parents == want.parents
    assert all(np.array_equal(a, b) for a, b in zip(network.cpts, want.cpts))


def test_dsc_reads_genie_rows_of_zero_indices_in_order_and_split_headers():
    genie = BNLEARN_DSC.replace("probability ( c | a, b ) {", "probability ( c | a,\n  b ) {")
    rows = ["0.1, 0.9", "0.2, 0.8", "0.3, 0.7", "0.4, 0.6", "0.5, 0.5", "0.6, 0.4"]
    genie = genie[:genie.index("  (0, 0)")] + "".join(f"  (0, 0) : {row};\n" for row in rows) + "}\n"
    genie = "// GeNIe\n/* a comment\n over lines */ " + genie.replace('belief network "unknown"',
                                                                      'belief network "genie"\nproperties { x = 1; }')
    genie = genie.replace('type : discrete [ 2 ] = { "a0", "a1" };', 'name = "A"; type : discrete [ 2 ] = '
                                                                        '{ "a0", "a1" }; position = (10, 20);')
    network = read_dsc(genie)
    assert network.name == "genie" and network.names == ["a", "b", "c"]
    assert all(np.array_equal(a, b) for a, b in zip(network.cpts, read_bif(SAME_AS_BIF).cpts))


def _dsc_case(old, new):
    return lambda text: text.replace(old, new, 1)


@pytest.mark.parametrize("change, message", [
    (lambda text: text[:text.index("(1, 2)")], r"line 17: the 'probability' block of 'c' never ends with '}'"),
    (lambda text: text[:text.index("probability ( c")] + "probability ( c | a",
     r"line 17: the file ends where ',' or '\)' after the parents of 'c' should be"),
    (_dsc_case("(1, 2) : 0.6, 0.4;", "(1, 2) : 0.6, 0.4, 0.0;"), r"line 23: row \(1, 2\) of 'c' holds 3 "),
    (_dsc_case("(1, 2) : 0.6, 0.4;\n", ""), r"line 17: 'c' has no row \(1, 2\)"),
    (_dsc_case("(1, 2)", "(1, 1)"), r"line 23: this row of 'c' repeats the parent states"),
    (_dsc_case("(1, 2)", "(2, 2)"), r"line 23: row \(2, 2\) of 'c' must give the state index"),
    (_dsc_case("0.2, 0.3, 0.5;", "0.2, 0.3;"), r"line 14: the table of 'b' holds 2 numbers"),
    (_dsc_case("( c | a, b )", "( c | a, z )"), r"line 17: 'probability' names 'z', which no node declares"),
    (_dsc_case("probability ( b )", "probability ( q )"), r"line 14: 'probability' names 'q', which no node"),
    (_dsc_case("(1, 0) : 0.4, 0.6;", "(1, 0) : 0.4, 0.7;"), r"line 17: probabilities of 'c' in parent "
                                                             r"configuration 4 sum to 1.1"),
    (_dsc_case("probability ( a ) {\n   0.5, 0.5;", "probability ( a | c ) {\n  (0) : 0.5, 0.5;\n  (1) : 0.5, 0.5;"),
     r"line 18: the parents form a cycle c -> a -> c"),
    (_dsc_case("node b {", "node a {"), r"line 5: node 'a' is declared twice \(first on line 2\)"),
    (lambda text: io.StringIO(""), r"line 1: the file is empty"),
    (lambda text: "\x00\x9f\x12garbage{{", r"line 1: expected 'belief network \"name\"' to start the file"),
    (_dsc_case("discrete [ 2 ] = { \"c0\"", "continuous [ 2 ] = { \"c0\""), r"line 9: node 'c' is 'continuous'"),
    (_dsc_case('"b1", "b2" }', '"b1", "b2 }'), r"line 6: this string's '\"' is never closed"),
    (_dsc_case("discrete [ 3 ]", "discrete [ 4 ]"), r"line 6: node 'b' declares \[ 4 \] states but lists 3"),
    (_dsc_case('"a0", "a1"', '"a0", "a0"'), r"line 3: node 'a': state 'a0' appears twice"),
    (_dsc_case("0.5, 0.5;\n}", "0.5, x;\n}"), r"line 11: 'x' in the table of 'a' is not a number"),
    (_dsc_case("probability ( b ) {\n   0.2, 0.3, 0.5;\n}\n", ""), r"line 5: node 'b' has no 'probability"),
])
def test_a_malformed_dsc_is_refused_naming_the_line(change, message):
    with pytest.raises(BIFError, match=r"^DSC " + message):
        read_dsc(change(BNLEARN_DSC))


def test_a_dsc_comment_never_closed_is_refused():
    with pytest.raises(BIFError, match=r"^DSC line 2: comment '/\*' is never closed"):
        read_dsc(BNLEARN_DSC.replace("node a {", "/* node a {"))


def test_a_dsc_gzip_bomb_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv(ENVIRONMENT, "8")
    bomb = gzip.compress(BNLEARN_DSC.encode() + b" " * (64 << 20))
    (tmp_path / "bomb.dsc.gz").write_bytes(bomb)
    for source in (tmp_path / "bomb.dsc.gz", io.BytesIO(bomb)):
        with pytest.raises(ResourceError, match="limit of this server"):
            read_dsc(source)


def test_a_dsc_table_past_the_bound_is_refused_before_it_is_made(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, "8")  # tables at most 2**20 cells
    states = ", ".join(f'"s{k}"' for k in range(1100))
    node = "node {} {{ type : discrete [ 1100 ] = {{ " + states + " }}; }}\n"
    text = (f'belief network "big"\n{node.format("a")}{node.format("b")}'
            "probability ( b | a ) {\n (0) : 1;\n}\n")
    with pytest.raises(ResourceError, match=r"DSC line 4: .*1,210,000 cells.*nothing was allocated"):
        read_dsc(text)
    many = "node {} {{ type : discrete [ 2 ] = {{ \"x\", \"y\" }}; }}\n"
    parents = [f"p{k}" for k in range(40)]  # 2**41 cells, past any bound
    text = (f'belief network "wide"\n{"".join(many.format(p) for p in parents + ["c"])}'
            f"probability ( c | {', '.join(parents)} ) {{\n (0) : 1, 0;\n}}\n")
    with pytest.raises(ResourceError, match=r"DSC line 43: the table of 'c' would have 2,199,023,255,552 cells"):
        read_dsc(text)


def test_dsc_reads_the_original_names_only_from_bnexplores_comments():
    text = BNLEARN_DSC.replace('node a {', 'node a {\n  // bnexplore_name = "the%20%C3%A1";')
    assert read_dsc(text).names == ["the á", "b", "c"] and read_dsc(BNLEARN_DSC).names == ["a", "b", "c"]
    other = BNLEARN_DSC.replace('node a {', 'node a {\n  // the name = "x";')
    assert read_dsc(other).names == ["a", "b", "c"]
    with pytest.raises(BIFError, match=r"DSC line 3: 'bnexplore_states' of 'a' lists 1 names"):
        read_dsc(BNLEARN_DSC.replace('node a {', 'node a {\n  // bnexplore_states = "x";'))


def test_dsc_looks_like_only_dsc():
    text = write_dsc(hostile_network())
    assert looks_like_dsc(text[:SNIFF_CHARS]) and looks_like_dsc(BNLEARN_DSC)
    assert looks_like_dsc("\n  // by GeNIe\n/* x */ belief  network \"n\"")
    for other in ("network unknown {\n}", "net\n{\n}", "<?xml version='1.0'?>\n<BIF>", "BAYES\n2\n", "[a][b|a]",
                  write_net(hostile_network())[:SNIFF_CHARS]):
        assert not looks_like_dsc(other)
    assert not looks_like_net(text[:SNIFF_CHARS])
    assert FORMATS["dsc"].looks_like(text[:SNIFF_CHARS])
    assert write_network(hostile_network(), format="dsc") == text

"""Tests of bnexplore.bif: BIF reading and writing, sampling, likelihood, fitting."""

import gzip
import importlib.util
import io
import itertools
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from bnexplore.bif import (
    Network,
    bif_name,
    fit_network,
    log_likelihood,
    read_bif,
    sample,
    sample_codes,
    write_bif,
)
from bnexplore.data import Dataset
from bnexplore.errors import BIFError, DataError, ScoreError

ROOT = Path(__file__).resolve().parents[1]
NETWORKS = ROOT / "sample_data" / "networks"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "bif"
KNOWN_SIZES = {
    "asia": 8, "alarm": 37, "insurance": 27, "child": 20, "hailfinder": 56,
    "andes": 223, "pigs": 441, "link": 724, "munin": 1041, "win95pts": 76,
}


def network_path(name):
    return NETWORKS / f"{name}.bif.gz"


def assert_same_network(a, b):
    assert a.name == b.name
    assert a.names == b.names
    assert a.states == b.states
    assert a.parents == b.parents
    for x, y in zip(a.cpts, b.cpts):
        assert x.shape == y.shape
        assert np.array_equal(x, y)


# -- reading ---------------------------------------------------------------------

SMALL = """\
network small {
}
variable lung {
  type discrete [ 2 ] { yes, no };
}
variable tub {
  type discrete [ 3 ] { t0, t1, t2 };
}
variable either {
  type discrete [ 2 ] { yes, no };
}
probability ( lung ) {
  table 0.1, 0.9;
}
probability ( tub ) {
  table 0.2, 0.3, 0.5;
}
probability ( either | lung, tub ) {
  (no, t2) 0.05, 0.95;
  (yes, t0) 1.0, 0.0;
  (no, t0) 0.6, 0.4;
  (yes, t1) 0.9, 0.1;
  (no, t1) 0.3, 0.7;
  (yes, t2) 0.8, 0.2;
}
"""


def test_small_inline_network_has_the_hand_checked_cpts():
    net = read_bif(SMALL)
    assert net.name == "small"
    assert net.names == ["lung", "tub", "either"]
    assert net.states == [["yes", "no"], ["t0", "t1", "t2"], ["yes", "no"]]
    assert net.parents == [[], [], [0, 1]]
    assert net.arities.tolist() == [2, 3, 2] and net.arities.dtype == np.int32
    assert net.n_vars == 3
    np.testing.assert_array_equal(net.cpts[0], [0.1, 0.9])
    np.testing.assert_array_equal(net.cpts[1], [0.2, 0.3, 0.5])
    either = net.cpts[2]
    assert either.shape == (2, 3, 2)  # (lung, tub, either)
    np.testing.assert_array_equal(either[0, 0], [1.0, 0.0])   # lung=yes, tub=t0
    np.testing.assert_array_equal(either[0, 1], [0.9, 0.1])
    np.testing.assert_array_equal(either[0, 2], [0.8, 0.2])
    np.testing.assert_array_equal(either[1, 0], [0.6, 0.4])   # lung=no, tub=t0
    np.testing.assert_array_equal(either[1, 1], [0.3, 0.7])
    np.testing.assert_array_equal(either[1, 2], [0.05, 0.95])
    assert net.index("tub") == 1


def test_unknown_variable_name_raises_bif_error_naming_it():
    with pytest.raises(BIFError, match="'smoke'"):
        read_bif(SMALL).index("smoke")


def test_fixture_features():
    """Comments, properties, a quoted name, a conditional 'table' and a 'default' row."""
    net = read_bif(FIXTURES / "features.bif")
    assert net.name == "features"
    assert net.names == ["A", "B", "C"]
    assert net.parents == [[], [0], [0, 1]]
    np.testing.assert_array_equal(net.cpts[0], [0.3, 0.7])
    # table 0.1, 0.2, 0.3, 0.4, 0.6, 0.4 with the child varying slowest
    np.testing.assert_allclose(net.cpts[1], [[0.1, 0.3, 0.6], [0.2, 0.4, 0.4]])
    expected = np.full((2, 3, 2), 0.5)
    expected[0, 0] = [0.9, 0.1]
    expected[1, 2] = [0.2, 0.8]
    np.testing.assert_array_equal(net.cpts[2], expected)


def test_read_accepts_paths_text_and_open_files(tmp_path):
    text = network_path("asia").read_bytes()
    by_path = read_bif(network_path("asia"))
    assert by_path.name == "asia"  # "network unknown" takes the file's name
    assert read_bif(str(network_path("asia"))).name == "asia"
    from_text = read_bif(gzip.decompress(text).decode())
    assert from_text.name == "unknown"
    assert_same_network(read_bif(io.BytesIO(text)), from_text)
    assert_same_network(read_bif(io.StringIO(gzip.decompress(text).decode())), from_text)
    plain = tmp_path / "mine.bif"
    plain.write_bytes(gzip.decompress(text))
    assert read_bif(plain).name == "mine"


def test_missing_file_raises_bif_error(tmp_path):
    with pytest.raises(BIFError, match="nothere.bif"):
        read_bif(tmp_path / "nothere.bif")


def test_every_bundled_network_parses_with_its_variable_count():
    paths = sorted(NETWORKS.glob("*.bif.gz"))
    assert len(paths) >= 20
    for path in paths:
        text = gzip.decompress(path.read_bytes()).decode()
        declared = len(re.findall(r"^\s*variable\s", text, flags=re.MULTILINE))
        net = read_bif(path)
        name = path.name[: -len(".bif.gz")]
        assert net.n_vars == declared == KNOWN_SIZES.get(name, declared), name
        assert len(re.findall(r"^\s*probability\s", text, flags=re.MULTILINE)) == declared
        for v, table in enumerate(net.cpts):
            assert table.shape == tuple(net.arities[net.parents[v]]) + (net.arities[v],)
            assert table.min() >= 0
            assert np.abs(table.sum(axis=-1) - 1).max() <= 1e-9, (name, net.names[v])


def test_arcs_of_asia_are_those_of_the_file():
    net = read_bif(network_path("asia"))
    arcs = {(net.names[p], net.names[v]) for v in range(net.n_vars) for p in net.parents[v]}
    assert arcs == {
        ("asia", "tub"), ("smoke", "lung"), ("smoke", "bronc"), ("lung", "either"),
        ("tub", "either"), ("either", "xray"), ("bronc", "dysp"), ("either", "dysp"),
    }


def test_sums_off_by_less_than_the_tolerance_are_renormalised():
    net = read_bif(SMALL.replace("table 0.2, 0.3, 0.5;", "table 0.2, 0.3, 0.4995;"))
    np.testing.assert_allclose(net.cpts[1], np.array([0.2, 0.3, 0.4995]) / 0.9995, rtol=1e-15)


BASE = """\
network test {
}
variable A {
  type discrete [ 2 ] { a0, a1 };
}
variable B {
  type discrete [ 2 ] { b0, b1 };
}
probability ( A ) {
  table 0.4, 0.6;
}
probability ( B | A ) {
  (a0) 0.1, 0.9;
  (a1) 0.7, 0.3;
}
"""

# (case, old text, new text, snippet on the line the error must name, words in the message)
MALFORMED = [
    ("unknown parent", "( B | A )", "( B | Z )", "probability ( B", "'Z'"),
    ("unknown child", "( A ) {", "( Q ) {", "probability ( Q", "'Q'"),
    ("too many probabilities", "(a0) 0.1, 0.9;", "(a0) 0.1, 0.8, 0.1;", "(a0)", "expected 2"),
    ("too few in a table", "table 0.4, 0.6;", "table 1.0;", "table 1.0", "expected 2"),
    ("sum is not one", "(a1) 0.7, 0.3;", "(a1) 0.7, 0.4;", "(a1)", "sum to 1.1"),
    ("unknown state", "(a1) 0.7", "(a9) 0.7", "(a9)", "'a9'"),
    ("non-numeric", "0.7, 0.3;", "0.7, 0.3x;", "0.3x", "'0.3x' is not a number"),
    ("negative", "(a0) 0.1, 0.9;", "(a0) -0.1, 1.1;", "(a0)", "'-0.1'"),
    ("missing probability block", "probability ( B | A ) {\n  (a0) 0.1, 0.9;\n  (a1) 0.7, 0.3;\n}\n", "",
     "variable B", "'B' has no 'probability' block"),
    ("duplicated variable", "variable B {",
     "variable A {\n  type discrete [ 2 ] { a0, a1 };\n}\nvariable B {",
     "variable A {\n  type discrete [ 2 ] { a0, a1 };\n}\nvariable B", "declared twice"),
    ("cycle", "probability ( A ) {\n  table 0.4, 0.6;",
     "probability ( A | B ) {\n  (b0) 0.4, 0.6;\n  (b1) 0.5, 0.5;",
     "probability ( B", "cycle B -> A -> B"),
    ("extra closing brace", "variable B {", "}\nvariable B {", "}\nvariable B", "closes no block"),
    ("unclosed block", "  (a1) 0.7, 0.3;\n}\n", "  (a1) 0.7, 0.3;\n", "probability ( B", "never closed"),
    ("unclosed comment", "  table 0.4, 0.6;", "  /* table 0.4, 0.6;", "/*", "never closed"),
    ("missing row", "  (a1) 0.7, 0.3;\n", "", "probability ( B", "(a1)"),
    ("repeated row", "(a1) 0.7, 0.3;", "(a0) 0.7, 0.3;", "(a0) 0.7", "repeats"),
    ("state count", "[ 2 ] { b0, b1 }", "[ 3 ] { b0, b1 }", "[ 3 ]", "declares [ 3 ] states but lists 2"),
    ("duplicated state", "{ b0, b1 }", "{ b0, b0 }", "{ b0, b0 }", "'b0' appears twice"),
    ("text between blocks", "variable B {", "hello\nvariable B {", "hello", "'hello"),
    ("missing semicolon", "(a0) 0.1, 0.9;", "(a0) 0.1, 0.9", "(a0)", "expected 2"),
    ("table and rows", "  (a0) 0.1, 0.9;", "  table 0.1, 0.7, 0.9, 0.3;\n  (a0) 0.1, 0.9;", "(a0)", "both"),
    ("two probability blocks", "probability ( B | A )",
     "probability ( A ) {\n  table 0.5, 0.5;\n}\nprobability ( B | A )",
     "probability ( A ) {\n  table 0.5", "second 'probability' block"),
    ("not discrete", "type discrete [ 2 ] { a0, a1 }", "type continuous", "type continuous", "type discrete"),
    ("no network block", "network test {\n}\n", "", "variable A", "no 'network' block"),
    ("self parent", "( B | A )", "( B | B )", "probability ( B", "twice"),
]


def line_of(text, snippet):
    return text[: text.index(snippet)].count("\n") + 1


@pytest.mark.parametrize("case, old, new, where, words", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_input_raises_bif_error_naming_the_line(case, old, new, where, words):
    assert old in BASE
    text = BASE.replace(old, new, 1)
    expected_line = line_of(text, where)
    with pytest.raises(BIFError) as error:
        read_bif(text)
    message = str(error.value)
    assert f"line {expected_line}:" in message, message
    assert words in message, message
    assert "\n" not in message


def test_a_cpt_too_large_to_hold_raises_bif_error():
    parents = [f"P{i}" for i in range(14)]
    text = "network big { }\n" + "".join(
        f"variable {name} {{ type discrete [ 4 ] {{ s0, s1, s2, s3 }}; }}\n" for name in parents + ["C"]
    ) + f"probability ( C | {', '.join(parents)} ) {{ default 0.25, 0.25, 0.25, 0.25; }}\n"
    with pytest.raises(BIFError, match="line 17: the CPT of 'C' would have 1073741824 cells"):
        read_bif(text)


def test_the_base_of_the_malformed_cases_is_valid():
    net = read_bif(BASE)
    np.testing.assert_array_equal(net.cpts[1], [[0.1, 0.9], [0.7, 0.3]])


# -- the Network class ------------------------------------------------------------


def test_network_rejects_inconsistent_pieces():
    names, states = ["A", "B"], [["a0", "a1"], ["b0", "b1"]]
    good = [np.array([0.5, 0.5]), np.array([[0.1, 0.9], [0.2, 0.8]])]
    Network("ok", names, states, [[], [0]], good)
    with pytest.raises(BIFError, match="shape"):
        Network("bad", names, states, [[], [0]], [good[0], good[1].T[:, :1]])
    with pytest.raises(BIFError, match="sum to 1"):
        Network("bad", names, states, [[], [0]], [np.array([0.5, 0.6]), good[1]])
    with pytest.raises(BIFError, match="cycle"):
        Network("bad", names, states, [[1], [0]], [good[1], good[1]])
    with pytest.raises(BIFError, match="'A' appears twice"):
        Network("bad", ["A", "A"], states, [[], [0]], good)


def test_dag_has_the_network_arcs():
    pytest.importorskip("bnexplore.graphs")
    net = read_bif(network_path("alarm"))
    dag = net.dag()
    assert dag.names == net.names
    assert sorted(dag.arcs()) == sorted((p, v) for v in range(net.n_vars) for p in net.parents[v])


def test_topological_order_puts_parents_first():
    net = read_bif(network_path("alarm"))
    position = {v: i for i, v in enumerate(net.topological_order())}
    assert sorted(position) == list(range(net.n_vars))
    assert all(position[p] < position[v] for v in range(net.n_vars) for p in net.parents[v])


# -- writing -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["asia", "alarm", "insurance", "child", "hailfinder", "water"])
def test_write_read_round_trip_is_exact(name, tmp_path):
    net = read_bif(network_path(name))
    assert_same_network(read_bif(write_bif(net)), net)
    path = tmp_path / f"{name}.bif.gz"
    text = write_bif(net, path)
    assert gzip.decompress(path.read_bytes()).decode() == text
    assert_same_network(read_bif(path), net)


def test_round_trip_of_the_fixture_and_of_a_fitted_network(tmp_path):
    net = read_bif(FIXTURES / "features.bif")
    assert_same_network(read_bif(write_bif(net, tmp_path / "features.bif")), net)
    alarm = read_bif(network_path("alarm"))
    data = Dataset.from_codes(sample_codes(alarm, 500, seed=3), alarm.arities, alarm.names, alarm.states)
    fitted = fit_network(_ParentListDAG(alarm.names, alarm.parents), data, ess=1.0)
    assert_same_network(read_bif(write_bif(fitted)), fitted)


HOSTILE = Network(
    "my variable net", ["x y", "X_Y", "1st", "table", "Größe", "a;b", "<b>"],
    [["(-inf, 5.667]", "(5.667, inf)"], ["<missing>", "master's degree", "missing"], ["0", "-1"],
     ["yes", "Yes"], ["é", "e"], ["{a}", "a"], ["", "//", "/*"]],
    [[], [0], [1], [], [1, 3], [], [5]],
    [np.array([0.3, 0.7]), np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]), np.array([[0.5, 0.5]] * 3),
     np.array([0.5, 0.5]), np.array([[[0.1, 0.9], [0.2, 0.8]], [[0.3, 0.7], [0.4, 0.6]], [[0.5, 0.5], [0.6, 0.4]]]),
     np.array([0.25, 0.75]), np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])])
"""Names no BIF reader takes: spaces, brackets, quotes, accents, a leading digit, a keyword, comment markers,
names equal but for case or once sanitised."""


def test_names_bif_cannot_hold_are_written_as_identifiers_and_read_back_as_they_were():
    text = write_bif(HOSTILE)
    assert_same_network(read_bif(text), HOSTILE)
    written = re.findall(r"^variable (\S+) \{", text, flags=re.MULTILINE)
    assert written == ["x_y_2", "X_Y", "_1st", "table_", "Gro_e", "a_b", "b"]
    states = [s.split(", ") for s in re.findall(r"\{ (.*) \};", text)]
    assert states[0] == ["_-inf_5.667", "_5.667_inf"]
    assert states[1] == ["missing_2", "master_s_degree", "missing"]  # a name kept as it is has priority
    assert states[2] == ["0", "-1"] and states[3] == ["yes", "Yes_2"]  # unique ignoring case
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*|-?[0-9]+", s) for labels in states for s in labels)
    assert "network my_vari_able_net {" in text  # pgmpy finds blocks by 'variable' anywhere


def test_only_names_that_change_get_a_property():
    net = read_bif(network_path("alarm"))
    assert "property" not in write_bif(net)
    assert 'property bnexplore_states = "%3Cmissing%3E,master%27s%20degree,missing";' in write_bif(HOSTILE)


@pytest.mark.parametrize("label, state, name", [
    ("(-inf, 5.667]", True, "_-inf_5.667"), ("(8.333, inf)", True, "_8.333_inf"), ("<missing>", True, "missing"),
    ("master's_degree", True, "master_s_degree"), ("-1", True, "-1"), ("-1", False, "_-1"), ("12", True, "12"),
    ("12", False, "_12"), ("1.5", True, "_1.5"), ("Default", True, "Default_"), ("a.b-c", False, "a.b-c"),
    ("", True, "_"), ("日本", False, "_"), ("café au lait", False, "cafe_au_lait"),
])
def test_bif_name(label, state, name):
    assert bif_name(label, state) == name


@pytest.mark.parametrize("case, old, new, where, words", [
    ("states count", '"%3Cmissing%3E,', '"', '"master%27s', "lists 2 names for its 3 states"),
    ("states repeat", '"%3Cmissing%3E,master%27s%20degree,', '"a,a,', '"a,a,', "'a' appears twice"),
    ("names collide", 'bnexplore_name = "x%20y"', 'bnexplore_name = "X_Y"', "variable X_Y {", "distinct"),
    ("not UTF-8", '"x%20y"', '"x%FFy"', '"x%FFy"', "not percent-encoded UTF-8"),
    ("two names", '"x%20y";', '"x%20y";\n  property bnexplore_name = "z";', 'bnexplore_name = "z"', "second"),
    ("states of the network", "\n}\nvariable x_y_2", '\n  property bnexplore_states = "a";\n}\nvariable x_y_2',
     'bnexplore_states = "a"', "variable block"),
])
def test_damaged_original_names_raise_bif_error_naming_the_line(case, old, new, where, words):
    text = write_bif(HOSTILE)
    assert old in text
    text = text.replace(old, new, 1)
    with pytest.raises(BIFError) as error:
        read_bif(text)
    assert f"line {line_of(text, where)}:" in str(error.value) and words in str(error.value), str(error.value)


# -- sampling -----------------------------------------------------------------------


def parent_configs(codes, network, v):
    """Mixed-radix parent configuration of every row, written out slowly."""
    config = np.zeros(len(codes), dtype=np.int64)
    for p in network.parents[v]:
        config = config * network.arities[p] + codes[:, p]
    return config


def chi_square_of_sample(codes, network, min_expected=5.0):
    """Pooled chi-square of the conditional frequencies of every node and parent
    configuration against the CPTs, and the number of draws of impossible states."""
    statistic, dof, impossible = 0.0, 0, 0
    for v in range(network.n_vars):
        r = network.arities[v]
        table = network.cpts[v].reshape(-1, r)
        counts = np.bincount(parent_configs(codes, network, v) * r + codes[:, v], minlength=table.size)
        counts = counts.reshape(-1, r)
        for config, observed in enumerate(counts):
            p = table[config]
            impossible += int(observed[p == 0].sum())
            expected = observed.sum() * p[p > 0]
            if len(expected) > 1 and expected.min() >= min_expected:
                statistic += float(((observed[p > 0] - expected) ** 2 / expected).sum())
                dof += len(expected) - 1
    return statistic, dof, impossible


@pytest.mark.parametrize("name", ["asia", "alarm"])
def test_sampled_frequencies_match_the_cpts(name):
    net = read_bif(network_path(name))
    codes = sample_codes(net, 200_000, seed=11)
    statistic, dof, impossible = chi_square_of_sample(codes, net)
    assert impossible == 0
    assert dof > (8 if name == "asia" else 300)
    assert stats.chi2.sf(statistic, dof) > 1e-4, (statistic, dof)


def test_the_frequency_check_catches_a_shifted_parent_configuration_order():
    """Sampling with every CPT's parent configurations shifted by one (an
    off-by-one in the mixed radix) fails the check used above."""
    net = read_bif(network_path("alarm"))
    shifted = Network(
        net.name, net.names, net.states, net.parents,
        [np.roll(t.reshape(-1, t.shape[-1]), 1, axis=0).reshape(t.shape) for t in net.cpts],
    )
    statistic, dof, impossible = chi_square_of_sample(sample_codes(shifted, 200_000, seed=11), net)
    assert impossible > 0 or stats.chi2.sf(statistic, dof) < 1e-12


def test_the_frequency_check_catches_first_parent_fastest():
    """Sampling as if configurations were numbered first-parent-fastest fails too."""
    net = read_bif(network_path("alarm"))
    wrong = []
    for t in net.cpts:
        shape = t.shape[:-1]
        first_fastest = np.arange(int(np.prod(shape))).reshape(shape, order="F").ravel()
        wrong.append(t.reshape(-1, t.shape[-1])[first_fastest].reshape(t.shape))
    wrong = Network(net.name, net.names, net.states, net.parents, wrong)
    statistic, dof, impossible = chi_square_of_sample(sample_codes(wrong, 200_000, seed=11), net)
    assert impossible > 0 or stats.chi2.sf(statistic, dof) < 1e-12


def test_same_seed_same_sample_different_seed_different():
    net = read_bif(network_path("alarm"))
    a = sample_codes(net, 2000, seed=5)
    assert np.array_equal(a, sample_codes(net, 2000, seed=5))
    assert not np.array_equal(a, sample_codes(net, 2000, seed=6))
    assert sample(net, 50, seed=5).equals(sample(net, 50, seed=5))


def test_sample_codes_layout():
    net = read_bif(network_path("alarm"))
    codes = sample_codes(net, 1000, seed=1)
    assert codes.shape == (1000, 37) and codes.dtype == np.uint8 and codes.flags.f_contiguous
    assert np.all(codes.max(axis=0) < net.arities)
    assert sample_codes(net, 0, seed=1).shape == (0, 37)
    with pytest.raises(DataError):
        sample_codes(net, -1)


def test_sample_is_categorical_state_names_built_on_the_codes():
    net = read_bif(network_path("asia"))
    frame = sample(net, 300, seed=2)
    codes = sample_codes(net, 300, seed=2)
    assert list(frame.columns) == net.names
    for v, name in enumerate(net.names):
        column = frame[name]
        assert isinstance(column.dtype, pd.CategoricalDtype)
        assert list(column.cat.categories) == net.states[v]
        assert np.array_equal(column.cat.codes.to_numpy(), codes[:, v])


def test_states_of_probability_zero_are_never_drawn():
    net = read_bif(
        "network z { }\nvariable X { type discrete [ 4 ] { a, b, c, d }; }\n"
        "probability ( X ) { table 0.0, 0.7, 0.0, 0.3; }\n"
        "variable Y { type discrete [ 3 ] { y0, y1, y2 }; }\n"
        "probability ( Y | X ) { default 0.1, 0.9, 0.0; (b) 0.0, 0.0, 1.0; }\n"
    )
    codes = sample_codes(net, 20_000, seed=0)
    assert set(np.unique(codes[:, 0])) == {1, 3}
    assert np.all(codes[codes[:, 0] == 1, 1] == 2)
    assert set(np.unique(codes[codes[:, 0] == 3, 1])) == {0, 1}


# -- log-likelihood ------------------------------------------------------------------


def slow_log_likelihood(network, codes):
    total = 0.0
    for row in codes:
        for v in range(network.n_vars):
            index = tuple(int(row[p]) for p in network.parents[v]) + (int(row[v]),)
            total += np.log(network.cpts[v][index])
    return total


@pytest.mark.parametrize("name", ["asia", "alarm", "insurance"])
def test_log_likelihood_matches_a_per_row_loop(name):
    net = read_bif(network_path(name))
    codes = sample_codes(net, 200, seed=4)
    assert log_likelihood(net, codes) == pytest.approx(slow_log_likelihood(net, codes), rel=1e-12)


def test_log_likelihood_of_an_impossible_row_is_minus_infinity():
    net = read_bif(network_path("asia"))
    row = {name: 0 for name in net.names}
    row["either"] = 1  # lung = yes but either = no: probability 0
    codes = np.array([[row[name] for name in net.names]])
    assert log_likelihood(net, codes) == -np.inf


def test_log_likelihood_rejects_bad_codes():
    net = read_bif(network_path("asia"))
    with pytest.raises(DataError, match="expected"):
        log_likelihood(net, np.zeros((3, 5), dtype=int))
    bad = np.zeros((3, 8), dtype=int)
    bad[2, 4] = 2
    with pytest.raises(DataError, match="'bronc', row 2"):
        log_likelihood(net, bad)


# -- fitting ---------------------------------------------------------------------------


class _ParentListDAG:
    """The graphs contract fit_network uses, with parents in a chosen order."""

    def __init__(self, names, parents):
        self.names = list(names)
        self.n = len(self.names)
        self._parents = [list(p) for p in parents]

    def parents(self, v):
        return self._parents[v]


def test_fit_network_matches_hand_computed_counts():
    # A: 0 0 0 1 1   B: 0 1 1 1 1   C (3 states, parent A) never sees A = 1 with C = 2
    codes = np.array([[0, 0, 0], [0, 1, 1], [0, 1, 2], [1, 1, 0], [1, 1, 1]])
    data = Dataset.from_codes(codes, [2, 2, 3], ["A", "B", "C"])
    dag = _ParentListDAG(["A", "B", "C"], [[], [0], [0]])
    ml = fit_network(dag, data, ess=0)
    np.testing.assert_allclose(ml.cpts[0], [3 / 5, 2 / 5])
    np.testing.assert_allclose(ml.cpts[1], [[1 / 3, 2 / 3], [0, 1]])
    np.testing.assert_allclose(ml.cpts[2], [[1 / 3, 1 / 3, 1 / 3], [1 / 2, 1 / 2, 0]])
    bdeu = fit_network(dag, data, ess=1.0)
    np.testing.assert_allclose(bdeu.cpts[0], [3.5 / 6, 2.5 / 6])  # pseudo-count 1/2 per cell
    np.testing.assert_allclose(bdeu.cpts[1], [[1.25 / 3.5, 2.25 / 3.5], [0.25 / 2.5, 2.25 / 2.5]])
    sixth = 1 / 6
    np.testing.assert_allclose(
        bdeu.cpts[2], [[(1 + sixth) / 3.5] * 3, [(1 + sixth) / 2.5, (1 + sixth) / 2.5, sixth / 2.5]]
    )
    assert bdeu.states == data.states and bdeu.names == ["A", "B", "C"]


def test_fit_network_gives_uniform_rows_to_unseen_parent_configurations():
    codes = np.array([[0, 0], [0, 1], [0, 1]])
    data = Dataset.from_codes(codes, [3, 2], ["A", "B"])
    fitted = fit_network(_ParentListDAG(["A", "B"], [[], [0]]), data, ess=0)
    np.testing.assert_array_equal(fitted.cpts[1], [[1 / 3, 2 / 3], [0.5, 0.5], [0.5, 0.5]])


def slow_fit(parents, codes, arities, ess, v):
    r = arities[v]
    table = {}
    for config in itertools.product(*(range(arities[p]) for p in parents)):
        rows = [row for row in codes if tuple(row[p] for p in parents) == config]
        n_j = len(rows)
        q = int(np.prod([arities[p] for p in parents]))
        table[config] = [
            (sum(row[v] == k for row in rows) + ess / (q * r)) / (n_j + ess / q) if n_j + ess > 0 else 1 / r
            for k in range(r)
        ]
    return table


@pytest.mark.parametrize("seed", range(5))
def test_fit_network_matches_slow_counting_on_random_data(seed):
    rng = np.random.default_rng(seed)
    n_vars = 5
    arities = rng.integers(2, 4, size=n_vars)
    codes = np.column_stack([rng.integers(0, r, size=60) for r in arities])
    order = rng.permutation(n_vars)
    parents = [[] for _ in range(n_vars)]
    for i, v in enumerate(order):
        earlier = list(order[:i])
        parents[v] = [int(p) for p in rng.permutation(earlier)[: rng.integers(0, min(3, i) + 1)]]
    names = [f"V{i}" for i in range(n_vars)]
    data = Dataset.from_codes(codes, arities, names)
    ess = float(rng.choice([0.0, 1.0, 7.5]))
    fitted = fit_network(_ParentListDAG(names, parents), data, ess=ess)
    for v in range(n_vars):
        for config, expected in slow_fit(parents[v], codes, arities, ess, v).items():
            np.testing.assert_allclose(fitted.cpts[v][config], expected, rtol=1e-12)


def test_fit_network_finds_columns_by_name():
    codes = np.array([[0, 1], [1, 1], [1, 0], [1, 1]])
    data = Dataset.from_codes(codes, [2, 2], ["A", "B"])
    fitted = fit_network(_ParentListDAG(["B", "A"], [[], [0]]), data, ess=0)
    assert fitted.names == ["B", "A"]
    np.testing.assert_allclose(fitted.cpts[0], [1 / 4, 3 / 4])
    np.testing.assert_allclose(fitted.cpts[1], [[0, 1], [1 / 3, 2 / 3]])
    with pytest.raises(DataError, match="'C'"):
        fit_network(_ParentListDAG(["A", "C"], [[], []]), data)
    with pytest.raises(ScoreError, match="ess"):
        fit_network(_ParentListDAG(["A", "B"], [[], []]), data, ess=-1)


def test_fit_network_recovers_the_cpts_from_a_large_sample():
    net = read_bif(network_path("alarm"))
    data = Dataset.from_codes(sample_codes(net, 200_000, seed=9), net.arities, net.names, net.states)
    fitted = fit_network(_ParentListDAG(net.names, net.parents), data, ess=1.0)
    assert fitted.parents == net.parents
    checked = 0
    for v in range(net.n_vars):
        r = net.arities[v]
        n_config = np.bincount(parent_configs(data.codes, net, v), minlength=net.cpts[v].size // r)
        true, got = net.cpts[v].reshape(-1, r), fitted.cpts[v].reshape(-1, r)
        for config in np.flatnonzero(n_config >= 2000):
            error = np.sqrt(true[config] * (1 - true[config]) / n_config[config])
            assert np.all(np.abs(got[config] - true[config]) <= 5 * error + 1e-3), (net.names[v], config)
            checked += 1
    assert checked > 100


def test_fit_network_with_a_real_dag():
    graphs = pytest.importorskip("bnexplore.graphs")
    net = read_bif(network_path("asia"))
    data = Dataset.from_codes(sample_codes(net, 5000, seed=2), net.arities, net.names, net.states)
    dag = graphs.DAG.from_parents(net.parents, net.names)
    fitted = fit_network(dag, data)
    assert [sorted(p) for p in fitted.parents] == [sorted(p) for p in net.parents]


# -- bundled sample data -------------------------------------------------------------


def test_bundled_csvs_are_what_make_samples_writes():
    spec = importlib.util.spec_from_file_location("make_samples", ROOT / "sample_data" / "make_samples.py")
    make_samples = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_samples)
    assert [s[0] for s in make_samples.SAMPLES] == ["asia", "alarm", "insurance", "child", "sachs"]
    for network, rows, seed in make_samples.SAMPLES:
        path = ROOT / "sample_data" / f"{network}.csv"
        assert path.read_text(encoding="utf-8") == make_samples.sample_csv(network, rows, seed), network
        assert len(pd.read_csv(path)) == rows

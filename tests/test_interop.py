"""bnexplore.interop: networks to and from pgmpy, pyAgrum and networkx (issue 36).

Round trips (bnexplore -> peer -> bnexplore) keep names, states, parents and tables; the peer's own
inference (pgmpy's variable elimination, pyAgrum's lazy propagation) on the converted model gives
bnexplore's posteriors; models built by hand in a peer, with another parent order (and, in pgmpy, a
parent's states listed in another order), convert to the right tables; bad models and models beyond the
bound are refused with one line. pgmpy and pyAgrum are test extras: their tests skip without them.
"""

import sys

import networkx as nx
import numpy as np
import pytest

import bnexplore
from bnexplore import bundled
from bnexplore.bif import Network, read_bif, sample_codes
from bnexplore.errors import BIFError, BNExploreError, ResourceError, SearchError
from bnexplore.graphs import DAG
from bnexplore.inference import query
from bnexplore.interop import from_networkx, from_pgmpy, from_pyagrum, to_networkx, to_pgmpy, to_pyagrum
from bnexplore.limits import ENVIRONMENT

NAMED = ["asia", "alarm", "insurance"]


def hostile_network(seed=0):
    """A random network whose names and states hold what a file format or a peer might trip on."""
    rng = np.random.default_rng(seed)
    names = ["x y", "Größe", "(-inf, 5.667]", "<missing>", "1st", "a,b", "quote\"'", "", "line\nbreak", "{[x]}"]
    states = [["(-inf, 5.667]", "(5.667, 8.333]", "(8.333, inf)"], ["<missing>", "master's degree", "missing"],
              ["0", "-1"], ["yes", "Yes"], ["é", "e", "ë"], ["{a}", "a"], ["", " ", "//"], ["a b", "a_b"],
              ["1.5", "2.5"], ["\t", "\\", "|"]]
    parents = [[], [0], [1], [], [3, 1], [], [5, 4], [6, 0], [7], [2, 8, 0]]
    cpts = [rng.dirichlet(np.ones(len(states[v])), size=[len(states[p]) for p in parents[v]])
            for v in range(len(names))]
    return Network("my hostile net", names, states, parents, cpts)


def network(name):
    return hostile_network() if name == "hostile" else read_bif(bundled.network_path(name))


def assert_same_network(back, net):
    """Same name, names, states, parents as sets, and tables to 1e-12 once in the same parent order."""
    assert (back.name, back.names, back.states) == (net.name, net.names, net.states)
    for v, name in enumerate(net.names):
        assert set(back.parents[v]) == set(net.parents[v]), name
        order = [back.parents[v].index(p) for p in net.parents[v]] + [len(net.parents[v])]
        np.testing.assert_allclose(np.transpose(back.cpts[v], order), net.cpts[v], rtol=0, atol=1e-12,
                                   err_msg=name)


def evidence_sets(net, count, seed):
    """``count`` evidence dicts (state names) of 0, 1, 2, ... variables set as one forward sample has them."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        row = sample_codes(net, 1, seed=rng)[0]
        chosen = rng.choice(net.n_vars, size=min(k, net.n_vars), replace=False)
        out.append({net.names[v]: net.states[v][row[v]] for v in chosen})
    return out


# --- pgmpy -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMED + ["hostile"])
def test_a_network_goes_through_pgmpy_and_back_unchanged(name):
    pytest.importorskip("pgmpy")
    net = network(name)
    model = to_pgmpy(net)
    assert model.check_model()
    assert list(model.nodes()) == net.names
    for v, variable in enumerate(net.names):
        cpd = model.get_cpds(variable)
        assert cpd.variables == [variable] + [net.names[p] for p in net.parents[v]]
        assert cpd.state_names[variable] == net.states[v]
    assert_same_network(from_pgmpy(model), net)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", NAMED + ["hostile"])
def test_pgmpy_variable_elimination_on_the_converted_model_gives_bnexplores_posteriors(name):
    pytest.importorskip("pgmpy")
    from pgmpy.inference import VariableElimination

    net = network(name)
    engine = VariableElimination(to_pgmpy(net))
    rng = np.random.default_rng(7)
    for evidence in evidence_sets(net, 4, seed=3):
        free = [v for v in net.names if v not in evidence]
        targets = [free[i] for i in rng.choice(len(free), size=min(3, len(free)), replace=False)]
        want = query(net, targets, evidence).posterior
        for target in targets:
            factor = engine.query([target], evidence=evidence, show_progress=False)
            got = dict(zip(factor.state_names[target], factor.values))
            np.testing.assert_allclose([got[s] for s in net.states[net.index(target)]],
                                       [want[target][s] for s in net.states[net.index(target)]], rtol=0, atol=1e-9,
                                       err_msg=f"{name}: {target!r} given {evidence}")


def hand_built_pgmpy(rain_in_wet=("yes", "no")):
    """rain -> wet <- sprinkler, made in pgmpy: wet's CPD lists sprinkler before rain (bnexplore's order of the
    nodes is rain, sprinkler, wet), and rain's states in the order ``rain_in_wet``."""
    from pgmpy.factors.discrete import TabularCPD

    from bnexplore.interop import pgmpy_classes

    model = pgmpy_classes()[0]()
    model.add_nodes_from(["rain", "sprinkler", "wet"])
    model.add_edges_from([("rain", "wet"), ("sprinkler", "wet")])
    rain = TabularCPD("rain", 2, [[0.2], [0.8]], state_names={"rain": ["yes", "no"]})
    sprinkler = TabularCPD("sprinkler", 3, [[0.5], [0.3], [0.2]], state_names={"sprinkler": ["off", "low", "high"]})
    wet_given = {("off", "yes"): 0.2, ("off", "no"): 0.99, ("low", "yes"): 0.1, ("low", "no"): 0.6,
                 ("high", "yes"): 0.01, ("high", "no"): 0.3}  # P(dry | sprinkler, rain)
    columns = [(s, r) for s in ["off", "low", "high"] for r in rain_in_wet]  # the last parent fastest
    dry = [wet_given[c] for c in columns]
    wet = TabularCPD("wet", 2, [dry, [1 - p for p in dry]], evidence=["sprinkler", "rain"], evidence_card=[3, 2],
                     state_names={"wet": ["dry", "wet"], "sprinkler": ["off", "low", "high"], "rain": list(rain_in_wet)})
    model.add_cpds(rain, sprinkler, wet)
    return model, wet_given


@pytest.mark.parametrize("rain_in_wet", [("yes", "no"), ("no", "yes")])
def test_a_model_built_in_pgmpy_with_another_parent_order_converts_to_the_right_tables(rain_in_wet):
    """With rain's states in wet's CPD in another order than rain's own (which pgmpy's check_model refuses, but
    whose meaning the state names fix), the table is reordered to rain's own."""
    pytest.importorskip("pgmpy")
    model, wet_given = hand_built_pgmpy(rain_in_wet)
    net = from_pgmpy(model)
    assert net.names == ["rain", "sprinkler", "wet"]
    assert net.states == [["yes", "no"], ["off", "low", "high"], ["dry", "wet"]]
    assert net.parents == [[], [], [1, 0]]
    np.testing.assert_array_equal(net.cpts[0], [0.2, 0.8])
    np.testing.assert_array_equal(net.cpts[1], [0.5, 0.3, 0.2])
    for (sprinkler, rain), p in wet_given.items():
        row = net.cpts[2][net.states[1].index(sprinkler), net.states[0].index(rain)]
        np.testing.assert_allclose(row, [p, 1 - p], rtol=0, atol=1e-15)
    if rain_in_wet == ("yes", "no"):
        assert model.check_model()
        from pgmpy.inference import VariableElimination

        factor = VariableElimination(model).query(["rain"], evidence={"wet": "wet"}, show_progress=False)
        ours = query(net, ["rain"], {"wet": "wet"}).posterior["rain"]
        np.testing.assert_allclose([ours[s] for s in factor.state_names["rain"]], factor.values, rtol=0, atol=1e-12)


def test_a_pgmpy_model_with_a_bad_table_or_a_missing_cpd_is_refused_by_name():
    pytest.importorskip("pgmpy")
    from pgmpy.factors.discrete import TabularCPD

    from bnexplore.interop import pgmpy_classes

    model = pgmpy_classes()[0]([("a", "b")])
    model.add_cpds(TabularCPD("a", 2, [[0.5], [0.4]]))
    with pytest.raises(BIFError, match="^pgmpy model: variable 'b' has no CPD; add one"):
        from_pgmpy(model)
    model.add_cpds(TabularCPD("b", 2, [[0.5, 0.5], [0.5, 0.5]], evidence=["a"], evidence_card=[2]))
    with pytest.raises(BIFError, match=r"^pgmpy model: probabilities of 'a' sum to 0\.9, not 1"):
        from_pgmpy(model)
    model.remove_cpds("a")
    model.add_cpds(TabularCPD("a", 2, [[0.3333], [0.6666]]))  # 1e-4 off: renormalised, as read_bif does
    np.testing.assert_allclose(from_pgmpy(model).cpts[0], [1 / 3, 2 / 3], rtol=0, atol=1e-15)
    model.remove_cpds("b")
    model.add_cpds(TabularCPD("b", 2, [[0.5, 0.5], [0.5, 0.5]], evidence=["a"], evidence_card=[2],
                              state_names={"b": ["x", "y"], "a": ["p", "q"]}))
    with pytest.raises(BIFError, match=r"^pgmpy model: the CPD of 'b' names the states of 'a' \['p', 'q'\], but "
                                       r"'a' has \['0', '1'\]"):
        from_pgmpy(model)
    with pytest.raises(BIFError, match="^from_pgmpy takes a pgmpy DiscreteBayesianNetwork, not a DiGraph$"):
        from_pgmpy(nx.DiGraph())


class FakeCPD:
    """A pgmpy CPD that claims a huge table and fails the test if its values are read."""
    variable = "big"
    variables = ["big"]
    cardinality = np.array([2**40])
    state_names = {"big": ["s"]}

    @property
    def values(self):
        raise AssertionError("the table was read before the bound was checked")


class FakeModel:
    def nodes(self):
        return ["big"]

    def get_cpds(self):
        return [FakeCPD()]

    def get_parents(self, node):
        return []


def test_a_pgmpy_model_beyond_the_bound_is_refused_before_its_tables_are_read(monkeypatch):
    with pytest.raises(ResourceError, match="^pgmpy model: the table of 'big' has 1099511627776 cells"):
        from_pgmpy(FakeModel())
    pytest.importorskip("pgmpy")
    model = to_pgmpy(network("alarm"))  # 752 cells together
    monkeypatch.setenv(ENVIRONMENT, str(700 * 8 / 2**20))
    with pytest.raises(ResourceError, match=f"^pgmpy model: its tables hold more than 700 cells together.*"
                                            f"set {ENVIRONMENT}"):
        from_pgmpy(model)
    monkeypatch.setenv(ENVIRONMENT, str(752 * 8 / 2**20))
    assert from_pgmpy(model).n_vars == 37


def test_without_pgmpy_the_converter_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pgmpy", None)
    monkeypatch.setitem(sys.modules, "pgmpy.models", None)
    monkeypatch.setitem(sys.modules, "pgmpy.factors.discrete", None)
    with pytest.raises(BNExploreError, match="^pgmpy is not installed; pip install pgmpy to hand networks to it$"):
        to_pgmpy(network("asia"))


def test_an_older_pgmpy_with_bayesian_network_is_used(monkeypatch):
    models = pytest.importorskip("pgmpy.models")
    current = models.DiscreteBayesianNetwork
    monkeypatch.delattr(models, "DiscreteBayesianNetwork")
    monkeypatch.setattr(models, "BayesianNetwork", type("BayesianNetwork", (current,), {}), raising=False)
    model = to_pgmpy(network("asia"))
    assert type(model).__name__ == "BayesianNetwork"
    assert_same_network(from_pgmpy(model), network("asia"))


# --- pyAgrum ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMED + ["hostile"])
def test_a_network_goes_through_pyagrum_and_back_unchanged(name):
    gum = pytest.importorskip("pyagrum")
    net = network(name)
    bn = to_pyagrum(net)
    assert isinstance(bn, gum.BayesNet) and bn.property("name") == net.name
    assert [bn.variable(i).name() for i in range(bn.size())] == net.names
    assert [list(bn.variable(i).labels()) for i in range(bn.size())] == net.states
    assert all(bn.variable(i).varType() == gum.VarType_LABELIZED for i in range(bn.size()))
    assert_same_network(from_pyagrum(bn), net)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", NAMED + ["hostile"])
def test_pyagrum_lazy_propagation_on_the_converted_model_gives_bnexplores_posteriors(name):
    gum = pytest.importorskip("pyagrum")
    net = network(name)
    bn = to_pyagrum(net)
    for evidence in evidence_sets(net, 4, seed=5):
        want = query(net, evidence=evidence).posterior
        lazy = gum.LazyPropagation(bn)
        lazy.setEvidence(evidence)
        lazy.makeInference()
        for v, target in enumerate(net.names):
            np.testing.assert_allclose(lazy.posterior(target).toarray(), [want[target][s] for s in net.states[v]],
                                       rtol=0, atol=1e-9, err_msg=f"{name}: {target!r} given {evidence}")


def test_a_bayesnet_built_in_pyagrum_with_another_parent_order_converts_to_the_right_tables():
    gum = pytest.importorskip("pyagrum")
    bn = gum.BayesNet("garden")
    for name, labels in [("wet", ["dry", "wet"]), ("rain", ["yes", "no"]), ("sprinkler", ["off", "low", "high"])]:
        variable = gum.LabelizedVariable(name, name, 0)
        for label in labels:
            variable.addLabel(label)
        bn.add(variable)
    bn.addArc("sprinkler", "wet")
    bn.addArc("rain", "wet")
    bn.cpt("rain").fillWith([0.2, 0.8])
    bn.cpt("sprinkler").fillWith([0.5, 0.3, 0.2])
    wet = {("yes", "off"): 0.2, ("yes", "low"): 0.1, ("yes", "high"): 0.01,
           ("no", "off"): 0.99, ("no", "low"): 0.6, ("no", "high"): 0.3}
    for (rain, sprinkler), p in wet.items():
        bn.cpt("wet")[{"rain": rain, "sprinkler": sprinkler}] = [p, 1 - p]
    net = from_pyagrum(bn)
    assert net.name == "garden" and net.names == ["wet", "rain", "sprinkler"]
    assert sorted(net.names[p] for p in net.parents[0]) == ["rain", "sprinkler"]
    table = net.cpts[0]
    for (rain, sprinkler), p in wet.items():
        at = {"rain": net.states[1].index(rain), "sprinkler": net.states[2].index(sprinkler)}
        row = table[tuple(at[net.names[q]] for q in net.parents[0])]
        np.testing.assert_array_equal(row, [p, 1 - p])
        assert row.tolist() == bn.cpt("wet")[{"rain": rain, "sprinkler": sprinkler}].tolist()
    lazy = gum.LazyPropagation(bn)
    lazy.setEvidence({"wet": "wet"})
    lazy.makeInference()
    ours = query(net, ["rain", "sprinkler"], {"wet": "wet"}).posterior
    for name in ["rain", "sprinkler"]:
        np.testing.assert_allclose(lazy.posterior(name).toarray(), list(ours[name].values()), rtol=0, atol=1e-12)


def test_a_bayesnet_of_range_and_discretized_variables_takes_their_labels():
    gum = pytest.importorskip("pyagrum")
    bn = gum.BayesNet()
    bn.add(gum.RangeVariable("count", "", 1, 3))
    bn.add(gum.DiscretizedVariable("level", "", [0, 1.5, 4]))
    bn.addArc("count", "level")
    bn.cpt("count").fillWith([0.2, 0.3, 0.5])
    bn.cpt("level").fillWith([0.1, 0.9, 0.4, 0.6, 0.7, 0.3])
    net = from_pyagrum(bn)
    assert net.name == "unknown"
    assert net.states == [list(bn.variable("count").labels()), list(bn.variable("level").labels())]
    np.testing.assert_array_equal(net.cpts[1], [[0.1, 0.9], [0.4, 0.6], [0.7, 0.3]])


def test_a_bayesnet_with_a_bad_table_is_refused_and_one_slightly_off_renormalised():
    gum = pytest.importorskip("pyagrum")
    bn = gum.BayesNet("b")
    bn.add(gum.LabelizedVariable("a", "", 2))
    bn.cpt("a").fillWith([0.5, 0.4])
    with pytest.raises(BIFError, match=r"^pyAgrum BayesNet: probabilities of 'a' sum to 0\.9, not 1"):
        from_pyagrum(bn)
    bn.cpt("a").fillWith([0.3333, 0.6666])
    np.testing.assert_allclose(from_pyagrum(bn).cpts[0], [1 / 3, 2 / 3], rtol=0, atol=1e-15)
    with pytest.raises(BIFError, match="^from_pyagrum takes a pyAgrum BayesNet, not a DiGraph$"):
        from_pyagrum(nx.DiGraph())


class NoTables:
    """A BayesNet whose tables fail the test if they are read."""

    def __init__(self, bn):
        self.bn = bn

    def __getattr__(self, name):
        return getattr(self.bn, name)

    def cpt(self, node):
        raise AssertionError("a table was read before the bound was checked")


def test_a_bayesnet_beyond_the_bound_is_refused_before_its_tables_are_read(monkeypatch):
    pytest.importorskip("pyagrum")
    bn = to_pyagrum(network("alarm"))
    monkeypatch.setenv(ENVIRONMENT, str(700 * 8 / 2**20))
    with pytest.raises(ResourceError, match="^pyAgrum BayesNet: its tables hold more than 700 cells together"):
        from_pyagrum(NoTables(bn))
    monkeypatch.setenv(ENVIRONMENT, str(752 * 8 / 2**20))
    assert from_pyagrum(bn).n_vars == 37


def test_without_pyagrum_the_converter_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyagrum", None)
    monkeypatch.setitem(sys.modules, "pyAgrum", None)
    with pytest.raises(BNExploreError, match="^pyAgrum is not installed; pip install pyagrum to hand networks to it$"):
        to_pyagrum(network("asia"))


def test_pyagrum_under_its_old_package_name_is_used(monkeypatch):
    gum = pytest.importorskip("pyagrum")
    monkeypatch.setitem(sys.modules, "pyagrum", None)
    monkeypatch.setitem(sys.modules, "pyAgrum", gum)
    assert_same_network(from_pyagrum(to_pyagrum(network("asia"))), network("asia"))


# --- networkx --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMED + ["hostile"])
def test_a_networks_graph_goes_through_networkx_and_back(name):
    net = network(name)
    graph = to_networkx(net)
    assert list(graph.nodes) == net.names and graph.graph["name"] == net.name
    assert [graph.nodes[v]["states"] for v in net.names] == net.states
    assert sorted(graph.edges) == sorted((net.names[p], net.names[v]) for v in range(net.n_vars)
                                         for p in net.parents[v])
    assert from_networkx(graph) == net.dag()
    dag_graph = to_networkx(net.dag())
    assert list(dag_graph.nodes) == net.names and dict(dag_graph.nodes[net.names[0]]) == {}
    assert from_networkx(dag_graph) == net.dag()
    assert from_networkx(dag_graph).names == net.names


def test_from_networkx_names_nodes_by_their_text_in_the_graphs_order():
    graph = nx.MultiDiGraph([(3, 1), (3, 1), ("a", 1)])
    dag = from_networkx(graph)
    assert dag.names == ["3", "1", "a"] and dag.arcs() == [(0, 1), (2, 1)]
    with pytest.raises(SearchError, match=r"^nodes 1 and '1' both have the name '1'; relabel one$"):
        from_networkx(nx.DiGraph([(1, "1")]))


def test_from_networkx_refuses_cycles_self_loops_and_undirected_graphs_by_name():
    with pytest.raises(SearchError, match=r"^the graph has a directed cycle b -> c -> d -> b; a DAG has none"):
        from_networkx(nx.DiGraph([("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")]))
    with pytest.raises(SearchError, match=r"^the graph has a directed cycle x -> y -> x;"):
        from_networkx(nx.DiGraph([("x", "y"), ("y", "x")]))
    with pytest.raises(SearchError, match=r"^the graph has a self-loop b -> b; a DAG has none: remove it$"):
        from_networkx(nx.DiGraph([("a", "b"), ("b", "b")]))
    with pytest.raises(SearchError, match="^from_networkx takes a networkx DiGraph, not an undirected networkx graph$"):
        from_networkx(nx.Graph([("a", "b")]))
    with pytest.raises(SearchError, match="^from_networkx takes a networkx DiGraph, not a list$"):
        from_networkx([("a", "b")])


def test_from_networkx_refuses_a_graph_beyond_the_bound(monkeypatch):
    monkeypatch.setenv(ENVIRONMENT, str(99 / 2**20))
    graph = nx.empty_graph(10, create_using=nx.DiGraph)
    with pytest.raises(ResourceError, match="^the graph's 10 nodes would take"):
        from_networkx(graph)
    monkeypatch.setenv(ENVIRONMENT, str(100 / 2**20))
    assert from_networkx(graph).n == 10


def test_to_networkx_refuses_what_is_not_a_network_or_a_dag():
    cpdag = DAG.from_arcs([("a", "b")], ["a", "b"]).cpdag()
    with pytest.raises(SearchError, match=r"^to_networkx takes a bnexplore Network or DAG, not a CPDAG; take a DAG "
                                          r"of it with \.extension\(\)$"):
        to_networkx(cpdag)
    with pytest.raises(BIFError, match="^to_pgmpy takes a bnexplore Network"):
        to_pgmpy(cpdag)
    with pytest.raises(BIFError, match="^to_pyagrum takes a bnexplore Network"):
        to_pyagrum(DAG.empty(["a"]))


def test_the_converters_are_public_names_of_bnexplore():
    for name in ["to_pgmpy", "from_pgmpy", "to_pyagrum", "from_pyagrum", "to_networkx", "from_networkx"]:
        assert name in bnexplore.__all__ and getattr(bnexplore, name).__module__ == "bnexplore.interop"

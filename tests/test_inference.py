"""Exact inference: the junction-tree kernels against plain loops, posteriors
against the enumerated joint on random small networks and against variable
elimination on the bundled networks, evidence of probability 0, pruning."""

import itertools
from pathlib import Path

import numpy as np
import pytest

import naive
from bnexplore import junction
from bnexplore.bif import Network, read_bif, sample_codes
from bnexplore.errors import DataError, ResourceError
from bnexplore.inference import InferenceEngine, ancestral_network, query

NETWORKS = Path(__file__).resolve().parents[1] / "sample_data" / "networks"


def random_network(rng, n, max_parents=3, max_states=3, zeros=0.2):
    """A random DAG over ``n`` variables with random tables, some cells exactly 0."""
    states = [[f"s{k}" for k in range(rng.integers(2, max_states + 1))] for _ in range(n)]
    parents, cpts = [], []
    for v in range(n):
        k = int(rng.integers(0, min(v, max_parents) + 1))
        ps = sorted(rng.choice(v, size=k, replace=False).tolist()) if k else []
        shape = tuple(len(states[p]) for p in ps) + (len(states[v]),)
        table = rng.dirichlet(np.ones(shape[-1]), size=int(np.prod(shape[:-1], dtype=int))).reshape(shape)
        table[rng.random(shape) < zeros] = 0.0
        flat = table.reshape(-1, shape[-1])
        empty = flat.sum(axis=1) == 0
        flat[empty, rng.integers(0, shape[-1], size=empty.sum())] = 1.0
        cpts.append(flat / flat.sum(axis=1, keepdims=True))
        parents.append(ps)
    names = [f"X{v}" for v in range(n)]
    order = rng.permutation(n)  # variable numbering not topological
    inverse = np.argsort(order)
    return Network("random", [names[o] for o in order], [states[o] for o in order],
                   [[int(inverse[p]) for p in parents[o]] for o in order],
                   [cpts[o].reshape(tuple(len(states[p]) for p in parents[o]) + (len(states[o]),)) for o in order])


# -- kernels against their twins ---------------------------------------------

@pytest.mark.parametrize("seed", range(20))
def test_project_and_multiply_match_plain_loops(seed):
    rng = np.random.default_rng(seed)
    n = 6
    cards = rng.integers(1, 4, size=n).astype(np.int64)
    variables = sorted(rng.choice(n, size=int(rng.integers(1, 5)), replace=False).tolist())
    size = int(np.prod(cards[variables]))
    table = rng.random(size)
    strides = np.array([int(np.prod(cards[variables[i + 1:]])) for i in range(len(variables))], np.int64)
    fixed = np.full(n, -1, np.int64)
    for v in variables:
        if rng.random() < 0.3:
            fixed[v] = rng.integers(0, cards[v])
    outputs = [sorted(rng.choice(variables, size=int(rng.integers(0, len(variables) + 1)), replace=False).tolist())
               for _ in range(int(rng.integers(1, 4)))]
    ostr = np.zeros((len(outputs), len(variables)), np.int64)
    obase = np.zeros(len(outputs), np.int64)
    at = 3  # outputs start past a few cells that must stay untouched
    for j, keep in enumerate(outputs):
        for i, v in enumerate(variables):
            if v in keep:
                ostr[j, i] = int(np.prod(cards[keep[keep.index(v) + 1:]]))
        obase[j] = at
        at += int(np.prod(cards[keep]))
    out = np.zeros(at + 2)
    src = np.concatenate([rng.random(5), table])
    total = junction.project(src, 5, np.array(variables, np.int64), strides, cards, fixed, ostr, obase, out)
    given = {v: int(fixed[v]) for v in variables if fixed[v] >= 0}
    want_total, want = naive.table_project(table, variables, cards, given, outputs)
    assert total == pytest.approx(want_total, rel=1e-12, abs=1e-300)
    assert out[:3].tolist() == [0, 0, 0] and out[at:].tolist() == [0, 0]
    for j, keep in enumerate(outputs):
        for config in itertools.product(*(range(cards[v]) for v in keep)):
            flat = obase[j] + sum(c * ostr[j][variables.index(v)] for c, v in zip(config, keep))
            assert out[flat] == pytest.approx(want[j].get(config, 0.0), rel=1e-12, abs=1e-300)
    # multiply by a factor over one of the outputs
    keep = outputs[0]
    factor = rng.random(max(1, int(np.prod(cards[keep]))))
    product = src.copy()
    junction.multiply(product, src, 5, np.array(variables, np.int64), strides, cards, fixed, ostr[0], 0, factor)
    as_dict = {config: factor[sum(c * ostr[0][variables.index(v)] for c, v in zip(config, keep))]
               for config in itertools.product(*(range(cards[v]) for v in keep))}
    expected = naive.table_multiply(table, variables, cards, given, as_dict, keep)
    assert np.allclose(product[5:], expected, rtol=1e-12, atol=0) and np.array_equal(product[:5], src[:5])


@pytest.mark.parametrize("seed", range(15))
def test_elimination_order_matches_the_plain_greedy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    adj = np.triu(rng.random((n, n)) < 0.35, 1)
    adj = (adj | adj.T).astype(np.uint8)
    logcard = np.log(rng.integers(2, 5, size=n).astype(float))
    for fill_first in (True, False):
        order, marks = junction.elimination_order(adj.copy(), logcard, fill_first)
        want_order, want_cliques = naive.elimination_order(adj.tolist(), logcard.tolist(), fill_first)
        assert order.tolist() == want_order
        assert [set(np.flatnonzero(row).tolist()) for row in marks] == want_cliques


@pytest.mark.parametrize("seed", range(25))
def test_junction_tree_has_the_running_intersection_property(seed):
    rng = np.random.default_rng(seed)
    net = random_network(rng, int(rng.integers(1, 10)))
    tree = junction.junction_tree(net.parents, net.arities)
    cliques = [set(c) for c in tree.cliques]
    for v, ps in enumerate(net.parents):  # every family sits in one clique
        assert any(set(ps) | {v} <= c for c in cliques)
    for a, b in itertools.combinations(range(len(cliques)), 2):  # maximal cliques only
        assert not cliques[a] <= cliques[b] and not cliques[b] <= cliques[a]
    for v in range(net.n_vars):  # the cliques holding v form a connected subtree
        holding = {c for c in range(len(cliques)) if v in cliques[c]}
        tops = [c for c in holding if tree.parent[c] not in holding]
        assert len(tops) == 1
    assert tree.total == pytest.approx(sum(np.prod([net.arities[v] for v in c]) for c in cliques))


# -- posteriors against the enumerated joint ---------------------------------

@pytest.mark.parametrize("seed", range(40))
def test_posteriors_match_the_enumerated_joint(seed):
    rng = np.random.default_rng(seed)
    net = random_network(rng, int(rng.integers(1, 8)))
    engine = InferenceEngine(net)
    codes = sample_codes(net, 1, seed=seed)[0]
    for trial in range(4):
        k = int(rng.integers(0, min(4, net.n_vars) + 1))
        observed = rng.choice(net.n_vars, size=k, replace=False).tolist()
        if trial % 2:  # states of a sampled row: P(e) > 0
            evidence = {v: int(codes[v]) for v in observed}
        else:
            evidence = {v: int(rng.integers(0, net.arities[v])) for v in observed}
        soft = {}
        if trial == 3:
            for v in range(net.n_vars):
                if v not in evidence and rng.random() < 0.3:
                    soft[v] = rng.random(net.arities[v]).tolist()
        targets = sorted(rng.choice(net.n_vars, size=int(rng.integers(1, net.n_vars + 1)), replace=False).tolist())
        want, pe = naive.joint_query(net, targets, evidence, soft)
        names = {net.names[v]: net.states[v][s] for v, s in evidence.items()}
        likelihood = {net.names[v]: w for v, w in soft.items()}
        target_names = [net.names[t] for t in targets]
        if pe == 0:
            with pytest.raises(DataError, match="probability 0"):
                engine.query(target_names, names, likelihood)
            continue
        for answer in (engine.query(target_names, names, likelihood), query(net, target_names, names, likelihood)):
            assert answer.evidence_probability == pytest.approx(pe, rel=1e-9)
            for t in targets:
                assert answer.probabilities(net.names[t]) == pytest.approx(want[t], rel=1e-9, abs=1e-12)


def test_no_evidence_gives_the_priors_and_probability_one():
    rng = np.random.default_rng(3)
    net = random_network(rng, 6)
    answer = InferenceEngine(net).query()
    want, pe = naive.joint_query(net, range(net.n_vars), {})
    assert answer.evidence_probability == 1.0 and answer.log_evidence_probability == 0.0
    for v in range(net.n_vars):
        assert answer.probabilities(net.names[v]) == pytest.approx(want[v], rel=1e-12)


# -- against a second algorithm on the bundled networks ----------------------

@pytest.mark.parametrize("name", ["asia", "cancer", "earthquake", "survey", "sachs", "child", "insurance", "alarm",
                                  "win95pts", "hailfinder"])
def test_bundled_networks_agree_with_variable_elimination(name):
    net = read_bif(NETWORKS / f"{name}.bif.gz")
    engine = InferenceEngine(net)
    rng = np.random.default_rng(len(name))
    rows = sample_codes(net, 4, seed=1)
    for row in rows:
        observed = rng.choice(net.n_vars, size=min(net.n_vars - 1, int(rng.integers(1, 6))), replace=False)
        evidence = {int(v): int(row[v]) for v in observed}
        targets = rng.choice(net.n_vars, size=min(3, net.n_vars), replace=False).tolist()
        named = {net.names[v]: net.states[v][s] for v, s in evidence.items()}
        answer = engine.query(None, named)
        one_shot = query(net, [net.names[t] for t in targets], named)  # pruned, uncalibrated tree
        for t in targets:
            want, pe = naive.variable_elimination(net, t, evidence)
            assert answer.probabilities(net.names[t]) == pytest.approx(want, rel=1e-8, abs=1e-12)
            assert one_shot.probabilities(net.names[t]) == pytest.approx(want, rel=1e-8, abs=1e-12)
        assert answer.evidence_probability == pytest.approx(pe, rel=1e-8)
        assert one_shot.evidence_probability == pytest.approx(pe, rel=1e-8)


def test_bundled_priors_agree_with_variable_elimination():
    net = read_bif(NETWORKS / "alarm.bif.gz")
    engine = InferenceEngine(net)
    for v in range(0, net.n_vars, 4):
        want, pe = naive.variable_elimination(net, v, {})
        assert engine.priors[net.names[v]] == pytest.approx(want, rel=1e-10) and pe == pytest.approx(1.0)


# -- pruning -----------------------------------------------------------------

@pytest.mark.parametrize("seed", range(10))
def test_barren_pruning_leaves_answers_unchanged(seed):
    rng = np.random.default_rng(100 + seed)
    net = random_network(rng, 9, zeros=0.0)
    targets = [net.names[v] for v in rng.choice(net.n_vars, size=2, replace=False)]
    codes = sample_codes(net, 1, seed=seed)[0]
    observed = rng.choice(net.n_vars, size=2, replace=False)
    evidence = {net.names[v]: net.states[v][codes[v]] for v in observed}
    pruned = ancestral_network(net, targets + list(evidence))
    full = InferenceEngine(net).query(targets, evidence)
    small = InferenceEngine(pruned).query(targets, evidence)
    one_shot = query(net, targets, evidence)
    assert one_shot.stats["pruned_variables"] == net.n_vars - pruned.n_vars
    for answer in (small, one_shot):
        assert answer.evidence_probability == pytest.approx(full.evidence_probability, rel=1e-10)
        for t in targets:
            assert answer.probabilities(t) == pytest.approx(full.probabilities(t), rel=1e-10, abs=1e-14)


def test_ancestral_network_keeps_ancestors_only():
    net = read_bif(NETWORKS / "asia.bif.gz")
    pruned = ancestral_network(net, ["either"])
    assert sorted(pruned.names) == ["asia", "either", "lung", "smoke", "tub"]
    assert ancestral_network(net, ["dysp", "xray"]) is net


def test_a_query_visits_only_the_subtree_it_needs():
    net = read_bif(NETWORKS / "alarm.bif.gz")
    engine = InferenceEngine(net)
    few = engine.query(["HR"], {"HRBP": "HIGH"})
    everything = engine.query(None, {"HRBP": "HIGH"})
    assert few.stats["cliques_visited"] < everything.stats["cliques_visited"] == everything.stats["cliques"]
    assert few.probabilities("HR") == pytest.approx(everything.probabilities("HR"), rel=1e-12)


# -- evidence handling and errors --------------------------------------------

def test_evidence_of_probability_zero_is_named():
    net = Network("tiny", ["A", "B"], [["a0", "a1"], ["b0", "b1"]], [[], [0]],
                  [[0.5, 0.5], [[1.0, 0.0], [0.3, 0.7]]])
    engine = InferenceEngine(net)
    with pytest.raises(DataError, match=r"no configuration agrees with A=a0, B=b1 together"):
        engine.query(["A"], {"A": "a0", "B": "b1"})
    never = Network("tiny", ["A"], [["a0", "a1"]], [[]], [[1.0, 0.0]])
    with pytest.raises(DataError, match=r"A=a1 is impossible"):
        InferenceEngine(never).query(None, {"A": "a1"})
    with pytest.raises(DataError, match=r"likelihood on A is 0"):
        InferenceEngine(never).query(None, likelihood={"A": [0.0, 1.0]})
    answer = engine.query(["B"], {"A": "a1"})  # the other evidence is fine
    assert answer.posterior["B"] == pytest.approx({"b0": 0.3, "b1": 0.7})


def test_unknown_names_and_bad_likelihoods_are_refused():
    engine = InferenceEngine(read_bif(NETWORKS / "asia.bif.gz"))
    with pytest.raises(DataError, match="no variable 'smok'"):
        engine.query(None, {"smok": "yes"})
    with pytest.raises(DataError, match="'maybe' is not a state of 'smoke'; its states are yes, no"):
        engine.query(None, {"smoke": "maybe"})
    with pytest.raises(DataError, match="no variable 'Lung'"):
        engine.query(["Lung"])
    with pytest.raises(DataError, match="2 numbers >= 0"):
        engine.query(None, likelihood={"smoke": [1.0, -1.0]})
    with pytest.raises(DataError, match="both hard and likelihood"):
        engine.query(None, {"smoke": "yes"}, {"smoke": [1, 0]})
    with pytest.raises(DataError, match="no variable 'nope'"):
        query(read_bif(NETWORKS / "asia.bif.gz"), ["nope"])


def test_likelihood_given_by_state_names_equals_the_list_form():
    engine = InferenceEngine(read_bif(NETWORKS / "asia.bif.gz"))
    a = engine.query(["lung"], likelihood={"xray": {"yes": 0.8, "no": 0.2}})
    b = engine.query(["lung"], likelihood={"xray": [0.8, 0.2]})
    assert a.posterior == b.posterior
    assert a.evidence_probability == pytest.approx(0.8 * 0.11029004 + 0.2 * 0.88970996)


def test_a_tree_too_large_is_refused_before_allocation():
    net = read_bif(NETWORKS / "alarm.bif.gz")
    with pytest.raises(ResourceError, match=r"the largest clique of network 'alarm' would hold 1\.4e\+02 cells"):
        InferenceEngine(net, max_cells=100)
    answer = query(net, ["HISTORY"], {"LVFAILURE": "TRUE"}, max_cells=100)  # two variables after pruning
    assert answer.stats["pruned_variables"] == net.n_vars - 2
    with pytest.raises(ResourceError, match="variables are relevant to this query"):
        query(net, None, max_cells=100)


def test_munin_is_answered_or_refused():
    net = read_bif(NETWORKS / "munin.bif.gz")
    with pytest.raises(ResourceError, match="largest clique"):
        InferenceEngine(net, max_cells=1e6)
    codes = sample_codes(net, 1, seed=3)[0]
    evidence = {net.names[v]: net.states[v][codes[v]] for v in (10, 500, 900)}
    target = net.names[20]
    one_shot = query(net, [target], evidence)  # barren variables pruned, no calibration
    full = InferenceEngine(net).query([target], evidence)
    assert one_shot.stats["pruned_variables"] > 0
    assert one_shot.probabilities(target) == pytest.approx(full.probabilities(target), rel=1e-9, abs=1e-15)
    assert one_shot.evidence_probability == pytest.approx(full.evidence_probability, rel=1e-9)


def test_to_json_has_the_cli_shape():
    answer = query(read_bif(NETWORKS / "asia.bif.gz"), ["lung"], {"smoke": "yes"})
    payload = answer.to_json()
    assert payload["posterior"] == {"lung": {"yes": pytest.approx(0.1), "no": pytest.approx(0.9)}}
    assert payload["evidence_probability"] == pytest.approx(0.5)


# -- fitted networks ------------------------------------------------------------

def test_fit_network_options_and_its_record_of_empty_configurations():
    from bnexplore.data import Dataset
    from bnexplore.graphs import DAG

    codes = np.array([[0, 0, 1], [0, 1, 1], [0, 1, 0], [1, 1, 1]])  # C | A, B: (1, 0) never seen
    data = Dataset.from_codes(codes, arities=[2, 2, 2], names=["A", "B", "C"])
    dag = DAG.from_arcs([("A", "C"), ("B", "C")], ["A", "B", "C"])
    from bnexplore.bif import fit_network
    ml = fit_network(dag, data, method="ml", ess=5.0)
    assert ml.fit["method"] == "ml" and ml.fit["ess"] is None
    assert ml.fit["empty_configurations"] == {"A": 0, "B": 0, "C": 1} and ml.fit["configurations"]["C"] == 4
    assert ml.cpts[2][0, 1].tolist() == [0.5, 0.5] and ml.cpts[2][1, 0].tolist() == [0.5, 0.5]
    assert ml.fit["counts"][2][0, 1].tolist() == [1, 1] and ml.cpts[2][0, 0].tolist() == [0.0, 1.0]
    bdeu = fit_network(dag, data, ess=4.0)
    # (N_ijk + 4 / 8) / (N_ij + 4 / 4) for C given A=0, B=0: counts (0, 1)
    assert bdeu.cpts[2][0, 0].tolist() == pytest.approx([0.5 / 2, 1.5 / 2])
    assert bdeu.fit == {**bdeu.fit, "method": "bdeu", "ess": 4.0, "rows": 4}
    with pytest.raises(Exception, match="unknown fitting method"):
        fit_network(dag, data, method="mle")
    # the fitted network answers queries like any other
    want, pe = naive.joint_query(bdeu, [2], {0: 1})
    assert query(bdeu, ["C"], {"A": "1"}).probabilities("C") == pytest.approx(want[2], rel=1e-12)

"""Background knowledge: validation messages, JSON, graph checks, parent-set
filtering against brute force, and hill climbing / tabu honouring it."""

import inspect
import itertools

import numpy as np
import pytest

from bnexplore.bif import Network, sample_codes
from bnexplore.data import Dataset
from bnexplore.errors import OptionError, SearchError
from bnexplore.graphs import DAG
from bnexplore.knowledge import Knowledge, parse_arcs, parse_tiers
from bnexplore.parents import ParentSets
from bnexplore.bootstrap import bootstrap
from bnexplore.search import ALGORITHMS, credible_set, learn, search_options

NAMES = ["A", "B", "C", "D", "E"]


# -- validation ---------------------------------------------------------------

@pytest.mark.parametrize("knowledge, message", [
    (Knowledge(require=[("A", "Q")]), r"variable\(s\) the data does not have: 'Q'"),
    (Knowledge(tiers=[["A", "Zed"], ["B"]]), r"does not have: 'Zed'"),
    (Knowledge(require=[("A", "B"), ("B", "C"), ("C", "A")]), r"required arcs form a cycle A -> B -> C -> A"),
    (Knowledge(require=[("A", "B"), ("B", "A")]), r"required arcs form a cycle A -> B -> A"),
    (Knowledge(require=[("A", "B")], forbid=[("A", "B")]),
     r"arc A -> B is both required and forbidden \(by the forbidden arc A -> B\)"),
    (Knowledge(require=[("A", "B")], forbid_edges=[{"B", "A"}]),
     r"arc A -> B is both required and forbidden \(by the forbidden edge A - B\)"),
    (Knowledge(require=[("C", "A")], tiers=[["A", "B"], ["C"]]),
     r"arc C -> A is both required and forbidden \(by the tiers: C is in tier 2, A in tier 1"),
    (Knowledge(tiers=[["A", "B"], ["B"]]), r"'B' is in tier 1 and in tier 2"),
    (Knowledge(require=[("A", "A")]), r"self loop"),
])
def test_contradictions_are_refused_by_name(knowledge, message):
    with pytest.raises(SearchError, match=message):
        knowledge.bind(NAMES)


def test_required_parents_beyond_the_indegree_limit_are_refused():
    knowledge = Knowledge(require=[("A", "D"), ("B", "D"), ("C", "D")])
    knowledge.bind(NAMES, max_indegree=3)
    with pytest.raises(SearchError, match=r"node 'D' has 3 required parents \(A, B, C\), more than the in-degree "
                                          r"limit 2"):
        knowledge.bind(NAMES, max_indegree=2)


def test_malformed_entries_are_refused():
    with pytest.raises(SearchError, match=r"require entries must be \(parent, child\) pairs"):
        Knowledge(require=["AB"])
    with pytest.raises(SearchError, match="tier 1 must be a list"):
        Knowledge(tiers=["AB"])


def test_json_round_trip_and_unknown_keys():
    knowledge = Knowledge(require=[("A", "B")], forbid=[("C", "D")], forbid_edges=[{"E", "A"}],
                          tiers=[["A", "B"], ["C"]])
    again = Knowledge.from_json(knowledge.dumps())
    assert again == knowledge and again.to_json() == {
        "require": [["A", "B"]], "forbid": [["C", "D"]], "forbid_edges": [["A", "E"]], "tiers": [["A", "B"], ["C"]]}
    assert Knowledge.from_json({"require": [["A", "B"]]}).forbid == []
    with pytest.raises(SearchError, match="unknown knowledge key"):
        Knowledge.from_json({"required": []})
    with pytest.raises(SearchError, match="not valid JSON"):
        Knowledge.from_json("{")


def test_cli_text_parsers():
    assert parse_arcs("A->B, C -> D") == [("A", "B"), ("C", "D")]
    assert parse_tiers("A,B;C,D;E") == [["A", "B"], ["C", "D"], ["E"]]
    with pytest.raises(SearchError, match="PARENT->CHILD"):
        parse_arcs("A-B", "--forbid")
    with pytest.raises(SearchError, match="empty tier"):
        parse_tiers("A;;B")


def test_union_joins_lists_and_refuses_two_sets_of_tiers():
    a = Knowledge(require=[("A", "B")], tiers=[["A"], ["B"]])
    b = Knowledge(forbid=[("C", "D")])
    assert a.union(b).to_json()["forbid"] == [["C", "D"]] and a.union(b).tiers == [["A"], ["B"]]
    with pytest.raises(SearchError, match="tiers were given twice"):
        a.union(a)


# -- graphs -------------------------------------------------------------------

def random_consistent_knowledge(rng, names):
    """Required arcs along a random order, tiers cut from that order, random forbidden arcs and edges."""
    n = len(names)
    order = [names[i] for i in rng.permutation(n)]
    position = {v: i for i, v in enumerate(order)}
    pairs = [(u, v) for u, v in itertools.permutations(names, 2)]
    require = [p for p in pairs if position[p[0]] < position[p[1]] and rng.random() < 0.12]
    free = [p for p in pairs if p not in require and p[::-1] not in require]
    forbid = [p for p in free if rng.random() < 0.12]
    edges = [set(p) for p in free if rng.random() < 0.05 and p[::-1] not in forbid]
    cuts = sorted(rng.choice(np.arange(1, n), size=min(2, n - 1), replace=False).tolist()) if rng.random() < 0.6 else []
    tiers = [order[a:b] for a, b in zip([0] + cuts, cuts + [n])] if cuts else []
    tiers = [t for t in tiers if rng.random() < 0.8]  # some variables in no tier
    return Knowledge(require, forbid, edges, tiers)


def honours(knowledge, names, adj):
    """The definition, written out."""
    index = {v: i for i, v in enumerate(names)}
    tier = {v: t for t, members in enumerate(knowledge.tiers) for v in members}
    for u, v in knowledge.require:
        if not adj[index[u], index[v]]:
            return False
    for u, v in knowledge.forbid:
        if adj[index[u], index[v]]:
            return False
    for u, v in knowledge.forbid_edges:
        if adj[index[u], index[v]] or adj[index[v], index[u]]:
            return False
    for a, b in zip(*np.nonzero(adj)):
        u, v = names[a], names[b]
        if u in tier and v in tier and tier[u] > tier[v]:
            return False
    return True


@pytest.mark.parametrize("seed", range(30))
def test_allows_and_violations_match_the_definition(seed):
    rng = np.random.default_rng(seed)
    names = [f"V{i}" for i in range(int(rng.integers(2, 7)))]
    knowledge = random_consistent_knowledge(rng, names)
    bound = knowledge.bind(names)
    for _ in range(20):
        order = rng.permutation(len(names))
        adj = np.zeros((len(names), len(names)), np.uint8)
        for i, j in itertools.combinations(range(len(names)), 2):
            if rng.random() < 0.4:
                adj[order[i], order[j]] = 1
        if rng.random() < 0.5:  # add the required arcs (and keep it acyclic)
            adj |= bound.required.astype(np.uint8)
            adj &= ~bound.required.T.astype(np.uint8)
            if not DAG.is_acyclic(adj):
                continue
        dag = DAG(adj, names)
        want = honours(knowledge, names, adj)
        assert bound.allows(dag) == want == knowledge.allows(dag)
        assert (bound.violations(dag) == []) == want


def test_violations_name_what_is_wrong():
    dag = DAG.from_arcs([("B", "A"), ("C", "D")], NAMES)
    knowledge = Knowledge(require=[("A", "E")], forbid=[("C", "D")], tiers=[["A"], ["B"]])
    assert knowledge.violations(dag) == [
        "required arc A -> E is missing",
        "arc B -> A breaks the tiers: B is in tier 2, A in tier 1, and no arc may point into an earlier tier",
        "arc C -> D breaks the forbidden arc C -> D",
    ]


def test_allows_reads_graphs_with_their_own_variable_order():
    knowledge = Knowledge(require=[("A", "B")])
    assert knowledge.bind(NAMES).allows(DAG.from_arcs([("A", "B")], ["E", "D", "C", "B", "A"]))


# -- parent sets --------------------------------------------------------------

@pytest.mark.parametrize("seed", range(25))
def test_filtering_parent_sets_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    names = [f"V{i}" for i in range(n)]
    knowledge = random_consistent_knowledge(rng, names)
    bound = knowledge.bind(names)
    candidates = []
    for v in range(n):
        others = [u for u in range(n) if u != v]
        sets = [s for k in range(len(others) + 1) for s in itertools.combinations(others, k)]
        candidates.append([(s, float(rng.normal())) for s in sets])
    sets = ParentSets(names, candidates, "bic")
    filtered = bound.filter(sets)
    index = {name: i for i, name in enumerate(names)}
    tier = {index[v]: t for t, members in enumerate(knowledge.tiers) for v in members}
    for v in range(n):
        want = set()
        for s, _ in candidates[v]:
            ok = all(index[a] in s for a, b in knowledge.require if index[b] == v)
            ok &= not any(index[a] in s for a, b in knowledge.forbid if index[b] == v)
            ok &= not any(index[a] in s and index[b] == v or index[b] in s and index[a] == v
                          for a, b in knowledge.forbid_edges)
            ok &= not any(u in tier and v in tier and tier[u] > tier[v] for u in s)
            if ok:
                want.add(tuple(sorted(s)))
        assert set(filtered.sets(v)) == want
        scores = dict(candidates[v])
        assert [scores[s] for s in filtered.sets(v)] == list(filtered.scores(v))
    assert filtered.stats["knowledge_removed"] == len(sets) - len(filtered)


def test_filter_names_a_node_left_without_candidates():
    sets = ParentSets(["A", "B"], [[((), 0.0)], [((), 0.0)]], "bic")
    with pytest.raises(SearchError, match=r"no candidate parent set of 'B' honours the knowledge \(required "
                                          r"parents: A\)"):
        Knowledge(require=[("A", "B")]).bind(sets).filter(sets)


# -- searches -----------------------------------------------------------------

def random_problem(rng, n, rows=300):
    states = [["0", "1"] if rng.random() < 0.6 else ["0", "1", "2"] for _ in range(n)]
    parents, cpts = [], []
    for v in range(n):
        ps = [u for u in range(v) if rng.random() < 0.4][:2]
        shape = tuple(len(states[p]) for p in ps) + (len(states[v]),)
        cpts.append(rng.dirichlet(np.ones(shape[-1]) * 0.5, size=int(np.prod(shape[:-1], dtype=int))).reshape(shape))
        parents.append(ps)
    names = [f"X{v}" for v in range(n)]
    net = Network("random", names, states, parents, cpts)
    return Dataset.from_codes(sample_codes(net, rows, seed=int(rng.integers(1 << 30))), arities=net.arities,
                              names=names, states=states)


@pytest.mark.parametrize("algorithm", ["hc", "tabu"])
@pytest.mark.parametrize("seed", range(12))
def test_local_search_under_random_knowledge_honours_it(algorithm, seed):
    rng = np.random.default_rng(seed)
    data = random_problem(rng, int(rng.integers(3, 7)))
    knowledge = random_consistent_knowledge(rng, data.names)
    max_indegree = 3 if seed % 2 else None
    if max_indegree is not None and knowledge.bind(data).required.sum(axis=0).max() > max_indegree:
        max_indegree = None
    options = search_options(knowledge, algorithm, data, max_indegree)
    result = learn(data, algorithm, score="bic", max_indegree=max_indegree, **options)
    assert knowledge.allows(result.graph), knowledge.violations(result.graph)
    if max_indegree is not None:
        assert max(len(p) for p in result.graph.parent_sets()) <= max_indegree


def test_search_options_check_the_knowledge_and_pass_it_to_every_search():
    data_names = NAMES
    knowledge = Knowledge(require=[("A", "B")], tiers=[["A", "B"], ["C", "D", "E"]])
    assert search_options(None, "hc", data_names) == {} == search_options(Knowledge(), "rpdag", data_names)
    with pytest.raises(SearchError, match="both required and forbidden"):
        search_options(Knowledge(require=[("C", "A")], tiers=[["A"], ["C"]]), "hc", data_names)
    with pytest.raises(SearchError, match="unknown algorithm 'nope'"):
        search_options(knowledge, "nope", data_names)
    for name, function in ALGORITHMS.items():
        assert "knowledge" in inspect.signature(function).parameters
        assert search_options(knowledge, name, data_names) == {"knowledge": knowledge}


@pytest.mark.parametrize("given", [[("a", "b")], {"require": [("a", "b")]}, "a -> b"])
def test_knowledge_that_is_not_a_knowledge_object_is_refused_at_every_door_naming_how_to_make_one(given):
    """A list of arcs (bnlearn's whitelist), a dict or text: before, an AttributeError from inside the search."""
    data = Dataset.from_codes(np.random.default_rng(0).integers(0, 2, (60, 3)), names=["a", "b", "c"])
    kind = type(given).__name__
    says = rf"^knowledge must be a bnexplore Knowledge, e\.g\. knowledge=Knowledge\(require=.*\), not a {kind}$"
    for door in (lambda: learn(data, "hc", knowledge=given), lambda: learn(data, "exact", knowledge=given),
                 lambda: bootstrap(data, "hc", R=2, knowledge=given), lambda: credible_set(data, knowledge=given),
                 lambda: search_options(given, "pc", data.names)):
        with pytest.raises(OptionError, match=says):
            door()
    assert ["a", "b"] in learn(data, "hc", knowledge=Knowledge(require=[("a", "b")])).graph.to_json()["arcs"]


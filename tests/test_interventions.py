"""What-if questions: do-queries by graph surgery against independent computations (a hand-cut
network, the enumerated truncated factorisation, pyAgrum's causal module), their refusals, the
range of an intervention's effect over a credible set, and the doors (CLI, app)."""

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from test_inference import random_network

from bnexplore import cli
from bnexplore.bif import Network, fit_network, read_bif
from bnexplore.data import read_csv
from bnexplore.errors import DataError, SearchError
from bnexplore.inference import InferenceEngine, mutilated_network, query
from bnexplore.search.credible import credible_set, effect_range, fitted_networks

ROOT = Path(__file__).resolve().parents[1]
ASIA_BIF = ROOT / "sample_data" / "networks" / "asia.bif.gz"


@pytest.fixture(scope="module")
def asia():
    return read_bif(ASIA_BIF)


def cut_by_hand(network, do):
    """The mutilated network built here, without the library's surgery."""
    parents, cpts = [], []
    for v, name in enumerate(network.names):
        if name in do:
            table = np.zeros(len(network.states[v]))
            table[network.states[v].index(do[name])] = 1.0
            parents.append([])
            cpts.append(table)
        else:
            parents.append(list(network.parents[v]))
            cpts.append(network.cpts[v])
    return Network("cut", network.names, network.states, parents, cpts)


def enumerated(network, target, evidence, do):
    """``P(target | evidence, do)`` by summing the truncated factorisation over every configuration."""
    t = network.names.index(target)
    out = np.zeros(len(network.states[t]))
    fixed = {network.names.index(k): network.states[network.names.index(k)].index(s)
             for k, s in {**evidence, **do}.items()}
    setv = {network.names.index(k) for k in do}
    for config in itertools.product(*[range(len(s)) for s in network.states]):
        if any(config[v] != s for v, s in fixed.items()):
            continue
        p = 1.0
        for v in range(network.n_vars):
            if v not in setv:
                p *= network.cpts[v][tuple(config[q] for q in network.parents[v]) + (config[v],)]
        out[config[t]] += p
    return out / out.sum()


def probabilities(answer, target):
    return np.array(list(answer.posterior[target].values()))


def test_do_query_equals_the_hand_cut_network(asia):
    do, evidence = {"lung": "yes"}, {"xray": "yes", "asia": "no"}
    expected = query(cut_by_hand(asia, do), evidence=evidence)
    engine = InferenceEngine(asia)
    for answer in (query(asia, evidence=evidence, do=do), engine.query(evidence=evidence, do=do)):
        assert answer.do == do
        for name in asia.names:
            assert np.allclose(probabilities(answer, name), probabilities(expected, name), atol=1e-12)
        assert answer.evidence_probability == pytest.approx(expected.evidence_probability, rel=1e-12)
    # and the surgery itself builds that network
    cut = mutilated_network(asia, do)
    assert cut.parents == cut_by_hand(asia, do).parents
    # the set variable differs from observing it: smoke keeps its prior under do
    assert query(asia, ["smoke"], do=do).posterior["smoke"]["yes"] == pytest.approx(0.5, abs=1e-12)
    assert query(asia, ["smoke"], {"lung": "yes"}).posterior["smoke"]["yes"] > 0.9


@pytest.mark.parametrize("seed", range(8))
def test_do_query_equals_enumeration_on_random_networks(seed):
    rng = np.random.default_rng(seed)
    network = random_network(rng, 6, zeros=0.0)
    names = network.names
    chosen = rng.permutation(len(names))
    do = {names[chosen[0]]: network.states[chosen[0]][0]}
    if seed % 2:
        do[names[chosen[1]]] = network.states[chosen[1]][-1]
    evidence = {names[chosen[2]]: network.states[chosen[2]][0]}
    engine = InferenceEngine(network)
    for target in names:
        want = enumerated(network, target, evidence, do)
        assert np.allclose(probabilities(query(network, [target], evidence, do=do), target), want, atol=1e-10)
        assert np.allclose(probabilities(engine.query([target], evidence, do=do), target), want, atol=1e-10)


def test_do_query_matches_pyagrum_causal_impact(asia):
    pytest.importorskip("pyagrum")
    causal = pytest.importorskip("pyagrum.causal")
    from bnexplore import to_pyagrum

    model = causal.CausalModel(to_pyagrum(asia))
    for on, doing, value in [("dysp", "lung", "yes"), ("xray", "tub", "no"), ("either", "smoke", "yes"),
                             ("smoke", "bronc", "yes")]:
        _, tensor, _ = causal.causalImpact(model, on=on, doing=doing, values={doing: value})
        theirs = [tensor[{on: s}] for s in asia.states[asia.names.index(on)]]
        ours = probabilities(query(asia, [on], do={doing: value}), on)
        assert np.allclose(ours, theirs, atol=1e-9, rtol=0), (on, doing)


def test_do_on_a_root_equals_observing_it(asia):
    for state in ("yes", "no"):
        seen = query(asia, evidence={"smoke": state, "xray": "yes"})
        done = query(asia, evidence={"xray": "yes"}, do={"smoke": state})
        for name in asia.names:
            assert np.allclose(probabilities(done, name), probabilities(seen, name), atol=1e-12)


def test_do_on_a_child_leaves_its_ancestors_marginals_alone(asia):
    engine = InferenceEngine(asia)
    answer = engine.query(do={"either": "yes"})
    for name in ("asia", "tub", "smoke", "lung"):
        assert np.allclose(probabilities(answer, name), engine.priors[name], atol=1e-12)
    assert answer.posterior["xray"]["yes"] == pytest.approx(0.98)  # P(xray | either = yes) in asia's table


def test_interventions_are_checked(asia):
    with pytest.raises(DataError, match="'lung' is set by do to 'yes' and observed as 'no'"):
        query(asia, evidence={"lung": "no"}, do={"lung": "yes"})
    with pytest.raises(DataError, match="'lung' is set by do to 'yes' and observed as 'no'"):
        InferenceEngine(asia).query(evidence={"lung": "no"}, do={"lung": "yes"})
    with pytest.raises(DataError, match="has no variable 'lungs'"):
        query(asia, do={"lungs": "yes"})
    with pytest.raises(DataError, match="'maybe' is not a state of 'lung'; its states are yes, no"):
        query(asia, do={"lung": "maybe"})
    with pytest.raises(DataError, match="set by do and also has likelihood evidence"):
        query(asia, likelihood={"lung": [0.5, 1]}, do={"lung": "yes"})
    with pytest.raises(DataError, match="do must be a dict"):
        query(asia, do=["lung"])
    same = query(asia, ["smoke"], evidence={"lung": "yes"}, do={"lung": "yes"})  # the same state: allowed
    assert same.posterior == query(asia, ["smoke"], do={"lung": "yes"}).posterior


# -- over a credible set ------------------------------------------------------------------

@pytest.fixture(scope="module")
def credible():
    data = read_csv(ROOT / "sample_data" / "asia.csv")
    return data, credible_set(data, bf=20)


def test_effect_range_equals_a_loop_over_the_credible_dags(credible):
    data, cs = credible
    do, evidence = {"lung": "yes"}, {"asia": "no"}
    answer = effect_range(cs, "smoke", do, evidence, data=data)
    rows = []
    for dag, _ in cs.dags:
        network = fit_network(dag, data, ess=1.0)
        rows.append(probabilities(query(cut_by_hand(network, do), ["smoke"], evidence), "smoke"))
    rows = np.array(rows)
    assert np.allclose(answer.probabilities, rows, atol=1e-12)
    assert np.allclose(answer.minimum, rows.min(axis=0)) and np.allclose(answer.maximum, rows.max(axis=0))
    assert np.allclose(answer.mean, cs.weights @ rows / cs.weights.sum())
    assert np.all(answer.minimum <= answer.mean + 1e-15) and np.all(answer.mean <= answer.maximum + 1e-15)
    # the DAGs disagree about what setting lung does to smoke (its cause in some, its effect in others)
    assert answer.maximum[1] - answer.minimum[1] > 0.1
    json.dumps(answer.to_json())


def test_effect_range_over_one_equivalence_class(credible):
    data, cs = credible
    networks = fitted_networks(cs, data)
    for cls in cs.classes:
        answer = effect_range(cs, "smoke", {"lung": "yes"}, data=data, equivalence_class=cls.rank, networks=networks)
        assert answer.members.tolist() == list(cls.members)
        seen = [probabilities(query(networks[int(i)], ["smoke"], {"lung": "yes"}), "smoke") for i in cls.members]
        assert np.allclose(seen, seen[0], atol=1e-9)  # observing cannot tell the class's DAGs apart
        assert answer.maximum[1] - answer.minimum[1] > 0.1  # setting can
    with pytest.raises(SearchError, match="equivalence_class must be a class rank from 1 to"):
        effect_range(cs, "smoke", {"lung": "yes"}, data=data, equivalence_class=len(cs.classes) + 1)
    with pytest.raises(DataError, match="needs data="):
        effect_range(cs, "smoke", {"lung": "yes"})


def test_effect_range_from_the_data_finds_the_credible_set_first(credible):
    data, cs = credible
    direct = effect_range(data, "smoke", {"lung": "yes"}, bf=20)
    given = effect_range(cs, "smoke", {"lung": "yes"}, data=data)
    assert direct.members.tolist() == given.members.tolist()
    assert np.allclose(direct.probabilities, given.probabilities, atol=1e-12)


# -- the doors ------------------------------------------------------------------------------

def test_cli_query_takes_do(tmp_path, asia, capsys):
    out = tmp_path / "answer.json"
    assert cli.main(["query", str(ASIA_BIF), "--do", "lung=yes", "--evidence", "asia=no", "--target", "smoke",
                     "--json", str(out)]) in (0, None)
    payload = json.loads(out.read_text())
    assert payload["do"] == {"lung": "yes"}
    want = query(asia, ["smoke"], {"asia": "no"}, do={"lung": "yes"}).posterior["smoke"]
    assert payload["posterior"]["smoke"] == pytest.approx(want, abs=1e-12)
    assert cli.main(["query", str(ASIA_BIF), "--do", "lung=yes", "--evidence", "lung=no"]) not in (0, None)
    assert "'lung' is set by do to 'yes' and observed as 'no'" in capsys.readouterr().err


def test_app_ask_view_intervenes(asia):
    """On the Ask view of the true network: set lung = yes by intervention, and the answer is the do-answer."""
    from test_app import go, new_session, no_exception

    at = new_session()
    go(at, "4_Networks")
    name = "ground truth: asia"
    at.selectbox(key="net_pick_box").set_value(name)
    at.radio(key="keep.net_view").set_value("ask")
    at.run()
    no_exception(at)
    at.selectbox(key=f"ask-var-{name}").set_value("lung")
    at.run()
    at.radio(key=f"ask-state-{name}-lung").set_value("yes")
    at.toggle(key=f"ask-how-{name}").set_value(True)
    at.button(key=f"ask-set-{name}").click()
    at.run()
    no_exception(at)
    assert at.session_state["evidence"][name] == {"lung": "yes"} and at.session_state["ask_do"][name] == {"lung"}
    assert at.button(key=f"ask-drop-{name}-lung").label == "✕ do(lung = yes)"
    assert any("Intervention answer: P(· | do(lung = yes))" in c.value for c in at.caption)
    page = at.get("iframe")[0].proto.srcdoc
    want = query(asia, ["smoke"], do={"lung": "yes"}).posterior["smoke"]["yes"]
    assert f"yes: {want:.4f} (before evidence" in page  # smoke keeps its prior: 0.5000, not 0.9091 as if seen
    seen = query(asia, ["smoke"], {"lung": "yes"}).posterior["smoke"]["yes"]
    assert f"yes: {seen:.4f} (before evidence" not in page
    # the same variable observed instead: the observation answer
    at.toggle(key=f"ask-how-{name}").set_value(False)
    at.button(key=f"ask-set-{name}").click()
    at.run()
    assert at.session_state["ask_do"][name] == set()
    assert f"yes: {seen:.4f} (before evidence" in at.get("iframe")[0].proto.srcdoc


def test_app_ask_view_shows_the_range_across_a_credible_set():
    """A credible-set entry asked with an intervention: a range bar per state, the numbers effect_range gives."""
    from test_app import go, new_session, no_exception, run_search

    at = new_session()
    job = run_search(at, algorithms=("credible",))
    name = job.results[0][0].name
    found = job.results[0][2]["credible"]
    go(at, "4_Networks")
    at.selectbox(key="net_pick_box").set_value(name)
    at.radio(key="keep.net_view").set_value("ask")
    at.run()
    no_exception(at)
    at.selectbox(key=f"ask-var-{name}").set_value("lung")
    at.run()
    at.radio(key=f"ask-state-{name}-lung").set_value("yes")
    at.toggle(key=f"ask-how-{name}").set_value(True)
    at.button(key=f"ask-set-{name}").click()
    at.run()
    no_exception(at)
    at.selectbox(key=f"ask-range-{name}").set_value("smoke")
    at.run()
    no_exception(at)
    want = effect_range(found, "smoke", {"lung": "yes"}, {}, data=at.session_state["dataset"],
                        ess=float(at.session_state["settings"].get("ess", 1.0)))
    spans = "; ".join(f"{s}: {lo:.4f} to {hi:.4f}, mean {m:.4f}" for s, lo, hi, m in
                      zip(want.states, want.minimum, want.maximum, want.mean))
    caption = next(c.value for c in at.caption if "credible DAGs, each fitted to the data" in c.value)
    assert f"over the {len(found)} credible DAGs" in caption and spans in caption
    assert want.maximum[0] - want.minimum[0] > 0.1  # the DAGs disagree on what setting lung does to smoke

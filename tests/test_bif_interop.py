"""Every BIF bnexplore writes loads in pyAgrum and pgmpy with bnexplore's posteriors (issue 29 item 6).

The networks: every bundled one, and networks whose variable and state names no BIF reader takes
(interval states, ``<missing>``, quotes, spaces, accents, leading digits, format words, names equal
but for case). pyAgrum and pgmpy are test extras (requirements-dev.txt).
"""

import re
from pathlib import Path

import numpy as np
import pytest

from bnexplore.bif import Network, read_bif, sample_codes, write_bif
from bnexplore.inference import InferenceEngine

gum = pytest.importorskip("pyagrum")

NETWORKS = Path(__file__).resolve().parents[1] / "sample_data" / "networks"
BUNDLED = sorted(p.name[: -len(".bif.gz")] for p in NETWORKS.glob("*.bif.gz"))
# Posteriors are compared on these (the others' junction trees take long to build in both tools).
ASKED = ["alarm", "asia", "cancer", "child", "earthquake", "hailfinder", "hepar2", "insurance", "sachs", "survey",
         "water", "win95pts"]
PGMPY_ASKED = ["asia", "child", "sachs"]


def hostile_network(seed=0):
    """A random network over names no BIF reader takes as they are."""
    rng = np.random.default_rng(seed)
    names = ["x y", "X_Y", "1st", "table", "Größe", "a;b", "<b>", "variable", "-inf"]
    states = [["(-inf, 5.667]", "(5.667, 8.333]", "(8.333, inf)"], ["<missing>", "master's_degree", "missing"],
              ["0", "-1"], ["yes", "Yes"], ["é", "e", "ë"], ["{a}", "a"], ["", "//", "/*"], ["a b", "a_b"],
              ["1.5", "2.5"]]
    parents = [[], [0], [1], [], [1, 3], [], [5, 4], [6, 0], [7]]
    cpts = [rng.dirichlet(np.ones(len(states[v])), size=[len(states[p]) for p in parents[v]])
            for v in range(len(names))]
    return Network("my variable net", names, states, parents, cpts)


def written_names(text):
    """Variable names and states as the BIF text writes them, in network order."""
    names = re.findall(r"^variable (\S+) \{", text, flags=re.MULTILINE)
    states = [s.split(", ") for s in re.findall(r"^  type discrete \[ \d+ \] \{ (.*) \};", text, flags=re.MULTILINE)]
    return names, states


def random_evidence(network, rng, k):
    """``k`` variables set to the states of one forward-sampled row (so the evidence is possible)."""
    row = sample_codes(network, 1, seed=rng)[0]
    chosen = rng.choice(network.n_vars, size=min(k, network.n_vars), replace=False)
    return {int(v): int(row[v]) for v in chosen}


def check_pyagrum(network, path, rounds=3, seed=0):
    """``path`` (written from ``network``) loads in pyAgrum, and its posteriors are bnexplore's to 1e-9."""
    text = write_bif(network, path)
    names, states = written_names(text)
    bn = gum.loadBN(str(path))
    assert [bn.variable(v).name() for v in range(bn.size())] == names
    assert [list(bn.variable(v).labels()) for v in range(bn.size())] == states
    assert sorted((bn.variable(p).name(), bn.variable(c).name()) for p, c in bn.arcs()) == sorted(
        (names[p], names[v]) for v in range(network.n_vars) for p in network.parents[v])
    engine = InferenceEngine(network)
    # pyAgrum's BIF parser holds numbers as 32-bit floats: bnexplore is asked on the same tables so rounded
    rounded = InferenceEngine(Network(network.name, network.names, network.states, network.parents,
                                      [t.astype(np.float32).astype(np.float64) for t in network.cpts]))
    rng = np.random.default_rng(seed)
    for k in range(rounds):
        evidence = random_evidence(network, rng, k)
        named = {network.names[v]: network.states[v][s] for v, s in evidence.items()}
        want, exact = rounded.query(evidence=named), engine.query(evidence=named)
        lazy = gum.LazyPropagation(bn)
        lazy.setEvidence({names[v]: states[v][s] for v, s in evidence.items()})
        lazy.makeInference()
        for v, name in enumerate(network.names):
            ours = [want.posterior[name][state] for state in network.states[v]]
            theirs = lazy.posterior(names[v]).toarray()
            np.testing.assert_allclose(theirs, ours, rtol=0, atol=1e-9, err_msg=f"{network.name}: {name} | {named}")
            np.testing.assert_allclose(theirs, [exact.posterior[name][s] for s in network.states[v]], rtol=0,
                                       atol=1e-5)


@pytest.mark.timeout(600)
def test_every_bundled_network_loads_in_pyagrum_as_written(tmp_path):
    for name in BUNDLED:
        network = read_bif(NETWORKS / f"{name}.bif.gz")
        text = write_bif(network, tmp_path / f"{name}.bif")
        bn = gum.loadBN(str(tmp_path / f"{name}.bif"))
        assert bn.size() == network.n_vars and bn.sizeArcs() == sum(map(len, network.parents)), name
        names, states = written_names(text)
        assert [list(bn.variable(v).labels()) for v in range(bn.size())] == states, name
        back = read_bif(tmp_path / f"{name}.bif")  # child's states <5, 5-12, >12 are written _5, _5-12, _12
        assert (back.names, back.states) == (network.names, network.states), name


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", ASKED)
def test_pyagrum_gives_bnexplores_posteriors_on_bundled_networks(name, tmp_path):
    check_pyagrum(read_bif(NETWORKS / f"{name}.bif.gz"), tmp_path / f"{name}.bif")


@pytest.mark.parametrize("seed", range(3))
def test_pyagrum_reads_hostile_names_and_bnexplore_reads_them_back(seed, tmp_path):
    network = hostile_network(seed)
    check_pyagrum(network, tmp_path / "hostile.bif", rounds=5, seed=seed)
    back = read_bif(tmp_path / "hostile.bif")
    assert (back.name, back.names, back.states) == (network.name, network.names, network.states)
    assert all(np.array_equal(a, b) for a, b in zip(back.cpts, network.cpts))


def pgmpy_posteriors(text, names, evidence):
    """pgmpy's posterior of every variable (variable elimination), by written name."""
    from pgmpy.inference import VariableElimination
    from pgmpy.readwrite import BIFReader

    model = BIFReader(string=text).get_model()
    engine = VariableElimination(model)
    out = {}
    for name in names:
        if name in evidence:
            continue
        factor = engine.query([name], evidence=evidence, show_progress=False)
        out[name] = dict(zip(factor.state_names[name], factor.values))
    return out


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", PGMPY_ASKED + ["hostile"])
def test_pgmpy_gives_bnexplores_posteriors(name):
    pytest.importorskip("pgmpy")
    network = hostile_network(5) if name == "hostile" else read_bif(NETWORKS / f"{name}.bif.gz")
    text = write_bif(network)
    names, states = written_names(text)
    engine = InferenceEngine(network)
    rng = np.random.default_rng(1)
    for k in (0, 2):
        evidence = random_evidence(network, rng, k)
        want = engine.query(evidence={network.names[v]: network.states[v][s] for v, s in evidence.items()})
        got = pgmpy_posteriors(text, names, {names[v]: states[v][s] for v, s in evidence.items()})
        for v, written in enumerate(names):
            if written in got:
                ours = [want.posterior[network.names[v]][state] for state in network.states[v]]
                np.testing.assert_allclose([got[written][s] for s in states[v]], ours, rtol=0, atol=1e-9,
                                           err_msg=f"{name}: {written} given {evidence}")

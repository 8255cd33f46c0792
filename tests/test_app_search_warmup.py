"""The fast core's warm-up covers every kernel the app calls (issue 29 item 5).

After :func:`bnexplore.warmup.warm_up`, running each search, score, inference and sampling routine the app
offers on other data (other sizes, arities and scores) must not compile (or load) a single new kernel
signature: a new one would be compile time inside a result's seconds.
"""

import importlib
import pkgutil
import tomllib
from pathlib import Path

import numpy as np
from numba.core.registry import CPUDispatcher

import bnexplore
from bnexplore import bundled
from bnexplore.bif import fit_network, read_bif, sample
from bnexplore.bootstrap import bootstrap
from bnexplore.cli import app_command
from bnexplore.classifier import cross_validate
from bnexplore.data import Dataset, Encoder
from bnexplore.inference import InferenceEngine
from bnexplore.knowledge import Knowledge
from bnexplore.parents import candidate_parent_sets
from bnexplore.scores import Scorer
from bnexplore.bnkl import bnkl
from bnexplore.search.credible import credible_set
from bnexplore.search.exact import exact_search
from bnexplore.independence import TESTS
from bnexplore.search.ges import ges
from bnexplore.search.hillclimb import hill_climb, tabu_search
from bnexplore.search.mmhc import mmhc
from bnexplore.search import ordering
from bnexplore.search.ordering import ordering_search
from bnexplore.search.pc import pc_stable
from bnexplore.search.rpdag import rpdag_search
from bnexplore.warmup import STEPS, warm_up


def signatures():
    """Every numba kernel of the package with the signatures it has compiled (or loaded) so far."""
    found = {}
    for module in pkgutil.walk_packages(bnexplore.__path__, "bnexplore."):
        if module.name.endswith("__main__"):
            continue
        for name, value in vars(importlib.import_module(module.name)).items():
            if isinstance(value, CPUDispatcher):
                found[f"{module.name}.{name}"] = set(value.signatures)
    return found


def new_since(before):
    return {name: sorted(map(str, sigs - before.get(name, set()))) for name, sigs in signatures().items()
            if sigs - before.get(name, set())}


def test_after_the_warm_up_no_search_of_the_app_compiles_a_kernel(monkeypatch):
    steps = []
    warm_up(progress=lambda step, done: steps.append((step, done)))
    assert [s for s, _ in steps] == list(STEPS) and [d for _, d in steps] == sorted(d for _, d in steps)
    before = signatures()
    assert sum(1 for sigs in before.values() if sigs) > 20
    network = read_bif(bundled.network_path("child"))  # 20 variables of 2 to 6 states
    frame = sample(network, 400, seed=3)
    data = Encoder().fit_transform(frame)
    for score in ("bdeu", "bic", "k2"):
        scorer = Scorer(data, score=score)
        hill_climb(scorer, max_indegree=3)
        hill_climb(scorer, restarts=2, seed=1)
        tabu_search(scorer, iterations=30)
        if score != "k2":
            rpdag_search(scorer, max_indegree=3)
            rpdag_search(scorer, tabu=True, iterations=30)
            ges(scorer, max_indegree=3)
        mmhc(scorer, climb="tabu")
        ordering_search(scorer, method="asobs", restarts=2, seed=1, time_per_variable=0.01)
        ordering_search(scorer, method="obs", restarts=2, seed=1, time_per_variable=0.01)
        candidate_parent_sets(scorer, epsilon=np.log(20.0), max_indegree=2)
    wide = Encoder().fit_transform(sample(network, 4000, seed=6))  # 19 additions a child x 4,000 rows: parallel
    hill_climb(Scorer(wide))  # (with more than one numba thread, as on the 2-core CI machine)
    halves = Dataset(wide.codes, wide.arities, wide.names, wide.states, weights=np.full(wide.n_rows, 0.5))
    hill_climb(Scorer(halves))
    reordered = []  # ASOBS graphs that beat their ordering's climb (alarm, 400 rows: 4 with these options)
    topological = ordering.Candidates.topological
    monkeypatch.setattr(ordering.Candidates, "topological",
                        lambda self, *args: reordered.append(1) or topological(self, *args))
    alarm = Encoder().fit_transform(sample(read_bif(bundled.network_path("alarm")), 400, seed=3))
    ordering_search(Scorer(alarm), method="asobs", restarts=2, seed=0, max_evaluations=2000)
    assert reordered
    required = Knowledge(require=[(data.names[0], data.names[1])])  # the ordering put after required parents
    ordering_search(Scorer(data), method="asobs", restarts=1, seed=0, max_evaluations=500, knowledge=required)
    small = Scorer(data.select(data.names[:9]), score="bic")
    exact_search(small, max_indegree=2)
    exact_search(small, max_indegree=2, engine="ilp")
    credible_set(small, bf=3, max_indegree=2)
    credible_set(small, bf=3, max_indegree=2, engine="ilp")
    exact_search(Scorer(data.select(data.names[:14])), engine="dp", max_indegree=2)  # layers filled in parallel
    sachs = Encoder().fit_transform(sample(read_bif(bundled.network_path("sachs")), 2000, seed=1))
    exact_search(Scorer(sachs), max_indegree=3, engine="ilp")  # its cluster cuts
    for test in TESTS:
        pc_stable(Scorer(data), test=test, permutations=30, seed=1, max_condition=2)
    bootstrap(data, R=3, seed=1, workers=1)
    engine = InferenceEngine(fit_network(hill_climb(Scorer(data)).graph, data))
    engine.query(evidence={data.names[1]: data.states[1][0]})
    sample(network, 50, seed=4)
    rng = np.random.default_rng(5)
    table = frame.iloc[:, :6].assign(x=rng.normal(size=len(frame)), group=np.where(rng.random(len(frame)) < .5,
                                                                                     "a", "b"))
    bnkl(table, "group")
    cross_validate(table.drop(columns="group"), table["group"], cv=2, seed=0)
    assert new_since(before) == {}


def test_the_server_runs_no_full_garbage_collection_after_each_page_run():
    """Streamlit's default ``gc.collect(2)`` after every script run, with the sidebar note and a search's progress
    rerunning every few seconds, walked numba's compiler objects holding the GIL and starved the warm-up: on a cold
    cache beside two busy processes the first search still waited at 43 % after ten minutes; with it off the whole
    journey test (tests/test_browser.py) passed in 4.8 minutes.
    Both doors serve the app with it off: ``streamlit run app.py`` (the clone's settings) and ``bnexplore app``."""
    clone = tomllib.loads((Path(__file__).resolve().parent.parent / ".streamlit" / "config.toml").read_text())
    assert clone["runner"]["postScriptGC"] is False
    assert "--runner.postScriptGC=false" in app_command([])

"""bnexplore: learn and explore Bayesian network structure from discrete data.

The Python API in one place::

    import bnexplore as bx
    data = bx.read_csv("sample_data/asia.csv")
    result = bx.learn(data, algorithm="hc", score="bdeu")
    print(result.score, result.graph.arcs())

Importing it chooses how numba's parallel threads wait (see :mod:`bnexplore.threads`)
and nothing else: each name of ``__all__`` is loaded from its module on first use
(PEP 562), so a command or script pays only for what it touches (numba kernels,
pandas, SciPy, Dask, SCIP, Arrow load with the functions that need them).
``bnexplore.X`` and ``from bnexplore import X`` work for every name.
"""

import sys
import types

from . import threads
from .exports import lazy_exports

threads.configure()  # before any numba kernel runs: libgomp reads the wait policy once

__version__ = "0.9.0"

EXPORTS = {
    "bif": ["Network", "read_bif", "sample", "write_bif"],
    "bnkl": ["BNKLResult", "bnkl"],
    "bootstrap": ["BootstrapResult", "bootstrap"],
    "classifier": ["BNKLClassifier", "cross_validate"],
    "data": ["Dataset", "Encoder", "read_csv", "read_frame", "read_table"],
    "em": ["completed_data", "em_fit", "expected_counts", "fit_network", "impute", "observed_log_likelihood"],
    "formats": ["read_graph", "read_network", "write_network"],
    "errors": ["BIFError", "BNExploreError", "DataError", "ResourceError", "ScoreError", "SearchError"],
    "graphs": ["CPDAG", "DAG", "PDAG", "RPDAG"],
    "heldout": ["HeldOutResult", "cross_validate_networks"],
    "inference": ["InferenceEngine", "QueryResult", "mutilated_network", "query"],
    "interop": ["from_networkx", "from_pgmpy", "from_pyagrum", "to_networkx", "to_pgmpy", "to_pyagrum"],
    "knowledge": ["Knowledge"],
    "parents": ["ParentSets", "candidate_parent_sets"],
    "result": ["Result"],
    "scores": ["Scorer"],
    "search": ["CredibleSet", "EffectRange", "credible_set", "effect_range", "exact_search", "learn"],
    "session": ["Session", "load_session", "save_session"],
    "workbench": ["Edit", "ScoreChange", "Workbench", "score_change"],
}
"""The module of :mod:`bnexplore` each public name is loaded from."""

HOME, __all__, __getattr__, __dir__ = lazy_exports(__name__, EXPORTS)


class Package(types.ModuleType):
    """The type of this module: a public name is never replaced by the submodule of the same name.

    ``bnexplore.bootstrap`` and ``bnexplore.bnkl`` name both a function and a module. Python binds
    a submodule to its package's attribute when it first loads it; without this, loading
    ``bnexplore.bootstrap`` anywhere would make ``bnexplore.bootstrap(...)`` call a module.
    """

    def __setattr__(self, name, value):
        if name in HOME and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = Package

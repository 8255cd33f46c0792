"""bnexplore: learn and explore Bayesian network structure from discrete data.

The Python API in one place::

    import bnexplore as bx
    data = bx.read_csv("sample_data/asia.csv")
    result = bx.learn(data, algorithm="hc", score="bdeu")
    print(result.score, result.graph.arcs())

Importing it chooses how numba's parallel threads wait (see :mod:`bnexplore.threads`).
"""

from . import threads

threads.configure()  # before any numba kernel runs: libgomp reads the wait policy once

from .bif import Network, fit_network, read_bif, sample, write_bif
from .bootstrap import BootstrapResult, bootstrap
from .classifier import BNKLClassifier, cross_validate
from .data import Dataset, Encoder, read_csv, read_frame, read_table
from .errors import BIFError, BNExploreError, DataError, ResourceError, ScoreError, SearchError
from .graphs import CPDAG, DAG, PDAG, RPDAG
from .inference import InferenceEngine, QueryResult, query
from .knowledge import Knowledge
from .result import Result
from .scores import Scorer
from .parents import ParentSets, candidate_parent_sets
from .search import CredibleSet, credible_set, exact_search, learn
from .bnkl import BNKLResult, bnkl
from .session import Session, load_session, save_session

__version__ = "0.9.0"

__all__ = [
    "BIFError", "BNExploreError", "BNKLClassifier", "BNKLResult", "CPDAG", "DAG", "DataError", "Dataset",
    "Encoder", "Network", "PDAG", "RPDAG", "ResourceError", "Result", "ScoreError", "Scorer", "SearchError",
    "CredibleSet", "ParentSets", "bnkl", "candidate_parent_sets", "credible_set", "cross_validate",
    "exact_search", "fit_network", "learn", "load_session", "read_bif", "read_csv", "read_frame", "read_table",
    "sample", "save_session", "Session", "write_bif", "BootstrapResult", "InferenceEngine", "Knowledge",
    "QueryResult", "bootstrap", "query",
]

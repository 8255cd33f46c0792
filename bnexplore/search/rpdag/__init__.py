"""Local search in the space of restricted PDAGs (RPDAGs): Acid & de Campos (2003) [1]_.

Greedy search (their "RPDAG") and tabu search ("TS-RPDAG", Section 6) over
RPDAGs (Definition 1), in three rooms:

- :mod:`~bnexplore.search.rpdag.operators`: the five operators of Section 4.3,
  when they apply (Table 2, the cycle tests), their post-processing
  (Complete, Undo), the pair states of Table 1, and the extension that
  honours background knowledge;
- :mod:`~bnexplore.search.rpdag.scoring`: the score change of every
  neighbour from at most two local scores (Proposition 6), and the choice of
  the best operator;
- :mod:`~bnexplore.search.rpdag.search`: the greedy and tabu loops, the start
  graph, the trajectory a replay follows and the result.

Examples
--------
>>> import numpy as np
>>> from bnexplore.data import Dataset
>>> from bnexplore.scores import Scorer
>>> from bnexplore.search.rpdag import rpdag_hill_climb
>>> rng = np.random.default_rng(0)
>>> a = rng.integers(0, 2, 500)
>>> b = (a + (rng.random(500) < 0.1)) % 2          # b copies a, with 10% noise
>>> data = Dataset.from_codes(np.column_stack([a, b, rng.integers(0, 2, 500)]), names=["a", "b", "c"])
>>> result = rpdag_hill_climb(Scorer(data, "bic"))
>>> result.extra["rpdag"]          # one link: a -- b, its direction left open
RPDAG(3 nodes, 1 edges: a -- b)

References
----------
.. [1] S. Acid and L. M. de Campos (2003). Searching for Bayesian network
   structures in the space of restricted acyclic partially directed graphs.
   JAIR 18, 445-490.
"""

from .operators import (OPERATORS, Moves, RpdagGraph, applicable_operators, apply_operator, honouring_extension,
                        pair_state, partial_reach)
from .scoring import RpdagState
from .search import SCORE_EQUIVALENT, rpdag_hill_climb, rpdag_search, rpdag_tabu_search, start_rpdag

__all__ = ["OPERATORS", "Moves", "RpdagGraph", "RpdagState", "SCORE_EQUIVALENT", "applicable_operators",
           "apply_operator", "honouring_extension", "pair_state", "partial_reach", "rpdag_hill_climb",
           "rpdag_search", "rpdag_tabu_search", "start_rpdag"]

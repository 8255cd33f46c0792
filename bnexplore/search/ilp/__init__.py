"""The optimal network and the credible set by branch and cut on SCIP.

The integer programme of Jaakkola, Sontag, Globerson & Meila (2010,
"Learning Bayesian network structure using LP relaxations", AISTATS), Cussens
(2011, UAI) and Bartlett & Cussens (2017, "Integer linear programming for the
Bayesian network structure learning problem", AIJ 244), over the candidate
parent sets of :func:`bnexplore.parents.pruning.candidate_parent_sets`
instead of the subset lattice of :mod:`bnexplore.search.subsets`:

* :mod:`~bnexplore.search.ilp.model`: one binary *family variable* per node
  and candidate parent set, one parent set per node, *arrow* and *adjacency*
  variables branched on first, two-node cluster and three-node set-packing
  rows (Bartlett & Cussens, Sections 3 and 4.3);
* :mod:`~bnexplore.search.ilp.branch_and_cut`: acyclicity by *cluster* and
  *k-cluster* cuts and the *4B inequalities* (Cussens, Jaervisalo, Korhonen &
  Bartlett 2017, JAIR 58), separated by the kernels of
  :mod:`bnexplore.search.cuts` and enforced exactly on integer points, and
  SCIP's zero-half separator on those rows (the LP points no cluster
  constraint cuts are mostly half-integral);
* :mod:`~bnexplore.search.ilp.optimisation`: the best DAG, from an ASOBS
  incumbent (Scanagatta et al. 2015), with Cussens's sink-finding heuristic
  (Section 5) and an ordering climb as the primal heuristic;
* :mod:`~bnexplore.search.ilp.enumeration`: the credible set (Liao, Sharma,
  Cussens & van Beek 2019) by recording every DAG above ``OPT - epsilon``
  and branching it away, whole Markov equivalence classes under covered-arc
  rows, the best ``limit`` kept, and an exploration by one-family changes
  that fills the set early;
* :mod:`~bnexplore.search.ilp.search`: the entry points, :func:`ilp_search`,
  :func:`optimum` and :func:`enumerate_credible`;
* :mod:`~bnexplore.search.ilp.families`, :mod:`~bnexplore.search.ilp.outcome`
  and :mod:`~bnexplore.search.ilp.requirements`: cut rows over the families,
  what a solve found, and what the engine requires.

SCIP is used through PySCIPOpt (a requirement of bnexplore), loaded where a search runs: importing this package does not
load it.
"""

from .families import KnownCuts, bits, cluster_row, forbidden_families, four_b_row, sorted_families
from .outcome import Outcome, describe_gap, gap
from .requirements import exploration_memory, ilp_memory
from .search import (PROVEN, PROVEN_KEPT, SEED_RESTARTS, SEED_WORK, enumerate_credible, ilp_search, optimum,
                     seed_incumbent, seed_restarts)

__all__ = ["KnownCuts", "Outcome", "PROVEN", "PROVEN_KEPT", "SEED_RESTARTS",
           "SEED_WORK", "bits", "cluster_row", "describe_gap", "enumerate_credible", "exploration_memory",
           "forbidden_families", "four_b_row", "gap", "ilp_memory", "ilp_search", "optimum",
           "seed_incumbent", "seed_restarts", "sorted_families"]

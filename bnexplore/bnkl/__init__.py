"""Two-class Kullback-Leibler networks (BNKL) of Balov (2013): one DAG, two probability tables.

N. Balov, "A categorical network approach for discovering differentially
expressed regulations in cancer", BMC Medical Genomics 6 (Suppl 3): S1, 2013
(the method of the R package sdnet). One DAG is learned for a table whose rows
belong to two classes; each class then gets its own conditional probability
tables on that DAG.

Score (Eq. 3-4): ``S(G) = R(G) / df(G)`` with ``R(G) = sum_i R_i`` the
accumulated KL divergence between the conditionals estimated from all rows and
from the class-0 rows (see :func:`bnexplore.scores.kl_statistics`) and
``df(G) = sum_i q_i (r_i - 1)``. R depends on which class is class 0 (the
reference): swapping the classes gives another score and possibly another
network.

BNKL is not one of the structure searches of :mod:`bnexplore.search`: it
learns from two classes, not from one table. Its rooms:

- :mod:`~bnexplore.bnkl.classes`: the two class labels and their 0 / 1 codes;
- :mod:`~bnexplore.bnkl.divergence`: per-variable class-difference tests, the
  IDE node order (Eq. 7) and the marginal KL divergence;
- :mod:`~bnexplore.bnkl.path`: the complexity path (an exact knapsack over
  the nodes) and the rules that pick a network from it;
- :mod:`~bnexplore.bnkl.networks`: the network at a path point, its KL edge
  contributions and class CPTs (Eq. 1-2);
- :mod:`~bnexplore.bnkl.result`: :class:`BNKLResult` and its JSON;
- :mod:`~bnexplore.bnkl.search`: the search and the entry points
  :func:`bnkl`, :func:`bnkl_xy` and :func:`bnkl_search`.
"""

from bnexplore.bnkl.classes import encode_classes
from bnexplore.bnkl.divergence import (class_difference_tests, g_test_log_pvalue, ide_order, marginal_divergence,
                                       welch_log_pvalue)
from bnexplore.bnkl.networks import network_loglik
from bnexplore.bnkl.path import SELECT_RULES, complexity_path, pareto_frontier, rule_values, select_index
from bnexplore.bnkl.result import BNKLResult, class_networks_from_json
from bnexplore.bnkl.search import bnkl, bnkl_search, bnkl_xy, n_statistics

__all__ = ["BNKLResult", "SELECT_RULES", "bnkl", "bnkl_search", "bnkl_xy", "class_difference_tests",
           "class_networks_from_json", "complexity_path", "encode_classes", "g_test_log_pvalue", "ide_order",
           "marginal_divergence", "n_statistics", "network_loglik", "pareto_frontier", "rule_values",
           "select_index", "welch_log_pvalue"]

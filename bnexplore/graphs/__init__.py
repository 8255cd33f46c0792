"""Graphs: DAG, PDAG, CPDAG and RPDAG, their conversions, extensions, keys and distances.

The bottom layer of bnexplore: it imports nothing from the package but
:mod:`bnexplore.errors`. Its rooms:

- :mod:`~bnexplore.graphs.pdag`: the immutable graph kinds ``PDAG``, ``DAG``,
  ``CPDAG``, ``RPDAG`` and :func:`pdag_extension`;
- :mod:`~bnexplore.graphs.equivalence`: the conversions on plain matrices
  (DAG -> CPDAG, DAG -> RPDAG, PDAG -> consistent extension);
- :mod:`~bnexplore.graphs.orientations`: the orientations of a CPDAG's chain
  components (Meek's R1 from a root; He, Jia & Yu's counting);
- :mod:`~bnexplore.graphs.meek`: Meek's rules R1-R4 (a pattern to its
  maximally oriented PDAG);
- :mod:`~bnexplore.graphs.compare`: class keys, SHD, A, D, I, H, adjacency and arrowhead precision
  and recall;
- :mod:`~bnexplore.graphs.adjacency`: plain-matrix helpers (topological order,
  directed cycles); :mod:`~bnexplore.graphs.nodes`: checked names and matrices.

Examples
--------
>>> from bnexplore.graphs import DAG
>>> g = DAG.from_arcs([("a", "b"), ("b", "c")], ["a", "b", "c"])
>>> g.cpdag().n_dags()
3
"""

from bnexplore.graphs.adjacency import find_cycle, is_acyclic
from bnexplore.graphs.compare import (adjacency_precision_recall, arrowhead_precision_recall, mec_key, rpdag_key, shd,
                                      structural_errors)
from bnexplore.graphs.meek import meek_orient
from bnexplore.graphs.pdag import CPDAG, DAG, PDAG, RPDAG, pdag_extension

__all__ = ["PDAG", "DAG", "CPDAG", "RPDAG", "find_cycle", "is_acyclic", "pdag_extension", "mec_key", "rpdag_key",
           "shd", "structural_errors", "adjacency_precision_recall", "arrowhead_precision_recall", "meek_orient"]

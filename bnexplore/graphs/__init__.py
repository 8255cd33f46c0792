"""Graphs: DAG, PDAG, CPDAG and RPDAG, their conversions, extensions, keys and distances."""

from bnexplore.graphs.pdag import (CPDAG, DAG, PDAG, RPDAG, find_cycle, is_acyclic, mec_key, pdag_extension,
                                   rpdag_key, shd, structural_errors)

__all__ = ["PDAG", "DAG", "CPDAG", "RPDAG", "find_cycle", "is_acyclic", "pdag_extension", "mec_key", "rpdag_key",
           "shd", "structural_errors"]
